/*
 * cpio.c: newc archives written and read in memory, and their gzip layer
 * (see cpio.h). The writer is first, then the bounds-checked reader, then
 * gzip (libdeflate writes it; the reader inflates through zlib).
 */
#include "cpio.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <libdeflate.h>
#include <zlib.h>

#define NEWC_MAGIC "070701"
#define NEWC_CRC_MAGIC "070702"
#define HEADER_LEN 110
#define TRAILER "TRAILER!!!"

/* ---- writer ------------------------------------------------------------ */

void cpio_writer_init(struct cpio_writer *w, uint32_t mtime)
{
	struct strbuf empty = STRBUF_INIT;
	w->out = empty;
	w->next_ino = 1;
	w->mtime = mtime;
}

/* Zero bytes up to the next multiple of 4 (newc aligns names and data). */
static void pad4(struct strbuf *sb)
{
	static const char zeros[4];
	if (sb->len % 4)
		strbuf_add(sb, zeros, 4 - sb->len % 4);
}

/* The 110-byte newc header and the padded name. */
static void add_header(struct cpio_writer *w, uint32_t ino, const char *name, uint32_t mode,
		       size_t len, uint32_t nlink, uint32_t rdev_major, uint32_t rdev_minor)
{
	size_t namesize = strlen(name) + 1;
	strbuf_addf(&w->out, "%s%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08zX%08X",
		    NEWC_MAGIC, ino, mode, 0u, 0u, nlink, w->mtime, (uint32_t)len, 0u, 0u,
		    rdev_major, rdev_minor, namesize, 0u);
	strbuf_add(&w->out, name, namesize);
	pad4(&w->out);
}

void *cpio_add_space(struct cpio_writer *w, const char *name, uint32_t mode, size_t len,
		     uint32_t rdev_major, uint32_t rdev_minor)
{
	uint32_t nlink = S_ISDIR(mode) ? 2 : 1;
	add_header(w, w->next_ino++, name, mode, len, nlink, rdev_major, rdev_minor);
	strbuf_grow(&w->out, len + 3);
	char *data = w->out.buf + w->out.len;
	memset(data, 0, len);   /* all of it is written by the caller, or zeros */
	w->out.len += len;
	pad4(&w->out);
	return data;
}

void cpio_add(struct cpio_writer *w, const char *name, uint32_t mode, const void *data,
	      size_t len, uint32_t rdev_major, uint32_t rdev_minor)
{
	void *space = cpio_add_space(w, name, mode, len, rdev_major, rdev_minor);
	if (len)
		memcpy(space, data, len);
}

void cpio_finish(struct cpio_writer *w)
{
	static const char zeros[512];
	add_header(w, 0, TRAILER, 0, 0, 1, 0, 0);
	if (w->out.len % 512)
		strbuf_add(&w->out, zeros, 512 - w->out.len % 512);
}

/* ---- reader ------------------------------------------------------------ */

struct walk {
	cpio_visit_fn visit;
	void *ctx;
	size_t max_inflated;
	char *why;
	size_t why_len;
	long count;
};

__attribute__((format(printf, 2, 3)))
/* Formats the reader's reason into wk->why; returns -1. */
static int walk_fail(struct walk *wk, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(wk->why, wk->why_len, fmt, ap);
	va_end(ap);
	return -1;
}

/* Eight hex digits at p into *v; -1 when one is not a hex digit. */
static int hex8(const unsigned char *p, uint32_t *v)
{
	uint32_t x = 0;
	for (int i = 0; i < 8; i++) {
		int c = p[i], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if ((c | 32) >= 'a' && (c | 32) <= 'f')
			d = (c | 32) - 'a' + 10;
		else
			return -1;
		x = x << 4 | (uint32_t)d;
	}
	*v = x;
	return 0;
}

static size_t align4(size_t n) { return (n + 3) & ~(size_t)3; }

/*
 * Reads one newc archive starting at *pos, through its trailer; *pos ends
 * after it. base is the offset of data in the whole image, for messages.
 */
static int walk_archive(struct walk *wk, const unsigned char *data, size_t len, size_t *pos,
			size_t base)
{
	for (;;) {
		size_t at = *pos;
		if (len - at < HEADER_LEN)
			return walk_fail(wk, "offset %zu: truncated cpio header", base + at);
		const unsigned char *h = data + at;
		if (memcmp(h, NEWC_MAGIC, 6) && memcmp(h, NEWC_CRC_MAGIC, 6))
			return walk_fail(wk, "offset %zu: bad cpio magic", base + at);
		uint32_t f[13];
		for (int i = 0; i < 13; i++)
			if (hex8(h + 6 + 8 * i, &f[i]) < 0)
				return walk_fail(wk, "offset %zu: bad cpio header field %d",
						 base + at, i);
		uint32_t filesize = f[6], namesize = f[11];
		if (namesize == 0 || namesize > len - at - HEADER_LEN)
			return walk_fail(wk, "offset %zu: name size %u runs past the end",
					 base + at, namesize);
		const char *name = (const char *)h + HEADER_LEN;
		if (name[namesize - 1] != '\0' || memchr(name, '\0', namesize) != name + namesize - 1)
			return walk_fail(wk, "offset %zu: the entry name is not terminated",
					 base + at);
		size_t data_at = align4(at + HEADER_LEN + namesize);
		if (data_at > len || filesize > len - data_at)
			return walk_fail(wk, "offset %zu: '%s' has size %u, past the end of the image",
					 base + at, name, filesize);
		*pos = align4(data_at + filesize);
		if (*pos > len)
			*pos = len;
		if (!strcmp(name, TRAILER))
			return 0;
		struct cpio_entry e = {
			.name = name, .ino = f[0], .mode = f[1], .uid = f[2], .gid = f[3],
			.nlink = f[4], .mtime = f[5], .rdev_major = f[9], .rdev_minor = f[10],
			.data = data + data_at, .size = filesize,
		};
		wk->count++;
		if (wk->visit)
			wk->visit(&e, wk->ctx);
	}
}

static int walk_buffer(struct walk *wk, const unsigned char *data, size_t len, size_t base,
		       int depth);

/* Inflates the gzip member at data[*pos] and walks what it holds. */
static int walk_gzip(struct walk *wk, const unsigned char *data, size_t len, size_t *pos,
		     size_t base, int depth)
{
	if (depth > 2)
		return walk_fail(wk, "offset %zu: gzip nested too deep", base + *pos);
	z_stream z = { 0 };
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return walk_fail(wk, "zlib: cannot start inflating");
	struct strbuf out = STRBUF_INIT;
	unsigned char chunk[65536];
	z.next_in = (unsigned char *)data + *pos;
	z.avail_in = (uInt)(len - *pos > UINT32_MAX ? UINT32_MAX : len - *pos);
	int rc;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		rc = inflate(&z, Z_NO_FLUSH);
		strbuf_add(&out, chunk, sizeof(chunk) - z.avail_out);
		if (out.len > wk->max_inflated) {
			rc = Z_MEM_ERROR;
			break;
		}
	} while (rc == Z_OK && (z.avail_in || z.avail_out == 0));
	size_t used = (size_t)(z.next_in - (data + *pos));
	inflateEnd(&z);
	int result;
	if (rc == Z_STREAM_END)
		result = walk_buffer(wk, (unsigned char *)out.buf, out.len, 0, depth + 1);
	else if (rc == Z_MEM_ERROR)
		result = walk_fail(wk, "offset %zu: gzip member inflates past %zu bytes",
				   base + *pos, wk->max_inflated);
	else
		result = walk_fail(wk, "offset %zu: %s gzip data", base + *pos,
				   rc == Z_OK || rc == Z_BUF_ERROR ? "truncated" : "corrupt");
	*pos += used;
	strbuf_release(&out);
	return result;
}

/* Walks every archive in data: newc, gzip'd, zero padding between. */
static int walk_buffer(struct walk *wk, const unsigned char *data, size_t len, size_t base,
		       int depth)
{
	size_t pos = 0;
	int archives = 0;
	while (pos < len) {
		if (data[pos] == 0) {
			pos++;
			continue;
		}
		int rc;
		if (len - pos >= 6 && (!memcmp(data + pos, NEWC_MAGIC, 6) ||
				       !memcmp(data + pos, NEWC_CRC_MAGIC, 6)))
			rc = walk_archive(wk, data, len, &pos, base);
		else if (len - pos >= 2 && data[pos] == 0x1f && data[pos + 1] == 0x8b)
			rc = walk_gzip(wk, data, len, &pos, base, depth);
		else
			return walk_fail(wk, "offset %zu: neither a cpio archive nor gzip data",
					 base + pos);
		if (rc < 0)
			return rc;
		archives++;
	}
	if (!archives)
		return walk_fail(wk, "no cpio archive in the image (it is empty or all zeros)");
	return 0;
}

long cpio_walk(const unsigned char *data, size_t len, size_t max_inflated,
	       cpio_visit_fn visit, void *ctx, char *why, size_t why_len)
{
	struct walk wk = { visit, ctx, max_inflated, why, why_len, 0 };
	if (why_len)
		why[0] = '\0';
	if (walk_buffer(&wk, data, len, 0, 0) < 0)
		return -1;
	return wk.count;
}

/* ---- gzip --------------------------------------------------------------- */

void gzip_compress(const void *data, size_t len, int level, struct strbuf *out)
{
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
	if (!c) {
		fputs("bootrig: libdeflate: cannot make a compressor\n", stderr);
		abort();
	}
	size_t bound = libdeflate_gzip_compress_bound(c, len);
	strbuf_grow(out, bound);
	unsigned char *gz = (unsigned char *)out->buf + out->len;
	size_t n = libdeflate_gzip_compress(c, data, len, gz, bound);
	libdeflate_free_compressor(c);
	if (!n) {
		fputs("bootrig: libdeflate: the gzip did not fit its bound\n", stderr);
		abort();
	}
	/* libdeflate writes no name and mtime 0, and OS 255 ("unknown"); 3 is
	 * what gzip -n writes on Unix. No checksum covers the header. */
	gz[9] = 3;
	out->len += n;
	out->buf[out->len] = '\0';
}
