/*
 * judge-json.c: what a judged boot gives its readers (judge.h): the typed
 * accessors (events, ABI table, tests, metrics, stage times) and the JSON
 * that result.json holds (judge_to_json()), built from the records the
 * judge kept as given (judge.c) only when asked.
 */
#include "judge-internal.h"
#include "textsafe.h"
#include "util.h"

#include <math.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* Sets o[key] to the string v ("" for NULL), valid UTF-8 (textsafe.h). */
static void put_string(json_object *o, const char *key, const char *v)
{
	json_object_object_add(o, key, json_cstring_utf8(v ? v : ""));
}

/* Adds v under the literal key, new in the fresh object o (no copy, no lookup). */
static void add_new(json_object *o, const char *key, json_object *v)
{
	json_object_object_add_ex(o, key, v,
				  JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_KEY_IS_CONSTANT);
}

/* A numeric field as a JSON number, or null when absent or malformed. */
static json_object *number_field(const struct proto_record *rec, const char *key, bool integer)
{
	if (integer) {
		uint64_t u;
		return proto_get_u64(rec, key, &u) ? json_object_new_int64((int64_t)u) : NULL;
	}
	double d;
	return proto_get_double(rec, key, &d) ? json_object_new_double(d) : NULL;
}

/* The JSON of the kept records (judge_to_json's sysinfo ... init_errors). */
struct records_json {
	json_object *sysinfo, *abis, *tests, *metrics, *plan, *errors, *boot_time;
};

/* SYSINFO: uname, CPUs, memory, uptime and command line into sysinfo. */
static void sysinfo_json(struct records_json *out, const struct proto_record *rec)
{
	static const char *const strings[] = { "release", "version", "machine", "cmdline" };
	for (size_t i = 0; i < ARRAY_SIZE(strings); i++)
		if (proto_get(rec, strings[i]))
			put_string(out->sysinfo, strings[i], proto_get(rec, strings[i]));
	json_object_object_add(out->sysinfo, "cpus", number_field(rec, "cpus", true));
	json_object_object_add(out->sysinfo, "memtotal_kb", number_field(rec, "memtotal_kb", true));
	json_object_object_add(out->sysinfo, "uptime", number_field(rec, "uptime", false));
}

/* ABI: one row of the ABI table (status, and the reason when not ok). */
static void abi_json(struct records_json *out, const struct proto_record *rec)
{
	const char *abi = proto_get(rec, "abi");
	if (!abi)
		return;
	json_object *o = json_object_new_object();
	add_new(o, "status", json_cstring_utf8(judge_field_or_empty(rec, "status")));
	if (proto_get(rec, "reason"))
		add_new(o, "reason", json_cstring_utf8(proto_get(rec, "reason")));
	json_object_add_utf8_key(out->abis, abi, o);
}

/* PLAN: kept as given (the last one wins). */
static void plan_json(struct records_json *out, const struct proto_record *rec)
{
	json_object_put(out->plan);
	out->plan = json_object_new_object();
	for (size_t i = 0; i < rec->nfields; i++)
		put_string(out->plan, rec->fields[i].key, rec->fields[i].value);
}

/* BOOTTIME: what init read of the kernel's initcall records, the last one's:
 * status (ok, none) and reason as strings, the counts as numbers; malformed
 * adds the INITCALLS items the host could not read (judge-boottime.c). */
static void boot_time_json(const struct judge *j, struct records_json *out,
			   const struct proto_record *rec)
{
	static const char *const counts[] = { "records", "malformed", "unmatched", "lost" };
	json_object_put(out->boot_time);
	out->boot_time = json_object_new_object();
	put_string(out->boot_time, "status", judge_field_or_empty(rec, "status"));
	for (size_t i = 0; i < ARRAY_SIZE(counts); i++) {
		uint64_t u;
		bool more = !strcmp(counts[i], "malformed") && j->initcalls_malformed;
		json_object_object_add(out->boot_time, counts[i],
				       more && proto_get_u64(rec, counts[i], &u) && u <= INT64_MAX / 2
				       ? json_object_new_int64((int64_t)(u + j->initcalls_malformed))
				       : number_field(rec, counts[i], true));
	}
	if (proto_get(rec, "reason"))
		put_string(out->boot_time, "reason", proto_get(rec, "reason"));
	/* the initcall levels (absent from older guests' records) */
	if (proto_get(rec, "levels"))
		json_object_object_add(out->boot_time, "levels", number_field(rec, "levels", true));
	if (proto_get(rec, "levels_reason"))
		put_string(out->boot_time, "levels_reason", proto_get(rec, "levels_reason"));
}

/* RESULT: a row of tests. */
static void result_json(struct records_json *out, const struct proto_record *rec)
{
	static const char *const strings[] = { "abi", "test", "status", "reason" };
	json_object *o = json_object_new_object();
	for (size_t i = 0; i < ARRAY_SIZE(strings); i++)
		add_new(o, strings[i], json_cstring_utf8(judge_field_or_empty(rec, strings[i])));
	add_new(o, "ms", number_field(rec, "ms", true));
	json_object_array_add(out->tests, o);
}

/* The metric's cycles and instructions per operation, and "counters":
 * "unavailable" when either is not, from its perf stat (a guest that has
 * the counting run sends them there, not in METRIC). */
static void counters_from_perf_stat(json_object *o, json_object *perf_stat)
{
	json_object *events, *cycles, *instructions;
	if (!json_object_object_get_ex(perf_stat, "events", &events))
		return;
	if (json_object_object_get_ex(events, "cycles", &cycles) &&
	    json_object_object_get_ex(events, "instructions", &instructions)) {
		json_object_object_add(o, "cycles", json_object_get(cycles));
		json_object_object_add(o, "instructions", json_object_get(instructions));
	} else if (!json_object_object_get_ex(o, "counters", NULL)) {
		json_object_object_add(o, "counters", json_object_new_string("unavailable"));
	}
}

/* METRIC: a row of metrics with every sample; bad numbers become null;
 * its profile (judge-profile.c) when it has one, its perf stat from its
 * PERFSTAT record (judge-perfstat.c) when it has one. */
static void metric_json(struct records_json *out, const struct proto_record *rec,
			json_object *profile, const struct proto_record *perf)
{
	static const char *const strings[] = { "abi", "test", "name", "unit", "better" };
	static const char *const numbers[] = { "median", "min", "max", "mean", "stddev",
					       "cycles", "instructions" };
	/* the adaptive sampling's fields (absent from older guests' records) */
	static const char *const optional[] = { "ci", "ci_target" };
	json_object *o = json_object_new_object();
	for (size_t i = 0; i < ARRAY_SIZE(strings); i++)
		add_new(o, strings[i], json_cstring_utf8(judge_field_or_empty(rec, strings[i])));
	add_new(o, "n", number_field(rec, "n", true));
	for (size_t i = 0; i < ARRAY_SIZE(numbers); i++)
		add_new(o, numbers[i], number_field(rec, numbers[i], false));
	for (size_t i = 0; i < ARRAY_SIZE(optional); i++)
		if (proto_get(rec, optional[i]))
			add_new(o, optional[i], number_field(rec, optional[i], false));
	if (proto_get(rec, "stop"))
		add_new(o, "stop", json_cstring_utf8(proto_get(rec, "stop")));
	if (proto_get(rec, "iters"))
		add_new(o, "iters", number_field(rec, "iters", true));
	double rc;      /* an initcall's (judge-boottime.c: an int) */
	if (proto_get_double(rec, "return_code", &rc) && rc >= INT32_MIN && rc <= INT32_MAX)
		add_new(o, "return_code", json_object_new_int64((int64_t)rc));
	if (proto_get(rec, "level"))     /* an initcall's: pure, core, ... late, module */
		add_new(o, "level", json_cstring_utf8(proto_get(rec, "level")));
	double *samples;
	size_t n;
	json_object *arr = json_object_new_array();
	const char *list = proto_get(rec, "samples");
	if (list && proto_parse_list(list, &samples, &n)) {
		for (size_t i = 0; i < n; i++)
			json_object_array_add(arr, json_object_new_double(samples[i]));
		free(samples);
	}
	add_new(o, "samples", arr);
	if (proto_get(rec, "counters"))
		add_new(o, "counters", json_cstring_utf8(proto_get(rec, "counters")));
	json_object *perf_stat = perf ? judge_perf_stat_json(perf) : NULL;
	if (perf_stat) {
		add_new(o, "perf_stat", perf_stat);
		counters_from_perf_stat(o, perf_stat);
	}
	if (profile)
		add_new(o, "profile", profile);
	json_object_array_add(out->metrics, o);
}

/* Is kept record k the first ABI record of its ABI? */
static bool first_of_abi(const struct judge *j, size_t k, const char *abi)
{
	for (size_t i = 0; i < k; i++)
		if (j->kept[i].kind == PROTO_KIND_ABI && proto_get(&j->kept[i], "abi") &&
		    !strcmp(proto_get(&j->kept[i], "abi"), abi))
			return false;
	return true;
}

bool judge_abi_at(const struct judge *j, size_t i, struct judge_abi *row)
{
	size_t seen = 0;
	for (size_t k = 0; k < j->nkept; k++) {
		const char *abi = proto_get(&j->kept[k], "abi");
		if (j->kept[k].kind != PROTO_KIND_ABI || !abi || !first_of_abi(j, k, abi) ||
		    seen++ != i)
			continue;
		row->abi = abi;
		/* the last record of that ABI decides, as in result.json */
		for (size_t l = k; l < j->nkept; l++) {
			const char *same = proto_get(&j->kept[l], "abi");
			if (j->kept[l].kind == PROTO_KIND_ABI && same && !strcmp(same, abi)) {
				row->status = judge_field_or_empty(&j->kept[l], "status");
				row->reason = proto_get(&j->kept[l], "reason");
			}
		}
		return true;
	}
	return false;
}

/* Builds the JSON of every kept record, in the order they came. */
static void build_records_json(const struct judge *j, struct records_json *out)
{
	out->sysinfo = json_object_new_object();
	out->abis = json_object_new_object();
	out->tests = json_object_new_array();
	out->metrics = json_object_new_array();
	out->plan = out->boot_time = NULL;
	out->errors = json_object_new_array();
	size_t *prof_of = judge_profile_index(j);
	struct judge_perf_index *perf = judge_perf_index(j);
	for (size_t i = 0; i < j->nkept; i++) {
		const struct proto_record *rec = &j->kept[i];
		switch (rec->kind) {
		case PROTO_KIND_SYSINFO:
			sysinfo_json(out, rec);
			break;
		case PROTO_KIND_ABI:
			abi_json(out, rec);
			break;
		case PROTO_KIND_PLAN:
			plan_json(out, rec);
			break;
		case PROTO_KIND_BOOTTIME:
			boot_time_json(j, out, rec);
			break;
		case PROTO_KIND_RESULT:
			result_json(out, rec);
			break;
		case PROTO_KIND_METRIC:
			metric_json(out, rec, judge_profile_json(j, prof_of, i),
				    judge_perf_find(j, perf, rec));
			break;
		case PROTO_KIND_ERROR:
			json_object_array_add(out->errors, json_cstring_utf8(
				judge_field_or_empty(rec, "reason")));
			break;
		default:
			break;
		}
	}
	free(prof_of);
	judge_perf_index_free(perf);
}

/* ------------------------------------------------------- accessors */

const struct ktap *judge_ktap(const struct judge *j)
{
	return j->ktap;
}

double judge_stage_time(const struct judge *j, enum stage s)
{
	return (unsigned)s < STAGE_COUNT ? j->stage_t[s] : -1;
}

bool judge_event_at(const struct judge *j, size_t i, struct judge_event *e)
{
	size_t ncrash = crash_event_count(j->crash);
	if (i < ncrash) {
		const struct crash_event *c = crash_event_at(j->crash, i);
		*e = (struct judge_event){ crash_kind_name(c->kind), c->title, c->function,
					   c->excerpt, c->line, c->time, c->fatal,
					   judge_is_expected(j, c), c };
		return true;
	}
	i -= ncrash;
	if (i < j->nprotocol_events) {
		const struct protocol_event *p = &j->protocol_events[i];
		*e = (struct judge_event){ "protocol", p->title, "", p->excerpt, p->line, p->time,
					   false, false, NULL };
		return true;
	}
	if (i > j->nprotocol_events || !j->infra)
		return false;
	/* the host failure stands after the last line read */
	*e = (struct judge_event){ "infra", j->infra_reason ? j->infra_reason : "", "", "",
				   j->lineno, j->infra_t, false, false, NULL };
	return true;
}

/* The i-th kept record of kind (from 0), or NULL: the rows of result.json's
 * "tests" and "metrics" are the kept records in the order they came. */
static const struct proto_record *kept_nth(const struct judge *j, enum proto_kind kind, size_t i)
{
	for (size_t k = 0; k < j->nkept; k++)
		if (j->kept[k].kind == kind && i-- == 0)
			return &j->kept[k];
	return NULL;
}

size_t judge_event_count(const struct judge *j)
{
	return crash_event_count(j->crash) + j->nprotocol_events + (j->infra ? 1 : 0);
}

bool judge_test_at(const struct judge *j, size_t i, struct judge_test *row)
{
	const struct proto_record *rec = kept_nth(j, PROTO_KIND_RESULT, i);
	if (!rec)
		return false;
	*row = (struct judge_test){ judge_field_or_empty(rec, "abi"), judge_field_or_empty(rec, "test"),
				    judge_field_or_empty(rec, "status"), judge_field_or_empty(rec, "reason"),
				    false, 0 };
	row->has_ms = proto_get_u64(rec, "ms", &row->ms);
	return true;
}

/* A numeric field, or NAN when absent or malformed. */
static double double_or_nan(const struct proto_record *rec, const char *key)
{
	double d;
	return proto_get_double(rec, key, &d) ? d : NAN;
}

bool judge_metric_at(const struct judge *j, size_t i, struct judge_metric *row)
{
	const struct proto_record *rec = kept_nth(j, PROTO_KIND_METRIC, i);
	if (!rec)
		return false;
	*row = (struct judge_metric){
		judge_field_or_empty(rec, "abi"), judge_field_or_empty(rec, "test"),
		judge_field_or_empty(rec, "name"), judge_field_or_empty(rec, "unit"),
		judge_field_or_empty(rec, "better"), false, 0,
		double_or_nan(rec, "median"), double_or_nan(rec, "min"),
		double_or_nan(rec, "max"), double_or_nan(rec, "mean"),
		double_or_nan(rec, "stddev"), proto_get(rec, "samples"),
	};
	row->has_n = proto_get_u64(rec, "n", &row->n);
	return true;
}

/* ------------------------------------------------------------ JSON */

/* An event as result.json has it: a kernel report's has alt_title,
 * corrupted and expected too (RESULTS.md). */
static json_object *event_json(const struct judge_event *e)
{
	json_object *o = json_object_new_object();
	put_string(o, "kind", e->kind);
	put_string(o, "title", e->title);
	json_object_object_add(o, "line", json_object_new_int64(e->line));
	json_object_object_add(o, "time", json_object_new_double(e->time));
	if (e->crash) {
		put_string(o, "alt_title", e->crash->alt_title);
		json_object_object_add(o, "corrupted", json_object_new_boolean(e->crash->corrupted));
	}
	put_string(o, "function", e->function);
	put_string(o, "excerpt", e->excerpt);
	json_object_object_add(o, "fatal", json_object_new_boolean(e->fatal));
	if (e->crash)
		json_object_object_add(o, "expected", json_object_new_boolean(e->expected));
	return o;
}

json_object *judge_event_json(const struct judge *j, size_t i)
{
	struct judge_event e;
	return judge_event_at(j, i, &e) ? event_json(&e) : NULL;
}

/* The decoder's counts as result.json's "protocol" object. */
static json_object *protocol_json(const struct judge *j)
{
	const struct proto_stats *st = decoder_stats(j->decoder);
	json_object *o = json_object_new_object();
	json_object_object_add(o, "records", json_object_new_int64((int64_t)st->records));
	json_object_object_add(o, "corrupt",
			       json_object_new_int64((int64_t)st->problems[PROTO_CORRUPT]));
	json_object_object_add(o, "repaired",
			       json_object_new_int64((int64_t)st->problems[PROTO_REPAIRED]));
	json_object_object_add(o, "lost", json_object_new_int64((int64_t)st->lost));
	json_object_object_add(o, "duplicate",
			       json_object_new_int64((int64_t)st->problems[PROTO_DUPLICATE]));
	json_object_object_add(o, "reordered",
			       json_object_new_int64((int64_t)st->problems[PROTO_REORDERED]));
	json_object_object_add(o, "after_end",
			       json_object_new_int64((int64_t)st->problems[PROTO_AFTER_END]));
	json_object_object_add(o, "duplicate_metric",
			       json_object_new_int64((int64_t)st->problems[PROTO_DUPLICATE_METRIC]));
	if (j->profile_not_read)
		json_object_object_add(o, "profile_not_read",
				       json_object_new_int64((int64_t)j->profile_not_read));
	if (j->records_not_kept)
		json_object_object_add(o, "not_kept",
				       json_object_new_int64((int64_t)j->records_not_kept));
	json_object_object_add(o, "begin", json_object_new_boolean(st->begin));
	json_object_object_add(o, "end", json_object_new_boolean(st->end));
	return o;
}

void judge_to_json(const struct judge *j, struct json_object *obj)
{
	put_string(obj, "verdict", verdict_name(j->verdict));
	json_object_object_add(obj, "exit_code",
			       json_object_new_int(verdict_exit_code(j->verdict)));
	put_string(obj, "reason", judge_reason(j));
	json_object *stages = json_object_new_object();
	for (int s = 0; s < STAGE_COUNT; s++)
		if (judge_stage_time(j, s) >= 0)
			json_object_object_add(stages, stage_name(s),
					       json_object_new_double(judge_stage_time(j, s)));
	json_object_object_add(obj, "stages", stages);
	json_object *events = json_object_new_array();
	struct judge_event e;
	for (size_t i = 0; judge_event_at(j, i, &e); i++)
		json_object_array_add(events, event_json(&e));
	json_object_object_add(obj, "events", events);
	if (crash_events_dropped(j->crash))
		json_object_object_add(obj, "events_not_kept",
				       json_object_new_int64((int64_t)crash_events_dropped(j->crash)));
	json_object_object_add(obj, "protocol", protocol_json(j));
	struct records_json records;
	build_records_json(j, &records);
	json_object_object_add(obj, "sysinfo", records.sysinfo);
	json_object_object_add(obj, "abis", records.abis);
	json_object_object_add(obj, "tests", records.tests);
	json_object_object_add(obj, "metrics", records.metrics);
	struct json_object *ktap = ktap_to_json(j->ktap);
	if (ktap)
		json_object_object_add(obj, "ktap", ktap);
	if (records.plan)
		json_object_object_add(obj, "plan", records.plan);
	if (records.boot_time)
		json_object_object_add(obj, "boot_time", records.boot_time);
	if (j->provoke[0]) {
		json_object *p = json_object_new_object();
		put_string(p, "kind", j->provoke[0]);
		put_string(p, "status", j->provoke[1]);
		put_string(p, !strcmp(j->provoke[1], "done") ? "result" : "reason", j->provoke[2]);
		json_object_object_add(obj, "provoke", p);
	}
	if (json_object_array_length(records.errors))
		json_object_object_add(obj, "init_errors", records.errors);
	else
		json_object_put(records.errors);
}
