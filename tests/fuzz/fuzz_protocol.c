/*
 * fuzz_protocol.c: libFuzzer target for the result-protocol decoder
 * (judge/protocol.c). Input: console bytes. They are split into lines the way
 * the judge splits them and fed with growing times; then the decoder is
 * finished. Every record it yields must satisfy the protocol's invariants
 * (checked below, abort() on violation); the sanitizers catch the rest.
 * The first line is also handed to the number parsers.
 *
 * A random CRC is rarely right, so when the input's first byte is odd the
 * target first rewrites the trailer of every line that has one to the CRC
 * of its record: the syntax checks behind the CRC get fuzzed too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "protocol.h"

/* A record the decoder trusts: its text is a whole record whose CRC is
 * right, at most one line long, and its fields are well formed. */
static void check_record(void *ctx, const struct proto_record *r)
{
	unsigned long crc;
	char hex[9];

	(void)ctx;
#ifdef FUZZ_CANARY
	/* run-fuzz.sh's canary: a planted bug the sanitizers must report */
	if (r->kind == PROTO_KIND_END) {
		char *gone = malloc(8);
		free(gone);
		gone[0] = 1;
	}
#endif
	if (r->text_len < 15 || r->text_len > PROTO_MAX_LINE - 1 ||
	    memcmp(r->text, "@@BR 1 ", 7) != 0)
		abort();
	crc = crc32(0L, (const Bytef *)r->text, (uInt)(r->text_len - 10));
	snprintf(hex, sizeof(hex), "%08lx", crc);
	if (memcmp(r->text + r->text_len - 10, " *", 2) ||
	    memcmp(r->text + r->text_len - 8, hex, 8))
		abort();
	if (strcmp(proto_kind_name(r->kind), r->kind_name) != 0 && r->kind != PROTO_KIND_UNKNOWN)
		abort();
	for (size_t i = 0; i < r->nfields; i++) {
		const struct proto_field *f = &r->fields[i];
		if (!f->key[0] || strlen(f->key) > r->text_len || f->value[f->value_len] != '\0')
			abort();
		if (proto_get(r, f->key) == NULL)
			abort();
	}
}

static void check_problem(void *ctx, const struct proto_problem *p)
{
	(void)ctx;
	if ((unsigned)p->kind >= PROTO_PROBLEM_COUNT || !p->detail ||
	    strlen(p->detail) > 255)
		abort();
}

/* The number parsers on the first line, NUL-terminated. */
static void fuzz_numbers(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t n = nl ? (size_t)(nl - data) : size;
	char *s = malloc(n + 1);
	double *list, v;
	uint64_t u;
	int64_t i;
	size_t count;

	memcpy(s, data, n);
	s[n] = '\0';
	proto_parse_u64(s, &u);
	proto_parse_i64(s, &i);
	proto_parse_double(s, &v);
	if (proto_parse_list(s, &list, &count)) {
		if (count && !list)
			abort();
		free(list);
	} else if (list || count) {
		abort();
	}
	proto_free_words(proto_split_words(s, &count));
	free(s);
}

/* Gives every line of buf that holds "@@BR " and ends with " *xxxxxxxx"
 * the right CRC for the bytes from its first "@@BR " to the trailer. */
static void fix_crcs(char *buf, size_t size)
{
	char *p = buf, *end = buf + size;

	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *eol = nl ? nl : end;
		char *at = memmem(p, (size_t)(eol - p), "@@BR ", 5);
		if (at && eol - at >= 15 && eol[-10] == ' ' && eol[-9] == '*') {
			char hex[9];
			snprintf(hex, sizeof(hex), "%08lx",
				 crc32(0L, (const Bytef *)at, (uInt)(eol - 10 - at)));
			memcpy(eol - 8, hex, 8);
		}
		p = eol + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct decoder *d = decoder_new(check_record, check_problem, NULL);
	const struct proto_stats *st;
	char *copy = malloc(size + 1);
	const char *p = copy, *end = copy + size;
	long lineno = 0;
	uint64_t total = 0;

	memcpy(copy, data, size);
	if (size && (data[0] & 1))
		fix_crcs(copy, size);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		lineno++;
		decoder_feed_line(d, p, len, lineno, (double)lineno * 0.01);
		p += len + (nl != NULL);
	}
	decoder_finish(d);
	decoder_finish(d);
	st = decoder_stats(d);
	for (int k = 0; k < PROTO_PROBLEM_COUNT; k++)
		total += st->problems[k];
	if (st->records > (uint64_t)size / 15 + 1 || total > (uint64_t)size + 2)
		abort();
	decoder_free(d);
	free(copy);
	fuzz_numbers(data, size);
	return 0;
}
