/*
 * test_protocol.c: unit tests of the result-protocol decoder (lib/protocol.c)
 * against the cases a serial console really produces: records cut by kernel
 * messages, flipped bytes, lost, duplicated and reordered lines, CRLF, ANSI
 * escapes, NUL bytes, huge lines; and the number and list parsers. The
 * sequence (lost, duplicated, reordered records, restarts, streams that
 * end early) is test_protocol_seq.c's.
 *
 * Each test feeds lines to a decoder whose callbacks copy what they get into
 * a `struct seen` (protocol_seen.h), then asserts exact values.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "protocol.h"
#include "protocol_seen.h"

/* ---- clean streams and the encoder ---- */

static void test_encode_decode_roundtrip(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	const char *line = rec_line(0, 5, "LOG", "abi", "arm", "test", "t",
				    "text", "100% done\tx y\x01\xff", "empty", "", NULL);

	(void)state;
	assert_non_null(strstr(line, "text=100%25%20done%09x%20y%01%FF empty= *"));
	decoder_feed_line(d, line, strlen(line), 1, 0.5);
	assert_int_equal(s.nrec, 1);
	assert_int_equal(s.rec[0].seq, 5);
	assert_int_equal(s.rec[0].kind, PROTO_KIND_LOG);
	assert_int_equal(s.rec[0].nfields, 4);
	assert_string_equal(s.rec[0].fields, "abi=arm test=t text=100% done\tx y\x01\xff empty=");
	assert_int_equal(s.rec[0].line, 1);
	assert_false(s.rec[0].repaired);
	/* seq 5 first: 0..4 are lost */
	assert_int_equal(s.nprob, 1);
	assert_int_equal(s.prob[0].kind, PROTO_LOST);
	assert_string_equal(s.prob[0].detail, "seq 0..4 missing");
	assert_int_equal(decoder_stats(d)->lost, 5);
	decoder_free(d);
}

static void test_encode_matches_protocol_crc(void **state)
{
	char buf[256];
	const char *fields[] = { "a", "b", NULL };

	(void)state;
	/* zlib crc32("@@BR 1 0 X a=b"), computed independently with Python */
	assert_int_equal(proto_encode(buf, sizeof(buf), 0, "X", fields), 25);
	assert_string_equal(buf, "@@BR 1 0 X a=b *d9bb858d\n");
	/* too small a buffer, and a line over 4096 bytes, give 0 */
	assert_int_equal(proto_encode(buf, 10, 0, "X", fields), 0);
	char *big = malloc(5000);
	memset(big, 'v', 4999);
	big[4999] = '\0';
	const char *bigf[] = { "k", big, NULL };
	char *out = malloc(8192);
	assert_int_equal(proto_encode(out, 8192, 0, "X", bigf), 0);
	free(big);
	free(out);
}

static void test_clean_stream(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	const char *lines[] = {
		"[    0.000000] Booting Linux on physical CPU 0x0000000000 [0x410fd034]",
		BEGIN_LINE(0),
		rec_line(1, 1, "ABI", "abi", "aarch64", "status", "ok", NULL),
		"[    1.600000] random: crng init done",
		rec_line(2, 2, "METRIC", "abi", "aarch64", "test", "lat_syscall", "name", "null",
			 "samples", "14.1,14.2,14.0", NULL),
		END_LINE(3, 3, "3"),
	};

	(void)state;
	feed_lines(d, lines, 6);
	assert_int_equal(s.nprob, 0);
	assert_int_equal(s.nrec, 4);
	assert_int_equal(s.rec[0].kind, PROTO_KIND_BEGIN);
	assert_int_equal(s.rec[0].line, 2);
	assert_int_equal(s.rec[2].kind, PROTO_KIND_METRIC);
	assert_int_equal(s.rec[2].line, 5);
	assert_string_equal(s.rec[2].fields,
			    "abi=aarch64 test=lat_syscall name=null samples=14.1,14.2,14.0");
	assert_int_equal(s.rec[3].kind, PROTO_KIND_END);
	const struct proto_stats *st = decoder_stats(d);
	assert_int_equal(st->records, 4);
	assert_true(st->begin);
	assert_true(st->end);
	assert_int_equal(st->end_records, 3);
	assert_int_equal(st->lost, 0);
	decoder_free(d);
}

/* ---- records cut by kernel messages ---- */

/* Cuts the record at byte `cut`, puts `kernel_tail` after the cut on the same
 * line and `between` kernel lines before the continuation; expects a repair. */
static void check_repair(size_t cut, const char *kernel_tail, int between)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	const char *rec = rec_line(1, 1, "METRIC", "abi", "aarch64", "test", "lat_syscall",
				   "name", "null", "median", "14.1021", NULL);
	char first[PROTO_MAX_LINE + 128];
	long line = 1;

	snprintf(first, sizeof(first), "%.*s%s", (int)cut, rec, kernel_tail);
	decoder_feed_line(d, BEGIN_LINE(0), strlen(BEGIN_LINE(0)), line++, 0);
	decoder_feed_line(d, first, strlen(first), line++, 1);
	for (int i = 0; i < between; i++) {
		const char *k = "[    3.141592] virtio_blk virtio1: [vda] 20480 512-byte logical blocks";
		decoder_feed_line(d, k, strlen(k), line++, 2);
	}
	decoder_feed_line(d, rec + cut, strlen(rec + cut), line++, 3);
	decoder_feed_line(d, END_LINE(2, 2, "2"), strlen(END_LINE(2, 2, "2")), line++, 4);
	decoder_finish(d);
	assert_int_equal(s.nrec, 3);
	assert_int_equal(s.rec[1].seq, 1);
	assert_true(s.rec[1].repaired);
	assert_int_equal(s.rec[1].line, 2);
	assert_string_equal(s.rec[1].fields, "abi=aarch64 test=lat_syscall name=null median=14.1021");
	assert_int_equal(s.nprob, 1);
	assert_int_equal(s.prob[0].kind, PROTO_REPAIRED);
	assert_int_equal(s.prob[0].line, 2);
	assert_int_equal(decoder_stats(d)->problems[PROTO_REPAIRED], 1);
	assert_int_equal(decoder_stats(d)->problems[PROTO_CORRUPT], 0);
	decoder_free(d);
}

static void test_repair_kernel_line_between(void **state)
{
	(void)state;
	check_repair(12, "", 1);        /* "@@BR 1 1 MET" / kernel / "RIC ..." */
}

static void test_repair_kernel_text_after_cut(void **state)
{
	(void)state;
	check_repair(12, "[    3.100000] random: crng init done", 0);
	check_repair(20, "[    3.100000] random: crng init done", 3);
}

static void test_repair_every_cut_point(void **state)
{
	const char *rec = rec_line(1, 1, "METRIC", "abi", "aarch64", "test", "lat_syscall",
				   "name", "null", "median", "14.1021", NULL);
	size_t len = strlen(rec);

	(void)state;
	/* every cut after the prefix and before the last byte, including
	 * inside the trailer and on its space */
	for (size_t cut = 6; cut < len; cut++) {
		check_repair(cut, "", 0);
		check_repair(cut, "[    7.000000] kernel text after the cut", 2);
	}
}

static void test_repair_after_long_kernel_message(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	const char *rec = rec_line(1, 1, "ABI", "abi", "arm", "status", "ok", NULL);
	char *first = malloc(8192);

	(void)state;
	/* the cut record, then a 6000-byte kernel message on the same line */
	int n = snprintf(first, 8192, "%.15s[    4.000000] ", rec);
	memset(first + n, 'k', 6000);
	decoder_feed_line(d, BEGIN_LINE(0), strlen(BEGIN_LINE(0)), 1, 0);
	decoder_feed_line(d, first, (size_t)n + 6000, 2, 0);
	decoder_feed_line(d, rec + 15, strlen(rec + 15), 3, 0);
	decoder_finish(d);
	assert_int_equal(s.nrec, 2);
	assert_true(s.rec[1].repaired);
	assert_string_equal(s.rec[1].fields, "abi=arm status=ok");
	assert_int_equal(s.prob[0].kind, PROTO_REPAIRED);
	assert_int_equal(s.prob[0].line, 2);
	assert_int_equal(s.prob[1].kind, PROTO_TRUNCATED);
	free(first);
	decoder_free(d);
}

static void test_fragment_without_continuation_is_corrupt(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	const char *rec = rec_line(1, 1, "ABI", "abi", "arm", "status", "ok", NULL);
	char cut[64];

	(void)state;
	snprintf(cut, sizeof(cut), "%.14s", rec);
	const char *lines[] = { BEGIN_LINE(0), cut, "[ 1.0] kernel", END_LINE(2, 2, "2") };
	feed_lines(d, lines, 4);
	assert_int_equal(s.nrec, 2);
	assert_int_equal(count_problems(&s, PROTO_CORRUPT), 1);
	assert_int_equal(s.prob[0].kind, PROTO_CORRUPT);
	assert_int_equal(s.prob[0].line, 2);
	assert_int_equal(count_problems(&s, PROTO_LOST), 1);
	assert_int_equal(decoder_stats(d)->lost, 1);
	decoder_free(d);
}

static void test_wrong_continuation_is_not_joined(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	const char *a = rec_line(1, 1, "ABI", "abi", "arm", "status", "ok", NULL);
	const char *b = rec_line(2, 7, "ABI", "abi", "i386", "status", "ok", NULL);
	char cut[64];

	(void)state;
	/* a's head with b's tail: the CRC must refuse the join */
	snprintf(cut, sizeof(cut), "%.16s", a);
	const char *lines[] = { BEGIN_LINE(0), cut, b + 16 };
	feed_lines(d, lines, 3);
	assert_int_equal(s.nrec, 1);
	assert_int_equal(count_problems(&s, PROTO_REPAIRED), 0);
	assert_int_equal(count_problems(&s, PROTO_CORRUPT), 1);
	assert_int_equal(count_problems(&s, PROTO_TRUNCATED), 1);
	decoder_free(d);
}

/* ---- damage that must never be misread ---- */

static void test_flipped_bits_never_misread(void **state)
{
	const char *rec = rec_line(0, 3, "METRIC", "abi", "x86_64", "test", "lat_syscall",
				   "name", "null", "median", "0.4412", NULL);
	size_t len = strlen(rec);
	char buf[PROTO_MAX_LINE];

	(void)state;
	for (size_t pos = 0; pos < len; pos++) {
		for (int bit = 0; bit < 8; bit++) {
			struct seen s;
			struct decoder *d = new_decoder(&s);
			memcpy(buf, rec, len);
			buf[pos] ^= (char)(1 << bit);
			decoder_feed_line(d, buf, len, 1, 0);
			decoder_finish(d);
			assert_int_equal(s.nrec, 0);
			if (pos >= 5) {
				/* a damaged record is reported, once */
				assert_int_equal(decoder_stats(d)->problems[PROTO_CORRUPT], 1);
				assert_int_equal(s.nprob, 1);
				assert_int_equal(s.prob[0].line, 1);
			}
			decoder_free(d);
		}
	}
}

static void test_crc_mismatch_and_no_crc(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	char bad[PROTO_MAX_LINE];
	const char *good = rec_line(1, 1, "ABI", "abi", "arm", "status", "ok", NULL);

	(void)state;
	snprintf(bad, sizeof(bad), "%s", good);
	bad[strlen(bad) - 1] = bad[strlen(bad) - 1] == '0' ? '1' : '0';
	const char *lines[] = {
		BEGIN_LINE(0), bad, "@@BR 1 2 ABI abi=arm status=ok",
		rec_line(2, 3, "ABI", "abi", "i386", "status", "ok", NULL),
	};
	feed_lines(d, lines, 4);
	assert_int_equal(s.nrec, 2);
	assert_int_equal(count_problems(&s, PROTO_CORRUPT), 2);
	assert_int_equal(s.prob[0].kind, PROTO_CORRUPT);
	assert_int_equal(s.prob[0].line, 2);
	assert_non_null(strstr(s.prob[0].detail, "CRC mismatch"));
	assert_int_equal(s.prob[1].kind, PROTO_CORRUPT);
	assert_int_equal(s.prob[1].line, 3);
	assert_int_equal(s.prob[2].kind, PROTO_LOST);
	assert_string_equal(s.prob[2].detail, "seq 1..2 missing");
	decoder_free(d);
}

/* Builds "@@BR <body> *crc" with a correct CRC around any body. */
static const char *with_crc(const char *body)
{
	static char buf[PROTO_MAX_LINE * 2];
	int len = snprintf(buf, sizeof(buf), "@@BR %s", body);

	snprintf(buf + len, sizeof(buf) - (size_t)len, " *%08lx",
		 crc32(0L, (const Bytef *)buf, (uInt)len));
	return buf;
}

static void test_bad_syntax_with_good_crc(void **state)
{
	const char *bodies[] = {
		"1 1 ABI abi=a%4 status=ok",            /* escape cut short */
		"1 1 ABI abi=a%zz status=ok",           /* not hex */
		"1 1 ABI abi=a%4a status=ok",           /* lower-case hex */
		"1 1 ABI abi=arm  status=ok",           /* double space */
		"1 1 ABI Abi=arm",                      /* upper-case key */
		"1 1 ABI abi",                          /* no '=' */
		"1 01 ABI abi=arm",                     /* leading zero */
		"1 x ABI abi=arm",                      /* no seq */
		"1 1 abi abi=arm",                      /* lower-case kind */
		"1 99999999999 ABI abi=arm",            /* seq too large */
		"1 1 ABI abi=arm ",                     /* trailing space */
		"1 1 ABI =x",                           /* empty key */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		struct seen s;
		struct decoder *d = new_decoder(&s);
		const char *line = with_crc(bodies[i]);
		decoder_feed_line(d, line, strlen(line), 4, 0);
		assert_int_equal(s.nrec, 0);
		assert_int_equal(s.nprob, 1);
		assert_int_equal(s.prob[0].kind, PROTO_CORRUPT);
		assert_int_equal(s.prob[0].line, 4);
		assert_non_null(strstr(s.prob[0].detail, "bad syntax"));
		decoder_free(d);
	}
}

static void test_unknown_version(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	const char *line = with_crc("2 0 BEGIN proto=2 new=field");

	(void)state;
	decoder_feed_line(d, line, strlen(line), 1, 0);
	decoder_feed_line(d, "@@BR 17 0 NEW FORMAT", 20, 2, 0);
	decoder_finish(d);
	assert_int_equal(s.nrec, 0);
	assert_int_equal(s.nprob, 2);
	assert_int_equal(s.prob[0].kind, PROTO_BAD_VERSION);
	assert_string_equal(s.prob[0].detail, "protocol version 2, this host reads 1 (fields not read)");
	assert_int_equal(s.prob[1].kind, PROTO_BAD_VERSION);
	assert_int_equal(s.prob[1].line, 2);
	decoder_free(d);
}

/* ---- what the console adds ---- */

static void test_crlf_ansi_nul(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	const char *abi = rec_line(1, 1, "ABI", "abi", "arm", "status", "ok", NULL);
	const char *res = rec_line(2, 2, "ABI", "abi", "i386", "status", "unsupported",
				   "reason", "ENOEXEC", NULL);
	char crlf[256], ansi[256], nul[256];
	size_t nul_len;

	(void)state;
	snprintf(crlf, sizeof(crlf), "%s\r\r", BEGIN_LINE(0));
	/* escapes before, inside the prefix, inside a value, and an OSC title */
	snprintf(ansi, sizeof(ansi), "\x1b[0m\x1b]0;title\x07@@\x1b[1;31mBR %.*s\x1b[K%s\x1b(B",
		 10, abi + 5, abi + 15);
	/* NUL bytes between every few bytes */
	nul_len = 0;
	for (size_t i = 0; res[i]; i++) {
		nul[nul_len++] = res[i];
		if (i % 7 == 3)
			nul[nul_len++] = '\0';
	}
	decoder_feed_line(d, crlf, strlen(crlf), 1, 0);
	decoder_feed_line(d, ansi, strlen(ansi), 2, 0);
	decoder_feed_line(d, nul, nul_len, 3, 0);
	decoder_finish(d);
	assert_int_equal(s.nrec, 3);
	assert_string_equal(s.rec[1].fields, "abi=arm status=ok");
	assert_string_equal(s.rec[2].fields, "abi=i386 status=unsupported reason=ENOEXEC");
	assert_int_equal(s.nprob, 1);
	assert_int_equal(s.prob[0].kind, PROTO_TRUNCATED);
	decoder_free(d);
}

static void test_kernel_text_around_record(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	char before[512], after[512], two[1024];
	const char *abi = rec_line(1, 1, "ABI", "abi", "arm", "status", "ok", NULL);
	const char *abi2 = rec_line(2, 2, "ABI", "abi", "i386", "status", "ok", NULL);

	(void)state;
	snprintf(before, sizeof(before), "[    2.000000] printk without newline %s", BEGIN_LINE(0));
	snprintf(after, sizeof(after), "%s[    2.100000] random: crng init done", abi);
	snprintf(two, sizeof(two), "%s%s", abi2, END_LINE(3, 3, "3"));
	const char *lines[] = { before, after, two };
	feed_lines(d, lines, 3);
	assert_int_equal(s.nrec, 4);
	assert_int_equal(s.rec[0].kind, PROTO_KIND_BEGIN);
	assert_string_equal(s.rec[1].fields, "abi=arm status=ok");
	assert_int_equal(s.rec[2].seq, 2);
	assert_int_equal(s.rec[3].kind, PROTO_KIND_END);
	assert_int_equal(s.nprob, 0);
	decoder_free(d);
}

static void test_megabyte_lines(void **state)
{
	size_t big = 1 << 20;
	char *line = malloc(big + 8192);
	const char *abi = rec_line(1, 1, "ABI", "abi", "arm", "status", "ok", NULL);
	struct seen s;
	struct decoder *d = new_decoder(&s);

	(void)state;
	/* 1 MB of garbage, NULs and escapes, then a record */
	for (size_t i = 0; i < big; i++)
		line[i] = (char)("@@B\x1b[\0R *12 zq@@BR x"[i % 21]);
	memcpy(line + big - 4, "abc ", 4);
	strcpy(line + big, abi);
	decoder_feed_line(d, BEGIN_LINE(0), strlen(BEGIN_LINE(0)), 1, 0);
	decoder_feed_line(d, line, big + strlen(abi), 2, 0);
	/* a prefix followed by 1 MB without a space */
	memcpy(line, "@@BR 1 2 LOG text=", 18);
	memset(line + 18, 'x', big);
	decoder_feed_line(d, line, big + 18, 3, 0);
	decoder_feed_line(d, END_LINE(2, 3, "3"), strlen(END_LINE(2, 3, "3")), 4, 0);
	decoder_finish(d);
	assert_int_equal(s.nrec, 3);
	assert_string_equal(s.rec[1].fields, "abi=arm status=ok");
	assert_int_equal(s.rec[1].line, 2);
	assert_int_equal(decoder_stats(d)->records, 3);
	assert_int_equal(decoder_stats(d)->lost, 1);
	/* each 21-byte period cleans to "@@BR *12 zq@@BR x": two corrupt
	 * pieces on line 2; then line 3, too long */
	const struct proto_stats *st = decoder_stats(d);
	assert_int_equal(st->problems[PROTO_CORRUPT], 2 * ((big - 4) / 21) + 1);
	free(line);
	decoder_free(d);
}

/* Four long fragments and thousands of lines that look like continuations:
 * each try must cost one scan, not a CRC combine per cut point. */
static void test_many_continuation_candidates(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	char *frag = malloc(PROTO_MAX_LINE);
	long line = 1;

	(void)state;
	memcpy(frag, "@@BR 1 9 LOG text=", 18);
	memset(frag + 18, 'a', 4000);
	for (int i = 0; i < 4; i++)
		decoder_feed_line(d, frag, 4018, line++, 0);
	for (int i = 0; i < 20000; i++) {
		char cand[32];
		int n = snprintf(cand, sizeof(cand), "x%d *%08x", i, (unsigned)i * 2654435761u);
		decoder_feed_line(d, cand, (size_t)n, line++, 0);
		decoder_feed_line(d, cand + n - 5, 5, line++, 0);    /* a trailer's tail */
	}
	decoder_finish(d);
	assert_int_equal(s.nrec, 0);
	assert_int_equal(decoder_stats(d)->problems[PROTO_CORRUPT], 4);
	assert_int_equal(s.nprob, 4);
	assert_non_null(strstr(s.prob[0].detail, "no continuation in time"));
	assert_int_equal(s.prob[0].line, 1);
	assert_int_equal(s.prob[3].line, 4);
	free(frag);
	decoder_free(d);
}

/* Many short fragments: each evicts the oldest of four pending, reported
 * corrupt with its own line, and none is ever joined. */
static void test_fragment_churn(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);

	(void)state;
	for (long i = 1; i <= 200000; i++)
		decoder_feed_line(d, "@@BR x", 6, i, 0);
	decoder_finish(d);
	assert_int_equal(decoder_stats(d)->problems[PROTO_CORRUPT], 200000);
	assert_int_equal(s.prob[0].line, 1);
	assert_non_null(strstr(s.prob[0].detail, "too many cut records"));
	assert_int_equal(s.prob[63].line, 64);
	assert_int_equal(s.nrec, 0);
	decoder_free(d);
}

/* ---- number parsers ---- */

static void test_parse_numbers(void **state)
{
	uint64_t u = 7;
	int64_t i = 7;
	double v = 7;

	(void)state;
	assert_true(proto_parse_u64("0", &u));
	assert_int_equal(u, 0);
	assert_true(proto_parse_u64("18446744073709551615", &u));
	assert_true(u == UINT64_MAX);
	u = 7;
	assert_false(proto_parse_u64("18446744073709551616", &u));
	assert_false(proto_parse_u64("", &u));
	assert_false(proto_parse_u64("-1", &u));
	assert_false(proto_parse_u64("+1", &u));
	assert_false(proto_parse_u64(" 1", &u));
	assert_false(proto_parse_u64("1 ", &u));
	assert_false(proto_parse_u64("0x10", &u));
	assert_false(proto_parse_u64(NULL, &u));
	assert_int_equal(u, 7);
	assert_true(proto_parse_i64("-9223372036854775808", &i));
	assert_true(i == INT64_MIN);
	assert_false(proto_parse_i64("9223372036854775808", &i));
	assert_true(proto_parse_i64("-12", &i));
	assert_int_equal(i, -12);
	assert_false(proto_parse_i64("-", &i));

	assert_true(proto_parse_double("0.4412", &v));
	assert_true(v == 0.4412);
	assert_true(proto_parse_double("-3", &v));
	assert_true(v == -3.0);
	assert_true(proto_parse_double("14.1021", &v));
	v = 7;
	const char *bad[] = { "", "1e3", "1.", ".5", "-", "inf", "nan", "1,2", "1.2.3",
			      " 1", "1 ", "+1", "0x1p3", "1.5x" };
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		assert_false(proto_parse_double(bad[k], &v));
	assert_true(v == 7);
	char huge[400];
	memset(huge, '9', 399);
	huge[399] = '\0';
	assert_false(proto_parse_double(huge, &v));     /* not finite */
}

static void test_parse_lists(void **state)
{
	double *v;
	size_t n;

	(void)state;
	assert_true(proto_parse_list("1.5,1.6,1.4", &v, &n));
	assert_int_equal(n, 3);
	assert_true(v[0] == 1.5 && v[1] == 1.6 && v[2] == 1.4);
	free(v);
	assert_true(proto_parse_list("", &v, &n));
	assert_int_equal(n, 0);
	assert_null(v);
	assert_true(proto_parse_list("42", &v, &n));
	assert_int_equal(n, 1);
	free(v);
	const char *bad[] = { ",", "1,", ",1", "1,,2", "1,x", "1;2", "1, 2", "1e5" };
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		assert_false(proto_parse_list(bad[k], &v, &n));
		assert_null(v);
		assert_int_equal(n, 0);
	}
	char **w = proto_split_words("aarch64,arm", &n);
	assert_int_equal(n, 2);
	assert_string_equal(w[0], "aarch64");
	assert_string_equal(w[1], "arm");
	assert_null(w[2]);
	proto_free_words(w);
	w = proto_split_words("", &n);
	assert_int_equal(n, 0);
	assert_null(w[0]);
	proto_free_words(w);
}

/* Checks the lookup helpers inside the callback, while the record lives. */
static void check_lookups(void *ctx, const struct proto_record *r)
{
	int *calls = ctx;
	uint64_t n;
	double med, bad;

	assert_true(proto_get_u64(r, "n", &n));
	assert_int_equal(n, 11);
	assert_true(proto_get_double(r, "median", &med));
	assert_true(med == 14.1021);
	assert_false(proto_get_double(r, "bad", &bad));
	assert_false(proto_get_double(r, "absent", &bad));
	assert_null(proto_get(r, "absent"));
	assert_string_equal(proto_get(r, "bad"), "1e3");
	(*calls)++;
}

static void test_record_lookups(void **state)
{
	int calls = 0;
	struct decoder *d = decoder_new(check_lookups, NULL, &calls);
	const char *m = rec_line(0, 0, "METRIC", "n", "11", "median", "14.1021", "bad", "1e3", NULL);

	(void)state;
	decoder_feed_line(d, m, strlen(m), 1, 0);
	assert_int_equal(calls, 1);
	decoder_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_decode_roundtrip),
		cmocka_unit_test(test_encode_matches_protocol_crc),
		cmocka_unit_test(test_clean_stream),
		cmocka_unit_test(test_repair_kernel_line_between),
		cmocka_unit_test(test_repair_kernel_text_after_cut),
		cmocka_unit_test(test_repair_every_cut_point),
		cmocka_unit_test(test_repair_after_long_kernel_message),
		cmocka_unit_test(test_fragment_without_continuation_is_corrupt),
		cmocka_unit_test(test_wrong_continuation_is_not_joined),
		cmocka_unit_test(test_flipped_bits_never_misread),
		cmocka_unit_test(test_crc_mismatch_and_no_crc),
		cmocka_unit_test(test_bad_syntax_with_good_crc),
		cmocka_unit_test(test_unknown_version),
		cmocka_unit_test(test_crlf_ansi_nul),
		cmocka_unit_test(test_kernel_text_around_record),
		cmocka_unit_test(test_megabyte_lines),
		cmocka_unit_test(test_many_continuation_candidates),
		cmocka_unit_test(test_fragment_churn),
		cmocka_unit_test(test_parse_numbers),
		cmocka_unit_test(test_parse_lists),
		cmocka_unit_test(test_record_lookups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
