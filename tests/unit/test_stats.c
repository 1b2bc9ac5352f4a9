/*
 * test_stats.c: the statistics of `bootrig compare` (compare/stats.c):
 * summaries, the incomplete beta and t distribution against exact values,
 * Welch's test against an independent numerical integration, the exact
 * Mann-Whitney distribution, and the behaviour that matters to users:
 * identical sides give a false positive rate near alpha, a real shift is
 * found.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "stats.h"

static void test_summaries(void **state)
{
	(void)state;
	const double x[] = { 4, 1, 3, 2, 5 };
	assert_float_equal(stats_mean(x, 5), 3, 1e-12);
	assert_float_equal(stats_stddev(x, 5), sqrt(2.5), 1e-12);
	assert_float_equal(stats_median(x, 5), 3, 1e-12);
	assert_float_equal(stats_median(x, 4), 2.5, 1e-12);
	assert_true(isnan(stats_mean(x, 0)));
	assert_float_equal(stats_stddev(x, 1), 0, 0);
	assert_float_equal(stats_spread_pct(x, 5), (5.0 - 1) / 3 * 100, 1e-12);
	assert_float_equal(stats_spread_pct(x, 1), 0, 0);      /* one seed: no spread seen */
	const double z[] = { -1, 1 };
	assert_true(isnan(stats_spread_pct(z, 2)));            /* a mean of 0 */
	assert_float_equal(x[0], 4, 0);         /* inputs untouched */
}

static void test_incbeta(void **state)
{
	(void)state;
	/* I_0.5(2,3) = sum_{j=2..4} C(4,j)/16 = 11/16; I_x(1,1) = x; I_x(a,1) = x^a */
	assert_float_equal(stats_incbeta(2, 3, 0.5), 11.0 / 16, 1e-12);
	assert_float_equal(stats_incbeta(1, 1, 0.3), 0.3, 1e-12);
	assert_float_equal(stats_incbeta(3, 1, 0.7), 0.343, 1e-12);
	assert_float_equal(stats_incbeta(1, 3, 0.2), 1 - pow(0.8, 3), 1e-12);
	/* symmetry I_x(a,b) = 1 - I_(1-x)(b,a), on both branches */
	assert_float_equal(stats_incbeta(2.5, 0.5, 0.9), 1 - stats_incbeta(0.5, 2.5, 0.1), 1e-12);
	assert_float_equal(stats_incbeta(5, 7, 0), 0, 0);
	assert_float_equal(stats_incbeta(5, 7, 1), 1, 0);
}

static void test_t_cdf(void **state)
{
	(void)state;
	assert_float_equal(stats_t_cdf(0, 7), 0.5, 1e-12);
	assert_float_equal(stats_t_cdf(1, 1), 0.75, 1e-12);              /* Cauchy */
	assert_float_equal(stats_t_cdf(1, 2), 0.5 + 1 / (2 * sqrt(3)), 1e-12);
	assert_float_equal(stats_t_cdf(2.776445105, 4), 0.975, 1e-8);    /* tables */
	assert_float_equal(stats_t_cdf(2.228138852, 10), 0.975, 1e-8);
	assert_float_equal(stats_t_cdf(-2.228138852, 10), 0.025, 1e-8);
	assert_float_equal(stats_t_cdf(1.959963985, 1e7), 0.975, 1e-6); /* -> normal */
	assert_float_equal(stats_normal_cdf(1.959963985), 0.975, 1e-9);
	/* fractional df, against numerical integration of the density */
	assert_float_equal(2 * stats_t_cdf(-2.5, 3.7), 0.0718220229, 1e-8);
}

static void test_welch(void **state)
{
	(void)state;
	const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 2, 4, 6, 8, 10 };
	struct welch w;
	assert_int_equal(stats_welch(a, 5, b, 5, &w), 0);
	assert_float_equal(w.t, 3 / sqrt(2.5), 1e-12);
	assert_float_equal(w.df, 6.25 / 1.0625, 1e-12);
	assert_float_equal(w.p, 0.1075311949, 1e-8);   /* numerical integration */
	assert_int_equal(stats_welch(a, 1, b, 5, &w), -1);
	assert_true(isnan(w.p));
	const double c[] = { 7, 7, 7 }, d[] = { 7, 7, 7 }, e[] = { 8, 8, 8 };
	assert_int_equal(stats_welch(c, 3, d, 3, &w), 0);
	assert_float_equal(w.p, 1, 0);
	assert_int_equal(stats_welch(c, 3, e, 3, &w), 0);
	assert_float_equal(w.p, 0, 0);
}

static void test_mann_whitney(void **state)
{
	(void)state;
	const double a[] = { 1, 2, 3, 4, 5 }, b[] = { 6, 7, 8, 9, 10 };
	double u;
	/* complete separation: 2 orderings of C(10,5) = 252 are as extreme */
	assert_float_equal(stats_mann_whitney(a, 5, b, 5, &u), 2.0 / 252, 1e-12);
	assert_float_equal(u, 0, 0);
	assert_float_equal(stats_mann_whitney(b, 5, a, 5, &u), 2.0 / 252, 1e-12);
	assert_float_equal(u, 25, 0);
	assert_float_equal(stats_mann_whitney(a, 3, b, 3, NULL), 0.1, 1e-12);
	/* U = 1 with 3+3: P(U <= 1) = 2/20 */
	const double c[] = { 1, 2, 4 }, d[] = { 3, 5, 6 };
	assert_float_equal(stats_mann_whitney(c, 3, d, 3, NULL), 0.2, 1e-12);
	/* identical samples (all ties): nothing to see */
	const double e[] = { 1, 1, 1, 1 };
	assert_float_equal(stats_mann_whitney(e, 4, e, 4, NULL), 1, 1e-12);
	/* large samples: normal approximation, shifted far apart */
	double x[40], y[40];
	for (int i = 0; i < 40; i++)
		x[i] = i, y[i] = i + 100;
	assert_true(stats_mann_whitney(x, 40, y, 40, NULL) < 1e-10);
	assert_true(isnan(stats_mann_whitney(x, 0, y, 40, NULL)));
}

/* A deterministic normal generator (xorshift64* and Box-Muller). */
static uint64_t rng = 88172645463325252ull;
static double uniform01(void)
{
	rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
	return ((double)((rng * 2685821657736338717ull) >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(double mean, double sd)
{
	return mean + sd * sqrt(-2 * log(uniform01())) * cos(2 * M_PI * uniform01());
}

/* 1000 A/A trials of 5 boots a side: about 1% false positives at alpha 0.01. */
static void test_false_positive_rate(void **state)
{
	(void)state;
	int welch01 = 0, welch05 = 0, mwu05 = 0;
	for (int trial = 0; trial < 1000; trial++) {
		double a[5], b[5];
		for (int i = 0; i < 5; i++)
			a[i] = gauss(14.1, 0.2), b[i] = gauss(14.1, 0.2);
		struct welch w;
		stats_welch(a, 5, b, 5, &w);
		welch01 += w.p < 0.01;
		welch05 += w.p < 0.05;
		mwu05 += stats_mann_whitney(a, 5, b, 5, NULL) < 0.05;
	}
	print_message("# A/A: Welch p<0.01 %d/1000, p<0.05 %d/1000; MWU p<0.05 %d/1000\n",
		      welch01, welch05, mwu05);
	/* binomial(1000, 0.01): mean 10, sd ~3.1; Welch is slightly conservative */
	assert_in_range(welch01, 2, 22);
	assert_in_range(welch05, 25, 75);
	assert_in_range(mwu05, 20, 75);
}

/* A 30% slowdown with 2% noise, 5 boots a side, is always found. */
/* The percent change: from a base of 0 it is infinite, signed, past every
 * threshold (an initcall's 0 us become 236 ms); 0 to 0 is none. */
static void test_pct_change(void **state)
{
	(void)state;
	assert_true(fabs(stats_pct_change(200, 250) - 25) < 1e-12);
	assert_true(fabs(stats_pct_change(-200, -250) + 25) < 1e-12);
	assert_true(isinf(stats_pct_change(0, 236000)) && stats_pct_change(0, 236000) > 0);
	assert_true(isinf(stats_pct_change(0, -1)) && stats_pct_change(0, -1) < 0);
	assert_true(isnan(stats_pct_change(0, 0)));
}

static void test_power(void **state)
{
	(void)state;
	int found = 0;
	for (int trial = 0; trial < 200; trial++) {
		double a[5], b[5];
		for (int i = 0; i < 5; i++)
			a[i] = gauss(14.1, 0.28), b[i] = gauss(14.1 * 1.3, 0.37);
		struct welch w;
		stats_welch(a, 5, b, 5, &w);
		found += w.p < 0.01;
	}
	assert_int_equal(found, 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summaries),
		cmocka_unit_test(test_incbeta),
		cmocka_unit_test(test_t_cdf),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_mann_whitney),
		cmocka_unit_test(test_false_positive_rate),
		cmocka_unit_test(test_power),
		cmocka_unit_test(test_pct_change),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
