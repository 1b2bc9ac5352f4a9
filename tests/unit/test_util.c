/*
 * test_util.c: lib/util.c: spawning with an argv and a timeout, atomic
 * writes, mkdir_p and the string buffer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static void test_run_argv_exit_status(void **state)
{
	(void)state;
	char *ok[] = { "true", NULL };
	char *fail[] = { "sh", "-c", "exit 7", NULL };
	char *missing[] = { "/nonexistent/bootrig-no-such-program", NULL };
	assert_int_equal(run_argv(ok, 0, -1, -1), 0);
	assert_int_equal(run_argv(ok, 5, -1, -1), 0);
	assert_int_equal(run_argv(fail, 5, -1, -1), 7);
	int devnull = open("/dev/null", O_WRONLY);
	assert_int_equal(run_argv(missing, 5, -1, devnull), 127);
	close(devnull);
}

static void test_run_argv_signal_and_timeout(void **state)
{
	(void)state;
	char *killed[] = { "sh", "-c", "kill -9 $$", NULL };
	assert_int_equal(run_argv(killed, 5, -1, -1), 128 + 9);
	/* The timeout kills the whole process group, grandchildren too. */
	char *slow[] = { "sh", "-c", "sleep 30 & sleep 30", NULL };
	assert_int_equal(run_argv(slow, 0.2, -1, -1), -2);
}

static void test_write_file_atomic(void **state)
{
	(void)state;
	char dir[] = "/tmp/bootrig-test-util-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *sub = xasprintf("%s/a/b/c", dir);
	assert_int_equal(mkdir_p(sub, 0755), 0);
	assert_int_equal(mkdir_p(sub, 0755), 0);
	char *path = xasprintf("%s/file", sub);
	assert_int_equal(write_file_atomic(path, "hello", 5), 0);
	assert_int_equal(write_file_atomic(path, "hi", 2), 0);
	char *data;
	size_t len;
	assert_int_equal(read_file(path, &data, &len), 0);
	assert_int_equal(len, 2);
	assert_string_equal(data, "hi");
	free(data);
	/* A directory that does not exist: an error, and nothing left. */
	char *bad = xasprintf("%s/missing/file", dir);
	assert_int_equal(write_file_atomic(bad, "x", 1), -1);
	unlink(path);
	char *cmd[] = { "rm", "-rf", dir, NULL };
	assert_int_equal(run_argv(cmd, 10, -1, -1), 0);
	free(bad);
	free(path);
	free(sub);
}

static void test_strbuf(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < 1000; i++)
		strbuf_addf(&sb, "%d,", i);
	strbuf_addstr(&sb, "end");
	assert_int_equal(sb.len, strlen(sb.buf));
	assert_memory_equal(sb.buf, "0,1,2,", 6);
	assert_string_equal(sb.buf + sb.len - 8, "998,999,end" + 3);
	strbuf_release(&sb);
	assert_null(sb.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_argv_exit_status),
		cmocka_unit_test(test_run_argv_signal_and_timeout),
		cmocka_unit_test(test_write_file_atomic),
		cmocka_unit_test(test_strbuf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
