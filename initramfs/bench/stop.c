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

double bench_ci_pct(const double *v, int n)
{
	if (n < 2)
		return -1;
	double sum = 0, dev = 0;
	for (int i = 0; i < n; i++)
		sum += v[i];
	double mean = sum / n;
	for (int i = 0; i < n; i++)
		dev += (v[i] - mean) * (v[i] - mean);
	if (dev <= 0)
		return 0;
	double half = bench_t975(n - 1) * bench_sqrt(dev / (n - 1)) / bench_sqrt((double)n);
	double abs_mean = mean < 0 ? -mean : mean;
	if (abs_mean <= 0)
		return 1e9;
	double pct = 100 * half / abs_mean;
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
