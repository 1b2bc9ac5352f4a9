/*
 * stats.h: the statistics behind `bootrig compare`: summaries of a sample
 * (mean, median, standard deviation), Student's t distribution through the
 * regularized incomplete beta function, Welch's unequal-variance t-test and
 * the Mann-Whitney U test (exact for small samples without ties, the normal
 * approximation with tie and continuity corrections otherwise).
 *
 * Every p-value is two-sided. Functions never allocate on the caller's
 * behalf and never modify their inputs.
 */
#ifndef BOOTRIG_STATS_H
#define BOOTRIG_STATS_H

#include <stddef.h>

/* Arithmetic mean; NAN when n == 0. */
double stats_mean(const double *x, size_t n);

/* Sample standard deviation (divisor n - 1); 0 when n < 2. */
double stats_stddev(const double *x, size_t n);

/*
 * The spread of x as a percentage of its mean: (max - min) / |mean| * 100.
 * Over the boots of a side, one observation a seed, it is the seeds' noise
 * floor (compare's threshold for "changed" is never below it); 0 when
 * n < 2 (no spread seen), NAN when the mean is 0.
 */
double stats_spread_pct(const double *x, size_t n);

/*
 * The percent change of a mean from base to cand: (cand - base) / |base|
 * * 100. From a base of 0 to anything else it is +/-INFINITY: a change
 * from nothing (an initcall's 0 us become 236 ms) is past every threshold,
 * and the reports show no percentage for it; NAN when both are 0. compare,
 * bisect and history all decide by it.
 */
double stats_pct_change(double base, double cand);

/*
 * compare's noise floor for a metric between two sides: the larger of
 * their stats_spread_pct (a side whose mean is 0 adds none). A change is
 * "changed" only past max(--threshold, this): compare, bisect and history
 * all decide by it.
 */
double stats_noise_floor_pct(const double *a, size_t na, const double *b, size_t nb);

/* Median (the mean of the two middle values when n is even); NAN if n == 0. */
double stats_median(const double *x, size_t n);

/*
 * The interval compare reports beside a mean ("±%stddev") and every chart
 * draws: [mean - sd, mean + sd] with the sample standard deviation; [x, x]
 * when n == 1; NAN, NAN when n == 0.
 */
void stats_interval(const double *x, size_t n, double *lo, double *hi);

/*
 * A p-value as every report prints it, into buf: "0.0123" (4 decimals),
 * "<0.0001" below what that shows (never "0.0000"), "-" for NAN. Returns
 * buf.
 */
const char *stats_fmt_p(double p, char *buf, size_t size);

/*
 * Regularized incomplete beta function I_x(a, b) for a, b > 0 and
 * 0 <= x <= 1, by Lentz's continued fraction (relative error ~1e-14).
 */
double stats_incbeta(double a, double b, double x);

/* P(T <= t) for Student's t with df > 0 degrees of freedom (df may be
 * fractional, as Welch's test needs). */
double stats_t_cdf(double t, double df);

/* P(Z <= z) for the standard normal distribution. */
double stats_normal_cdf(double z);

struct welch {
	double t;       /* (mean(b) - mean(a)) / standard error */
	double df;      /* Welch-Satterthwaite degrees of freedom */
	double p;       /* two-sided p-value */
};

/*
 * Welch's t-test of a against b. Needs na >= 2 and nb >= 2, else returns -1
 * and leaves p = NAN. When both samples have zero variance, p is 1 if the
 * means are equal and 0 otherwise. Returns 0.
 */
int stats_welch(const double *a, size_t na, const double *b, size_t nb,
		struct welch *out);

/*
 * Mann-Whitney U test (Wilcoxon rank-sum) of a against b: two-sided p-value,
 * and U for sample a in *u (if u is not NULL). Exact distribution when
 * na, nb <= 25 and there are no ties; normal approximation otherwise.
 * NAN when either sample is empty.
 */
double stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
			  double *u);

#endif
