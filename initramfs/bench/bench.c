/*
 * bench.c: the shared measuring method of the guest benchmarks (bench.h
 * has the contract). In order: argument and knob parsing, CPU pinning and
 * hardware counters, the timing core (calibration, warm-up, samples),
 * statistics, and the METRIC record.
 */
#include "bench.h"
#include "profile.h"

/* ------------------------------------------------------------------ */
/* Arguments and knobs.                                                 */

/* The last path component of p. */
static const char *base_name(const char *p)
{
	const char *slash = rt_strrchr(p, '/');
	return slash ? slash + 1 : p;
}

const char *bench_knob(const struct bench *b, const char *key)
{
	return rt_argval(b->argc, b->argv, key);
}

void bench_fail(const struct bench *b, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	rt_vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	rt_eprintf("%s: %s\n", b && b->test ? b->test : "bench", msg);
	rt_exit(1);
}

long bench_check(const struct bench *b, long ret, const char *what)
{
	if (ret < 0)
		bench_fail(b, "%s: %s", what, rt_errname((int)-ret));
	return ret;
}

long bench_fork_piped(const struct bench *b, int down[2], int up[2])
{
	bench_check(b, rt_pipe2(down, O_CLOEXEC), "pipe2");
	bench_check(b, rt_pipe2(up, O_CLOEXEC), "pipe2");
	long pid = bench_check(b, rt_fork(), "fork");
	rt_close(pid == 0 ? down[1] : down[0]);
	rt_close(pid == 0 ? up[0] : up[1]);
	return pid;
}

/* Parses a decimal number with an optional k/m/g suffix (when `suffixes`)
 * into *out; false when s is not entirely that. */
static bool parse_number(const char *s, bool suffixes, uint64_t *out)
{
	const char *end = rt_parse_u64(s, out);
	if (!end)
		return false;
	if (suffixes && *end) {
		unsigned shift = 0;
		switch (*end) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		default: return false;
		}
		if (*out > (UINT64_MAX >> shift))
			return false;
		*out <<= shift;
		end++;
	}
	return *end == '\0';
}

/* The shared body of bench_knob_long and bench_knob_size. */
static long knob_number(const struct bench *b, const char *key, long def, long min, long max,
			bool suffixes)
{
	const char *v = bench_knob(b, key);
	uint64_t n;
	if (!v)
		return def;
	if (!parse_number(v, suffixes, &n) || n < (uint64_t)min || n > (uint64_t)max)
		bench_fail(b, "bad knob %s=%s (expected a number from %ld to %ld)", key, v, min, max);
	return (long)n;
}

long bench_knob_long(const struct bench *b, const char *key, long def, long min, long max)
{
	return knob_number(b, key, def, min, max, false);
}

long bench_knob_size(const struct bench *b, const char *key, long def, long min, long max)
{
	return knob_number(b, key, def, min, max, true);
}

void bench_log(const struct bench *b, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	if (b && b->count_only)      /* the timed run said it already */
		return;
	va_start(ap, fmt);
	int n = rt_vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof line - 2)
		n = sizeof line - 2;
	line[n++] = '\n';
	rt_write_all(1, line, (size_t)n);
}

const char *bench_probe_path(const struct bench *b, char *buf, size_t size)
{
	const char *knob = bench_knob(b, "probe");
	struct rt_stat st;
	if (knob) {
		rt_strlcpy(buf, knob, size);
		return buf;
	}
	rt_snprintf(buf, size, "/bench/%s/probe", b->abi);
	if (rt_stat(buf, &st) == 0)
		return buf;
	/* Run from a build tree: build/guest/<abi>/<test> beside .../probe. */
	const char *self = b->argv[0];
	size_t dir = (size_t)(base_name(self) - self);
	rt_snprintf(buf, size, "%.*sprobe", (int)dir, self);
	return buf;
}

/* ------------------------------------------------------------------ */
/* CPU pinning and hardware counters.                                   */

/* Pins the process (and the children it will fork) to CPU 0, so a
 * multi-CPU guest does not migrate the measurement. */
static void pin_to_cpu0(struct bench *b)
{
	unsigned long mask[4] = { 1, 0, 0, 0 };
	long r = rt_sched_setaffinity(0, sizeof mask, mask);
	if (r < 0)
		bench_log(b, "%s: sched_setaffinity(CPU 0): %s; not pinned", b->test,
			  rt_errname((int)-r));
	b->pinned = r >= 0;
}

/* The clock (knobs from init, else measured here), the timer overhead of
 * this binary's ABI, and from them the sub-run length and count (bench.h,
 * step 0). */
static void size_subruns(struct bench *b)
{
	b->overhead_ns = UINT64_MAX;
	for (int i = 0; i < 32; i++) {
		uint64_t t0 = rt_now_ns(), d = rt_now_ns() - t0;
		if (d < b->overhead_ns)
			b->overhead_ns = d;
	}
	b->clock.res_ns = (uint64_t)bench_knob_long(b, "clock_res_ns", 1, 1, 1000000000l);
	b->clock.noise_ppm = (uint32_t)bench_knob_long(b, "clock_noise_ppm", 1000000, 0, 1000000);
	bool quiet = b->clock.noise_ppm <= BENCH_QUIET_PPM;
	b->quiet = quiet;
	uint64_t quiet_ns = 1000 * b->clock.res_ns;
	if (quiet_ns < BENCH_QUIET_SUBRUN_NS)
		quiet_ns = BENCH_QUIET_SUBRUN_NS;
	b->subrun_ns = quiet ? quiet_ns : 1000000ull * BENCH_DEFAULT_SAMPLE_MS;
	if (bench_knob(b, "sample_us"))
		b->subrun_ns = 1000ull * (uint64_t)bench_knob_long(b, "sample_us", 0, 1, 10000000);
	if (bench_knob(b, "sample_ms"))
		b->subrun_ns = 1000000ull * (uint64_t)bench_knob_long(b, "sample_ms", 0, 1, 10000);
	b->reps = (int)bench_knob_long(b, "reps", quiet ? BENCH_QUIET_REPS : BENCH_DEFAULT_REPS, 1,
				       100);
}

void bench_init(struct bench *b, int argc, char **argv, const char *test)
{
	memset(b, 0, sizeof *b);
	b->argc = argc;
	b->argv = argv;
	b->test = test;
	b->abi = bench_knob(b, "abi");
	if (!b->abi)
		b->abi = RT_ABI_NAME;
	b->samples = (int)bench_knob_long(b, "samples", BENCH_DEFAULT_SAMPLES, 1, BENCH_MAX_SAMPLES);
	b->rule.max = b->samples;
	b->rule.min = (int)bench_knob_long(b, "min_samples", BENCH_DEFAULT_MIN_SAMPLES, 1,
					   BENCH_MAX_SAMPLES);
	if (b->rule.min > b->rule.max)
		b->rule.min = b->rule.max;
	b->rule.target_pct = (double)bench_knob_long(b, "ci_bp", BENCH_DEFAULT_CI_BP, 0, 10000) / 100;
	if (bench_knob_long(b, "pin", 1, 0, 1))
		pin_to_cpu0(b);
	b->counters = bench_knob_long(b, "counters", 1, 0, 1);
	b->count_only = bench_knob_long(b, "count_only", 0, 0, 1);
	size_subruns(b);
	b->random_fd = b->quiet ? (int)rt_open("/dev/random", O_RDONLY | O_CLOEXEC, 0) : -1;
	bench_profile_init(b);
}

/* ------------------------------------------------------------------ */
/* Timing.                                                              */

/* Runs fn once for iters operations; returns the nanoseconds that count
 * (never 0). */
static uint64_t timed_run(struct bench *b, bench_loop_fn fn, void *ctx, unsigned long iters)
{
	uint64_t t0 = rt_now_ns();
	uint64_t excluded = fn(ctx, iters);
	uint64_t t1 = rt_now_ns();
	uint64_t ns = t1 - t0;
	excluded += b->overhead_ns;         /* the clock read's own cost */
	ns = excluded < ns ? ns - excluded : 1;
	return ns ? ns : 1;
}

/* RNDRESEEDCRNG (linux/random.h: _IO('R', 0x07)). */
#define BENCH_RNDRESEEDCRNG 0x5207

/* On a quiet clock, reseeds the kernel's random generator, so that what
 * the measured syscalls draw from it starts from empty batches (bench.h);
 * nothing when it cannot (not root, an old kernel). */
static void rng_reset(const struct bench *b)
{
	if (b->quiet && b->random_fd >= 0)
		rt_ioctl(b->random_fd, BENCH_RNDRESEEDCRNG, 0);
}

/* Finds the operation count that makes one run last at least
 * b->subrun_ns, within BENCH_CALIBRATE_MAX_NS: on a quiet clock the least
 * power of two whose fastest of BENCH_QUIET_CALIBRATE runs does (bench.h:
 * the same on every boot), else growing geometrically from single runs. */
static unsigned long calibrate(struct bench *b, bench_loop_fn fn, void *ctx)
{
	unsigned long iters = 1;
	const unsigned long max_iters = 1ul << 30;
	uint64_t start = rt_now_ns();
	/* A first run translates the loop (TCG) and faults its pages in: it
	 * would make one operation look long enough on a short sub-run. */
	timed_run(b, fn, ctx, 1);
	while (b->quiet) {
		uint64_t ns = UINT64_MAX;
		rng_reset(b);
		/* the counting run too: the fastest of BENCH_QUIET_CALIBRATE
		 * runs a step, so that it counts the timed run's iters (one run
		 * a step gave half of them in 2 of 3 boots on cloud-arm64, and
		 * a pass's per-operation counts carry its per-run costs: fstat's
		 * cpu-clock read 8 % more at 64 operations than at 128) */
		for (int k = 0; k < BENCH_QUIET_CALIBRATE; k++) {
			uint64_t t = timed_run(b, fn, ctx, iters);
			ns = t < ns ? t : ns;
		}
		if (ns >= b->subrun_ns || iters >= max_iters || rt_now_ns() - start > BENCH_CALIBRATE_MAX_NS)
			return iters;
		iters *= 2;
	}
	for (;;) {
		uint64_t ns = timed_run(b, fn, ctx, iters);
		if (ns >= b->subrun_ns || iters >= max_iters)
			return iters;
		if (rt_now_ns() - start > BENCH_CALIBRATE_MAX_NS)
			return iters;
		/* Aim 10% past the target; grow at most 16x a step (the
		 * first runs are the noisiest). */
		double want = (double)iters * rt_u64_double(b->subrun_ns) / rt_u64_double(ns) * 1.1 + 1;
		if (want > (double)iters * 16)
			want = (double)iters * 16;
		iters = want > (double)max_iters ? max_iters : (unsigned long)want;
	}
}

/* The counting pass of r's metric (perfstat.h), in the counting run
 * (knob count_only=1): runs calls of fn(ctx, r->iters), the events on
 * around each, after a reseed as a sample starts. */
static void count_pass(struct bench *b, bench_loop_fn fn, void *ctx, int runs, struct bench_run *r)
{
	rng_reset(b);
	pstat_pass(b->counters, b->pinned ? 0 : -1, fn, ctx, r->iters, runs, b->overhead_ns, &r->pstat);
}

/* The rounds of bench_time_set and bench_time_derived. With derive NULL
 * each metric stops on its own series; otherwise every metric samples
 * every round and all stop together, when the rule holds on the derived
 * series (out[0..*n-1], its stop in *stop). */
static void time_rounds(struct bench *b, struct bench_metric *set, int count, bench_derive_fn derive,
			void *dctx, double *out, int *n, enum bench_stop *stop)
{
	bool sampling[BENCH_MAX_SET];
	int active = count;
	if (count > BENCH_MAX_SET)
		bench_fail(b, "internal error: %d metrics in a set (at most %d)", count, BENCH_MAX_SET);
	for (int m = 0; m < count; m++) {
		struct bench_run *r = &set[m].run;
		memset(r, 0, sizeof *r);
		r->iters = calibrate(b, set[m].fn, set[m].ctx);
		if (b->count_only) {     /* the counting run: no sample */
			count_pass(b, set[m].fn, set[m].ctx, BENCH_COUNT_RUNS, r);
			sampling[m] = false;
			active--;
			continue;
		}
		rng_reset(b);
		timed_run(b, set[m].fn, set[m].ctx, r->iters);     /* warm-up */
		sampling[m] = true;
	}
	/* One sample of every metric still sampling a round; a sample's
	 * sub-runs go round those metrics (run k of m, then of m + 1, ...),
	 * so a stretch of host contention slows every metric a little, not
	 * one a lot. After the round each metric checks its stopping rule. */
	while (active > 0) {
		uint64_t best[BENCH_MAX_SET];
		for (int m = 0; m < count; m++)
			best[m] = UINT64_MAX;
		for (int k = 0; k < b->reps; k++)
			for (int m = 0; m < count; m++) {
				if (!sampling[m])
					continue;
				rng_reset(b);      /* every sub-run from a reseed */
				uint64_t ns = timed_run(b, set[m].fn, set[m].ctx, set[m].run.iters);
				if (ns < best[m])
					best[m] = ns;
			}
		for (int m = 0; m < count; m++) {
			struct bench_run *r = &set[m].run;
			if (!sampling[m])
				continue;
			r->ns_per_op[r->n++] = rt_u64_double(best[m]) / (double)r->iters;
			if (derive)
				continue;
			r->stop = bench_stop_check(&b->rule, r->ns_per_op, r->n);
			if (r->stop != BENCH_STOP_MORE) {
				sampling[m] = false;
				active--;
			}
		}
		if (derive) {
			out[*n] = derive(set, *n, dctx);
			(*n)++;
			*stop = bench_stop_check(&b->rule, out, *n);
			if (*stop != BENCH_STOP_MORE) {
				for (int m = 0; m < count; m++)
					set[m].run.stop = *stop;
				active = 0;
			}
		}
	}
}

void bench_time_set(struct bench *b, struct bench_metric *set, int count)
{
	time_rounds(b, set, count, NULL, NULL, NULL, NULL, NULL);
}

int bench_time_derived(struct bench *b, struct bench_metric *set, int count, bench_derive_fn derive,
		       void *ctx, double *out, enum bench_stop *stop)
{
	int n = 0;
	*stop = BENCH_STOP_MORE;
	time_rounds(b, set, count, derive, ctx, out, &n, stop);
	return n;
}

void bench_time(struct bench *b, bench_loop_fn fn, void *ctx, struct bench_run *r)
{
	struct bench_metric one = { NULL, NULL, fn, ctx, BENCH_RUN_INIT };
	bench_time_set(b, &one, 1);
	*r = one.run;
}

void bench_price(struct bench *b, bench_loop_fn fn, void *ctx, struct bench_run *r)
{
	bool counting = b->count_only;
	b->count_only = false;
	bench_time(b, fn, ctx, r);
	b->count_only = counting;
}

void bench_time_fixed(struct bench *b, bench_loop_fn fn, void *ctx, uint64_t budget_ns,
		      struct bench_run *r)
{
	uint64_t start = rt_now_ns(), longest = 0;
	memset(r, 0, sizeof *r);
	r->iters = 1;
	r->stop = BENCH_STOP_MORE;
	if (b->count_only) {
		count_pass(b, fn, ctx, 1, r);
		return;
	}
	while (r->stop == BENCH_STOP_MORE) {
		uint64_t spent = rt_now_ns() - start;
		if (r->n > 0 && spent + longest > budget_ns) {
			r->stop = BENCH_STOP_MAX;
			break;
		}
		uint64_t ns = timed_run(b, fn, ctx, 1);
		if (ns > longest)
			longest = ns;
		r->ns_per_op[r->n++] = rt_u64_double(ns);
		r->stop = bench_stop_check(&b->rule, r->ns_per_op, r->n);
	}
}

/* ------------------------------------------------------------------ */
/* Statistics.                                                          */

/* bench_median lives in stop.c, beside the interval of the same median. */

/* ------------------------------------------------------------------ */
/* Records.                                                             */

void bench_report(const struct bench *b, const char *name, const char *unit, bool higher_is_better,
		  const double *values, int n, const struct bench_run *r)
{
	static char line[4000];
	size_t len = 0;
	if (b->count_only) {     /* the counting run: its counts, no figure */
		if (!r)
			return;
		rt_append(line, sizeof line, &len, "PERFSTAT abi=%s test=%s name=%s", b->abi, b->test, name);
		len += pstat_format(&r->pstat, line + len, sizeof line - len);
		rt_append(line, sizeof line, &len, "\n");
		rt_write_all(1, line, len);
		return;
	}
	double min = values[0], max = values[0], sum = 0, dev = 0;
	for (int i = 0; i < n; i++) {
		min = values[i] < min ? values[i] : min;
		max = values[i] > max ? values[i] : max;
		sum += values[i];
	}
	double mean = sum / n;
	for (int i = 0; i < n; i++)
		dev += (values[i] - mean) * (values[i] - mean);
	double stddev = n > 1 ? bench_sqrt(dev / (n - 1)) : 0;

	rt_append(line, sizeof line, &len,
	       "METRIC abi=%s test=%s name=%s unit=%s better=%s n=%d median=%.4f min=%.4f "
	       "max=%.4f mean=%.4f stddev=%.4f samples=", b->abi, b->test, name, unit,
	       higher_is_better ? "higher" : "lower", n, bench_median(values, n), min, max, mean,
	       stddev);
	for (int i = 0; i < n; i++)
		rt_append(line, sizeof line, &len, "%s%.4f", i ? "," : "", values[i]);
	double ci = bench_ci_pct(values, n);
	if (ci >= 0)
		rt_append(line, sizeof line, &len, " ci=%.4f", ci);
	rt_append(line, sizeof line, &len, " ci_target=%.4f", b->rule.target_pct);
	if (r && r->stop != BENCH_STOP_MORE)
		rt_append(line, sizeof line, &len, " stop=%s", bench_stop_name(r->stop));
	if (r)
		rt_append(line, sizeof line, &len, " iters=%lu", r->iters);
	rt_append(line, sizeof line, &len, "\n");
	rt_write_all(1, line, len);
}

/* Nanoseconds in one `unit` ("ns", "us", "ms", "s"); dies on others. */
static double ns_per_unit(const struct bench *b, const char *unit)
{
	if (!rt_strcmp(unit, "ns"))
		return 1;
	if (!rt_strcmp(unit, "us"))
		return 1e3;
	if (!rt_strcmp(unit, "ms"))
		return 1e6;
	if (!rt_strcmp(unit, "s"))
		return 1e9;
	bench_fail(b, "internal error: unknown time unit %s", unit);
}

double bench_report_latency(const struct bench *b, const char *name, const char *unit,
			    const struct bench_run *r)
{
	double v[BENCH_MAX_SAMPLES], scale = ns_per_unit(b, unit);
	for (int i = 0; i < r->n; i++)
		v[i] = r->ns_per_op[i] / scale;
	bench_report(b, name, unit, false, v, r->n, r);
	return bench_median(r->ns_per_op, r->n);
}

double bench_latency(struct bench *b, const char *name, const char *unit, bench_loop_fn fn, void *ctx)
{
	struct bench_run r;
	bench_time(b, fn, ctx, &r);
	double median = bench_report_latency(b, name, unit, &r);
	bench_profile(b, name, fn, ctx, r.iters);
	return median;
}

void bench_latency_set(struct bench *b, struct bench_metric *set, int count)
{
	bench_time_set(b, set, count);
	for (int m = 0; m < count; m++) {
		bench_report_latency(b, set[m].name, set[m].unit, &set[m].run);
		bench_profile(b, set[m].name, set[m].fn, set[m].ctx, set[m].run.iters);
	}
}

void bench_bandwidth(struct bench *b, const char *name, double bytes_per_op, bench_loop_fn fn,
		     void *ctx)
{
	struct bench_run r;
	double v[BENCH_MAX_SAMPLES];
	bench_time(b, fn, ctx, &r);
	for (int i = 0; i < r.n; i++)
		v[i] = bytes_per_op * 1e3 / r.ns_per_op[i];   /* bytes/ns * 1e9 / 1e6 */
	bench_report(b, name, "MB/s", true, v, r.n, &r);
	bench_profile(b, name, fn, ctx, r.iters);
}

/* ------------------------------------------------------------------ */
/* Deterministic extra work.                                            */

void bench_spin(unsigned long units)
{
	volatile unsigned long sink = 0;
	for (unsigned long i = 0; i < units; i++)
		sink = sink + i;
}
