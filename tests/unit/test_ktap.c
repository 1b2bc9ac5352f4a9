/*
 * test_ktap.c: the KTAP reader (judge/ktap.h) on real KTAP text: kunit_tool's
 * own test data and the example of Documentation/dev-tools/ktap.rst
 * (tests/fixtures/ktap/, copied from linux-source-6.1), and on KUnit's
 * output as the 6.1 kernel prints it at boot; and the judge's use of it
 * (a failing case FAILs a boot that otherwise passed; result.json's "ktap").
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"
#include "ktap.h"
#include "ktapout.h"
#include "protocol.h"
#include "util.h"

#include "judge_log.h"

/* The reader after every line of s (a whole console text) and its finish. */
static struct ktap *read_text(const char *s)
{
	struct ktap *k = ktap_new();
	long lineno = 0;
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		ktap_feed_line(k, s, n, ++lineno);
		s += n + (nl ? 1 : 0);
	}
	ktap_finish(k);
	return k;
}

/* The reader over fixture tests/fixtures/ktap/NAME. */
static struct ktap *read_fixture(const char *name)
{
	char *path = xasprintf("tests/fixtures/ktap/%s", name), *text;
	size_t len;
	assert_int_equal(read_file(path, &text, &len), 0);
	struct ktap *k = read_text(text);
	free(text), free(path);
	return k;
}

/* Case i must be suite.name with status st. */
static void expect_case(struct ktap *k, size_t i, const char *suite, const char *name,
			enum ktap_status st)
{
	struct ktap_result r;
	assert_true(ktap_case_at(k, i, &r));
	assert_string_equal(r.suite, suite);
	assert_string_equal(r.name, name);
	assert_string_equal(ktap_status_name(r.status), ktap_status_name(st));
}

static size_t ncases(const struct ktap *k)
{
	struct ktap_result r;
	size_t n = 0;
	while (ktap_case_at(k, n, &r))
		n++;
	return n;
}

static size_t nsuites(const struct ktap *k)
{
	struct ktap_result r;
	long planned;
	size_t n = 0, reported;
	while (ktap_suite_at(k, n, &r, &planned, &reported))
		n++;
	return n;
}

/* TAP 14, tab-indented, a suite nested inside a suite, noise lines. */
static void test_all_passed_nested(void **state)
{
	(void)state;
	struct ktap *k = read_fixture("is_test_passed-all_passed_nested.log");
	struct ktap_counts c;
	ktap_counts(k, &c);
	assert_true(ktap_seen(k));
	assert_int_equal(c.ok, 7);
	assert_int_equal(c.fail + c.skip + c.problems, 0);
	assert_null(ktap_failure(k));
	expect_case(k, 0, "sysctl_test", "sysctl_test_dointvec_null_tbl_data", KTAP_OK);
	expect_case(k, 1, "sysctl_test.example", "example_simple_test", KTAP_OK);
	expect_case(k, 2, "sysctl_test.example", "example_mock_test", KTAP_OK);
	expect_case(k, 3, "sysctl_test", "sysctl_test_dointvec_table_len_is_zero", KTAP_OK);
	expect_case(k, 6, "example", "example_mock_test", KTAP_OK);
	assert_int_equal(ncases(k), 7);
	/* the nested "example" is a suite inside sysctl_test, not listed outermost */
	assert_int_equal(nsuites(k), 2);
	struct ktap_result r;
	assert_true(ktap_case_at(k, 6, &r));
	assert_string_equal(r.diagnostics, "example_mock_test: initializing\n"
			    "example_mock_test: example_mock_test passed");
	ktap_free(k);
}

/* A failing case: its diagnostics hold the expectation; the suite fails. */
static void test_failure(void **state)
{
	(void)state;
	struct ktap *k = read_fixture("is_test_passed-failure.log");
	struct ktap_counts c;
	ktap_counts(k, &c);
	assert_int_equal(c.ok, 9);
	assert_int_equal(c.fail, 1);
	assert_string_equal(ktap_failure(k), "KUnit case example.example_simple_test failed");
	struct ktap_result r;
	assert_true(ktap_case_at(k, 8, &r));
	assert_string_equal(r.name, "example_simple_test");
	assert_int_equal(r.status, KTAP_FAIL);
	assert_non_null(strstr(r.diagnostics, "EXPECTATION FAILED at lib/kunit/example-test.c:30"));
	assert_non_null(strstr(r.diagnostics, "Expected 1 + 1 == 3, but"));
	/* an unindented kernel message between KTAP lines is not a diagnostic */
	assert_null(strstr(r.diagnostics, "init_suite"));
	long planned;
	size_t reported;
	assert_true(ktap_suite_at(k, 1, &r, &planned, &reported));
	assert_string_equal(r.name, "example");
	assert_int_equal(r.status, KTAP_FAIL);
	assert_int_equal(planned, 2);
	assert_int_equal(reported, 2);
	ktap_free(k);
}

/* "# SKIP reason" after a name. */
static void test_skip(void **state)
{
	(void)state;
	struct ktap *k = read_fixture("skip_tests.log");
	struct ktap_result r;
	assert_true(ktap_case_at(k, 4, &r));
	assert_string_equal(r.suite, "example");
	assert_string_equal(r.name, "example_skip_test");
	assert_int_equal(r.status, KTAP_SKIP);
	assert_string_equal(r.directive, "SKIP");
	assert_string_equal(r.reason, "this test should be skipped");
	assert_null(ktap_failure(k));
	ktap_free(k);
}

/* printk stamps before every line; the panic after the document is not read. */
static void test_printk_time(void **state)
{
	(void)state;
	struct ktap *k = read_fixture("config_printk_time.log");
	struct ktap_counts c;
	ktap_counts(k, &c);
	assert_int_equal(c.ok, 10);
	assert_int_equal(nsuites(k), 3);
	expect_case(k, 0, "kunit-resource-test", "kunit_resource_test_init_resources", KTAP_OK);
	expect_case(k, 9, "string-stream-test", "string_stream_test_get_string", KTAP_OK);
	assert_null(ktap_failure(k));
	ktap_free(k);
}

/* Nested "KTAP version" without "# Subtest:": the name comes from the result. */
static void test_unnamed_subtests(void **state)
{
	(void)state;
	struct ktap *k = read_fixture("parse_ktap_output.log");
	expect_case(k, 0, "suite", "case_1", KTAP_OK);
	expect_case(k, 2, "suite", "case_3", KTAP_OK);
	assert_int_equal(ncases(k), 3);
	ktap_free(k);

	/* ktap.rst's example: three levels, all nameless until their results */
	k = read_fixture("ktap-rst-example.log");
	assert_int_equal(ncases(k), 6);
	expect_case(k, 0, "main_test.example_test_1", "test_1", KTAP_OK);
	expect_case(k, 1, "main_test.example_test_2", "test_1", KTAP_SKIP);
	expect_case(k, 4, "main_test.example_test_3", "test_2", KTAP_FAIL);
	expect_case(k, 5, "main_test.example_test_3", "test_3", KTAP_SKIP);
	struct ktap_result r;
	assert_true(ktap_case_at(k, 0, &r));
	assert_string_equal(r.diagnostics, "test_1: initializing test_1");
	assert_true(ktap_case_at(k, 4, &r));
	assert_string_equal(r.diagnostics, "test_2: FAIL");
	assert_string_equal(ktap_failure(k), "KUnit case ?.?.test_2 failed");
	long planned;
	size_t reported;
	assert_true(ktap_suite_at(k, 0, &r, &planned, &reported));
	assert_string_equal(r.name, "main_test");
	assert_int_equal(r.status, KTAP_FAIL);
	assert_int_equal(nsuites(k), 1);
	ktap_free(k);
}

/* The kernel panicked inside a suite: the document is unfinished. */
static void test_interrupted(void **state)
{
	(void)state;
	struct ktap *k = read_fixture("kernel_panic_interrupt.log");
	struct ktap_counts c;
	ktap_counts(k, &c);
	assert_int_equal(c.fail, 0);
	assert_true(c.problems >= 1);
	assert_non_null(ktap_failure(k));
	assert_non_null(strstr(ktap_failure(k), "string-stream-test"));
	/* the suite it ended inside is a result of its own: not ok, incomplete,
	 * its plan and what it reported kept */
	struct ktap_result r;
	long planned;
	size_t reported;
	assert_int_equal(nsuites(k), 3);
	assert_true(ktap_suite_at(k, 2, &r, &planned, &reported));
	assert_string_equal(r.name, "string-stream-test");
	assert_int_equal(r.status, KTAP_FAIL);
	assert_true(r.incomplete && !r.ok && r.subtests);
	assert_int_equal(r.number, 3);
	assert_int_equal(planned, 3);
	assert_int_equal(reported, 1);
	assert_string_equal(r.why, "the output ended inside string-stream-test: 1 of 3 planned results");
	ktap_free(k);
}

/* ktap_write() of the text s, into a string. */
static char *written(const char *s)
{
	struct ktap *k = read_text(s);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct ktapout o = { .out = f };
	ktap_write(k, &o);
	fclose(f);
	ktap_free(k);
	return buf;
}

/* The tree written again as it was read: nesting, numbers, plans (none
 * where there was none), ok and not ok, SKIP and TODO at every level, the
 * diagnostics before each result; a subtest closed before its plan and one
 * the output ended inside say why, and keep their plans. */
static void test_write(void **state)
{
	(void)state;
	char *got = written("KTAP version 1\n1..4\n"
			    "\t# Subtest: a\n\t1..2\n\t# a diagnostic\n\tnot ok 1 x # TODO later\n"
			    "\t\tKTAP version 1\n\t\t# Subtest: nested\n\t\tnot ok 1 y # SKIP no\n"
			    "\tok 2 nested\n"
			    "ok 1 - a # SKIP all of it\n"
			    "ok 3 numbered\n"
			    "  KTAP version 1\n  # Subtest: early\n  1..3\n  ok 1 z\nok 3 early\n"
			    "  KTAP version 1\n  # Subtest: cut\n  1..2\n  ok 1 w\n  [   1.0] oops\n");
	assert_string_equal(got,
			    "  KTAP version 1\n  # Subtest: a\n  1..2\n  # a diagnostic\n"
			    "  not ok 1 x # TODO later\n"
			    "    KTAP version 1\n    # Subtest: nested\n    not ok 1 y # SKIP no\n"
			    "  ok 2 nested\n"
			    "ok 1 a # SKIP all of it\n"
			    "ok 3 numbered\n"
			    "  KTAP version 1\n  # Subtest: early\n  1..3\n  ok 1 z\n"
			    "  # early: 1 of 3 planned results reported\n"
			    "ok 3 early\n"
			    "  KTAP version 1\n  # Subtest: cut\n  1..2\n  ok 1 w\n  # [   1.0] oops\n"
			    "  # the output ended inside cut: 1 of 2 planned results\n"
			    "not ok 4 cut\n");
	free(got);
}

/* No plan at the top (kunit.py accepts it), '#' in noise, "ok 1 name" without "- ". */
static void test_tolerated(void **state)
{
	(void)state;
	struct ktap *k = read_fixture("is_test_passed-missing_plan.log");
	assert_int_equal(ncases(k), 10);
	assert_null(ktap_failure(k));
	ktap_free(k);
	k = read_fixture("pound_sign.log");
	assert_int_equal(ncases(k), 10);
	assert_null(ktap_failure(k));
	ktap_free(k);
	k = read_fixture("strip_hyphen.log");
	expect_case(k, 1, "example", "example_simple_test", KTAP_OK);
	assert_int_equal(nsuites(k), 2);
	ktap_free(k);
}

/* KUnit in 6.1 as it prints at boot (space indents, nested KTAP headers,
 * a parameterised test), and a second document later (a module's). */
static const char boot_6_1[] =
	"[    0.812345] Linux version 6.1.0 (root@host) #1\n"
	"[    1.000001] KTAP version 1\n"
	"[    1.000002] 1..2\n"
	"[    1.000003]     KTAP version 1\n"
	"[    1.000004]     # Subtest: list-kunit-test\n"
	"[    1.000005]     1..2\n"
	"[    1.000006]     ok 1 list_test_list_init\n"
	"[    1.000007]     # list_test_list_add: EXPECTATION FAILED at lib/list-test.c:57\n"
	"[    1.000007]     Expected b.next == &list, but\n"
	"[    1.000007]         b.next == ffffc90000013e40\n"
	"[    1.000008] random: crng init done\n"
	"[    1.000009]     not ok 2 list_test_list_add\n"
	"[    1.000010] # list-kunit-test: pass:1 fail:1 skip:0 total:2\n"
	"[    1.000011] # Totals: pass:1 fail:1 skip:0 total:2\n"
	"[    1.000012] not ok 1 list-kunit-test\n"
	"[    1.000013]     KTAP version 1\n"
	"[    1.000014]     # Subtest: param\n"
	"[    1.000015]     1..1\n"
	"[    1.000016]         KTAP version 1\n"
	"[    1.000017]         # Subtest: by_year\n"
	"[    1.000018]         ok 1 1901 # SKIP too old\n"
	"[    1.000019]         ok 2 2038\n"
	"[    1.000020]     # by_year: pass:1 fail:0 skip:1 total:2\n"
	"[    1.000021]     ok 1 by_year\n"
	"[    1.000022] ok 2 param\n"
	"[    1.500000] ok 1 not KTAP: the document is over\n"
	"[    2.000000] KTAP version 1\n"
	"[    2.000001] 1..1\n"
	"[    2.000002]     # Subtest: module\n"
	"[    2.000003]     1..1\n"
	"[    2.000004]     ok 1 in_module # TODO not yet\n"
	"[    2.000005] ok 1 module\n";

static void test_boot_6_1(void **state)
{
	(void)state;
	struct ktap *k = read_text(boot_6_1);
	assert_int_equal(ncases(k), 5);
	expect_case(k, 0, "list-kunit-test", "list_test_list_init", KTAP_OK);
	expect_case(k, 1, "list-kunit-test", "list_test_list_add", KTAP_FAIL);
	expect_case(k, 2, "param.by_year", "1901", KTAP_SKIP);
	expect_case(k, 3, "param.by_year", "2038", KTAP_OK);
	expect_case(k, 4, "module", "in_module", KTAP_OK);
	struct ktap_result r;
	assert_true(ktap_case_at(k, 1, &r));
	assert_string_equal(r.diagnostics, "list_test_list_add: EXPECTATION FAILED at lib/list-test.c:57\n"
			    "Expected b.next == &list, but\n"
			    "b.next == ffffc90000013e40");
	assert_int_equal(r.line, 12);
	assert_true(ktap_case_at(k, 4, &r));
	assert_string_equal(r.directive, "TODO");
	assert_string_equal(r.reason, "not yet");
	assert_string_equal(ktap_failure(k), "KUnit case list-kunit-test.list_test_list_add failed");
	assert_int_equal(nsuites(k), 3);
	struct ktap_counts c;
	ktap_counts(k, &c);
	assert_int_equal(c.ok, 3);
	assert_int_equal(c.fail, 1);
	assert_int_equal(c.skip, 1);
	assert_int_equal(c.problems, 0);

	json_object *o = ktap_to_json(k), *cases, *c1, *v;
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "cases", &cases));
	assert_int_equal(json_object_array_length(cases), 5);
	c1 = json_object_array_get_idx(cases, 1);
	assert_true(json_object_object_get_ex(c1, "status", &v));
	assert_string_equal(json_object_get_string(v), "fail");
	assert_true(json_object_object_get_ex(c1, "suite", &v));
	assert_string_equal(json_object_get_string(v), "list-kunit-test");
	assert_true(json_object_object_get_ex(c1, "case", &v));
	assert_string_equal(json_object_get_string(v), "list_test_list_add");
	json_object_put(o);
	ktap_free(k);
}

/* No KTAP: nothing seen, no JSON; a plan of 0 is a complete document. */
static void test_none(void **state)
{
	(void)state;
	struct ktap *k = read_text("[    0.1] ok 1 not a test\n# Subtest: no\n1..3\n");
	assert_false(ktap_seen(k));
	assert_null(ktap_to_json(k));
	assert_null(ktap_failure(k));
	ktap_free(k);
	k = read_text("KTAP version 1\n1..0\n");
	assert_true(ktap_seen(k));
	assert_null(ktap_failure(k));
	ktap_free(k);
}

/* Bounds: a long name is cut, long diagnostics end with [...]. */
static void test_bounds(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "KTAP version 1\n1..1\n    # Subtest: s\n    1..1\n");
	for (int i = 0; i < 200; i++)
		strbuf_addstr(&sb, "    # diagnostic line that is about forty bytes\n");
	strbuf_addstr(&sb, "    ok 1 ");
	for (int i = 0; i < 2000; i++)
		strbuf_addstr(&sb, "x");
	strbuf_addstr(&sb, "\nok 1 s\n");
	struct ktap *k = read_text(sb.buf);
	struct ktap_result r;
	assert_true(ktap_case_at(k, 0, &r));
	assert_int_equal(strlen(r.name), 512);
	assert_true(strlen(r.diagnostics) <= 4096 + 6);
	assert_non_null(strstr(r.diagnostics, "[...]"));
	assert_null(ktap_failure(k));
	ktap_free(k);
	strbuf_release(&sb);
}

/* A whole boot for the judge: the kernel, ktap's text, init's records of a
 * passing test, END and the power-off. */
static struct strbuf judged_boot(const char *ktap)
{
	struct log l = { STRBUF_INIT, 0 };
	line(&l, "[    0.000000] Linux version 6.1.192 (root@host) #1 SMP");
	strbuf_addstr(&l.sb, ktap);
	line(&l, "[    2.500000] Run /init as init process");
	rec(&l, "BEGIN", "proto", "1", "init", "0.1.0", "arch", "x86_64", "plan", "builtin", NULL);
	rec(&l, "ABI", "abi", "x86_64", "status", "ok", NULL);
	rec(&l, "TEST", "abi", "x86_64", "test", "lat_syscall", "status", "start", NULL);
	rec(&l, "RESULT", "abi", "x86_64", "test", "lat_syscall", "status", "PASS", "ms", "8", NULL);
	rec(&l, "END", "tests", "1", "passed", "1", "failed", "0", "timeout", "0", "records", "4",
	    NULL);
	line(&l, "[    9.951234] reboot: Power down");
	return l.sb;
}

/* The judge of a whole boot, finished. */
static struct judge *judge_boot(const char *ktap)
{
	struct strbuf sb = judged_boot(ktap);
	struct judge_limits limits;
	judge_default_limits(&limits);
	struct judge *j = judge_new(&limits);
	judge_feed(j, sb.buf, sb.len, 2.0);
	judge_machine_stopped(j, 3.0);
	judge_finish(j, 3.0);
	strbuf_release(&sb);
	return j;
}

/* The judge: a boot whose records all pass FAILs on a failing KUnit case
 * (the kernel booted, its own test failed), and result.json has "ktap";
 * the same boot with every case passing (or skipped) PASSes. */
static void test_judge_verdict(void **state)
{
	(void)state;
	struct judge *j = judge_boot(boot_6_1 + strlen("[    0.812345] Linux version 6.1.0 (root@host) #1\n"));
	assert_int_equal(judge_verdict(j), VERDICT_FAIL);
	assert_string_equal(judge_reason(j), "KUnit case list-kunit-test.list_test_list_add failed");
	json_object *o = json_object_new_object(), *kt, *v;
	judge_to_json(j, o);
	assert_true(json_object_object_get_ex(o, "ktap", &kt));
	assert_true(json_object_object_get_ex(kt, "fail", &v));
	assert_int_equal(json_object_get_int(v), 1);
	json_object_put(o);
	assert_non_null(judge_ktap(j));
	judge_free(j);

	j = judge_boot("[    1.0] KTAP version 1\n[    1.0] 1..1\n[    1.0]     # Subtest: s\n"
		       "[    1.0]     1..2\n[    1.0]     ok 1 a\n[    1.0]     ok 2 b # SKIP no\n"
		       "[    1.0] ok 1 s\n");
	assert_int_equal(judge_verdict(j), VERDICT_PASS);
	judge_free(j);

	/* a suite the console left unfinished (no panic: a lost line) FAILs */
	j = judge_boot("[    1.0] KTAP version 1\n[    1.0] 1..2\n[    1.0]     # Subtest: s\n"
		       "[    1.0]     1..1\n[    1.0]     ok 1 a\n[    1.0] ok 1 s\n");
	assert_int_equal(judge_verdict(j), VERDICT_FAIL);
	assert_string_equal(judge_reason(j), "KTAP: 1 of 2 planned results reported");
	judge_free(j);

	/* no KTAP: no "ktap" in result.json */
	j = judge_boot("");
	assert_int_equal(judge_verdict(j), VERDICT_PASS);
	o = json_object_new_object();
	judge_to_json(j, o);
	assert_false(json_object_object_get_ex(o, "ktap", &kt));
	json_object_put(o);
	judge_free(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_passed_nested),
		cmocka_unit_test(test_failure),
		cmocka_unit_test(test_skip),
		cmocka_unit_test(test_printk_time),
		cmocka_unit_test(test_unnamed_subtests),
		cmocka_unit_test(test_interrupted),
		cmocka_unit_test(test_tolerated),
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_boot_6_1),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_judge_verdict),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
