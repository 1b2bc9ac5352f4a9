/*
 * report-ktap.c: the comparison as KTAP version 1, which the kernel's own
 * tools/testing/kunit/kunit.py parse reads. One subtest per candidate
 * ("CAND: path"), in it up to four subtests, each only when it has cases:
 *   metrics   each metric's regression check ("abi.test.name"): not ok when
 *             it regressed significantly past the threshold, SKIP when it
 *             could not be tested or is absent on a side, else ok; the
 *             means, %change and p-value as diagnostics ("-" for what a
 *             side lacks, never a NaN);
 *   abis      each ABI: not ok when it was ok on BASE and is not here;
 *   ktap      each KTAP (KUnit) case the candidate ran ("suite.case"): not ok
 *             when it fails here and never failed on BASE (a new failure),
 *             SKIP when skipped, else ok (a case failing on both sides too:
 *             it is no change, said in its diagnostics);
 *   failures  each new kernel failure title and new failing verdict.
 * A subtest is not ok when a case in it is. A metric or an ABI that neither
 * BASE nor this candidate has (another candidate's) is no case of its.
 */
#include "compare.h"
#include "ktapout.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The distinct KTAP cases of a side, in order of first appearance. */
static size_t distinct_cases(const struct side *side, const struct ktap_case_info ***out)
{
	const struct ktap_case_info **v = NULL;
	size_t n = 0;
	for (size_t i = 0; i < side->ncases; i++) {
		const struct ktap_case_info *k = &side->cases[i];
		bool seen = false;
		for (size_t j = 0; j < n && !seen; j++)
			seen = !strcmp(v[j]->suite, k->suite) && !strcmp(v[j]->name, k->name);
		if (seen)
			continue;
		v = xrealloc(v, (n + 1) * sizeof(*v));
		v[n++] = k;
	}
	*out = v;
	return n;
}

/* The new failure of (suite, name) on side s, or NULL. */
static const struct new_case *new_case_of(const struct comparison *c, size_t s,
					  const struct ktap_case_info *k)
{
	for (size_t i = 0; i < c->ncases; i++)
		if (c->cases[i].side == s && !strcmp(c->cases[i].kcase->suite, k->suite) &&
		    !strcmp(c->cases[i].kcase->name, k->name))
			return &c->cases[i];
	return NULL;
}


/* The metrics subtest of candidate s (n rows here); true when a case failed. */
static bool metrics(struct ktapout *k, const struct comparison *c, size_t s, size_t n)
{
	char id[512], a[32], b[32], chg[32];
	bool failed = false;
	ktapout_subtest(k, "metrics", n);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct metric_row *r = &c->rows[i];
		const struct cand_cmp *cmp = &r->cmp[s];
		if (!metric_here(r, s))
			continue;
		row_id(r, id, sizeof(id));
		if (!isfinite(cmp->pct_change))
			snprintf(chg, sizeof(chg), "-");
		else
			snprintf(chg, sizeof(chg), "%+.2f %%", cmp->pct_change);
		char p[32];
		if (isnan(cmp->p_welch))
			snprintf(p, sizeof(p), "-");
		else if (cmp->p_welch < 0.0001)
			snprintf(p, sizeof(p), "<0.0001");
		else
			snprintf(p, sizeof(p), "%.4f", cmp->p_welch);
		char *diag = xasprintf("BASE %s %s, CAND %s %s, change %s, p %s: %s",
				       fmt_value(r->stat[0].mean, a, sizeof(a)), r->unit,
				       fmt_value(r->stat[s].mean, b, sizeof(b)), r->unit,
				       chg, p, change_name(cmp->change));
		enum ktapout_status st = cmp->change == CHANGE_REGRESSED ? KTAPOUT_FAIL :
			cmp->change == CHANGE_UNTESTED || cmp->change == CHANGE_ABSENT ? KTAPOUT_SKIP :
			KTAPOUT_OK;
		ktapout_case(k, id, st, change_name(cmp->change), diag);
		failed = failed || st == KTAPOUT_FAIL;
		free(diag);
	}
	ktapout_end_subtest(k, "metrics", failed ? KTAPOUT_FAIL : KTAPOUT_OK);
	return failed;
}

/* The abis subtest of candidate s (n rows here); true when a case failed. */
static bool abis(struct ktapout *k, const struct comparison *c, size_t s, size_t n)
{
	bool failed = false;
	ktapout_subtest(k, "abis", n);
	for (size_t i = 0; i < c->nabis; i++) {
		const struct abi_row *r = &c->abis[i];
		if (!abi_here(r, s))
			continue;
		char *diag = xasprintf("BASE %s, CAND %s", r->status[0], r->status[s]);
		ktapout_case(k, r->abi, r->worse[s] ? KTAPOUT_FAIL : KTAPOUT_OK, NULL, diag);
		failed = failed || r->worse[s];
		free(diag);
	}
	ktapout_end_subtest(k, "abis", failed ? KTAPOUT_FAIL : KTAPOUT_OK);
	return failed;
}

/* The ktap subtest of candidate s over its n distinct cases; true when one failed. */
static bool ktap_cases(struct ktapout *k, const struct comparison *c, size_t s,
		       const struct ktap_case_info **cases, size_t n)
{
	bool failed = false;
	ktapout_subtest(k, "ktap", n);
	for (size_t i = 0; i < n; i++) {
		const struct ktap_case_info *kc = cases[i];
		const struct new_case *nc = new_case_of(c, s, kc);
		const char *here = ktap_case_status(&c->sides[s], kc->suite, kc->name);
		char *name = xasprintf("%s%s%s", kc->suite, *kc->suite ? "." : "", kc->name);
		char *diag;
		enum ktapout_status st;
		if (nc) {
			st = KTAPOUT_FAIL;
			diag = xasprintf("new failure: failed in %u of %zu boots; BASE: %s", nc->boots,
					 c->sides[s].nboots, nc->base_status);
		} else if (!strcmp(here, "fail")) {
			st = KTAPOUT_OK;
			diag = xstrdup("fails on BASE too: no change");
		} else {
			st = !strcmp(here, "skip") ? KTAPOUT_SKIP : KTAPOUT_OK;
			diag = NULL;
		}
		ktapout_case(k, name, st, "skipped", diag);
		failed = failed || st == KTAPOUT_FAIL;
		free(name), free(diag);
	}
	ktapout_end_subtest(k, "ktap", failed ? KTAPOUT_FAIL : KTAPOUT_OK);
	return failed;
}

/* The failures subtest of candidate s (n cases: its new events and verdicts). */
static void failures(struct ktapout *k, const struct comparison *c, size_t s, size_t n)
{
	ktapout_subtest(k, "failures", n);
	for (size_t i = 0; i < c->nevents; i++) {
		const struct new_event *e = &c->events[i];
		if (e->side != s)
			continue;
		char *name = xasprintf("%s: %s", e->event->kind, e->event->title);
		char *diag = xasprintf("new kernel failure in %u of %zu boots", e->boots,
				       c->sides[s].nboots);
		ktapout_case(k, name, KTAPOUT_FAIL, NULL, diag);
		free(name), free(diag);
	}
	for (size_t i = 0; i < c->nverdicts; i++) {
		const struct new_verdict *v = &c->verdicts[i];
		if (v->side != s)
			continue;
		char *diag = new_verdict_message(c, v);
		ktapout_case(k, v->verdict, KTAPOUT_FAIL, NULL, diag);
		free(diag);
	}
	ktapout_end_subtest(k, "failures", KTAPOUT_FAIL);
}

void report_ktap(const struct comparison *c, FILE *out)
{
	struct ktapout k;
	char tag[16];
	ktapout_begin(&k, out, c->nsides > 1 ? c->nsides - 1 : 0);
	for (size_t s = 1; s < c->nsides; s++) {
		const struct ktap_case_info **cases;
		size_t ncases = distinct_cases(&c->sides[s], &cases), nfail = 0, nrows = 0, nabis = 0;
		for (size_t i = 0; i < c->nrows; i++)
			nrows += metric_here(&c->rows[i], s);
		for (size_t i = 0; i < c->nabis; i++)
			nabis += abi_here(&c->abis[i], s);
		for (size_t i = 0; i < c->nevents; i++)
			nfail += c->events[i].side == s;
		for (size_t i = 0; i < c->nverdicts; i++)
			nfail += c->verdicts[i].side == s;
		char *name = xasprintf("%s: %s", side_tag(c, s, tag, sizeof(tag)), c->sides[s].label);
		ktapout_subtest(&k, name, (nrows > 0) + (nabis > 0) + (ncases > 0) + (nfail > 0));
		bool failed = false;
		if (nrows)
			failed |= metrics(&k, c, s, nrows);
		if (nabis)
			failed |= abis(&k, c, s, nabis);
		if (ncases)
			failed |= ktap_cases(&k, c, s, cases, ncases);
		if (nfail) {
			failures(&k, c, s, nfail);
			failed = true;
		}
		ktapout_end_subtest(&k, name, failed ? KTAPOUT_FAIL : KTAPOUT_OK);
		free(name);
		free(cases);
	}
}
