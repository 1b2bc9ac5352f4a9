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
 *   - the crash detector (judge/crash.c: reports and their titles; it
 *     also names the kernel banner and power-off messages),
 *   - the stage tracker, from what the detector named,
 *   - the protocol decoder (judge/protocol.h), whose records fill sysinfo,
 *     the ABI table, tests and metrics, and move the init/results/end stages.
 * Speed (the judge reads a console at hundreds of MB/s): plain text is
 * taken in runs, a whole line that lies in its chunk is read in place, and
 * the records are kept as given and turned into JSON only by
 * judge_to_json() (judge-json.c: a console may carry a great many METRIC
 * records; judge-internal.h holds what the two files share).
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
#include "judge-internal.h"
#include "exitcodes.h"
#include "textsafe.h"
#include "util.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------- records */

/* Moves to stage s at time t; stages only move forward (skipped ones stay unknown). */
static void set_stage(struct judge *j, enum stage s, double t)
{
	if (s <= j->stage)
		return;
	j->stage = s;
	j->stage_t[s] = t;
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
void judge_keep_record(struct judge *j, const struct proto_record *rec)
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
	j->started[j->nstarted].abi = xstrdup(judge_field_or_empty(rec, "abi"));
	j->started[j->nstarted].test = xstrdup(judge_field_or_empty(rec, "test"));
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
	const char *abi = judge_field_or_empty(rec, "abi");
	const char *test = judge_field_or_empty(rec, "test");
	const char *status = judge_field_or_empty(rec, "status");
	const char *reason = judge_field_or_empty(rec, "reason");
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
		j->first_error = xstrdup(judge_field_or_empty(rec, "reason"));
}

/* PROVOKE (bootrig run --provoke): its kind, status and reason or result,
 * the last record's. */
static void on_provoke(struct judge *j, const struct proto_record *rec)
{
	const char *v[3] = { judge_field_or_empty(rec, "kind"), judge_field_or_empty(rec, "status"),
			     proto_get(rec, "reason") ? judge_field_or_empty(rec, "reason")
						      : judge_field_or_empty(rec, "result") };
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
	case PROTO_KIND_BOOTTIME:
		judge_keep_record(j, rec);
		break;
	case PROTO_KIND_TEST:
		set_stage(j, STAGE_RESULTS, rec->time);
		on_test_start(j, rec);
		break;
	case PROTO_KIND_METRIC:
	case PROTO_KIND_PERFSTAT:
		set_stage(j, STAGE_RESULTS, rec->time);
		judge_keep_record(j, rec);
		break;
	case PROTO_KIND_INITCALLS:
		set_stage(j, STAGE_RESULTS, rec->time);
		judge_initcalls_record(j, rec);
		break;
	case PROTO_KIND_RESULT:
		set_stage(j, STAGE_RESULTS, rec->time);
		on_result(j, rec);
		judge_keep_record(j, rec);
		break;
	case PROTO_KIND_ERROR:
		on_error(j, rec);
		judge_keep_record(j, rec);
		break;
	case PROTO_KIND_END:
		set_stage(j, STAGE_END, rec->time);
		on_end(j, rec);
		break;
	case PROTO_KIND_PROVOKE:
		on_provoke(j, rec);
		break;
	case PROTO_KIND_PROFILE:
	case PROTO_KIND_PFUNC:
	case PROTO_KIND_PSTACK:
		judge_profile_record(j, rec);
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
	if (e->kind == CRASH_FIRMWARE_ERROR || judge_is_expected(j, e))
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
	judge_profiles_free(j);
	free(j->initcall_names);
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
bool judge_is_expected(const struct judge *j, const struct crash_event *e)
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
		n += !judge_is_expected(j, crash_event_at(j->crash, i));
	return n;
}

static const struct crash_event *first_event(const struct judge *j, bool fatal)
{
	for (size_t i = 0; i < crash_event_count(j->crash); i++) {
		const struct crash_event *e = crash_event_at(j->crash, i);
		if (e->fatal == fatal && e->kind != CRASH_FIRMWARE_ERROR && !judge_is_expected(j, e))
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

