/*
 * judge-internal.h: what the files of the boot judge share (judge.h is its
 * public contract); only judge/judge*.c include this.
 *
 *   judge.c        line assembly, the records' facts, stages, timeouts and
 *                  the verdict;
 *   judge-json.c   the typed accessors and the JSON of result.json, built
 *                  from the kept records only when asked.
 */
#ifndef BOOTRIG_JUDGE_INTERNAL_H
#define BOOTRIG_JUDGE_INTERNAL_H

#include "judge.h"
#include "crash.h"
#include "ktap.h"
#include "protocol.h"
#include "util.h"

#include <stdbool.h>
#include <stddef.h>

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

/* Is e a known issue of the target (judge_expect_event's patterns)? */
bool judge_is_expected(const struct judge *j, const struct crash_event *e);

/* A record field, or "" when absent. */
static inline const char *judge_field_or_empty(const struct proto_record *rec, const char *key)
{
	const char *v = proto_get(rec, key);
	return v ? v : "";
}

#endif
