/*
 * test_cpio.c: the newc writer and the bounds-checked reader (builder/cpio.c):
 * round trips, gzip determinism, concatenated archives, and hostile images
 * (truncated, corrupt magic, bad hex, sizes past the end, unterminated
 * names, gzip bombs) that must give an error, never a crash.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpio.h"

struct seen {
	char names[16][64];
	size_t sizes[16];
	uint32_t modes[16];
	int n;
};

static void remember(const struct cpio_entry *e, void *ctx)
{
	struct seen *s = ctx;
	if (s->n < 16) {
		snprintf(s->names[s->n], sizeof(s->names[0]), "%s", e->name);
		s->sizes[s->n] = e->size;
		s->modes[s->n] = e->mode;
	}
	s->n++;
}

/* A small archive: a directory, a file and a device node. */
static void sample_archive(struct strbuf *out)
{
	struct cpio_writer w;
	cpio_writer_init(&w, 0);
	cpio_add(&w, "bench", S_IFDIR | 0755, NULL, 0, 0, 0);
	cpio_add(&w, "bench/file", S_IFREG | 0644, "hello", 5, 0, 0);
	cpio_add(&w, "dev/console", S_IFCHR | 0600, NULL, 0, 5, 1);
	cpio_finish(&w);
	*out = w.out;
}

static long walk(const void *data, size_t len, struct seen *s, char *err)
{
	memset(s, 0, sizeof(*s));
	return cpio_walk(data, len, 1 << 20, remember, s, err, 256);
}

static void test_round_trip(void **state)
{
	(void)state;
	struct strbuf a;
	sample_archive(&a);
	assert_int_equal(a.len % 512, 0);
	struct seen s;
	char err[256];
	assert_int_equal(walk(a.buf, a.len, &s, err), 3);
	assert_string_equal(s.names[1], "bench/file");
	assert_int_equal(s.sizes[1], 5);
	assert_true(S_ISCHR(s.modes[2]));
	strbuf_release(&a);
}

static void test_gzip_deterministic_and_concatenated(void **state)
{
	(void)state;
	struct strbuf a, z1 = STRBUF_INIT, z2 = STRBUF_INIT;
	sample_archive(&a);
	gzip_compress(a.buf, a.len, 9, &z1);
	gzip_compress(a.buf, a.len, 9, &z2);
	assert_int_equal(z1.len, z2.len);
	assert_memory_equal(z1.buf, z2.buf, z1.len);
	/* gzip header: no name flag, mtime 0, OS 3 */
	assert_int_equal((unsigned char)z1.buf[3], 0);
	assert_int_equal(z1.buf[4] | z1.buf[5] | z1.buf[6] | z1.buf[7], 0);
	assert_int_equal((unsigned char)z1.buf[9], 3);
	/* plain + padding + gzip: both archives are read */
	struct strbuf cat = STRBUF_INIT;
	strbuf_add(&cat, a.buf, a.len);
	strbuf_add(&cat, "\0\0\0\0", 4);
	strbuf_add(&cat, z1.buf, z1.len);
	struct seen s;
	char err[256];
	assert_int_equal(walk(cat.buf, cat.len, &s, err), 6);
	strbuf_release(&a);
	strbuf_release(&z1);
	strbuf_release(&z2);
	strbuf_release(&cat);
}

static void test_truncated_everywhere(void **state)
{
	(void)state;
	struct strbuf a, z = STRBUF_INIT;
	sample_archive(&a);
	gzip_compress(a.buf, a.len, 9, &z);
	struct seen s;
	char err[256];
	/* Every prefix of the plain archive that cuts before the trailer fails. */
	size_t trailer = (size_t)((char *)memmem(a.buf, a.len, "TRAILER!!!", 10) - a.buf) - 110;
	for (size_t cut = 1; cut < trailer + 110; cut++) {
		long n = walk(a.buf, cut, &s, err);
		assert_true(n < 0);
		assert_true(err[0] != '\0');
	}
	for (size_t cut = 1; cut < z.len - 8; cut++)
		assert_true(walk(z.buf, cut, &s, err) < 0);
	strbuf_release(&a);
	strbuf_release(&z);
}

static void test_corrupt_headers(void **state)
{
	(void)state;
	struct strbuf a;
	sample_archive(&a);
	struct seen s;
	char err[256];
	char *copy = malloc(a.len);

	memcpy(copy, a.buf, a.len);
	memcpy(copy, "070707", 6);                     /* old binary magic */
	assert_true(walk(copy, a.len, &s, err) < 0);
	assert_non_null(strstr(err, "neither a cpio archive"));

	memcpy(copy, a.buf, a.len);
	char *second = (char *)memmem(copy + 6, a.len - 6, "070701", 6);
	memcpy(second, "07070X", 6);                     /* the second entry's magic */
	assert_true(walk(copy, a.len, &s, err) < 0);
	assert_non_null(strstr(err, "bad cpio magic"));

	memcpy(copy, a.buf, a.len);
	copy[6 + 8 * 1] = 'z';                           /* bad hex in mode */
	assert_true(walk(copy, a.len, &s, err) < 0);

	memcpy(copy, a.buf, a.len);
	memcpy(copy + 6 + 8 * 6, "FFFFFFFF", 8);          /* filesize 4 GiB */
	assert_true(walk(copy, a.len, &s, err) < 0);
	assert_non_null(strstr(err, "past the end"));

	memcpy(copy, a.buf, a.len);
	memcpy(copy + 6 + 8 * 11, "FFFFFFFF", 8);         /* namesize huge */
	assert_true(walk(copy, a.len, &s, err) < 0);

	memcpy(copy, a.buf, a.len);
	memcpy(copy + 6 + 8 * 11, "00000000", 8);         /* namesize 0 */
	assert_true(walk(copy, a.len, &s, err) < 0);

	memcpy(copy, a.buf, a.len);
	memcpy(copy + 6 + 8 * 11, "00000003", 8);         /* name not terminated */
	assert_true(walk(copy, a.len, &s, err) < 0);

	memset(copy, 0, a.len);                           /* all zeros */
	assert_true(walk(copy, a.len, &s, err) < 0);
	assert_true(walk("", 0, &s, err) < 0);           /* empty */
	assert_true(walk("hello world\n", 12, &s, err) < 0);   /* text */
	free(copy);
	strbuf_release(&a);
}

static void test_gzip_bomb_and_garbage(void **state)
{
	(void)state;
	size_t big = 4u << 20;
	char *zeros = calloc(1, big);
	struct strbuf z = STRBUF_INIT;
	gzip_compress(zeros, big, 9, &z);
	struct seen s;
	char err[256];
	assert_true(walk(z.buf, z.len, &s, err) < 0);   /* limit is 1 MiB here */
	assert_non_null(strstr(err, "inflates past"));
	/* corrupt deflate data after a valid gzip header */
	for (size_t i = 10; i < z.len; i++)
		z.buf[i] = (char)0xff;
	assert_true(walk(z.buf, z.len, &s, err) < 0);
	strbuf_release(&z);
	free(zeros);
}

/* Random bytes after a valid header must never crash the reader. */
static void test_fuzz_does_not_crash(void **state)
{
	(void)state;
	struct strbuf a;
	sample_archive(&a);
	char *copy = malloc(a.len);
	struct seen s;
	char err[256];
	srand(1);
	for (int round = 0; round < 3000; round++) {
		memcpy(copy, a.buf, a.len);
		for (int k = 0; k < 4; k++)
			copy[rand() % (int)a.len] = (char)(rand() % 256);
		size_t len = (size_t)(rand() % (int)a.len) + 1;
		walk(copy, len, &s, err);
	}
	free(copy);
	strbuf_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_gzip_deterministic_and_concatenated),
		cmocka_unit_test(test_truncated_everywhere),
		cmocka_unit_test(test_corrupt_headers),
		cmocka_unit_test(test_gzip_bomb_and_garbage),
		cmocka_unit_test(test_fuzz_does_not_crash),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
