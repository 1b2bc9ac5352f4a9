/*
 * fuzz_cpio.c: libFuzzer target for the initramfs reader (builder/cpio.c),
 * which `bootrig build --list` and --append-to run over images users hand
 * in. Input: image bytes (plain newc, gzip'd, concatenated). Every entry
 * the reader yields must lie inside what it read (checked below, abort()
 * on violation); the sanitizers catch the rest. An input that reads
 * cleanly is written again with the writer and must read back to the same
 * names, modes and sizes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpio.h"

struct seen {
	struct cpio_writer w;
	char names[64][128];
	uint32_t modes[64];
	size_t sizes[64];
	int n;
};

static void check_entry(const struct cpio_entry *e, void *ctx)
{
	struct seen *s = ctx;
	size_t len = strlen(e->name);
	if (len == 0 && e->size > 0 && e->data == NULL)
		abort();
	if (e->size && !e->data)
		abort();
	/* touch every byte: ASan reports a read outside the buffer */
	volatile unsigned char sum = 0;
	for (size_t i = 0; i < e->size; i++)
		sum ^= e->data[i];
	(void)sum;
	if (s->n < 64 && len < 128 && len > 0) {
		memcpy(s->names[s->n], e->name, len + 1);
		s->modes[s->n] = e->mode;
		s->sizes[s->n] = e->size;
		cpio_add(&s->w, e->name, e->mode, e->data, e->size, e->rdev_major, e->rdev_minor);
		s->n++;
	} else {
		s->n = 1000;   /* too many to compare: skip the round trip */
	}
}

static void check_again(const struct cpio_entry *e, void *ctx)
{
	struct seen *s = ctx;
	if (s->n >= 64 || strcmp(s->names[s->n], e->name) || s->modes[s->n] != e->mode ||
	    s->sizes[s->n] != e->size)
		abort();
	s->n++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct seen s, again;
	char err[256];
	memset(&s.names, 0, sizeof(s.names));
	s.n = 0;
	cpio_writer_init(&s.w, 0);
	long n = cpio_walk(data, size, 1 << 20, check_entry, &s, err, sizeof(err));
	if (n < 0 && err[0] == '\0')
		abort();   /* a failure always says why */
	if (n >= 0 && s.n <= 64) {
		cpio_finish(&s.w);
		memcpy(again.names, s.names, sizeof(s.names));
		memcpy(again.modes, s.modes, sizeof(s.modes));
		memcpy(again.sizes, s.sizes, sizeof(s.sizes));
		again.n = 0;
		long m = cpio_walk((const unsigned char *)s.w.out.buf, s.w.out.len, 1 << 20,
				   check_again, &again, err, sizeof(err));
		if (m != s.n)
			abort();
	}
	strbuf_release(&s.w.out);
	return 0;
}
