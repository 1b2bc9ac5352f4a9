/*
 * protocol.c: the host side of the result protocol (initramfs/PROTOCOL.md);
 * the contracts are in protocol.h.
 *
 * The record format's names, number parsers, encoder and field lookups
 * are protocol-record.c. This file reads top-down:
 *   3. cleaning a console line (NUL, CR, ANSI escapes);
 *   4. checking one record's text: trailer, CRC, version, syntax;
 *   5. the decoder: sequence bookkeeping, fragments and their repair,
 *      feeding lines, finishing.
 *
 * Nothing here allocates per byte: a decoder owns fixed buffers sized by
 * PROTO_MAX_LINE, plus one growable buffer for lines that need cleaning and
 * the set of sequence numbers seen.
 */
#include "protocol-internal.h"
#include "console.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define PREFIX_LEN 5            /* strlen("@@BR ") */
#define TRAILER_LEN 10          /* " *" + 8 hex digits */
#define MAX_RECORD (PROTO_MAX_LINE - 1)  /* a record's text, no '\n' */
#define MAX_FIELDS (MAX_RECORD / 2)
#define MAX_SEQ 0xffffffffULL
/* A fragment waits this many lines for its continuation (a kernel oops
 * printed in the middle of a record can be long). */
#define MAX_PENDING 4
#define PENDING_LINES 1000

/* ---- 3. cleaning ------------------------------------------------------- */

/* ---- 4. one record's text ---------------------------------------------- */

enum check {
	CHECK_OK,
	CHECK_INCOMPLETE,       /* no trailer: maybe a cut record */
	CHECK_BAD_CRC,
	CHECK_BAD_SYNTAX,
	CHECK_BAD_VERSION,
};

/* The value of hex digit c written in one case (a: 'a' for the trailer's
 * lower case, 'A' for a %XX escape's upper case), or -1. */
static int hex_digit_value(char c, char a)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= a && c <= a + 5)
		return c - a + 10;
	return -1;
}

/* Are the TRAILER_LEN bytes at t " *" and 8 lower-case hex? *crc: their value. */
static bool has_trailer_bytes(const char *t, uint32_t *crc)
{
	uint32_t v = 0;

	if (t[0] != ' ' || t[1] != '*')
		return false;
	for (size_t i = 2; i < TRAILER_LEN; i++) {
		int h = hex_digit_value(t[i], 'a');
		if (h < 0)
			return false;
		v = v << 4 | (uint32_t)h;
	}
	*crc = v;
	return true;
}

/* Does s[0..n) end with " *" and 8 lower-case hex digits? If so *crc is
 * their value. */
static bool has_trailer(const char *s, size_t n, uint32_t *crc)
{
	return n >= PREFIX_LEN + TRAILER_LEN && has_trailer_bytes(s + n - TRAILER_LEN, crc);
}

/* The version token after the prefix: 1 when it is "1", 0 when it is
 * another complete decimal token, -1 when it is incomplete or not decimal. */
static int version_state(const char *s, size_t n)
{
	size_t i = PREFIX_LEN;

	while (i < n && proto_is_digit(s[i]))
		i++;
	if (i == PREFIX_LEN || i >= n || s[i] != ' ')
		return -1;
	return (i == PREFIX_LEN + 1 && s[PREFIX_LEN] == '1') ? 1 : 0;
}

/* The parsed fields of a record, in the decoder's buffers. */
struct parsed {
	uint64_t seq;
	enum proto_kind kind;
	const char *kind_name;
	size_t nfields;
	uint32_t crc;
};

/* A byte of a key: [a-z0-9_.]. */
static bool is_key_byte(char c)
{
	return (c >= 'a' && c <= 'z') || proto_is_digit(c) || c == '_' || c == '.';
}

/*
 * Parses the body of a record whose CRC matched: "1 <seq> <KIND> k=v ...",
 * s[0..n) without prefix and trailer. Keys, values and the kind word go to
 * store (at least 2n+2 bytes), fields to fields[]. False on any syntax
 * error: a double space, a bad seq, a bad key, a bad byte or %XX escape.
 */
static bool parse_body(const char *s, size_t n, char *store,
		       struct proto_field *fields, struct parsed *out)
{
	size_t i = 2, o = 0, start;

	/* version "1 " was checked by the caller */
	start = i;
	while (i < n && proto_is_digit(s[i]))
		i++;
	if (i == start || i - start > 10 || (s[start] == '0' && i - start > 1))
		return false;
	out->seq = 0;
	for (size_t k = start; k < i; k++)
		out->seq = out->seq * 10 + (uint64_t)(s[k] - '0');
	if (out->seq > MAX_SEQ || i >= n || s[i] != ' ')
		return false;
	start = ++i;
	while (i < n && ((s[i] >= 'A' && s[i] <= 'Z') || (i > start && (proto_is_digit(s[i]) || s[i] == '_'))))
		i++;
	if (i == start || (i < n && s[i] != ' '))
		return false;
	out->kind = proto_kind_from_word(s + start, i - start);
	memcpy(store, s + start, i - start);
	store[i - start] = '\0';
	out->kind_name = store;
	o = i - start + 1;
	out->nfields = 0;
	while (i < n) {
		struct proto_field *f;
		start = ++i;    /* skip the space */
		while (i < n && is_key_byte(s[i]))
			i++;
		if (i == start || i >= n || s[i] != '=' || out->nfields >= MAX_FIELDS)
			return false;
		f = &fields[out->nfields];
		memcpy(store + o, s + start, i - start);
		f->key = store + o;
		o += i - start;
		store[o++] = '\0';
		f->value = store + o;
		start = o;
		for (i++; i < n && s[i] != ' '; i++) {
			unsigned char c = (unsigned char)s[i];
			if (c == '%') {
				int hi = i + 2 < n ? hex_digit_value(s[i + 1], 'A') : -1;
				int lo = hi >= 0 ? hex_digit_value(s[i + 2], 'A') : -1;
				if (lo < 0)
					return false;
				store[o++] = (char)(hi << 4 | lo);
				i += 2;
			} else if (c >= 0x21 && c <= 0x7e) {
				store[o++] = (char)c;
			} else {
				return false;
			}
		}
		f->value_len = o - start;
		store[o++] = '\0';
		out->nfields++;
	}
	return true;
}

/* ---- 5. the decoder ---------------------------------------------------- */

/* A record cut short, waiting for its continuation on a later line. */
struct fragment {
	char text[MAX_RECORD + 1];
	size_t len;
	long line;
	double time;
	uint32_t crc[MAX_RECORD + 1];   /* crc[k]: CRC-32 of text[0..k) */
};

/* Sequence numbers seen, with the CRC of their record: open addressing,
 * key seq + 1 (0 is an empty slot). */
struct seen_set {
	uint64_t *keys;
	uint32_t *crcs;
	size_t cap, count;
};

struct decoder {
	proto_record_fn *on_record;
	proto_problem_fn *on_problem;
	void *ctx;
	struct proto_stats stats;

	uint64_t expected;      /* the next seq in order */
	uint64_t received;      /* distinct seqs since the last BEGIN 0 */
	uint64_t last_seq;      /* of the last record accepted */
	bool any;               /* a record since the start or restart */
	bool finished;
	struct seen_set seen;
	struct seen_set test_runs;      /* hash(abi, test) -> its TEST's seq + 1 */
	struct seen_set metrics;        /* hash(abi, test, name) -> that, when seen */

	struct fragment pending[MAX_PENDING];   /* a ring, oldest at pending_head */
	size_t pending_head, npending;

	char *clean;                            /* a line that needed cleaning */
	size_t clean_cap;
	long last_line;                         /* the last line fed, and its time */
	double last_time;
	char text[2 * PROTO_MAX_LINE];          /* one record's text */
	char store[2 * PROTO_MAX_LINE + 2];     /* its decoded kind, keys, values */
	struct proto_field fields[MAX_FIELDS];
	char detail[256];
};

/* Counts a problem and hands it to the callback (below). */
static void report(struct decoder *d, enum proto_problem_kind kind, long line,
		   double t, int64_t seq, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* Counts a problem and hands it to the callback. */
static void report(struct decoder *d, enum proto_problem_kind kind, long line,
		   double t, int64_t seq, const char *fmt, ...)
{
	va_list ap;
	struct proto_problem p = { kind, line, t, seq, d->detail };

	d->stats.problems[kind]++;
	if (!d->on_problem)
		return;
	va_start(ap, fmt);
	vsnprintf(d->detail, sizeof(d->detail), fmt, ap);
	va_end(ap);
	d->on_problem(d->ctx, &p);
}

/* Slot of seq in the set: where it is, or the empty slot it would take. */
static size_t seen_slot(const struct seen_set *s, uint64_t seq)
{
	uint64_t key = seq + 1;
	size_t i = (size_t)(key * 0x9e3779b97f4a7c15ULL) & (s->cap - 1);

	while (s->keys[i] && s->keys[i] != key)
		i = (i + 1) & (s->cap - 1);
	return i;
}

/* Is seq in the set? Then *crc is its record's CRC. */
static bool seen_find(const struct seen_set *s, uint64_t seq, uint32_t *crc)
{
	size_t i = seen_slot(s, seq);

	if (!s->keys[i])
		return false;
	*crc = s->crcs[i];
	return true;
}

/* Adds seq (not yet in the set), growing it at half full; a set that
 * holds PROTO_MAX_REMEMBERED keys takes no more. */
static void seen_add(struct seen_set *s, uint64_t seq, uint32_t crc)
{
	if (s->count >= PROTO_MAX_REMEMBERED)
		return;
	if (2 * (s->count + 1) > s->cap) {
		struct seen_set bigger = {
			xcalloc(s->cap * 2, sizeof(uint64_t)),
			xcalloc(s->cap * 2, sizeof(uint32_t)), s->cap * 2, 0
		};
		for (size_t i = 0; i < s->cap; i++)
			if (s->keys[i])
				seen_add(&bigger, s->keys[i] - 1, s->crcs[i]);
		free(s->keys);
		free(s->crcs);
		*s = bigger;
	}
	size_t i = seen_slot(s, seq);
	s->keys[i] = seq + 1;
	s->crcs[i] = crc;
	s->count++;
}

/* Sets key's value, adding it when absent. */
static void seen_put(struct seen_set *s, uint64_t key, uint32_t value)
{
	size_t i = seen_slot(s, key);
	if (s->keys[i])
		s->crcs[i] = value;
	else
		seen_add(s, key, value);
}

/* A fresh set of 64 slots. */
static void seen_init(struct seen_set *s)
{
	s->cap = 64;
	s->count = 0;
	s->keys = xcalloc(s->cap, sizeof(uint64_t));
	s->crcs = xcalloc(s->cap, sizeof(uint32_t));
}

static void seen_release(struct seen_set *s)
{
	free(s->keys);
	free(s->crcs);
}

/* Empties the set, keeping its memory. */
static void seen_clear(struct seen_set *s)
{
	memset(s->keys, 0, s->cap * sizeof(uint64_t));
	s->count = 0;
}

/* A new decoder (see protocol.h). */
struct decoder *decoder_new(proto_record_fn *on_record,
			    proto_problem_fn *on_problem, void *ctx)
{
	struct decoder *d = xcalloc(1, sizeof(*d));

	d->on_record = on_record;
	d->on_problem = on_problem;
	d->ctx = ctx;
	seen_init(&d->seen);
	seen_init(&d->test_runs);
	seen_init(&d->metrics);
	return d;
}

/* Frees the decoder and what it holds; NULL is fine. */
void decoder_free(struct decoder *d)
{
	if (!d)
		return;
	seen_release(&d->seen);
	seen_release(&d->test_runs);
	seen_release(&d->metrics);
	free(d->clean);
	free(d);
}

/* The running totals (see protocol.h); valid until decoder_free(). */
const struct proto_stats *decoder_stats(const struct decoder *d)
{
	return &d->stats;
}

/* The i-th pending fragment, 0 the oldest. */
static struct fragment *fragment_at(struct decoder *d, size_t i)
{
	return &d->pending[(d->pending_head + i) % MAX_PENDING];
}

/* Reports the oldest `upto` pending fragments as corrupt, except the one
 * at index `keep` (a joined one; SIZE_MAX for none), and drops them. */
static void drop_fragments_but(struct decoder *d, size_t upto, size_t keep, const char *why)
{
	for (size_t i = 0; i < upto; i++) {
		const struct fragment *f = fragment_at(d, i);
		if (i != keep)
			report(d, PROTO_CORRUPT, f->line, f->time, -1,
			       "cut record never completed (%s): %.60s", why, f->text);
	}
	d->pending_head = (d->pending_head + upto) % MAX_PENDING;
	d->npending -= upto;
}

/* Reports the oldest `upto` pending fragments as corrupt and drops them. */
static void drop_fragments(struct decoder *d, size_t upto, const char *why)
{
	drop_fragments_but(d, upto, SIZE_MAX, why);
}

/* A new run of init after other records (the guest rebooted): a BEGIN at
 * seq 0, or a seq that came before with other content. */
static void restart_stream(struct decoder *d, long line, double t, bool begin)
{
	if (!d->stats.end)
		report(d, PROTO_TRUNCATED, line, t, (int64_t)d->expected,
		       "no END record after %llu records (a new BEGIN came)",
		       (unsigned long long)d->received);
	report(d, PROTO_RESTART, line, t, 0, begin ?
	       "BEGIN again after %llu records: the guest restarted" :
	       "a seq again with other content after %llu records: the guest restarted, its BEGIN lost",
	       (unsigned long long)d->received);
	seen_clear(&d->seen);
	seen_clear(&d->test_runs);
	seen_clear(&d->metrics);
	d->expected = 0;
	d->received = 0;
	d->stats.begin = d->stats.end = false;
}

/*
 * Sequence bookkeeping for a trusted record. Returns false when it must be
 * dropped (a duplicate), after reporting what it saw.
 */
static bool track_seq(struct decoder *d, const struct parsed *p, long line, double t)
{
	uint32_t old;
	int64_t seq = (int64_t)p->seq;

	/* After END the run is over: the same line again is a duplicate, a
	 * BEGIN at seq 0 a new run (below); anything else is not read. */
	if (d->stats.end && !(p->kind == PROTO_KIND_BEGIN && p->seq == 0)) {
		if (seen_find(&d->seen, p->seq, &old) && old == p->crc) {
			report(d, PROTO_DUPLICATE, line, t, seq, "seq %llu seen again (dropped)",
			       (unsigned long long)p->seq);
			return false;
		}
		report(d, PROTO_AFTER_END, line, t, seq, "%s seq %llu after END (not read)",
		       p->kind_name, (unsigned long long)p->seq);
		return false;
	}
	/* A BEGIN right after the same BEGIN is a duplicated line; after any
	 * other record it is a new run of init (the guest rebooted). */
	if (p->kind == PROTO_KIND_BEGIN && p->seq == 0 && d->any &&
	    !(d->last_seq == 0 && seen_find(&d->seen, 0, &old) && old == p->crc))
		restart_stream(d, line, t, true);
	/* One init never prints two records under one seq: a seq seen before
	 * with other content is the next run's, whose BEGIN was lost. */
	else if (seen_find(&d->seen, p->seq, &old) && old != p->crc)
		restart_stream(d, line, t, false);
	if (seen_find(&d->seen, p->seq, &old)) {
		report(d, PROTO_DUPLICATE, line, t, seq, "seq %llu seen again (dropped)",
		       (unsigned long long)p->seq);
		return false;
	}
	if (p->seq > d->expected) {
		uint64_t gap = p->seq - d->expected;
		report(d, PROTO_LOST, line, t, seq, gap == 1 ?
		       "seq %llu missing" : "seq %llu..%llu missing",
		       (unsigned long long)d->expected,
		       (unsigned long long)p->seq - 1);
		d->stats.lost += gap;
		d->expected = p->seq + 1;
	} else if (p->seq < d->expected) {
		report(d, PROTO_REORDERED, line, t, seq,
		       "seq %llu after seq %llu", (unsigned long long)p->seq,
		       (unsigned long long)d->expected - 1);
		if (d->stats.lost)
			d->stats.lost--;
	} else {
		d->expected = p->seq + 1;
	}
	seen_add(&d->seen, p->seq, p->crc);
	d->last_seq = p->seq;
	d->received++;
	d->any = true;
	return true;
}

/* After END: does records= match what came before it? */
static void check_end(struct decoder *d, const struct proto_record *rec)
{
	uint64_t records;
	uint64_t before = d->received - 1;

	d->stats.end = true;
	if (!proto_get_u64(rec, "records", &records)) {
		report(d, PROTO_COUNT_MISMATCH, rec->line, rec->time, (int64_t)rec->seq,
		       "END has no valid records= field");
		return;
	}
	d->stats.end_records = records;
	if (records != before || records != rec->seq)
		report(d, PROTO_COUNT_MISMATCH, rec->line, rec->time, (int64_t)rec->seq,
		       "END says %llu records, %llu received before it (END is seq %llu)",
		       (unsigned long long)records, (unsigned long long)before,
		       (unsigned long long)rec->seq);
}

/* FNV-1a of the fields named by keys (NULL-ended), each ended by a NUL:
 * a record's identity. Never UINT64_MAX (seen_set keys are key + 1). */
static uint64_t identity(const struct proto_record *rec, const char *const *keys)
{
	uint64_t h = 1469598103934665603ull;
	for (; *keys; keys++) {
		const char *v = proto_get(rec, *keys);
		for (const char *c = v ? v : ""; ; c++) {
			h = (h ^ (unsigned char)*c) * 1099511628211ull;
			if (!*c)
				break;
		}
	}
	return h == UINT64_MAX ? h - 1 : h;
}

/*
 * A test run starts at its TEST record; in one run a metric name comes
 * once. Returns false for a METRIC whose (abi, test, name) came before in
 * the same run of (abi, test), after reporting it.
 */
static bool track_metric(struct decoder *d, const struct proto_record *rec)
{
	static const char *const test_keys[] = { "abi", "test", NULL };
	static const char *const metric_keys[] = { "abi", "test", "name", NULL };
	uint32_t run = 0, when;

	if (rec->kind == PROTO_KIND_TEST) {
		seen_put(&d->test_runs, identity(rec, test_keys), (uint32_t)rec->seq + 1);
		return true;
	}
	if (rec->kind != PROTO_KIND_METRIC)
		return true;
	seen_find(&d->test_runs, identity(rec, test_keys), &run);
	uint64_t key = identity(rec, metric_keys);
	if (seen_find(&d->metrics, key, &when) && when == run) {
		report(d, PROTO_DUPLICATE_METRIC, rec->line, rec->time, (int64_t)rec->seq,
		       "metric %.40s/%.40s %.60s again in one test run (not read)",
		       proto_get(rec, "abi") ? proto_get(rec, "abi") : "",
		       proto_get(rec, "test") ? proto_get(rec, "test") : "",
		       proto_get(rec, "name") ? proto_get(rec, "name") : "");
		return false;
	}
	seen_put(&d->metrics, key, run);
	return true;
}

/* Yields a record that passed every check. */
static void deliver(struct decoder *d, const struct parsed *p, const char *text,
		    size_t len, long line, double t, bool repaired)
{
	struct proto_record rec = {
		p->seq, p->kind, p->kind_name, p->nfields, d->fields, line, t,
		repaired, text, len,
	};

	if (!track_seq(d, p, line, t) || !track_metric(d, &rec))
		return;
	if (p->kind == PROTO_KIND_UNKNOWN)
		report(d, PROTO_UNKNOWN_KIND, line, t, (int64_t)p->seq,
		       "unknown kind %s (kept)", p->kind_name);
	if (p->kind == PROTO_KIND_BEGIN)
		d->stats.begin = true;
	d->stats.records++;
	if (d->on_record)
		d->on_record(d->ctx, &rec);
	if (p->kind == PROTO_KIND_END)
		check_end(d, &rec);
}

/*
 * Checks the record text s[0..n) (a complete candidate: prefix to trailer)
 * and parses it into *p and the decoder's buffers.
 */
static enum check check_record(struct decoder *d, const char *s, size_t n,
			       struct parsed *p)
{
	uint32_t crc;
	int version;

	if (!has_trailer(s, n, &crc)) {
		version = version_state(s, n);
		return version == 0 ? CHECK_BAD_VERSION : CHECK_INCOMPLETE;
	}
	if (crc32(0L, (const Bytef *)s, (uInt)(n - TRAILER_LEN)) != crc)
		return CHECK_BAD_CRC;
	version = version_state(s, n);
	if (version == 0)
		return CHECK_BAD_VERSION;
	if (version < 0)
		return CHECK_BAD_SYNTAX;
	p->crc = crc;
	if (!parse_body(s + PREFIX_LEN, n - PREFIX_LEN - TRAILER_LEN, d->store,
			d->fields, p))
		return CHECK_BAD_SYNTAX;
	return CHECK_OK;
}

/*
 * A segment without a trailer at its end may be a whole record followed by
 * kernel text on the same line. Returns the record's length if some
 * " *xxxxxxxx" inside s[0..n) closes a record whose CRC matches, else 0.
 */
static size_t find_inner_record(const char *s, size_t n)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	size_t done = 0;

	for (const char *star = memchr(s, '*', n); star;
	     star = memchr(star + 1, '*', (size_t)(s + n - star - 1))) {
		size_t at = (size_t)(star - s);     /* the '*' */
		uint32_t want;
		if (at < PREFIX_LEN + 1 || at + 9 > n || s[at - 1] != ' ')
			continue;
		if (!has_trailer(s, at + 9, &want))
			continue;
		crc = crc32(crc, (const Bytef *)s + done, (uInt)(at - 1 - done));
		done = at - 1;
		if (crc == want)
			return at + 9;
	}
	return 0;
}

/* Reports a complete candidate that failed its checks. */
static void report_bad(struct decoder *d, enum check c, const char *s, size_t n,
		       long line, double t)
{
	if (c == CHECK_BAD_VERSION) {
		size_t v = PREFIX_LEN;
		while (v < n && s[v] != ' ')
			v++;
		report(d, PROTO_BAD_VERSION, line, t, -1,
		       "protocol version %.*s, this host reads %d (fields not read)",
		       (int)(v - PREFIX_LEN > 20 ? 20 : v - PREFIX_LEN),
		       s + PREFIX_LEN, PROTO_VERSION);
	} else {
		report(d, PROTO_CORRUPT, line, t, -1, "%s: %.*s",
		       c == CHECK_BAD_CRC ? "CRC mismatch" :
		       c == CHECK_BAD_SYNTAX ? "bad syntax" : "no CRC",
		       (int)(n < 60 ? n : 60), s);
	}
}

/* crc[k] = CRC-32 of s[0..k) for every k in 0..n, from zlib's table. */
static void prefix_crcs(const char *s, size_t n, uint32_t *crc)
{
	const z_crc_t *table = get_crc_table();
	uint32_t c = 0xffffffffu;

	crc[0] = 0;
	for (size_t k = 0; k < n; k++) {
		c = table[(c ^ (unsigned char)s[k]) & 0xff] ^ (c >> 8);
		crc[k + 1] = ~c;
	}
}

/*
 * The x with multmodp(op, x) == want, where multmodp is the linear map
 * crc32_combine_op() applies to its first CRC: so crc32(A || B) == c holds
 * for the prefix A whose CRC is x. Solved once by elimination over GF(2)
 * on the map's 32 columns, so a repair does not try every cut point with
 * its own combine. Returns false if the map were singular (it is not for
 * the CRC-32 polynomial).
 */
static bool solve_combine(uLong op, uint32_t want, uint32_t *x)
{
	uint32_t vec[32], comb[32];
	bool have[32] = { false };
	uint32_t v, c;

	for (int i = 0; i < 32; i++) {
		v = (uint32_t)crc32_combine_op(1UL << i, 0, op);
		c = 1u << i;
		for (int b = 31; b >= 0 && v; b--) {
			if (!(v >> b & 1))
				continue;
			if (!have[b]) {
				vec[b] = v;
				comb[b] = c;
				have[b] = true;
				break;
			}
			v ^= vec[b];
			c ^= comb[b];
		}
	}
	v = want;
	c = 0;
	for (int b = 31; b >= 0; b--) {
		if (!(v >> b & 1))
			continue;
		if (!have[b])
			return false;
		v ^= vec[b];
		c ^= comb[b];
	}
	*x = c;
	return true;
}

/* Keeps s[0..n) as a fragment waiting for its continuation. */
static void keep_fragment(struct decoder *d, const char *s, size_t n, long line, double t)
{
	struct fragment *f;

	if (d->npending == MAX_PENDING)
		drop_fragments(d, 1, "too many cut records");
	f = fragment_at(d, d->npending++);
	memcpy(f->text, s, n);
	f->text[n] = '\0';
	f->len = n;
	f->line = line;
	f->time = t;
	prefix_crcs(f->text, n, f->crc);
}

/*
 * One "@@BR " segment of a line, s[0..n): a record, a record followed by
 * kernel text, a fragment (when last on the line), or junk.
 */
static void handle_segment(struct decoder *d, const char *s, size_t n, bool last,
			   long line, double t)
{
	struct parsed p;
	enum check c;
	size_t inner;

	if (n > MAX_RECORD) {
		inner = find_inner_record(s, MAX_RECORD);
		if (!inner && last && version_state(s, MAX_RECORD) == 1) {
			/* a cut record followed by a long kernel message */
			keep_fragment(d, s, MAX_RECORD, line, t);
			return;
		}
		if (!inner) {
			drop_fragments(d, d->npending, "a later record came");
			report(d, PROTO_CORRUPT, line, t, -1,
			       "record longer than %d bytes", PROTO_MAX_LINE);
			return;
		}
		n = inner;
	}
	memcpy(d->text, s, n);
	c = check_record(d, d->text, n, &p);
	if (c == CHECK_INCOMPLETE && (inner = find_inner_record(d->text, n)) != 0) {
		n = inner;
		c = check_record(d, d->text, n, &p);
	}
	if (c == CHECK_INCOMPLETE && last) {
		keep_fragment(d, d->text, n, line, t);
		return;
	}
	drop_fragments(d, d->npending, "a later record came");
	if (c == CHECK_OK)
		deliver(d, &p, d->text, n, line, t, false);
	else
		report_bad(d, c, d->text, n, line, t);
}

/* Could s[0..n), 0 < n < TRAILER_LEN, be the end of a trailer " *hhhhhhhh"? */
static bool is_trailer_tail(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t pos = TRAILER_LEN - n + i;       /* position in the trailer */
		if (pos == 0 ? s[i] != ' ' : pos == 1 ? s[i] != '*' : hex_digit_value(s[i], 'a') < 0)
			return false;
	}
	return true;
}

/*
 * Tries to complete fragment f with head[0..n): the record is f's first k
 * bytes then head, for the largest k whose join has the right CRC and
 * parses (kernel text may follow the cut in f; the cut may fall inside the
 * trailer). The CRCs of all of f's prefixes were kept with f; the one a
 * join needs is solved for, so a try costs one scan of them. Returns true
 * when it delivered the repaired record.
 */
static bool try_join(struct decoder *d, const struct fragment *f, const char *head,
		     size_t n, long line)
{
	size_t split = n >= TRAILER_LEN ? 0 : TRAILER_LEN - n; /* trailer bytes in f */
	uint32_t want = 0, need = 0;
	struct parsed p;

	if (split == 0) {
		if (!has_trailer_bytes(head + n - TRAILER_LEN, &want))
			return false;
		uLong crc_head = crc32(0L, (const Bytef *)head, (uInt)(n - TRAILER_LEN));
		uLong op = crc32_combine_gen((z_off_t)(n - TRAILER_LEN));
		if (!solve_combine(op, want ^ (uint32_t)crc_head, &need))
			return false;
	} else if (!is_trailer_tail(head, n)) {
		return false;
	}
	for (size_t k = f->len; k > PREFIX_LEN + split; k--) {
		if (k + n > MAX_RECORD)
			continue;
		if (split == 0) {
			if (f->crc[k] != need)
				continue;
		} else {
			char tail[TRAILER_LEN];
			memcpy(tail, f->text + k - split, split);
			memcpy(tail + split, head, n);
			if (!has_trailer_bytes(tail, &want) || f->crc[k - split] != want)
				continue;
		}
		memcpy(d->text, f->text, k);
		memcpy(d->text + k, head, n);
		if (check_record(d, d->text, k + n, &p) != CHECK_OK)
			continue;
		report(d, PROTO_REPAIRED, f->line, f->time, (int64_t)p.seq,
		       "record cut at byte %zu, joined with line %ld", k, line);
		deliver(d, &p, d->text, k + n, f->line, f->time, true);
		return true;
	}
	return false;
}

/* The start of a line, before any "@@BR ": is it the continuation of a
 * pending fragment? Newest fragments first; when one is completed, the
 * others are dead (one writer prints records in order): reported corrupt. */
static void try_continuation(struct decoder *d, const char *head, size_t n, long line)
{
	while (d->npending && line - fragment_at(d, 0)->line > PENDING_LINES)
		drop_fragments(d, 1, "no continuation in time");
	if (n == 0 || n > MAX_RECORD)
		return;
	for (size_t i = d->npending; i-- > 0;) {
		if (!try_join(d, fragment_at(d, i), head, n, line))
			continue;
		/* one writer prints records in order: the others are dead */
		drop_fragments_but(d, d->npending, i, "another record was completed");
		return;
	}
}

/* The first "@@BR " in s[0..n), or NULL. Console lines rarely hold '@', so
 * memchr for it beats a general substring search on short lines. */
static const char *find_prefix(const char *s, size_t n)
{
	const char *end = s + n, *p = s;

	while (end - p >= PREFIX_LEN && (p = memchr(p, '@', (size_t)(end - p - PREFIX_LEN + 1)))) {
		if (!memcmp(p, PROTO_PREFIX, PREFIX_LEN))
			return p;
		p++;
	}
	return NULL;
}

/* Is there a byte the decoder must drop (NUL, CR, ESC) in s[0..n)? */
static bool needs_cleaning(const char *s, size_t n)
{
	return memchr(s, '\r', n) || memchr(s, '\0', n) || memchr(s, 0x1b, n);
}

/* One console line (see protocol.h). */
void decoder_feed_line(struct decoder *d, const char *line, size_t len,
		       long lineno, double t)
{
	const char *p, *end;

	d->finished = false;
	d->last_line = lineno;
	d->last_time = t;
	while (len && line[len - 1] == '\r')
		len--;
	if (needs_cleaning(line, len)) {
		if (d->clean_cap < len + 1) {
			free(d->clean);
			d->clean_cap = len + 1;
			d->clean = xmalloc(d->clean_cap);
		}
		len = console_clean(line, len, d->clean, false);
		line = d->clean;
	}
	end = line + len;
	p = find_prefix(line, len);
	if (d->npending)
		try_continuation(d, line, p ? (size_t)(p - line) : len, lineno);
	while (p) {
		const char *next = find_prefix(p + PREFIX_LEN, (size_t)(end - p - PREFIX_LEN));
		handle_segment(d, p, (size_t)((next ? next : end) - p), !next, lineno, t);
		p = next;
	}
}

/* The stream ended (see protocol.h). */
void decoder_finish(struct decoder *d)
{
	if (d->finished)
		return;
	d->finished = true;
	drop_fragments(d, d->npending, "the log ended");
	if (d->any && !d->stats.end)
		report(d, PROTO_TRUNCATED, d->last_line, d->last_time, (int64_t)d->expected,
		       "no END record after %llu records",
		       (unsigned long long)d->received);
}
