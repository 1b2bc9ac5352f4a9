/*
 * test_util.c: lib/util.c: spawning with an argv and a timeout, atomic
 * writes, mkdir_p and the string buffer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spawn.h"
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

/* path holds text, no more and no less */
static void assert_file_holds(const char *path, const char *text)
{
	char *data;
	size_t len;
	assert_int_equal(read_file(path, &data, &len), 0);
	assert_int_equal(len, strlen(text));
	assert_string_equal(data, text);
	free(data);
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
	assert_file_holds(path, "hi");
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

/* The names in dir, but . and .. */
static int count_entries(const char *dir)
{
	int n = 0;
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static void test_write_cache_file(void **state)
{
	(void)state;
	char dir[] = "/tmp/bootrig-test-util-XXXXXX";
	assert_non_null(mkdtemp(dir));
	/* the parent directories are made; no temporary file is left */
	char *path = xasprintf("%s/cache/kind/key", dir);
	assert_int_equal(write_cache_file(path, "one", 3), 0);
	assert_int_equal(write_cache_file(path, "two", 3), 0);
	assert_file_holds(path, "two");
	char *kind = xasprintf("%s/cache/kind", dir);
	assert_int_equal(count_entries(kind), 1);
	/* where no directory can be made: -1, nothing left */
	assert_int_equal(write_cache_file("/proc/version/cache/key", "x", 1), -1);
	char *cmd[] = { "rm", "-rf", dir, NULL };
	assert_int_equal(run_argv(cmd, 10, -1, -1), 0);
	free(kind);
	free(path);
}

static void test_stat_stamp(void **state)
{
	(void)state;
	char path[] = "/tmp/bootrig-test-stamp-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "12345", 5), 5);
	struct stat before, after;
	assert_int_equal(fstat(fd, &before), 0);
	/* a file written just now has a stamp too young to trust */
	assert_true(stat_changed_lately(&before));
	/* a longer file: another stamp */
	assert_int_equal(write(fd, "6", 1), 1);
	assert_int_equal(fstat(fd, &after), 0);
	char *a = stat_stamp(&before), *b = stat_stamp(&after);
	assert_string_not_equal(a, b);
	free(b);
	/* the same stat, the same stamp */
	b = stat_stamp(&before);
	assert_string_equal(a, b);
	close(fd);
	unlink(path);
	free(a);
	free(b);
	/* a file of the base system is settled */
	struct stat old;
	assert_int_equal(stat("/usr/bin/env", &old), 0);
	assert_false(stat_changed_lately(&old));
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
	assert_string_equal(sb.buf + sb.len - 8, &"998,999,end"[3]);
	strbuf_release(&sb);
	assert_null(sb.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_argv_exit_status),
		cmocka_unit_test(test_run_argv_signal_and_timeout),
		cmocka_unit_test(test_write_file_atomic),
		cmocka_unit_test(test_write_cache_file),
		cmocka_unit_test(test_stat_stamp),
		cmocka_unit_test(test_strbuf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
