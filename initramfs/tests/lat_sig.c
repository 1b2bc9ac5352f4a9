/*
 * lat_sig: lmbench's signal costs, in microseconds.
 *
 *   install  rt_sigaction() of a handler for SIGUSR1
 *   catch    kill() of this process with SIGUSR1, the handler runs
 *
 * The handler counts its calls; the count must match the signals sent.
 * SA_SIGINFO is set so every ABI uses the rt signal frame (the one-int
 * handler ignores the extra arguments).
 */
#include "bench.h"

static volatile unsigned long caught;

/* The SIGUSR1 handler: counts. */
static void on_usr1(int sig)
{
	(void)sig;
	caught++;
}

struct sig_ctx {
	long pid;
	unsigned long sent;
	long err;
};

/* install: the same handler again and again, as lmbench does. */
static uint64_t loop_install(void *ctx, unsigned long iters)
{
	struct sig_ctx *c = ctx;
	for (unsigned long i = 0; i < iters; i++) {
		long r = rt_sigaction(SIGUSR1, on_usr1, SA_SIGINFO);
		if (r < 0)
			c->err = r;
	}
	return 0;
}

/* catch: a signal to ourselves, delivered before kill() returns. */
static uint64_t loop_catch(void *ctx, unsigned long iters)
{
	struct sig_ctx *c = ctx;
	for (unsigned long i = 0; i < iters; i++) {
		long r = rt_kill((pid_t)c->pid, SIGUSR1);
		if (r < 0)
			c->err = r;
		else
			c->sent++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bench b;
	struct sig_ctx c = { 0, 0, 0 };

	bench_init(&b, argc, argv, "lat_sig");
	c.pid = rt_getpid();
	bench_check(&b, rt_sigaction(SIGUSR1, on_usr1, SA_SIGINFO), "rt_sigaction");
	struct bench_metric set[] = {
		{ "install", "us", loop_install, &c, BENCH_RUN_INIT },
		{ "catch", "us", loop_catch, &c, BENCH_RUN_INIT },
	};
	bench_latency_set(&b, set, 2);
	if (c.err)
		bench_fail(&b, "signal call failed: %s", rt_errname((int)-c.err));
	if (caught != c.sent)
		bench_fail(&b, "sent %lu signals, the handler ran %lu times", c.sent, caught);
	return 0;
}
