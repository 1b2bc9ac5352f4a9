/*
 * test_chart.c: the honest chart (compare/chart.h): an axis from zero for
 * data that would not be squashed by it, a marked break when they would,
 * a point per boot, the median and interval marks, flags, escaping.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "chart.h"
#include "stats.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The SVG of spec, malloc'd. */
static char *draw(const struct chart_spec *spec)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	chart_svg(spec, f);
	fclose(f);
	return buf;
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void test_zero_axis(void **state)
{
	(void)state;
	const double a[] = { 13.5, 14.1, 14.6, 13.9, 14.3 }, b[] = { 13.7, 14.2, 14.8, 14.0, 14.5 };
	struct chart_group g[] = { { "BASE", NULL, a, 5, "#555555", NULL, NULL },
				   { "<CAND>&", "n=5", b, 5, "#1f77b4", "regressed", NULL } };
	struct chart_spec spec = { "x86_64.lat_syscall.null", "us", g, 2, NULL, 0, NULL };
	double lo, hi;
	assert_false(chart_axis(&spec, &lo, &hi));
	assert_true(lo == 0);
	assert_true(hi >= 14.8 && hi < 20);
	char *svg = draw(&spec);
	assert_int_equal(count(svg, "<circle class=\"sample\""), 10);
	assert_int_equal(count(svg, "class=\"median\""), 2);
	assert_int_equal(count(svg, "class=\"interval\""), 2);
	assert_int_equal(count(svg, "class=\"column\""), 2);
	assert_int_equal(count(svg, "class=\"flag\""), 1);
	assert_null(strstr(svg, "axis-break"));
	assert_null(strstr(svg, "<CAND>"));
	assert_non_null(strstr(svg, "&lt;CAND&gt;&amp;"));
	free(svg);
}

static void test_broken_axis(void **state)
{
	(void)state;
	const double a[] = { 14.10, 14.12, 14.09 }, b[] = { 14.25, 14.27, 14.24 };
	struct chart_group g[] = { { "BASE", NULL, a, 3, NULL, NULL, NULL },
				   { "CAND", NULL, b, 3, NULL, NULL, NULL } };
	struct chart_line l = { 14.0, "good", "#2e7d32", "good-mean" };
	struct chart_spec spec = { NULL, NULL, g, 2, &l, 1, "key <&>" };
	double lo, hi;
	assert_true(chart_axis(&spec, &lo, &hi));
	assert_true(lo > 13 && lo < 14.0 && hi > 14.27 && hi < 15);
	char *svg = draw(&spec);
	assert_non_null(strstr(svg, "class=\"axis-break\""));
	assert_non_null(strstr(svg, "axis does not start at 0"));
	assert_non_null(strstr(svg, "class=\"good-mean\""));
	assert_non_null(strstr(svg, "key &lt;&amp;&gt;"));
	assert_int_equal(count(svg, "class=\"column\""), 0);  /* no column on a broken axis */
	free(svg);
}

static void test_empty_and_negative(void **state)
{
	(void)state;
	const double a[] = { -2, -1, 3 };
	struct chart_group g[] = { { "x", NULL, NULL, 0, NULL, NULL, NULL },
				   { "y", NULL, a, 3, NULL, NULL, NULL } };
	struct chart_spec spec = { "t", NULL, g, 2, NULL, 0, NULL };
	double lo, hi;
	assert_false(chart_axis(&spec, &lo, &hi));
	assert_true(lo < -2 && hi > 3);
	char *svg = draw(&spec);
	assert_non_null(strstr(svg, "no data"));
	free(svg);
	struct chart_spec none = { "t", NULL, NULL, 0, NULL, 0, NULL };
	assert_false(chart_axis(&none, &lo, &hi));
	svg = draw(&none);
	assert_non_null(strstr(svg, "</svg>"));
	free(svg);
}

/* Issue 28: an axis below the numbers' precision ends (1e17, 1e17 + 16:
 * a round step of 5 is no step), and one at the doubles' ends (found by
 * fuzz_chart) is finite. */
static void test_hostile_axis(void **state)
{
	(void)state;
	double t[CHART_MAX_TICKS];
	int decimals;
	size_t n = chart_ticks(1e17, 1e17 + 16, t, &decimals);
	assert_true(n >= 2 && n <= CHART_MAX_TICKS);
	for (size_t i = 1; i < n; i++)
		assert_true(t[i] > t[i - 1]);
	assert_int_equal(chart_ticks(1, 1, t, &decimals), 0);
	assert_int_equal(chart_ticks(NAN, 1, t, &decimals), 0);
	/* a range of a few ulps far from 1 (fuzz_chart, make fuzz): the round
	 * step's first tick fell below lo; every tick within [lo, hi] */
	const double tlo = 1.2241677834183896e-250, thi = 1.2241677834183911e-250;
	n = chart_ticks(tlo, thi, t, &decimals);
	assert_true(n >= 2 && n <= CHART_MAX_TICKS);
	for (size_t i = 0; i < n; i++)
		assert_true(t[i] >= tlo - (thi - tlo) * 1e-6 && t[i] <= thi + (thi - tlo) * 1e-6);
	const double close[] = { 1e17, 1e17, 1e17 + 16, 1e17 + 16 };
	const double ends[] = { 1.7e308, -1.7e308, 5e-324 };
	const double top[] = { 1.7797162035136925e+308, DBL_MAX };   /* fuzz_chart */
	struct chart_group g[] = { { "x", NULL, close, 4, NULL, NULL, NULL },
				   { "y", NULL, ends, 3, NULL, NULL, NULL },
				   { "z", NULL, top, 2, NULL, NULL, NULL } };
	for (size_t k = 0; k < 3; k++) {
		struct chart_spec spec = { "t", NULL, &g[k], 1, NULL, 0, NULL };
		double lo, hi;
		chart_axis(&spec, &lo, &hi);
		assert_true(isfinite(lo) && isfinite(hi) && lo < hi && isfinite(hi - lo));
		char *svg = draw(&spec);
		assert_non_null(strstr(svg, "</svg>"));
		free(svg);
	}
}

static void test_fmt_p(void **state)
{
	(void)state;
	char buf[16];
	assert_string_equal(stats_fmt_p(0, buf, sizeof(buf)), "<0.0001");
	assert_string_equal(stats_fmt_p(0.00004, buf, sizeof(buf)), "<0.0001");
	assert_string_equal(stats_fmt_p(0.0123, buf, sizeof(buf)), "0.0123");
	assert_string_equal(stats_fmt_p(NAN, buf, sizeof(buf)), "-");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero_axis),
		cmocka_unit_test(test_broken_axis),
		cmocka_unit_test(test_empty_and_negative),
		cmocka_unit_test(test_hostile_axis),
		cmocka_unit_test(test_fmt_p),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
