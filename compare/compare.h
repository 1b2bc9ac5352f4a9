/*
 * compare.h: the comparison of a BASE side with one or more candidates, and
 * the reports drawn from it (text, JSON, JUnit XML, HTML, KTAP).
 *
 * compare_sides() decides everything; the reports only print. A metric
 * row's value on a side is the mean of its per-boot medians (results.h), its
 * spread the sample standard deviation of those, as a percentage of the
 * mean. A candidate's change is significant when Welch's t-test gives
 * p < alpha AND |%change| >= threshold; its direction (improved/regressed)
 * follows the metric's "better" field. The Mann-Whitney U p-value is shown
 * beside Welch's, as a check that does not assume normality.
 */
#ifndef BOOTRIG_COMPARE_H
#define BOOTRIG_COMPARE_H

#include "results.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct json_object;

enum change {
	CHANGE_NOISE,           /* within noise (or below the threshold) */
	CHANGE_IMPROVED,
	CHANGE_REGRESSED,
	CHANGE_UNTESTED,        /* a side has fewer than 2 observations */
	CHANGE_ABSENT,          /* the metric is missing on one side */
};

struct side_stat {
	const struct metric_series *series;     /* NULL: absent on that side */
	double mean, stddev_pct;
};

struct cand_cmp {
	double pct_change;      /* (cand - base) / base * 100 */
	double p_welch, p_mwu;  /* NAN when untested */
	enum change change;
	double floor_pct;       /* the seeds' noise floor: the larger side's
				 * stats_spread_pct over its boots (0: none seen) */
	double threshold_pct;   /* the threshold applied: opts' or the floor,
				 * whichever is larger */
};

/*
 * A function of a metric's profile whose share changed (the kernel test
 * robot's perf-profile.self.FUNC / perf-profile.children.FUNC lines): its
 * mean share (percent of samples) on each side, each boot's share one
 * observation (0 in a boot whose profile does not list it), the change in
 * percentage points and Welch's p over those observations. Kept when, for
 * some candidate, p < alpha and it is among the PROFILE_TOP largest
 * |change| of its kind there (rank[s]); fewer than 2 boots a side: never.
 * A --metric glob naming functions' shares ("abi.test.name:self.FUNC")
 * keeps each function it names that both sides have, changed or not
 * (rank[s] then runs past PROFILE_TOP).
 */
enum { PROFILE_TOP = 5 };
enum profile_kind { PROFILE_SELF, PROFILE_CHILDREN };

struct profile_cmp {
	enum profile_kind kind;
	const char *function;
	double *mean;                   /* [nsides]: mean share (%), NAN: no profile */
	double *change;                 /* [nsides]: mean[s] - mean[0], points; [0] unused */
	double *p;                      /* [nsides]: Welch's p, NAN untested; [0] unused */
	int *rank;                      /* [nsides]: 0.. among candidate s's shown, -1 not */
	size_t *below;                  /* [nsides]: boots of the side that have the function
					 * below their cut (not listed: its share only
					 * bounded; compare.c profile_stats()) */
	double order;                   /* the report's order (internal) */
};

struct metric_row {
	const char *abi, *test, *name, *unit;
	bool higher_better;
	bool counter;                   /* a perf stat counter's row ("NAME:perf-stat.EVENT",
					 * results.h): shown under its metric, changed or not
					 * it decides nothing (no regression, no JUnit or
					 * KTAP case); kept only where a candidate changed
					 * unless opts.perf_stat_all or a --metric names it */
	struct side_stat *stat;         /* [nsides] */
	struct cand_cmp *cmp;           /* [nsides]; cmp[0] unused */
	const struct profile_series **prof;     /* [nsides]: the metric's profile, or NULL */
	struct profile_cmp *profile;    /* the functions kept, self ones first */
	size_t nprofile;
};

struct abi_row {
	const char *abi;
	const char **status;            /* [nsides] */
	bool *worse;                    /* [nsides]: ok on BASE, not ok here */
};

struct new_event {
	size_t side;
	const struct event_info *event;
	unsigned boots;                 /* how many of the side's boots had it */
	size_t last_boot;               /* the last boot counted (internal) */
	unsigned base_boots;            /* known events: how many of BASE's boots had it */
};

struct new_verdict {
	size_t side;
	const char *verdict;            /* a failing verdict BASE never had */
	unsigned boots;
};

/* A KTAP (KUnit) case failing on a candidate that never failed on BASE. */
struct new_case {
	size_t side;
	const struct ktap_case_info *kcase;
	const char *base_status;        /* on BASE: "ok", "skip", or "absent" */
	unsigned boots;                 /* how many of the side's boots failed it */
	size_t last_boot;               /* the last boot counted (internal) */
};

struct log_line {
	size_t side;            /* the side that has it (the other lacks it) */
	size_t against;         /* the side it is compared against */
	char *text;             /* normalized */
	unsigned boots;         /* how many of the side's boots print it */
};

struct compare_opts {
	const char **metric_globs;      /* NULL-terminated, or NULL: all */
	const char *only_abi, *only_test, *only_name;   /* set: that one metric, by
					 * exact match (a name is never a pattern:
					 * "null[1]" is itself) */
	double threshold_pct;           /* default 5 */
	double alpha;                   /* default 0.01 */
	bool logs;
	bool profile_all;               /* profile lines of every metric, not only changed ones */
	bool perf_stat_all;             /* every perf stat counter's row, not only changed ones */
	bool no_profile;                /* no profile lines or flame graphs */
	bool include_fail;              /* --include-fail: the sides were loaded with it
					 * (struct side .include_fail), for the reports */
};

struct comparison {
	struct compare_opts opts;
	struct side *sides;             /* [0] is BASE */
	size_t nsides;
	struct metric_row *rows;
	size_t nrows;
	struct abi_row *abis;
	size_t nabis;
	struct new_event *events;
	size_t nevents;
	struct new_event *known;        /* a candidate's kernel failures whose title BASE
					 * showed too: the same crash, how often on each side */
	size_t nknown;
	struct new_verdict *verdicts;
	size_t nverdicts;
	struct new_case *cases;         /* new KTAP case failures */
	size_t ncases;
	struct log_line *log_lines;
	size_t nlog_lines;
	char **warnings;                /* for the reader: small samples, ... */
	size_t nwarnings;
	unsigned regressions, improvements;
	bool unusable;                  /* a side has no usable boot */
	int exit_code;                  /* as the contract says */
};

/* Compares sides[1..] with sides[0]; the comparison borrows the sides. */
void compare_sides(struct comparison *c, struct side *sides, size_t nsides,
		   const struct compare_opts *opts);
void comparison_free(struct comparison *c);

/* How KTAP case (suite, name) went on side over its boots: "fail" if any boot
 * failed it, else "ok" if one passed it, "skip" if it was only skipped, else
 * "absent". */
const char *ktap_case_status(const struct side *side, const char *suite, const char *name);

/*
 * fail_causes_note: side's FAIL boots that failed for something other than
 * their metrics (boot_info .fail_cause) and were counted (counted true:
 * --include-fail) or whose metrics were left out (false: those with
 * metrics, struct side .nfail_left), as every report says them: "2 FAIL
 * boots (KTAP case failed)", "3 FAIL boots (KTAP case failed, kernel
 * report)", the causes in boot order; NULL when there is none. Malloc'd.
 */
char *fail_causes_note(const struct side *side, bool counted);

/*
 * fail_legend: what the reports' mark on a value (its observations include
 * FAIL boots', metric_series .nfail) means, for BASE and candidate s (s 0:
 * every side): "includes FAIL boots (--include-fail): BASE 1 FAIL boot
 * (KTAP case failed); CAND 2 FAIL boots (kernel report)", the sides that
 * counted any (fail_causes_note()); NULL when none did. Malloc'd.
 */
char *fail_legend(const struct comparison *c, size_t s);

/*
 * boot_walk_next: the boots a report lists, side by side, each in boot
 * order: those that gave no observation (counted false: not PASS, not
 * counted), or the FAIL boots counted (true: --include-fail). Start w
 * zeroed; each call returns the next one, w->side its side and w->first
 * whether it is the first returned; NULL past the last.
 */
struct boot_walk {
	size_t side, next;      /* where the walk is (internal: next boot to look at) */
	bool first;
	bool started;           /* internal */
};
const struct boot_info *boot_walk_next(const struct comparison *c, bool counted,
				       struct boot_walk *w);

/* What a new verdict of candidate v->side says in a report: "PANIC in 2 of
 * 3 boots; BASE never had it" (malloc'd). */
char *new_verdict_message(const struct comparison *c, const struct new_verdict *v);

/*
 * compare_summary: the comparison's counts in the words every report's
 * summary line says them: "R regressed, I improved, E new kernel
 * failure(s), V new failing verdict(s)", when there are any ", K new KTAP
 * failure(s)", and "; a side has no usable boot" when one has none; with
 * one_line false (the text report) the KTAP count comes last, on a line
 * of its own. No newline at the end. Numbers and fixed words only:
 * nothing to escape.
 */
void compare_summary(const struct comparison *c, bool one_line, FILE *out);

/* Verdict words used by every report: "improved", "regressed", ... */
const char *change_name(enum change ch);
/* "aarch64.lat_syscall.null" into buf. */
const char *row_id(const struct metric_row *r, char *buf, size_t size);

/* "BASE", "CAND", or "CAND1", "CAND2"... when there are several. */
const char *side_tag(const struct comparison *c, size_t side, char *buf, size_t size);
/* A measurement with the digits it deserves (0.4412, 14.10, 812.3, 12345);
 * "-" when it is not a finite number. */
const char *fmt_value(double v, char *buf, size_t size);
/* A %change as "+1.2%", or "-" when there is none (a side lacks the metric). */
const char *fmt_pct(double pct, char *buf, size_t size);
/* "self" or "children". */
const char *profile_kind_name(enum profile_kind k);

/* Does BASE or candidate s have metric row r? (Another candidate's row is
 * no case of s's, in the reports that list cases per candidate.) */
static inline bool metric_here(const struct metric_row *r, size_t s)
{
	if (r->counter)
		return false;      /* decides nothing: not a case */
	return r->stat[0].series || r->stat[s].series;
}

/* Is row r one of a boot's initcalls (run --boot-time's boot.initcall.FUNC, in us)? */
static inline bool row_is_initcall(const struct metric_row *r)
{
	return !strcmp(r->abi, "boot") && !strcmp(r->test, "initcall");
}

/* An initcall that moved on a candidate (initcalls_moved()). */
struct initcall_move {
	const struct metric_row *row;
	double change;                  /* the candidate's mean - BASE's (us): the time
					 * the boot gained (+) or lost (-) there */
};

/*
 * The initcalls (row_is_initcall()) that moved on candidate s: those whose
 * verdict there is regressed or improved (decided as every metric's is:
 * p_welch < alpha and |%change| past the threshold or the seeds' floor),
 * the largest |change| in us first, ties in name order. Malloc'd (free
 * it, also when *n is 0), *n of them.
 */
struct initcall_move *initcalls_moved(const struct comparison *c, size_t s, size_t *n);

/* Does BASE or candidate s report ABI row r? */
static inline bool abi_here(const struct abi_row *r, size_t s)
{
	return strcmp(r->status[0], "-") || strcmp(r->status[s], "-");
}

/*
 * Writes s escaped for XML and HTML text and attribute values: & < > " '
 * as entities, control characters other than tab and newline (C0, DEL and
 * C1: text_control), bytes that are not valid UTF-8, and U+FFFE and
 * U+FFFF (not characters of XML 1.0) as U+FFFD, so any console text is
 * safe and the document well-formed. Every XML, SVG and HTML writer
 * writes untrusted text through here.
 */
void xml_escape(FILE *out, const char *s);

void report_text(const struct comparison *c, FILE *out, bool colour);
struct json_object *report_json(const struct comparison *c);
void report_junit(const struct comparison *c, FILE *out);
void report_html(const struct comparison *c, FILE *out);
/* KTAP (report-ktap.c): kunit.py parse reads it. */
void report_ktap(const struct comparison *c, FILE *out);

#endif
