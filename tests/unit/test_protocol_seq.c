/*
 * test_protocol_seq.c: unit tests of the result-protocol decoder
 * (lib/protocol.c) on the sequence of records a serial console really
 * delivers: lost, duplicated and reordered records, a restart (with or
 * without its BEGIN), records after END, a duplicate metric, streams
 * that end early, an END whose count does not match, and unknown kinds.
 * The framing and damage of single records are test_protocol.c's.
 *
 * Each test feeds lines to a decoder whose callbacks copy what they get
 * into a `struct seen` (protocol_seen.h), then asserts exact values.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "protocol_seen.h"

/* ---- sequence numbers ---- */

static void test_lost_records(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	const char *lines[] = {
		BEGIN_LINE(0),
		rec_line(1, 1, "TEST", "abi", "arm", "test", "t", "status", "start", NULL),
		rec_line(2, 4, "RESULT", "abi", "arm", "test", "t", "status", "PASS", "ms", "3", NULL),
		END_LINE(3, 5, "5"),
	};

	(void)state;
	feed_lines(d, lines, 4);
	assert_int_equal(s.nrec, 4);
	assert_int_equal(s.nprob, 2);
	assert_int_equal(s.prob[0].kind, PROTO_LOST);
	assert_int_equal(s.prob[0].line, 3);
	assert_int_equal(s.prob[0].seq, 4);
	assert_string_equal(s.prob[0].detail, "seq 2..3 missing");
	assert_int_equal(s.prob[1].kind, PROTO_COUNT_MISMATCH);
	assert_string_equal(s.prob[1].detail, "END says 5 records, 3 received before it (END is seq 5)");
	assert_int_equal(decoder_stats(d)->lost, 2);
	decoder_free(d);
}

static void test_duplicate_dropped(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	const char *abi = rec_line(1, 1, "ABI", "abi", "arm", "status", "ok", NULL);
	const char *lines[] = { BEGIN_LINE(0), abi, abi, END_LINE(2, 2, "2") };

	(void)state;
	feed_lines(d, lines, 4);
	assert_int_equal(s.nrec, 3);
	assert_int_equal(s.nprob, 1);
	assert_int_equal(s.prob[0].kind, PROTO_DUPLICATE);
	assert_int_equal(s.prob[0].line, 3);
	assert_string_equal(s.prob[0].detail, "seq 1 seen again (dropped)");
	assert_int_equal(decoder_stats(d)->records, 3);
	decoder_free(d);
}

static void test_same_seq_other_content_is_restart(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	const char *lines[] = {
		BEGIN_LINE(0),
		rec_line(1, 1, "ABI", "abi", "arm", "status", "ok", NULL),
		/* a rebooted init whose BEGIN was lost: never mixed with the first */
		rec_line(2, 1, "ABI", "abi", "arm", "status", "error", NULL),
	};

	(void)state;
	feed_lines(d, lines, 3);
	assert_int_equal(s.nrec, 3);
	assert_string_equal(s.rec[2].fields, "abi=arm status=error");
	assert_int_equal(s.nprob, 4);
	assert_int_equal(s.prob[0].kind, PROTO_TRUNCATED);
	assert_int_equal(s.prob[0].line, 3);
	assert_int_equal(s.prob[1].kind, PROTO_RESTART);
	assert_string_equal(s.prob[1].detail, "a seq again with other content after 2 records: "
			    "the guest restarted, its BEGIN lost");
	assert_int_equal(s.prob[2].kind, PROTO_LOST);
	assert_string_equal(s.prob[2].detail, "seq 0 missing");
	assert_int_equal(s.prob[3].kind, PROTO_TRUNCATED);
	decoder_free(d);
}

static void test_reordered(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	const char *lines[] = {
		BEGIN_LINE(0),
		rec_line(2, 2, "ABI", "abi", "i386", "status", "ok", NULL),
		rec_line(1, 1, "ABI", "abi", "arm", "status", "ok", NULL),
		END_LINE(3, 3, "3"),
	};

	(void)state;
	feed_lines(d, lines, 4);
	assert_int_equal(s.nrec, 4);
	assert_int_equal(s.rec[1].seq, 2);
	assert_int_equal(s.rec[2].seq, 1);
	assert_int_equal(s.nprob, 2);
	assert_int_equal(s.prob[0].kind, PROTO_LOST);
	assert_int_equal(s.prob[1].kind, PROTO_REORDERED);
	assert_int_equal(s.prob[1].line, 3);
	assert_string_equal(s.prob[1].detail, "seq 1 after seq 2");
	/* the gap was filled */
	assert_int_equal(decoder_stats(d)->lost, 0);
	assert_int_equal(decoder_stats(d)->problems[PROTO_COUNT_MISMATCH], 0);
	decoder_free(d);
}

static void test_restart(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	const char *lines[] = {
		BEGIN_LINE(0),
		BEGIN_LINE(0),          /* a duplicated line, not a restart */
		rec_line(1, 1, "ABI", "abi", "arm", "status", "ok", NULL),
		BEGIN_LINE(0),          /* the same init, booted again */
		rec_line(2, 1, "ABI", "abi", "arm", "status", "ok", NULL),
		END_LINE(3, 2, "2"),
	};

	(void)state;
	feed_lines(d, lines, 6);
	assert_int_equal(s.nrec, 5);
	assert_int_equal(s.nprob, 3);
	assert_int_equal(s.prob[0].kind, PROTO_DUPLICATE);
	assert_int_equal(s.prob[0].line, 2);
	assert_int_equal(s.prob[1].kind, PROTO_TRUNCATED);
	assert_int_equal(s.prob[1].line, 4);
	assert_string_equal(s.prob[1].detail, "no END record after 2 records (a new BEGIN came)");
	assert_int_equal(s.prob[2].kind, PROTO_RESTART);
	assert_int_equal(s.prob[2].line, 4);
	assert_true(decoder_stats(d)->begin);
	assert_true(decoder_stats(d)->end);
	decoder_free(d);
}

static void test_restart_with_begin_lost(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	const char *lines[] = {
		BEGIN_LINE(0),
		rec_line(1, 1, "ABI", "abi", "arm", "status", "ok", NULL),
		/* the next boot's BEGIN is lost; its seq 1 differs */
		rec_line(2, 1, "ABI", "abi", "arm", "status", "error", "reason", "EIO", NULL),
	};

	(void)state;
	feed_lines(d, lines, 3);
	assert_int_equal(s.nrec, 3);
	assert_int_equal(s.nprob, 4);
	assert_int_equal(s.prob[0].kind, PROTO_TRUNCATED);
	assert_int_equal(s.prob[1].kind, PROTO_RESTART);
	assert_int_equal(s.prob[1].line, 3);
	assert_int_equal(s.prob[2].kind, PROTO_LOST);
	assert_string_equal(s.prob[2].detail, "seq 0 missing");
	assert_int_equal(s.prob[3].kind, PROTO_TRUNCATED);      /* at the end */
	assert_string_equal(s.rec[2].fields, "abi=arm status=error reason=EIO");
	decoder_free(d);
}

/* After END nothing of the run is read: a record with a seq seen before or
 * a new one, a second END; a duplicated line is only a duplicate, and a
 * BEGIN at seq 0 starts a new run. */
static void test_after_end(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	const char *lines[] = {
		BEGIN_LINE(0),
		rec_line(1, 1, "ABI", "abi", "arm", "status", "ok", NULL),
		END_LINE(2, 2, "2"),
		END_LINE(2, 2, "2"),    /* a duplicated END: not a second one */
		rec_line(3, 1, "ABI", "abi", "arm", "status", "error", "reason", "EIO", NULL),
		rec_line(4, 3, "METRIC", "abi", "arm", "test", "t", "name", "x", "median", "99.0", NULL),
		END_LINE(5, 4, "3"),
		BEGIN_LINE(6),
	};

	(void)state;
	feed_lines(d, lines, 8);
	assert_int_equal(s.nrec, 4);
	assert_int_equal(s.rec[3].seq, 0);
	assert_int_equal(s.nprob, 6);      /* the new run ends truncated */
	assert_int_equal(s.prob[0].kind, PROTO_DUPLICATE);
	assert_int_equal(s.prob[1].kind, PROTO_AFTER_END);
	assert_int_equal(s.prob[1].line, 5);
	assert_string_equal(s.prob[1].detail, "ABI seq 1 after END (not read)");
	assert_int_equal(s.prob[2].kind, PROTO_AFTER_END);
	assert_int_equal(s.prob[3].kind, PROTO_AFTER_END);
	assert_string_equal(s.prob[3].detail, "END seq 4 after END (not read)");
	assert_int_equal(s.prob[4].kind, PROTO_RESTART);
	assert_int_equal(decoder_stats(d)->problems[PROTO_AFTER_END], 3);
	assert_int_equal(decoder_stats(d)->lost, 0);
	decoder_free(d);
}

/* A metric comes once per run of its test: again in the same run it is not
 * read; in the next run of the test (the plan's repeat) it is. */
static void test_duplicate_metric(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	const char *lines[] = {
		rec_line(0, 1, "TEST", "abi", "arm", "test", "t", "status", "start", NULL),
		rec_line(1, 2, "METRIC", "abi", "arm", "test", "t", "name", "x", "median", "1.0", NULL),
		rec_line(2, 3, "METRIC", "abi", "arm", "test", "t", "name", "y", "median", "2.0", NULL),
		rec_line(3, 4, "METRIC", "abi", "arm", "test", "t", "name", "x", "median", "99.0", NULL),
		rec_line(4, 5, "TEST", "abi", "arm", "test", "t", "status", "start", NULL),
		rec_line(5, 6, "METRIC", "abi", "arm", "test", "t", "name", "x", "median", "1.1", NULL),
	};

	(void)state;
	feed_lines(d, lines, 6);
	assert_int_equal(s.nrec, 5);
	assert_int_equal(s.nprob, 3);      /* and the stream ends truncated */
	assert_int_equal(s.prob[0].kind, PROTO_LOST);         /* seq 0: no BEGIN here */
	assert_int_equal(s.prob[1].kind, PROTO_DUPLICATE_METRIC);
	assert_int_equal(s.prob[1].line, 4);
	assert_string_equal(s.prob[1].detail, "metric arm/t x again in one test run (not read)");
	assert_string_equal(s.rec[4].fields, "abi=arm test=t name=x median=1.1");
	decoder_free(d);
}

static void test_truncated(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	const char *lines[] = {
		BEGIN_LINE(0),
		rec_line(1, 1, "TEST", "abi", "arm", "test", "t", "status", "start", NULL),
		"[   12.000000] Kernel panic - not syncing: Attempted to kill init!",
	};

	(void)state;
	feed_lines(d, lines, 3);
	decoder_finish(d);      /* idempotent */
	assert_int_equal(s.nrec, 2);
	assert_int_equal(s.nprob, 1);
	assert_int_equal(s.prob[0].kind, PROTO_TRUNCATED);
	assert_int_equal(s.prob[0].line, 3);
	assert_string_equal(s.prob[0].detail, "no END record after 2 records");
	assert_false(decoder_stats(d)->end);
	decoder_free(d);
}

static void test_end_count_mismatch(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	const char *lines[] = { BEGIN_LINE(0), END_LINE(1, 1, "7") };

	(void)state;
	feed_lines(d, lines, 2);
	assert_int_equal(s.nrec, 2);
	assert_int_equal(s.nprob, 1);
	assert_int_equal(s.prob[0].kind, PROTO_COUNT_MISMATCH);
	assert_int_equal(s.prob[0].line, 2);
	assert_int_equal(decoder_stats(d)->end_records, 7);
	decoder_free(d);
}

static void test_unknown_kind_kept(void **state)
{
	struct seen s;
	struct decoder *d = new_decoder(&s);
	const char *lines[] = {
		BEGIN_LINE(0),
		rec_line(1, 1, "THERMAL2", "zone", "cpu0", "mc", "41000", NULL),
		END_LINE(2, 2, "2"),
	};

	(void)state;
	feed_lines(d, lines, 3);
	assert_int_equal(s.nrec, 3);
	assert_int_equal(s.rec[1].kind, PROTO_KIND_UNKNOWN);
	assert_string_equal(s.rec[1].kind_name, "THERMAL2");
	assert_string_equal(s.rec[1].fields, "zone=cpu0 mc=41000");
	assert_int_equal(s.nprob, 1);
	assert_int_equal(s.prob[0].kind, PROTO_UNKNOWN_KIND);
	decoder_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lost_records),
		cmocka_unit_test(test_duplicate_dropped),
		cmocka_unit_test(test_same_seq_other_content_is_restart),
		cmocka_unit_test(test_reordered),
		cmocka_unit_test(test_restart),
		cmocka_unit_test(test_restart_with_begin_lost),
		cmocka_unit_test(test_after_end),
		cmocka_unit_test(test_duplicate_metric),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_end_count_mismatch),
		cmocka_unit_test(test_unknown_kind_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
