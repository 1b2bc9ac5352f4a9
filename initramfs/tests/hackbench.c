/*
 * hackbench: the scheduler and IPC stress of rt-tests' hackbench, with its
 * defaults: 10 groups of 20 senders and 20 receivers; each sender writes
 * `loops` messages of `datasize` bytes to every receiver of its group.
 * Knobs: groups= fds= loops= datasize=, pipe=1 (pipes instead of
 * socketpairs), threads=1 (threads over raw clone instead of processes).
 *
 * All tasks are created first and wait on a start pipe; the clock runs from
 * the start signal until the last task is reaped or joined.
 *
 * Metrics: `time` (seconds a run, better=lower) and `throughput`, the
 * kernel test robot's figure: tasks x loops x datasize / 1024 / seconds
 * (KiB/s a run, better=higher; its max is the robot's "best time" value).
 * A run is long under TCG, so the run count is bounded by time: at most
 * `samples` runs, no new run once budget_s= (default 30) seconds are
 * spent, always at least one.
 *
 * A default run (400 tasks, 100 loops) takes about a second on hardware but
 * minutes under TCG, past any sane test timeout. So, unless loops= is
 * given, two short runs (1 and 3 loops) fit time = fixed + per-loop x
 * loops; when the full count would take more than a third of the budget,
 * loops drops to 10, or 1 if 10 does not fit either (few, coarse steps, so
 * that two kernels on one host pick the same count), a LOG line says
 * so, and the metrics are named for it (time_l10, throughput_l10): a run
 * of another loop count is another quantity, never compared with this one.
 */
#include "bench.h"
#include "profile.h"

#define MAX_FDS 64
#define MAX_TASKS 4096
#define THREAD_STACK (32u << 10)

struct hack {
	int groups, fds;
	long loops, datasize;
	bool pipes, threads;
	int start[2];             /* tasks block reading one byte of it */
	long err;                 /* first failure */
};

/* What one task needs: its role and its descriptors. */
struct task {
	struct hack *h;
	bool sender;
	int in;                   /* receiver: its read end */
	int out[MAX_FDS];         /* sender: the write ends of its group */
};

/* Waits for the start byte; false when the start pipe broke. */
static bool wait_start(struct hack *h)
{
	char byte;
	return rt_read(h->start[0], &byte, 1) == 1;
}

/* Writes n bytes fully; false on error. */
static bool write_full(int fd, const char *buf, long n)
{
	return rt_write_all(fd, buf, (size_t)n) == n;
}

/* A sender: loops x fds messages, round robin over the receivers. */
static int run_sender(struct task *t)
{
	char data[4096];
	struct hack *h = t->h;
	memset(data, 's', sizeof data);
	if (!wait_start(h))
		return 2;
	for (long i = 0; i < h->loops; i++)
		for (int j = 0; j < h->fds; j++)
			if (!write_full(t->out[j], data, h->datasize))
				return 3;
	return 0;
}

/* A receiver: reads loops x fds messages' worth of bytes. */
static int run_receiver(struct task *t)
{
	char data[4096];
	struct hack *h = t->h;
	long left = h->loops * h->fds * h->datasize;
	if (!wait_start(h))
		return 2;
	while (left > 0) {
		long n = rt_read(t->in, data, left < (long)sizeof data ? (size_t)left : sizeof data);
		if (n <= 0)
			return 4;
		left -= n;
	}
	return 0;
}

/* The entry of a task, thread or process. */
static int task_main(void *arg)
{
	struct task *t = arg;
	return t->sender ? run_sender(t) : run_receiver(t);
}

/* The running tasks of one run, and the channel ends the parent holds
 * (a process closes its copies per group; threads share them, so they are
 * closed after the run). */
struct crew {
	int n;
	long pids[MAX_TASKS];
	struct rt_thread *threads;
	struct task *tasks;
	int nopen;
	int open[2 * MAX_TASKS];
};

/* Starts task t as a process or a thread; false (h->err set) on failure. */
static bool launch(struct hack *h, struct crew *w, struct task *t)
{
	int i = w->n;
	if (h->threads) {
		long r = rt_thread_start(&w->threads[i], task_main, t, THREAD_STACK);
		if (r < 0) {
			h->err = r;
			return false;
		}
	} else {
		long pid = rt_fork();
		if (pid == 0)
			rt_exit(task_main(t));
		if (pid < 0) {
			h->err = pid;
			return false;
		}
		w->pids[i] = pid;
	}
	w->n++;
	return true;
}

/* Closes the channel ends the parent still holds. */
static void close_open(struct crew *w)
{
	while (w->nopen > 0)
		rt_close(w->open[--w->nopen]);
}

/* Creates one group's channels and tasks. */
static bool start_group(struct hack *h, struct crew *w)
{
	int ends[MAX_FDS][2];
	for (int i = 0; i < h->fds; i++) {
		long r = h->pipes ? rt_pipe2(ends[i], 0) : rt_socketpair(AF_UNIX, SOCK_STREAM, 0, ends[i]);
		if (r < 0) {
			h->err = r;
			return false;
		}
		w->open[w->nopen++] = ends[i][0];
		w->open[w->nopen++] = ends[i][1];
	}
	for (int i = 0; i < 2 * h->fds; i++) {
		struct task *t = &w->tasks[w->n];
		t->h = h;
		t->sender = i >= h->fds;
		t->in = ends[i % h->fds][0];
		for (int j = 0; t->sender && j < h->fds; j++)
			t->out[j] = ends[j][1];
		if (!launch(h, w, t))
			return false;
	}
	if (!h->threads)
		close_open(w);
	return true;
}

/* Waits for every task; returns the number that failed. */
static int reap_all(struct hack *h, struct crew *w)
{
	int failed = 0;
	for (int i = 0; i < w->n; i++) {
		if (h->threads) {
			failed += rt_thread_join(&w->threads[i]) != 0;
		} else {
			int status = 0;
			long r = rt_waitpid((pid_t)w->pids[i], &status, 0);
			failed += r < 0 || status != 0;
		}
	}
	return failed;
}

/* After a failed set-up: ends the processes already started (they would
 * wait for a start or for peers that never came). Threads cannot be killed
 * one by one: closing their channels ends them instead. */
static void abort_crew(struct hack *h, struct crew *w)
{
	if (h->threads)
		return;
	for (int i = 0; i < w->n; i++) {
		int status;
		rt_kill((pid_t)w->pids[i], SIGKILL);
		rt_waitpid((pid_t)w->pids[i], &status, 0);
	}
	w->n = 0;
}

/* One run of the whole benchmark; the time from the start signal to the
 * end of the last task is what counts (the set-up before it is returned
 * as excluded time). */
static uint64_t run_once(void *ctx, unsigned long iters)
{
	static struct crew w;
	static char go[MAX_TASKS];
	struct hack *h = ctx;
	int tasks = h->groups * h->fds * 2;
	uint64_t t_begin = rt_now_ns();
	(void)iters;
	w.n = 0;
	if (!w.tasks) {
		w.tasks = rt_alloc(sizeof *w.tasks * (size_t)tasks);
		w.threads = rt_alloc(sizeof *w.threads * (size_t)tasks);
		if (!w.tasks || !w.threads) {
			h->err = -ENOMEM;
			return 0;
		}
	}
	long r = rt_pipe2(h->start, O_CLOEXEC);
	if (r < 0) {
		h->err = r;
		return 0;
	}
	for (int g = 0; g < h->groups && !h->err; g++)
		start_group(h, &w);
	if (h->err) {
		/* Processes are killed; threads see their channels closed
		 * and end with an error once started. */
		abort_crew(h, &w);
		close_open(&w);
	}
	uint64_t t_start = rt_now_ns();
	/* One start byte per task (far below a pipe's capacity). */
	if (rt_write_all(h->start[1], go, (size_t)w.n) != w.n && !h->err)
		h->err = -EPIPE;
	if (reap_all(h, &w) && !h->err)
		h->err = -EIO;
	close_open(&w);
	rt_close(h->start[0]);
	rt_close(h->start[1]);
	return t_start - t_begin;
}

/* Times one run of `loops` loops (the set-up not counted), in ns. */
static double time_loops(struct hack *h, long loops)
{
	long keep = h->loops;
	h->loops = loops;
	uint64_t t0 = rt_now_ns();
	uint64_t excluded = run_once(h, 1);
	uint64_t ns = rt_now_ns() - t0;
	h->loops = keep;
	return (double)(ns > excluded ? ns - excluded : 0);
}

/* The loop count a run can afford: h->loops when the fitted model predicts
 * the full run within limit_ns, else the largest smaller step that fits. */
static long loops_that_fit(struct bench *b, struct hack *h, uint64_t limit_ns)
{
	static const long steps[] = { 10, 1 };
	double t1 = time_loops(h, 1), t3 = time_loops(h, 3);
	double per_loop = t3 > t1 ? (t3 - t1) / 2 : t3 / 3;
	double fixed = t1 > per_loop ? t1 - per_loop : 0;
	if (h->err || fixed + per_loop * (double)h->loops <= (double)limit_ns)
		return h->loops;
	long fit = 1;
	for (unsigned i = 0; i < sizeof steps / sizeof *steps; i++)
		if (steps[i] < h->loops && fixed + per_loop * (double)steps[i] <= (double)limit_ns) {
			fit = steps[i];
			break;
		}
	bench_log(b, "hackbench: %ld loops would take about %.1f s a run here; running %ld loops "
		  "(knob loops= to force a count)", h->loops,
		  (fixed + per_loop * (double)h->loops) / 1e9, fit);
	return fit;
}

int main(int argc, char **argv)
{
	struct bench b;
	struct hack h;
	struct bench_run r;
	double secs[BENCH_MAX_SAMPLES], kib_s[BENCH_MAX_SAMPLES];

	bench_init(&b, argc, argv, "hackbench");
	memset(&h, 0, sizeof h);
	h.groups = (int)bench_knob_long(&b, "groups", 10, 1, 1000);
	h.fds = (int)bench_knob_long(&b, "fds", 20, 1, MAX_FDS - 1);
	h.loops = bench_knob_long(&b, "loops", 100, 1, 100000000);
	h.datasize = bench_knob_long(&b, "datasize", 100, 1, 4096);
	h.pipes = bench_knob_long(&b, "pipe", 0, 0, 1);
	h.threads = bench_knob_long(&b, "threads", 0, 0, 1);
	uint64_t budget = 1000000000ull * (uint64_t)bench_knob_long(&b, "budget_s", 30, 1, 100000);
	long tasks = (long)h.groups * h.fds * 2;
	if (tasks > MAX_TASKS)
		bench_fail(&b, "%ld tasks: at most %d", tasks, MAX_TASKS);

	bench_log(&b, "hackbench: %s mode, %d groups, %d %s each (== %ld tasks), %ld loops, %ld bytes",
		  h.threads ? "thread" : "process", h.groups, 2 * h.fds,
		  h.pipes ? "pipe fds" : "socketpair fds", tasks, h.loops, h.datasize);
	long configured = h.loops;
	if (!bench_knob(&b, "loops"))
		h.loops = loops_that_fit(&b, &h, budget / 3);
	char time_name[32] = "time", rate_name[32] = "throughput";
	if (h.loops != configured) {
		rt_snprintf(time_name, sizeof time_name, "time_l%ld", h.loops);
		rt_snprintf(rate_name, sizeof rate_name, "throughput_l%ld", h.loops);
	}
	bench_time_fixed(&b, run_once, &h, budget, &r);
	if (h.err)
		bench_fail(&b, "a run failed: %s", rt_errname((int)-h.err));
	for (int i = 0; i < r.n; i++) {
		secs[i] = r.ns_per_op[i] / 1e9;
		kib_s[i] = (double)tasks * (double)h.loops * (double)h.datasize / 1024.0 / secs[i];
	}
	bench_report(&b, time_name, "s", false, secs, r.n, &r);
	bench_report(&b, rate_name, "KiB/s", true, kib_s, r.n, &r);
	/* One profile pass for the two metrics of the one measurement. */
	const char *const names[] = { time_name, rate_name };
	bench_profile_fixed(&b, names, 2, run_once, &h, (uint64_t)bench_median(r.ns_per_op, r.n));
	if (h.err)
		bench_fail(&b, "a run failed: %s", rt_errname((int)-h.err));
	return 0;
}
