/*
 * compare.c: deciding a comparison (see compare.h): the metric rows with
 * their statistics and verdicts, the ABI table, new kernel failure events
 * and failing verdicts, new KTAP (KUnit) case failures, the console lines one side prints and the other
 * does not (--logs), the functions whose profile shares changed (the
 * perf-profile lines), and the exit status.
 */
#include "compare.h"
#include "exitcodes.h"
#include "lognorm.h"
#include "stats.h"
#include "textsafe.h"
#include "util.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *change_name(enum change ch)
{
	switch (ch) {
	case CHANGE_NOISE: return "noise";
	case CHANGE_IMPROVED: return "improved";
	case CHANGE_REGRESSED: return "regressed";
	case CHANGE_UNTESTED: return "untested";
	case CHANGE_ABSENT: return "absent";
	}
	return "?";
}

void compare_summary(const struct comparison *c, bool one_line, FILE *out)
{
	fprintf(out, "%u regressed, %u improved, %zu new kernel failure%s, %zu new failing verdict%s",
		c->regressions, c->improvements, c->nevents, c->nevents == 1 ? "" : "s",
		c->nverdicts, c->nverdicts == 1 ? "" : "s");
	if (c->ncases && one_line)
		fprintf(out, ", %zu new KTAP failure%s", c->ncases, c->ncases == 1 ? "" : "s");
	if (c->unusable)
		fputs("; a side has no usable boot", out);
	if (c->ncases && !one_line)
		fprintf(out, "\n%zu new KTAP failure%s", c->ncases, c->ncases == 1 ? "" : "s");
}

const char *row_id(const struct metric_row *r, char *buf, size_t size)
{
	snprintf(buf, size, "%s.%s.%s", r->abi, r->test, r->name);
	return buf;
}

const char *side_tag(const struct comparison *c, size_t side, char *buf, size_t size)
{
	if (side == 0)
		snprintf(buf, size, "BASE");
	else if (c->nsides == 2)
		snprintf(buf, size, "CAND");
	else
		snprintf(buf, size, "CAND%zu", side);
	return buf;
}

const char *fmt_value(double v, char *buf, size_t size)
{
	double a = fabs(v);
	if (!isfinite(v))
		snprintf(buf, size, "-");
	else if (a >= 10000)
		snprintf(buf, size, "%.0f", v);
	else if (a >= 100)
		snprintf(buf, size, "%.1f", v);
	else if (a >= 1)
		snprintf(buf, size, "%.2f", v);
	else
		snprintf(buf, size, "%.4f", v);
	return buf;
}

const char *fmt_pct(double pct, char *buf, size_t size)
{
	if (isfinite(pct))
		snprintf(buf, size, "%+.1f%%", pct);
	else
		snprintf(buf, size, "-");
	return buf;
}

void xml_escape(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t n = strlen(s), len; n; p += len, n -= len) {
		len = 1;
		switch (*p) {
		case '&': fputs("&amp;", out); continue;
		case '<': fputs("&lt;", out); continue;
		case '>': fputs("&gt;", out); continue;
		case '"': fputs("&quot;", out); continue;
		case '\'': fputs("&#39;", out); continue;
		}
		/* Controls (C0 but tab and newline, DEL, C1), bytes that are
		 * not UTF-8, and U+FFFE and U+FFFF (XML 1.0's Char excludes
		 * them) become U+FFFD. */
		bool control = text_control(p, n, &len) && *p != '\t' && *p != '\n';
		if (control || (len == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe))
			fputs("\xef\xbf\xbd", out);
		else
			fwrite(p, 1, len, out);
	}
}

/* Does glob g select metric id (abi.test.name)? A glob naming a function's
 * share ("abi.test.name:self.FUNC", results.h: side_values()) selects the
 * metric its part before the ':' matches. */
static bool glob_selects(const char *g, const char *id)
{
	const char *colon = strchr(g, ':');
	if (!colon || strstr(g, PERF_STAT_MARK))     /* a counter's id is a metric's */
		return fnmatch(g, id, 0) == 0;
	char *metric = xasprintf("%.*s", (int)(colon - g), g);
	bool yes = fnmatch(metric, id, 0) == 0;
	free(metric);
	return yes;
}

/* Did a glob naming functions' shares select the metric id? Then its
 * profile lines are those functions', whether the metric changed or not. */
static bool shares_selected(const struct compare_opts *o, const char *id)
{
	for (const char **g = o->metric_globs; g && *g; g++)
		if (strchr(*g, ':') && glob_selects(*g, id))
			return true;
	return false;
}

/* Is function fn's share of kind k in metric id's profile selected: by a
 * glob naming it, or by no such glob selecting the metric at all? */
static bool share_selected(const struct compare_opts *o, const char *id, enum profile_kind k,
			   const char *fn)
{
	if (!shares_selected(o, id))
		return true;
	char *full = xasprintf("%s:%s.%s", id, profile_kind_name(k), fn);
	bool yes = false;
	for (const char **g = o->metric_globs; *g && !yes; g++)
		yes = strchr(*g, ':') && fnmatch(*g, full, 0) == 0;
	free(full);
	return yes;
}

/* Does the metric pass the --metric globs (matched against abi.test.name)? */
static bool metric_selected(const struct compare_opts *o, const struct metric_series *m)
{
	if (o->only_name)
		return !strcmp(m->abi, o->only_abi) && !strcmp(m->test, o->only_test) &&
		       !strcmp(m->name, o->only_name);
	if (!o->metric_globs || !o->metric_globs[0])
		return true;
	char id[512];
	snprintf(id, sizeof(id), "%s.%s.%s", m->abi, m->test, m->name);
	for (const char **g = o->metric_globs; *g; g++)
		if (glob_selects(*g, id))
			return true;
	return false;
}

/* triple_get over the comparison's rows. */
static void row_key(const void *ctx, size_t i, const char *key[3])
{
	const struct metric_row *r = &((const struct comparison *)ctx)->rows[i];
	key[0] = r->abi, key[1] = r->test, key[2] = r->name;
}

/* The verdict of one candidate's series against BASE's. */
static void decide(const struct comparison *c, const struct metric_row *r,
		   const struct side_stat *base, const struct side_stat *cand,
		   struct cand_cmp *out)
{
	*out = (struct cand_cmp){ NAN, NAN, NAN, CHANGE_ABSENT, 0, NAN };
	if (!base->series || !cand->series)
		return;
	out->pct_change = stats_pct_change(base->mean, cand->mean);
	const struct metric_series *a = base->series, *b = cand->series;
	struct welch w;
	out->change = CHANGE_UNTESTED;
	if (stats_welch(a->obs, a->n, b->obs, b->n, &w) < 0)
		return;
	out->p_welch = w.p;
	out->p_mwu = stats_mann_whitney(a->obs, a->n, b->obs, b->n, NULL);
	/* The threshold is never below the noise floor the seeds show: a change
	 * smaller than one side's own seed-to-seed spread is the seeds' luck,
	 * however small p is (a side of one seed has no spread: opts' alone) */
	out->floor_pct = stats_noise_floor_pct(a->obs, a->n, b->obs, b->n);
	out->threshold_pct = out->floor_pct > c->opts.threshold_pct ? out->floor_pct : c->opts.threshold_pct;
	out->change = CHANGE_NOISE;
	if (!(w.p < c->opts.alpha) || !(fabs(out->pct_change) >= out->threshold_pct))
		return;
	bool up = out->pct_change > 0;
	out->change = up == r->higher_better ? CHANGE_IMPROVED : CHANGE_REGRESSED;
}

/* Leaves out the perf stat counters' rows no candidate changed (unless
 * --perf-stat-all, or a --metric glob chose the rows). */
static void drop_unchanged_counters(struct comparison *c)
{
	size_t kept = 0;
	for (size_t i = 0; i < c->nrows; i++) {
		struct metric_row *r = &c->rows[i];
		bool keep = !r->counter || c->opts.perf_stat_all;
		for (const char **g = c->opts.metric_globs; g && *g && !keep; g++)
			keep = strstr(*g, PERF_STAT_MARK) != NULL;    /* it chose them */
		for (size_t s = 1; s < c->nsides && !keep; s++)
			keep = r->cmp[s].change == CHANGE_REGRESSED || r->cmp[s].change == CHANGE_IMPROVED;
		if (keep)
			c->rows[kept++] = *r;
		else
			free(r->stat), free(r->cmp);
	}
	c->nrows = kept;
}

/* One row per metric identity found on any side, in order of appearance. */
static void build_rows(struct comparison *c)
{
	struct triple_index rows = { 0 };
	for (size_t s = 0; s < c->nsides; s++) {
		const struct side *side = &c->sides[s];
		for (size_t i = 0; i < side->nmetrics; i++) {
			const struct metric_series *m = &side->metrics[i];
			const char *key[3] = { m->abi, m->test, m->name };
			if (!metric_selected(&c->opts, m) ||
			    triple_index_find(&rows, key, row_key, c) != SIZE_MAX)
				continue;
			if (!(c->nrows & (c->nrows - 1)))       /* 0, 1, 2, 4...: doubled */
				c->rows = xrealloc(c->rows, (c->nrows ? 2 * c->nrows : 1) * sizeof(*c->rows));
			c->rows[c->nrows++] = (struct metric_row){
				.abi = m->abi, .test = m->test, .name = m->name, .unit = m->unit,
				.higher_better = m->higher_better,
				.counter = strstr(m->name, PERF_STAT_MARK) != NULL,
				.stat = xcalloc(c->nsides, sizeof(struct side_stat)),
				.cmp = xcalloc(c->nsides, sizeof(struct cand_cmp)),
			};
			triple_index_add(&rows, c->nrows - 1, row_key, c);
		}
	}
	triple_index_free(&rows);
	for (size_t i = 0; i < c->nrows; i++) {
		struct metric_row *r = &c->rows[i];
		for (size_t s = 0; s < c->nsides; s++) {
			const struct metric_series *m = side_metric(&c->sides[s], r->abi, r->test, r->name);
			struct side_stat *st = &r->stat[s];
			st->series = m;
			st->mean = m ? stats_mean(m->obs, m->n) : NAN;
			st->stddev_pct = m && st->mean != 0 ?
				stats_stddev(m->obs, m->n) / fabs(st->mean) * 100 : NAN;
		}
		for (size_t s = 1; s < c->nsides; s++) {
			decide(c, r, &r->stat[0], &r->stat[s], &r->cmp[s]);
			c->regressions += !r->counter && r->cmp[s].change == CHANGE_REGRESSED;
			c->improvements += !r->counter && r->cmp[s].change == CHANGE_IMPROVED;
		}
	}
	drop_unchanged_counters(c);
}

const char *profile_kind_name(enum profile_kind k)
{
	return k == PROFILE_SELF ? "self" : "children";
}

/* triple_get over an array of function names. */
static void name_key(const void *ctx, size_t i, const char *key[3])
{
	key[0] = ((const char *const *)ctx)[i], key[1] = key[2] = "";
}

/*
 * Function f's statistics of kind k over every side's profile (row r's).
 * A boot that does not list f has it below its cut, anywhere from 0 to the
 * cut (profile_fn_values()): the means and changes take it midway, and p is
 * Welch's at the ends of those intervals least favourable to the change
 * (BASE's at the cut and the candidate's at 0 for a rise, the other way
 * round for a fall), untested when the change vanishes or turns there: a
 * change is claimed only when it holds whatever the functions below the
 * cut had. a and b hold a side's boots.
 */
static struct profile_cmp profile_stats(const struct comparison *c, const struct metric_row *r,
					const char *f, enum profile_kind k, double *a, double *b)
{
	size_t ns = c->nsides;
	bool children = k == PROFILE_CHILDREN;
	struct profile_cmp pc = { .kind = k, .function = f, .mean = xcalloc(3 * ns, sizeof(double)),
				  .rank = xcalloc(ns, sizeof(int)), .below = xcalloc(ns, sizeof(size_t)) };
	pc.change = pc.mean + ns, pc.p = pc.mean + 2 * ns;
	const struct profile_series *base = r->prof[0];
	const struct profile_fn_series *fb = profile_fn(base, f);
	pc.below[0] = profile_fn_values(base, fb, children, 0.5, a);
	pc.mean[0] = stats_mean(a, base->nboots);
	for (size_t s = 1; s < ns; s++) {
		const struct profile_series *cand = r->prof[s];
		const struct profile_fn_series *fc = cand ? profile_fn(cand, f) : NULL;
		struct welch w;
		pc.rank[s] = -1;
		pc.mean[s] = pc.change[s] = pc.p[s] = NAN;
		if (!cand)
			continue;
		pc.below[s] = profile_fn_values(cand, fc, children, 0.5, b);
		pc.mean[s] = stats_mean(b, cand->nboots);
		pc.change[s] = pc.mean[s] - pc.mean[0];
		bool rise = pc.change[s] > 0;
		profile_fn_values(base, fb, children, rise ? 1 : 0, a);
		profile_fn_values(cand, fc, children, rise ? 0 : 1, b);
		double worst = stats_mean(b, cand->nboots) - stats_mean(a, base->nboots);
		if ((!pc.below[0] && !pc.below[s]) || worst * pc.change[s] > 0)
			if (stats_welch(a, base->nboots, b, cand->nboots, &w) == 0)
				pc.p[s] = w.p;
		profile_fn_values(base, fb, children, 0.5, a);
	}
	return pc;
}

/* Ranks, per candidate and kind, the PROFILE_TOP largest |change| with
 * p < alpha (ties in name order: the same whatever order a source listed
 * the functions in, so a database side reads as its directories do); with
 * named (a glob named the functions: shares_selected()), every function of
 * v both sides have, changed or not, the largest |change| first. */
static void rank_profile(const struct comparison *c, struct profile_cmp *v, size_t n, bool named)
{
	for (size_t s = 1; s < c->nsides; s++)
		for (int k = PROFILE_SELF; k <= PROFILE_CHILDREN; k++)
			for (int rank = 0; rank < (named ? (int)n : PROFILE_TOP); rank++) {
				struct profile_cmp *best = NULL;
				for (size_t i = 0; i < n; i++)
					if (v[i].kind == (enum profile_kind)k && v[i].rank[s] < 0 &&
					    (named ? isfinite(v[i].mean[0]) && isfinite(v[i].mean[s])
						   : v[i].p[s] < c->opts.alpha && v[i].change[s] != 0) &&
					    (!best || fabs(v[i].change[s]) > fabs(best->change[s]) ||
					     (fabs(v[i].change[s]) == fabs(best->change[s]) &&
					      strcmp(v[i].function, best->function) < 0)))
						best = &v[i];
				if (best)
					best->rank[s] = rank;
			}
}

/* The order of the kept functions (their .order): self first, then the
 * largest |change| shown, then by name (cmp_profile). */
static double profile_order(const struct comparison *c, const struct profile_cmp *pc)
{
	double most = 0;
	for (size_t s = 1; s < c->nsides; s++)
		if (pc->rank[s] >= 0 && fabs(pc->change[s]) > most)
			most = fabs(pc->change[s]);
	return (pc->kind == PROFILE_CHILDREN ? 1e9 : 0) - most;
}

static int cmp_profile(const void *x, const void *y)
{
	const struct profile_cmp *a = x, *b = y;
	if (a->order != b->order)
		return (a->order > b->order) - (a->order < b->order);
	return strcmp(a->function, b->function);
}

/* Row r's profile lines (compare.h, struct profile_cmp): for a row that
 * changed on a candidate, or every row with profile_all; none with
 * no_profile or when BASE has no profile of it. */
static void row_profile(struct comparison *c, struct metric_row *r)
{
	bool changed = false;
	r->prof = xcalloc(c->nsides, sizeof(*r->prof));
	size_t most = 0;
	for (size_t s = 0; s < c->nsides; s++) {
		r->prof[s] = side_profile(&c->sides[s], r->abi, r->test, r->name);
		if (r->prof[s] && r->prof[s]->nboots > most)
			most = r->prof[s]->nboots;
		changed |= s && (r->cmp[s].change == CHANGE_IMPROVED || r->cmp[s].change == CHANGE_REGRESSED);
	}
	char id[512];
	row_id(r, id, sizeof(id));
	if (c->opts.no_profile || !r->prof[0] ||
	    !(changed || c->opts.profile_all || shares_selected(&c->opts, id)))
		return;
	const char **names = NULL;
	size_t nn = 0;
	struct triple_index seen = { 0 };
	for (size_t s = 0; s < c->nsides; s++)
		for (size_t i = 0; r->prof[s] && i < r->prof[s]->nfns; i++) {
			const char *key[3] = { r->prof[s]->fns[i].name, "", "" };
			if (triple_index_find(&seen, key, name_key, names) != SIZE_MAX)
				continue;
			if (!(nn & (nn - 1)))
				names = xrealloc(names, (nn ? 2 * nn : 1) * sizeof(*names));
			names[nn++] = key[0];
			triple_index_add(&seen, nn - 1, name_key, names);
		}
	triple_index_free(&seen);
	double *a = xcalloc(most + 1, sizeof(double)), *b = xcalloc(most + 1, sizeof(double));
	struct profile_cmp *v = xcalloc(2 * nn + 1, sizeof(*v));
	size_t nv = 0;
	for (size_t i = 0; i < 2 * nn; i++) {
		enum profile_kind k = i < nn ? PROFILE_SELF : PROFILE_CHILDREN;
		if (share_selected(&c->opts, id, k, names[i % nn]))
			v[nv++] = profile_stats(c, r, names[i % nn], k, a, b);
	}
	rank_profile(c, v, nv, shares_selected(&c->opts, id));
	for (size_t i = 0; i < nv; i++) {
		bool kept = false;
		for (size_t s = 1; s < c->nsides; s++)
			kept |= v[i].rank[s] >= 0;
		v[i].order = profile_order(c, &v[i]);
		if (kept)
			v[r->nprofile++] = v[i];
		else
			free(v[i].mean), free(v[i].rank), free(v[i].below);
	}
	qsort(v, r->nprofile, sizeof(*v), cmp_profile);
	r->profile = v;
	free(a), free(b), free(names);
}

/* initcalls_moved()'s order: the largest |change| first, then by name. */
static int cmp_move(const void *x, const void *y)
{
	const struct initcall_move *a = x, *b = y;
	double da = fabs(a->change), db = fabs(b->change);
	if (da != db)
		return da < db ? 1 : -1;
	return strcmp(a->row->name, b->row->name);
}

struct initcall_move *initcalls_moved(const struct comparison *c, size_t s, size_t *n)
{
	struct initcall_move *v = xcalloc(c->nrows + 1, sizeof(*v));
	*n = 0;
	for (size_t i = 0; i < c->nrows; i++) {
		const struct metric_row *r = &c->rows[i];
		enum change ch = r->cmp[s].change;
		if (row_is_initcall(r) && (ch == CHANGE_REGRESSED || ch == CHANGE_IMPROVED))
			v[(*n)++] = (struct initcall_move){ r, r->stat[s].mean - r->stat[0].mean };
	}
	qsort(v, *n, sizeof(*v), cmp_move);
	return v;
}

/* The ABI table: every ABI any side reports, and where it got worse. */
static void build_abis(struct comparison *c)
{
	for (size_t s = 0; s < c->nsides; s++) {
		for (size_t i = 0; i < c->sides[s].nabis; i++) {
			const char *name = c->sides[s].abis[i].abi;
			bool seen = false;
			for (size_t k = 0; k < c->nabis && !seen; k++)
				seen = !strcmp(c->abis[k].abi, name);
			if (seen)
				continue;
			c->abis = xrealloc(c->abis, (c->nabis + 1) * sizeof(*c->abis));
			struct abi_row *row = &c->abis[c->nabis++];
			row->abi = name;
			row->status = xcalloc(c->nsides, sizeof(*row->status));
			row->worse = xcalloc(c->nsides, sizeof(*row->worse));
		}
	}
	for (size_t k = 0; k < c->nabis; k++) {
		struct abi_row *row = &c->abis[k];
		for (size_t s = 0; s < c->nsides; s++)
			row->status[s] = abi_status(&c->sides[s], row->abi);
		for (size_t s = 1; s < c->nsides; s++) {
			row->worse[s] = !strcmp(row->status[0], "ok") && strcmp(row->status[s], "ok");
			c->regressions += row->worse[s];
		}
	}
}

/* How many of side's boots showed a kernel failure titled title. */
static unsigned boots_with(const struct side *side, const char *title)
{
	unsigned n = 0;
	size_t last = SIZE_MAX;
	for (size_t k = 0; k < side->nevents; k++)
		if (event_is_kernel_failure(side->events[k].kind) && !strcmp(side->events[k].title, title) &&
		    side->events[k].boot != last) {
			n++;
			last = side->events[k].boot;
		}
	return n;
}

/* Kernel failure events of each candidate, one per title (a title is a
 * crash's identity): new when BASE never showed it (c->events), else the
 * same crash (c->known, with BASE's count). */
static void build_events(struct comparison *c)
{
	const struct side *base = &c->sides[0];
	for (size_t s = 1; s < c->nsides; s++) {
		const struct side *side = &c->sides[s];
		for (size_t i = 0; i < side->nevents; i++) {
			const struct event_info *e = &side->events[i];
			if (!event_is_kernel_failure(e->kind))
				continue;
			unsigned on_base = boots_with(base, e->title);
			struct new_event **list = on_base ? &c->known : &c->events;
			size_t *n = on_base ? &c->nknown : &c->nevents;
			struct new_event *dup = NULL;
			for (size_t k = 0; k < *n && !dup; k++)
				if ((*list)[k].side == s && !strcmp((*list)[k].event->title, e->title))
					dup = &(*list)[k];
			if (dup) {
				dup->boots += dup->last_boot != e->boot;
				dup->last_boot = e->boot;
				continue;
			}
			*list = xrealloc(*list, (*n + 1) * sizeof(**list));
			(*list)[(*n)++] = (struct new_event){ s, e, 1, e->boot, on_base };
		}
	}
}

/* Failing verdicts (not PASS, not INFRA_ERROR) of a candidate that BASE never had. */
static void build_verdicts(struct comparison *c)
{
	const struct side *base = &c->sides[0];
	for (size_t s = 1; s < c->nsides; s++) {
		const struct side *side = &c->sides[s];
		for (size_t i = 0; i < side->nboots; i++) {
			const char *v = side->boots[i].verdict;
			if (side->boots[i].passed || !strcmp(v, "INFRA_ERROR"))
				continue;
			bool known = false;
			for (size_t k = 0; k < base->nboots && !known; k++)
				known = !strcmp(base->boots[k].verdict, v);
			if (known)
				continue;
			struct new_verdict *dup = NULL;
			for (size_t k = 0; k < c->nverdicts && !dup; k++)
				if (c->verdicts[k].side == s && !strcmp(c->verdicts[k].verdict, v))
					dup = &c->verdicts[k];
			if (dup) {
				dup->boots++;
				continue;
			}
			c->verdicts = xrealloc(c->verdicts, (c->nverdicts + 1) * sizeof(*c->verdicts));
			c->verdicts[c->nverdicts++] = (struct new_verdict){ s, v, 1 };
		}
	}
}

const char *ktap_case_status(const struct side *side, const char *suite, const char *name)
{
	const char *st = "absent";
	for (size_t i = 0; i < side->ncases; i++) {
		const struct ktap_case_info *k = &side->cases[i];
		if (strcmp(k->suite, suite) || strcmp(k->name, name))
			continue;
		if (!strcmp(k->status, "fail"))
			return "fail";
		if (!strcmp(k->status, "ok") || !strcmp(st, "absent"))
			st = !strcmp(k->status, "ok") ? "ok" : "skip";
	}
	return st;
}

/* KTAP cases a candidate fails that BASE never failed (it passed, skipped
 * them, or did not run them), as new kernel failures are. */
static void build_cases(struct comparison *c)
{
	const struct side *base = &c->sides[0];
	for (size_t s = 1; s < c->nsides; s++) {
		const struct side *side = &c->sides[s];
		for (size_t i = 0; i < side->ncases; i++) {
			const struct ktap_case_info *k = &side->cases[i];
			if (strcmp(k->status, "fail"))
				continue;
			const char *on_base = ktap_case_status(base, k->suite, k->name);
			if (!strcmp(on_base, "fail"))
				continue;
			struct new_case *dup = NULL;
			for (size_t n = 0; n < c->ncases && !dup; n++)
				if (c->cases[n].side == s && !strcmp(c->cases[n].kcase->suite, k->suite) &&
				    !strcmp(c->cases[n].kcase->name, k->name))
					dup = &c->cases[n];
			if (dup) {
				dup->boots += dup->last_boot != k->boot;
				dup->last_boot = k->boot;
				continue;
			}
			c->cases = xrealloc(c->cases, (c->ncases + 1) * sizeof(*c->cases));
			c->cases[c->ncases++] = (struct new_case){ s, k, on_base, 1, k->boot };
		}
	}
}

/*
 * For each side, in how many of its boots each normalized console line
 * appears (a line printed twice by one boot counts once).
 */
static void add_warning(struct comparison *c, char *w)
{
	c->warnings = xrealloc(c->warnings, (c->nwarnings + 1) * sizeof(*c->warnings));
	c->warnings[c->nwarnings++] = w;
}

static struct line_counts *side_log_lines(struct comparison *c, const struct side *side,
					  size_t *nlogs)
{
	struct line_counts *counts = line_counts_new();
	*nlogs = 0;
	for (size_t b = 0; b < side->nboots; b++) {
		char *path = xasprintf("%s/console.log", side->boots[b].dir);
		struct log log;
		int loaded = log_load(&log, path);
		if (loaded < 0 && errno == EFBIG)
			add_warning(c, xasprintf("%s: larger than %u MiB: its lines are not compared",
						     path, LOG_MAX_BYTES >> 20));
		if (loaded == 0) {
			struct line_counts *once = line_counts_new();
			for (size_t i = 0; i < log.n; i++)
				if (log.norm[i][0] && line_counts_add(once, log.norm[i], 1) == 1)
					line_counts_add(counts, log.norm[i], 1);
			line_counts_free(once);
			log_free(&log);
			(*nlogs)++;
		}
		free(path);
	}
	return counts;
}

/* Adds the lines side `has` prints in most boots and side `lacks` in none. */
static void add_log_lines(struct comparison *c, size_t has, const struct line_counts *h,
			  size_t nh, size_t lacks, const struct line_counts *l)
{
	for (size_t i = 0; i < line_counts_size(h); i++) {
		unsigned n = line_counts_value(h, i);
		const char *key = line_counts_key(h, i);
		if (2 * n <= nh || line_counts_get(l, key))
			continue;
		c->log_lines = xrealloc(c->log_lines, (c->nlog_lines + 1) * sizeof(*c->log_lines));
		c->log_lines[c->nlog_lines++] = (struct log_line){ has, lacks, xstrdup(key), n };
	}
}

/* --logs: compares each candidate's console lines with BASE's. */
static void build_log_lines(struct comparison *c)
{
	size_t nbase;
	struct line_counts *base = side_log_lines(c, &c->sides[0], &nbase);
	for (size_t s = 1; s < c->nsides; s++) {
		size_t ncand;
		struct line_counts *cand = side_log_lines(c, &c->sides[s], &ncand);
		add_log_lines(c, 0, base, nbase, s, cand);
		add_log_lines(c, s, cand, ncand, 0, base);
		line_counts_free(cand);
	}
	line_counts_free(base);
}

/* The seed of side's first counted boot that has one ("": none). */
static const char *first_seed(const struct side *side)
{
	for (size_t i = 0; i < side->nboots; i++)
		if (side->boots[i].counted && side->boots[i].seed)
			return side->boots[i].seed;
	return "";
}

const struct boot_info *boot_walk_next(const struct comparison *c, bool counted,
				       struct boot_walk *w)
{
	for (; w->side < c->nsides; w->side++, w->next = 0)
		while (w->next < c->sides[w->side].nboots) {
			const struct boot_info *b = &c->sides[w->side].boots[w->next++];
			if (b->passed || b->counted != counted)
				continue;
			w->first = !w->started;
			w->started = true;
			return b;
		}
	return NULL;
}

char *fail_causes_note(const struct side *side, bool counted)
{
	const char *causes[8];
	size_t ncauses = 0, n = 0;
	for (size_t i = 0; i < side->nboots; i++) {
		const struct boot_info *b = &side->boots[i];
		if (!b->fail_cause || b->counted != counted || (!counted && !b->nmetrics))
			continue;
		n++;
		size_t k = 0;
		while (k < ncauses && strcmp(causes[k], b->fail_cause))
			k++;
		if (k == ncauses && ncauses < ARRAY_SIZE(causes))
			causes[ncauses++] = b->fail_cause;
	}
	if (!n)
		return NULL;
	char *list = xstrdup("");
	for (size_t k = 0; k < ncauses; k++) {
		char *more = xasprintf("%s%s%s", list, k ? ", " : "", causes[k]);
		free(list);
		list = more;
	}
	char *note = xasprintf("%zu FAIL boot%s (%s)", n, n == 1 ? "" : "s", list);
	free(list);
	return note;
}

char *fail_legend(const struct comparison *c, size_t s)
{
	char tag[32], *legend = NULL;
	for (size_t k = 0; k < c->nsides; k++) {
		char *note = k == 0 || !s || k == s ? fail_causes_note(&c->sides[k], true) : NULL;
		if (!note)
			continue;
		char *more = xasprintf("%s%s%s %s", legend ? legend : "",
				       legend ? "; " : "includes FAIL boots (--include-fail): ",
				       side_tag(c, k, tag, sizeof(tag)), note);
		free(legend), free(note);
		legend = more;
	}
	return legend;
}

/* Without --include-fail: one line when FAIL boots that it would count
 * (with metrics, failed for something else than them) were left out. */
static void warn_fail_left(struct comparison *c)
{
	size_t n = 0;
	char *notes = xstrdup("");
	for (size_t s = 0; s < c->nsides; s++) {
		const struct side *side = &c->sides[s];
		char tag[32], *note = side->nfail_left ? fail_causes_note(side, false) : NULL;
		if (!note)
			continue;
		char *more = xasprintf("%s%s%s %s", notes, n ? "; " : "",
				       side_tag(c, s, tag, sizeof(tag)), note);
		free(notes), free(note);
		notes = more;
		n += side->nfail_left;
	}
	if (n)
		add_warning(c, xasprintf("metrics of FAIL boots left out of the statistics: %s; "
					 "--include-fail counts them", notes));
	free(notes);
}

/* The events side's perf stat could not count, by ABI and reason, in order
 * of first appearance: "x86_64: cycles, instructions (ENOENT)", or NULL. */
static char *uncounted_note(const struct side *side)
{
	char *note = NULL;
	bool *done = xcalloc(side->nuncounted + 1, sizeof(*done));
	for (size_t i = 0; i < side->nuncounted; i++) {
		if (done[i])
			continue;
		const struct side_uncounted *u = &side->uncounted[i];
		char *events = xstrdup("");
		for (size_t j = i; j < side->nuncounted; j++) {
			const struct side_uncounted *v = &side->uncounted[j];
			if (done[j] || strcmp(u->abi, v->abi) || strcmp(u->reason, v->reason))
				continue;
			char *more = xasprintf("%s%s%s", events, *events ? ", " : "", v->event);
			free(events);
			events = more;
			done[j] = true;
		}
		char *more = xasprintf("%s%s%s: %s (%s)", note ? note : "", note ? "; " : "",
				       term_str(u->abi), term_str(events), term_str(u->reason));
		free(note), free(events);
		note = more;
	}
	free(done);
	return note;
}

/* One note for the events perf stat could not count (their rows are not
 * there): once when every side says the same, else a side at a time. */
static void warn_uncounted(struct comparison *c)
{
	char **notes = xcalloc(c->nsides + 1, sizeof(*notes));
	bool alike = true;
	for (size_t s = 0; s < c->nsides; s++) {
		notes[s] = uncounted_note(&c->sides[s]);
		alike = alike && (notes[s] && notes[0] ? !strcmp(notes[s], notes[0]) : notes[s] == notes[0]);
	}
	for (size_t s = 0; s < c->nsides; s++) {
		char tag[32];
		if (notes[s] && (!alike || s == 0))
			add_warning(c, xasprintf("perf stat could not count these on %s's boots, so they "
						 "have no rows: %s", alike && c->nsides > 1 ? "every side"
						 : side_tag(c, s, tag, sizeof(tag)), notes[s]));
		free(notes[s]);
	}
	free(notes);
}

/* Notes the sides too small for the statistics to mean much, and the
 * sides whose boots are copies of one boot (one seed under icount). */
static void build_warnings(struct comparison *c)
{
	for (size_t s = 0; s < c->nsides; s++) {
		const struct side *side = &c->sides[s];
		char *w = NULL;
		if (side->nboots == side->ninfra)
			w = xasprintf("%s has no usable boot (%zu found, all INFRA_ERROR or none)",
				      side->label, side->nboots);
		else if (side_counted(side) < 3)
			w = xasprintf("%s has %zu %s boot%s: the statistics need at least 3 a side",
				      side->label, side_counted(side),
				      side->nfail_included ? "counted" : "passing",
				      side_counted(side) == 1 ? "" : "s");
		if (w)
			add_warning(c, w);
		size_t unknown, seeds = side_seeds(side, &unknown);
		if (side_counted(side) >= 2 && seeds == 1 && !unknown)
			add_warning(c, xasprintf("%s: its %zu %s boots ran one seed (%s): under icount "
						 "they are one boot, so p weighs nothing (run --repeat N boots "
						 "seeds 1 to N)", side->label, side_counted(side),
						 side->nfail_included ? "counted" : "passing",
						 first_seed(side)));
	}
	warn_fail_left(c);
	warn_uncounted(c);
	/* Boots whose own samples did not settle within their target. */
	for (size_t i = 0; i < c->nrows; i++) {
		for (size_t s = 0; s < c->nsides; s++) {
			const struct metric_series *m = c->rows[i].stat[s].series;
			if (!m || !m->unmet)
				continue;
			char *w = xasprintf("%s: %s.%s.%s: %zu of %zu boot%s took the most samples without "
					    "reaching ±%.4g %% (widest ±%.4g %%, %zu samples pooled): its "
					    "clock is noisier than the target", c->sides[s].label, m->abi,
					    m->test, m->name, m->unmet, m->n, m->n == 1 ? "" : "s",
					    m->ci_target, m->ci_max, m->samples);
			add_warning(c, w);
		}
	}
}

void compare_sides(struct comparison *c, struct side *sides, size_t nsides,
		   const struct compare_opts *opts)
{
	*c = (struct comparison){ .opts = *opts, .sides = sides, .nsides = nsides };
	for (size_t s = 0; s < nsides; s++)
		if (sides[s].nboots == sides[s].ninfra)
			c->unusable = true;
	build_rows(c);
	for (size_t i = 0; i < c->nrows; i++)
		row_profile(c, &c->rows[i]);
	build_warnings(c);
	build_abis(c);
	build_events(c);
	build_verdicts(c);
	build_cases(c);
	if (opts->logs)
		build_log_lines(c);
	if (c->unusable)
		c->exit_code = EXIT_INFRA;
	else if (c->regressions || c->nevents || c->nverdicts || c->ncases)
		c->exit_code = EXIT_FAIL;
	else
		c->exit_code = EXIT_PASS;
}

void comparison_free(struct comparison *c)
{
	for (size_t i = 0; i < c->nrows; i++) {
		struct metric_row *r = &c->rows[i];
		for (size_t k = 0; k < r->nprofile; k++)
			free(r->profile[k].mean), free(r->profile[k].rank), free(r->profile[k].below);
		free(r->stat), free(r->cmp), free(r->prof), free(r->profile);
	}
	for (size_t i = 0; i < c->nabis; i++)
		free(c->abis[i].status), free(c->abis[i].worse);
	for (size_t i = 0; i < c->nlog_lines; i++)
		free(c->log_lines[i].text);
	for (size_t i = 0; i < c->nwarnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	free(c->rows), free(c->abis), free(c->events), free(c->verdicts), free(c->log_lines);
	free(c->known);
	free(c->cases);
	*c = (struct comparison){ 0 };
}

char *new_verdict_message(const struct comparison *c, const struct new_verdict *v)
{
	return xasprintf("%s in %u of %zu boots; BASE never had it", v->verdict, v->boots,
			 c->sides[v->side].nboots);
}
