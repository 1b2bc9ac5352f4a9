/*
 * kernel-internal.h: what kernel.c and kernel-size.c share, not for use
 * outside builder/.
 */
#ifndef BOOTRIG_KERNEL_INTERNAL_H
#define BOOTRIG_KERNEL_INTERNAL_H

#include <stddef.h>

/*
 * kernel_gunzip, kernel_unxz: the gzip or xz stream at data[0..len) decoded
 * into *out (malloc'd, at most 512 MiB; what follows the stream is
 * ignored, and a truncated stream keeps what was decoded). 0, or -1 when
 * nothing decoded.
 */
int kernel_gunzip(const unsigned char *data, size_t len, unsigned char **out, size_t *out_len);
int kernel_unxz(const unsigned char *data, size_t len, unsigned char **out, size_t *out_len);

/*
 * kernel_cache_get, kernel_cache_put: the text kept under KIND/KEY in the
 * kernel cache (bootrig_cache_dir()/kernels/): get gives it malloc'd, or
 * NULL when there is none; put stores it, a failure ignored (it is only a
 * cache: what is missing is worked out again).
 */
char *kernel_cache_get(const char *kind, const char *key);
void kernel_cache_put(const char *kind, const char *key, const char *text);

#endif
