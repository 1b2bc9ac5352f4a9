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
	struct chart_spec spec = { "x86_64.lat_syscall.null", "us", g, 2, NULL, 0, NULL, 0 };
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
	struct chart_spec spec = { NULL, NULL, g, 2, &l, 1, "key <&>", 0 };
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
	struct chart_spec spec = { "t", NULL, g, 2, NULL, 0, NULL, 0 };
	double lo, hi;
	assert_false(chart_axis(&spec, &lo, &hi));
	assert_true(lo < -2 && hi > 3);
	char *svg = draw(&spec);
	assert_non_null(strstr(svg, "no data"));
	free(svg);
	struct chart_spec none = { "t", NULL, NULL, 0, NULL, 0, NULL, 0 };
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
		struct chart_spec spec = { "t", NULL, &g[k], 1, NULL, 0, NULL, 0 };
		double lo, hi;
		chart_axis(&spec, &lo, &hi);
		assert_true(isfinite(lo) && isfinite(hi) && lo < hi && isfinite(hi - lo));
		char *svg = draw(&spec);
		assert_non_null(strstr(svg, "</svg>"));
		free(svg);
	}
}

/* The y of the median marks (class="median") of svg, into y[2]; returns how many. */
static size_t median_ys(const char *svg, double y[2])
{
	size_t n = 0;
	for (const char *p = svg; n < 2 && (p = strstr(p, "class=\"median\"")); p++) {
		const char *q = strstr(p, " y=\"");
		assert_non_null(q);
		y[n++] = atof(q + 4);
	}
	return n;
}

/* The threshold bounds the zoom: a 0.001 % change on a broken axis is
 * drawn as no change, a change at the threshold over about half the plot,
 * a threshold too wide for a broken axis gives one from zero, data wider
 * than it keep their axis. */
static void test_threshold_axis(void **state)
{
	(void)state;
	const double a[] = { 1000, 1000, 1000 }, b[] = { 1000.01, 1000.01, 1000.01 },
		     c[] = { 1050, 1050, 1050 };
	struct chart_group g[] = { { "BASE", NULL, a, 3, NULL, NULL, NULL },
				   { "CAND", NULL, b, 3, NULL, NULL, NULL } };
	struct chart_spec spec = { NULL, NULL, g, 2, NULL, 0, NULL, 0 };
	double lo, hi, y[2];
	assert_true(chart_axis(&spec, &lo, &hi));
	assert_true(hi - lo < 1);                       /* no threshold: the data fill the plot */
	char *svg = draw(&spec);
	assert_int_equal(median_ys(svg, y), 2);
	assert_true(fabs(y[0] - y[1]) > 100);
	free(svg);
	spec.threshold_pct = 5;
	assert_true(chart_axis(&spec, &lo, &hi));
	assert_true(hi - lo >= CHART_THRESHOLD_SPANS * 0.05 * 1000.01 * (1 - 1e-12));
	assert_true(lo > 0 && lo < 1000 && hi > 1000.01);
	svg = draw(&spec);
	assert_int_equal(median_ys(svg, y), 2);
	assert_true(fabs(y[0] - y[1]) < 3);
	free(svg);
	g[1].values = c;                                /* +5 %: at the threshold */
	assert_true(chart_axis(&spec, &lo, &hi));
	svg = draw(&spec);
	assert_int_equal(median_ys(svg, y), 2);
	assert_true(fabs(y[0] - y[1]) > 0.4 * CHART_PLOT_H && fabs(y[0] - y[1]) <= 0.5 * CHART_PLOT_H + 1);
	free(svg);
	g[1].values = b;
	spec.threshold_pct = 150;                       /* reaches zero: the axis from zero */
	assert_false(chart_axis(&spec, &lo, &hi));
	assert_true(lo == 0 && hi >= CHART_THRESHOLD_SPANS * 1.5 * 1000);
	svg = draw(&spec);
	assert_int_equal(count(svg, "class=\"column\""), 2);
	free(svg);
	const double wa[] = { 10, 14, 18 }, wb[] = { 11, 15, 19 };
	struct chart_group wg[] = { { "BASE", NULL, wa, 3, NULL, NULL, NULL },
				    { "CAND", NULL, wb, 3, NULL, NULL, NULL } };
	struct chart_spec wide = { NULL, NULL, wg, 2, NULL, 0, NULL, 0 };
	double lo0, hi0;
	assert_false(chart_axis(&wide, &lo0, &hi0));
	wide.threshold_pct = 5;
	assert_false(chart_axis(&wide, &lo, &hi));
	assert_true(lo == lo0 && hi == hi0);
	wide.threshold_pct = NAN;                       /* not a threshold: none */
	assert_false(chart_axis(&wide, &lo, &hi));
	assert_true(lo == lo0 && hi == hi0);
}

/* The characters of XML text s up to '<' (an entity one, UTF-8 continuation bytes none). */
static size_t text_chars(const char *s)
{
	size_t n = 0;
	for (; *s && *s != '<'; s++) {
		if (*s == '&')
			s = strchr(s, ';');
		n += ((unsigned char)*s & 0xc0) != 0x80;
	}
	return n;
}

/* Checks that every caption line of svg (each <tspan x="8">) fits its
 * width at 6.5 px a glyph (13/11 of it in the 13 px title) and lies within
 * its height; returns the captions' lines joined, each caption on a line
 * of its own, malloc'd. */
static char *captions(const char *svg)
{
	const char *p = strstr(svg, " width=\"");
	assert_non_null(p);
	double w = atof(p + 8), h = atof(strstr(svg, " height=\"") + 9);
	char *all = calloc(1, strlen(svg) + 1);
	for (const char *t = svg; (t = strstr(t, "<text")); t++) {
		const char *end = strstr(t, "</text>"), *span = strstr(t, "<tspan x=\"8\"");
		if (!span || span > end)
			continue;
		const char *fs = strstr(t, "font-size=\"13\"");
		double advance = fs && fs < span ? 6.5 * 13 / 11 : 6.5;
		for (; span && span < end; span = strstr(span + 1, "<tspan x=\"8\"")) {
			double y = atof(strstr(span, " y=\"") + 4);
			const char *txt = strchr(span, '>') + 1;
			size_t n = text_chars(txt);
			if (8 + n * advance > w || y > h)
				fail_msg("%.*s: %zu chars at y=%g past %gx%g", (int)(strchr(txt, '<') - txt), txt,
					 n, y, w, h);
			if (*all && all[strlen(all) - 1] != '\n')
				strcat(all, " ");
			strncat(all, txt, (size_t)(strchr(txt, '<') - txt));
		}
		strcat(all, "\n");
	}
	return all;
}

/* Every caption is wrapped to the SVG's width, whole: the legend of an
 * axis from zero and of a broken one, the break label, a key, a title; a
 * hostile one is cut to a few lines, never past the edge. */
static void test_captions_fit(void **state)
{
	(void)state;
	const double a[] = { 13.5, 14.1, 14.6 }, b[] = { 13.7, 14.2, 14.8 }, t[] = { 14.10, 14.12, 14.09 };
	struct chart_group g[] = { { "BASE", NULL, a, 3, NULL, NULL, NULL },
				   { "CAND", NULL, b, 3, NULL, NULL, NULL } };
	struct chart_spec spec = { "x86_64.lat_syscall.null, kernels *-amd64 from the longest history "
				   "of them all", "us", g, 2, NULL, 0,
				   "each PASS boot per tested commit: green good, red bad, grey skipped", 5 };
	char *svg = draw(&spec), *all = captions(svg);
	assert_non_null(strstr(all, "dots: each boot; black mark: median; grey bar: mean ± 1 sd; "
			       "column: 0 to the median\n"));
	assert_non_null(strstr(all, "\neach PASS boot per tested commit: green good, red bad, grey skipped\n"));
	assert_non_null(strstr(all, "x86_64.lat_syscall.null, kernels *-amd64 from the longest history "
			       "of them all (us)\n"));
	free(svg), free(all);
	g[1].values = t, g[0].values = t;
	spec.key = NULL;
	svg = draw(&spec), all = captions(svg);
	assert_non_null(strstr(svg, "axis-break"));
	assert_non_null(strstr(all, "\ndots: each boot; black mark: median; grey bar: mean ± 1 sd\n"));
	assert_non_null(strstr(all, "\naxis does not start at 0 (zig-zag on the axis)\n"));
	free(svg), free(all);
	char *hostile = malloc(5001);
	memset(hostile, 'W', 5000);
	hostile[5000] = '\0';
	memcpy(hostile + 100, "\xe2\x82\xac<&>", 6);   /* a character of 3 bytes, and markup */
	spec.key = hostile, spec.title = hostile;
	svg = draw(&spec), all = captions(svg);
	double h = atof(strstr(svg, " height=\"") + 9);
	assert_true(h < 2 * (CHART_PLOT_H + 200));
	assert_null(strstr(svg, "<&>"));
	free(svg), free(all), free(hostile);
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
		cmocka_unit_test(test_threshold_axis),
		cmocka_unit_test(test_captions_fit),
		cmocka_unit_test(test_fmt_p),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
