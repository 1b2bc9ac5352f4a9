/*
 * lat_syscall: lmbench's system call latencies, in microseconds per call.
 *
 *   null        getppid()
 *   read        read 1 byte from /dev/zero
 *   write       write 1 byte to /dev/null
 *   stat        stat() of a file in the image
 *   fstat       fstat() of that file, open
 *   open_close  open() + close() of that file
 *
 * The file is /bench/data/file (the builder puts it in the image), or the
 * knob file=PATH; when missing, one is created under /tmp (a LOG line says
 * so) and removed at the end.
 *
 * Knob slow_null=PCT: a known regression for compare's tests. Each null
 * call also burns a fixed amount of extra work, calibrated once to PCT
 * percent of the null call's own time, so the null metric is about PCT
 * percent slower. The other metrics are unchanged.
 */
#include "bench.h"

#define IMAGE_FILE "/bench/data/file"

struct syscall_ctx {
	int fd;                   /* /dev/zero, /dev/null or the file */
	const char *path;         /* the file */
	unsigned long spin;       /* extra work per null call (slow_null) */
	long err;                 /* first failure of a call in a loop */
	const char *failed;       /* which call failed */
};

/* Records the first failing call of a loop. */
static void note_error(struct syscall_ctx *c, long r, const char *what)
{
	if (r < 0 && !c->err) {
		c->err = r;
		c->failed = what;
	}
}

/* null: getppid(), plus the slow_null extra work. */
static uint64_t loop_null(void *ctx, unsigned long iters)
{
	struct syscall_ctx *c = ctx;
	for (unsigned long i = 0; i < iters; i++) {
		rt_getppid();
		if (c->spin)
			bench_spin(c->spin);
	}
	return 0;
}

/* read: one byte from c->fd (/dev/zero). */
static uint64_t loop_read(void *ctx, unsigned long iters)
{
	struct syscall_ctx *c = ctx;
	char byte;
	for (unsigned long i = 0; i < iters; i++)
		if (rt_read(c->fd, &byte, 1) != 1)
			note_error(c, -EIO, "read /dev/zero");
	return 0;
}

/* write: one byte to c->fd (/dev/null). */
static uint64_t loop_write(void *ctx, unsigned long iters)
{
	struct syscall_ctx *c = ctx;
	char byte = 0;
	for (unsigned long i = 0; i < iters; i++)
		if (rt_write(c->fd, &byte, 1) != 1)
			note_error(c, -EIO, "write /dev/null");
	return 0;
}

/* stat: stat() of c->path. */
static uint64_t loop_stat(void *ctx, unsigned long iters)
{
	struct syscall_ctx *c = ctx;
	struct rt_stat st;
	for (unsigned long i = 0; i < iters; i++)
		note_error(c, rt_stat(c->path, &st), "stat");
	return 0;
}

/* fstat: fstat() of c->fd (the file). */
static uint64_t loop_fstat(void *ctx, unsigned long iters)
{
	struct syscall_ctx *c = ctx;
	struct rt_stat st;
	for (unsigned long i = 0; i < iters; i++)
		note_error(c, rt_fstat(c->fd, &st), "fstat");
	return 0;
}

/* open_close: open() then close() of c->path. */
static uint64_t loop_open_close(void *ctx, unsigned long iters)
{
	struct syscall_ctx *c = ctx;
	for (unsigned long i = 0; i < iters; i++) {
		long fd = rt_open(c->path, O_RDONLY, 0);
		note_error(c, fd, "open");
		if (fd >= 0)
			rt_close((int)fd);
	}
	return 0;
}

/* spin: bench_spin(iters), to price one unit of slow_null's extra work. */
static uint64_t loop_spin(void *ctx, unsigned long iters)
{
	(void)ctx;
	bench_spin(iters);
	return 0;
}

/* Opens path for the loops, dying with a clear message. */
static int open_or_die(struct bench *b, const char *path, int flags)
{
	long fd = rt_open(path, flags | O_CLOEXEC, 0);
	if (fd < 0)
		bench_fail(b, "open %s: %s", path, rt_errname((int)-fd));
	return (int)fd;
}

/* The file the stat/fstat/open_close metrics use: the knob, the image's
 * file, or a new one under /tmp (written into tmp, which is then set). */
static const char *pick_file(struct bench *b, char *tmp, size_t size)
{
	struct rt_stat st;
	const char *path = bench_knob(b, "file");
	if (path)
		return path;
	if (rt_stat(IMAGE_FILE, &st) == 0)
		return IMAGE_FILE;
	rt_snprintf(tmp, size, "/tmp/bootrig-lat_syscall.%ld", rt_getpid());
	int fd = open_or_die(b, tmp, O_WRONLY | O_CREAT | O_TRUNC);
	bench_check(b, rt_write_all(fd, "bootrig lat_syscall\n", 20), "write the /tmp file");
	rt_close(fd);
	bench_log(b, "lat_syscall: %s is missing; using %s", IMAGE_FILE, tmp);
	return tmp;
}

/* slow_null: the spin units that cost pct percent of null_ns. */
static unsigned long slow_null_units(struct bench *b, double null_ns, long pct)
{
	struct bench_run r;
	struct bench_rule rule = b->rule;
	b->rule.min = b->rule.max = 3;
	bench_price(b, loop_spin, NULL, &r);
	b->rule = rule;
	double unit_ns = bench_median(r.ns_per_op, r.n);
	unsigned long units = (unsigned long)(null_ns * (double)pct / 100.0 / unit_ns + 0.5);
	bench_log(b, "lat_syscall: slow_null=%ld: %lu extra spin units per null call "
		  "(%.4f ns each, null %.4f ns)", pct, units, unit_ns, null_ns);
	return units;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "null", "read", "write", "stat", "fstat", "open_close" };
	static const bench_loop_fn loops[] = { loop_null, loop_read, loop_write, loop_stat, loop_fstat,
					       loop_open_close };
	enum { N = sizeof names / sizeof *names };
	struct bench b;
	struct syscall_ctx c[N];
	struct bench_metric set[N];
	char tmp[96] = "";

	bench_init(&b, argc, argv, "lat_syscall");
	memset(c, 0, sizeof c);
	const char *path = pick_file(&b, tmp, sizeof tmp);
	for (int m = 0; m < N; m++) {
		c[m].fd = -1;
		c[m].path = path;
		set[m] = (struct bench_metric){ names[m], "us", loops[m], &c[m], BENCH_RUN_INIT };
	}
	c[1].fd = open_or_die(&b, "/dev/zero", O_RDONLY);
	c[2].fd = open_or_die(&b, "/dev/null", O_WRONLY);
	c[4].fd = open_or_die(&b, path, O_RDONLY);

	long slow_pct = bench_knob_long(&b, "slow_null", 0, 0, 100000);
	if (slow_pct) {
		/* Price the null call and the spin unit quietly first. */
		struct bench_run r;
		bench_price(&b, loop_null, &c[0], &r);
		c[0].spin = slow_null_units(&b, bench_median(r.ns_per_op, r.n), slow_pct);
	}
	/* The six are measured together, their sub-runs interleaved. */
	bench_latency_set(&b, set, N);
	for (int m = 0; m < N; m++) {
		if (c[m].err)
			bench_fail(&b, "%s: %s: %s", names[m], c[m].failed, rt_errname((int)-c[m].err));
		if (c[m].fd >= 0)
			rt_close(c[m].fd);
	}
	if (tmp[0])
		rt_unlink(tmp);
	return 0;
}
