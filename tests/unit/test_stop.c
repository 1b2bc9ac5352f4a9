/*
 * test_stop.c: the guest benchmarks' adaptive stopping rule
 * (initramfs/bench/stop.c, compiled here as it is: it is pure arithmetic):
 * the t quantiles against compare's t distribution, the interval's width,
 * and the rule as a benchmark meets it: a constant series stops at the
 * minimum, a noisy one samples on to the maximum, a series that settles
 * stops once its interval is narrow enough, a target of 0 is a fixed count.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "stats.h"
#include "../../initramfs/bench/stop.c"

static void test_t975(void **state)
{
	(void)state;
	/* P(T <= t975(df)) = 0.975 within the table's rounding and the tail's fit */
	for (int df = 1; df <= 200; df++) {
		double p = stats_t_cdf(bench_t975(df), df);
		assert_true(fabs(p - 0.975) < 0.0005);
	}
	assert_float_equal(bench_t975(0), bench_t975(1), 0);
}

static void test_sqrt(void **state)
{
	(void)state;
	const double x[] = { 0, 1e-12, 0.25, 2, 1e6, 1.234567e18 };
	for (size_t i = 0; i < sizeof x / sizeof *x; i++)
		assert_float_equal(bench_sqrt(x[i]), sqrt(x[i]), 1e-9 * (1 + sqrt(x[i])));
	assert_float_equal(bench_sqrt(-4), 0, 0);
}

static void test_ci(void **state)
{
	(void)state;
	const double same[] = { 7.3694, 7.3694, 7.3694 };
	const double v[] = { 10, 11, 12, 9, 8 };
	assert_float_equal(bench_ci_pct(same, 3), 0, 0);
	assert_float_equal(bench_ci_pct(v, 1), -1, 0);
	/* median 10, deviations 0 1 2 1 2: MAD 1, t(4) = 2.776:
	 * 100 * 2.776 * 1.2533 * 1.4826 * 1 / sqrt(5) / 10 */
	assert_float_equal(bench_ci_pct(v, 5), 100 * 2.776 * 1.2533 * 1.4826 / sqrt(5) / 10, 1e-9);
	/* more than half the same: the median is known, whatever the rest */
	const double burst[] = { 3.9849, 4.4412, 3.9849, 5.0401, 3.9849 };
	assert_float_equal(bench_ci_pct(burst, 5), 0, 0);
	/* an even count: the median and the MAD of the middle two */
	const double four[] = { 1, 2, 3, 4 };       /* median 2.5, MAD 1 */
	assert_float_equal(bench_ci_pct(four, 4), 100 * 3.182 * 1.2533 * 1.4826 / 2 / 2.5, 1e-9);
	assert_float_equal(bench_median(v, 5), 10, 0);
	assert_float_equal(bench_median(four, 4), 2.5, 0);
	assert_float_equal(bench_median(v, 0), 0, 0);
	assert_float_equal(v[0], 10, 0);            /* not sorted in place */
	const double zero_mean[] = { -1, 1 };
	assert_true(bench_ci_pct(zero_mean, 2) >= 1e9);
	const double negative[] = { -10, -11, -12, -9, -8 };
	assert_float_equal(bench_ci_pct(negative, 5), bench_ci_pct(v, 5), 1e-12);
}

/* Feeds series one value at a time, as bench_time_set does; returns the
 * count at which the rule stopped (and its reason in *why). */
static int run_rule(const struct bench_rule *rule, const double *series, int len,
		    enum bench_stop *why)
{
	for (int n = 1; n <= len; n++) {
		*why = bench_stop_check(rule, series, n);
		if (*why != BENCH_STOP_MORE)
			return n;
	}
	fail_msg("the rule did not stop within %d samples", len);
	return -1;
}

static void test_constant_stops_at_min(void **state)
{
	(void)state;
	double series[20];
	for (int i = 0; i < 20; i++)
		series[i] = 4.0147;             /* icount: every sample the same */
	struct bench_rule rule = { 3, 11, 1.0 };
	enum bench_stop why;
	assert_int_equal(run_rule(&rule, series, 20, &why), 3);
	assert_int_equal(why, BENCH_STOP_TARGET);
	assert_string_equal(bench_stop_name(why), "target");
	rule.min = 5;
	assert_int_equal(run_rule(&rule, series, 20, &why), 5);
	rule.min = 1;                           /* one value has no interval */
	assert_int_equal(run_rule(&rule, series, 20, &why), 2);
}

static void test_noisy_goes_to_max(void **state)
{
	(void)state;
	/* a wall clock under TCG: 20-50 % apart (bench's own log of a boot) */
	const double series[] = { 26.84, 21.27, 20.88, 46.24, 38.45, 25.1, 44.0, 19.9, 31.2, 47.5,
				  22.2, 39.9, 28.8, 41.0, 20.5 };
	struct bench_rule rule = { 3, 11, 1.0 };
	enum bench_stop why;
	assert_int_equal(run_rule(&rule, series, 15, &why), 11);
	assert_int_equal(why, BENCH_STOP_MAX);
	assert_string_equal(bench_stop_name(why), "max");
	assert_true(bench_ci_pct(series, 11) > 1.0);
	/* a wider target is met sooner: 50 % here after the minimum */
	rule.target_pct = 50;
	assert_true(run_rule(&rule, series, 15, &why) < 11);
	assert_int_equal(why, BENCH_STOP_TARGET);
}

static void test_settles(void **state)
{
	(void)state;
	/* one interrupted sample first, then steady: 12.6549 then 12.54 +- 0.003;
	 * the median's interval outvotes it, so three are enough */
	const double series[] = { 12.6549, 12.5437, 12.5383, 12.5413, 12.5420, 12.5401, 12.5409 };
	struct bench_rule rule = { 3, 11, 1.0 };
	enum bench_stop why;
	assert_int_equal(run_rule(&rule, series, 7, &why), 3);
	assert_int_equal(why, BENCH_STOP_TARGET);
	/* open/close under icount (cloud-arm64, 1 ms x 5): the first sample
	 * before a burst, the third in it; after three samples two disagree, so
	 * it samples on until the agreeing ones are the majority */
	const double icount[] = { 56.6631, 57.9236, 64.4764, 57.9396, 57.8996, 57.91, 57.92 };
	int n = run_rule(&rule, icount, 7, &why);
	assert_int_equal(why, BENCH_STOP_TARGET);
	assert_int_equal(n, 5);
	assert_true(bench_ci_pct(icount, n) <= 1.0);
	assert_true(bench_ci_pct(icount, n - 1) > 1.0);
	assert_true(bench_ci_pct(icount, 3) > 1.0);
}

static void test_fixed_count(void **state)
{
	(void)state;
	double series[12];
	for (int i = 0; i < 12; i++)
		series[i] = 1.0;
	struct bench_rule rule = { 3, 7, 0 };   /* ci=0: always the maximum */
	enum bench_stop why;
	assert_int_equal(run_rule(&rule, series, 12, &why), 7);
	assert_int_equal(why, BENCH_STOP_FIXED);
	assert_string_equal(bench_stop_name(why), "fixed");
	struct bench_rule one = { 1, 1, 1.0 };
	assert_int_equal(run_rule(&one, series, 12, &why), 1);
	assert_int_equal(why, BENCH_STOP_MAX);
	assert_string_equal(bench_stop_name(BENCH_STOP_MORE), "more");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t975),
		cmocka_unit_test(test_sqrt),
		cmocka_unit_test(test_ci),
		cmocka_unit_test(test_constant_stops_at_min),
		cmocka_unit_test(test_noisy_goes_to_max),
		cmocka_unit_test(test_settles),
		cmocka_unit_test(test_fixed_count),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
