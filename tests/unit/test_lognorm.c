/*
 * test_lognorm.c: console line normalization (compare/lognorm.c): each kind
 * of boot-to-boot noise becomes a placeholder, what the kernel said is left
 * alone (the version line above all), and the multiset difference ignores
 * reordering but finds a line one log lacks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lognorm.h"

/* Normalizes s and checks the result. */
static void expect(const char *in, const char *want)
{
	struct strbuf out = STRBUF_INIT;
	lognorm_line(in, strlen(in), &out);
	if (strcmp(out.buf, want))
		print_message("# in:   %s\n# got:  %s\n# want: %s\n", in, out.buf, want);
	assert_string_equal(out.buf, want);
	strbuf_release(&out);
}

static void test_timestamps(void **state)
{
	(void)state;
	expect("[    1.234567] Run /init as init process", "Run /init as init process");
	expect("<6>[   12.000001][    T1] hello", "hello");
	expect("[    0.000000] ", "");
	expect("[0001.234567] [    0.912345] Run /init as init process", "Run /init as init process");
	expect("\x1b[0m[    2.5] \x1b[31mred\x1b[0m\r", "red");
	expect("rtc_cmos 00:00: setting system clock to 2026-11-29T23:30:00 UTC (1795819800)",
	       "rtc_cmos 00:00: setting system clock to <time> UTC (#)");
	expect("audit: type=2000 audit(1732912345.123:1): state=initialized",
	       "audit: type=2000 audit(#): state=initialized");
}

static void test_addresses(void **state)
{
	(void)state;
	expect("RIP: 0010:native_safe_halt+0xe/0x20", "RIP: 0010:native_safe_halt+0x#/0x#");
	expect("RSP: 0018:ffffb7c280013e40 EFLAGS: 00000246", "RSP: 0018:#h EFLAGS: #");
	expect("NODE_DATA(0) allocated [mem 0x1ffd5000-0x1fffffff]",
	       "NODE_DATA(0) allocated [mem 0x#-0x#]");
	expect(" ffff8880012345678 dead", " #h dead");
	expect("Loaded X.509 cert 'Debian Secure Boot Signer 2022 - linux: 14011249c2675ea8e5148542202005810584b25f'",
	       "Loaded X.509 cert 'Debian Secure Boot Signer 2022 - linux: #h'");
	expect("random: boot id 3f2c1a9e-12ab-4cde-8f00-0123456789ab", "random: boot id <uuid>");
	/* short hex-looking words are names, not values */
	expect("e1000e: Intel(R) PRO/1000 Network Driver", "e1000e: Intel(R) PRO/1000 Network Driver");
}

static void test_pids(void **state)
{
	(void)state;
	expect("CPU: 0 PID: 123 Comm: swapper/0 Not tainted 6.1.0-57-amd64 #1",
	       "CPU: 0 PID: # Comm: swapper/0 Not tainted 6.1.0-57-amd64 #1");
	expect("systemd[1]: Started foo.", "systemd[#]: Started foo.");
	expect("task pid 4242 exited", "task pid # exited");
	expect("kworker pid=77 blocked", "kworker pid=# blocked");
	expect("array[3] = 5", "array[#] = 5");
}

static void test_durations(void **state)
{
	(void)state;
	expect("foo: interrupt took 3105320 ns", "foo: interrupt took # ns");
	expect("initcall foo+0x0/0x10 returned 0 after 12 usecs",
	       "initcall foo+0x#/0x# returned 0 after # usecs");
	expect("done in 45us, then 1.23 s, took 12 ms", "done in #us, then # s, took # ms");
	expect("kvm: Detected 2495.998 MHz processor", "kvm: Detected # MHz processor");
	/* calibration and the timer probe depend on the host's speed: dropped */
	expect("[    0.1] tsc: Detected 2495.998 MHz processor", "");
	expect("[    0.2] ..MP-BIOS bug: 8254 timer not connected to IO-APIC", "");
	expect("[    0.3] APIC delta adjusted to PM-Timer: 6249992 (6249992)", "");
	expect("Calibrating delay loop (skipped), value calculated using timer frequency.. "
	       "4991.99 BogoMIPS (lpj=9983996)",
	       "Calibrating delay loop (skipped), value calculated using timer frequency.. "
	       "# BogoMIPS (lpj=#)");
	expect("clock: Marking stable (668060001, 4154227)->(694180633, -21966405)",
	       "clock: Marking stable (#, #)->(#, #)");
}

static void test_kept(void **state)
{
	(void)state;
	const char *version = "Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org) "
		"(gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) "
		"#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-10-01)";
	expect(version, version);
	expect("Memory: 1982200K/2096632K available", "Memory: #K/2096632K available");
	expect("ftrace: allocating 40521 entries in 159 pages", "ftrace: allocating 40521 entries in 159 pages");
	expect("[mem 0x#-0x#] and #h-#h", "[mem 0x#-0x#] and #h-#h");
	expect("x86/fpu: Supporting XSAVE feature 0x001: 'x87 floating point registers'",
	       "x86/fpu: Supporting XSAVE feature 0x#: 'x87 floating point registers'");
}

static void test_records(void **state)
{
	(void)state;
	expect("@@BR 1 7 METRIC abi=x86_64 test=lat_syscall name=null unit=us better=lower n=11 "
	       "median=0.4412 samples=0.44,0.45 cycles=null *1c2d3e4f",
	       "@@BR 1 # METRIC abi=x86_64 test=lat_syscall name=null unit=us better=lower n=# "
	       "median=# samples=# cycles=null");
	expect("[    3.1] random: x@@BR 1 2 ABI abi=x32 status=unsupported reason=ENOEXEC *0a1b2c3d",
	       "random: x@@BR 1 # ABI abi=x32 status=unsupported reason=ENOEXEC");
}

static const char log_a[] =
	"[    0.000000] Linux version 6.1.0-57-amd64\n"
	"[    0.100000] probe a at 0xffff888000001000\n"
	"[    0.200000] probe b\n"
	"[    0.300000] same\n"
	"[    0.300000] same\n";
static const char log_b[] =
	"[    0.000000] Linux version 6.1.0-57-cloud-amd64\n"
	"[    0.150000] probe b\n"
	"[    0.190000] probe a at 0xffff888000002000\n"
	"[    0.300000] same\n"
	"\n";

static void test_diff(void **state)
{
	(void)state;
	struct log a, b;
	log_parse(&a, log_a, strlen(log_a));
	log_parse(&b, log_b, strlen(log_b));
	assert_int_equal(a.n, 5);
	assert_int_equal(b.n, 5);
	bool only_a[5], only_b[5];
	log_diff(&a, &b, only_a, only_b);
	/* the version lines differ; reordered probes do not; one "same" is extra */
	assert_true(only_a[0]);
	assert_false(only_a[1]);
	assert_false(only_a[2]);
	assert_int_equal(only_a[3] + only_a[4], 1);
	assert_true(only_b[0]);
	assert_false(only_b[1]);
	assert_false(only_b[2]);
	assert_false(only_b[3]);
	assert_false(only_b[4]);        /* blank lines are never differences */
	assert_string_equal(a.raw[0], "[    0.000000] Linux version 6.1.0-57-amd64");
	log_free(&a);
	log_free(&b);
}

/* log_each_line's callback in test_pairs_match_diff: line i is log_parse's. */
struct each_ctx {
	const struct log *log;
	size_t i;
};

static void check_each(void *ctx, const char *raw, size_t len, size_t lineno)
{
	struct each_ctx *c = ctx;
	assert_true(c->i < c->log->n);
	assert_int_equal(strlen(c->log->raw[c->i]), len);
	assert_memory_equal(c->log->raw[c->i], raw, len);
	assert_int_equal(c->log->lineno[c->i], lineno);
	c->i++;
}

/* A message printed into another's line starts a line of its own. */
static void test_cut_lines(void **state)
{
	(void)state;
	static const char text[] = "one\nProbing EDD... o[    0.000000] Linux version 6.1\nthree";
	struct log log;
	log_parse(&log, text, strlen(text));
	assert_int_equal(log.n, 4);
	assert_string_equal(log.raw[1], "Probing EDD... o");
	assert_string_equal(log.norm[2], "Linux version 6.1");
	assert_int_equal(log.lineno[2], 2);
	assert_int_equal(log.lineno[3], 3);
	log_free(&log);
}

/* log_each_line over a file splits as log_parse; line_pairs (from either
 * side) marks the lines log_diff marks, over logs with repeats. */
static void test_pairs_match_diff(void **state)
{
	(void)state;
	static const char *const words[] = { "[    0.1] probe a at 0xffff8880", "same", "",
					     "x[    0.2] cut in", "other 1234567", "same" };
	struct strbuf text[2] = { STRBUF_INIT, STRBUF_INIT };
	unsigned rng = 7;
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < 400; i++) {
			rng = rng * 1103515245 + 12345;
			strbuf_addstr(&text[k], words[(rng >> 16) % (k ? 6 : 5)]);
			strbuf_addstr(&text[k], "\n");
		}
	struct log log[2];
	bool *only[2];
	for (int k = 0; k < 2; k++) {
		log_parse(&log[k], text[k].buf, text[k].len);
		only[k] = xcalloc(log[k].n, sizeof(bool));
	}
	log_diff(&log[0], &log[1], only[0], only[1]);
	for (int build = 0; build < 2; build++) {
		struct line_pairs *p = line_pairs_new(build);
		for (int k = 0; k < 2; k++) {
			int side = k ? !build : build;
			for (size_t i = 0; i < log[side].n; i++)
				line_pairs_count(p, side, log[side].norm[i]);
		}
		for (int k = 0; k < 2; k++) {
			size_t n = 0;
			for (size_t i = 0; i < log[k].n; i++) {
				assert_int_equal(line_pairs_take(p, k, log[k].norm[i]), only[k][i]);
				n += only[k][i];
			}
			assert_int_equal(line_pairs_only(p, k), n);
		}
		line_pairs_free(p);
	}
	char path[] = "/tmp/test_lognorm.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0 && write(fd, text[1].buf, text[1].len) == (ssize_t)text[1].len);
	close(fd);
	struct each_ctx c = { &log[1], 0 };
	struct log_read st;
	assert_int_equal(log_each_line(path, 1 << 20, check_each, &c, &st), 0);
	assert_int_equal(c.i, log[1].n);
	assert_int_equal(st.bytes, text[1].len);
	assert_false(st.cut);
	unlink(path);
	for (int k = 0; k < 2; k++) {
		log_free(&log[k]);
		free(only[k]);
		strbuf_release(&text[k]);
	}
}

static void test_counts(void **state)
{
	(void)state;
	struct line_counts *t = line_counts_new();
	char key[32];
	for (int i = 0; i < 1000; i++) {
		snprintf(key, sizeof(key), "line %d", i % 300);
		line_counts_add(t, key, 1);
	}
	assert_int_equal(line_counts_size(t), 300);
	assert_int_equal(line_counts_get(t, "line 0"), 4);
	assert_int_equal(line_counts_get(t, "line 299"), 3);
	assert_int_equal(line_counts_get(t, "absent"), 0);
	assert_string_equal(line_counts_key(t, 7), "line 7");
	assert_int_equal(line_counts_value(t, 7), 4);
	line_counts_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timestamps),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_pids),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_kept),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_cut_lines),
		cmocka_unit_test(test_pairs_match_diff),
		cmocka_unit_test(test_counts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
