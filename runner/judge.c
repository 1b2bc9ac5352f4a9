/*
 * judge.c: the judge of one boot (see judge.h for the contract).
 *
 * Console bytes come in chunks; they are cleaned (NUL, '\r', ANSI escapes
 * dropped) and split into lines here. A lone '\r', a screen clear, a cursor
 * home or a terminal reset ends a piece of the line: the text before it is
 * read as a line of its own (same line number), so nothing printed can be
 * erased from the judge's view. A line is kept up to LINE_HEAD bytes and its
 * last LINE_TAIL bytes in a ring: a longer line is read as its start and its
 * end, so a report printed after megabytes of text on one line is still
 * found. Each line goes to three readers:
 *   - the crash detector (runner/crash.c: reports and their titles; it
 *     also names the kernel banner and power-off messages),
 *   - the stage tracker, from what the detector named,
 *   - the protocol decoder (lib/protocol.c), whose records fill sysinfo,
 *     the ABI table, tests and metrics, and move the init/results/end stages.
 * Speed (the judge reads a console at hundreds of MB/s): plain text is
 * taken in runs, a whole line that lies in its chunk is read in place, and
 * the records are kept as given and turned into JSON only by
 * judge_to_json() (a console may carry a great many METRIC records).
 * judge_finish() then decides the verdict, in this order:
 *   INFRA_ERROR  the host failed (judge_infra_error);
 *   PANIC        a fatal kernel event: panic, Oops, kernel BUG, page fault,
 *                general protection fault, invalid opcode, an unexpected
 *                reboot (a second "Linux version" banner);
 *   BOOT_FAIL    no kernel banner and no protocol record (no output, a bad
 *                image, a firmware error), or the machine stopped before
 *                the init started;
 *   HANG         a stage outlived its limit or the console stayed silent;
 *   FAIL         a non-fatal kernel report (WARNING, KASAN, KFENCE, KMSAN,
 *                KCSAN, UBSAN, lockdep, RCU stall, lockups, hung task,
 *                kmemleak: the kernel survived, but like the kernel test
 *                robot and syzbot we count it as a kernel failure), an init
 *                ERROR record, a test that failed or timed out or never
 *                reported, records missing, corrupt or out of order, no END;
 *   PASS         END seen, every record there, every test PASS, no event.
 * A non-fatal event whose title matches a known issue of the target
 * (judge_expect_event) is kept and marked "expected", and decides nothing.
 */
#include "judge.h"
#include "ktap.h"
#include "crash.h"
#include "exitcodes.h"
#include "protocol.h"
#include "textsafe.h"
#include "util.h"

#include <fnmatch.h>
#include <math.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* A line is read as its first LINE_HEAD bytes, LINE_SEAM, and its last
 * LINE_TAIL bytes (the seam keeps a match from spanning the cut). */
#define LINE_HEAD 65536
#define LINE_TAIL 16384
#define LINE_SEAM " [...] "
#define MAX_PROTOCOL_EVENTS 32
/* Bounds on what the records keep (a guest printing records forever):
 * record text for result.json, and tests started but not yet reported. */
#define MAX_KEPT_BYTES (8 << 20)
#define MAX_STARTED 1024
#define PANIC_QUIET 5.0         /* seconds of silence that end a panic */

struct started_test {
	char *abi, *test;
};

/* A protocol problem that lost data: an event of kind "protocol". */
struct protocol_event {
	char *title, *excerpt;
	long line;
	double time;
};

struct judge {
	struct judge_limits limits;
	char **expected;                /* title patterns of known issues */
	size_t nexpected;
	struct crash_detector *crash;
	struct decoder *decoder;
	struct ktap *ktap;              /* KTAP (KUnit) in the console */

	/* line assembly: the head, then the last LINE_TAIL bytes in a ring */
	struct strbuf line;
	char *tail;                     /* LINE_TAIL bytes, once a line needs it */
	size_t tail_len, tail_pos;      /* bytes held, next write in the ring */
	bool tail_dropped;              /* the ring overwrote bytes */
	struct strbuf joined;           /* head, seam and tail of a long line */
	double line_t;
	int esc;                        /* 0 none, 1 after ESC, 2 in CSI */
	bool cr;                        /* a '\r' waits for what follows */
	long lineno;
	bool any_output;
	double last_output;

	/* stages: when each began, -1 when never */
	enum stage stage;
	double stage_t[STAGE_COUNT];
	bool banner, poweroff_seen, machine_stopped;
	double stopped_t;

	/* timeouts */
	bool timed_out;
	char *timeout_reason;

	/* events the crash detector did not keep (CRASH_MAX_EVENTS) */
	size_t dropped_counted;         /* of them, not known issues */
	char *dropped_title;            /* the first of those that is not fatal */

	char *cut_reason;               /* judge_console_cut() */

	bool infra;
	char *infra_reason;
	double infra_t;                 /* the last output before it */

	/* what the records said: the records that fill result.json are kept
	 * as given and turned into JSON by judge_to_json() only (a console
	 * may carry a great many METRIC records); the verdict's facts are
	 * taken as they come */
	struct proto_record *kept;
	size_t nkept, kept_alloc;
	size_t kept_bytes, records_not_kept;
	size_t started_not_kept;        /* TEST starts past MAX_STARTED */
	struct protocol_event protocol_events[MAX_PROTOCOL_EVENTS];
	size_t nprotocol_events;
	size_t nerrors;
	char *first_error;
	char *provoke[3];               /* the last PROVOKE record's kind, status, reason */
	struct started_test *started;
	size_t nstarted;
	bool end_seen;
	uint64_t end_tests, end_passed, end_failed, end_timeout;
	size_t results, results_failed;
	char *first_test_failure;

	bool finished;
	enum verdict verdict;
	char *reason;
	double end_t;
};

/* ---------------------------------------------------------- records */

static bool is_expected(const struct judge *j, const struct crash_event *e);

/* Moves to stage s at time t; stages only move forward (skipped ones stay unknown). */
static void set_stage(struct judge *j, enum stage s, double t)
{
	if (s <= j->stage)
		return;
	j->stage = s;
	j->stage_t[s] = t;
}

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

/* A record field, or "" when absent. */
static const char *field_or_empty(const struct proto_record *rec, const char *key)
{
	const char *v = proto_get(rec, key);
	return v ? v : "";
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
	json_object *sysinfo, *abis, *tests, *metrics, *plan, *errors;
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
	add_new(o, "status", json_cstring_utf8(field_or_empty(rec, "status")));
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

/* RESULT: a row of tests. */
static void result_json(struct records_json *out, const struct proto_record *rec)
{
	static const char *const strings[] = { "abi", "test", "status", "reason" };
	json_object *o = json_object_new_object();
	for (size_t i = 0; i < ARRAY_SIZE(strings); i++)
		add_new(o, strings[i], json_cstring_utf8(field_or_empty(rec, strings[i])));
	add_new(o, "ms", number_field(rec, "ms", true));
	json_object_array_add(out->tests, o);
}

/* METRIC: a row of metrics with every sample; bad numbers become null. */
static void metric_json(struct records_json *out, const struct proto_record *rec)
{
	static const char *const strings[] = { "abi", "test", "name", "unit", "better" };
	static const char *const numbers[] = { "median", "min", "max", "mean", "stddev",
					       "cycles", "instructions" };
	/* the adaptive sampling's fields (absent from older guests' records) */
	static const char *const optional[] = { "ci", "ci_target" };
	json_object *o = json_object_new_object();
	for (size_t i = 0; i < ARRAY_SIZE(strings); i++)
		add_new(o, strings[i], json_cstring_utf8(field_or_empty(rec, strings[i])));
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
				row->status = field_or_empty(&j->kept[l], "status");
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
	out->plan = NULL;
	out->errors = json_object_new_array();
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
		case PROTO_KIND_RESULT:
			result_json(out, rec);
			break;
		case PROTO_KIND_METRIC:
			metric_json(out, rec);
			break;
		case PROTO_KIND_ERROR:
			json_object_array_add(out->errors, json_cstring_utf8(
				field_or_empty(rec, "reason")));
			break;
		default:
			break;
		}
	}
}

/* A copy of rec's fields in one allocation: the array, then the keys and values. */
static struct proto_field *copy_fields(const struct proto_record *rec)
{
	size_t size = rec->nfields * sizeof(struct proto_field);
	for (size_t i = 0; i < rec->nfields; i++)
		size += strlen(rec->fields[i].key) + 1 + rec->fields[i].value_len + 1;
	struct proto_field *fields = xmalloc(size ? size : 1);
	char *text = (char *)(fields + rec->nfields);
	for (size_t i = 0; i < rec->nfields; i++) {
		size_t klen = strlen(rec->fields[i].key) + 1, vlen = rec->fields[i].value_len;
		fields[i].key = memcpy(text, rec->fields[i].key, klen);
		text += klen;
		fields[i].value = memcpy(text, rec->fields[i].value, vlen);
		text[vlen] = '\0';
		fields[i].value_len = vlen;
		text += vlen + 1;
	}
	return fields;
}

/* Keeps rec's kind and fields for judge_to_json() (the decoder's copy is
 * valid only during its callback), while the kept records hold less than
 * MAX_KEPT_BYTES; later ones are counted (the boot then FAILs). */
static void keep_record(struct judge *j, const struct proto_record *rec)
{
	if (j->kept_bytes + rec->text_len > MAX_KEPT_BYTES) {
		j->records_not_kept++;
		return;
	}
	j->kept_bytes += rec->text_len + sizeof(*j->kept);
	if (j->nkept == j->kept_alloc) {
		j->kept_alloc = j->kept_alloc ? 2 * j->kept_alloc : 64;
		j->kept = xrealloc(j->kept, j->kept_alloc * sizeof(*j->kept));
	}
	struct proto_record *copy = &j->kept[j->nkept++];
	memset(copy, 0, sizeof(*copy));
	copy->seq = rec->seq;
	copy->kind = rec->kind;
	copy->nfields = rec->nfields;
	copy->fields = copy_fields(rec);
	copy->line = rec->line;
	copy->time = rec->time;
}

/* TEST start: remembered until its RESULT comes (MAX_STARTED at once;
 * past that, counted as never reported). */
static void on_test_start(struct judge *j, const struct proto_record *rec)
{
	if (j->nstarted >= MAX_STARTED) {
		j->started_not_kept++;
		return;
	}
	j->started = xrealloc(j->started, (j->nstarted + 1) * sizeof(*j->started));
	j->started[j->nstarted].abi = xstrdup(field_or_empty(rec, "abi"));
	j->started[j->nstarted].test = xstrdup(field_or_empty(rec, "test"));
	j->nstarted++;
}

/* Forgets the started test (abi, test); a RESULT closes it. */
static void forget_started(struct judge *j, const char *abi, const char *test)
{
	for (size_t i = 0; i < j->nstarted; i++) {
		if (!strcmp(j->started[i].abi, abi) && !strcmp(j->started[i].test, test)) {
			free(j->started[i].abi);
			free(j->started[i].test);
			j->started[i] = j->started[--j->nstarted];
			return;
		}
	}
}

/* RESULT: closes its test; the first non-PASS one is kept for the reason. */
static void on_result(struct judge *j, const struct proto_record *rec)
{
	const char *abi = field_or_empty(rec, "abi");
	const char *test = field_or_empty(rec, "test");
	const char *status = field_or_empty(rec, "status");
	const char *reason = field_or_empty(rec, "reason");
	forget_started(j, abi, test);
	j->results++;
	if (strcmp(status, "PASS")) {
		j->results_failed++;
		if (!j->first_test_failure)
			j->first_test_failure = xasprintf("%s/%s %s%s%s", abi, test, status,
							  *reason ? ": " : "", reason);
	}
}

/* ERROR: init could not go on with something; the first one is the reason. */
static void on_error(struct judge *j, const struct proto_record *rec)
{
	if (!j->nerrors++)
		j->first_error = xstrdup(field_or_empty(rec, "reason"));
}

/* PROVOKE (bootrig run --provoke): its kind, status and reason or result,
 * the last record's. */
static void on_provoke(struct judge *j, const struct proto_record *rec)
{
	const char *v[3] = { field_or_empty(rec, "kind"), field_or_empty(rec, "status"),
			     proto_get(rec, "reason") ? field_or_empty(rec, "reason")
						      : field_or_empty(rec, "result") };
	for (int i = 0; i < 3; i++) {
		free(j->provoke[i]);
		j->provoke[i] = xstrdup(v[i]);
	}
}

/* END: the counts init reports, checked against what was received. */
static void on_end(struct judge *j, const struct proto_record *rec)
{
	j->end_seen = true;
	proto_get_u64(rec, "tests", &j->end_tests);
	proto_get_u64(rec, "passed", &j->end_passed);
	proto_get_u64(rec, "failed", &j->end_failed);
	proto_get_u64(rec, "timeout", &j->end_timeout);
}

/* The decoder's callback: one trusted record. */
static void on_record(void *ctx, const struct proto_record *rec)
{
	struct judge *j = ctx;
	switch (rec->kind) {
	case PROTO_KIND_BEGIN:
		set_stage(j, STAGE_INIT, rec->time);
		break;
	case PROTO_KIND_SYSINFO:
	case PROTO_KIND_ABI:
	case PROTO_KIND_PLAN:
		keep_record(j, rec);
		break;
	case PROTO_KIND_TEST:
		set_stage(j, STAGE_RESULTS, rec->time);
		on_test_start(j, rec);
		break;
	case PROTO_KIND_METRIC:
		set_stage(j, STAGE_RESULTS, rec->time);
		keep_record(j, rec);
		break;
	case PROTO_KIND_RESULT:
		set_stage(j, STAGE_RESULTS, rec->time);
		on_result(j, rec);
		keep_record(j, rec);
		break;
	case PROTO_KIND_ERROR:
		on_error(j, rec);
		keep_record(j, rec);
		break;
	case PROTO_KIND_END:
		set_stage(j, STAGE_END, rec->time);
		on_end(j, rec);
		break;
	case PROTO_KIND_PROVOKE:
		on_provoke(j, rec);
		break;
	case PROTO_KIND_LOG:
	case PROTO_KIND_UNKNOWN:
		break;
	}
}

/* The crash detector's hook: an event past its bound, counted here. */
static void on_dropped_event(void *ctx, const struct crash_event *e)
{
	struct judge *j = ctx;
	if (e->kind == CRASH_FIRMWARE_ERROR || is_expected(j, e))
		return;
	j->dropped_counted++;
	if (!e->fatal && !j->dropped_title)
		j->dropped_title = xstrdup(e->title);
}

/* The decoder's callback: a problem; the ones that lose data are events. */
static void on_problem(void *ctx, const struct proto_problem *p)
{
	struct judge *j = ctx;
	if (p->kind == PROTO_REPAIRED || p->kind == PROTO_UNKNOWN_KIND)
		return;
	if (j->nprotocol_events >= MAX_PROTOCOL_EVENTS)
		return;
	struct protocol_event *e = &j->protocol_events[j->nprotocol_events++];
	e->title = xasprintf("%s record: %s", proto_problem_name(p->kind),
			     p->detail ? p->detail : "");
	text_clean_title(e->title);
	e->excerpt = xstrdup(p->detail ? p->detail : "");
	e->line = p->line;
	e->time = p->time;
}

/* ------------------------------------------------------------ lines */

struct judge *judge_new(const struct judge_limits *limits)
{
	struct judge *j = xcalloc(1, sizeof(*j));
	j->limits = *limits;
	j->crash = crash_detector_new();
	crash_on_dropped(j->crash, on_dropped_event, j);
	j->decoder = decoder_new(on_record, on_problem, j);
	j->ktap = ktap_new();
	for (int s = 0; s < STAGE_COUNT; s++)
		j->stage_t[s] = -1;
	j->stage = STAGE_FIRMWARE;
	j->stage_t[STAGE_FIRMWARE] = 0;
	j->line_t = -1;
	for (size_t i = 0; i < j->limits.n_known_issues; i++)
		judge_expect_event(j, j->limits.known_issues[i]);
	return j;
}

void judge_free(struct judge *j)
{
	if (!j)
		return;
	crash_detector_free(j->crash);
	decoder_free(j->decoder);
	ktap_free(j->ktap);
	strbuf_release(&j->line);
	free(j->tail);
	strbuf_release(&j->joined);
	for (size_t i = 0; i < j->nkept; i++)
		free((void *)j->kept[i].fields);
	free(j->kept);
	free(j->first_error);
	for (int i = 0; i < 3; i++)
		free(j->provoke[i]);
	for (size_t i = 0; i < j->nprotocol_events; i++) {
		free(j->protocol_events[i].title);
		free(j->protocol_events[i].excerpt);
	}
	for (size_t i = 0; i < j->nstarted; i++) {
		free(j->started[i].abi);
		free(j->started[i].test);
	}
	free(j->started);
	free(j->first_test_failure);
	free(j->timeout_reason);
	free(j->infra_reason);
	free(j->dropped_title);
	free(j->cut_reason);
	for (size_t i = 0; i < j->nexpected; i++)
		free(j->expected[i]);
	free(j->expected);
	free(j->reason);
	free(j);
}

/* Stage changes the kernel's own messages show (the crash detector names them). */
static void track_kernel_stages(struct judge *j, enum crash_progress progress, double t)
{
	if (progress == CRASH_PROGRESS_BANNER) {
		j->banner = true;
		set_stage(j, STAGE_KERNEL, t);
	} else if (progress == CRASH_PROGRESS_POWEROFF) {
		j->poweroff_seen = true;
		if (j->stage >= STAGE_END)
			set_stage(j, STAGE_POWEROFF, t);
	}
}

/* One cleaned console line, or a piece of one, read as line lineno. */
static void judge_text(struct judge *j, const char *s, size_t n, long lineno, double t)
{
	crash_feed_line(j->crash, s, n, lineno, t);
	track_kernel_stages(j, crash_line_progress(j->crash), t);
	decoder_feed_line(j->decoder, s, n, lineno, t);
	ktap_feed_line(j->ktap, s, n, lineno);
}

/* s[0..n) as line lineno: a long one as its head, the seam and its tail,
 * as the assembled lines of flush_line() are read. */
static void judge_span(struct judge *j, const char *s, size_t n, long lineno, double t)
{
	if (n <= LINE_HEAD + LINE_TAIL) {
		judge_text(j, s, n, lineno, t);
		return;
	}
	j->joined.len = 0;
	strbuf_add(&j->joined, s, LINE_HEAD);
	strbuf_addstr(&j->joined, LINE_SEAM);
	strbuf_add(&j->joined, s + n - LINE_TAIL, LINE_TAIL);
	judge_text(j, j->joined.buf, j->joined.len, lineno, t);
}

/* One whole line that lies in a chunk, the next line of the console. */
static void judge_line(struct judge *j, const char *s, size_t n, double t)
{
	judge_span(j, s, n, ++j->lineno, t);
}

/* Is there text in the line being assembled? */
static bool line_pending(const struct judge *j)
{
	return j->line.len || j->tail_len;
}

/* Forgets the assembled line. */
static void reset_line(struct judge *j)
{
	j->line.len = 0;
	if (j->line.buf)
		j->line.buf[0] = '\0';
	j->tail_len = j->tail_pos = 0;
	j->tail_dropped = false;
	j->line_t = -1;
}

/* Hands the assembled text to the readers as line lineno: the head, then
 * (when the line outgrew it) the ring's bytes, oldest first, after the
 * seam when some were overwritten. */
static void flush_line(struct judge *j, long lineno)
{
	if (!j->tail_len) {
		judge_text(j, j->line.buf ? j->line.buf : "", j->line.len, lineno, j->line_t);
		return;
	}
	size_t oldest = j->tail_len < LINE_TAIL ? 0 : j->tail_pos;
	j->joined.len = 0;
	strbuf_add(&j->joined, j->line.buf, j->line.len);
	if (j->tail_dropped)
		strbuf_addstr(&j->joined, LINE_SEAM);
	strbuf_add(&j->joined, j->tail + oldest, j->tail_len - oldest);
	strbuf_add(&j->joined, j->tail, oldest);
	judge_text(j, j->joined.buf, j->joined.len, lineno, j->line_t);
}

/* Hands the assembled line to the readers and starts a new one. */
static void end_line(struct judge *j)
{
	flush_line(j, ++j->lineno);
	reset_line(j);
}

/* A lone '\r', a screen clear, a cursor home or a terminal reset: the
 * terminal would overwrite what came before, but the judge still reads it,
 * as a piece of the line (its line number is the line's) before the rest. */
static void end_piece(struct judge *j)
{
	if (line_pending(j))
		flush_line(j, j->lineno + 1);
	reset_line(j);
}

/* Keeps n bytes of a line that outgrew its head: the last LINE_TAIL of them. */
static void add_tail(struct judge *j, const char *s, size_t n)
{
	if (!j->tail)
		j->tail = xmalloc(LINE_TAIL);
	if (j->tail_len + n > LINE_TAIL)
		j->tail_dropped = true;
	if (n >= LINE_TAIL) {
		memcpy(j->tail, s + n - LINE_TAIL, LINE_TAIL);
		j->tail_len = LINE_TAIL;
		j->tail_pos = 0;
		return;
	}
	size_t first = LINE_TAIL - j->tail_pos < n ? LINE_TAIL - j->tail_pos : n;
	memcpy(j->tail + j->tail_pos, s, first);
	memcpy(j->tail, s + first, n - first);
	j->tail_pos = (j->tail_pos + n) % LINE_TAIL;
	j->tail_len = j->tail_len + n < LINE_TAIL ? j->tail_len + n : LINE_TAIL;
}

/* Appends n bytes of plain text to the line: to its head while there is
 * room, the rest to its tail. */
static void add_text(struct judge *j, const char *s, size_t n, double t)
{
	if (j->line_t < 0)
		j->line_t = t;
	size_t room = LINE_HEAD - j->line.len;
	if (room) {
		size_t k = n < room ? n : room;
		strbuf_add(&j->line, s, k);
		s += k;
		n -= k;
	}
	if (n)
		add_tail(j, s, n);
}

/*
 * One byte of the console: ANSI escapes and NUL dropped, "\r\n" (any
 * number of '\r') ends a line as '\n' does; a lone '\r', a terminal reset,
 * a screen clear or a cursor home ends a piece of it (end_piece: firmware
 * menus and progress lines, or a report someone would hide). judge_feed()
 * hands plain text to add_text() in runs and only the bytes that steer
 * this machine (and those inside an escape) come here.
 */
static void feed_byte(struct judge *j, unsigned char c, double t)
{
	if (j->esc == 1) {
		j->esc = c == '[' ? 2 : 0;
		if (c == 'c')
			end_piece(j);           /* RIS: the terminal was reset */
		return;
	}
	if (j->esc == 2) {
		if (c >= 0x40 && c <= 0x7e) {
			j->esc = 0;
			if (c == 'J' || c == 'H')
				end_piece(j);   /* screen cleared, cursor homed */
		}
		return;
	}
	if (c == 0x1b) {
		j->esc = 1;
		return;
	}
	if (c == '\0')
		return;
	if (c == '\r') {
		j->cr = true;
		return;
	}
	if (j->cr && c != '\n')
		end_piece(j);           /* a lone '\r': what follows overwrites */
	j->cr = false;
	if (c == '\n') {
		if (j->line_t < 0)
			j->line_t = t;
		end_line(j);
		return;
	}
	add_text(j, (const char *)&c, 1, t);
}

/* The bytes feed_byte() must see one by one; all others are plain text. */
static const bool steers[256] = { ['\n'] = true, ['\r'] = true, ['\0'] = true, [0x1b] = true };

/* Does one of the 8 bytes at s lie below 0x20 (every byte that steers does)? */
static bool has_control_byte(const char *s)
{
	uint64_t w;
	memcpy(&w, s, sizeof(w));
	return (w - 0x2020202020202020ull) & ~w & 0x8080808080808080ull;
}

/* How many bytes from s on are plain text (up to n): 8 at a time while
 * none is a control byte (most text), else one at a time. */
static size_t text_run(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if (i + 8 <= n && !has_control_byte(s + i))
			i += 8;
		else if (!steers[(unsigned char)s[i]])
			i++;
		else
			break;
	}
	return i;
}

/* How many NUL bytes s[0..n) starts with (a zeroed console, /dev/zero):
 * 8 at a time, since feed_byte() would drop each of them. */
static size_t zero_run(const char *s, size_t n)
{
	size_t i = 0;
	uint64_t w;
	while (i + 8 <= n && (memcpy(&w, s + i, 8), w == 0))
		i += 8;
	while (i < n && s[i] == '\0')
		i++;
	return i;
}

/*
 * Feeds s[0..n) while no escape or '\r' is pending. A whole line that
 * lies in the chunk, ends with '\n' or "\r\n" and starts a fresh line (the
 * common case) goes to the readers straight from the chunk, without a
 * copy; returns how many bytes were used.
 */
static size_t feed_text(struct judge *j, const char *s, size_t n, double t)
{
	size_t run = text_run(s, n), end = run;
	while (end < n && s[end] == '\r')
		end++;
	if (end < n && s[end] == '\n' && j->line.len == 0 && j->line_t < 0) {
		judge_line(j, s, run, t);
		return end + 1;
	}
	if (run) {
		add_text(j, s, run, t);
		return run;
	}
	if (s[0] == '\0')
		return zero_run(s, n);
	feed_byte(j, (unsigned char)s[0], t);
	return 1;
}

void judge_feed(struct judge *j, const char *bytes, size_t n, double t)
{
	if (j->finished || !n)
		return;
	j->any_output = true;
	j->last_output = t;
	for (size_t i = 0; i < n;) {
		if (j->esc || j->cr)
			feed_byte(j, (unsigned char)bytes[i++], t);
		else
			i += feed_text(j, bytes + i, n - i, t);
	}
}

/* ---------------------------------------------------------- timing */

/* Has a stage or the silence limit expired at now? Records why. */
static bool check_timeouts(struct judge *j, double now)
{
	if (j->timed_out)
		return true;
	double limit = j->limits.stage[j->stage];
	double began = j->stage_t[j->stage] >= 0 ? j->stage_t[j->stage] : 0;
	if (limit > 0 && now - began > limit) {
		j->timeout_reason = xasprintf("the %s stage did not end within %.0f s",
					      stage_name(j->stage), limit);
		j->timed_out = true;
		return true;
	}
	double last = j->any_output ? j->last_output : 0;
	if (j->limits.silence > 0 && now - last > j->limits.silence) {
		j->timeout_reason = xasprintf("the console was silent for %.0f s in the %s stage",
					      now - last, stage_name(j->stage));
		j->timed_out = true;
		return true;
	}
	return false;
}

bool judge_should_stop(struct judge *j, double now)
{
	if (j->finished || j->infra || j->machine_stopped)
		return true;
	if (crash_panic_ended(j->crash))
		return true;
	/* Kernels before ~4.9 print no "end Kernel panic" marker: a panic
	 * followed by PANIC_QUIET seconds of silence is as final. */
	if (crash_panic_seen(j->crash) && now - j->last_output > PANIC_QUIET)
		return true;
	if (j->end_seen && j->poweroff_seen)
		return true;
	return check_timeouts(j, now);
}

void judge_machine_stopped(struct judge *j, double t)
{
	if (j->machine_stopped)
		return;
	j->machine_stopped = true;
	j->stopped_t = t;
	if (j->stage == STAGE_END)
		set_stage(j, STAGE_POWEROFF, t);
}

void judge_console_ended(struct judge *j, double t)
{
	if (line_pending(j))
		end_line(j);
	crash_finish(j->crash);
	if (j->timed_out || j->machine_stopped || j->end_seen || crash_panic_ended(j->crash))
		return;
	if (j->poweroff_seen) {
		judge_machine_stopped(j, t);
		return;
	}
	j->timed_out = true;
	j->timeout_reason = xasprintf("the console ended in the %s stage at %.3f s",
				      stage_name(j->stage), t);
}

void judge_console_cut(struct judge *j, double t, const char *reason)
{
	if (!j->cut_reason)
		j->cut_reason = xstrdup(reason);
	judge_console_ended(j, t);
}

void judge_infra_error(struct judge *j, const char *reason)
{
	if (j->infra)
		return;
	j->infra = true;
	j->infra_t = j->any_output ? j->last_output : 0;
	j->infra_reason = xstrdup(reason ? reason : "the host failed");
}

/* ---------------------------------------------------------- verdict */

void judge_expect_event(struct judge *j, const char *title_pattern)
{
	j->expected = xrealloc(j->expected, (j->nexpected + 1) * sizeof(*j->expected));
	j->expected[j->nexpected++] = xstrdup(title_pattern);
}

/* Is e a known issue? Only a non-fatal event can be: a crash is never. */
static bool is_expected(const struct judge *j, const struct crash_event *e)
{
	if (e->fatal)
		return false;
	for (size_t i = 0; i < j->nexpected; i++)
		if (fnmatch(j->expected[i], e->title, 0) == 0)
			return true;
	return false;
}

/* The events that count for the verdict: all but the expected ones. */
static size_t counted_events(const struct judge *j)
{
	size_t n = 0;
	for (size_t i = 0; i < crash_event_count(j->crash); i++)
		n += !is_expected(j, crash_event_at(j->crash, i));
	return n;
}

static const struct crash_event *first_event(const struct judge *j, bool fatal)
{
	for (size_t i = 0; i < crash_event_count(j->crash); i++) {
		const struct crash_event *e = crash_event_at(j->crash, i);
		if (e->fatal == fatal && e->kind != CRASH_FIRMWARE_ERROR && !is_expected(j, e))
			return e;
	}
	return NULL;
}

/* The last firmware error: the scans before a boot command fail too. */
static const struct crash_event *firmware_event(const struct judge *j)
{
	for (size_t i = crash_event_count(j->crash); i-- > 0;)
		if (crash_event_at(j->crash, i)->kind == CRASH_FIRMWARE_ERROR)
			return crash_event_at(j->crash, i);
	return NULL;
}

/* Why the boot never reached init, most specific first (malloc'd). */
static char *boot_fail_reason(const struct judge *j)
{
	const struct crash_event *fw = firmware_event(j);
	if (fw)
		return xstrdup(fw->title);
	if (!j->any_output)
		return xstrdup("no console output");
	if (!j->banner)
		return xstrdup("the kernel never started (no \"Linux version\" banner)");
	return xstrdup("the kernel never reached the init (no BEGIN record)");
}

/* FAIL's reasons from the records, or NULL when they are complete and clean. */
static char *records_reason(const struct judge *j)
{
	const struct proto_stats *st = decoder_stats(j->decoder);
	if (j->nerrors)
		return xasprintf("init error: %s", j->first_error);
	/* Duplicated and reordered lines lose nothing (the decoder drops the
	 * copy and keeps the order-independent data): listed, not failed. */
	uint64_t other = st->problems[PROTO_BAD_VERSION] + st->problems[PROTO_COUNT_MISMATCH] +
			 st->problems[PROTO_RESTART];
	if (st->problems[PROTO_AFTER_END] || st->problems[PROTO_DUPLICATE_METRIC])
		return xasprintf("records not read: %llu after END, %llu duplicate metrics "
				 "(forged, or printed twice)",
				 (unsigned long long)st->problems[PROTO_AFTER_END],
				 (unsigned long long)st->problems[PROTO_DUPLICATE_METRIC]);
	if (j->records_not_kept)
		return xasprintf("%zu records not kept: more than %d MiB of records",
				 j->records_not_kept, MAX_KEPT_BYTES >> 20);
	if (st->problems[PROTO_CORRUPT] || st->lost || other)
		return xasprintf("records damaged: %llu corrupt, %llu lost, %llu other "
				 "(bad version, count mismatch, restart)",
				 (unsigned long long)st->problems[PROTO_CORRUPT],
				 (unsigned long long)st->lost, (unsigned long long)other);
	if (j->first_test_failure)
		return xasprintf("test %s", j->first_test_failure);
	if (j->nstarted)
		return xasprintf("test %s/%s started but never reported", j->started[0].abi,
				 j->started[0].test);
	if (!j->end_seen)
		return xasprintf("no END record: the records stopped in the %s stage",
				 stage_name(j->stage));
	if (j->end_failed || j->end_timeout || j->end_passed != j->end_tests)
		return xasprintf("END reports %llu of %llu tests passed",
				 (unsigned long long)j->end_passed, (unsigned long long)j->end_tests);
	if (j->results != j->end_tests)
		return xasprintf("END reports %llu tests but %zu results were received",
				 (unsigned long long)j->end_tests, j->results);
	return NULL;
}

/* The title of the first non-fatal event that counts, kept or not, or NULL. */
static const char *first_failure(const struct judge *j)
{
	const struct crash_event *e = first_event(j, false);
	return e ? e->title : j->dropped_title;
}

/* FAIL for the kernel's reports (first_failure() is not NULL). */
static char *failure_reason(const struct judge *j, size_t nevents)
{
	return nevents > 1 ? xasprintf("kernel reported: %s (+%zu more events)", first_failure(j),
				       nevents - 1)
			   : xasprintf("kernel reported: %s", first_failure(j));
}

/* The verdict and its reason from everything seen. */
static enum verdict decide(struct judge *j, char **reason)
{
	const struct crash_event *e;
	size_t nevents = counted_events(j) + j->dropped_counted;
	if (j->infra) {
		*reason = xstrdup(j->infra_reason);
		return VERDICT_INFRA_ERROR;
	}
	if ((e = first_event(j, true))) {
		*reason = nevents > 1 ? xasprintf("%s (+%zu more events)", e->title, nevents - 1)
				      : xstrdup(e->title);
		return VERDICT_PANIC;
	}
	if (j->cut_reason) {
		/* what the rest of the console held is unknown: only a report
		 * seen stands (nothing after it can undo it) */
		if (first_failure(j)) {
			*reason = failure_reason(j, nevents);
			return VERDICT_FAIL;
		}
		*reason = xstrdup(j->cut_reason);
		return VERDICT_INFRA_ERROR;
	}
	if (!j->banner && j->stage < STAGE_INIT) {
		*reason = boot_fail_reason(j);
		return VERDICT_BOOT_FAIL;
	}
	if (j->timed_out) {
		*reason = first_failure(j) ? xasprintf("%s, after %s", j->timeout_reason,
						       first_failure(j))
					   : xstrdup(j->timeout_reason);
		return VERDICT_HANG;
	}
	if (j->stage < STAGE_INIT) {
		*reason = boot_fail_reason(j);
		return VERDICT_BOOT_FAIL;
	}
	if (first_failure(j)) {
		*reason = failure_reason(j, nevents);
		return VERDICT_FAIL;
	}
	/* the kernel booted and its own test (KUnit) failed */
	if (ktap_failure(j->ktap)) {
		*reason = xstrdup(ktap_failure(j->ktap));
		return VERDICT_FAIL;
	}
	*reason = records_reason(j);
	if (*reason)
		return VERDICT_FAIL;
	/* --provoke that provoked nothing says why, never silently */
	*reason = j->provoke[0] ? xasprintf("provoke %s: %s: %s", j->provoke[0], j->provoke[1],
					    j->provoke[2])
				: xstrdup("");
	return VERDICT_PASS;
}

enum verdict judge_finish(struct judge *j, double t)
{
	if (j->finished)
		return j->verdict;
	if (line_pending(j))
		end_line(j);
	if (!j->infra && !j->timed_out && !j->machine_stopped && !crash_panic_ended(j->crash) &&
	    !(j->end_seen && j->poweroff_seen))
		check_timeouts(j, t);
	crash_finish(j->crash);
	decoder_finish(j->decoder);
	ktap_finish(j->ktap);
	j->end_t = t;
	j->verdict = decide(j, &j->reason);
	j->finished = true;
	return j->verdict;
}

enum verdict judge_verdict(const struct judge *j)
{
	return j->verdict;
}

const char *judge_reason(const struct judge *j)
{
	return j->reason ? j->reason : "";
}

size_t judge_events_not_kept(const struct judge *j)
{
	return crash_events_dropped(j->crash);
}

enum stage judge_stage(const struct judge *j)
{
	return j->stage;
}

/* ------------------------------------------------------- accessors */

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
					   is_expected(j, c), c };
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
	*row = (struct judge_test){ field_or_empty(rec, "abi"), field_or_empty(rec, "test"),
				    field_or_empty(rec, "status"), field_or_empty(rec, "reason"),
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
		field_or_empty(rec, "abi"), field_or_empty(rec, "test"),
		field_or_empty(rec, "name"), field_or_empty(rec, "unit"),
		field_or_empty(rec, "better"), false, 0,
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

/* ---------------------------------------------------------- names */

const char *verdict_name(enum verdict v)
{
	static const char *const names[] = { "PASS", "FAIL", "PANIC", "HANG", "BOOT_FAIL",
					     "INFRA_ERROR" };
	return (unsigned)v < ARRAY_SIZE(names) ? names[v] : "INFRA_ERROR";
}

int verdict_exit_code(enum verdict v)
{
	switch (v) {
	case VERDICT_PASS:
		return EXIT_PASS;
	case VERDICT_FAIL:
		return EXIT_FAIL;
	case VERDICT_PANIC:
	case VERDICT_HANG:
	case VERDICT_BOOT_FAIL:
		return EXIT_CRASH;
	case VERDICT_INFRA_ERROR:
		break;
	}
	return EXIT_INFRA;
}

int verdict_severity(enum verdict v)
{
	/* PASS < FAIL < HANG < BOOT_FAIL < PANIC; INFRA_ERROR says nothing
	 * about the kernel, so it ranks below every kernel failure but above
	 * PASS (the run was not usable). */
	switch (v) {
	case VERDICT_PASS:
		return 0;
	case VERDICT_INFRA_ERROR:
		return 1;
	case VERDICT_FAIL:
		return 2;
	case VERDICT_HANG:
		return 3;
	case VERDICT_BOOT_FAIL:
		return 4;
	case VERDICT_PANIC:
		return 5;
	}
	return 1;
}

const struct ktap *judge_ktap(const struct judge *j)
{
	return j->ktap;
}
