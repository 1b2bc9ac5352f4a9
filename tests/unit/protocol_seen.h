/*
 * protocol_seen.h: the protocol decoder's unit tests' harness
 * (test_protocol.c, test_protocol_seq.c): a decoder whose callbacks copy
 * what they get into a `struct seen`, encoded record lines, and the
 * BEGIN and END lines. Include after cmocka.h, stdio.h, string.h and
 * protocol.h.
 */
#ifndef BOOTRIG_TEST_PROTOCOL_SEEN_H
#define BOOTRIG_TEST_PROTOCOL_SEEN_H

#define MAX_SEEN 64

/* What the callbacks saw. */
struct seen_record {
	uint64_t seq;
	enum proto_kind kind;
	char kind_name[32];
	long line;
	bool repaired;
	size_t nfields;
	char fields[512];       /* "k=v k=v", values as decoded (NUL as '~') */
};

struct seen_problem {
	enum proto_problem_kind kind;
	long line;
	int64_t seq;
	char detail[256];
};

struct seen {
	size_t nrec, nprob;
	struct seen_record rec[MAX_SEEN];
	struct seen_problem prob[MAX_SEEN];
};

static inline void on_record(void *ctx, const struct proto_record *r)
{
	struct seen *s = ctx;
	struct seen_record *c;
	size_t o = 0;

	if (s->nrec == MAX_SEEN)
		return;
	c = &s->rec[s->nrec++];
	c->seq = r->seq;
	c->kind = r->kind;
	snprintf(c->kind_name, sizeof(c->kind_name), "%s", r->kind_name);
	c->line = r->line;
	c->repaired = r->repaired;
	c->nfields = r->nfields;
	c->fields[0] = '\0';
	for (size_t i = 0; i < r->nfields && o < sizeof(c->fields) - 1; i++) {
		o += (size_t)snprintf(c->fields + o, sizeof(c->fields) - o, "%s%s=",
				      i ? " " : "", r->fields[i].key);
		for (size_t k = 0; k < r->fields[i].value_len && o < sizeof(c->fields) - 1; k++)
			c->fields[o++] = r->fields[i].value[k] ? r->fields[i].value[k] : '~';
		c->fields[o] = '\0';
	}
	/* the record's text must hold its own trailer */
	assert_true(r->text_len > 15);
	assert_memory_equal(r->text, "@@BR 1 ", 7);
}

static inline void on_problem(void *ctx, const struct proto_problem *p)
{
	struct seen *s = ctx;
	struct seen_problem *c;

	if (s->nprob == MAX_SEEN)
		return;
	c = &s->prob[s->nprob++];
	c->kind = p->kind;
	c->line = p->line;
	c->seq = p->seq;
	snprintf(c->detail, sizeof(c->detail), "%s", p->detail);
}

/* An encoded record line without its '\n', in a static buffer per slot. */
static inline const char *rec_line(int slot, uint64_t seq, const char *kind, ...)
{
	static char bufs[8][PROTO_MAX_LINE + 1];
	const char *fields[64];
	size_t n = 0, len;
	va_list ap;

	va_start(ap, kind);
	while ((fields[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	len = proto_encode(bufs[slot], sizeof(bufs[slot]), seq, kind, fields);
	assert_true(len > 0);
	assert_int_equal(bufs[slot][len - 1], '\n');
	bufs[slot][len - 1] = '\0';
	return bufs[slot];
}

/* Feeds NUL-terminated lines, numbered from 1, then finishes. */
static inline void feed_lines(struct decoder *d, const char *const *lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		decoder_feed_line(d, lines[i], strlen(lines[i]), (long)i + 1, (double)i);
	decoder_finish(d);
}

static inline struct decoder *new_decoder(struct seen *s)
{
	memset(s, 0, sizeof(*s));
	return decoder_new(on_record, on_problem, s);
}

/* Counts problems of one kind. */
static inline size_t count_problems(const struct seen *s, enum proto_problem_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < s->nprob; i++)
		n += s->prob[i].kind == k;
	return n;
}

#define BEGIN_LINE(slot) rec_line(slot, 0, "BEGIN", "proto", "1", "init", "0.1.0", \
				  "arch", "aarch64", "plan", "file", NULL)
#define END_LINE(slot, seq, records) rec_line(slot, seq, "END", "tests", "1", "passed", "1", \
					      "failed", "0", "timeout", "0", "records", records, NULL)

#endif
