/*
 * stats.c: summaries, the t distribution and the two significance tests
 * `bootrig compare` reports (see stats.h for the contracts).
 *
 * Layout: sample summaries; special functions (incomplete beta, t and
 * normal CDFs); Welch's t-test; Mann-Whitney U (ranks, exact distribution,
 * normal approximation).
 */
#include "stats.h"
#include "util.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Sample summaries ------------------------------------------------- */

double stats_mean(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	return sum / (double)n;
}

double stats_stddev(const double *x, size_t n)
{
	if (n < 2)
		return 0;
	double mean = stats_mean(x, n), ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	return sqrt(ss / (double)(n - 1));
}

double stats_spread_pct(const double *x, size_t n)
{
	if (n < 2)
		return 0;
	double lo = x[0], hi = x[0], mean = stats_mean(x, n);
	for (size_t i = 1; i < n; i++)
		lo = x[i] < lo ? x[i] : lo, hi = x[i] > hi ? x[i] : hi;
	return mean != 0 ? (hi - lo) / fabs(mean) * 100 : NAN;
}

double stats_pct_change(double base, double cand)
{
	if (base != 0)
		return (cand - base) / fabs(base) * 100;
	return cand == 0 ? NAN : copysign(INFINITY, cand);
}

double stats_noise_floor_pct(const double *a, size_t na, const double *b, size_t nb)
{
	double fa = stats_spread_pct(a, na), fb = stats_spread_pct(b, nb);
	fa = isnan(fa) ? 0 : fa, fb = isnan(fb) ? 0 : fb;
	return fa > fb ? fa : fb;
}

/* qsort order for doubles. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double stats_median(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	double *s = xmalloc(n * sizeof(*s));
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

void stats_interval(const double *x, size_t n, double *lo, double *hi)
{
	double mean = stats_mean(x, n), sd = stats_stddev(x, n);
	*lo = mean - sd, *hi = mean + sd;
}

const char *stats_fmt_p(double p, char *buf, size_t size)
{
	if (isnan(p))
		snprintf(buf, size, "-");
	else if (p < 0.0001)
		snprintf(buf, size, "<0.0001");
	else
		snprintf(buf, size, "%.4f", p);
	return buf;
}

/* ---- Special functions ------------------------------------------------ */

#define LENTZ_TINY 1e-300

/* x, or LENTZ_TINY if x is nearer 0 (Lentz: no division by zero). */
static double lentz_nonzero(double x)
{
	return fabs(x) < LENTZ_TINY ? LENTZ_TINY : x;
}

/* One term aa of the modified Lentz method: updates c and d (d is kept
 * inverted) and returns the factor the fraction's value is multiplied by. */
static double lentz_step(double aa, double *c, double *d)
{
	*d = 1 / lentz_nonzero(1 + aa * *d);
	*c = lentz_nonzero(1 + aa / *c);
	return *d * *c;
}

/*
 * The continued fraction of I_x(a, b) (Numerical Recipes' betacf), by the
 * modified Lentz method; converges fast for x < (a + 1) / (a + b + 2).
 * Each round takes an even term and an odd one.
 */
static double incbeta_cf(double a, double b, double x)
{
	const double eps = 1e-15;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 / lentz_nonzero(1 - qab * x / qap);
	double h = d;
	for (int m = 1; m <= 1000; m++) {
		int m2 = 2 * m;
		h *= lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), &c, &d);
		double del = lentz_step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), &c, &d);
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double stats_incbeta(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double lbeta = lgamma(a + b) - lgamma(a) - lgamma(b);
	double front = exp(lbeta + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * incbeta_cf(a, b, x) / a;
	return 1 - front * incbeta_cf(b, a, 1 - x) / b;
}

double stats_t_cdf(double t, double df)
{
	if (isnan(t) || df <= 0)
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	double tail = 0.5 * stats_incbeta(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? 1 - tail : tail;
}

double stats_normal_cdf(double z)
{
	return 0.5 * erfc(-z / sqrt(2.0));
}

/* ---- Welch's t-test ----------------------------------------------------- */

int stats_welch(const double *a, size_t na, const double *b, size_t nb,
		struct welch *out)
{
	out->t = out->df = out->p = NAN;
	if (na < 2 || nb < 2)
		return -1;
	double ma = stats_mean(a, na), mb = stats_mean(b, nb);
	double sa = stats_stddev(a, na), sb = stats_stddev(b, nb);
	double va = sa * sa / (double)na, vb = sb * sb / (double)nb;
	double se2 = va + vb;

	if (se2 <= DBL_MIN) {
		out->df = (double)(na + nb - 2);
		out->t = ma == mb ? 0 : copysign(INFINITY, mb - ma);
		out->p = ma == mb ? 1 : 0;
		return 0;
	}
	out->t = (mb - ma) / sqrt(se2);
	out->df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	out->p = 2 * stats_t_cdf(-fabs(out->t), out->df);
	if (out->p > 1)
		out->p = 1;
	return 0;
}

/* ---- Mann-Whitney U --------------------------------------------------- */

struct ranked {
	double value;
	int group;      /* 0: sample a, 1: sample b */
};

static int cmp_ranked(const void *x, const void *y)
{
	return cmp_double(&((const struct ranked *)x)->value,
			  &((const struct ranked *)y)->value);
}

/*
 * Ranks the pooled samples (ties get their mean rank). Returns the rank sum
 * of sample a; *tie_term gets sum(t^3 - t) over the groups of ties.
 */
static double rank_sum_a(const double *a, size_t na, const double *b, size_t nb,
			 double *tie_term)
{
	size_t n = na + nb;
	struct ranked *r = xmalloc(n * sizeof(*r));
	for (size_t i = 0; i < na; i++)
		r[i] = (struct ranked){ a[i], 0 };
	for (size_t i = 0; i < nb; i++)
		r[na + i] = (struct ranked){ b[i], 1 };
	qsort(r, n, sizeof(*r), cmp_ranked);

	double sum = 0;
	*tie_term = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && r[j + 1].value == r[i].value)
			j++;
		double rank = (double)(i + j + 2) / 2, t = (double)(j - i + 1);
		for (size_t k = i; k <= j; k++)
			if (r[k].group == 0)
				sum += rank;
		*tie_term += t * t * t - t;
		i = j + 1;
	}
	free(r);
	return sum;
}

/*
 * The exact null distribution of U: the coefficients of the Gaussian
 * binomial [na+nb choose na] in q, count[u] = the number of orderings that
 * give U = u. Built one factor (1 - q^(na+i)) / (1 - q^i) at a time; each
 * partial product is a polynomial, so the division is exact.
 */
static double *u_distribution(size_t na, size_t nb)
{
	size_t size = na * nb + na + nb + 2;
	double *c = xcalloc(size, sizeof(*c));
	c[0] = 1;
	for (size_t i = 1; i <= nb; i++) {
		size_t shift = na + i;
		for (size_t k = size - 1; k >= shift; k--)
			c[k] -= c[k - shift];
		for (size_t k = i; k < size; k++)
			c[k] += c[k - i];
	}
	return c;
}

/* Two-sided exact p-value of U for sample sizes na, nb. */
static double mann_whitney_exact(double u, size_t na, size_t nb)
{
	double *count = u_distribution(na, nb);
	size_t umax = na * nb;
	double total = 0, low = 0, high = 0;
	for (size_t k = 0; k <= umax; k++) {
		total += count[k];
		if ((double)k <= u + 1e-9)
			low += count[k];
		if ((double)k >= u - 1e-9)
			high += count[k];
	}
	free(count);
	double p = 2 * fmin(low, high) / total;
	return p > 1 ? 1 : p;
}

double stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
			  double *u_out)
{
	if (na == 0 || nb == 0)
		return NAN;
	double tie_term;
	double r1 = rank_sum_a(a, na, b, nb, &tie_term);
	double u = r1 - (double)na * (double)(na + 1) / 2;
	if (u_out)
		*u_out = u;
	if (na <= 25 && nb <= 25 && tie_term == 0)
		return mann_whitney_exact(u, na, nb);

	double n = (double)(na + nb), nab = (double)na * (double)nb;
	double var = nab / 12 * ((n + 1) - tie_term / (n * (n - 1)));
	if (var <= 0)
		return 1;
	double z = (fabs(u - nab / 2) - 0.5) / sqrt(var);
	if (z < 0)
		z = 0;
	double p = 2 * (1 - stats_normal_cdf(z));
	return p > 1 ? 1 : p;
}
