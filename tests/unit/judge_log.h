/*
 * judge_log.h: console logs built for the judge's unit tests (test_judge.c,
 * test_judge_api.c): kernel lines as given and real protocol records
 * (proto_encode), numbered from 0. Include after cmocka.h, protocol.h and
 * util.h.
 */
#ifndef BOOTRIG_TEST_JUDGE_LOG_H
#define BOOTRIG_TEST_JUDGE_LOG_H

/* A log being built, with its records numbered from 0. */
struct log {
	struct strbuf sb;
	uint64_t seq;
};

static inline void line(struct log *l, const char *text)
{
	strbuf_addstr(&l->sb, text);
	strbuf_addstr(&l->sb, "\n");
}

/* Appends one record; fields: key, value, ..., NULL. */
static inline void rec(struct log *l, const char *kind, ...)
{
	const char *fields[32];
	size_t n = 0;
	va_list ap;
	va_start(ap, kind);
	while (n < 31 && (fields[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	fields[n] = NULL;
	char buf[PROTO_MAX_LINE + 1];
	size_t len = proto_encode(buf, sizeof(buf), l->seq++, kind, fields);
	assert_true(len > 0);
	strbuf_add(&l->sb, buf, len);
}

#endif
