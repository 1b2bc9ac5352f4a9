/*
 * ktapout.c: the KTAP writer (ktapout.h).
 */
#include "ktapout.h"
#include "textsafe.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* The current level's indentation. */
static void indent(const struct ktapout *k)
{
	for (int i = 0; i < k->depth; i++)
		fputs("    ", k->out);
}

/* Writes s[0..n) by the terminal rule, '#' in a name as '_', and U+2028,
 * U+2029 (line ends to Python's splitlines(), which kunit.py reads with)
 * as \u2028, \u2029: a name or a diagnostic stays one KTAP line. */
static void put_text(const struct ktapout *k, const char *s, size_t n, int name)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_term(&sb, s, n, 0);
	for (size_t i = 0; i < sb.len; i++) {
		if (name && sb.buf[i] == '#')
			sb.buf[i] = '_';
		if (i + 2 < sb.len && !memcmp(sb.buf + i, "\xe2\x80", 2) &&
		    (sb.buf[i + 2] == '\xa8' || sb.buf[i + 2] == '\xa9')) {
			if (i)
				fwrite(sb.buf, 1, i, k->out);
			fprintf(k->out, "\\u%s", sb.buf[i + 2] == '\xa8' ? "2028" : "2029");
			memmove(sb.buf, sb.buf + i + 3, sb.len - i - 3);
			sb.len -= i + 3;
			i = (size_t)-1;
		}
	}
	if (sb.len)
		fwrite(sb.buf, 1, sb.len, k->out);
	strbuf_release(&sb);
}

void ktapout_begin(struct ktapout *k, FILE *out, size_t planned)
{
	*k = (struct ktapout){ .out = out };
	fprintf(out, "KTAP version 1\n1..%zu\n", planned);
}

void ktapout_subtest(struct ktapout *k, const char *name, size_t planned)
{
	if (k->depth + 1 >= KTAPOUT_MAX_DEPTH)
		abort();        /* a caller nests deeper than any report does */
	k->depth++;
	k->number[k->depth] = 0;
	indent(k);
	fputs("KTAP version 1\n", k->out);
	indent(k);
	fputs("# Subtest: ", k->out);
	put_text(k, name, strlen(name), 1);
	fputc('\n', k->out);
	indent(k);
	fprintf(k->out, "1..%zu\n", planned);
}

void ktapout_diag(struct ktapout *k, const char *text)
{
	const char *p = text;
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		indent(k);
		fputs("# ", k->out);
		/* a diagnostic that reads as a subtest's header is not one */
		if (n >= 8 && !memcmp(p, "Subtest:", 8))
			fputs("(diagnostic) ", k->out);
		put_text(k, p, n, 0);
		fputc('\n', k->out);
		p += n + (nl ? 1 : 0);
	}
}

/* The result line of the current level. */
static void result(struct ktapout *k, const char *name, enum ktapout_status st, const char *reason)
{
	indent(k);
	fprintf(k->out, "%s %u", st == KTAPOUT_FAIL ? "not ok" : "ok", ++k->number[k->depth]);
	if (*name)
		fputc(' ', k->out);
	put_text(k, name, strlen(name), 1);
	if (st == KTAPOUT_SKIP) {
		fputs(" # SKIP", k->out);
		if (reason && *reason) {
			fputc(' ', k->out);
			put_text(k, reason, strlen(reason), 0);
		}
	}
	fputc('\n', k->out);
}

void ktapout_end_subtest(struct ktapout *k, const char *name, enum ktapout_status st)
{
	if (k->depth > 0)
		k->depth--;
	result(k, name, st, NULL);
}

void ktapout_case(struct ktapout *k, const char *name, enum ktapout_status st,
		  const char *reason, const char *diag)
{
	if (diag)
		ktapout_diag(k, diag);
	result(k, name, st, reason);
}
