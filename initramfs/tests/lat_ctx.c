/*
 * lat_ctx: lmbench's context switch time. `procs` processes (knob procs=,
 * default 2) form a ring of pipes and pass a token around it; each process
 * touches `size` bytes of its own memory (knob size=, e.g. 16k; default 0)
 * before passing it on. One lap is `procs` context switches.
 *
 * Like lmbench, the cost of the pipe write+read a hop needs is measured in
 * a single process (no switch) and taken away: the metric is microseconds
 * per switch, named ctx_<procs>p_<size in KiB>k (ctx_2p_0k). The laps and
 * the overhead are measured interleaved (bench_time_derived), so both see
 * the same conditions, and sampled until the difference's interval, not
 * the lap's, meets the target; a sample where the difference is not
 * positive (noise larger than a switch) counts as 0.
 */
#include "bench.h"
#include "profile.h"

#define MAX_PROCS 64

struct ring_ctx {
	int procs;
	int fds[MAX_PROCS][2];    /* fds[i]: pipe into process i */
	int self[2];              /* the overhead's pipe, this process only */
	long size;                /* bytes each process touches per hop */
	volatile uint32_t *work;  /* the parent's own working set */
	long err;
};

/* Touches size bytes of work, as each process does on a hop. */
static void touch(volatile uint32_t *work, long size)
{
	for (long i = 0; i < size / 4; i++)
		work[i] = work[i] + 1;
}

/* One ring member (i >= 1): token in on fds[i], out on fds[i+1].
 * Never returns. */
static void ring_member(struct ring_ctx *c, int i)
{
	int in = c->fds[i][0], out = c->fds[(i + 1) % c->procs][1];
	volatile uint32_t *work = NULL;
	uint32_t token;
	if (c->size) {
		work = rt_alloc_pages((size_t)c->size);
		if (!work)
			rt_exit(2);
	}
	for (int k = 0; k < c->procs; k++) {
		if (c->fds[k][0] != in)
			rt_close(c->fds[k][0]);
		if (c->fds[k][1] != out)
			rt_close(c->fds[k][1]);
	}
	for (;;) {
		long n = rt_read(in, &token, sizeof token);
		if (n == 0)
			rt_exit(0);
		if (n != (long)sizeof token)
			rt_exit(1);
		touch(work, c->size);
		if (rt_write(out, &token, sizeof token) != (long)sizeof token)
			rt_exit(1);
	}
}

/* One lap of the token around the ring (procs switches). */
static uint64_t loop_lap(void *ctx, unsigned long iters)
{
	struct ring_ctx *c = ctx;
	uint32_t token = 1;
	for (unsigned long i = 0; i < iters; i++) {
		touch(c->work, c->size);
		if (rt_write(c->fds[1][1], &token, sizeof token) != (long)sizeof token ||
		    rt_read(c->fds[0][0], &token, sizeof token) != (long)sizeof token) {
			c->err = -EPIPE;
			return 0;
		}
	}
	return 0;
}

/* The figure of round i: microseconds a switch, the lap less procs hops'
 * overhead (0 when the noise is larger than a switch). */
static double per_switch_us(const struct bench_metric *set, int i, void *ctx)
{
	const struct ring_ctx *c = ctx;
	double ns = (set[0].run.ns_per_op[i] - c->procs * set[1].run.ns_per_op[i]) / c->procs;
	return (ns > 0 ? ns : 0) / 1e3;
}

/* The overhead of one hop without a switch: a write and a read on a pipe
 * of this process, and the memory touch. */
static uint64_t loop_overhead(void *ctx, unsigned long iters)
{
	struct ring_ctx *c = ctx;
	int *p = c->self;
	uint32_t token = 1;
	for (unsigned long i = 0; i < iters; i++) {
		touch(c->work, c->size);
		if (rt_write(p[1], &token, sizeof token) != (long)sizeof token ||
		    rt_read(p[0], &token, sizeof token) != (long)sizeof token) {
			c->err = -EPIPE;
			return 0;
		}
	}
	return 0;
}

/* Forks members 1..procs-1 and keeps the parent's ends (fds[0] read,
 * fds[1] write). Returns the pids in pids[]. */
static void start_ring(struct bench *b, struct ring_ctx *c, long *pids)
{
	for (int i = 0; i < c->procs; i++)
		bench_check(b, rt_pipe2(c->fds[i], O_CLOEXEC), "pipe2");
	for (int i = 1; i < c->procs; i++) {
		pids[i] = bench_check(b, rt_fork(), "fork");
		if (pids[i] == 0)
			ring_member(c, i);
	}
	for (int k = 0; k < c->procs; k++) {
		if (k != 0)
			rt_close(c->fds[k][0]);
		if (k != 1 % c->procs)
			rt_close(c->fds[k][1]);
	}
}

int main(int argc, char **argv)
{
	struct bench b;
	struct ring_ctx c;
	long pids[MAX_PROCS];
	double per_switch[BENCH_MAX_SAMPLES];
	char name[48];

	bench_init(&b, argc, argv, "lat_ctx");
	memset(&c, 0, sizeof c);
	c.procs = (int)bench_knob_long(&b, "procs", 2, 2, MAX_PROCS);
	c.size = bench_knob_size(&b, "size", 0, 0, 64l << 20) & ~3l;
	c.work = rt_alloc_pages((size_t)c.size + 4);
	if (!c.work)
		bench_fail(&b, "no memory for %ld bytes", c.size);

	bench_check(&b, rt_pipe2(c.self, O_CLOEXEC), "pipe2");
	start_ring(&b, &c, pids);
	struct bench_metric set[] = {
		{ "lap", "us", loop_lap, &c, BENCH_RUN_INIT },
		{ "overhead", "us", loop_overhead, &c, BENCH_RUN_INIT },
	};
	enum bench_stop stop;
	int n = bench_time_derived(&b, set, 2, per_switch_us, &c, per_switch, &stop);
	struct bench_run *lap = &set[0].run, *over = &set[1].run;
	double overhead_ns = bench_median(over->ns_per_op, over->n);
	rt_snprintf(name, sizeof name, "ctx_%dp_%ldk", c.procs, c.size >> 10);
	bench_report(&b, name, "us", false, per_switch, n, lap);
	bench_profile(&b, name, loop_lap, &c, lap->iters);    /* the lap loop, overhead included */
	bench_log(&b, "lat_ctx: %d processes, %ld bytes each: lap %.4f us, hop overhead %.4f us",
		  c.procs, c.size, bench_median(lap->ns_per_op, lap->n) / 1e3, overhead_ns / 1e3);

	rt_close(c.fds[1 % c.procs][1]);
	rt_close(c.fds[0][0]);
	rt_close(c.self[0]);
	rt_close(c.self[1]);
	for (int i = 1; i < c.procs; i++) {
		int status = 0;
		bench_check(&b, rt_waitpid((pid_t)pids[i], &status, 0), "waitpid");
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			bench_fail(&b, "ring member %d failed (status 0x%x)", i, status);
	}
	if (c.err)
		bench_fail(&b, "the ring broke: %s", rt_errname((int)-c.err));
	return 0;
}
