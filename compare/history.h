/*
 * history.h: one metric over the kernels of a history database: each
 * kernel's boots as a side (db.c), its median, interval and n, and the
 * change points, decided by compare's own rule (compare_sides()) between
 * each kernel and the one before it that has the metric; and each kernel's
 * change from the first one (the same rule: where a drift of small steps
 * adds up).
 *
 * Kernels are in time order: by their first boot's start (result.json
 * "started"), ties by the order they were first recorded; or, with
 * by_version, in the order of their version's first word (strverscmp:
 * 6.1.0-47 before 6.1.0-50 before 6.1.0-128), ties in time order. Each
 * kernel's observations are compare's: one per PASS boot, that boot's
 * median.
 */
#ifndef BOOTRIG_HISTORY_H
#define BOOTRIG_HISTORY_H

#include "compare.h"
#include "db.h"

#include <stdio.h>

struct history_point {
	const struct db_kernel *kernel;
	struct side side;               /* its boots that pass the filter */
	const struct metric_series *series;     /* NULL: no observation of the metric */
	double median, lo, hi;          /* stats_median, stats_interval (mean ± sd) */
	size_t prev;                    /* the point compared against, SIZE_MAX: none */
	struct cand_cmp cmp;            /* against prev (compare's verdict) */
	struct cand_cmp total;          /* against the first point with the metric */
	bool change;                    /* a change point: improved or regressed */
	char **warnings;                /* compare's, for this pair */
	size_t nwarnings;
};

struct history {
	char *abi, *test, *name;        /* the metric (a share's: "name:self.FUNC") */
	struct db_share share;          /* a function share (METRIC abi.test.name:self.FUNC
					 * or :children.FUNC, db.h); share.fn NULL: none */
	const char *unit;               /* from the first series (or "") */
	bool higher_better;
	struct db_filter filter;
	bool by_version;                /* kernels in version order, not time order */
	bool mixed;                     /* pool a kernel's boots even when run differently */
	struct compare_opts opts;
	struct db_kernel *kernels;      /* [nkernels] */
	size_t nkernels;
	struct history_point *points;   /* one per kernel, in time order */
	size_t n, nchanges;
};

/*
 * history_parse_metric: METRIC as compare names it (abi.test.name) or with
 * slashes (abi/test/name), or test.name with abi given (--abi); into
 * h->abi, test, name. Either may end in ":self.FUNC" or ":children.FUNC":
 * then the metric is FUNC's share in that metric's profile (h->share, set
 * in h->filter too), named "name:self.FUNC". 0, or -1 after a message.
 */
int history_parse_metric(struct history *h, const char *metric, const char *abi);

/*
 * history_build: the points of h's metric over db's kernels passing
 * h->filter, under h->opts (threshold, alpha). Each kernel's boots must
 * have been run alike (side_check_alike()) unless h->mixed; a metric no
 * kernel has is an error. 0, or EXIT_DATAERR after a message.
 */
int history_build(struct history *h, struct history_db *db);
void history_free(struct history *h);

/* The reports: a text table, JSON ("bootrig-history-1"), an SVG trend
 * (chart.h, its axis never narrower than h->opts' threshold makes visible). */
void history_text(const struct history *h, FILE *out);
struct json_object *history_json(const struct history *h);
void history_svg(const struct history *h, FILE *out);

#endif
