/*
 * report-html.c: the comparison as one self-contained HTML page: no
 * network, no external file; styles inline, one chart per metric as inline
 * SVG (for each side, its mean as a bar with ±1 stddev error bars and each
 * boot's observation as a dot), the side-by-side table, the ABI table, new
 * failures, console differences and the boots left out. Every string from
 * the results is escaped (xml_escape). A one-line script marks the page
 * as rendered (data-bootrig-ready), so a headless browser test can tell a
 * page that ran from one that failed.
 */
#include "compare.h"
#include "util.h"

#include <math.h>
#include <string.h>

enum { CHART_W = 640, ROW_H = 28, LABEL_W = 120, PLOT_W = CHART_W - LABEL_W - 30 };

static const char *const page_style =
	"body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}"
	"table{border-collapse:collapse;margin:1em 0}"
	"td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
	"td.l,th.l{text-align:left}"
	".regressed{background:#fdd}.improved{background:#dfd}"
	"figure{display:inline-block;margin:0.5em;border:1px solid #eee;padding:4px}"
	"figcaption{font-weight:bold}"
	"svg text{font:11px sans-serif}"
	"pre{background:#f6f6f6;padding:0.5em;overflow-x:auto}";

/* Side colours for the charts. */
/* Side colours for the charts: neutral hues, so that none reads as a verdict. */
static const char *const side_colours[] = { "#555", "#1f77b4", "#ff7f0e", "#9467bd", "#17becf",
					    "#8c564b" };

static const char *side_colour(size_t s)
{
	return side_colours[s % (sizeof(side_colours) / sizeof(side_colours[0]))];
}

/* The range the chart spans: every observation and mean ± stddev, padded. */
static void chart_range(const struct comparison *c, const struct metric_row *r,
			double *lo, double *hi)
{
	*lo = INFINITY, *hi = -INFINITY;
	for (size_t s = 0; s < c->nsides; s++) {
		const struct side_stat *st = &r->stat[s];
		if (!st->series)
			continue;
		double sd = isfinite(st->stddev_pct) ? fabs(st->mean) * st->stddev_pct / 100 : 0;
		*lo = fmin(*lo, st->mean - sd), *hi = fmax(*hi, st->mean + sd);
		for (size_t i = 0; i < st->series->n; i++)
			*lo = fmin(*lo, st->series->obs[i]), *hi = fmax(*hi, st->series->obs[i]);
	}
	double pad = (*hi - *lo) * 0.08;
	if (pad <= 0)
		pad = fabs(*hi) * 0.05 + 1e-9;
	*lo -= pad, *hi += pad;
}

/* x position of v on a chart spanning [lo, hi]. */
static double xpos(double v, double lo, double hi)
{
	return LABEL_W + (v - lo) / (hi - lo) * PLOT_W;
}

/* One side's row of a chart at height y: mean bar, ±1 stddev bar, dots. */
static void chart_row(FILE *out, const struct comparison *c, const struct side_stat *st,
		      size_t s, double y, double lo, double hi)
{
	char tag[16], v[32];
	fprintf(out, "<text x=\"4\" y=\"%.1f\">%s</text>", y + 4, side_tag(c, s, tag, sizeof(tag)));
	if (!st->series) {
		fprintf(out, "<text x=\"%d\" y=\"%.1f\">absent</text>", LABEL_W, y + 4);
		return;
	}
	double sd = isfinite(st->stddev_pct) ? fabs(st->mean) * st->stddev_pct / 100 : 0;
	double x0 = xpos(st->mean - sd, lo, hi), x1 = xpos(st->mean + sd, lo, hi);
	double xm = xpos(st->mean, lo, hi);
	const char *col = side_colour(s);
	fprintf(out, "<rect class=\"mean\" x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"10\" "
		"fill=\"%s\" fill-opacity=\"0.25\"/>", LABEL_W, y - 5, xm - LABEL_W, col);
	fprintf(out, "<line class=\"errorbar\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"%s\" stroke-width=\"1.5\"/>", x0, y, x1, y, col);
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>"
		"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>",
		x0, y - 6, x0, y + 6, col, x1, y - 6, x1, y + 6, col);
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		"stroke-width=\"3\"/>", xm, y - 8, xm, y + 8, col);
	for (size_t i = 0; i < st->series->n; i++)
		fprintf(out, "<circle class=\"sample\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" "
			"fill-opacity=\"0.7\"><title>%s</title></circle>",
			xpos(st->series->obs[i], lo, hi), y + (double)(i % 3 - 1) * 3, col,
			fmt_value(st->series->obs[i], v, sizeof(v)));
}

/* An axis label with enough decimals to tell its two ends apart. */
static void axis_label(FILE *out, double x, double y, const char *anchor, double v, double span)
{
	int decimals = span > 0 ? (int)ceil(-log10(span)) + 1 : 2;
	decimals = decimals < 0 ? 0 : decimals > 6 ? 6 : decimals;
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%.*f</text>", x, y, anchor,
		decimals, v);
}

/* One metric's chart: a row per side, an axis with its two ends labelled. */
static void chart(FILE *out, const struct comparison *c, const struct metric_row *r)
{
	char id[512];
	double lo, hi;
	chart_range(c, r, &lo, &hi);
	int height = (int)c->nsides * ROW_H + 30;
	fputs("<figure><figcaption>", out);
	xml_escape(out, row_id(r, id, sizeof(id)));
	fputs(" (", out);
	xml_escape(out, r->unit);
	fprintf(out, ", %s is better)</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">",
		r->higher_better ? "higher" : "lower", CHART_W, height, CHART_W, height);
	for (size_t s = 0; s < c->nsides; s++)
		chart_row(out, c, &r->stat[s], s, ROW_H * (double)s + 18, lo, hi);
	double ya = ROW_H * (double)c->nsides + 6;
	fprintf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#888\"/>",
		LABEL_W, ya, LABEL_W + PLOT_W, ya);
	axis_label(out, LABEL_W, ya + 14, "start", lo, hi - lo);
	axis_label(out, LABEL_W + PLOT_W, ya + 14, "end", hi, hi - lo);
	fputs("</svg></figure>\n", out);
}

/* The sides: path, boots, PASS and INFRA_ERROR counts. */
static void sides_table(FILE *out, const struct comparison *c)
{
	char tag[16];
	fputs("<table><tr><th class=\"l\">side</th><th class=\"l\">results</th><th>boots</th>"
	      "<th>PASS</th><th>INFRA_ERROR</th></tr>\n", out);
	for (size_t s = 0; s < c->nsides; s++) {
		fprintf(out, "<tr><td class=\"l\">%s</td><td class=\"l\">", side_tag(c, s, tag, sizeof(tag)));
		xml_escape(out, c->sides[s].label);
		fprintf(out, "</td><td>%zu</td><td>%zu</td><td>%zu</td></tr>\n", c->sides[s].nboots,
			c->sides[s].npass, c->sides[s].ninfra);
	}
	fputs("</table>\n", out);
}

/* A table cell: "14.10 ±0.6%", or "-" for a side without the metric. */
static void value_cell(FILE *out, const struct side_stat *st, const char *class)
{
	char v[32];
	fprintf(out, "<td class=\"%s\">", class);
	if (!st->series)
		fputs("-", out);
	else if (isfinite(st->stddev_pct) && st->series->n > 1)
		fprintf(out, "%s ±%.1f%%", fmt_value(st->mean, v, sizeof(v)), st->stddev_pct);
	else
		fputs(fmt_value(st->mean, v, sizeof(v)), out);
	fputs("</td>", out);
}

/* A number cell with printf format fmt, or "-" when it does not exist. */
static void number_cell(FILE *out, const char *fmt, double v, const char *class)
{
	fprintf(out, "<td class=\"%s\">", class);
	if (isfinite(v))
		fprintf(out, fmt, v);
	else
		fputs("-", out);
	fputs("</td>", out);
}

static void metrics_table(FILE *out, const struct comparison *c)
{
	char tag[16], id[512];
	fputs("<table><tr><th class=\"l\">metric</th><th>BASE</th>", out);
	for (size_t s = 1; s < c->nsides; s++)
		fprintf(out, "<th>%s</th><th>%%change</th><th>p(Welch)</th><th>p(MWU)</th>",
			side_tag(c, s, tag, sizeof(tag)));
	fputs("</tr>\n", out);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct metric_row *r = &c->rows[i];
		fputs("<tr><td class=\"l\">", out);
		xml_escape(out, row_id(r, id, sizeof(id)));
		fputs(" (", out);
		xml_escape(out, r->unit);
		fputs(")</td>", out);
		value_cell(out, &r->stat[0], "");
		for (size_t s = 1; s < c->nsides; s++) {
			const struct cand_cmp *cmp = &r->cmp[s];
			const char *class = change_name(cmp->change);
			value_cell(out, &r->stat[s], class);
			number_cell(out, "%+.1f%%", cmp->pct_change, class);
			number_cell(out, "%.2g", cmp->p_welch, "");
			number_cell(out, "%.2g", cmp->p_mwu, "");
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* The ABI table, regressed cells marked. */
static void abi_table(FILE *out, const struct comparison *c)
{
	char tag[16];
	if (!c->nabis)
		return;
	fputs("<h2>ABIs</h2><table><tr><th class=\"l\">ABI</th>", out);
	for (size_t s = 0; s < c->nsides; s++)
		fprintf(out, "<th class=\"l\">%s</th>", side_tag(c, s, tag, sizeof(tag)));
	fputs("</tr>\n", out);
	for (size_t k = 0; k < c->nabis; k++) {
		fputs("<tr><td class=\"l\">", out);
		xml_escape(out, c->abis[k].abi);
		fputs("</td>", out);
		for (size_t s = 0; s < c->nsides; s++) {
			fprintf(out, "<td class=\"l%s\">", c->abis[k].worse[s] ? " regressed" : "");
			xml_escape(out, c->abis[k].status[s]);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
}

/* New failures, console differences, left-out boots and warnings. */
static void notes(FILE *out, const struct comparison *c)
{
	char tag[16];
	if (c->nevents || c->nverdicts || c->ncases)
		fputs("<h2>New failures</h2><ul>\n", out);
	for (size_t i = 0; i < c->nevents; i++) {
		fprintf(out, "<li class=\"regressed\">%s: [", side_tag(c, c->events[i].side, tag, sizeof(tag)));
		xml_escape(out, c->events[i].event->kind);
		fputs("] ", out);
		xml_escape(out, c->events[i].event->title);
		fprintf(out, " (%u boots)</li>\n", c->events[i].boots);
	}
	for (size_t i = 0; i < c->nverdicts; i++) {
		fprintf(out, "<li class=\"regressed\">%s: ", side_tag(c, c->verdicts[i].side, tag, sizeof(tag)));
		xml_escape(out, c->verdicts[i].verdict);
		fprintf(out, " in %u boots</li>\n", c->verdicts[i].boots);
	}
	for (size_t i = 0; i < c->ncases; i++) {
		const struct new_case *k = &c->cases[i];
		fprintf(out, "<li class=\"regressed\">%s: KTAP case ", side_tag(c, k->side, tag, sizeof(tag)));
		xml_escape(out, k->kcase->suite);
		fputs(*k->kcase->suite ? "." : "", out);
		xml_escape(out, k->kcase->name);
		fprintf(out, " failed in %u boots (BASE: %s)</li>\n", k->boots, k->base_status);
	}
	if (c->nevents || c->nverdicts || c->ncases)
		fputs("</ul>\n", out);
	if (c->opts.logs) {
		fprintf(out, "<h2>Console differences (%zu lines)</h2><pre>", c->nlog_lines);
		for (size_t i = 0; i < c->nlog_lines; i++) {
			fprintf(out, "only %s: ", side_tag(c, c->log_lines[i].side, tag, sizeof(tag)));
			xml_escape(out, c->log_lines[i].text);
			fputc('\n', out);
		}
		fputs("</pre>\n", out);
	}
	bool header = false;
	for (size_t s = 0; s < c->nsides; s++)
		for (size_t i = 0; i < c->sides[s].nboots; i++) {
			const struct boot_info *b = &c->sides[s].boots[i];
			if (b->passed)
				continue;
			if (!header)
				fputs("<h2>Boots left out of the statistics</h2><ul>\n", out);
			header = true;
			fprintf(out, "<li>%s ", side_tag(c, s, tag, sizeof(tag)));
			xml_escape(out, b->dir);
			fputs(": ", out);
			xml_escape(out, b->verdict);
			fputs(" ", out);
			xml_escape(out, b->reason);
			fputs("</li>\n", out);
		}
	if (header)
		fputs("</ul>\n", out);
	for (size_t i = 0; i < c->nwarnings; i++) {
		fputs("<p class=\"warning\">warning: ", out);
		xml_escape(out, c->warnings[i]);
		fputs("</p>\n", out);
	}
}

void report_html(const struct comparison *c, FILE *out)
{
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<title>bootrig compare</title><style>%s</style></head><body>\n"
		"<h1>bootrig compare</h1>\n", page_style);
	sides_table(out, c);
	fprintf(out, "<p id=\"summary\">%u regressed, %u improved, %zu new kernel failures, "
		"%zu new failing verdicts; significant: Welch p &lt; %g and |%%change| &ge; %g%%; "
		"each boot's median is one observation.</p>\n", c->regressions, c->improvements,
		c->nevents, c->nverdicts, c->opts.alpha, c->opts.threshold_pct);
	if (c->nrows) {
		fputs("<h2>Metrics</h2>\n", out);
		metrics_table(out, c);
		fputs("<div id=\"charts\">\n", out);
		for (size_t i = 0; i < c->nrows; i++)
			chart(out, c, &c->rows[i]);
		fputs("</div>\n", out);
	}
	abi_table(out, c);
	notes(out, c);
	fputs("<script>document.documentElement.setAttribute('data-bootrig-ready', "
	      "String(document.querySelectorAll('svg').length));</script>\n</body></html>\n", out);
}
