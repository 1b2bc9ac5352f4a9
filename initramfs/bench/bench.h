/*
 * bench.h: the measuring method every guest benchmark shares (lmbench's
 * benchmp/TRIES idea, kept small and portable over rt.h).
 *
 * A test family is one binary (initramfs/tests/<name>.c). init runs it as
 *   argv = [path, "abi=<abi>", "samples=<n>", "KEY=VAL"...]
 * and it prints METRIC lines on stdout (PROTOCOL.md; init adds the framing);
 * any other line it prints becomes a LOG record.
 *
 * The method, for one metric:
 *  0. the clock (once per binary): the timer overhead, the least time one
 *     clock read adds to an interval (of 32 back-to-back reads, in this
 *     binary's ABI), is measured and subtracted from every timed run; the
 *     clock's step and noise come from init (knobs clock_res_ns=,
 *     clock_noise_ppm=: rt_clock_measure once per boot); without them the
 *     clock counts as noisy. They size the sub-run: on a quiet clock
 *     (noise <= BENCH_QUIET_PPM: QEMU's icount) a sub-run lasts 1000 clock
 *     steps, at least BENCH_QUIET_SUBRUN_NS, and a sample is the fastest of
 *     BENCH_QUIET_REPS; on a noisy one (a wall clock under TCG) the lengths
 *     that steadied it (BENCH_DEFAULT_SAMPLE_MS x BENCH_DEFAULT_REPS).
 *     The knobs sample_ms= / sample_us= and reps= override both.
 *  1. calibration: the operation count `iters` is grown until one timed run
 *     lasts at least the sub-run length; it is decided once and then fixed,
 *     so every sample does the same work. Calibration is bounded by time
 *     (BENCH_CALIBRATE_MAX_NS). On a quiet clock `iters` is doubled from 1
 *     and each step's run is the fastest of BENCH_QUIET_CALIBRATE runs, so
 *     that it is the same power of two on every boot: a timer tick or an
 *     interrupt in one calibration run used to change it (cloud-arm64's
 *     arm fstat took 86 or 91 operations a sub-run by what the boot did
 *     before), and with it the sub-run's length and which sub-runs a
 *     periodic interrupt lands in, so a figure moved with the boot's
 *     schedule (up to 9 %) though the kernel's code did not. And on a
 *     quiet clock the kernel's random generator is reseeded
 *     (RNDRESEEDCRNG) before calibration, the warm-up and every sub-run
 *     of a sample (once a round let arm's null move 2.2 % with the
 *     boot's schedule, its sub-runs meeting 5 or 6 refills): a reseed empties every CPU's batch of random numbers, and
 *     on arm64 each syscall draws one (its stack offset, get_random_u16;
 *     48 a batch of 96 bytes on 6.1), so a sub-run's count of batch
 *     refills (2 or 3 for fstat's 138 syscalls) depended on where in a
 *     batch the test began, that is on every syscall the boot made
 *     before: the fastest sub-run of a sample could not escape the third
 *     refill from some starting points (aarch64 fstat's samples: 12.52 or
 *     12.69 us, stat's 35.0 or 35.7, by the boot's history). From a reseed
 *     the refills fall where the test's own syscalls put them.
 *  2. a warm-up run (not recorded);
 *  3. samples, until the stopping rule (stop.h) says the figure is known:
 *     at least min_samples= (default BENCH_DEFAULT_MIN_SAMPLES), at most
 *     samples=, and in between until the 95 % confidence interval of the
 *     median (robust: from the MAD, stop.h) is within ci_bp= hundredths of a percent (default
 *     BENCH_DEFAULT_CI_BP; ci_bp=0: always `samples`). A sample is `reps` sub-runs of `iters` operations each,
 *     and its value is the fastest sub-run: a run that was interrupted
 *     (host preemption under TCG, a timer tick) only ever adds time, so the
 *     minimum is the least noisy estimate of the operation. The metrics of
 *     a set (bench_time_set) take their samples in rounds, their sub-runs
 *     interleaved, and each stops on its own.
 *  4. every sample is printed, with median, min, max, mean and stddev, the
 *     interval reached (ci=), the target (ci_target=) and why sampling
 *     stopped (stop=target|max|fixed).
 * perf stat's counters (perfstat.h) are not read while a figure is timed:
 * init runs every test a second time after the whole plan has been timed,
 * with the knob count_only=1, and then each metric is calibrated (as it
 * was timed: on a quiet clock the same iters) and its loop run
 * BENCH_COUNT_RUNS sub-runs with the
 * counters on, no sample taken; bench_report prints the metric's PERFSTAT
 * record instead of its METRIC. So counting cannot move a figure: not the
 * metric's own, nor one timed later (a counter's events change the kernel
 * state later tests run on: a context switch pays perf's hooks for a
 * second after the last task event is closed, a pass of lat_proc forks
 * and execs, and fork and exec moved by up to 9 % when passes ran between
 * the metrics).
 * Knobs every test accepts: sample_ms=MS or sample_us=US (sub-run length),
 * reps=N (sub-runs per sample), samples=N (the most), min_samples=N,
 * ci_bp=N (the target in hundredths of a percent: 100 is 1 %), clock_res_ns=, clock_noise_ppm=, pin=0 (do
 * not pin to CPU 0), counters=0 (open no counter: every event "off"),
 * count_only=1 (the counting run, above).
 *
 * With the knob profile=1 every metric reported through bench_latency,
 * bench_latency_set and bench_bandwidth gets a profile pass of its own
 * after its METRIC line (profile.h); a test that calls bench_report
 * itself calls bench_profile / bench_profile_fixed.
 */
#ifndef BOOTRIG_BENCH_H
#define BOOTRIG_BENCH_H

#include "rt.h"
#include "stop.h"
#include "perfstat.h"

#define BENCH_MAX_SAMPLES 100
#define BENCH_DEFAULT_SAMPLES 11
/* Many short sub-runs, keeping the fastest: under TCG the guest clock is
 * the host's, and a 2 ms window often escapes host preemption where a
 * 10 ms one rarely does (measured over 5 boots of cloud-arm64: null's CV
 * across boots went from 10-40 % with 3 x 10 ms to 0.6-4 % with 10 x 2 ms,
 * and its median from 33-44 us to the true 14 us). */
#define BENCH_DEFAULT_SAMPLE_MS 2
#define BENCH_DEFAULT_REPS 10
#define BENCH_CALIBRATE_MAX_NS 2000000000ull
/* A quiet clock (icount: the same loop takes the same time, but for a
 * timer tick): 1 ms sub-runs, the fastest of 5 (a 4 ms tick lands in
 * all five of a sample almost never), and the stopping rule takes more
 * samples when one does. Not much shorter: on
 * cloud-arm64 under icount, null measured 3.55 us with 50 us sub-runs,
 * 3.91 with 200 us, 3.98 with 1 ms and 4.00 with 2 ms (lmbench: 4.02, and
 * 10 x 2 ms: 4.00): short runs read low by a few us a run, so the figure
 * would depend on the sub-run, not only on the kernel. */
#define BENCH_QUIET_PPM 1000
#define BENCH_QUIET_CALIBRATE 3
#define BENCH_QUIET_SUBRUN_NS 1000000ull
#define BENCH_QUIET_REPS 5
#define BENCH_DEFAULT_MIN_SAMPLES 3
/* The counting run's pass: sub-runs counted per metric (each of the
 * calibrated length: on icount 1 ms, some hundreds of operations), the
 * one with the least clock kept (a 4 ms tick lands in one of three). */
#define BENCH_COUNT_RUNS 3
#define BENCH_DEFAULT_CI_BP 100    /* 1 %, in hundredths of a percent */

/* The run-time context of one test binary. */
struct bench {
	const char *abi;          /* abi= (else the runtime's native ABI name) */
	const char *test;         /* the test family: the binary's name */
	int samples;              /* the most samples per metric, 1..BENCH_MAX_SAMPLES */
	struct bench_rule rule;   /* when a metric stops (min, max = samples, ci) */
	int reps;                 /* sub-runs per sample, >= 1 */
	uint64_t subrun_ns;       /* minimum length of one sub-run */
	bool quiet;               /* a quiet clock (icount): calibrated by doubling */
	int random_fd;            /* /dev/random, for RNDRESEEDCRNG on a quiet
				   * clock (bench.c: rng_reset), or -1 */
	uint64_t overhead_ns;     /* subtracted from every timed run */
	struct rt_clock clock;    /* from init's knobs or measured here */
	int argc;
	char **argv;
	bool counters;            /* knob counters= (1): the counting pass (perfstat.h) */
	bool pinned;              /* to CPU 0 (knob pin=, 1) */
	bool count_only;          /* knob count_only=1: the counting run */
	/* The profile pass (profile.h): knob profile=1 and its settings. */
	bool profile;
	bool profile_cycles;      /* profile_event=cycles */
	uint64_t profile_ns;      /* profile_ms= */
	uint64_t profile_period_ns;
};

/* A timed loop: performs `iters` operations on ctx. Returns the number of
 * nanoseconds inside the call that must not count (set-up work the loop
 * timed itself, e.g. re-mapping memory), usually 0. Errors are kept in
 * ctx and checked by the caller after the measurement. */
typedef uint64_t (*bench_loop_fn)(void *ctx, unsigned long iters);

/* What one measurement produced: nanoseconds per operation per sample. */
struct bench_run {
	double ns_per_op[BENCH_MAX_SAMPLES];
	int n;
	unsigned long iters;      /* operations per sub-run */
	enum bench_stop stop;     /* why sampling stopped */
	struct pstat_counts pstat;   /* the counting pass (perfstat.h) */
};
#define BENCH_RUN_INIT { { 0 }, 0, 0, BENCH_STOP_MORE, { 0, 0, { 0 }, { 0 }, 0, 0, { 0 } } }

/* One metric of a set measured together (bench_time_set). */
#define BENCH_MAX_SET 8
struct bench_metric {
	const char *name;
	const char *unit;         /* a time unit for bench_latency_set */
	bench_loop_fn fn;
	void *ctx;
	struct bench_run run;     /* filled by bench_time_set */
};

/* bench_init: parses argv (abi=, samples=, the knobs above) for the test
 * family `test`, pins the process to CPU 0 and opens the counters. Dies
 * with a usage message on a malformed knob. */
void bench_init(struct bench *b, int argc, char **argv, const char *test);

/* bench_knob: the value of KEY=VALUE in argv, or NULL. */
const char *bench_knob(const struct bench *b, const char *key);
/* bench_knob_long: the knob as a non-negative integer, def when absent;
 * dies when present but not a number in [min, max]. */
long bench_knob_long(const struct bench *b, const char *key, long def, long min, long max);
/* bench_knob_size: like bench_knob_long, accepting k/m/g suffixes (powers
 * of 1024): "64m". */
long bench_knob_size(const struct bench *b, const char *key, long def, long min, long max);

/* bench_log: prints one free-text line (init turns it into a LOG record). */
__attribute__((format(printf, 2, 3)))
void bench_log(const struct bench *b, const char *fmt, ...);

/* bench_time: calibrates fn, warms up and takes samples until the
 * stopping rule holds (see the method above) into r. */
void bench_time(struct bench *b, bench_loop_fn fn, void *ctx, struct bench_run *r);
/* bench_price: bench_time for a figure the test uses itself and does not
 * report (lat_syscall's slow_null prices a null call): it takes samples in
 * the counting run too (count_only=1), where bench_time takes none. */
void bench_price(struct bench *b, bench_loop_fn fn, void *ctx, struct bench_run *r);
/* bench_time_set: bench_time for count (<= BENCH_MAX_SET) metrics at once:
 * each is calibrated and warmed up, then they take samples in rounds (one
 * sample of every metric still sampling per round, their sub-runs
 * interleaved), each metric until its own stopping rule holds, so they may
 * end with different counts. Results in set[m].run. */
void bench_time_set(struct bench *b, struct bench_metric *set, int count);
/* bench_derive_fn: the reported figure of round i, from sample i of every
 * metric of the set (set[m].run.ns_per_op[i]). */
typedef double (*bench_derive_fn)(const struct bench_metric *set, int i, void *ctx);
/* bench_time_derived: bench_time_set for a figure derived from the set
 * (lat_ctx's lap less its pipe overhead): every metric takes a sample every
 * round, and all stop together when the stopping rule holds on the derived
 * series, so its interval, not its parts', meets the target. Writes the
 * series to out[0..n-1] (BENCH_MAX_SAMPLES) and its stop to *stop; every
 * set[m].run has the same n and stop. Returns n. */
int bench_time_derived(struct bench *b, struct bench_metric *set, int count, bench_derive_fn derive,
		       void *ctx, double *out, enum bench_stop *stop);
/* bench_time_fixed: for operations too long to repeat (hackbench): one
 * operation per sample, no calibration, samples until the stopping rule
 * holds, and no new sample once budget_ns has been spent (always at least
 * one; stop=max then). */
void bench_time_fixed(struct bench *b, bench_loop_fn fn, void *ctx, uint64_t budget_ns,
		      struct bench_run *r);

/* bench_report: prints the METRIC line for values[0..n-1] (already in
 * `unit`), with the interval they reach (ci=, when n >= 2) and the rule's
 * target. higher_is_better picks better=higher. r (may be NULL) supplies
 * iters, counters and stop=. */
void bench_report(const struct bench *b, const char *name, const char *unit, bool higher_is_better,
		  const double *values, int n, const struct bench_run *r);

/* bench_latency: bench_time, then reports the time per operation in `unit`
 * ("ns", "us", "ms" or "s"). Returns the median in nanoseconds. */
double bench_latency(struct bench *b, const char *name, const char *unit, bench_loop_fn fn, void *ctx);
/* bench_latency_set: bench_time_set, then each metric's time per operation
 * reported in its unit. */
void bench_latency_set(struct bench *b, struct bench_metric *set, int count);
/* bench_report_latency: reports r's time per operation in `unit`; returns
 * the median in nanoseconds. */
double bench_report_latency(const struct bench *b, const char *name, const char *unit,
			    const struct bench_run *r);
/* bench_bandwidth: bench_time, then reports bytes_per_op bytes per
 * operation as MB/s (10^6 bytes a second), better=higher. */
void bench_bandwidth(struct bench *b, const char *name, double bytes_per_op, bench_loop_fn fn,
		     void *ctx);

/* bench_median (stop.h): the median of v[0..n-1]. */

/* bench_random: a small deterministic generator (xorshift32), for test
 * data that must be the same on every boot; *state starts non-zero. */
static inline uint32_t bench_random(uint32_t *state)
{
	uint32_t x = *state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x;
}

/* bench_fail: prints "<test>: <message>" on stderr and exits 1. */
__attribute__((noreturn, format(printf, 2, 3)))
void bench_fail(const struct bench *b, const char *fmt, ...);

/* bench_check: dies with "<what>: <errname>" when ret < 0; returns ret. */
long bench_check(const struct bench *b, long ret, const char *what);

/* bench_fork_piped: forks a child with two O_CLOEXEC pipes to it: down
 * (the parent writes down[1], the child reads down[0]) and up (the child
 * writes up[1], the parent reads up[0]); each side closes the two ends it
 * does not use. Returns fork's result (0 in the child, its pid in the
 * parent); dies (bench_check) when a pipe or the fork fails. */
long bench_fork_piped(const struct bench *b, int down[2], int up[2]);

/* bench_probe_path: the tiny program lat_proc execs: knob probe=, else
 * /bench/<abi>/probe, else "probe" beside argv[0]. Written into buf. */
const char *bench_probe_path(const struct bench *b, char *buf, size_t size);

/* bench_spin: burns `units` iterations of a loop the compiler cannot
 * remove (deterministic extra work, for slow_null=). */
void bench_spin(unsigned long units);

#endif
