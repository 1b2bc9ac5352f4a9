/*
 * bisect.h: the decisions of `bootrig bisect` (compare/cmd-bisect.c), kept
 * apart from git and the boots so that they can be tested alone, and the
 * SVG chart of a bisection.
 *
 * Performance mode: each end (good, bad) is N boots; each PASS boot's
 * median of the metric is one observation, as in `compare`. The ends must
 * differ significantly by compare's rule (Welch's p < alpha AND |%change|
 * >= threshold). A tested commit is good when its observations differ
 * significantly from the bad end's and not from the good end's, bad in the
 * mirror case; otherwise more boots, up to max_boots; then a commit that
 * differs from both ends is called by the nearer end (it lies between
 * them: said so in its "why"), and one that differs from neither (too
 * noisy to tell) is skipped. A commit with fewer than 2 PASS boots is
 * skipped, never guessed.
 *
 * Crash mode: the bisection follows one crash by its title, as syzbot's
 * does: the title given (--title, a fnmatch pattern), or else the exact
 * title of the bad end's first crash (cmd-bisect.c: the bad end is booted
 * first, N times, and its first crashing boot's first kernel failure
 * event names it); only when that crash has no title is a boot bad by its
 * verdict alone (PANIC, HANG or BOOT_FAIL). A boot is bad when one of its
 * kernel failure events has the title; a crash of another title is
 * neither good nor bad (the commit is skipped, never called bad). One bad
 * boot makes the commit bad; it is good after N usable boots (not
 * INFRA_ERROR) without one. A commit that cannot get N usable boots
 * within max_boots is skipped. Each boot of a commit has its own seed.
 */
#ifndef BOOTRIG_BISECT_H
#define BOOTRIG_BISECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum bisect_mark {
	MARK_NONE,              /* undecided: more boots wanted */
	MARK_GOOD,
	MARK_BAD,
	MARK_SKIP,
};

/* "good", "bad", "skip", "undecided": also git bisect's words. */
const char *bisect_mark_name(enum bisect_mark m);

struct bisect_opts {
	size_t boots;           /* N: boots per end and per step (>= 1) */
	size_t max_boots;       /* M >= N */
	double alpha;           /* compare's default 0.01 */
	double threshold_pct;   /* compare's default 5 */
	bool crash;             /* crash mode, else performance */
	const char *title;      /* crash mode: the title followed, or NULL */
	bool exact;             /* title is a title (compared exactly), not a
				 * fnmatch pattern */
};

/* Is the verdict a crash (PANIC, HANG or BOOT_FAIL): what crash mode
 * without a title calls bad? */
bool bisect_crash_verdict(const char *verdict);

/* One commit's boots, counted from its results (results.h). */
struct step_boots {
	size_t nboots;          /* every boot with a result */
	size_t npass, ninfra, ncrash, nfail;
	size_t ntitle;          /* boots with a kernel failure titled as opts.title */
	const char *other_title;/* with a title pattern: the title of a crash that
				 * does not match it (first seen), or NULL */
	const double *obs;      /* performance: the PASS boots' medians */
	size_t nobs;
	char other_buf[256];    /* other_title's text (bisect_count_boot) */
};

/*
 * bisect_count_boot: counts one boot into s: its verdict (PASS, INFRA_ERROR,
 * a crash: PANIC, HANG or BOOT_FAIL, or else a failure) and, with a title
 * pattern (o->title), the titles of its kernel failure events: a match
 * (fnmatch, or with o->exact the same string) counts in ntitle; else the
 * first boot that crashed or failed otherwise
 * than FAIL (or whose failure titles all differ) names other_title (the
 * first such title, else its verdict). Start from a zeroed s.
 */
void bisect_count_boot(const struct bisect_opts *o, struct step_boots *s, const char *verdict,
		       const char *const *titles, size_t ntitles);

/* The figures of one commit against the ends (NAN where untested). */
struct step_stats {
	double median, spread_pct;      /* of obs; spread: stddev as % of the mean */
	double p_good, p_bad;           /* Welch's p against each end */
	double mwu_good, mwu_bad;       /* Mann-Whitney U's */
	double change_good, change_bad; /* %change of the mean from each end's */
};

/* Median and spread of x[0..n) into st (the rest NAN). */
void bisect_summarize(const double *x, size_t n, struct step_stats *st);

/* A p-value for the step table into buf: stats_fmt_p's "0.0123", "<0.0001",
 * or "-" when there is none (NaN), kept under this name for cmd-bisect.c.
 * Returns buf. */
const char *bisect_fmt_p(double p, char *buf, size_t size);

/*
 * bisect_ends_differ: do the ends differ by compare's rule? Fills st with
 * the bad end against the good one (p_good, mwu_good, change_good; median
 * and spread of bad) and *why (malloc'd) with a sentence. False also when
 * an end has fewer than 2 observations.
 */
bool bisect_ends_differ(const struct bisect_opts *o, const double *good, size_t ng,
			const double *bad, size_t nb, struct step_stats *st, char **why);

/*
 * bisect_decide_metric: the mark of a commit whose boots are s, against
 * the ends' observations (performance mode, rule above). MARK_NONE only
 * while s->nboots < o->max_boots. st gets the figures, *why (malloc'd)
 * the reason in a line.
 */
enum bisect_mark bisect_decide_metric(const struct bisect_opts *o, const double *good, size_t ng,
				      const double *bad, size_t nb, const struct step_boots *s,
				      struct step_stats *st, char **why);

/*
 * bisect_decide_end: performance mode, an end that is to have end_boots
 * boots: MARK_GOOD (usable: 2 PASS boots or more) once it has them, or
 * MARK_SKIP when it has them and no PASS (or max_boots and one PASS);
 * else MARK_NONE (boot more). *why (malloc'd): its PASS count.
 */
enum bisect_mark bisect_decide_end(const struct bisect_opts *o, const struct step_boots *s,
				   size_t end_boots, char **why);

/*
 * bisect_ends_more: performance mode, the ends have want boots each and
 * differ (by bisect_ends_differ) or not, the bad end's %change from the
 * good being change: how many boots each end is to have now, or 0 to stop
 * boosting: they differ, max_boots is reached, or the change is below the
 * threshold (more boots would not make it count). Else N more, up to
 * max_boots.
 */
size_t bisect_ends_more(const struct bisect_opts *o, bool differ, double change, size_t want);

/* bisect_decide_crash: the same in crash mode. */
enum bisect_mark bisect_decide_crash(const struct bisect_opts *o, const struct step_boots *s,
				     char **why);

/*
 * bisect_next_batch: how many boots to run before deciding again, given
 * s (after a MARK_NONE): performance mode, up to N, then N at a time;
 * crash mode, one first (a crash decides at once), then the rest of the N;
 * never past max_boots. At least 1 when s->nboots < max_boots.
 */
size_t bisect_next_batch(const struct bisect_opts *o, const struct step_boots *s);

/* ------------------------------------------------------------ the chart */

struct chart_column {
	const char *label;              /* a short commit id */
	const char *role;               /* "good end", "bad end", "step 3" */
	enum bisect_mark mark;
	const double *values;           /* performance: each PASS boot's value */
	size_t nvalues;
	const char *const *verdicts;    /* crash mode: each boot's verdict */
	size_t nverdicts;
};

struct chart {
	const char *title;              /* the metric (or "crash bisection") */
	const char *unit;               /* or NULL */
	bool crash;
	const struct chart_column *cols;/* in bisection order */
	size_t ncols;
	double good_mean, bad_mean;     /* performance: the ends' means (lines) */
	double threshold_pct;           /* performance: the change that counts (chart_spec's) */
};

/*
 * bisect_chart_svg: an SVG document of the chart: one column per tested
 * commit in bisection order; performance: chart.h's chart (each boot's
 * value a point, green when the commit was marked good, red bad, grey
 * skipped, its median and interval, the axis from zero or visibly broken,
 * never narrower than threshold_pct makes visible) over dashed lines at the ends' means; crash mode: a square per boot coloured by its
 * verdict. Text is XML-escaped. Written to out.
 */
void bisect_chart_svg(const struct chart *c, FILE *out);

#endif
