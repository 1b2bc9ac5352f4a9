/*
 * lat_proc: lmbench's process creation times, in microseconds.
 *
 *   fork   fork(), the child exits at once, the parent waits for it
 *   exec   fork(), the child execs the tiny static program `probe` (which
 *          exits 0), the parent waits for it
 *
 * probe is /bench/<abi>/probe in the image (knob probe=PATH; run from a
 * build tree, the one beside this binary). Where that binary cannot be
 * executed at all (ENOEXEC: qemu-user without binfmt_misc), the exec metric
 * is left out and a LOG line says why; any other exec failure fails the
 * test.
 */
#include "bench.h"

/* A child whose execve failed exits with EXEC_FAILED + errno. */
#define EXEC_FAILED 128

struct proc_ctx {
	const char *probe;
	int status;               /* first abnormal wait status, else 0 */
	long err;
};

/* Waits for pid and keeps the first bad status in c. */
static void reap(struct proc_ctx *c, long pid)
{
	int status = 0;
	long r = rt_waitpid((pid_t)pid, &status, 0);
	if (r < 0 && !c->err)
		c->err = r;
	if (r >= 0 && status != 0 && !c->status)
		c->status = status;
}

/* fork: a child that exits at once. */
static uint64_t loop_fork(void *ctx, unsigned long iters)
{
	struct proc_ctx *c = ctx;
	for (unsigned long i = 0; i < iters; i++) {
		long pid = rt_fork();
		if (pid == 0)
			rt_exit(0);
		if (pid < 0) {
			c->err = pid;
			return 0;
		}
		reap(c, pid);
	}
	return 0;
}

/* Runs probe in a new child; returns its pid or -errno from fork. */
static long spawn_probe(const char *probe)
{
	long pid = rt_fork();
	if (pid == 0) {
		char *argv[] = { (char *)"probe", NULL };
		char *envp[] = { NULL };
		long r = rt_execve(probe, argv, envp);
		rt_exit(EXEC_FAILED + (int)(-r & 0x7f));
	}
	return pid;
}

/* exec: fork + execve(probe) + wait. */
static uint64_t loop_exec(void *ctx, unsigned long iters)
{
	struct proc_ctx *c = ctx;
	for (unsigned long i = 0; i < iters; i++) {
		long pid = spawn_probe(c->probe);
		if (pid < 0) {
			c->err = pid;
			return 0;
		}
		reap(c, pid);
	}
	return 0;
}

/* Dies when a loop saw a failure. */
static void check_ctx(struct bench *b, struct proc_ctx *c, const char *what)
{
	if (c->err)
		bench_fail(b, "%s: %s", what, rt_errname((int)-c->err));
	if (c->status)
		bench_fail(b, "%s: a child ended with status 0x%x", what, c->status);
}

/* Runs probe once: true when it can be measured, false (with a LOG line)
 * when the system cannot execute it at all; dies on other failures. */
static bool probe_runs(struct bench *b, struct proc_ctx *c)
{
	int status = 0;
	long pid = bench_check(b, spawn_probe(c->probe), "fork");
	bench_check(b, rt_waitpid((pid_t)pid, &status, 0), "waitpid");
	if (status == 0)
		return true;
	if (WIFEXITED(status) && WEXITSTATUS(status) >= EXEC_FAILED) {
		int err = WEXITSTATUS(status) - EXEC_FAILED;
		if (err == ENOEXEC) {
			bench_log(b, "lat_proc: exec metric left out: %s cannot be executed "
				  "here (ENOEXEC)", c->probe);
			return false;
		}
		bench_fail(b, "execve %s: %s", c->probe, rt_errname(err));
	}
	bench_fail(b, "%s ended with status 0x%x (expected exit 0)", c->probe, status);
}

int main(int argc, char **argv)
{
	struct bench b;
	struct proc_ctx c;
	char probe[256];

	bench_init(&b, argc, argv, "lat_proc");
	memset(&c, 0, sizeof c);
	c.probe = bench_probe_path(&b, probe, sizeof probe);
	struct bench_metric set[] = {
		{ "fork", "us", loop_fork, &c, BENCH_RUN_INIT },
		{ "exec", "us", loop_exec, &c, BENCH_RUN_INIT },
	};
	/* fork and exec are measured together, their sub-runs interleaved. */
	bench_latency_set(&b, set, probe_runs(&b, &c) ? 2 : 1);
	check_ctx(&b, &c, "fork/exec");
	return 0;
}
