/*
 * test_spawn.c: lib/spawn.h, the one way bootrig runs another program:
 * its environment, directory and descriptors, the wait with a time limit,
 * the kill of its group by PID, and a program that cannot be run.
 * (run_argv, built on it, is test_util.c's.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spawn.h"
#include "util.h"

/* What the child wrote to its stdout (through a pipe), its status in *rc. */
static char *output_of(struct spawn *sp, int *rc)
{
	int p[2];
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	sp->fd[1] = p[1];
	assert_int_equal(spawn_start(sp), 0);
	close(p[1]);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "");
	char buf[256];
	ssize_t n;
	while ((n = read(p[0], buf, sizeof(buf))) > 0)
		strbuf_add(&sb, buf, (size_t)n);
	close(p[0]);
	*rc = spawn_wait(sp, -1);
	assert_int_equal(sp->pid, 0);
	return sb.buf;
}

static void test_env_dir_and_fds(void **state)
{
	(void)state;
	char *argv[] = { "sh", "-c", "printf '%s %s ' \"$SPAWN_TEST\" \"$(pwd)\"; cat; echo err >&2", NULL };
	char *envp[] = { "SPAWN_TEST=given", "PATH=/usr/bin:/bin", NULL };
	struct spawn sp = SPAWN_INIT(argv);
	sp.envp = envp;
	sp.dir = "/";
	sp.fd[0] = SPAWN_DEVNULL;   /* cat reads nothing */
	sp.fd[2] = SPAWN_DEVNULL;   /* "err" goes nowhere */
	int rc;
	char *out = output_of(&sp, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "given / ");
	free(out);
}

static void test_exit_status_and_no_program(void **state)
{
	(void)state;
	char *seven[] = { "sh", "-c", "exit 7", NULL };
	struct spawn sp = SPAWN_INIT(seven);
	assert_int_equal(spawn_start(&sp), 0);
	assert_int_equal(spawn_wait(&sp, 5), 7);
	/* a program that is not there: 127 and the reason on its stderr */
	char *missing[] = { "/nonexistent/bootrig-no-such-program", NULL };
	struct spawn m = SPAWN_INIT(missing);
	int p[2];
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	m.fd[2] = p[1];
	assert_int_equal(spawn_start(&m), 0);
	close(p[1]);
	char buf[256] = "";
	size_t got = 0;
	for (ssize_t n; got < sizeof(buf) - 1 && (n = read(p[0], buf + got, sizeof(buf) - 1 - got)) > 0;)
		got += (size_t)n;   /* child_write_error writes in parts */
	close(p[0]);
	assert_non_null(strstr(buf, "cannot run /nonexistent/bootrig-no-such-program: No such file"));
	assert_int_equal(spawn_wait(&m, -1), 127);
	/* a directory that cannot be entered: 127 too */
	char *t[] = { "true", NULL };
	struct spawn d = SPAWN_INIT(t);
	d.dir = "/nonexistent";
	d.fd[2] = SPAWN_DEVNULL;
	assert_int_equal(spawn_start(&d), 0);
	assert_int_equal(spawn_wait(&d, -1), 127);
}

/* Is pid gone (or a zombie, its parent being the dead shell's reaper)? */
static bool gone(pid_t pid)
{
	char path[64], *text = NULL;
	size_t len;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_file(path, &text, &len) < 0)
		return true;
	bool zombie = strstr(text, ") Z ") != NULL;
	free(text);
	return zombie;
}

/* The time limit leaves the child running; a kill by PID ends its group,
 * grandchildren too. */
static void test_limit_and_kill(void **state)
{
	(void)state;
	/* the shell tells its background sleep's PID on fd 2 (the pipe) */
	char *argv[] = { "sh", "-c", "sleep 30 & echo $! >&2; exec 2>/dev/null; wait", NULL };
	int p[2];
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	struct spawn sp = SPAWN_INIT(argv);
	sp.own_group = true;
	sp.fd[2] = p[1];
	assert_int_equal(spawn_start(&sp), 0);
	close(p[1]);
	char buf[32] = "";
	assert_true(read(p[0], buf, sizeof(buf) - 1) > 0);
	close(p[0]);
	pid_t grandchild = (pid_t)atoi(buf);
	assert_true(grandchild > 0);
	double t0 = now_monotonic();
	assert_int_equal(spawn_wait(&sp, 0.2), SPAWN_RUNNING);
	assert_true(now_monotonic() - t0 >= 0.2);
	assert_int_equal(spawn_wait(&sp, 0), SPAWN_RUNNING);
	assert_false(gone(grandchild));
	assert_int_equal(spawn_kill(&sp, SIGKILL), 0);
	assert_int_equal(spawn_wait(&sp, 5), 128 + SIGKILL);
	for (int i = 0; i < 200 && !gone(grandchild); i++)
		usleep(10000);
	assert_true(gone(grandchild));
	assert_int_equal(spawn_kill(&sp, SIGKILL), -1);   /* waited for: no PID */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_env_dir_and_fds),
		cmocka_unit_test(test_exit_status_and_no_program),
		cmocka_unit_test(test_limit_and_kill),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
