/*
 * test_judge.c: unit tests of the boot judge (judge/judge.c) and its crash
 * detector (judge/crash.c): stages, timeouts, when to stop, every verdict
 * and its reason, what result.json gets, and what a serial console does to
 * the bytes (chunks cut anywhere, CRLF, a lone CR, ANSI escapes, NUL bytes,
 * a megabyte line). The crash corpus itself is checked by tests/t-judge.sh.
 *
 * Logs are built from real protocol records (proto_encode) and real kernel
 * lines; each test asserts exact verdicts, reasons and stage times.
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

#include "crash.h"
#include "exitcodes.h"
#include "judge.h"
#include "protocol.h"
#include "util.h"

#include "judge_log.h"

static void kernel_boot(struct log *l)
{
	line(l, "[    0.000000] Booting Linux on physical CPU 0x0000000000 [0x411fd070]");
	line(l, "[    0.000000] Linux version 6.1.0-57-cloud-arm64 (debian-kernel@lists.debian.org) #1 SMP Debian 6.1.192-3");
	line(l, "[    0.878000] Run /init as init process");
}

/* Records up to (not including) END for one passing test. */
static void records_until_end(struct log *l)
{
	rec(l, "BEGIN", "proto", "1", "init", "0.1.0", "arch", "aarch64", "plan", "builtin", NULL);
	rec(l, "SYSINFO", "release", "6.1.0-57-cloud-arm64", "machine", "aarch64", "cpus", "1",
	    "memtotal_kb", "499820", "uptime", "1.52", "cmdline", "console=ttyAMA0 panic=-1", NULL);
	rec(l, "ABI", "abi", "aarch64", "status", "ok", NULL);
	rec(l, "ABI", "abi", "aarch64_ilp32", "status", "unsupported", "reason", "ENOEXEC", NULL);
	rec(l, "PLAN", "suite", "smoke", "repeat", "1", "samples", "3", "abis", "aarch64",
	    "tests", "lat_syscall", NULL);
	rec(l, "TEST", "abi", "aarch64", "test", "lat_syscall", "status", "start", NULL);
	rec(l, "METRIC", "abi", "aarch64", "test", "lat_syscall", "name", "null", "unit", "us",
	    "better", "lower", "n", "3", "median", "14.1021", "min", "14.0012", "max", "14.3311",
	    "mean", "14.1203", "stddev", "0.0812", "samples", "14.1021,14.0012,14.3311",
	    "counters", "unavailable", NULL);
}

static void result_and_end(struct log *l, const char *status, const char *reason)
{
	rec(l, "RESULT", "abi", "aarch64", "test", "lat_syscall", "status", status, "reason",
	    reason, "ms", "812", NULL);
	int pass = !strcmp(status, "PASS");
	rec(l, "END", "tests", "1", "passed", pass ? "1" : "0", "failed", pass ? "0" : "1",
	    "timeout", "0", "records", "8", NULL);
}

static struct log passing_log(void)
{
	struct log l = { STRBUF_INIT, 0 };
	kernel_boot(&l);
	records_until_end(&l);
	result_and_end(&l, "PASS", "");
	line(&l, "[    9.951234] reboot: Power down");
	return l;
}

static struct judge *new_judge(double silence)
{
	struct judge_limits limits;
	judge_default_limits(&limits);
	limits.silence = silence;
	return judge_new(&limits);
}

/* Feeds the whole text at time t. */
static void feed(struct judge *j, const char *text, double t)
{
	judge_feed(j, text, strlen(text), t);
}

static double stage_time(struct judge *j, const char *stage)
{
	json_object *o = json_object_new_object(), *stages, *v;
	judge_to_json(j, o);
	json_object_object_get_ex(o, "stages", &stages);
	double t = json_object_object_get_ex(stages, stage, &v) ? json_object_get_double(v) : -1;
	json_object_put(o);
	return t;
}

/* The whole passing log in one chunk: PASS, stop, stages in order. */
static void test_pass_whole(void **state)
{
	(void)state;
	struct log l = passing_log();
	struct judge *j = new_judge(60);
	assert_false(judge_should_stop(j, 0.1));
	feed(j, l.sb.buf, 2.0);
	assert_true(judge_should_stop(j, 2.0));
	assert_int_equal(judge_finish(j, 2.1), VERDICT_PASS);
	assert_string_equal(judge_reason(j), "");
	assert_int_equal(judge_stage(j), STAGE_POWEROFF);
	assert_true(stage_time(j, "kernel") == 2.0);
	assert_true(stage_time(j, "poweroff") == 2.0);
	judge_free(j);
	strbuf_release(&l.sb);
}

/* One byte per chunk, each a little later: the same verdict, stages at their times. */
static void test_pass_byte_by_byte(void **state)
{
	(void)state;
	struct log l = passing_log();
	struct judge *j = new_judge(60);
	const char *begin = strstr(l.sb.buf, "@@BR 1 0 BEGIN");
	for (size_t i = 0; i < l.sb.len; i++) {
		double t = l.sb.buf + i < begin ? 1.0 : 3.0;
		judge_feed(j, l.sb.buf + i, 1, t);
		if (l.sb.buf + i < begin)
			assert_false(judge_should_stop(j, t));
	}
	assert_int_equal(judge_finish(j, 4), VERDICT_PASS);
	assert_true(stage_time(j, "kernel") == 1.0);
	assert_true(stage_time(j, "init") == 3.0);
	judge_free(j);
	strbuf_release(&l.sb);
}

/* result.json's console part: sysinfo, ABI table, tests, metrics with samples. */
static void test_json_contents(void **state)
{
	(void)state;
	struct log l = passing_log();
	struct judge *j = new_judge(60);
	feed(j, l.sb.buf, 1);
	judge_finish(j, 2);
	json_object *o = json_object_new_object(), *v;
	judge_to_json(j, o);
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	assert_non_null(strstr(s, "\"verdict\":\"PASS\""));
	assert_non_null(strstr(s, "\"exit_code\":0"));
	assert_non_null(strstr(s, "\"release\":\"6.1.0-57-cloud-arm64\""));
	assert_non_null(strstr(s, "\"cpus\":1"));
	assert_non_null(strstr(s, "\"cmdline\":\"console=ttyAMA0 panic=-1\""));
	assert_non_null(strstr(s, "\"aarch64_ilp32\":{\"status\":\"unsupported\",\"reason\":\"ENOEXEC\"}"));
	assert_non_null(strstr(s, "\"status\":\"PASS\""));
	assert_true(json_object_object_get_ex(o, "metrics", &v));
	assert_int_equal(json_object_array_length(v), 1);
	json_object *m = json_object_array_get_idx(v, 0), *samples, *cycles;
	assert_true(json_object_object_get_ex(m, "samples", &samples));
	assert_int_equal(json_object_array_length(samples), 3);
	assert_true(json_object_object_get_ex(m, "cycles", &cycles));
	assert_null(cycles);
	assert_non_null(strstr(s, "\"protocol\":{\"records\":9,\"corrupt\":0"));
	json_object_put(o);
	judge_free(j);
	strbuf_release(&l.sb);
}

/* A test that failed: FAIL with the test and its reason. */
static void test_fail_test_result(void **state)
{
	(void)state;
	struct log l = { STRBUF_INIT, 0 };
	kernel_boot(&l);
	records_until_end(&l);
	result_and_end(&l, "FAIL", "exit 3");
	line(&l, "[    9.951234] reboot: Power down");
	struct judge *j = new_judge(60);
	feed(j, l.sb.buf, 1);
	assert_true(judge_should_stop(j, 1));
	assert_int_equal(judge_finish(j, 2), VERDICT_FAIL);
	assert_string_equal(judge_reason(j), "test aarch64/lat_syscall FAIL: exit 3");
	assert_int_equal(verdict_exit_code(VERDICT_FAIL), EXIT_FAIL);
	judge_free(j);
	strbuf_release(&l.sb);
}

/*
 * A clean run, but the kernel warns first: the WARNING line (its text after
 * the printk time), then its call trace, one frame per string up to NULL.
 */
static void warned_run(struct log *l, const char *warning, const char *const *frames)
{
	kernel_boot(l);
	line(l, "[    1.000000] ------------[ cut here ]------------");
	char *w = xasprintf("[    1.000001] %s", warning);
	line(l, w);
	free(w);
	line(l, "[    1.000002] Call trace:");
	for (size_t i = 0; frames[i]; i++) {
		char *f = xasprintf("[    1.000003]  %s", frames[i]);
		line(l, f);
		free(f);
	}
	line(l, "[    1.000005] ---[ end trace 0000000000000000 ]---");
	records_until_end(l);
	result_and_end(l, "PASS", "");
	line(l, "[    9.951234] reboot: Power down");
}

/* A WARNING during an otherwise clean run: FAIL, the event listed, not fatal. */
static void test_warning_fails(void **state)
{
	(void)state;
	struct log l = { STRBUF_INIT, 0 };
	const char *const frames[] = { "module_put+0x57/0x70", "do_init_module+0x50/0x200", NULL };
	warned_run(&l, "WARNING: CPU: 0 PID: 1 at kernel/module.c:1108 module_put+0x57/0x70", frames);
	struct judge *j = new_judge(60);
	feed(j, l.sb.buf, 1);
	assert_int_equal(judge_finish(j, 2), VERDICT_FAIL);
	assert_string_equal(judge_reason(j), "kernel reported: WARNING in module_put");
	json_object *o = json_object_new_object(), *events;
	judge_to_json(j, o);
	json_object_object_get_ex(o, "events", &events);
	assert_int_equal(json_object_array_length(events), 1);
	const char *s = json_object_to_json_string_ext(json_object_array_get_idx(events, 0),
						      JSON_C_TO_STRING_PLAIN);
	assert_non_null(strstr(s, "\"kind\":\"warning\""));
	assert_non_null(strstr(s, "\"line\":5"));
	assert_non_null(strstr(s, "\"fatal\":false"));
	assert_non_null(strstr(s, "[ cut here ]"));
	assert_non_null(strstr(s, "end trace"));
	json_object_put(o);
	judge_free(j);
	strbuf_release(&l.sb);
}

/* A known issue of the target: the same WARNING is listed, marked
 * expected, and the boot passes; a pattern never waives a crash. */
static void test_expected_event(void **state)
{
	(void)state;
	struct log l = { STRBUF_INIT, 0 };
	const char *const frames[] = { "arch_setup_dma_ops+0xa4/0xb0", NULL };
	warned_run(&l, "WARNING: CPU: 0 PID: 1 at arch/arm64/mm/dma-mapping.c:48 "
		   "arch_setup_dma_ops+0xa4/0xb0", frames);

	struct judge *j = new_judge(60);
	judge_expect_event(j, "WARNING in module_put");
	feed(j, l.sb.buf, 1);
	assert_int_equal(judge_finish(j, 2), VERDICT_FAIL);
	judge_free(j);

	j = new_judge(60);
	judge_expect_event(j, "WARNING in arch_setup_dma_ops");
	feed(j, l.sb.buf, 1);
	assert_int_equal(judge_finish(j, 2), VERDICT_PASS);
	json_object *o = json_object_new_object(), *events;
	judge_to_json(j, o);
	json_object_object_get_ex(o, "events", &events);
	assert_int_equal(json_object_array_length(events), 1);
	const char *s = json_object_to_json_string_ext(json_object_array_get_idx(events, 0),
						      JSON_C_TO_STRING_PLAIN);
	assert_non_null(strstr(s, "\"expected\":true"));
	json_object_put(o);
	judge_free(j);

	j = new_judge(60);
	judge_expect_event(j, "*");
	feed(j, "[    0.000000] Linux version 6.1.0 #1\n"
		"[    1.000000] Kernel panic - not syncing: VFS: Unable to mount root fs\n"
		"[    1.000001] ---[ end Kernel panic - not syncing: VFS: Unable to mount root fs ]---\n", 1);
	assert_int_equal(judge_finish(j, 2), VERDICT_PANIC);
	judge_free(j);
	strbuf_release(&l.sb);
}

/* A panic: stop as soon as it has ended, PANIC, oops and panic both kept. */
static void test_oops_then_panic(void **state)
{
	(void)state;
	struct judge *j = new_judge(60);
	feed(j, "[    0.000000] Linux version 6.1.0-57-cloud-arm64 #1 SMP\n"
		"[    0.000000] Internal error: Oops - Undefined instruction: 0000000002000000 [#1] SMP\n"
		"[    0.000000] pc : has_useable_gicv3_cpuif+0x3c/0x84\n"
		"[    0.000000] Call trace:\n"
		"[    0.000000]  has_useable_gicv3_cpuif+0x3c/0x84\n"
		"[    0.000000] ---[ end trace 0000000000000000 ]---\n"
		"[    0.000000] Kernel panic - not syncing: Attempted to kill the idle task!\n", 1);
	assert_false(judge_should_stop(j, 1.5));
	feed(j, "[    0.000000] ---[ end Kernel panic - not syncing: Attempted to kill the idle task! ]---\n", 2);
	assert_true(judge_should_stop(j, 2));
	assert_int_equal(judge_finish(j, 2), VERDICT_PANIC);
	assert_string_equal(judge_reason(j),
			    "Internal error in has_useable_gicv3_cpuif (+1 more events)");
	assert_int_equal(verdict_exit_code(VERDICT_PANIC), EXIT_CRASH);
	judge_free(j);
}

/* An old kernel's panic has no end marker: five quiet seconds end it. */
static void test_panic_without_end_marker(void **state)
{
	(void)state;
	struct judge *j = new_judge(60);
	feed(j, "[    0.000000] Linux version 4.4.0 #1\n"
		"[    1.000000] Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)\n", 1);
	assert_false(judge_should_stop(j, 5.5));
	assert_true(judge_should_stop(j, 6.5));
	assert_int_equal(judge_finish(j, 6.5), VERDICT_PANIC);
	judge_free(j);
}

/* The console goes silent: should_stop only once the silence limit passed. */
static void test_silence_is_hang(void **state)
{
	(void)state;
	struct judge *j = new_judge(10);
	feed(j, "[    0.000000] Linux version 6.1.0 #1\n", 1);
	assert_false(judge_should_stop(j, 10.9));
	assert_true(judge_should_stop(j, 11.5));
	assert_int_equal(judge_finish(j, 11.5), VERDICT_HANG);
	assert_non_null(strstr(judge_reason(j), "silent for 10 s in the kernel stage"));
	judge_free(j);
}

/* Output keeps coming but init never starts: the kernel stage times out. */
static void test_stage_timeout_is_hang(void **state)
{
	(void)state;
	struct judge_limits limits = { .stage = { 30, 3, 0, 0, 0, 0 }, .silence = 100 };
	struct judge *j = judge_new(&limits);
	feed(j, "[    0.000000] Linux version 6.1.0 #1\n", 1);
	for (double t = 1.5; t < 4; t += 0.5) {
		feed(j, "[    1.000000] random: crng init done\n", t);
		assert_false(judge_should_stop(j, t));
	}
	assert_true(judge_should_stop(j, 4.5));
	assert_int_equal(judge_finish(j, 4.5), VERDICT_HANG);
	assert_string_equal(judge_reason(j), "the kernel stage did not end within 3 s");
	judge_free(j);
}

/* Nothing at all, or the machine stopping before init: BOOT_FAIL. */
static void test_boot_fail(void **state)
{
	(void)state;
	struct judge *j = new_judge(60);
	assert_true(judge_should_stop(j, 31));
	assert_int_equal(judge_finish(j, 31), VERDICT_BOOT_FAIL);
	assert_string_equal(judge_reason(j), "no console output");
	judge_free(j);

	j = new_judge(60);
	feed(j, "U-Boot 2023.01 (Jan 01 2023)\n## Booting kernel from Legacy Image\n"
		"Bad Linux ARM64 Image magic!\n", 1);
	judge_machine_stopped(j, 2);
	assert_true(judge_should_stop(j, 2));
	assert_int_equal(judge_finish(j, 2), VERDICT_BOOT_FAIL);
	assert_string_equal(judge_reason(j), "firmware: Bad Linux ARM64 Image magic!");
	judge_free(j);

	j = new_judge(60);
	feed(j, "[    0.000000] Linux version 6.1.0 #1\n[    0.9] Run /init as init process\n", 1);
	judge_machine_stopped(j, 2);
	assert_int_equal(judge_finish(j, 2), VERDICT_BOOT_FAIL);
	assert_string_equal(judge_reason(j), "the kernel never reached the init (no BEGIN record)");
	judge_free(j);
}

/* Records that stop before END, then the machine stops: FAIL. */
static void test_missing_end(void **state)
{
	(void)state;
	struct log l = { STRBUF_INIT, 0 };
	kernel_boot(&l);
	records_until_end(&l);
	struct judge *j = new_judge(60);
	feed(j, l.sb.buf, 1);
	assert_int_equal(judge_stage(j), STAGE_RESULTS);
	judge_machine_stopped(j, 2);
	assert_int_equal(judge_finish(j, 2), VERDICT_FAIL);
	assert_string_equal(judge_reason(j), "test aarch64/lat_syscall started but never reported");
	judge_free(j);
	strbuf_release(&l.sb);
}

/* The host failed: INFRA_ERROR wins, exit 125. */
static void test_infra_error(void **state)
{
	(void)state;
	struct judge *j = new_judge(60);
	feed(j, "[    0.000000] Linux version 6.1.0 #1\n", 1);
	judge_infra_error(j, "libvirt: domain crashed");
	assert_true(judge_should_stop(j, 1));
	assert_int_equal(judge_finish(j, 1), VERDICT_INFRA_ERROR);
	assert_string_equal(judge_reason(j), "libvirt: domain crashed");
	assert_int_equal(verdict_exit_code(VERDICT_INFRA_ERROR), EXIT_INFRA);
	json_object *o = json_object_new_object();
	judge_to_json(j, o);
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	assert_non_null(strstr(s, "{\"kind\":\"infra\",\"title\":\"libvirt: domain crashed\""));
	json_object_put(o);
	judge_free(j);
}

static void test_reboot_before_banner(void **state)
{
	(void)state;
	struct crash_detector *d = crash_detector_new();
	static const char *const lines[] = { "Booting the kernel.", "[    0.000000] Linux version 6.1.0 #1",
					     "[    1.000000] Run /init as init process",
					     "Booting the kernel.", "[    0.000000] Linux version 6.1.0 #1" };
	for (size_t i = 0; i < 5; i++)
		crash_feed_line(d, lines[i], strlen(lines[i]), (long)i + 1, 0);
	crash_finish(d);
	assert_int_equal(crash_event_count(d), 1);
	assert_string_equal(crash_event_at(d, 0)->title, "unexpected kernel reboot");
	assert_int_equal(crash_event_at(d, 0)->line, 4);
	crash_detector_free(d);
}

/* A second banner: the machine rebooted by itself. */
static void test_unexpected_reboot(void **state)
{
	(void)state;
	struct judge *j = new_judge(60);
	feed(j, "[    0.000000] Linux version 6.1.0 #1\n[    0.5] Run /init as init process\n"
		"[    0.000000] Linux version 6.1.0 #1\n", 1);
	assert_int_equal(judge_finish(j, 2), VERDICT_PANIC);
	assert_string_equal(judge_reason(j), "unexpected kernel reboot");
	judge_free(j);
}

/* CRLF, ANSI colours, NUL bytes, a lone CR, a screen clear: lines come out clean. */
static void test_console_noise(void **state)
{
	(void)state;
	struct log l = passing_log();
	struct strbuf noisy = STRBUF_INIT;
	strbuf_addstr(&noisy, "Probing EDD (edd=off to disable)... o\x1b" "c\x1b[?7l\x1b[2J");
	for (size_t i = 0; i < l.sb.len; i++) {
		if (l.sb.buf[i] == '\n')
			strbuf_add(&noisy, "\r\r", 2);
		if (i % 97 == 5)
			strbuf_add(&noisy, "\0", 1);
		if (i % 131 == 7)
			strbuf_addstr(&noisy, "\x1b[1;31m");
		strbuf_add(&noisy, l.sb.buf + i, 1);
	}
	struct judge *j = new_judge(60);
	judge_feed(j, noisy.buf, noisy.len, 1);
	assert_int_equal(judge_finish(j, 2), VERDICT_PASS);
	assert_true(stage_time(j, "kernel") == 1);
	judge_free(j);
	strbuf_release(&noisy);
	strbuf_release(&l.sb);

	j = new_judge(60);
	feed(j, "progress 10%\rprogress 100%\r[    0.000000] Linux version 6.1.0 #1\r\n", 1);
	assert_int_equal(judge_stage(j), STAGE_KERNEL);
	judge_free(j);
}

/* A megabyte without a newline costs no more than a line, and the judge goes on. */
static void test_huge_line(void **state)
{
	(void)state;
	size_t n = 1 << 20;
	char *junk = xmalloc(n);
	memset(junk, 'x', n);
	struct judge *j = new_judge(60);
	for (int k = 0; k < 4; k++)
		judge_feed(j, junk, n, 1);
	feed(j, "\n[    0.000000] Linux version 6.1.0 #1\n", 2);
	assert_int_equal(judge_stage(j), STAGE_KERNEL);
	judge_free(j);
	free(junk);
}

/* One WARNING report (kept short), title "WARNING in f". */
static void warning_report(struct strbuf *sb, const char *f)
{
	strbuf_addf(sb, "[    1.000001] WARNING: CPU: 0 PID: 1 at kernel/x.c:1 %s+0x1/0x2\n"
		    "[    1.000002] Call trace:\n[    1.000003]  %s+0x1/0x2\n"
		    "[    1.000005] ---[ end trace 0000000000000000 ]---\n", f, f);
}

/* A console that prints reports without end keeps CRASH_MAX_EVENTS of them,
 * yet the verdict counts them all, a panic after them is PANIC, and a real
 * WARNING after the kept ones, all known issues, is still FAIL. */
static void test_events_bounded(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "[    0.000000] Linux version 6.1.0 #1\n");
	for (int i = 0; i < CRASH_MAX_EVENTS + 44; i++)
		warning_report(&sb, "noisy_fn");
	strbuf_addstr(&sb, "[    2.000000] Kernel panic - not syncing: Attempted to kill init!\n"
			   "[    2.000001] ---[ end Kernel panic - not syncing: Attempted to kill init! ]---\n");
	struct judge *j = new_judge(60);
	judge_feed(j, sb.buf, sb.len, 1);
	assert_int_equal(judge_finish(j, 2), VERDICT_PANIC);
	assert_string_equal(judge_reason(j),
			    "kernel panic: Attempted to kill init! (+300 more events)");
	json_object *o = json_object_new_object(), *v;
	judge_to_json(j, o);
	assert_true(json_object_object_get_ex(o, "events_not_kept", &v));
	assert_int_equal(json_object_get_int(v), 44);
	json_object_put(o);
	judge_free(j);

	struct log l = { STRBUF_INIT, 0 };
	kernel_boot(&l);
	for (int i = 0; i < CRASH_MAX_EVENTS; i++)
		warning_report(&l.sb, "known_fn");
	warning_report(&l.sb, "real_bug");
	records_until_end(&l);
	result_and_end(&l, "PASS", "");
	struct judge_limits limits;
	judge_default_limits(&limits);
	char *known[] = { "WARNING in known_fn" };
	limits.known_issues = known;
	limits.n_known_issues = 1;
	j = judge_new(&limits);
	judge_feed(j, l.sb.buf, l.sb.len, 1);
	assert_int_equal(judge_finish(j, 2), VERDICT_FAIL);
	assert_string_equal(judge_reason(j), "kernel reported: WARNING in real_bug");
	judge_free(j);
	strbuf_release(&l.sb);
	strbuf_release(&sb);
}

/* The metrics of a boot whose plan repeats a test: one per run, both kept;
 * the same metric twice in one run: not read, FAIL. */
static void test_metric_once_per_run(void **state)
{
	(void)state;
	for (int dup = 0; dup < 2; dup++) {
		struct log l = { STRBUF_INIT, 0 };
		kernel_boot(&l);
		records_until_end(&l);
		if (dup)
			rec(&l, "METRIC", "abi", "aarch64", "test", "lat_syscall", "name", "null",
			    "unit", "us", "better", "lower", "n", "1", "median", "99.0", NULL);
		rec(&l, "RESULT", "abi", "aarch64", "test", "lat_syscall", "status", "PASS",
		    "ms", "812", NULL);
		if (!dup) {
			rec(&l, "TEST", "abi", "aarch64", "test", "lat_syscall", "status", "start", NULL);
			rec(&l, "METRIC", "abi", "aarch64", "test", "lat_syscall", "name", "null",
			    "unit", "us", "better", "lower", "n", "1", "median", "14.2", NULL);
			rec(&l, "RESULT", "abi", "aarch64", "test", "lat_syscall", "status", "PASS",
			    "ms", "812", NULL);
		}
		char records[16];
		snprintf(records, sizeof(records), "%llu", (unsigned long long)l.seq);
		rec(&l, "END", "tests", dup ? "1" : "2", "passed", dup ? "1" : "2", "failed", "0",
		    "timeout", "0", "records", records, NULL);
		struct judge *j = new_judge(60);
		judge_feed(j, l.sb.buf, l.sb.len, 1);
		assert_int_equal(judge_finish(j, 2), dup ? VERDICT_FAIL : VERDICT_PASS);
		json_object *o = json_object_new_object(), *metrics;
		judge_to_json(j, o);
		json_object_object_get_ex(o, "metrics", &metrics);
		assert_int_equal(json_object_array_length(metrics), dup ? 1 : 2);
		json_object *first = json_object_array_get_idx(metrics, 0), *median;
		json_object_object_get_ex(first, "median", &median);
		assert_true(json_object_get_double(median) == 14.1021);
		json_object_put(o);
		judge_free(j);
		strbuf_release(&l.sb);
	}
}

/* A panic line cut by chunks and followed by a lone CR, a screen clear
 * split from its ESC: the text before each is still read. */
static void test_pieces_across_chunks(void **state)
{
	(void)state;
	static const char *const chunks[] = {
		"[    0.000000] Linux version 6.1.0 #1\n[    1.0] Kernel pa", "nic - not syncing: x",
		"\r", "login: \n[    1.1] WARNING: CPU: 0 PID: 1 at a.c:1 f+0x1/0x2\x1b", "[2J\n",
	};
	struct judge *j = new_judge(60);
	for (size_t i = 0; i < ARRAY_SIZE(chunks); i++)
		feed(j, chunks[i], 1);
	assert_int_equal(judge_finish(j, 2), VERDICT_PANIC);
	/* the panic, the WARNING, and the console ending in that WARNING (cut
	 * before its stack) */
	assert_string_equal(judge_reason(j), "kernel panic: x (+2 more events)");
	judge_free(j);
}

/* The verdict helpers: names, exit codes as in the contract, severity order. */
static void test_verdict_helpers(void **state)
{
	(void)state;
	assert_string_equal(verdict_name(VERDICT_BOOT_FAIL), "BOOT_FAIL");
	assert_string_equal(stage_name(STAGE_POWEROFF), "poweroff");
	assert_int_equal(verdict_exit_code(VERDICT_PASS), 0);
	assert_int_equal(verdict_exit_code(VERDICT_HANG), 2);
	assert_int_equal(verdict_exit_code(VERDICT_BOOT_FAIL), 2);
	assert_true(verdict_severity(VERDICT_PANIC) > verdict_severity(VERDICT_FAIL));
	assert_true(verdict_severity(VERDICT_FAIL) > verdict_severity(VERDICT_PASS));
	assert_true(verdict_severity(VERDICT_INFRA_ERROR) > verdict_severity(VERDICT_PASS));
}

/* The typed ABI table says what result.json's "abis" says. */
static void test_abi_table_typed(void **state)
{
	(void)state;
	struct log l = passing_log();
	struct judge *j = new_judge(60);
	feed(j, l.sb.buf, 2.0);
	judge_finish(j, 2.1);
	struct judge_abi row;
	assert_true(judge_abi_at(j, 0, &row));
	assert_string_equal(row.abi, "aarch64");
	assert_string_equal(row.status, "ok");
	assert_null(row.reason);
	assert_true(judge_abi_at(j, 1, &row));
	assert_string_equal(row.abi, "aarch64_ilp32");
	assert_string_equal(row.status, "unsupported");
	assert_string_equal(row.reason, "ENOEXEC");
	assert_false(judge_abi_at(j, 2, &row));
	json_object *o = json_object_new_object(), *abis, *v;
	judge_to_json(j, o);
	assert_true(json_object_object_get_ex(o, "abis", &abis));
	assert_int_equal(json_object_object_length(abis), 2);
	assert_true(json_object_object_get_ex(abis, "aarch64_ilp32", &v));
	json_object_put(o);
	judge_free(j);
	strbuf_release(&l.sb);
}

/* Not every "Call Trace" is a crash; not every "WARNING:" line is a report. */
static void test_noise_is_not_a_crash(void **state)
{
	(void)state;
	static const char *const lines[] = {
		"[    0.000000] kasan: KernelAddressSanitizer initialized",
		"[    0.120000] RAS: Correctable Errors collector initialized.",
		"[    0.010000] ftrace: allocating 40000 entries in 157 pages",
		"[    0.200000] Spectre V2 : WARNING: Unprivileged eBPF is enabled with eIBRS on, data leaks possible via Spectre v2 BHB attacks!",
		"[    1.792026] NMI backtrace for cpu 0",
		"[    1.792697] Call Trace:",
		"[    1.794022]  __handle_sysrq.cold+0x44/0x11c",
		"[    1.800000] sysrq: Show Blocked State",
		"[    2.000000] INFO: task init:1 has been running",
	};
	struct crash_detector *d = crash_detector_new();
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++)
		crash_feed_line(d, lines[i], strlen(lines[i]), (long)i + 1, 0);
	crash_finish(d);
	assert_int_equal(crash_event_count(d), 0);
	crash_detector_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pass_whole),
		cmocka_unit_test(test_abi_table_typed),
		cmocka_unit_test(test_pass_byte_by_byte),
		cmocka_unit_test(test_json_contents),
		cmocka_unit_test(test_fail_test_result),
		cmocka_unit_test(test_warning_fails),
		cmocka_unit_test(test_expected_event),
		cmocka_unit_test(test_oops_then_panic),
		cmocka_unit_test(test_panic_without_end_marker),
		cmocka_unit_test(test_silence_is_hang),
		cmocka_unit_test(test_stage_timeout_is_hang),
		cmocka_unit_test(test_boot_fail),
		cmocka_unit_test(test_missing_end),
		cmocka_unit_test(test_infra_error),
		cmocka_unit_test(test_unexpected_reboot),
		cmocka_unit_test(test_reboot_before_banner),
		cmocka_unit_test(test_console_noise),
		cmocka_unit_test(test_huge_line),
		cmocka_unit_test(test_events_bounded),
		cmocka_unit_test(test_metric_once_per_run),
		cmocka_unit_test(test_pieces_across_chunks),
		cmocka_unit_test(test_verdict_helpers),
		cmocka_unit_test(test_noise_is_not_a_crash),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
