/*
 * report-html.c: the comparison as one self-contained HTML page: no
 * network, no external file; styles inline, one chart per metric as inline
 * SVG (chart.h: for each side, each boot's observation as a point, the
 * median as a mark, mean ± 1 sd as a bar, on an axis from zero or visibly
 * broken, never zoomed past the metric's threshold), the summary line
 * (compare_summary, as the text report says it), the side-by-side table, the ABI table, new
 * failures, console differences and the boots left out; per metric
 * profiled on BASE and the first candidate, a differential flame graph
 * (flame.h) with its perf-profile lines. Every string from
 * the results is escaped (xml_escape). A one-line script marks the page
 * as rendered (data-bootrig-ready), so a headless browser test can tell a
 * page that ran from one that failed.
 */
#include "bootgraph.h"
#include "chart.h"
#include "compare.h"
#include "flame.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const page_style =
	"body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}"
	"table{border-collapse:collapse;margin:1em 0}"
	"td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
	"td.l,th.l{text-align:left}"
	".regressed{background:#fdd}.improved{background:#dfd}"
	".fail-included{font-style:italic}"
	"figure{display:inline-block;margin:0.5em;border:1px solid #eee;padding:4px}"
	"figcaption{font-weight:bold}"
	"svg text{font:11px sans-serif}"
	"pre{background:#f6f6f6;padding:0.5em;overflow-x:auto}";

/* Side colours for the charts: neutral hues, so that none reads as a verdict
 * (none is one of chart.h's reserved colours). */
static const char *const side_colours[] = { "#555555", "#1f77b4", "#ff7f0e", "#9467bd", "#17becf",
					    "#8c564b" };

static const char *side_colour(size_t s)
{
	return side_colours[s % (sizeof(side_colours) / sizeof(side_colours[0]))];
}

/* The threshold a row's chart keeps its axis to (chart_spec's
 * threshold_pct): the smallest one applied to a candidate (decide(): the
 * option's or the noise floor if larger), so that no change that counted
 * is drawn small; the option's when none was applied. */
static double chart_threshold(const struct comparison *c, const struct metric_row *r)
{
	double t = INFINITY;
	for (size_t s = 1; s < c->nsides; s++)
		if (isfinite(r->cmp[s].threshold_pct))
			t = fmin(t, r->cmp[s].threshold_pct);
	return isfinite(t) ? t : c->opts.threshold_pct;
}

/* One metric's chart (chart.h): a group per side, each boot's observation
 * a point, flagged where the candidate regressed, on an axis no narrower
 * than the threshold makes visible. */
static void chart(FILE *out, const struct comparison *c, const struct metric_row *r)
{
	char id[512];
	struct chart_group *g = xcalloc(c->nsides, sizeof(*g));
	char (*tags)[16] = xcalloc(c->nsides, sizeof(*tags)), (*subs)[32] = xcalloc(c->nsides, sizeof(*subs));
	for (size_t s = 0; s < c->nsides; s++) {
		const struct side_stat *st = &r->stat[s];
		snprintf(subs[s], sizeof(subs[s]), "n=%zu", st->series ? st->series->n : 0);
		g[s] = (struct chart_group){ side_tag(c, s, tags[s], sizeof(tags[s])), subs[s],
					     st->series ? st->series->obs : NULL,
					     st->series ? st->series->n : 0, side_colour(s),
					     s && r->cmp[s].change == CHANGE_REGRESSED ? "regressed" : NULL,
					     NULL };
	}
	struct chart_spec spec = { NULL, NULL, g, c->nsides, NULL, 0, NULL, chart_threshold(c, r) };
	fputs("<figure><figcaption>", out);
	xml_escape(out, row_id(r, id, sizeof(id)));
	fputs(" (", out);
	xml_escape(out, r->unit);
	fprintf(out, ", %s is better)</figcaption>\n", r->higher_better ? "higher" : "lower");
	chart_svg(&spec, out);
	fputs("</figure>\n", out);
	free(g), free(tags), free(subs);
}

/* Row r's profile against the first candidate's (flame.h), and its
 * perf-profile lines, when both sides have it. */
static void flame(FILE *out, const struct comparison *c, const struct metric_row *r, size_t i)
{
	char id[512], fid[32], p[16];
	if (c->nsides < 2 || !r->prof[0] || !r->prof[1])
		return;
	fputs("<figure class=\"flame\"><figcaption>", out);
	xml_escape(out, row_id(r, id, sizeof(id)));
	fputs(": profile (", out);
	xml_escape(out, r->prof[1]->event);
	fprintf(out, "), CAND against BASE (width: CAND's share of %.0f samples; "
		"<span style=\"color:%s\">red</span> more than BASE, <span style=\"color:%s\">"
		"blue</span> less, grey within %.1f points)</figcaption>\n", r->prof[1]->samples,
		FLAME_MORE_COLOUR, FLAME_LESS_COLOUR, FLAME_SAME_POINTS);
	snprintf(fid, sizeof(fid), "fg%zu", i);
	flame_svg(out, r->prof[0], r->prof[1], fid);
	if (r->nprofile)
		fputs("<table><tr><th class=\"l\">function</th><th>BASE</th><th>change</th>"
		      "<th>CAND</th><th>p(Welch)</th></tr>\n", out);
	for (size_t k = 0; k < r->nprofile; k++) {
		const struct profile_cmp *pc = &r->profile[k];
		if (pc->rank[1] < 0)
			continue;
		fprintf(out, "<tr><td class=\"l\">perf-profile.%s.", profile_kind_name(pc->kind));
		xml_escape(out, pc->function);
		fprintf(out, "</td><td>%.2f %%</td><td>%+.2f</td><td>%.2f %%</td><td>", pc->mean[0],
			pc->change[1], pc->mean[1]);
		xml_escape(out, stats_fmt_p(pc->p[1], p, sizeof(p)));
		fputs("</td></tr>\n", out);
	}
	if (r->nprofile)
		fputs("</table>\n", out);
	fputs("</figure>\n", out);
}

/* The sides: path, boots, PASS and INFRA_ERROR counts (with
 * --include-fail the FAIL boots counted too), the counted boots' distinct
 * seeds (side_seeds(); "?" for those without a known one). */
static void sides_table(FILE *out, const struct comparison *c)
{
	char tag[16];
	fprintf(out, "<table><tr><th class=\"l\">side</th><th class=\"l\">results</th><th>boots</th>"
		"<th>PASS</th>%s<th>INFRA_ERROR</th><th>seeds</th></tr>\n",
		c->opts.include_fail ? "<th>FAIL counted</th>" : "");
	for (size_t s = 0; s < c->nsides; s++) {
		fprintf(out, "<tr><td class=\"l\">%s</td><td class=\"l\">", side_tag(c, s, tag, sizeof(tag)));
		xml_escape(out, c->sides[s].label);
		size_t unknown, seeds = side_seeds(&c->sides[s], &unknown);
		fprintf(out, "</td><td>%zu</td><td>%zu</td>", c->sides[s].nboots, c->sides[s].npass);
		if (c->opts.include_fail)
			fprintf(out, "<td>%zu</td>", c->sides[s].nfail_included);
		fprintf(out, "<td>%zu</td><td>%zu%s</td></tr>\n", c->sides[s].ninfra, seeds,
			unknown ? " + ?" : "");
	}
	fputs("</table>\n", out);
}

/* A table cell: "14.10 ±0.6%", or "-" for a side without the metric;
 * "14.10* ±0.6%" when FAIL boots' observations are part of it
 * (--include-fail; the legend under the table, fail_legend()). */
static void value_cell(FILE *out, const struct side_stat *st, const char *class)
{
	char v[32];
	bool fail = st->series && st->series->nfail;
	fprintf(out, "<td class=\"%s%s\"%s>", class, fail ? " fail-included" : "",
		fail ? " title=\"includes FAIL boots\"" : "");
	if (!st->series)
		fputs("-", out);
	else if (isfinite(st->stddev_pct) && st->series->n > 1)
		fprintf(out, "%s%s ±%.1f%%", fmt_value(st->mean, v, sizeof(v)), fail ? "*" : "",
			st->stddev_pct);
	else
		fprintf(out, "%s%s", fmt_value(st->mean, v, sizeof(v)), fail ? "*" : "");
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

/* A p-value cell as every report prints it (stats_fmt_p): "&lt;0.0001". */
static void p_cell(FILE *out, double p)
{
	char v[16];
	fputs("<td>", out);
	xml_escape(out, stats_fmt_p(p, v, sizeof(v)));
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
			p_cell(out, cmp->p_welch);
			p_cell(out, cmp->p_mwu);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
	char *legend = fail_legend(c, 0);
	if (legend) {
		fputs("<p class=\"fail-included\">* ", out);
		xml_escape(out, legend);
		fputs("</p>\n", out);
	}
	free(legend);
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

/* The boots that gave no observation, with why; with counted, the FAIL
 * boots that gave theirs (--include-fail). */
static void boots_list(FILE *out, const struct comparison *c, bool counted)
{
	char tag[16];
	const struct boot_info *b;
	size_t n = 0;
	for (struct boot_walk w = { 0 }; (b = boot_walk_next(c, counted, &w)); n++) {
		if (!n)
			fputs(counted ? "<h2>FAIL boots counted in the statistics (--include-fail)</h2><ul>\n"
				      : "<h2>Boots left out of the statistics</h2><ul>\n", out);
		fprintf(out, "<li>%s ", side_tag(c, w.side, tag, sizeof(tag)));
		xml_escape(out, b->dir);
		fputs(": ", out);
		xml_escape(out, b->verdict);
		fputs(" ", out);
		xml_escape(out, b->reason);
		fputs("</li>\n", out);
	}
	if (n)
		fputs("</ul>\n", out);
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
	boots_list(out, c, true);
	boots_list(out, c, false);
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
	fputs("<p id=\"summary\">", out);
	compare_summary(c, true, out);
	fprintf(out, "; significant: Welch p &lt; %g and |%%change| &ge; %g%%; "
		"each boot's median is one observation.</p>\n", c->opts.alpha, c->opts.threshold_pct);
	if (c->nrows) {
		fputs("<h2>Metrics</h2>\n", out);
		metrics_table(out, c);
		bootgraph_html(out, c, "<h2>Boot, initcall by initcall</h2>\n");
		fputs("<div id=\"charts\">\n", out);
		for (size_t i = 0; i < c->nrows; i++)
			chart(out, c, &c->rows[i]);
		fputs("</div>\n", out);
		for (size_t i = 0; !c->opts.no_profile && i < c->nrows; i++)
			flame(out, c, &c->rows[i], i);
	}
	abi_table(out, c);
	notes(out, c);
	fputs("<script>document.documentElement.setAttribute('data-bootrig-ready', "
	      "String(document.querySelectorAll('svg').length));</script>\n</body></html>\n", out);
}
