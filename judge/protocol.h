/*
 * protocol.h: the host side of the result protocol (initramfs/PROTOCOL.md):
 * a streaming decoder that finds "@@BR " records among console lines and
 * yields only what it can trust, the strict number parsers the readers of
 * records use, and a small encoder for tests and fixtures.
 *
 * Decoding. The caller splits the console into lines (without the '\n') and
 * feeds each with its 1-based line number and host time. The decoder
 *   - drops NUL bytes, '\r' and ANSI escape sequences anywhere in the line,
 *   - finds each "@@BR " anywhere in it (kernel text may stand before, and
 *     after the trailer: a record is found by its CRC),
 *   - checks the CRC-32, the version and the syntax, decodes %XX escapes;
 *     a line that fails is corrupt and nothing of it is read,
 *   - joins a record cut by a kernel message (the cut fragment may be
 *     followed by kernel text on its line; the continuation starts a later
 *     line, up to 1000 lines on) and keeps the join only if the CRC
 *     matches ("repaired"). Up to four fragments wait; one that expires, is
 *     pushed out, or is overtaken by a later record is corrupt,
 *   - follows the sequence numbers: gaps (lost: a corrupt record also
 *     counts as lost), the same record again (duplicate: dropped), steps
 *     back to an unseen seq (reordered: kept, and no longer lost), a BEGIN
 *     at seq 0 after other records, or a seq seen before with other content
 *     (restart: init runs again, its BEGIN maybe lost; seq tracking starts
 *     over, and a run without END is reported truncated),
 *   - checks END's records= against the records received before it, and at
 *     decoder_finish() reports pending fragments as corrupt and a stream
 *     without END as truncated,
 *   - after END, reads nothing more of the run: a record that is not the
 *     same line again (a duplicate) or a BEGIN at seq 0 (a new run) is
 *     "after_end", a second END included; a METRIC whose (abi, test, name)
 *     came before in the same test run (since that test's TEST record) is
 *     "duplicate_metric". Neither is yielded: one run of a test gives each
 *     metric once.
 * Bounds: the seqs of one run and the metric names of one run are
 * remembered up to PROTO_MAX_REMEMBERED each; past that, a duplicate of a
 * record or of a metric not remembered is not recognized.
 * Records and problems come out through callbacks, in input order (a
 * fragment that never finds its continuation is reported when it expires,
 * so that report comes later than the records after it; its line number is
 * the fragment's). Not repaired: a record cut twice, or cut inside its
 * "@@BR " prefix; those are corrupt or lost.
 *
 * Cost: linear in the input; one record is at most PROTO_MAX_LINE bytes, so a
 * 1 MB garbage line costs a few scans of it and no allocation per byte. A
 * repair try scans the fragment's kept prefix CRCs once (the CRC the join
 * needs is solved for, not searched with a combine per cut point).
 *
 * Lifetime: a struct proto_record or proto_problem passed to a callback,
 * and every pointer in it, is valid only during that callback.
 */
#ifndef BOOTRIG_PROTOCOL_H
#define BOOTRIG_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROTO_PREFIX "@@BR "
#define PROTO_VERSION 1
/* The longest record line, newline included (PROTOCOL.md). */
#define PROTO_MAX_LINE 4096
/* The most seqs, and metric names, one run's checks remember. */
#define PROTO_MAX_REMEMBERED (1u << 20)

/* The kinds PROTOCOL.md lists; PROTO_KIND_UNKNOWN for any other word. */
enum proto_kind {
	PROTO_KIND_BEGIN,
	PROTO_KIND_SYSINFO,
	PROTO_KIND_ABI,
	PROTO_KIND_PLAN,
	PROTO_KIND_TEST,
	PROTO_KIND_METRIC,
	PROTO_KIND_LOG,
	PROTO_KIND_RESULT,
	PROTO_KIND_ERROR,
	PROTO_KIND_END,
	PROTO_KIND_PROVOKE,
	PROTO_KIND_PROFILE,     /* a metric's profile: its header (issue 31) */
	PROTO_KIND_PFUNC,       /* one function of it */
	PROTO_KIND_PSTACK,      /* one folded stack of it */
	PROTO_KIND_BOOTTIME,    /* what init read of the initcalls (boot_time=1) */
	PROTO_KIND_INITCALLS,   /* initcalls, packed: calls=F:US:RC,... (boot_time=1) */
	PROTO_KIND_PERFSTAT,    /* a metric's perf stat counters (the counting run) */
	PROTO_KIND_UNKNOWN,
};

/* One key=value pair; both NUL-terminated. value is decoded (%XX undone)
 * and may hold NUL bytes (%00): value_len is its true length. */
struct proto_field {
	const char *key;
	const char *value;
	size_t value_len;
};

/* One record the decoder trusts (CRC and syntax checked). */
struct proto_record {
	uint64_t seq;
	enum proto_kind kind;
	const char *kind_name;          /* the word as printed: "METRIC" */
	size_t nfields;
	const struct proto_field *fields;
	long line;                      /* line of its "@@BR " */
	double time;                    /* that line's host time */
	bool repaired;                  /* joined from two console lines */
	const char *text;               /* the cleaned record, "@@BR ... *crc" */
	size_t text_len;
};

enum proto_problem_kind {
	PROTO_CORRUPT,          /* bad CRC, no CRC, bad syntax, too long */
	PROTO_REPAIRED,         /* a cut record joined back (kept; information) */
	PROTO_LOST,             /* a gap in seq: records never received intact */
	PROTO_DUPLICATE,        /* a record seen again (dropped) */
	PROTO_REORDERED,        /* a seq lower than one already seen (kept) */
	PROTO_BAD_VERSION,      /* "@@BR <v>" with v != 1: fields not read */
	PROTO_UNKNOWN_KIND,     /* a kind this host does not know (kept) */
	PROTO_COUNT_MISMATCH,   /* END's records= is not what was received */
	PROTO_TRUNCATED,        /* records began but no END came (at finish) */
	PROTO_RESTART,          /* BEGIN seq 0 after other records, or a seq
				 * again with other content: init runs again
				 * (a reboot); a run without END before it is
				 * reported truncated */
	PROTO_AFTER_END,        /* a record after END, a second END included
				 * (not read: init prints nothing after END,
				 * so it is forged or misprinted) */
	PROTO_DUPLICATE_METRIC, /* a METRIC whose (abi, test, name) came
				 * before in the same test run (not read) */
	PROTO_PROBLEM_COUNT,
};

struct proto_problem {
	enum proto_problem_kind kind;
	long line;                      /* where it was seen */
	double time;
	int64_t seq;                    /* the record's seq, -1 if unknown */
	const char *detail;             /* one line, for people */
};

/* Running totals; `problems[k]` counts problems of kind k. lost is in
 * records (a gap of 3 counts 3), net of reordered records that filled it. */
struct proto_stats {
	uint64_t records;               /* records yielded */
	uint64_t problems[PROTO_PROBLEM_COUNT];
	uint64_t lost;
	bool begin, end;                /* a BEGIN / an END was yielded */
	uint64_t end_records;           /* END's records= (when end) */
};

typedef void proto_record_fn(void *ctx, const struct proto_record *rec);
typedef void proto_problem_fn(void *ctx, const struct proto_problem *p);

struct decoder;

/* A new decoder; either callback may be NULL. Never returns NULL. */
struct decoder *decoder_new(proto_record_fn *on_record,
			    proto_problem_fn *on_problem, void *ctx);
void decoder_free(struct decoder *d);

/*
 * decoder_feed_line: one console line, without its '\n' (a trailing '\r' is
 * fine), any bytes, any length. lineno counts from 1; t is the host time in
 * seconds the line was read at. Callbacks run before it returns.
 */
void decoder_feed_line(struct decoder *d, const char *line, size_t len,
		       long lineno, double t);

/*
 * decoder_finish: the stream ended: pending fragments become corrupt, a
 * stream that began without END is truncated. Idempotent; feeding after it
 * starts a fresh stream's checks only for new records.
 */
void decoder_finish(struct decoder *d);

const struct proto_stats *decoder_stats(const struct decoder *d);

const char *proto_kind_name(enum proto_kind k);              /* "METRIC" */
const char *proto_problem_name(enum proto_problem_kind k);   /* "corrupt" */

/* The value of key in rec, or NULL when absent. */
const char *proto_get(const struct proto_record *rec, const char *key);
/* As proto_get(), but NULL too when the value holds a NUL byte (%00): for
 * a value kept as a C string, which the NUL would cut short. */
const char *proto_get_text(const struct proto_record *rec, const char *key);
/* Strict numeric fields: false when absent or not a number (see below). */
bool proto_get_u64(const struct proto_record *rec, const char *key, uint64_t *out);
bool proto_get_double(const struct proto_record *rec, const char *key, double *out);

/*
 * Strict number parsers for record values. proto_parse_u64: decimal digits
 * only, no sign, no spaces, no overflow. proto_parse_i64: an optional '-'
 * then digits. proto_parse_double: [-]digits[.digits], no exponent, no
 * inf/nan, no spaces, finite. Each returns false and leaves *out alone on
 * anything else, including "".
 */
bool proto_parse_u64(const char *s, uint64_t *out);
bool proto_parse_i64(const char *s, int64_t *out);
bool proto_parse_double(const char *s, double *out);

/*
 * proto_parse_list: a comma list of proto_parse_double numbers ("1.5,1.6");
 * "" is the empty list. On success *out is malloc'd (NULL when *n is 0) and
 * the caller frees it; on failure (an empty item, a bad number) it returns
 * false with *out NULL and *n 0.
 */
bool proto_parse_list(const char *s, double **out, size_t *n);

/* Split a comma list of words ("aarch64,arm") into a malloc'd NULL-ended
 * array of malloc'd strings; "" gives an empty array. Free with
 * proto_free_words(). Never returns NULL. */
char **proto_split_words(const char *s, size_t *n);
void proto_free_words(char **words);

/*
 * proto_encode: one record line, "@@BR 1 <seq> <kind> k=v ... *crc\n", into
 * buf (NUL-terminated). fields is key, value, key, value, ..., NULL; values
 * are escaped as PROTOCOL.md says; the kind and keys are written as given
 * (the caller keeps them to [A-Z0-9_] and [a-z0-9_.]). Returns the line's
 * length with its '\n', or 0 when it exceeds PROTO_MAX_LINE or size-1.
 */
size_t proto_encode(char *buf, size_t size, uint64_t seq, const char *kind,
		    const char *const *fields);

#endif
