/*
 * test_console.c: the console-line primitives (lib/console.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "console.h"

/* The printk prefixes (moved from test_judge.c): level, time, caller id. */
static void test_strip_prefix(void **state)
{
	(void)state;
	double ts;
	size_t n = strlen("<4>[  800.359161][    T1] kernel BUG at fs/inode.c:1763!");
	const char *s = console_strip_prefix("<4>[  800.359161][    T1] kernel BUG at fs/inode.c:1763!",
					     &n, &ts);
	assert_int_equal(n, strlen("kernel BUG at fs/inode.c:1763!"));
	assert_memory_equal(s, "kernel BUG", 10);
	assert_true(ts > 800.35 && ts < 800.36);
	n = 5;
	console_strip_prefix("hello", &n, &ts);
	assert_true(ts < 0);
}

/* Escapes and controls: every reader cleans a line alike. */
static void test_clean(void **state)
{
	(void)state;
	const char in[] = "a\x1b[1;31mred\x1b[0m\r\0b\x1b]0;title\x07" "c\td\x01" "e";
	char out[sizeof(in)];
	size_t n = console_clean(in, sizeof(in) - 1, out, false);
	assert_int_equal(n, strlen("aredbc\td\x01" "e"));
	assert_memory_equal(out, "aredbc\td\x01" "e", n);
	n = console_clean(in, sizeof(in) - 1, out, true);
	assert_int_equal(n, strlen("aredbc\tde"));
	assert_memory_equal(out, "aredbc\tde", n);
	assert_int_equal(console_escape_length((const unsigned char *)"\x1b[", 2), 2);
	assert_int_equal(console_escape_length((const unsigned char *)"\x1b" "c", 2), 2);
}

/* A console.tlog's host-time stamp, and what is not one. */
static void test_tlog_stamp(void **state)
{
	(void)state;
	double t = -1;
	assert_int_equal(console_tlog_stamp("[0001.250000] x", 15, &t), 14);
	assert_true(t == 1.25);
	assert_int_equal(console_tlog_stamp("[   1.25] x", 11, &t), 0);
	assert_int_equal(console_tlog_stamp("[0001.25]x", 10, &t), 0);
	assert_non_null(strstr("reboot: Power down", CONSOLE_POWER_DOWN));
	assert_string_equal(console_stop_needles[0], CONSOLE_POWER_DOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strip_prefix),
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_tlog_stamp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
