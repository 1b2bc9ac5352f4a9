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
		fputs("  ", k->out);
}

/* What kunit.py takes, anywhere in a line, for the end of the kernel's
 * output (kunit_parser.py's KTAP_END): it reads nothing after them. */
static const char *const output_ends[] = {
	"List of all partitions:", "Kernel panic - not syncing: VFS:", "reboot: System halted",
};

/* Doubles the first space of each of output_ends[] in sb. */
static void defuse_ends(struct strbuf *sb)
{
	for (size_t e = 0; e < ARRAY_SIZE(output_ends); e++) {
		size_t m = strlen(output_ends[e]), sp = strcspn(output_ends[e], " ");
		for (size_t i = 0; i + m <= sb->len; i++) {
			if (memcmp(sb->buf + i, output_ends[e], m))
				continue;
			strbuf_add(sb, " ", 1);         /* room for one more byte */
			memmove(sb->buf + i + sp + 1, sb->buf + i + sp, sb->len - 1 - i - sp);
			i += m;
		}
	}
}

/* Writes s[0..n) by the terminal rule (which escapes U+2028 and U+2029 as
 * well, line ends to Python's splitlines(), which kunit.py reads with),
 * '#' in a name as '_', and kunit.py's ends of output defused: a name or a
 * diagnostic stays one KTAP line, and the output goes on after it. */
static void put_text(const struct ktapout *k, const char *s, size_t n, int name)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_term(&sb, s, n, 0);
	defuse_ends(&sb);
	for (size_t i = 0; name && i < sb.len; i++)
		if (sb.buf[i] == '#')
			sb.buf[i] = '_';
	fwrite(sb.buf, 1, sb.len, k->out);
	strbuf_release(&sb);
}

void ktapout_begin(struct ktapout *k, FILE *out, size_t planned)
{
	*k = (struct ktapout){ .out = out };
	fprintf(out, "KTAP version 1\n1..%zu\n", planned);
}

void ktapout_open(struct ktapout *k, const char *name, long planned)
{
	if (k->depth + 1 >= KTAPOUT_MAX_DEPTH)
		abort();        /* a caller nests deeper than any report does */
	k->depth++;
	k->number[k->depth] = 0;
	indent(k);
	fputs("KTAP version 1\n", k->out);
	if (name && *name) {
		indent(k);
		fputs("# Subtest: ", k->out);
		put_text(k, name, strlen(name), 1);
		fputc('\n', k->out);
	}
	if (planned >= 0) {
		indent(k);
		fprintf(k->out, "1..%ld\n", planned);
	}
}

void ktapout_subtest(struct ktapout *k, const char *name, size_t planned)
{
	ktapout_open(k, name, (long)planned);
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

void ktapout_result(struct ktapout *k, const struct ktapout_line *r)
{
	unsigned *n = &k->number[k->depth];
	*n = r->number > 0 ? (unsigned)r->number : *n + 1;
	indent(k);
	fprintf(k->out, "%s %u", r->ok ? "ok" : "not ok", *n);
	if (r->name && *r->name) {
		fputc(' ', k->out);
		put_text(k, r->name, strlen(r->name), 1);
	}
	if (r->trailer && *r->trailer) {
		fputc(' ', k->out);
		put_text(k, r->trailer, strlen(r->trailer), 0);
	} else if (r->directive && *r->directive) {
		fprintf(k->out, " # %s", r->directive);
		if (r->reason && *r->reason) {
			fputc(' ', k->out);
			put_text(k, r->reason, strlen(r->reason), 0);
		}
	}
	fputc('\n', k->out);
}

void ktapout_close(struct ktapout *k, const struct ktapout_line *r)
{
	if (k->depth > 0)
		k->depth--;
	ktapout_result(k, r);
}

/* The result line of a status. */
static struct ktapout_line line_of(const char *name, enum ktapout_status st, const char *reason)
{
	return (struct ktapout_line){
		.ok = st != KTAPOUT_FAIL, .name = name,
		.directive = st == KTAPOUT_SKIP ? "SKIP" : NULL, .reason = reason,
	};
}

void ktapout_end_subtest(struct ktapout *k, const char *name, enum ktapout_status st)
{
	struct ktapout_line r = line_of(name, st, NULL);
	ktapout_close(k, &r);
}

void ktapout_case(struct ktapout *k, const char *name, enum ktapout_status st,
		  const char *reason, const char *diag)
{
	if (diag)
		ktapout_diag(k, diag);
	struct ktapout_line r = line_of(name, st, reason);
	ktapout_result(k, &r);
}
