/*
 * judge-perfstat.c: a metric's perf stat counters, its PERFSTAT record
 * (initramfs/PROTOCOL.md; sent by the counting run after every test was
 * timed, initramfs/bench/bench.h and perfstat.h), as result.json's
 * "perf_stat" of the METRIC of the same (abi, test, name)
 * (runner/RESULTS.md).
 *
 * The guest sends totals over perf_ops operations; result.json keeps each
 * event per operation. What the host cannot trust is dropped and counted
 * ("dropped"), never made up: an item that is not NAME:COUNT (NAME of
 * [a-z0-9-], at most PSTAT_NAME_MAX bytes; COUNT decimal digits), a name
 * given twice, and an impossible count: more than PSTAT_MAX_PER_NS events
 * per nanosecond of the pass (no CPU thread counts a hundred billion
 * events a second; a corrupt or hostile record does). The metric and the
 * boot's verdict are untouched by what is dropped.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "judge-internal.h"
#include "util.h"

#define PSTAT_NAME_MAX 32
#define PSTAT_ITEMS_MAX 64        /* items read from one list */
#define PSTAT_MAX_PER_NS 100.0

/* Is s[0..n) an event or reason name (NAME above)? */
static bool good_name(const char *s, size_t n, bool reason)
{
	if (n == 0 || n > PSTAT_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
		      (reason && ((c >= 'A' && c <= 'Z') || c == '_'))))
			return false;
	}
	return true;
}

/* Calls item(name, n, value, ctx) for each NAME:VALUE of list; counts the
 * items past PSTAT_ITEMS_MAX and those without a ':' in *dropped. */
static void each_item(const char *list, int *dropped,
		      void (*item)(const char *name, size_t n, const char *value, void *ctx), void *ctx)
{
	int seen = 0;
	for (const char *p = list; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char buf[128];
		const char *colon = memchr(p, ':', len);
		if (++seen > PSTAT_ITEMS_MAX || !colon || len >= sizeof buf) {
			(*dropped)++;
		} else {
			memcpy(buf, p, len);
			buf[len] = '\0';
			item(buf, (size_t)(colon - p), buf + (colon - p) + 1, ctx);
		}
		p = end ? end + 1 : p + len;
	}
}

struct pass {
	double ops, ns;
	json_object *events, *absent;
	int dropped;
};

static void counted_item(const char *name, size_t n, const char *value, void *ctx)
{
	struct pass *ps = ctx;
	char key[PSTAT_NAME_MAX + 1];
	uint64_t count;
	if (!good_name(name, n, false) || !proto_parse_u64(value, &count)) {
		ps->dropped++;
		return;
	}
	memcpy(key, name, n);
	key[n] = '\0';
	double per_op = (double)count / ps->ops;
	if (json_object_object_get_ex(ps->events, key, NULL) || (double)count > ps->ns * PSTAT_MAX_PER_NS) {
		ps->dropped++;
		return;
	}
	json_object_object_add(ps->events, key, json_object_new_double(per_op));
}

static void absent_item(const char *name, size_t n, const char *value, void *ctx)
{
	struct pass *ps = ctx;
	char key[PSTAT_NAME_MAX + 1];
	if (!good_name(name, n, false) || !good_name(value, strlen(value), true)) {
		ps->dropped++;
		return;
	}
	memcpy(key, name, n);
	key[n] = '\0';
	if (json_object_object_get_ex(ps->absent, key, NULL) ||
	    json_object_object_get_ex(ps->events, key, NULL)) {
		ps->dropped++;
		return;
	}
	json_object_object_add(ps->absent, key, json_object_new_string(value));
}

json_object *judge_perf_stat_json(const struct proto_record *rec)
{
	const char *counted = proto_get_text(rec, "perf");
	const char *absent = proto_get_text(rec, "perf_absent");
	const char *scaled = proto_get_text(rec, "perf_scaled");
	uint64_t ops = 0, ns = 0;
	bool have_pass = proto_get_u64(rec, "perf_ops", &ops) && proto_get_u64(rec, "perf_ns", &ns) &&
			 ops > 0 && ns > 0;
	if (!counted && !absent && !proto_get(rec, "perf_ops"))
		return NULL;     /* an older guest's record: no perf stat */
	struct pass ps = { (double)ops, (double)ns, json_object_new_object(),
			   json_object_new_object(), 0 };
	json_object *o = json_object_new_object();
	if (have_pass) {
		json_object_object_add(o, "ops", json_object_new_int64(ops > INT64_MAX ? INT64_MAX : (int64_t)ops));
		json_object_object_add(o, "ns", json_object_new_int64(ns > INT64_MAX ? INT64_MAX : (int64_t)ns));
		if (counted)
			each_item(counted, &ps.dropped, counted_item, &ps);
	} else if (counted || proto_get(rec, "perf_ops")) {
		ps.dropped++;    /* counts without a pass to divide by */
	}
	if (absent)
		each_item(absent, &ps.dropped, absent_item, &ps);
	json_object *list = json_object_new_array();
	if (scaled && have_pass)
		for (const char *p = scaled; *p;) {
			const char *end = strchr(p, ',');
			size_t len = end ? (size_t)(end - p) : strlen(p);
			char key[PSTAT_NAME_MAX + 1];
			if (good_name(p, len, false)) {
				memcpy(key, p, len);
				key[len] = '\0';
				if (json_object_object_get_ex(ps.events, key, NULL))
					json_object_array_add(list, json_object_new_string(key));
			}
			p = end ? end + 1 : p + len;
		}
	const char *scope = proto_get_text(rec, "perf_scope");
	if (scope && (!strcmp(scope, "cpu") || !strcmp(scope, "task")))
		json_object_object_add(o, "scope", json_object_new_string(scope));
	json_object_object_add(o, "events", ps.events);
	json_object_object_add(o, "absent", ps.absent);
	json_object_object_add(o, "scaled", list);
	json_object_object_add(o, "dropped", json_object_new_int(ps.dropped));
	return o;
}

/* ---------------------------------------------------- by metric */

struct judge_perf_index {
	size_t n;
	const struct proto_record **recs;     /* sorted by (abi, test, name), then seq */
};

static int by_identity(const struct proto_record *a, const struct proto_record *b)
{
	static const char *const keys[] = { "abi", "test", "name" };
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		int c = strcmp(judge_field_or_empty(a, keys[i]), judge_field_or_empty(b, keys[i]));
		if (c)
			return c;
	}
	return 0;
}

static int cmp_recs(const void *pa, const void *pb)
{
	const struct proto_record *a = *(const struct proto_record *const *)pa;
	const struct proto_record *b = *(const struct proto_record *const *)pb;
	int c = by_identity(a, b);
	return c ? c : (a->seq > b->seq) - (a->seq < b->seq);
}

struct judge_perf_index *judge_perf_index(const struct judge *j)
{
	size_t n = 0;
	for (size_t i = 0; i < j->nkept; i++)
		n += j->kept[i].kind == PROTO_KIND_PERFSTAT;
	if (!n)
		return NULL;
	struct judge_perf_index *x = xcalloc(1, sizeof(*x));
	x->recs = xcalloc(n, sizeof(*x->recs));
	for (size_t i = 0; i < j->nkept; i++)
		if (j->kept[i].kind == PROTO_KIND_PERFSTAT)
			x->recs[x->n++] = &j->kept[i];
	qsort(x->recs, x->n, sizeof(*x->recs), cmp_recs);
	return x;
}

const struct proto_record *judge_perf_find(const struct judge *j, const struct judge_perf_index *x,
					   const struct proto_record *m)
{
	(void)j;
	if (!x)
		return NULL;
	size_t lo = 0, hi = x->n;        /* the first not below m */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (by_identity(x->recs[mid], m) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->n && !by_identity(x->recs[lo], m) ? x->recs[lo] : NULL;
}

void judge_perf_index_free(struct judge_perf_index *x)
{
	if (x)
		free(x->recs);
	free(x);
}
