/*
 * test_capture.c: the console capture (runner/capture.c): raw bytes kept
 * unchanged, console.tlog stamped with each line's first byte's time,
 * "\r\n" shown as one line end, a last unterminated line, and the
 * reconciliation with the backend's own log (a stream that missed the
 * start, a log file that is shorter or missing), and result.json's time
 * format (runner/result.c).
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

#include "capture.h"
#include "result.h"
#include "util.h"

/* A scratch directory, removed by teardown. */
static int make_dir(void **state)
{
	char *dir = xstrdup("/tmp/test_capture.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	*state = dir;
	return 0;
}

static int remove_dir(void **state)
{
	char *dir = *state;
	const char *names[] = { "console.log", "console.tlog", "serial" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *p = xasprintf("%s/%s", dir, names[i]);
		unlink(p);
		free(p);
	}
	rmdir(dir);
	free(dir);
	return 0;
}

static char *slurp(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name), *text = NULL;
	assert_int_equal(read_file(path, &text, NULL), 0);
	free(path);
	return text;
}

static void lines_are_stamped_by_their_first_byte(void **state)
{
	struct capture c;
	capture_init(&c);
	capture_feed(&c, "Booting\r\nLinux ver", 18, 0.5);
	capture_feed(&c, "sion 6.1\r\n", 10, 1.25);
	capture_feed(&c, "[ 1.0] end", 10, 1234.000001);
	assert_int_equal(capture_write(&c, *state), 0);
	char *log = slurp(*state, "console.log");
	char *tlog = slurp(*state, "console.tlog");
	assert_string_equal(log, "Booting\r\nLinux version 6.1\r\n[ 1.0] end");
	assert_string_equal(tlog, "[0000.500000] Booting\n"
				  "[0000.500000] Linux version 6.1\n"
				  "[1234.000001] [ 1.0] end\n");
	free(log), free(tlog);
	capture_release(&c);
}

static void empty_console_gives_empty_files(void **state)
{
	struct capture c;
	capture_init(&c);
	assert_int_equal(capture_reconcile(&c, NULL), 0);
	assert_int_equal(capture_write(&c, *state), 0);
	char *log = slurp(*state, "console.log");
	char *tlog = slurp(*state, "console.tlog");
	assert_string_equal(log, "");
	assert_string_equal(tlog, "");
	free(log), free(tlog);
	capture_release(&c);
}

static void stream_that_missed_the_start_takes_the_log_file(void **state)
{
	char *serial = xasprintf("%s/serial", (char *)*state);
	const char *full = "early 1\nearly 2\nlate\n";
	assert_int_equal(write_file_atomic(serial, full, strlen(full)), 0);
	struct capture c;
	capture_init(&c);
	capture_feed(&c, "late\n", 5, 3.0);
	assert_int_equal(capture_reconcile(&c, serial), 16);
	assert_int_equal(c.recovered, 16);
	assert_int_equal(capture_write(&c, *state), 0);
	char *log = slurp(*state, "console.log");
	char *tlog = slurp(*state, "console.tlog");
	assert_string_equal(log, full);
	assert_string_equal(tlog, "[0003.000000] early 1\n[0003.000000] early 2\n[0003.000000] late\n");
	free(log), free(tlog), free(serial);
	capture_release(&c);
}

/* A daemon's console stream ended seconds before its domain did (CI, a
 * loaded host): the log file's rest is appended, stamped no earlier than
 * the stream's last byte, and recovered_tail tells the judge what it has
 * not read. */
static void stream_that_lost_the_end_takes_the_rest(void **state)
{
	char *serial = xasprintf("%s/serial", (char *)*state);
	const char *full = "Linux version 6.1\nTEST start\nTEST end\nEND\n";
	assert_int_equal(write_file_atomic(serial, full, strlen(full)), 0);
	struct capture c;
	capture_init(&c);
	capture_feed(&c, "Linux version 6.1\n", 18, 1.0);
	capture_feed(&c, "TEST start\n", 11, 2.5);
	assert_int_equal(capture_reconcile(&c, serial), 13);
	assert_int_equal(c.recovered, 13);
	assert_int_equal(c.recovered_tail, 13);
	assert_memory_equal(c.raw.buf + c.raw.len - c.recovered_tail, "TEST end\nEND\n", 13);
	assert_int_equal(capture_write(&c, *state), 0);
	char *log = slurp(*state, "console.log");
	char *tlog = slurp(*state, "console.tlog");
	assert_string_equal(log, full);
	assert_string_equal(tlog, "[0001.000000] Linux version 6.1\n[0002.500000] TEST start\n"
				  "[0002.500000] TEST end\n[0002.500000] END\n");
	free(log), free(tlog), free(serial);
	capture_release(&c);
}

/* A stream that gave nothing at all: the whole log is its tail. */
static void empty_stream_takes_the_whole_log_as_its_tail(void **state)
{
	char *serial = xasprintf("%s/serial", (char *)*state);
	assert_int_equal(write_file_atomic(serial, "SeaBIOS\n", 8), 0);
	struct capture c;
	capture_init(&c);
	assert_int_equal(capture_reconcile(&c, serial), 8);
	assert_int_equal(c.recovered_tail, 8);
	assert_int_equal(capture_write(&c, *state), 0);
	char *tlog = slurp(*state, "console.tlog");
	assert_string_equal(tlog, "[0000.000000] SeaBIOS\n");
	free(tlog), free(serial);
	capture_release(&c);
}

static void shorter_or_missing_log_file_changes_nothing(void **state)
{
	char *serial = xasprintf("%s/serial", (char *)*state);
	assert_int_equal(write_file_atomic(serial, "abc", 3), 0);
	struct capture c;
	capture_init(&c);
	capture_feed(&c, "abcdef\n", 7, 1.0);
	assert_int_equal(capture_reconcile(&c, serial), 0);
	assert_int_equal(capture_reconcile(&c, "/nonexistent/serial"), 0);
	assert_int_equal(c.raw.len, 7);
	assert_string_equal(c.raw.buf, "abcdef\n");
	free(serial);
	capture_release(&c);
}

static void times_are_iso_8601_utc(void **state)
{
	(void)state;
	char buf[21];
	result_format_time(0, buf);
	assert_string_equal(buf, "1970-01-01T00:00:00Z");
	result_format_time(1795995000, buf);
	assert_string_equal(buf, "2026-11-29T23:30:00Z");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(lines_are_stamped_by_their_first_byte, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(empty_console_gives_empty_files, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(stream_that_missed_the_start_takes_the_log_file, make_dir,
						remove_dir),
		cmocka_unit_test_setup_teardown(stream_that_lost_the_end_takes_the_rest, make_dir,
						remove_dir),
		cmocka_unit_test_setup_teardown(empty_stream_takes_the_whole_log_as_its_tail, make_dir,
						remove_dir),
		cmocka_unit_test_setup_teardown(shorter_or_missing_log_file_changes_nothing, make_dir,
						remove_dir),
		cmocka_unit_test(times_are_iso_8601_utc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
