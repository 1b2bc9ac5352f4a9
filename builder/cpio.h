/*
 * cpio.h: the initramfs format: cpio "newc" archives (the kernel's
 * Documentation/driver-api/early-userspace/buffer-format.rst), written and
 * read here without an external cpio, and the gzip layer around them.
 *
 * Writing is deterministic: the caller adds entries in the order it wants
 * (build.c sorts them); inode numbers count from 1; uid, gid are 0 and every
 * mtime is the one given. Reading checks every field and length against the
 * bytes that are there: a hostile image gets an error, never a crash.
 */
#ifndef BOOTRIG_CPIO_H
#define BOOTRIG_CPIO_H

#include <stddef.h>
#include <stdint.h>
#include "util.h"

struct cpio_writer {
	struct strbuf out;
	uint32_t next_ino;
	uint32_t mtime;
};

void cpio_writer_init(struct cpio_writer *w, uint32_t mtime);
/* One entry: name without a leading '/', mode with its type bits (S_IFREG...),
 * data for regular files and symlinks, rdev for device nodes. */
void cpio_add(struct cpio_writer *w, const char *name, uint32_t mode, const void *data,
	      size_t len, uint32_t rdev_major, uint32_t rdev_minor);
/* The same, leaving the len bytes of data (zeroed) for the caller to fill
 * through the pointer returned, which holds until the next call: a file
 * can be read straight into the archive. */
void *cpio_add_space(struct cpio_writer *w, const char *name, uint32_t mode, size_t len,
		     uint32_t rdev_major, uint32_t rdev_minor);
/* Appends the TRAILER!!! entry and pads the archive to 512 bytes. */
void cpio_finish(struct cpio_writer *w);

/* An entry as the reader sees it; pointers into the walked buffer. */
struct cpio_entry {
	const char *name;          /* NUL-terminated inside the buffer */
	uint32_t mode, uid, gid, nlink, mtime, ino;
	uint32_t rdev_major, rdev_minor;
	const unsigned char *data;
	size_t size;
};

typedef void (*cpio_visit_fn)(const struct cpio_entry *e, void *ctx);

/*
 * cpio_walk: calls visit for each entry of an initramfs image held in
 * data: plain newc archives, gzip'd ones, and any concatenation of them
 * with zero padding between (as the kernel accepts). Trailers are not
 * visited. Returns the number of entries, or -1 with a one-line reason in
 * why (the offset and what is wrong; lib/usage.h, 4.) when the image is
 * truncated or corrupt.
 * Gzip members inflate to at most max_inflated bytes each.
 */
long cpio_walk(const unsigned char *data, size_t len, size_t max_inflated,
	       cpio_visit_fn visit, void *ctx, char *why, size_t why_len);

/*
 * gzip_compress: data as one gzip member, through libdeflate (three times
 * zlib's speed at the same size here), deterministic: no file name, mtime
 * 0, OS byte 3 (Unix). level: libdeflate's 1..12 (6 is zlib's -9 size).
 */
void gzip_compress(const void *data, size_t len, int level, struct strbuf *out);

#endif
