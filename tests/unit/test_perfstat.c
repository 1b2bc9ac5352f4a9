/*
 * test_perfstat.c: a metric's PERFSTAT record (the guest's counting run,
 * after every test was timed) in result.json (judge/judge-perfstat.c): it
 * becomes the perf_stat of the METRIC of the same (abi, test, name), its
 * totals counts per operation, cycles and instructions the metric's own;
 * absent events keep their reason, multiplexed ones are named, and what
 * cannot be trusted (a malformed item, a name given twice, a negative or
 * impossible count, counts with no pass) is dropped and counted while the
 * metric and the verdict stay; a PERFSTAT of no metric is not read.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "judge.h"
#include "protocol.h"
#include "util.h"

#include "judge_log.h"

/* A passing boot whose one METRIC has the extra fields (key, value, ...,
 * NULL); returns result.json's first metric's perf_stat (or NULL) and
 * its verdict in *verdict. The caller puts *root. */
/* A passing boot with the METRIC of lat_syscall null and, after the
 * tests, a PERFSTAT of (x86_64, lat_syscall, pname) with the fields given
 * (key, value, ..., NULL); returns result.json's metric (its root in
 * *root, for the caller to put) and the verdict in *verdict. */
static json_object *boot_with(json_object **root, int *verdict, const char *pname, va_list ap)
{
	const char *f[40] = { "abi", "x86_64", "test", "lat_syscall", "name", pname };
	size_t n = 6;
	while (n < 38 && (f[n] = va_arg(ap, const char *)))
		n++;
	f[n] = NULL;
	struct log l = { STRBUF_INIT, 0 };
	line(&l, "[    0.000000] Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org) #1 SMP");
	rec(&l, "BEGIN", "proto", "1", "init", "0.1.0", "arch", "x86_64", "plan", "builtin", NULL);
	rec(&l, "ABI", "abi", "x86_64", "status", "ok", NULL);
	rec(&l, "TEST", "abi", "x86_64", "test", "lat_syscall", "status", "start", NULL);
	rec(&l, "METRIC", "abi", "x86_64", "test", "lat_syscall", "name", "null", "unit", "us",
	    "better", "lower", "n", "3", "median", "0.5", "min", "0.5", "max", "0.6", "mean", "0.53",
	    "stddev", "0.05", "samples", "0.5,0.5,0.6", NULL);
	rec(&l, "RESULT", "abi", "x86_64", "test", "lat_syscall", "status", "PASS", "reason", "",
	    "ms", "10", NULL);
	char buf[PROTO_MAX_LINE + 1];
	size_t len = proto_encode(buf, sizeof buf, l.seq++, "PERFSTAT", f);
	assert_true(len > 0);
	strbuf_add(&l.sb, buf, len);
	rec(&l, "END", "tests", "1", "passed", "1", "failed", "0", "timeout", "0", "records", "6",
	    NULL);
	line(&l, "[    9.951234] reboot: Power down");
	struct judge_limits limits;
	judge_default_limits(&limits);
	struct judge *j = judge_new(&limits);
	judge_feed(j, l.sb.buf, l.sb.len, 1);
	*verdict = (int)judge_finish(j, 2);
	if (*verdict)
		print_message("verdict %d: %s\n", *verdict, judge_reason(j));
	*root = json_object_new_object();
	judge_to_json(j, *root);
	judge_free(j);
	strbuf_release(&l.sb);
	json_object *metrics;
	assert_true(json_object_object_get_ex(*root, "metrics", &metrics));
	assert_int_equal(json_object_array_length(metrics), 1);
	return json_object_array_get_idx(metrics, 0);
}

/* The metric's perf_stat (or NULL) from a boot whose PERFSTAT is null's. */
static json_object *perf_stat_of(json_object **root, int *verdict, ...)
{
	va_list ap;
	va_start(ap, verdict);
	json_object *m = boot_with(root, verdict, "null", ap), *ps;
	va_end(ap);
	return json_object_object_get_ex(m, "perf_stat", &ps) ? ps : NULL;
}

/* The metric itself, from a boot whose PERFSTAT is pname's. */
static json_object *metric_of(json_object **root, int *verdict, const char *pname, ...)
{
	va_list ap;
	va_start(ap, pname);
	json_object *m = boot_with(root, verdict, pname, ap);
	va_end(ap);
	return m;
}

static json_object *member(json_object *o, const char *a, const char *b)
{
	json_object *v = NULL;
	assert_true(json_object_object_get_ex(o, a, &v));
	if (b) {
		json_object *w = NULL;
		return json_object_object_get_ex(v, b, &w) ? w : NULL;
	}
	return v;
}

/* Counts per operation, the reasons of the absent, the multiplexed named. */
static void test_per_operation(void **state)
{
	(void)state;
	json_object *root;
	int verdict;
	json_object *ps = perf_stat_of(&root, &verdict, "perf_ops", "1000", "perf_ns", "500000",
		"perf", "task-clock:480000,context-switches:2,page-faults:0,cycles:900000",
		"perf_absent", "instructions:ENOENT,ref-cycles:not-counted",
		"perf_scaled", "cycles", NULL);
	assert_int_equal(verdict, VERDICT_PASS);
	assert_non_null(ps);
	assert_int_equal(json_object_get_int64(member(ps, "ops", NULL)), 1000);
	assert_int_equal(json_object_get_int64(member(ps, "ns", NULL)), 500000);
	assert_true(fabs(json_object_get_double(member(ps, "events", "task-clock")) - 480) < 1e-9);
	assert_true(fabs(json_object_get_double(member(ps, "events", "context-switches")) - 0.002) < 1e-12);
	assert_true(json_object_get_double(member(ps, "events", "page-faults")) == 0);
	assert_string_equal(json_object_get_string(member(ps, "absent", "instructions")), "ENOENT");
	assert_string_equal(json_object_get_string(member(ps, "absent", "ref-cycles")), "not-counted");
	json_object *scaled = member(ps, "scaled", NULL);
	assert_int_equal(json_object_array_length(scaled), 1);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(scaled, 0)), "cycles");
	assert_int_equal(json_object_get_int(member(ps, "dropped", NULL)), 0);
	json_object_put(root);
}

/* A PERFSTAT without a field gives nothing; one of another metric is not
 * the metric's (an older guest: no PERFSTAT at all, the same). */
static void test_not_the_metrics(void **state)
{
	(void)state;
	json_object *root, *v;
	int verdict;
	assert_null(perf_stat_of(&root, &verdict, NULL));
	assert_int_equal(verdict, VERDICT_PASS);
	json_object_put(root);
	json_object *m = metric_of(&root, &verdict, "read", "perf_ops", "10", "perf_ns", "100",
				   "perf", "instructions:50,cycles:60", NULL);
	assert_int_equal(verdict, VERDICT_PASS);
	assert_false(json_object_object_get_ex(m, "perf_stat", NULL));
	assert_true(json_object_object_get_ex(m, "cycles", &v));
	assert_null(v);
	json_object_put(root);
}

/* cycles and instructions per operation are the metric's own where both
 * counted; else counters=unavailable. */
static void test_cycles_instructions(void **state)
{
	(void)state;
	json_object *root, *v;
	int verdict;
	json_object *m = metric_of(&root, &verdict, "null", "perf_ops", "10", "perf_ns", "100",
				   "perf", "instructions:50,cycles:60", NULL);
	assert_true(json_object_object_get_ex(m, "cycles", &v));
	assert_true(fabs(json_object_get_double(v) - 6) < 1e-12);
	assert_true(json_object_object_get_ex(m, "instructions", &v));
	assert_true(fabs(json_object_get_double(v) - 5) < 1e-12);
	assert_false(json_object_object_get_ex(m, "counters", NULL));
	json_object_put(root);
	m = metric_of(&root, &verdict, "null", "perf_ops", "10", "perf_ns", "100",
		      "perf", "task-clock:90", "perf_absent", "cycles:ENOENT,instructions:ENOENT", NULL);
	assert_true(json_object_object_get_ex(m, "counters", &v));
	assert_string_equal(json_object_get_string(v), "unavailable");
	assert_true(json_object_object_get_ex(m, "cycles", &v));
	assert_null(v);
	json_object_put(root);
}

/* Every hardware event absent, the software ones counted (x86 under TCG). */
static void test_no_pmu(void **state)
{
	(void)state;
	json_object *root;
	int verdict;
	json_object *ps = perf_stat_of(&root, &verdict, "perf_ops", "64", "perf_ns", "64000",
		"perf", "task-clock:63000,context-switches:0",
		"perf_absent", "cycles:ENOENT,instructions:ENOENT,branches:ENOENT", NULL);
	assert_non_null(ps);
	assert_int_equal(json_object_object_length(member(ps, "events", NULL)), 2);
	assert_int_equal(json_object_object_length(member(ps, "absent", NULL)), 3);
	assert_null(member(ps, "events", "cycles"));
	json_object_put(root);
}

/* What cannot be trusted is dropped and counted; the rest is kept. */
static void test_dropped(void **state)
{
	(void)state;
	json_object *root;
	int verdict;
	json_object *ps = perf_stat_of(&root, &verdict, "perf_ops", "10", "perf_ns", "1000",
		"perf", "task-clock:900,cycles:-5,instructions:1e9,branches:nan,"
			"cache-misses:100001,page-faults,Bad_Name:1,context-switches:1,"
			"context-switches:2,minor-faults:3",
		"perf_absent", "task-clock:ENOENT,bus-cycles:has space,ref-cycles:EACCES",
		"perf_scaled", "minor-faults,not-there", NULL);
	assert_int_equal(verdict, VERDICT_PASS);
	assert_non_null(ps);
	json_object *events = member(ps, "events", NULL);
	/* kept: task-clock, context-switches (its first), minor-faults */
	assert_int_equal(json_object_object_length(events), 3);
	assert_true(fabs(json_object_get_double(member(ps, "events", "context-switches")) - 0.1) < 1e-12);
	/* dropped: cycles (negative), instructions (1e9: not digits), branches
	 * (nan), cache-misses (100001 events in 1000 ns: impossible),
	 * page-faults (no count), Bad_Name, the second context-switches, the
	 * absent task-clock (counted too), bus-cycles's reason */
	assert_int_equal(json_object_get_int(member(ps, "dropped", NULL)), 9);
	assert_int_equal(json_object_object_length(member(ps, "absent", NULL)), 1);
	assert_int_equal(json_object_array_length(member(ps, "scaled", NULL)), 1);
	json_object_put(root);
}

/* Counts with no pass to divide them by (ops 0, ns missing): all dropped. */
static void test_no_pass(void **state)
{
	(void)state;
	json_object *root;
	int verdict;
	json_object *ps = perf_stat_of(&root, &verdict, "perf_ops", "0", "perf_ns", "10",
		"perf", "task-clock:9", "perf_absent", "cycles:ENOENT", NULL);
	assert_non_null(ps);
	assert_int_equal(json_object_object_length(member(ps, "events", NULL)), 0);
	assert_false(json_object_object_get_ex(ps, "ops", NULL));
	assert_int_equal(json_object_get_int(member(ps, "dropped", NULL)), 1);
	assert_string_equal(json_object_get_string(member(ps, "absent", "cycles")), "ENOENT");
	assert_int_equal(verdict, VERDICT_PASS);
	json_object_put(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_per_operation),
		cmocka_unit_test(test_not_the_metrics),
		cmocka_unit_test(test_cycles_instructions),
		cmocka_unit_test(test_no_pmu),
		cmocka_unit_test(test_dropped),
		cmocka_unit_test(test_no_pass),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
