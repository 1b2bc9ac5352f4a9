/*
 * stop.c: the adaptive stopping rule (stop.h has the contract).
 */
#include "stop.h"

double bench_t975(int df)
{
	static const double table[30] = {
		12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
	};
	if (df < 1)
		df = 1;
	if (df <= 30)
		return table[df - 1];
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
