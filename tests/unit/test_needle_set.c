/*
 * test_needle_set.c: unit tests of the judge's fast paths (judge/crash.c,
 * judge/judge.c): the needle set that lets most console lines through
 * with one scan, checked against memmem() on random lines full of near
 * misses, for every stride; the progress lines (banner, power-off) the
 * crash detector names for the judge's stages; and the line assembly's
 * fast path (whole lines taken from the chunk, "\r\n", runs of text)
 * against the same bytes fed one at a time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "crash.h"
#include "judge.h"
#include "util.h"

/* A small deterministic generator (tests must not depend on rand()'s libc). */
static uint32_t next_random(uint32_t *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 8;
}

/* Does any of the count needles occur in s[0..n)? (the reference answer) */
static bool any_memmem(const char *const *needles, size_t count, const char *s, size_t n)
{
	for (size_t i = 0; i < count; i++)
		if (memmem(s, n, needles[i], strlen(needles[i])))
			return true;
	return false;
}

/*
 * Random lines made of the needles' own pieces (so that most windows are
 * near misses) and other bytes, some holding a whole needle at a random
 * place: needle_set_search() must answer as memmem() does, every time.
 */
static void check_against_memmem(const char *const *needles, size_t count, uint32_t seed)
{
	struct needle_set *set = xcalloc(1, sizeof(*set));
	char line[300];
	int found = 0, missed = 0;
	needle_set_init(set, needles, count);
	for (int iter = 0; iter < 20000; iter++) {
		size_t n = next_random(&seed) % sizeof(line);
		for (size_t i = 0; i < n;) {
			const char *piece = needles[next_random(&seed) % count];
			size_t from = next_random(&seed) % strlen(piece);
			size_t take = 1 + next_random(&seed) % 6;
			for (size_t k = 0; k < take && i < n && piece[from + k]; k++)
				line[i++] = piece[from + k];
			if (i < n && next_random(&seed) % 3 == 0)
				line[i++] = (char)(next_random(&seed) % 256);
		}
		if (iter % 4 == 0) {
			const char *needle = needles[next_random(&seed) % count];
			size_t len = strlen(needle);
			if (len <= n) {
				size_t at = next_random(&seed) % (n - len + 1);
				memcpy(line + at, needle, len);
			}
		}
		bool want = any_memmem(needles, count, line, n);
		assert_int_equal(needle_set_search(set, line, n), want);
		want ? found++ : missed++;
	}
	assert_true(found > 1000);      /* both answers were really tried */
	assert_true(missed > 1000);
	free(set);
}

/* Strides 1 (an 8-byte needle), 2, 3 and 8 (the cap), and the detector's mix. */
static void test_needle_set_matches_memmem(void **state)
{
	static const char *const stride1[] = { "BUG: KAS", "Kernel panic - not syncing" };
	static const char *const stride2[] = { "-safe -> ", "general protection fault",
						"invalid opcode: " };
	static const char *const stride3[] = { "Power down", "System halted.",
						"reboot: Restarting system" };
	static const char *const stride8[] = { "detected stalls on CPUs", "Watchdog detected hard" };
	static const char *const mix[] = {
		"Kernel panic - not syncing", "BUG: KASAN: ", "WARNING: CPU", "---[ end trace",
		"[ cut here ]", " corruption", "TFTP error", "Unable to handle kernel ",
		"Internal error: ", "held lock freed!", "BUG: soft lockup", "Power down",
	};
	(void)state;
	check_against_memmem(stride1, ARRAY_SIZE(stride1), 1);
	check_against_memmem(stride2, ARRAY_SIZE(stride2), 2);
	check_against_memmem(stride3, ARRAY_SIZE(stride3), 3);
	check_against_memmem(stride8, ARRAY_SIZE(stride8), 8);
	check_against_memmem(mix, ARRAY_SIZE(mix), 9);
}

/* A needle at the very start or end of a line, lines shorter than a window. */
static void test_needle_set_edges(void **state)
{
	static const char *const needles[] = { "Power down", "System halted." };
	struct needle_set *set = xcalloc(1, sizeof(*set));
	(void)state;
	needle_set_init(set, needles, ARRAY_SIZE(needles));
	assert_int_equal(set->stride, 3);
	assert_true(needle_set_search(set, "Power down", 10));
	assert_true(needle_set_search(set, "xPower down", 11));
	assert_true(needle_set_search(set, "xxPower down", 12));
	assert_true(needle_set_search(set, "reboot: Power down", 18));
	assert_true(needle_set_search(set, "it said: System halted.", 23));
	assert_false(needle_set_search(set, "Power dow", 9));
	assert_false(needle_set_search(set, "xxPower dow", 11));
	assert_false(needle_set_search(set, "System halted", 13));
	assert_false(needle_set_search(set, "Power", 5));
	assert_false(needle_set_search(set, "", 0));
	free(set);
}

/* What crash_line_progress() names, line by line (the banner wins). */
static void test_progress_lines(void **state)
{
	static const struct {
		const char *line;
		enum crash_progress want;
	} cases[] = {
		{ "[    0.000000] Linux version 6.1.0-57-cloud-arm64 (gcc-12)", CRASH_PROGRESS_BANNER },
		{ "[    0.000000] Booting Linux on physical CPU 0x0000000000 [0x410fd083]",
		  CRASH_PROGRESS_BANNER },
		{ "[   12.000000] reboot: Power down", CRASH_PROGRESS_POWEROFF },
		{ "[   12.000000] reboot: Restarting system", CRASH_PROGRESS_POWEROFF },
		{ "System halted.", CRASH_PROGRESS_POWEROFF },
		{ "@@BR 1 3 LOG text=x *00000000 [ 9.1] reboot: Power down", CRASH_PROGRESS_POWEROFF },
		{ "[    0.100000] Kernel command line: console=ttyAMA0 panic=-1", CRASH_PROGRESS_NONE },
		{ "  Linux version in the middle", CRASH_PROGRESS_NONE },
		{ "Power dow", CRASH_PROGRESS_NONE },
		{ "", CRASH_PROGRESS_NONE },
	};
	struct crash_detector *d = crash_detector_new();
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		crash_feed_line(d, cases[i].line, strlen(cases[i].line), (long)i + 1, 0);
		assert_int_equal(crash_line_progress(d), cases[i].want);
	}
	crash_detector_free(d);
}

/* judge_to_json() of the console bytes fed in chunks of `chunk` (0: one whole chunk). */
static char *judged(const char *bytes, size_t n, size_t chunk)
{
	struct judge_limits none = { .silence = 0 };
	struct judge *j = judge_new(&none);
	size_t step = chunk ? chunk : n;
	for (size_t off = 0; off < n; off += step)
		judge_feed(j, bytes + off, n - off < step ? n - off : step, 1.0);
	judge_console_ended(j, 2.0);
	judge_finish(j, 2.0);
	json_object *o = json_object_new_object();
	judge_to_json(j, o);
	char *text = xstrdup(json_object_to_json_string(o));
	json_object_put(o);
	judge_free(j);
	return text;
}

/*
 * The line assembly's fast path (lines straight from the chunk, "\r\n",
 * text in runs) reads what the byte-at-a-time path reads, wherever the
 * chunks are cut: a banner after an overwritten line, escapes (one that
 * swallows a '\n'), NULs, a panic cut by CRs and a line longer than the
 * judge keeps.
 */
static void test_fast_path_as_byte_by_byte(void **state)
{
	struct strbuf log = STRBUF_INIT;
	(void)state;
	strbuf_addstr(&log, "U-Boot 2023.01\r\nprogress 10%\rprogress 100%\r\n");
	strbuf_addstr(&log, "[    0.000000] Linux version 6.1.0\r\r\n\x1b[1;32mgreen\x1b[0m line\n");
	strbuf_addstr(&log, "tab\there\0nul\r\n\x1b[2Jcleared\n\x1b" "creset\n");
	strbuf_addstr(&log, "an escape eats\r\x1b\nthis newline\nq\r\x1b[Kz\n");
	strbuf_addstr(&log, "[    1.000000] Kernel panic - not syncing: VFS: Unable to mount root\r\n");
	strbuf_addstr(&log, "[    1.000100] Call trace:\n[    1.000200]  dump_backtrace+0xe4/0x140\r\n");
	strbuf_addstr(&log, "[    1.000300]  mount_block_root+0x168/0x21c\n");
	for (int i = 0; i < 70000; i++)
		strbuf_add(&log, "x", 1);
	strbuf_addstr(&log, "\r\n[    1.000400] ---[ end Kernel panic - not syncing: VFS ]---\r\n");
	strbuf_addstr(&log, "[    2.000000] reboot: Power down\r");
	char *whole = judged(log.buf, log.len, 0);
	assert_non_null(strstr(whole, "\"PANIC\""));
	assert_non_null(strstr(whole, "mount_block_root"));
	static const size_t chunks[] = { 1, 2, 3, 7, 64, 4096 };
	for (size_t i = 0; i < ARRAY_SIZE(chunks); i++) {
		char *cut = judged(log.buf, log.len, chunks[i]);
		assert_string_equal(cut, whole);
		free(cut);
	}
	free(whole);
	strbuf_release(&log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_needle_set_matches_memmem),
		cmocka_unit_test(test_needle_set_edges),
		cmocka_unit_test(test_progress_lines),
		cmocka_unit_test(test_fast_path_as_byte_by_byte),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
