/*
 * stop.c: the adaptive stopping rule (stop.h has the contract).
 */
#include "stop.h"

double bench_t975(int df)
{
	static const unsigned short table[30] = {       /* x 1000 */
		12706, 4303, 3182, 2776, 2571, 2447, 2365, 2306, 2262, 2228,
		2201, 2179, 2160, 2145, 2131, 2120, 2110, 2101, 2093, 2086,
		2080, 2074, 2069, 2064, 2060, 2056, 2052, 2048, 2045, 2042,
	};
	if (df < 1)
		df = 1;
	if (df <= 30)
		return table[df - 1] / 1000.0;
	return 1.96 + 2.4 / df;
}

double bench_sqrt(double x)
{
	if (x <= 0)
		return 0;
	double g = x > 1 ? x : 1;
	for (int i = 0; i < 200; i++) {
		double next = (g + x / g) / 2;
		if (next >= g)
			break;
		g = next;
	}
	return g;
}

/* Sorts v[0..n-1] ascending (insertion: n is small). */
static void sort_doubles(double *v, int n)
{
	for (int i = 1; i < n; i++) {
		double x = v[i];
		int j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* The median of sorted v[0..n-1], n >= 1. */
static double sorted_median(const double *v, int n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double bench_median(const double *v, int n)
{
	double s[BENCH_CI_MAX];
	if (n <= 0)
		return 0;
	if (n > BENCH_CI_MAX)
		n = BENCH_CI_MAX;
	for (int i = 0; i < n; i++)
		s[i] = v[i];
	sort_doubles(s, n);
	return sorted_median(s, n);
}

double bench_ci_pct(const double *v, int n)
{
	double s[BENCH_CI_MAX];
	if (n < 2)
		return -1;
	if (n > BENCH_CI_MAX)
		n = BENCH_CI_MAX;
	for (int i = 0; i < n; i++)
		s[i] = v[i];
	sort_doubles(s, n);
	double med = sorted_median(s, n);
	for (int i = 0; i < n; i++)
		s[i] = s[i] < med ? med - s[i] : s[i] - med;
	sort_doubles(s, n);
	double mad = sorted_median(s, n);
	if (mad <= 0)
		return 0;
	double half = bench_t975(n - 1) * BENCH_MEDIAN_SE * BENCH_MAD_SIGMA * mad /
		      bench_sqrt((double)n);
	double abs_med = med < 0 ? -med : med;
	if (abs_med <= 0)
		return 1e9;
	double pct = 100 * half / abs_med;
	return pct < 1e9 ? pct : 1e9;
}

enum bench_stop bench_stop_check(const struct bench_rule *rule, const double *v, int n)
{
	if (n < rule->min)
		return BENCH_STOP_MORE;
	bool fixed = rule->target_pct <= 0;
	if (!fixed) {
		double ci = bench_ci_pct(v, n);
		if (ci >= 0 && ci <= rule->target_pct)
			return BENCH_STOP_TARGET;
	}
	if (n >= rule->max)
		return fixed ? BENCH_STOP_FIXED : BENCH_STOP_MAX;
	return BENCH_STOP_MORE;
}

const char *bench_stop_name(enum bench_stop s)
{
	switch (s) {
	case BENCH_STOP_TARGET: return "target";
	case BENCH_STOP_MAX: return "max";
	case BENCH_STOP_FIXED: return "fixed";
	default: return "more";
	}
}
