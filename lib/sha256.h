/*
 * sha256.h: SHA-256 for kernel ids, the manifest and the image cache,
 * through nettle (which uses the CPU's SHA instructions where there are
 * some: a 33 MB kernel hashes in about 20 ms).
 */
#ifndef BOOTRIG_SHA256_H
#define BOOTRIG_SHA256_H

#include <stddef.h>

struct sha256 {
	void *ctx;             /* a nettle struct sha256_ctx */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t n);
/* Writes the digest as 64 lower-case hex digits and a NUL into hex, and
 * frees the context. */
void sha256_final_hex(struct sha256 *s, char hex[65]);
/* One call: the hex digest of data. */
void sha256_hex(const void *data, size_t n, char hex[65]);
/* The hex digest of a file's contents; 0, or -1 with errno set. */
int sha256_file(const char *path, char hex[65]);

#endif
