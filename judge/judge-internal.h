/*
 * judge-internal.h: what the files of the boot judge share (judge.h is its
 * public contract); only judge/judge*.c include this.
 *
 *   judge.c        line assembly, the records' facts, stages, timeouts and
 *                  the verdict;
 *   judge-json.c   the typed accessors and the JSON of result.json, built
 *                  from the kept records only when asked;
 *   judge-profile.c  the metrics' profiles (PROFILE, PFUNC, PSTACK records):
 *                  each attached to its METRIC, checked, and its JSON.
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

/* Bounds on the profiles (initramfs/PROTOCOL.md, issue 31): a profile keeps
 * at most PROFILE_MAX_FUNCTIONS PFUNC and PROFILE_MAX_STACKS PSTACK records
 * (a guest announcing more is incomplete), a boot at most MAX_PROFILES
 * profiles and MAX_PROFILE_BYTES of their text; what is past them is counted
 * (result.json protocol.profile_not_read), never a verdict change. */
#define PROFILE_MAX_FUNCTIONS 80
#define PROFILE_MAX_STACKS 100
#define MAX_PROFILES 4096
#define MAX_PROFILE_BYTES (32 << 20)

struct profile_fn {
	char *name;
	uint64_t self, children;
};

struct profile_stack {
	char *stack;
	uint64_t n;
};

/* One metric's profile as its records gave it (judge-profile.c). */
struct judge_profile_rec {
	size_t metric;                  /* its METRIC: an index into judge.kept */
	char *abi, *test, *name;
	bool unavailable;               /* status=unavailable */
	char *reason;                   /* unavailable's reason; NULL: none */
	char *event;                    /* NULL: not sent */
	bool header_ok;                 /* every number of the header parsed */
	const char *header_bad;         /* when not: the first field missing or wrong */
	uint64_t period_ns, samples, lost, nfunctions, nstacks_sent, stacks_other;
					/* nfunctions, nstacks_sent: the header's functions=, stacks= */
	uint64_t interrupt;             /* samples of interrupt work, not in samples (0 when absent) */
	bool has_cut;                   /* the header's cut_self= and cut_children= (an older
					 * guest sends none) */
	uint64_t cut_self, cut_children;        /* the most a function not listed has */
	struct profile_fn *fns;
	size_t nfns;
	size_t merged;                  /* PFUNCs of a name already listed, added to it */
	struct profile_stack *stacks;
	size_t nstacks;
	size_t bad;                     /* PFUNC/PSTACK records of it past the announced
					 * counts or bounds, or with a malformed field */
	char *problem;                  /* the first malformed one's fault (a NUL byte in
					 * a name, a function again), or NULL */
};

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
	size_t initcalls_malformed;     /* INITCALLS items not read: malformed, or a name
					 * again (judge-boottime.c) */
	uint64_t *initcall_names;       /* the names' keys, a set of initcall_slots */
	size_t ninitcall_names, initcall_slots;
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

	/* the metrics' profiles, in the order their PROFILE records came */
	struct judge_profile_rec *profiles;
	size_t nprofiles, profile_bytes;
	size_t profile_not_read;        /* profile records not read: past the bounds, of no
					 * metric, or of no open profile */

	bool finished;
	enum verdict verdict;
	char *reason;
	double end_t;
};

/* judge_keep_record: keeps rec's kind and fields for judge_to_json() while
 * the kept records hold less than MAX_KEPT_BYTES (judge.c). */
void judge_keep_record(struct judge *j, const struct proto_record *rec);
/* judge_initcalls_record: an INITCALLS record's items, each kept as the
 * METRIC of (boot, initcall) it stands for (judge-boottime.c). */
void judge_initcalls_record(struct judge *j, const struct proto_record *rec);

/* judge_profile_record: a PROFILE, PFUNC or PSTACK record (judge-profile.c). */
void judge_profile_record(struct judge *j, const struct proto_record *rec);
void judge_profiles_free(struct judge *j);
/* The JSON of the profile of kept METRIC record k (spec: RESULTS.md, a
 * metric's "profile"), or NULL when it has none; prof_of maps kept indices
 * to profiles + 1 (judge_profile_index()). */
struct json_object *judge_profile_json(const struct judge *j, const size_t *prof_of, size_t k);
/* A malloc'd array over j->kept: entry k is 1 + the index of kept record
 * k's profile, 0 when it has none (NULL when there are no profiles). */
size_t *judge_profile_index(const struct judge *j);

/* The "perf_stat" of PERFSTAT record rec (runner/RESULTS.md), or NULL when
 * it has no perf stat fields (judge-perfstat.c). */
struct json_object *judge_perf_stat_json(const struct proto_record *rec);
/* The kept PERFSTAT records by metric (abi, test, name): judge_perf_find
 * gives METRIC record m's (the first of its identity), or NULL. The
 * index is NULL when there are none. */
struct judge_perf_index;
struct judge_perf_index *judge_perf_index(const struct judge *j);
const struct proto_record *judge_perf_find(const struct judge *j, const struct judge_perf_index *x,
					   const struct proto_record *m);
void judge_perf_index_free(struct judge_perf_index *x);

/* Is e a known issue of the target (judge_expect_event's patterns)? */
bool judge_is_expected(const struct judge *j, const struct crash_event *e);

/* A record field, or "" when absent. */
static inline const char *judge_field_or_empty(const struct proto_record *rec, const char *key)
{
	const char *v = proto_get(rec, key);
	return v ? v : "";
}

#endif
