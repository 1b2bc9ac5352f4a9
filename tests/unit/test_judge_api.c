/*
 * test_judge_api.c: the judge's typed accessors (judge/judge.h:
 * judge_stage_time, judge_event_at, judge_event_count, judge_event_json,
 * judge_test_at, judge_metric_at, judge_verdict) say exactly what judge_to_json() puts in
 * result.json, row for row: the commands that read a judge (`bootrig judge`,
 * `logdiff`, the run's summary) use them instead of parsing JSON back.
 *
 * The log has every kind of event (a kernel report, a known issue, a
 * protocol problem (a lost record; no END), a host failure), tests with and without ms, a metric
 * with a malformed number.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crash.h"
#include "judge.h"
#include "protocol.h"
#include "util.h"

#include "judge_log.h"

/* A warning (a known issue), a lost record, two tests, one metric with a
 * bad "mean", a WARNING that is not known, and a host failure. */
static struct judge *judged_log(void)
{
	struct log l = { STRBUF_INIT, 0 };
	line(&l, "[    0.000000] Linux version 6.1.0-57-cloud-arm64 (debian-kernel@lists.debian.org) #1 SMP");
	line(&l, "[    0.500000] ------------[ cut here ]------------");
	line(&l, "[    0.500001] WARNING: CPU: 0 PID: 1 at mm/slab.c:10 cache_line_size_check+0x10/0x20");
	line(&l, "[    0.500002] Call trace:");
	line(&l, "[    0.500003]  cache_line_size_check+0x10/0x20");
	line(&l, "[    0.500004] ---[ end trace 0000000000000000 ]---");
	line(&l, "[    0.878000] Run /init as init process");
	rec(&l, "BEGIN", "proto", "1", "init", "0.1.0", "arch", "aarch64", "plan", "builtin", NULL);
	rec(&l, "ABI", "abi", "aarch64", "status", "ok", NULL);
	l.seq++;                        /* a record lost: a protocol event */
	rec(&l, "TEST", "abi", "aarch64", "test", "lat_syscall", "status", "start", NULL);
	rec(&l, "METRIC", "abi", "aarch64", "test", "lat_syscall", "name", "null", "unit", "us",
	    "better", "lower", "n", "3", "median", "14.1", "min", "14.0", "max", "14.3",
	    "mean", "x14", "stddev", "0.08", "samples", "14.1,14.0,14.3", NULL);
	rec(&l, "RESULT", "abi", "aarch64", "test", "lat_syscall", "status", "PASS", "ms", "812",
	    NULL);
	rec(&l, "RESULT", "abi", "aarch64", "test", "tcp", "status", "FAIL", "reason", "exit 3",
	    NULL);
	line(&l, "[    2.000000] ------------[ cut here ]------------");
	line(&l, "[    2.000001] WARNING: CPU: 0 PID: 1 at kernel/module.c:1108 module_put+0x57/0x70");
	line(&l, "[    2.000002] Call trace:");
	line(&l, "[    2.000003]  module_put+0x57/0x70");
	line(&l, "[    2.000004] ---[ end trace 0000000000000000 ]---");
	struct judge_limits limits;
	judge_default_limits(&limits);
	struct judge *j = judge_new(&limits);
	judge_expect_event(j, "WARNING in cache_line_size_check");
	judge_feed(j, l.sb.buf, 100, 1.0);
	judge_feed(j, l.sb.buf + 100, l.sb.len - 100, 3.0);
	judge_infra_error(j, "the console closed");
	judge_finish(j, 4.0);
	strbuf_release(&l.sb);
	return j;
}

static json_object *to_json(const struct judge *j)
{
	json_object *o = json_object_new_object();
	judge_to_json(j, o);
	return o;
}

static json_object *member(json_object *o, const char *key)
{
	json_object *v = NULL;
	json_object_object_get_ex(o, key, &v);
	return v;
}

static const char *str_member(json_object *o, const char *key)
{
	json_object *v = member(o, key);
	return v ? json_object_get_string(v) : NULL;
}

/* A JSON number, or NAN for null. */
static double num_member(json_object *o, const char *key)
{
	json_object *v = member(o, key);
	return v ? json_object_get_double(v) : NAN;
}

static bool same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static void test_verdict_and_stages(void **state)
{
	(void)state;
	struct judge *j = judged_log();
	json_object *o = to_json(j), *stages = member(o, "stages");
	assert_int_equal(judge_verdict(j), VERDICT_INFRA_ERROR);
	assert_string_equal(str_member(o, "verdict"), verdict_name(judge_verdict(j)));
	assert_string_equal(str_member(o, "reason"), judge_reason(j));
	size_t reached = 0;
	for (int s = 0; s < STAGE_COUNT; s++) {
		json_object *v = member(stages, stage_name(s));
		if (judge_stage_time(j, s) < 0) {
			assert_null(v);
			continue;
		}
		reached++;
		assert_non_null(v);
		assert_true(json_object_get_double(v) == judge_stage_time(j, s));
	}
	assert_int_equal(reached, (size_t)json_object_object_length(stages));
	assert_true(judge_stage_time(j, STAGE_KERNEL) == 1.0);
	assert_true(judge_stage_time(j, STAGE_RESULTS) == 3.0);
	assert_true(judge_stage_time(j, STAGE_END) < 0);
	json_object_put(o);
	judge_free(j);
}

static void test_events(void **state)
{
	(void)state;
	struct judge *j = judged_log();
	json_object *o = to_json(j), *events = member(o, "events");
	const char *kinds[] = { "warning", "warning", "protocol", "protocol", "infra" };
	struct judge_event e;
	size_t n = 0;
	for (; judge_event_at(j, n, &e); n++) {
		assert_true(n < ARRAY_SIZE(kinds));
		json_object *je = json_object_array_get_idx(events, n);
		assert_string_equal(e.kind, kinds[n]);
		assert_string_equal(e.kind, str_member(je, "kind"));
		assert_string_equal(e.title, str_member(je, "title"));
		assert_string_equal(e.function, str_member(je, "function"));
		assert_string_equal(e.excerpt, str_member(je, "excerpt"));
		assert_int_equal(e.line, json_object_get_int64(member(je, "line")));
		assert_true(e.time == json_object_get_double(member(je, "time")));
		assert_int_equal(e.fatal, json_object_get_boolean(member(je, "fatal")));
		/* only a kernel report says expected, alt_title and corrupted */
		assert_int_equal(e.crash != NULL, member(je, "expected") != NULL);
		assert_int_equal(e.crash != NULL, member(je, "alt_title") != NULL);
		if (e.crash) {
			assert_int_equal(e.expected, json_object_get_boolean(member(je, "expected")));
			assert_string_equal(e.crash->alt_title, str_member(je, "alt_title"));
		}
		/* judge_event_json() is the same object, byte for byte */
		json_object *alone = judge_event_json(j, n);
		assert_string_equal(json_object_to_json_string_ext(alone, JSON_C_TO_STRING_PLAIN),
				    json_object_to_json_string_ext(je, JSON_C_TO_STRING_PLAIN));
		json_object_put(alone);
	}
	assert_int_equal(n, ARRAY_SIZE(kinds));
	assert_int_equal(n, json_object_array_length(events));
	assert_int_equal(judge_event_count(j), n);
	assert_null(judge_event_json(j, n));
	assert_true(judge_event_at(j, 0, &e));
	assert_string_equal(e.title, "WARNING in cache_line_size_check");
	assert_true(e.expected);
	assert_true(judge_event_at(j, 1, &e));
	assert_string_equal(e.title, "WARNING in module_put");
	assert_false(e.expected);
	assert_true(judge_event_at(j, 2, &e));
	assert_string_equal(e.title, "lost record: seq 2 missing");
	assert_true(judge_event_at(j, 3, &e));
	assert_string_equal(e.title, "truncated record: no END record after 6 records");
	assert_true(judge_event_at(j, 4, &e));
	assert_string_equal(e.title, "the console closed");
	json_object_put(o);
	judge_free(j);
}

static void test_tests_and_metrics(void **state)
{
	(void)state;
	struct judge *j = judged_log();
	json_object *o = to_json(j), *tests = member(o, "tests"), *metrics = member(o, "metrics");
	struct judge_test t;
	size_t n = 0;
	for (; judge_test_at(j, n, &t); n++) {
		json_object *jt = json_object_array_get_idx(tests, n);
		assert_string_equal(t.abi, str_member(jt, "abi"));
		assert_string_equal(t.test, str_member(jt, "test"));
		assert_string_equal(t.status, str_member(jt, "status"));
		assert_string_equal(t.reason, str_member(jt, "reason"));
		assert_int_equal(t.has_ms, member(jt, "ms") != NULL);
		if (t.has_ms)
			assert_int_equal(t.ms, json_object_get_int64(member(jt, "ms")));
	}
	assert_int_equal(n, 2);
	assert_int_equal(n, json_object_array_length(tests));
	assert_true(judge_test_at(j, 1, &t));
	assert_string_equal(t.test, "tcp");
	assert_string_equal(t.reason, "exit 3");
	assert_false(t.has_ms);

	struct judge_metric m;
	assert_true(judge_metric_at(j, 0, &m));
	assert_false(judge_metric_at(j, 1, &m));
	assert_int_equal(json_object_array_length(metrics), 1);
	json_object *jm = json_object_array_get_idx(metrics, 0);
	assert_true(judge_metric_at(j, 0, &m));
	assert_string_equal(m.abi, str_member(jm, "abi"));
	assert_string_equal(m.test, str_member(jm, "test"));
	assert_string_equal(m.name, str_member(jm, "name"));
	assert_string_equal(m.unit, str_member(jm, "unit"));
	assert_string_equal(m.better, str_member(jm, "better"));
	assert_true(m.has_n);
	assert_int_equal(m.n, json_object_get_int64(member(jm, "n")));
	assert_true(same_double(m.median, num_member(jm, "median")));
	assert_true(same_double(m.min, num_member(jm, "min")));
	assert_true(same_double(m.max, num_member(jm, "max")));
	assert_true(same_double(m.mean, num_member(jm, "mean")));
	assert_true(isnan(m.mean));            /* "x14" is no number: null in JSON */
	assert_true(same_double(m.stddev, num_member(jm, "stddev")));
	assert_string_equal(m.samples, "14.1,14.0,14.3");
	double *samples;
	size_t ns;
	assert_true(proto_parse_list(m.samples, &samples, &ns));
	assert_int_equal(ns, json_object_array_length(member(jm, "samples")));
	for (size_t i = 0; i < ns; i++)
		assert_true(samples[i] ==
			    json_object_get_double(json_object_array_get_idx(member(jm, "samples"), i)));
	free(samples);
	json_object_put(o);
	judge_free(j);
}

/* A judge fed nothing: no rows, and the verdict before judge_finish() is PASS. */
static void test_empty_judge(void **state)
{
	(void)state;
	struct judge_limits none = { .silence = 0 };
	struct judge *j = judge_new(&none);
	struct judge_event e;
	struct judge_test t;
	struct judge_metric m;
	assert_int_equal(judge_verdict(j), VERDICT_PASS);
	assert_false(judge_event_at(j, 0, &e));
	assert_int_equal(judge_event_count(j), 0);
	assert_false(judge_test_at(j, 0, &t));
	assert_false(judge_metric_at(j, 0, &m));
	assert_true(judge_stage_time(j, STAGE_FIRMWARE) == 0);
	assert_true(judge_stage_time(j, STAGE_KERNEL) < 0);
	assert_int_equal(judge_finish(j, 0), VERDICT_BOOT_FAIL);
	assert_int_equal(judge_verdict(j), VERDICT_BOOT_FAIL);
	judge_free(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict_and_stages),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_tests_and_metrics),
		cmocka_unit_test(test_empty_judge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
