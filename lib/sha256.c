/*
 * sha256.c: SHA-256 over nettle (see sha256.h). nettle needs no start-up
 * (OpenSSL's libcrypto read its config file on first use, a millisecond a
 * command) and Debian's build picks the CPU's SHA instructions at run time.
 */
#include "sha256.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <nettle/sha2.h>
/* nettle names its functions sha256_init and so on through macros; ours
 * have those names, so take the macros back and call nettle_* directly. */
#undef sha256_init
#undef sha256_update
#undef sha256_digest

void sha256_init(struct sha256 *s)
{
	s->ctx = xmalloc(sizeof(struct sha256_ctx));
	nettle_sha256_init(s->ctx);
}

void sha256_update(struct sha256 *s, const void *data, size_t n)
{
	if (n)
		nettle_sha256_update(s->ctx, n, data);
}

void sha256_final_hex(struct sha256 *s, char hex[65])
{
	unsigned char digest[SHA256_DIGEST_SIZE];
	nettle_sha256_digest(s->ctx, sizeof(digest), digest);
	free(s->ctx);
	s->ctx = NULL;
	static const char digits[] = "0123456789abcdef";
	for (unsigned i = 0; i < SHA256_DIGEST_SIZE; i++) {
		hex[2 * i] = digits[digest[i] >> 4];
		hex[2 * i + 1] = digits[digest[i] & 15];
	}
	hex[64] = '\0';
}

void sha256_hex(const void *data, size_t n, char hex[65])
{
	struct sha256 s;
	sha256_init(&s);
	sha256_update(&s, data, n);
	sha256_final_hex(&s, hex);
}

/* sha256_file's sink: the block into the struct sha256 ctx. */
static void sha256_sink(void *ctx, const void *data, size_t n)
{
	sha256_update(ctx, data, n);
}

int sha256_file(const char *path, char hex[65])
{
	struct sha256 s;
	sha256_init(&s);
	static __thread unsigned char buf[1 << 16];
	if (read_file_chunks(path, buf, sizeof(buf), sha256_sink, &s)) {
		int saved = errno;
		char ignored[65];
		sha256_final_hex(&s, ignored);
		errno = saved;
		return -1;
	}
	sha256_final_hex(&s, hex);
	return 0;
}
