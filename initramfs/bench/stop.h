/*
 * stop.h: when a metric has enough samples (the adaptive stopping rule of
 * bench.c). Pure arithmetic on doubles: no runtime, no libc, so the host's
 * unit tests compile stop.c as it is (tests/unit/test_stop.c).
 *
 * A metric takes samples until the 95 % confidence interval of their mean
 * is narrow enough:
 *
 *   half-width = t(0.975, n - 1) * s / sqrt(n)      (Student's t, s the
 *                                                    sample stddev)
 *   ci_pct     = 100 * half-width / |mean|
 *
 * and the rule, checked after each sample:
 *   n <  min                    go on
 *   n >= max                    stop (BENCH_STOP_MAX, unless the target
 *                               was met by this sample: BENCH_STOP_TARGET)
 *   target_pct <= 0             go on (a fixed count: every metric takes max)
 *   ci_pct <= target_pct        stop (BENCH_STOP_TARGET)
 * On a deterministic clock (QEMU's icount) the samples agree, ci_pct is 0
 * and a metric stops at min; on a noisy one it samples on up to max.
 */
#ifndef BOOTRIG_BENCH_STOP_H
#define BOOTRIG_BENCH_STOP_H

#include <stdbool.h>

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

/* bench_ci_pct: the relative half-width (percent) of the 95 % interval of
 * the mean of v[0..n-1]; 0 when every value is the same, -1 when n < 2
 * (no interval) and a large value (1e9) when the mean is 0 and s is not. */
double bench_ci_pct(const double *v, int n);

/* bench_stop_check: the rule above for v[0..n-1]. */
enum bench_stop bench_stop_check(const struct bench_rule *rule, const double *v, int n);

/* bench_stop_name: "target", "max", "fixed" ("more" for BENCH_STOP_MORE). */
const char *bench_stop_name(enum bench_stop s);

#endif
