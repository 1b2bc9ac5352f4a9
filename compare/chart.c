/*
 * chart.c: the honest chart (see chart.h for the contract): the axis
 * range, its break and the threshold's narrowest span, the captions
 * wrapped to the width, then the drawing: grid and ticks, reference
 * lines, each group's column, interval, median and points, the axes, the
 * break mark, labels, the key, the legend and the break's label.
 */
#include "chart.h"
#include "compare.h"
#include "stats.h"
#include "util.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { LEFT = 70, RIGHT = 80, TOP = 40, COLUMN_W = 64, MARK_W = 74, POINT_R = 4,
       INTERVAL_X = 22,        /* the interval bar's left edge from the centre, beside the points */
       MIN_W = 440,
       MARGIN = 8,              /* a caption's left edge, and the room kept at the right */
       TITLE_LINE = 16, CAPTION_LINE = 14,      /* the lines' distance */
       CAPTION_Y = 46,          /* the first caption line's baseline below the plot */
       CAPTION_MAX_LINES = 4 }; /* a longer caption is cut, with an ellipsis */

/* A glyph's width as the captions are laid out, at the SVG's 11 px and in
 * the title's 13 px, and in bold: an estimate on the wide side for
 * sans-serif (flame.c's labels assume the same 6.5 px). */
#define ADVANCE 6.5
#define TITLE_ADVANCE (ADVANCE * 13 / 11)
#define BOLD_ADVANCE 7.0

/* The plot's place and scale: the axis [lo, hi] (broken or not), drawn
 * from y top over CHART_PLOT_H pixels. */
struct frame {
	double lo, hi;
	bool broken;
	int top;
};

/* A round step for about n ticks over span: 1, 2 or 5 times a power of 10. */
static double nice_step(double span, int n)
{
	double raw = span / n, mag = pow(10, floor(log10(raw))), f = raw / mag;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/* The smallest and largest of every value, interval end and line. */
static bool data_range(const struct chart_spec *c, double *dmin, double *dmax)
{
	*dmin = INFINITY, *dmax = -INFINITY;
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct chart_group *gr = &c->groups[g];
		for (size_t k = 0; k < gr->n; k++)
			if (isfinite(gr->values[k]))
				*dmin = fmin(*dmin, gr->values[k]), *dmax = fmax(*dmax, gr->values[k]);
		if (gr->n > 1) {
			double lo, hi;
			stats_interval(gr->values, gr->n, &lo, &hi);
			if (isfinite(lo) && isfinite(hi))
				*dmin = fmin(*dmin, lo), *dmax = fmax(*dmax, hi);
		}
	}
	for (size_t i = 0; i < c->nlines; i++)
		if (isfinite(c->lines[i].value))
			*dmin = fmin(*dmin, c->lines[i].value), *dmax = fmax(*dmax, c->lines[i].value);
	return *dmin <= *dmax;
}

/* An axis the drawing can use: lo < hi, both and hi - lo finite. Data at
 * the doubles' ends (1.7e308 and -1.7e308: padding overflows) or a span
 * too small to pad (5e-324) get their own range, bounded, or a margin
 * around it. */
static void finite_axis(double dmin, double dmax, double *lo, double *hi)
{
	if (isfinite(*lo) && isfinite(*hi) && *hi > *lo && isfinite(*hi - *lo))
		return;
	/* both ends clamped into [-DBL_MAX / 4, DBL_MAX / 4]: data all above
	 * DBL_MAX / 4 (fuzz_chart: 1.78e308) must not turn the axis over */
	*lo = fmin(fmax(dmin, -DBL_MAX / 4), DBL_MAX / 4);
	*hi = fmin(fmax(dmax, -DBL_MAX / 4), DBL_MAX / 4);
	if (!(*hi > *lo))
		*lo -= fmax(1, fabs(*lo) * 0.01), *hi += fmax(1, fabs(*hi) * 0.01);
}

/* The narrowest span the threshold leaves the axis (chart.h):
 * CHART_THRESHOLD_SPANS times threshold_pct % of the data's largest
 * magnitude; 0 without a threshold (0, negative, NaN) or when that span
 * is not finite. */
static double threshold_span(const struct chart_spec *c, double dmin, double dmax)
{
	if (!(c->threshold_pct > 0))
		return 0;
	double span = CHART_THRESHOLD_SPANS * c->threshold_pct / 100 * fmax(fabs(dmin), fabs(dmax));
	return isfinite(span) ? span : 0;
}

bool chart_axis(const struct chart_spec *c, double *lo, double *hi)
{
	double dmin, dmax;
	if (!data_range(c, &dmin, &dmax)) {
		*lo = 0, *hi = 1;
		return false;
	}
	double need = threshold_span(c, dmin, dmax);
	if (dmin > 0 && (dmax - dmin) < CHART_SQUASH * dmax) {
		double pad = dmax > dmin ? (dmax - dmin) * 0.15 : dmax * 0.01;
		*lo = dmin - pad, *hi = dmax + pad;
		if (*hi - *lo < need) {         /* no zoom past the threshold: widened about the data */
			double mid = dmin / 2 + dmax / 2;
			*lo = mid - need / 2, *hi = mid + need / 2;
		}
		if (*lo > 0) {
			finite_axis(dmin, dmax, lo, hi);
			return true;
		}
		/* the threshold's span reaches zero: the axis from zero */
	}
	/* through zero, at least the threshold's span: pad the far end to a round tick */
	double a = fmin(dmin, 0), b = fmax(dmax, 0);
	if (b - a < need) {
		if (b > 0)
			b = a + need;
		else
			a = b - need;
	}
	if (a == b)
		b = 1;
	double step = nice_step((b - a) * 1.05, 8);
	*lo = a < 0 ? floor(a * 1.05 / step) * step : 0;
	*hi = b > 0 ? ceil(b * 1.05 / step) * step : 0;
	finite_axis(a, b, lo, hi);
	return false;
}

/* The y pixel of v in frame f. */
static double ypix(const struct frame *f, double v)
{
	return f->top + CHART_PLOT_H - (v - f->lo) / (f->hi - f->lo) * CHART_PLOT_H;
}

/* Escaped text at (x, y) with extra attributes attrs ("" for none). */
static void text(FILE *out, double x, double y, const char *attrs, const char *s)
{
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, attrs);
	xml_escape(out, s);
	fputs("</text>", out);
}

/* The length of s's first line of at most room bytes (room >= 1):
 * broken at the last space within room, its spaces before it left out;
 * a word longer than room cut at room on a character boundary. *next:
 * where the next line starts, its spaces skipped (at the NUL: no more). */
static size_t line_len(const char *s, size_t room, const char **next)
{
	size_t n = strlen(s);
	if (n > room) {
		n = room;
		while (n && s[n] != ' ')
			n--;
		while (n && s[n - 1] == ' ')
			n--;
		if (!n) {
			n = room;
			while (n > 1 && ((unsigned char)s[n] & 0xc0) == 0x80)
				n--;
		}
	}
	for (*next = s + n; **next == ' '; (*next)++)
		;
	return n;
}

/* Caption s as one <text class="cls" attrs> whose lines (<tspan>s at x
 * MARGIN, from baseline y, dy apart) each fit w pixels at advance pixels
 * a byte (a character of several bytes counts as wide as they are);
 * at most CAPTION_MAX_LINES, the last ending in an ellipsis when s goes
 * on. out NULL: nothing written. Returns how many lines. Escaped. */
static int caption(FILE *out, const char *cls, const char *attrs, const char *s, int w,
		   double advance, int y, int dy)
{
	double fit = (w - 2 * MARGIN) / advance;
	size_t room = fit >= 2 ? (size_t)fit : 2;
	int n = 0;
	if (out)
		fprintf(out, "<text class=\"%s\" x=\"%d\" y=\"%d\" %s>", cls, MARGIN, y, attrs);
	while (*s || !n) {
		const char *next;
		size_t len = line_len(s, room, &next);
		bool cut = n + 1 == CAPTION_MAX_LINES && *next;
		if (cut)
			len = line_len(s, room - 1, &next);
		if (out) {
			char *line = xasprintf("%.*s", (int)len, s);
			fprintf(out, "<tspan x=\"%d\" y=\"%d\">", MARGIN, y + n * dy);
			xml_escape(out, line);
			fputs(cut ? "\xe2\x80\xa6</tspan>" : "</tspan>", out);
			free(line);
		}
		n++;
		s = cut ? "" : next;
	}
	if (out)
		fputs("</text>\n", out);
	return n;
}

size_t chart_ticks(double lo, double hi, double *t, int *decimals)
{
	*decimals = 0;
	if (!isfinite(lo) || !isfinite(hi) || !(hi > lo))
		return 0;
	double step = nice_step(hi - lo, 5), first = ceil(lo / step - 1e-9) * step;
	size_t n = 0;
	/* the round step is only usable when the numbers can hold it: the
	 * first tick not below lo (lo / step may be past 2^53, where ceil()
	 * rounds: fuzz_chart found 1.2241677834183896e-250 .. ...911e-250),
	 * each tick distinct from the last, about 5 of them */
	bool round_ok = isfinite(step) && step > 0 && isfinite(first) &&
			first >= lo - step * 1e-6 && (hi - first) / step < CHART_MAX_TICKS - 1;
	for (size_t i = 0; round_ok && i < CHART_MAX_TICKS; i++) {
		double v = first + (double)i * step;
		if (v > hi + step * 1e-9)
			break;
		if (n && !(v > t[n - 1])) {
			round_ok = false;
			break;
		}
		t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	}
	if (round_ok && n) {
		*decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
		*decimals = *decimals > 6 ? 6 : *decimals;
		return n;
	}
	/* below the numbers' precision: the two ends and what lies between
	 * them, at most CHART_FALLBACK_TICKS distinct values */
	n = 0;
	for (int i = 0; i < CHART_FALLBACK_TICKS; i++) {
		double v = lo + (hi - lo) * i / (CHART_FALLBACK_TICKS - 1);
		if (i == CHART_FALLBACK_TICKS - 1)
			v = hi;
		if (!n || v > t[n - 1])
			t[n++] = v;
	}
	*decimals = fabs(hi) < 1e6 ? 6 : 0;
	return n;
}

/* Grid lines and tick labels at round values of f's axis. */
static void ticks(FILE *out, const struct frame *f, int plot_w)
{
	double t[CHART_MAX_TICKS];
	int decimals;
	size_t n = chart_ticks(f->lo, f->hi, t, &decimals);
	for (size_t i = 0; i < n; i++) {
		double y = round(ypix(f, t[i]));
		fprintf(out, "<rect class=\"grid\" x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"1\" "
			"fill=\"#e8e8e8\"/><rect x=\"%d\" y=\"%.0f\" width=\"5\" height=\"1\" fill=\"%s\"/>",
			LEFT, y, plot_w, LEFT - 7, y, CHART_AXIS_COLOUR);
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.*f</text>\n", LEFT - 10,
			y + 4, decimals, t[i]);
	}
}

/* One group at centre x of frame f: column (unbroken axis), interval,
 * median, points, flag. */
static void group(FILE *out, const struct chart_group *g, double x, const struct frame *f)
{
	const char *col = g->colour ? g->colour : "#555555";
	char v[32];
	int base = f->top + CHART_PLOT_H;
	fputs("<g class=\"group", out);
	if (g->class) {
		fputc(' ', out);
		xml_escape(out, g->class);
	}
	fputs("\">", out);
	if (!g->n) {
		text(out, x, base - 20, "text-anchor=\"middle\" fill=\"#888\"", "no data");
		fputs("</g>\n", out);
		return;
	}
	double med = stats_median(g->values, g->n), ilo, ihi;
	stats_interval(g->values, g->n, &ilo, &ihi);
	double ym = round(ypix(f, med)), y0 = round(ypix(f, 0));
	if (!f->broken)
		fprintf(out, "<rect class=\"column\" x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"%.0f\" "
			"fill=\"%s\"/>", x - COLUMN_W / 2, fmin(ym, y0), COLUMN_W, fabs(y0 - ym),
			CHART_COLUMN_COLOUR);
	if (g->n > 1) {
		double yt = round(ypix(f, ihi)), yb = round(ypix(f, ilo));
		fprintf(out, "<rect class=\"interval\" x=\"%.0f\" y=\"%.0f\" width=\"6\" height=\"%.0f\" "
			"fill=\"%s\"><title>mean ± 1 sd: %s", x + INTERVAL_X, yt, fmax(yb - yt, 1),
			CHART_INTERVAL_COLOUR, fmt_value(ilo, v, sizeof(v)));
		fprintf(out, " to %s</title></rect>", fmt_value(ihi, v, sizeof(v)));
	}
	fprintf(out, "<rect class=\"median\" x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"2\" fill=\"%s\">"
		"<title>median %s</title></rect>\n", x - MARK_W / 2, ym - 1, MARK_W, CHART_AXIS_COLOUR,
		fmt_value(med, v, sizeof(v)));
	double step = g->n > 1 ? fmin(8, CHART_GROUP_W * 0.5 / (double)(g->n - 1)) : 0;
	for (size_t k = 0; k < g->n; k++)
		fprintf(out, "<circle class=\"sample\" cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\" "
			"stroke=\"#fff\" stroke-width=\"1\"><title>%s</title></circle>\n",
			x + ((double)k - (double)(g->n - 1) / 2) * step, ypix(f, g->values[k]), POINT_R,
			col, fmt_value(g->values[k], v, sizeof(v)));
	if (g->flag) {
		fprintf(out, "<path class=\"flag\" d=\"M%.1f %d l-6 -9 h12 z\" fill=\"%s\"/>", x - 20, f->top - 6,
			CHART_FLAG_COLOUR);
		char attrs[64];
		snprintf(attrs, sizeof(attrs), "fill=\"%s\" font-weight=\"bold\"", CHART_FLAG_COLOUR);
		text(out, x - 11, f->top - 7, attrs, g->flag);
	}
	fputs("</g>\n", out);
}

/* The zig-zag across the foot of the y axis of a plot from y top, on a white gap. */
static void break_mark(FILE *out, int top)
{
	int y = top + CHART_PLOT_H - 12;
	fprintf(out, "<g class=\"axis-break\"><rect x=\"%d\" y=\"%d\" width=\"6\" height=\"8\" fill=\"#fff\"/>"
		"<polyline points=\"%d,%d %d,%d %d,%d %d,%d %d,%d\" fill=\"none\" stroke=\"%s\" "
		"stroke-width=\"2.5\"/><polyline points=\"%d,%d %d,%d %d,%d %d,%d %d,%d\" fill=\"none\" "
		"stroke=\"%s\" stroke-width=\"2.5\"/></g>\n", LEFT - 4, y - 2,
		LEFT - 11, y, LEFT - 7, y - 4, LEFT - 3, y, LEFT + 1, y - 4, LEFT + 5, y, CHART_BREAK_COLOUR,
		LEFT - 11, y + 6, LEFT - 7, y + 2, LEFT - 3, y + 6, LEFT + 1, y + 2, LEFT + 5, y + 6,
		CHART_BREAK_COLOUR);
}

static const char *const legend = "dots: each boot; black mark: median; grey bar: mean \u00b1 1 sd",
		  *const legend_column = "; column: 0 to the median",
		  *const break_label = "axis does not start at 0 (zig-zag on the axis)";

void chart_svg(const struct chart_spec *c, FILE *out)
{
	struct frame f = { .top = TOP };
	f.broken = chart_axis(c, &f.lo, &f.hi);
	int ng = c->ngroups ? (int)c->ngroups : 1, plot_w = ng * CHART_GROUP_W;
	int w = LEFT + plot_w + RIGHT < MIN_W ? MIN_W : LEFT + plot_w + RIGHT;
	char *title = NULL, *legend_text = xasprintf("%s%s", legend, f.broken ? "" : legend_column);
	if (c->title || c->unit)
		title = xasprintf("%s%s%s%s%s", c->title ? c->title : "", c->unit && c->title ? " " : "",
				  c->unit ? "(" : "", c->unit ? c->unit : "", c->unit ? ")" : "");
	/* the captions' lines, wrapped to the width, make the room they need:
	 * the title's above the plot, the key's, the legend's and the break
	 * label's below it */
	int ntitle = title ? caption(NULL, "title", "", title, w, TITLE_ADVANCE, 0, 0) : 1;
	f.top = TOP + TITLE_LINE * (ntitle - 1);
	int base = f.top + CHART_PLOT_H, y = base + CAPTION_Y;
	int nkey = c->key ? caption(NULL, "key", "", c->key, w, ADVANCE, 0, 0) : 0;
	int nlegend = caption(NULL, "legend", "", legend_text, w, ADVANCE, 0, 0);
	int nbreak = f.broken ? caption(NULL, "axis-break-label", "", break_label, w, BOLD_ADVANCE, 0, 0) : 0;
	int h = y + CAPTION_LINE * (nkey + nlegend + nbreak - 1) + 8;
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart%s\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\" role=\"img\">\n",
		f.broken ? " broken-axis" : "", w, h, w, h);
	fputs("<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n", out);
	if (title)
		caption(out, "title", "font-size=\"13\"", title, w, TITLE_ADVANCE, 16, TITLE_LINE);
	ticks(out, &f, plot_w);
	for (size_t i = 0; i < c->ngroups; i++)
		group(out, &c->groups[i], LEFT + CHART_GROUP_W * ((double)i + 0.5), &f);
	for (size_t i = 0; i < c->nlines; i++) {
		const struct chart_line *l = &c->lines[i];
		if (!isfinite(l->value))
			continue;
		double ly = ypix(&f, l->value);
		fputs("<line class=\"", out);
		xml_escape(out, l->class ? l->class : "ref");
		fprintf(out, "\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-dasharray=\"4 3\"/>", LEFT, ly, LEFT + plot_w, ly, l->colour ? l->colour : "#888");
		if (l->label) {
			char attrs[64];
			snprintf(attrs, sizeof(attrs), "fill=\"%s\"", l->colour ? l->colour : "#888");
			text(out, LEFT + plot_w + 4, ly + 4, attrs, l->label);
		}
		fputc('\n', out);
	}
	/* the axes: crisp 2-pixel bars, the x axis at zero (or the break's foot) */
	fprintf(out, "<rect class=\"axis y\" x=\"%d\" y=\"%d\" width=\"2\" height=\"%d\" fill=\"%s\"/>"
		"<rect class=\"axis x\" x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"2\" fill=\"%s\"/>\n",
		LEFT - 2, f.top, CHART_PLOT_H + 2, CHART_AXIS_COLOUR, LEFT - 2,
		f.broken ? base : round(ypix(&f, 0)), plot_w + 2, CHART_AXIS_COLOUR);
	if (f.broken)
		break_mark(out, f.top);
	for (size_t i = 0; i < c->ngroups; i++) {
		double x = LEFT + CHART_GROUP_W * ((double)i + 0.5);
		if (c->groups[i].label)
			text(out, x, base + 18, "text-anchor=\"middle\"", c->groups[i].label);
		if (c->groups[i].sublabel)
			text(out, x, base + 32, "text-anchor=\"middle\" fill=\"#444\"", c->groups[i].sublabel);
	}
	if (c->key)
		y += CAPTION_LINE * caption(out, "key", "fill=\"#333\"", c->key, w, ADVANCE, y, CAPTION_LINE);
	y += CAPTION_LINE * caption(out, "legend", "fill=\"#333\"", legend_text, w, ADVANCE, y, CAPTION_LINE);
	if (f.broken) {
		char attrs[64];
		snprintf(attrs, sizeof(attrs), "fill=\"%s\" font-weight=\"bold\"", CHART_BREAK_COLOUR);
		caption(out, "axis-break-label", attrs, break_label, w, BOLD_ADVANCE, y, CAPTION_LINE);
	}
	fputs("</svg>\n", out);
	free(title), free(legend_text);
}
