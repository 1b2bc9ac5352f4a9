/*
 * stop.h: when a metric has enough samples (the adaptive stopping rule of
 * bench.c). Pure arithmetic on doubles: no runtime, no libc, so the host's
 * unit tests compile stop.c as it is (tests/unit/test_stop.c).
 *
 * A metric takes samples until the 95 % confidence interval of their
 * median (the figure bootrig reports) is narrow enough. The interval is a
 * robust one, from the median absolute deviation (MAD), so that a sample
 * taken while the kernel was busy elsewhere (a periodic burst of work that
 * slows every call for tens of milliseconds, seen under icount; host
 * preemption under TCG) widens it by one sample's worth, not by its size:
 *
 *   sigma      = 1.4826 * MAD            (the normal's sigma from the MAD)
 *   half-width = t(0.975, n - 1) * 1.2533 * sigma / sqrt(n)
 *                                        (1.2533 = sqrt(pi/2): the standard
 *                                         error of a median against a mean's)
 *   ci_pct     = 100 * half-width / |median|
 *
 * With every sample the same, or more than half of them the same (icount:
 * the same loop gives the same figure to the nanosecond, but for the burst
 * a sample may fall in), the MAD is 0 and so is the interval.
 *
 * The rule, checked after each sample:
 *   n <  min                    go on
 *   n >= max                    stop (BENCH_STOP_MAX, unless the target
 *                               was met by this sample: BENCH_STOP_TARGET)
 *   target_pct <= 0             go on (a fixed count: every metric takes max)
 *   ci_pct <= target_pct        stop (BENCH_STOP_TARGET)
 * On a deterministic clock (QEMU's icount) most samples agree, ci_pct is 0
 * and a metric stops at min (or soon after, when a burst took one of the
 * first samples); on a noisy one it samples on up to max.
 */
#ifndef BOOTRIG_BENCH_STOP_H
#define BOOTRIG_BENCH_STOP_H

#include <stdbool.h>

#define BENCH_CI_MAX 128          /* values an interval looks at */
#define BENCH_MAD_SIGMA 1.4826    /* sigma / MAD for a normal distribution */
#define BENCH_MEDIAN_SE 1.2533    /* a median's standard error / a mean's */

enum bench_stop {
	BENCH_STOP_MORE,          /* take another sample */
	BENCH_STOP_TARGET,        /* the interval reached the target */
	BENCH_STOP_MAX,           /* the maximum count, target not reached */
	BENCH_STOP_FIXED,         /* the maximum count of a fixed-count rule */
};

struct bench_rule {
	int min, max;             /* 1 <= min <= max */
	double target_pct;        /* relative half-width wanted; <= 0: fixed count */
};

/* bench_t975: Student's t quantile 0.975 for df >= 1 degrees of freedom
 * (a table to 30, then 1.96 + 2.4 / df, within 0.2 % of the exact value). */
double bench_t975(int df);

/* bench_sqrt: the square root of x (0 for x <= 0), by Newton's method:
 * the guest has no libm. */
double bench_sqrt(double x);

/* bench_median: the median of v[0..n-1] (the first BENCH_CI_MAX values;
 * v is not changed; 0 when n <= 0). */
double bench_median(const double *v, int n);

/* bench_ci_pct: the relative half-width (percent) of the 95 % interval of
 * the median of v[0..n-1] (above; the first BENCH_CI_MAX values); 0 when
 * more than half the values are the same, -1 when n < 2 (no interval) and
 * a large value (1e9) when the median is 0 and the MAD is not. */
double bench_ci_pct(const double *v, int n);

/* bench_stop_check: the rule above for v[0..n-1]. */
enum bench_stop bench_stop_check(const struct bench_rule *rule, const double *v, int n);

/* bench_stop_name: "target", "max", "fixed" ("more" for BENCH_STOP_MORE). */
const char *bench_stop_name(enum bench_stop s);

#endif
