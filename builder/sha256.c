/*
 * sha256.c: SHA-256 over OpenSSL's EVP interface (see sha256.h). Any
 * failure of libcrypto here is a broken installation: it aborts.
 */
#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void crypto_failed(const char *what)
{
	fprintf(stderr, "bootrig: libcrypto: %s failed\n", what);
	abort();
}

void sha256_init(struct sha256 *s)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	if (!ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1)
		crypto_failed("EVP_DigestInit_ex(sha256)");
	s->ctx = ctx;
}

void sha256_update(struct sha256 *s, const void *data, size_t n)
{
	if (n && EVP_DigestUpdate(s->ctx, data, n) != 1)
		crypto_failed("EVP_DigestUpdate");
}

void sha256_final_hex(struct sha256 *s, char hex[65])
{
	unsigned char digest[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	if (EVP_DigestFinal_ex(s->ctx, digest, &len) != 1 || len != 32)
		crypto_failed("EVP_DigestFinal_ex");
	EVP_MD_CTX_free(s->ctx);
	s->ctx = NULL;
	for (unsigned i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

void sha256_hex(const void *data, size_t n, char hex[65])
{
	struct sha256 s;
	sha256_init(&s);
	sha256_update(&s, data, n);
	sha256_final_hex(&s, hex);
}

int sha256_file(const char *path, char hex[65])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct sha256 s;
	sha256_init(&s);
	static __thread unsigned char buf[1 << 16];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;
			char ignored[65];
			sha256_final_hex(&s, ignored);
			close(fd);
			errno = saved;
			return -1;
		}
		if (n == 0)
			break;
		sha256_update(&s, buf, (size_t)n);
	}
	close(fd);
	sha256_final_hex(&s, hex);
	return 0;
}
