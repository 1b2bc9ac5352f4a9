/*
 * bisect.c: the decisions of a bisection step and the chart (bisect.h).
 * The statistics are compare's (stats.h); nothing here runs a program.
 */
#include "bisect.h"
#include "chart.h"
#include "compare.h"
#include "stats.h"
#include "util.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *bisect_mark_name(enum bisect_mark m)
{
	switch (m) {
	case MARK_GOOD: return "good";
	case MARK_BAD: return "bad";
	case MARK_SKIP: return "skip";
	case MARK_NONE: break;
	}
	return "undecided";
}

void bisect_summarize(const double *x, size_t n, struct step_stats *st)
{
	*st = (struct step_stats){ NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN };
	if (!n)
		return;
	double mean = stats_mean(x, n);
	st->median = stats_median(x, n);
	st->spread_pct = mean != 0 ? stats_stddev(x, n) / fabs(mean) * 100 : 0;
}

const char *bisect_fmt_p(double p, char *buf, size_t size)
{
	return stats_fmt_p(p, buf, size);
}

/* "p=0.0123" or "p<0.0001" into buf. */
static const char *fmt_p(double p, char *buf, size_t size)
{
	char v[16];
	bisect_fmt_p(p, v, sizeof(v));
	snprintf(buf, size, "p%s%s", *v == '<' ? "" : "=", v);
	return buf;
}

/* x against the end e: Welch's and MWU's p, the %change of the means, and
 * whether that is significant by compare's rule (the threshold never below
 * the sides' noise floor, stats_noise_floor_pct). */
static bool differs(const struct bisect_opts *o, const double *e, size_t ne, const double *x,
		    size_t nx, double *p, double *mwu, double *change)
{
	struct welch w;
	*p = stats_welch(e, ne, x, nx, &w) == 0 ? w.p : NAN;
	*mwu = stats_mann_whitney(e, ne, x, nx, NULL);
	double me = stats_mean(e, ne), mx = stats_mean(x, nx);
	*change = stats_pct_change(me, mx);
	double floor = stats_noise_floor_pct(e, ne, x, nx);
	return *p < o->alpha && fabs(*change) >= (floor > o->threshold_pct ? floor : o->threshold_pct);
}

bool bisect_ends_differ(const struct bisect_opts *o, const double *good, size_t ng,
			const double *bad, size_t nb, struct step_stats *st, char **why)
{
	bisect_summarize(bad, nb, st);
	if (ng < 2 || nb < 2) {
		*why = xasprintf("too few PASS boots to compare (good %zu, bad %zu; 2 needed)", ng, nb);
		return false;
	}
	bool d = differs(o, good, ng, bad, nb, &st->p_good, &st->mwu_good, &st->change_good);
	char pb[32];
	*why = xasprintf("bad is %+.1f%% from good, %s (Welch; significant: p < %g and |change| >= %g%%)",
			 st->change_good, fmt_p(st->p_good, pb, sizeof(pb)), o->alpha, o->threshold_pct);
	return d;
}

enum bisect_mark bisect_decide_metric(const struct bisect_opts *o, const double *good, size_t ng,
				      const double *bad, size_t nb, const struct step_boots *s,
				      struct step_stats *st, char **why)
{
	bisect_summarize(s->obs, s->nobs, st);
	bool last = s->nboots >= o->max_boots;
	if (s->nobs < 2) {
		/* a full batch without a PASS will not get better by more boots */
		if (last || (s->nboots >= o->boots && s->npass == 0)) {
			*why = xasprintf("%zu PASS boot%s of %zu (%zu INFRA_ERROR, %zu crashed, %zu FAIL): "
					 "not measurable, skipped", s->npass, s->npass == 1 ? "" : "s",
					 s->nboots, s->ninfra, s->ncrash, s->nfail);
			return MARK_SKIP;
		}
		*why = xasprintf("%zu PASS boots so far", s->npass);
		return MARK_NONE;
	}
	bool dg = differs(o, good, ng, s->obs, s->nobs, &st->p_good, &st->mwu_good, &st->change_good);
	bool db = differs(o, bad, nb, s->obs, s->nobs, &st->p_bad, &st->mwu_bad, &st->change_bad);
	char pg[32], pb[32];
	fmt_p(st->p_good, pg, sizeof(pg));
	fmt_p(st->p_bad, pb, sizeof(pb));
	if (dg != db) {
		enum bisect_mark m = dg ? MARK_BAD : MARK_GOOD;
		*why = xasprintf("like %s: %+.1f%% from good (%s), %+.1f%% from bad (%s)",
				 bisect_mark_name(m), st->change_good, pg, st->change_bad, pb);
		return m;
	}
	if (!last) {
		*why = xasprintf("undecided after %zu boots: %+.1f%% from good (%s), %+.1f%% from bad (%s)",
				 s->nboots, st->change_good, pg, st->change_bad, pb);
		return MARK_NONE;
	}
	if (dg) {
		enum bisect_mark m = fabs(st->change_bad) < fabs(st->change_good) ? MARK_BAD : MARK_GOOD;
		*why = xasprintf("between the ends after %zu boots, nearer %s: %+.1f%% from good (%s), "
				 "%+.1f%% from bad (%s)", s->nboots, bisect_mark_name(m), st->change_good,
				 pg, st->change_bad, pb);
		return m;
	}
	*why = xasprintf("like neither end after %zu boots (too noisy): %+.1f%% from good (%s), "
			 "%+.1f%% from bad (%s): skipped", s->nboots, st->change_good, pg,
			 st->change_bad, pb);
	return MARK_SKIP;
}

bool bisect_crash_verdict(const char *v)
{
	return !strcmp(v, "PANIC") || !strcmp(v, "HANG") || !strcmp(v, "BOOT_FAIL");
}

void bisect_count_boot(const struct bisect_opts *o, struct step_boots *s, const char *v,
		       const char *const *titles, size_t ntitles)
{
	s->nboots++;
	if (!strcmp(v, "PASS"))
		s->npass++;
	else if (!strcmp(v, "INFRA_ERROR"))
		s->ninfra++;
	else if (bisect_crash_verdict(v))
		s->ncrash++;
	else
		s->nfail++;
	if (!o->title)
		return;
	bool matched = false;
	const char *unmatched = NULL;
	for (size_t i = 0; i < ntitles; i++) {
		if (o->exact ? !strcmp(o->title, titles[i]) : !fnmatch(o->title, titles[i], 0))
			matched = true;
		else if (!unmatched)
			unmatched = titles[i];
	}
	if (matched) {
		s->ntitle++;
	} else if (!s->other_title && (unmatched || strcmp(v, "PASS")) && strcmp(v, "INFRA_ERROR") &&
		   strcmp(v, "FAIL")) {
		snprintf(s->other_buf, sizeof(s->other_buf), "%s", unmatched ? unmatched : v);
		s->other_title = s->other_buf;
	}
}

enum bisect_mark bisect_decide_end(const struct bisect_opts *o, const struct step_boots *s,
				   size_t end_boots, char **why)
{
	bool enough = s->nboots >= end_boots &&
		      (s->npass >= 2 || s->nboots >= o->max_boots || s->npass == 0);
	*why = xasprintf("%zu PASS boots of %zu", s->npass, s->nboots);
	return enough ? (s->npass >= 2 ? MARK_GOOD : MARK_SKIP) : MARK_NONE;
}

size_t bisect_ends_more(const struct bisect_opts *o, bool differ, double change, size_t want)
{
	if (differ || want >= o->max_boots || isnan(change) || fabs(change) < o->threshold_pct)
		return 0;
	return want + o->boots < o->max_boots ? want + o->boots : o->max_boots;
}

enum bisect_mark bisect_decide_crash(const struct bisect_opts *o, const struct step_boots *s,
				     char **why)
{
	size_t usable = s->nboots - s->ninfra;
	if (o->title ? s->ntitle > 0 : s->ncrash > 0) {
		size_t n = o->title ? s->ntitle : s->ncrash;
		*why = o->title ? xasprintf(o->exact ? "%zu of %zu boots crashed as '%s'"
						     : "%zu of %zu boots crashed with a title matching '%s'",
					    n, s->nboots, o->title)
				: xasprintf("%zu of %zu boots crashed (PANIC, HANG or BOOT_FAIL)", n,
					    s->nboots);
		return MARK_BAD;
	}
	if (o->title && s->other_title) {
		*why = xasprintf("crashed, but not as '%s': %s: skipped", o->title, s->other_title);
		return MARK_SKIP;
	}
	if (usable >= o->boots) {
		*why = xasprintf("%zu boot%s without a crash", usable, usable == 1 ? "" : "s");
		return MARK_GOOD;
	}
	if (s->nboots >= o->max_boots) {
		*why = xasprintf("only %zu of %zu boots usable (%zu INFRA_ERROR): skipped", usable,
				 s->nboots, s->ninfra);
		return MARK_SKIP;
	}
	*why = xasprintf("%zu usable boot%s without a crash so far", usable, usable == 1 ? "" : "s");
	return MARK_NONE;
}

size_t bisect_next_batch(const struct bisect_opts *o, const struct step_boots *s)
{
	if (s->nboots >= o->max_boots)
		return 0;
	size_t left = o->max_boots - s->nboots, want;
	if (o->crash) {
		size_t usable = s->nboots - s->ninfra;
		want = s->nboots == 0 ? 1 : usable < o->boots ? o->boots - usable : 1;
	} else {
		want = s->nboots < o->boots ? o->boots - s->nboots : o->boots;
	}
	return want < left ? want : left;
}

/* ------------------------------------------------------------ the chart */

enum { CW = 56, LEFT = 80, TOP = 40, PLOT_H = 260, BOTTOM = 90 };

static const char *mark_colour(enum bisect_mark m)
{
	return m == MARK_GOOD ? "#2e7d32" : m == MARK_BAD ? "#c62828" : "#9e9e9e";
}

static const char *verdict_colour(const char *v)
{
	if (!strcmp(v, "PASS"))
		return "#2e7d32";
	if (!strcmp(v, "FAIL"))
		return "#ef6c00";
	if (!strcmp(v, "INFRA_ERROR"))
		return "#9e9e9e";
	return "#c62828";       /* PANIC, HANG, BOOT_FAIL */
}

/* Performance mode: chart.h's chart, a group per tested commit, coloured by
 * its mark, over dashed lines at the ends' means. */
static void metric_chart(const struct chart *c, FILE *out)
{
	struct chart_group *g = xcalloc(c->ncols + 1, sizeof(*g));
	char (*classes)[32] = xcalloc(c->ncols + 1, sizeof(*classes));
	for (size_t i = 0; i < c->ncols; i++) {
		const struct chart_column *col = &c->cols[i];
		snprintf(classes[i], sizeof(classes[i]), "commit %s", bisect_mark_name(col->mark));
		g[i] = (struct chart_group){ col->label, col->role, col->values, col->nvalues,
					     mark_colour(col->mark), NULL, classes[i] };
	}
	const struct chart_line lines[] = {
		{ c->good_mean, "good mean", mark_colour(MARK_GOOD), "good-mean" },
		{ c->bad_mean, "bad mean", mark_colour(MARK_BAD), "bad-mean" },
	};
	struct chart_spec spec = { c->title, c->unit, g, c->ncols, lines, 2,
				   "each PASS boot per tested commit: green good, red bad, grey skipped",
				   c->threshold_pct };
	chart_svg(&spec, out);
	free(g), free(classes);
}

void bisect_chart_svg(const struct chart *c, FILE *out)
{
	if (!c->crash) {
		metric_chart(c, out);
		return;
	}
	int w = LEFT + CW * (int)(c->ncols ? c->ncols : 1) + 40, h = TOP + PLOT_H + BOTTOM;
	size_t most = 1;
	for (size_t i = 0; i < c->ncols; i++)
		if (c->cols[i].nverdicts > most)
			most = c->cols[i].nverdicts;
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n", w, h, w, h);
	fputs("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"10\" y=\"20\" "
	      "font-size=\"14\">", out);
	xml_escape(out, c->title ? c->title : "");
	fputs(": boots per tested commit, by verdict (green PASS, orange FAIL, red crash, "
	      "grey INFRA_ERROR)</text>\n", out);
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", LEFT,
		TOP + PLOT_H, w - 20, TOP + PLOT_H);
	for (size_t i = 0; i < c->ncols; i++) {
		const struct chart_column *col = &c->cols[i];
		double x = LEFT + CW * (double)i + CW / 2.0;
		fprintf(out, "<g class=\"commit %s\"><title>", bisect_mark_name(col->mark));
		xml_escape(out, col->role ? col->role : "");
		fputs(" ", out);
		xml_escape(out, col->label ? col->label : "");
		fprintf(out, ": %s</title>\n", bisect_mark_name(col->mark));
		double side = (double)PLOT_H / (double)most;
		if (side > 24)
			side = 24;
		for (size_t k = 0; k < col->nverdicts; k++)
			fprintf(out, "<rect class=\"boot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				"fill=\"%s\"/>\n", x - side / 2 + 1, TOP + PLOT_H - side * (double)(k + 1) + 1,
				side - 2, side - 2, verdict_colour(col->verdicts[k]));
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"end\" transform=\"rotate(-45 %.1f %d)\" "
			"fill=\"%s\">", x, TOP + PLOT_H + 14, x, TOP + PLOT_H + 14, mark_colour(col->mark));
		xml_escape(out, col->label ? col->label : "");
		fputs(" ", out);
		xml_escape(out, col->role ? col->role : "");
		fputs("</text></g>\n", out);
	}
	fputs("</svg>\n", out);
}
