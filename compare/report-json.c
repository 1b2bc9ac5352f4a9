/*
 * report-json.c: the comparison as one JSON document, "bootrig-compare-1",
 * described field by field in compare/SCHEMA.md. A number that does not
 * exist (a p-value without enough boots, a value on a side without the
 * metric) is null, never NaN.
 */
#include "compare.h"
#include "stats.h"
#include "textsafe.h"
#include "util.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>

/* A double, or null when it is not finite. */
static struct json_object *num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

/* sides[s]: counts, the boots left out, the FAIL boots counted
 * (--include-fail), median stage times. */
static struct json_object *side_json(const struct comparison *c, size_t s)
{
	const struct side *side = &c->sides[s];
	char tag[16];
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "tag", json_cstring_utf8(side_tag(c, s, tag, sizeof(tag))));
	json_object_object_add(o, "path", json_cstring_utf8(side->label));
	json_object_object_add(o, "boots", json_object_new_int((int)side->nboots));
	json_object_object_add(o, "passed", json_object_new_int((int)side->npass));
	json_object_object_add(o, "infra_errors", json_object_new_int((int)side->ninfra));
	json_object_object_add(o, "copies", json_object_new_int((int)side->ncopies));
	size_t unknown, seeds = side_seeds(side, &unknown);
	json_object_object_add(o, "seeds", json_object_new_int((int)seeds));
	json_object_object_add(o, "seeds_unknown", json_object_new_int((int)unknown));
	struct json_object *left = json_object_new_array(), *counted = json_object_new_array();
	for (size_t i = 0; i < side->nboots; i++) {
		const struct boot_info *b = &side->boots[i];
		if (b->passed)
			continue;
		struct json_object *e = json_object_new_object();
		json_object_object_add(e, "dir", json_cstring_utf8(b->dir));
		json_object_object_add(e, "kernel_id", json_cstring_utf8(b->kernel_id));
		json_object_object_add(e, "variant", json_cstring_utf8(b->variant));
		json_object_object_add(e, "boot", json_object_new_int(b->boot));
		json_object_object_add(e, "verdict", json_cstring_utf8(b->verdict));
		json_object_object_add(e, "reason", json_cstring_utf8(b->reason));
		json_object_object_add(e, "fail_cause", b->fail_cause ?
				       json_cstring_utf8(b->fail_cause) : NULL);
		json_object_array_add(b->counted ? counted : left, e);
	}
	json_object_object_add(o, "fail_included", json_object_new_int((int)side->nfail_included));
	json_object_object_add(o, "fail_left_out", json_object_new_int((int)side->nfail_left));
	json_object_object_add(o, "fail_counted", counted);
	json_object_object_add(o, "left_out", left);
	struct json_object *stages = json_object_new_object();
	for (int i = 0; i < RESULT_STAGES; i++)
		if (side->nstages[i])
			json_object_object_add(stages, result_stage_names[i],
					       num(stats_median(side->stages[i], side->nstages[i])));
	json_object_object_add(o, "stages", stages);
	return o;
}

/* metrics[].profile: the functions kept (compare.h, struct profile_cmp),
 * per candidate arrays as "changes" has. */
static struct json_object *profile_json(const struct comparison *c, const struct metric_row *r)
{
	struct json_object *a = json_object_new_array();
	for (size_t i = 0; i < r->nprofile; i++) {
		const struct profile_cmp *pc = &r->profile[i];
		struct json_object *o = json_object_new_object();
		struct json_object *cand = json_object_new_array(), *change = json_object_new_array();
		struct json_object *p = json_object_new_array(), *shown = json_object_new_array();
		json_object_object_add(o, "kind", json_cstring_utf8(profile_kind_name(pc->kind)));
		json_object_object_add(o, "function", json_cstring_utf8(pc->function));
		json_object_object_add(o, "base", num(pc->mean[0]));
		for (size_t s = 1; s < c->nsides; s++) {
			json_object_array_add(cand, num(pc->mean[s]));
			json_object_array_add(change, num(pc->change[s]));
			json_object_array_add(p, num(pc->p[s]));
			/* a line a --metric glob named is kept whatever its p */
			json_object_array_add(shown, json_object_new_boolean(
				pc->rank[s] >= 0 && pc->p[s] < c->opts.alpha && pc->change[s] != 0));
		}
		json_object_object_add(o, "cand", cand);
		json_object_object_add(o, "change_points", change);
		json_object_object_add(o, "p_welch", p);
		json_object_object_add(o, "significant", shown);
		struct json_object *below = json_object_new_array();
		for (size_t s = 0; s < c->nsides; s++)
			json_object_array_add(below, json_object_new_int((int)pc->below[s]));
		json_object_object_add(o, "below_cut", below);
		json_object_array_add(a, o);
	}
	return a;
}

/* metrics[]: identity, each side's observations and each candidate's change. */
static struct json_object *metric_json(const struct comparison *c, const struct metric_row *r)
{
	char id[512];
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "id", json_cstring_utf8(row_id(r, id, sizeof(id))));
	json_object_object_add(o, "abi", json_cstring_utf8(r->abi));
	json_object_object_add(o, "test", json_cstring_utf8(r->test));
	json_object_object_add(o, "name", json_cstring_utf8(r->name));
	json_object_object_add(o, "unit", json_cstring_utf8(r->unit));
	json_object_object_add(o, "better", json_cstring_utf8(r->higher_better ? "higher" : "lower"));
	if (r->counter)     /* a perf stat counter's row: decides nothing */
		json_object_object_add(o, "perf_stat", json_object_new_boolean(true));
	struct json_object *sides = json_object_new_array();
	for (size_t s = 0; s < c->nsides; s++) {
		const struct side_stat *st = &r->stat[s];
		if (!st->series) {
			json_object_array_add(sides, NULL);
			continue;
		}
		struct json_object *so = json_object_new_object();
		json_object_object_add(so, "n", json_object_new_int((int)st->series->n));
		json_object_object_add(so, "fail_included", json_object_new_int((int)st->series->nfail));
		json_object_object_add(so, "mean", num(st->mean));
		json_object_object_add(so, "stddev_pct", num(st->stddev_pct));
		json_object_object_add(so, "samples", json_object_new_int64((int64_t)st->series->samples));
		json_object_object_add(so, "ci_max_pct", num(st->series->ci_max));
		json_object_object_add(so, "ci_target_pct", num(st->series->ci_target));
		json_object_object_add(so, "unmet", json_object_new_int64((int64_t)st->series->unmet));
		struct json_object *obs = json_object_new_array();
		for (size_t i = 0; i < st->series->n; i++)
			json_object_array_add(obs, num(st->series->obs[i]));
		json_object_object_add(so, "observations", obs);
		json_object_array_add(sides, so);
	}
	json_object_object_add(o, "sides", sides);
	struct json_object *changes = json_object_new_array();
	for (size_t s = 1; s < c->nsides; s++) {
		const struct cand_cmp *cmp = &r->cmp[s];
		struct json_object *co = json_object_new_object();
		json_object_object_add(co, "side", json_object_new_int((int)s));
		json_object_object_add(co, "pct_change", num(cmp->pct_change));
		json_object_object_add(co, "p_welch", num(cmp->p_welch));
		json_object_object_add(co, "p_mann_whitney", num(cmp->p_mwu));
		json_object_object_add(co, "floor_pct", num(cmp->floor_pct));
		json_object_object_add(co, "threshold_pct", num(cmp->threshold_pct));
		json_object_object_add(co, "verdict", json_cstring_utf8(change_name(cmp->change)));
		json_object_array_add(changes, co);
	}
	json_object_object_add(o, "changes", changes);
	if (r->nprofile)
		json_object_object_add(o, "profile", profile_json(c, r));
	return o;
}

/* abis[]: status per side and where it regressed. */
static struct json_object *abis_json(const struct comparison *c)
{
	struct json_object *a = json_object_new_array();
	for (size_t k = 0; k < c->nabis; k++) {
		struct json_object *o = json_object_new_object(), *st = json_object_new_array();
		struct json_object *worse = json_object_new_array();
		json_object_object_add(o, "abi", json_cstring_utf8(c->abis[k].abi));
		for (size_t s = 0; s < c->nsides; s++) {
			json_object_array_add(st, json_cstring_utf8(c->abis[k].status[s]));
			json_object_array_add(worse, json_object_new_boolean(c->abis[k].worse[s]));
		}
		json_object_object_add(o, "status", st);
		json_object_object_add(o, "regressed", worse);
		json_object_array_add(a, o);
	}
	return a;
}

/* new_events[] (returned) and new_verdicts[] (in *verdicts). */
static struct json_object *failures_json(const struct comparison *c, struct json_object **verdicts)
{
	struct json_object *events = json_object_new_array();
	for (size_t i = 0; i < c->nevents; i++) {
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "side", json_object_new_int((int)c->events[i].side));
		json_object_object_add(o, "kind", json_cstring_utf8(c->events[i].event->kind));
		json_object_object_add(o, "title", json_cstring_utf8(c->events[i].event->title));
		json_object_object_add(o, "boots", json_object_new_int((int)c->events[i].boots));
		json_object_array_add(events, o);
	}
	*verdicts = json_object_new_array();
	for (size_t i = 0; i < c->nverdicts; i++) {
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "side", json_object_new_int((int)c->verdicts[i].side));
		json_object_object_add(o, "verdict", json_cstring_utf8(c->verdicts[i].verdict));
		json_object_object_add(o, "boots", json_object_new_int((int)c->verdicts[i].boots));
		json_object_array_add(*verdicts, o);
	}
	return events;
}

/* known_events[]: a candidate's crashes BASE showed too, each side's count. */
static struct json_object *known_json(const struct comparison *c)
{
	struct json_object *a = json_object_new_array();
	for (size_t i = 0; i < c->nknown; i++) {
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "side", json_object_new_int((int)c->known[i].side));
		json_object_object_add(o, "kind", json_cstring_utf8(c->known[i].event->kind));
		json_object_object_add(o, "title", json_cstring_utf8(c->known[i].event->title));
		json_object_object_add(o, "boots", json_object_new_int((int)c->known[i].boots));
		json_object_object_add(o, "base_boots", json_object_new_int((int)c->known[i].base_boots));
		json_object_array_add(a, o);
	}
	return a;
}

/* boot_initcalls_moved[]: each candidate's initcalls that moved
 * (initcalls_moved()), candidate by candidate, the largest change first. */
static struct json_object *moved_json(const struct comparison *c)
{
	struct json_object *a = json_object_new_array();
	for (size_t s = 1; s < c->nsides; s++) {
		size_t n;
		struct initcall_move *m = initcalls_moved(c, s, &n);
		for (size_t i = 0; i < n; i++) {
			const struct metric_row *r = m[i].row;
			char id[512];
			struct json_object *o = json_object_new_object();
			json_object_object_add(o, "side", json_object_new_int((int)s));
			json_object_object_add(o, "id", json_cstring_utf8(row_id(r, id, sizeof(id))));
			json_object_object_add(o, "name", json_cstring_utf8(r->name));
			json_object_object_add(o, "base", num(r->stat[0].mean));
			json_object_object_add(o, "cand", num(r->stat[s].mean));
			json_object_object_add(o, "change_us", num(m[i].change));
			json_object_object_add(o, "pct_change", num(r->cmp[s].pct_change));
			json_object_object_add(o, "p_welch", num(r->cmp[s].p_welch));
			json_object_object_add(o, "verdict", json_cstring_utf8(change_name(r->cmp[s].change)));
			json_object_array_add(a, o);
		}
		free(m);
	}
	return a;
}

/* log_lines[] (--logs). */
static struct json_object *log_lines_json(const struct comparison *c)
{
	struct json_object *a = json_object_new_array();
	for (size_t i = 0; i < c->nlog_lines; i++) {
		const struct log_line *l = &c->log_lines[i];
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "side", json_object_new_int((int)l->side));
		json_object_object_add(o, "against", json_object_new_int((int)l->against));
		json_object_object_add(o, "text", json_cstring_utf8(l->text));
		json_object_object_add(o, "boots", json_object_new_int((int)l->boots));
		json_object_array_add(a, o);
	}
	return a;
}

struct json_object *report_json(const struct comparison *c)
{
	struct json_object *root = json_object_new_object(), *sides = json_object_new_array();
	struct json_object *metrics = json_object_new_array(), *warnings = json_object_new_array();
	json_object_object_add(root, "format", json_cstring_utf8("bootrig-compare-1"));
	json_object_object_add(root, "bootrig_version", json_cstring_utf8(BOOTRIG_VERSION));
	json_object_object_add(root, "alpha", json_object_new_double(c->opts.alpha));
	json_object_object_add(root, "threshold_pct", json_object_new_double(c->opts.threshold_pct));
	json_object_object_add(root, "test", json_cstring_utf8("welch"));
	json_object_object_add(root, "include_fail", json_object_new_boolean(c->opts.include_fail));
	for (size_t s = 0; s < c->nsides; s++)
		json_object_array_add(sides, side_json(c, s));
	json_object_object_add(root, "sides", sides);
	for (size_t i = 0; i < c->nrows; i++)
		json_object_array_add(metrics, metric_json(c, &c->rows[i]));
	json_object_object_add(root, "metrics", metrics);
	json_object_object_add(root, "abis", abis_json(c));
	struct json_object *verdicts;
	json_object_object_add(root, "new_events", failures_json(c, &verdicts));
	json_object_object_add(root, "new_verdicts", verdicts);
	json_object_object_add(root, "known_events", known_json(c));
	struct json_object *cases = json_object_new_array();
	for (size_t i = 0; i < c->ncases; i++) {
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "side", json_object_new_int((int)c->cases[i].side));
		json_object_object_add(o, "suite", json_cstring_utf8(c->cases[i].kcase->suite));
		json_object_object_add(o, "case", json_cstring_utf8(c->cases[i].kcase->name));
		json_object_object_add(o, "base", json_object_new_string(c->cases[i].base_status));
		json_object_object_add(o, "boots", json_object_new_int((int)c->cases[i].boots));
		json_object_array_add(cases, o);
	}
	json_object_object_add(root, "new_ktap_failures", cases);
	json_object_object_add(root, "boot_initcalls_moved", moved_json(c));
	if (c->opts.logs)
		json_object_object_add(root, "log_lines", log_lines_json(c));
	for (size_t i = 0; i < c->nwarnings; i++)
		json_object_array_add(warnings, json_cstring_utf8(c->warnings[i]));
	json_object_object_add(root, "warnings", warnings);
	struct json_object *sum = json_object_new_object();
	json_object_object_add(sum, "regressed", json_object_new_int((int)c->regressions));
	json_object_object_add(sum, "improved", json_object_new_int((int)c->improvements));
	json_object_object_add(sum, "new_events", json_object_new_int((int)c->nevents));
	json_object_object_add(sum, "new_verdicts", json_object_new_int((int)c->nverdicts));
	json_object_object_add(sum, "new_ktap_failures", json_object_new_int((int)c->ncases));
	json_object_object_add(sum, "unusable", json_object_new_boolean(c->unusable));
	json_object_object_add(sum, "exit_code", json_object_new_int(c->exit_code));
	json_object_object_add(root, "summary", sum);
	return root;
}
