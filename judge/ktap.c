/*
 * ktap.c: the KTAP reader (ktap.h): the printk prefix stripped, each line
 * classified (version, subtest header, plan, result, diagnostic), a stack
 * of open tests, and the kept results with their diagnostics.
 */
#include "ktap.h"
#include "ktapout.h"
#include "textsafe.h"
#include "util.h"

#include <ctype.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 16
#define MAX_NAME 512
#define MAX_DIAG 4096
#define MAX_PROBLEMS 16
#define UNNAMED "\x01"          /* a nameless level in a suite path */

struct kept {
	char *suite, *name, *reason, *diag;
	const char *directive;
	enum ktap_status status;
	bool ok;                        /* "ok", not "not ok" (false: incomplete) */
	long number;                    /* on its line (incomplete: its place) */
	long line;
	bool leaf;
	int depth;                      /* of the test holding it (0: the document) */
	long planned;                   /* a suite's plan (-1: none) */
	size_t reported;                /* a suite's results */
	size_t first;                   /* kept[] index of its first subtest's first result */
	bool incomplete;                /* the output ended inside it: no result line */
	char *why;                      /* what broke its structure, or NULL */
	char *tail;                     /* incomplete: its lines after its last result */
	char *trailer;                  /* its line's '#' and what follows, as written */
	bool unnamed_suite;             /* its suite had a nameless level: fixed at close */
};

/* An open test: the document (level 0) or a subtest. */
struct level {
	char *name;                     /* NULL until "# Subtest:" or its result */
	long planned;                   /* -1: no plan yet */
	size_t seen;                    /* results read in it */
	bool fresh;                     /* opened by "KTAP version": no line yet */
	long line;                      /* the console line that opened it */
	bool case_failed;               /* a case below failed */
	size_t first_kept;              /* kept[] index when it opened */
	struct strbuf diag;             /* the lines since its last result */
	bool diag_full;
};

struct ktap {
	bool seen, done, finished;
	struct level levels[MAX_DEPTH];
	int depth;                      /* levels[0..depth] are open; -1: none */
	struct kept *kept;
	size_t nkept;
	size_t *leaves;                 /* kept[] indices of the cases, in order */
	size_t nleaves;
	size_t settled;                 /* kept[0..settled) have no UNNAMED mark */
	size_t ok, fail, skip, not_kept;
	size_t missing;                 /* the documents' planned results never reported */
	char *problems[MAX_PROBLEMS];
	size_t nproblems, problems_total;
	char *failure;
};

const char *ktap_status_name(enum ktap_status s)
{
	switch (s) {
	case KTAP_OK: return "ok";
	case KTAP_FAIL: return "fail";
	case KTAP_SKIP: return "skip";
	}
	return "?";
}

struct ktap *ktap_new(void)
{
	struct ktap *k = xcalloc(1, sizeof(*k));
	k->depth = -1;
	return k;
}

/* Closes levels[d..depth]; the levels past MAX_DEPTH were only counted
 * (open_level), never stored: nothing to free there. */
static void drop_levels(struct ktap *k, int d)
{
	for (; k->depth >= d; k->depth--) {
		if (k->depth >= MAX_DEPTH)
			continue;
		struct level *l = &k->levels[k->depth];
		free(l->name);
		strbuf_release(&l->diag);
		*l = (struct level){ 0 };
	}
}

void ktap_free(struct ktap *k)
{
	if (!k)
		return;
	drop_levels(k, 0);
	for (size_t i = 0; i < k->nkept; i++) {
		struct kept *r = &k->kept[i];
		free(r->suite), free(r->name), free(r->reason), free(r->diag), free(r->why);
		free(r->tail), free(r->trailer);
	}
	free(k->kept);
	free(k->leaves);
	for (size_t i = 0; i < k->nproblems; i++)
		free(k->problems[i]);
	free(k->failure);
	free(k);
}

/* Notes a broken structure: counted, kept up to MAX_PROBLEMS; the first
 * failure when there is none yet. */
static void problem(struct ktap *k, char *text)
{
	if (!k->failure)
		k->failure = xasprintf("KTAP: %s", text);
	if (k->nproblems < MAX_PROBLEMS)
		k->problems[k->nproblems++] = text;
	else
		free(text);
	k->problems_total++;
}

/* s[0..*n) without the printk prefixes ("[    1.234567] ", "[    T1] ")
 * and, through *indented, whether what is left began with blanks. */
static const char *strip_prefix(const char *s, size_t *n, bool *indented)
{
	for (;;) {
		size_t i = 0;
		if (*n < 3 || s[0] != '[')
			break;
		for (i = 1; i < *n && (s[i] == ' ' || s[i] == '.' || isdigit((unsigned char)s[i]) ||
				       s[i] == 'T' || s[i] == 'C'); i++)
			;
		if (i >= *n || s[i] != ']' || i == 1)
			break;
		i++;
		if (i < *n && s[i] == ' ')
			i++;
		s += i, *n -= i;
	}
	*indented = *n && (s[0] == ' ' || s[0] == '\t');
	while (*n && (s[0] == ' ' || s[0] == '\t'))
		s++, (*n)--;
	while (*n && (s[*n - 1] == ' ' || s[*n - 1] == '\t' || s[*n - 1] == '\r'))
		(*n)--;
	return s;
}

/* Does s[0..n) begin with the literal p? */
static bool starts(const char *s, size_t n, const char *p)
{
	size_t m = strlen(p);
	return n >= m && !memcmp(s, p, m);
}

/* "KTAP version N" or "TAP version N" (N a number)? */
static bool is_version(const char *s, size_t n)
{
	size_t i;
	if (starts(s, n, "KTAP version "))
		i = 13;
	else if (starts(s, n, "TAP version "))
		i = 12;
	else
		return false;
	if (i == n)
		return false;
	for (; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* "1..N": N into *plan. */
static bool is_plan(const char *s, size_t n, long *plan)
{
	if (!starts(s, n, "1.."))
		return false;
	size_t i = 3;
	long v = 0;
	if (i == n || !isdigit((unsigned char)s[i]))
		return false;
	for (; i < n && isdigit((unsigned char)s[i]); i++)
		if (v < 1000000000)
			v = v * 10 + (s[i] - '0');
	if (i < n && s[i] != ' ' && s[i] != '#')
		return false;
	*plan = v;
	return true;
}

/* A result line's parts (pointers into the line). */
struct parsed {
	bool ok;
	long number;
	const char *name, *directive, *reason;
	size_t name_len, reason_len;
	const char *trailer;            /* from the '#' on, as written ("" for none) */
	size_t trailer_len;
};

/* "ok N [- ]NAME[ # DIRECTIVE]" or "not ok ...". */
static bool is_result(const char *s, size_t n, struct parsed *p)
{
	size_t i;
	if (starts(s, n, "ok "))
		p->ok = true, i = 3;
	else if (starts(s, n, "not ok "))
		p->ok = false, i = 7;
	else
		return false;
	if (i == n || !isdigit((unsigned char)s[i]))
		return false;
	p->number = 0;
	for (; i < n && isdigit((unsigned char)s[i]); i++)
		if (p->number < 1000000000)
			p->number = p->number * 10 + (s[i] - '0');
	if (i < n && s[i] != ' ')
		return false;
	while (i < n && s[i] == ' ')
		i++;
	if (starts(s + i, n - i, "- "))
		i += 2;
	const char *name = s + i;
	size_t len = n - i;
	p->directive = "";
	p->reason = "";
	p->reason_len = 0;
	p->trailer = "";
	p->trailer_len = 0;
	/* the directive: the first '#' of what follows the number */
	const char *hash = memchr(name, '#', len);
	if (hash) {
		const char *d = hash + 1;
		size_t dn = (size_t)(name + len - d);
		while (dn && *d == ' ')
			d++, dn--;
		if (dn >= 4 && !strncasecmp(d, "SKIP", 4))
			p->directive = "SKIP";
		else if (dn >= 4 && !strncasecmp(d, "TODO", 4))
			p->directive = "TODO";
		if (*p->directive) {
			d += 4, dn -= 4;
			while (dn && *d == ' ')
				d++, dn--;
			p->reason = d, p->reason_len = dn;
		}
		len = (size_t)(hash - name);
		p->trailer = hash, p->trailer_len = (size_t)(name + (n - i) - hash);
	}
	while (len && name[len - 1] == ' ')
		len--;
	p->name = name;
	p->name_len = len;
	return true;
}

/* A copy of s[0..n), at most MAX_NAME bytes; an UNNAMED byte in it
 * becomes '?', so that the mark stays the only one in a suite path. */
static char *name_dup(const char *s, size_t n)
{
	char *r = xmalloc((n > MAX_NAME ? MAX_NAME : n) + 1);
	memcpy(r, s, n > MAX_NAME ? MAX_NAME : n);
	r[n > MAX_NAME ? MAX_NAME : n] = '\0';
	for (char *m = r; (m = strchr(m, UNNAMED[0]));)
		*m = '?';
	return r;
}

/* The suites still marked unnamed when their levels can no longer be
 * named (the document ended, or a new one began): '?' in their place, as
 * a failure's message has it. */
static void settle_unnamed(struct ktap *k)
{
	for (size_t i = k->settled; i < k->nkept; i++) {
		struct kept *r = &k->kept[i];
		for (char *m = r->unnamed_suite ? r->suite : NULL; m && (m = strchr(m, UNNAMED[0]));)
			*m = '?';
		r->unnamed_suite = false;
	}
	k->settled = k->nkept;
}

/* The names of levels 1..d joined by '.'; *unnamed: one had no name (it
 * stands as UNNAMED until the level's result names it: close_level()). */
static char *suite_path(const struct ktap *k, int d, bool *unnamed)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_add(&sb, "", 0);
	*unnamed = false;
	for (int i = 1; i <= d; i++) {
		const char *nm = k->levels[i].name;
		if (!nm)
			*unnamed = true;
		if (sb.len)
			strbuf_addstr(&sb, ".");
		strbuf_addstr(&sb, nm ? nm : UNNAMED);
	}
	return sb.buf;
}

/* Opens a subtest below the current one (or the document). */
static void open_level(struct ktap *k, bool fresh, const char *name, size_t n, long line)
{
	if (k->depth + 1 >= MAX_DEPTH) {
		if (k->depth + 1 == MAX_DEPTH)
			problem(k, xasprintf("nested deeper than %d levels", MAX_DEPTH));
		k->depth++;     /* counted, never kept: see the bounds in feed */
		return;
	}
	struct level *l = &k->levels[++k->depth];
	*l = (struct level){ .planned = -1, .fresh = fresh, .line = line, .first_kept = k->nkept };
	if (name)
		l->name = name_dup(name, n);
}

/* Adds a diagnostic line to the open test's buffer. */
static void add_diag(struct ktap *k, const char *s, size_t n)
{
	if (k->depth >= MAX_DEPTH)
		return;
	struct level *l = &k->levels[k->depth];
	if (l->diag_full)
		return;
	if (l->diag.len + n + 1 > MAX_DIAG) {
		if (l->diag.len)
			strbuf_addstr(&l->diag, "\n");
		strbuf_addstr(&l->diag, "[...]");
		l->diag_full = true;
		return;
	}
	if (l->diag.len)
		strbuf_addstr(&l->diag, "\n");
	strbuf_add(&l->diag, s, n);
}

/* Keeps a result (or counts it past KTAP_MAX_KEPT); returns it or NULL. */
static struct kept *keep(struct ktap *k, const struct parsed *p, int depth, bool leaf,
			 char *name, long line)
{
	if (k->nkept >= KTAP_MAX_KEPT) {
		k->not_kept++;
		free(name);
		return NULL;
	}
	if (!(k->nkept & (k->nkept - 1)))      /* 0, 1, 2, 4...: doubled */
		k->kept = xrealloc(k->kept, (k->nkept ? 2 * k->nkept : 1) * sizeof(*k->kept));
	if (leaf && !(k->nleaves & (k->nleaves - 1)))
		k->leaves = xrealloc(k->leaves, (k->nleaves ? 2 * k->nleaves : 1) * sizeof(*k->leaves));
	if (leaf)
		k->leaves[k->nleaves++] = k->nkept;
	struct kept *r = &k->kept[k->nkept++];
	struct level *l = &k->levels[depth];
	bool unnamed;
	*r = (struct kept){
		.suite = suite_path(k, depth, &unnamed), .name = name,
		.reason = name_dup(p->reason, p->reason_len), .directive = p->directive,
		.ok = p->ok, .number = p->number, .line = line, .leaf = leaf, .depth = depth,
		.planned = -1, .first = k->nkept - 1,
		.trailer = p->trailer_len ? name_dup(p->trailer, p->trailer_len) : NULL,
	};
	r->unnamed_suite = unnamed;
	r->diag = l->diag.len ? xstrdup(l->diag.buf) : xstrdup("");
	return r;
}

/* The status of a result line. */
static enum ktap_status status_of(const struct parsed *p)
{
	if (!strcmp(p->directive, "SKIP") || (!p->ok && !strcmp(p->directive, "TODO")))
		return KTAP_SKIP;
	return p->ok ? KTAP_OK : KTAP_FAIL;
}

/* Result p closes the open subtest (levels[depth]). */
static void close_level(struct ktap *k, const struct parsed *p, long line)
{
	int d = k->depth;
	if (d >= MAX_DEPTH) {
		k->depth--;
		return;
	}
	struct level *l = &k->levels[d];
	char *name = name_dup(p->name, p->name_len);
	bool was_unnamed = !l->name;
	if (was_unnamed)
		l->name = xstrdup(name);
	/* the results kept while it had no name get it now: the deeper levels
	 * are closed and named, the outer ones still open, so its mark is
	 * the last one in their suite path */
	for (size_t i = l->first_kept; was_unnamed && i < k->nkept; i++) {
		struct kept *r = &k->kept[i];
		char *mark = r->unnamed_suite ? strrchr(r->suite, UNNAMED[0]) : NULL;
		if (!mark)
			continue;
		*mark = '\0';
		char *named = xasprintf("%s%s%s", r->suite, name, mark + 1);
		free(r->suite);
		r->suite = named;
		r->unnamed_suite = strchr(named, UNNAMED[0]) != NULL;
	}
	enum ktap_status st = status_of(p);
	char *why = NULL;
	if (l->planned >= 0 && l->seen < (size_t)l->planned) {
		why = xasprintf("%s: %zu of %ld planned results reported", name, l->seen, l->planned);
		problem(k, xstrdup(why));
	}
	if (st == KTAP_FAIL && !l->case_failed && !k->failure)
		k->failure = xasprintf("KUnit suite %s failed", name);
	bool failed_below = l->case_failed;
	long planned = l->planned;
	size_t seen = l->seen, first = l->first_kept;
	strbuf_release(&l->diag);
	free(l->name);
	*l = (struct level){ 0 };
	k->depth--;
	struct level *parent = &k->levels[k->depth];
	parent->seen++;
	parent->case_failed |= failed_below || st == KTAP_FAIL;
	struct kept *r = keep(k, p, k->depth, false, name, line);
	if (r) {
		r->status = st;
		r->planned = planned;
		r->reported = seen;
		r->first = first;
		r->why = why;
	} else {
		free(why);
	}
	parent->diag.len = 0;
	parent->diag_full = false;
}

/* Result p is a case of the open test. */
static void add_case(struct ktap *k, const struct parsed *p, long line)
{
	if (k->depth >= MAX_DEPTH)
		return;
	struct level *l = &k->levels[k->depth];
	enum ktap_status st = status_of(p);
	k->ok += st == KTAP_OK;
	k->fail += st == KTAP_FAIL;
	k->skip += st == KTAP_SKIP;
	l->seen++;
	if (st == KTAP_FAIL) {
		l->case_failed = true;
		if (!k->failure) {
			bool unnamed;
			char *suite = suite_path(k, k->depth, &unnamed);
			for (char *m = suite; (m = strchr(m, UNNAMED[0]));)
				*m = '?';
			k->failure = xasprintf("KUnit case %s%s%.*s failed", suite, *suite ? "." : "",
					       (int)(p->name_len > MAX_NAME ? MAX_NAME : p->name_len),
					       p->name);
			free(suite);
		}
	}
	struct kept *r = keep(k, p, k->depth, true, name_dup(p->name, p->name_len), line);
	if (r)
		r->status = st;
	l->diag.len = 0;
	l->diag_full = false;
}

/* Does result p close the open subtest (levels[depth], depth > 0)? */
static bool closes(const struct ktap *k, const struct parsed *p)
{
	if (k->depth >= MAX_DEPTH)
		return true;
	const struct level *l = &k->levels[k->depth];
	if (l->planned >= 0 && l->seen >= (size_t)l->planned)
		return true;
	return l->name && strlen(l->name) == (p->name_len > MAX_NAME ? MAX_NAME : p->name_len) &&
	       !memcmp(l->name, p->name, strlen(l->name));
}

/* The output ends inside the open subtest (levels[depth], depth > 0): a
 * problem, and a result of its own, "not ok" with no line, that keeps what
 * it reported and why it is incomplete (a KTAP reader's "crashed"). */
static void close_unfinished(struct ktap *k)
{
	int d = k->depth;
	if (d >= MAX_DEPTH) {
		k->depth--;     /* counted, never kept */
		return;
	}
	struct level *l = &k->levels[d];
	const char *nm = l->name ? l->name : "a subtest";
	char *why = l->planned >= 0 ?
		xasprintf("the output ended inside %s: %zu of %ld planned results", nm, l->seen,
			  l->planned) :
		xasprintf("the output ended inside %s (%zu results)", nm, l->seen);
	problem(k, xstrdup(why));
	struct level *parent = &k->levels[d - 1];
	struct parsed p = { .ok = false, .number = (long)parent->seen + 1, .directive = "",
			    .reason = "" };
	struct kept *r = keep(k, &p, d - 1, false, xstrdup(l->name ? l->name : ""), l->line);
	if (r) {
		r->status = KTAP_FAIL;
		r->incomplete = true;
		r->planned = l->planned;
		r->reported = l->seen;
		r->first = l->first_kept;
		r->why = why;
		if (l->diag.len)        /* its own last lines: what cut it short */
			r->tail = xstrdup(l->diag.buf);
	} else {
		free(why);
	}
	parent->seen++;
	parent->case_failed = true;
	parent->diag.len = 0;
	parent->diag_full = false;
	drop_levels(k, d);
}

/* The open document ends here: what it left unfinished is a problem, and
 * each subtest it ended inside a result (close_unfinished()). */
static void end_document(struct ktap *k)
{
	while (k->depth > 0)
		close_unfinished(k);
	const struct level *root = &k->levels[0];
	if (k->depth == 0 && root->planned >= 0 && root->seen < (size_t)root->planned) {
		problem(k, xasprintf("%zu of %ld planned results reported", root->seen, root->planned));
		k->missing += (size_t)root->planned - root->seen;
	}
	drop_levels(k, 0);
	settle_unnamed(k);
}

void ktap_feed_line(struct ktap *k, const char *s, size_t n, long lineno)
{
	bool indented;
	s = strip_prefix(s, &n, &indented);
	if (k->finished)
		return;
	if (is_version(s, n) && (k->depth < 0 || (!indented && k->depth == 0 &&
						   (k->levels[0].seen || k->levels[0].planned >= 0)))) {
		/* a document at the left margin: the first, or after one */
		if (k->depth >= 0 && !k->done)
			end_document(k);
		drop_levels(k, 0);
		settle_unnamed(k);
		k->seen = true;
		k->done = false;
		open_level(k, true, NULL, 0, lineno);
		return;
	}
	if (k->done || k->depth < 0)
		return;
	long plan;
	struct parsed p;
	struct level *top = k->depth < MAX_DEPTH ? &k->levels[k->depth] : NULL;
	if (is_version(s, n)) {
		if (!(top && top->fresh && k->depth > 0))
			open_level(k, true, NULL, 0, lineno);
		return;
	}
	if (starts(s, n, "# Subtest: ")) {
		if (top && top->fresh && k->depth > 0 && !top->name)
			top->name = name_dup(s + 11, n - 11), top->fresh = false;
		else
			open_level(k, false, s + 11, n - 11, lineno);
		return;
	}
	if (is_plan(s, n, &plan)) {
		/* only a test's first plan counts, and "1..0" ends the document
		 * only as its plan, before any result (kunit.py: a later "1..0"
		 * is not a plan of that test) */
		bool first = top && top->planned < 0;
		if (first)
			top->planned = plan;
		if (top)
			top->fresh = false;
		if (first && k->depth == 0 && plan == 0 && !top->seen)
			k->done = true;
		return;
	}
	if (is_result(s, n, &p)) {
		if (k->depth > 0 && closes(k, &p))
			close_level(k, &p, lineno);
		else
			add_case(k, &p, lineno);
		top = &k->levels[0];
		if (k->depth == 0 && top->planned >= 0 && top->seen >= (size_t)top->planned)
			k->done = true;
		return;
	}
	/* diagnostics: "# ..." lines; inside a subtest, indented lines too
	 * (what KUnit prints below an expectation that failed) */
	if (top)
		top->fresh = false;
	if (n && s[0] == '#') {
		size_t i = 1;
		while (i < n && s[i] == ' ')
			i++;
		add_diag(k, s + i, n - i);
	} else if (indented && k->depth > 0 && n) {
		add_diag(k, s, n);
	}
}

void ktap_finish(struct ktap *k)
{
	if (k->finished)
		return;
	k->finished = true;
	if (k->depth >= 0 && !k->done)
		end_document(k);
	settle_unnamed(k);
}

bool ktap_seen(const struct ktap *k)
{
	return k->seen;
}

/* Kept entry i's public form. */
static void fill(const struct kept *r, struct ktap_result *out)
{
	*out = (struct ktap_result){
		.suite = r->suite, .name = r->name, .status = r->status,
		.directive = r->directive, .reason = r->reason, .diagnostics = r->diag,
		.line = r->line, .ok = r->ok, .number = r->number, .depth = r->depth,
		.subtests = !r->leaf, .planned = r->planned, .reported = r->reported,
		.incomplete = r->incomplete, .why = r->why ? r->why : "",
	};
}

bool ktap_result_at(const struct ktap *k, size_t i, struct ktap_result *r)
{
	if (i >= k->nkept)
		return false;
	fill(&k->kept[i], r);
	return true;
}

/* Writes kept[lo..hi), the results at depth d and, before each suite's
 * result, its subtests (the deeper results just before it). Deeper
 * results with no suite after them (theirs was past KTAP_MAX_KEPT) are
 * left out. */
static void write_range(const struct ktap *k, struct ktapout *o, size_t lo, size_t hi, int d)
{
	size_t pos = lo;
	while (pos < hi) {
		size_t j = pos;
		while (j < hi && k->kept[j].depth != d)
			j++;
		if (j == hi)
			return;
		const struct kept *r = &k->kept[j];
		struct ktapout_line line = {
			.ok = r->ok, .number = r->number, .name = r->name, .trailer = r->trailer,
		};
		if (*r->diag)
			ktapout_diag(o, r->diag);
		if (r->leaf) {
			ktapout_result(o, &line);
		} else {
			ktapout_open(o, r->name, r->planned);
			write_range(k, o, pos, j, d + 1);
			if (r->tail)
				ktapout_diag(o, r->tail);
			if (r->why)
				ktapout_diag(o, r->why);
			ktapout_close(o, &line);
		}
		pos = j + 1;
	}
}

void ktap_write(const struct ktap *k, struct ktapout *out)
{
	write_range(k, out, 0, k->nkept, 0);
}

bool ktap_case_at(const struct ktap *k, size_t i, struct ktap_result *r)
{
	if (i >= k->nleaves)
		return false;
	fill(&k->kept[k->leaves[i]], r);
	return true;
}

bool ktap_suite_at(const struct ktap *k, size_t i, struct ktap_result *r, long *planned,
		   size_t *reported)
{
	for (size_t j = 0; j < k->nkept; j++) {
		const struct kept *e = &k->kept[j];
		if (e->leaf || e->depth != 0)
			continue;
		if (i-- == 0) {
			fill(e, r);
			*planned = e->planned;
			*reported = e->reported;
			return true;
		}
	}
	return false;
}

void ktap_counts(const struct ktap *k, struct ktap_counts *c)
{
	*c = (struct ktap_counts){ k->ok, k->fail, k->skip, k->not_kept, k->problems_total, 0,
				   k->missing };
	for (size_t i = 0; i < k->nkept; i++)
		c->top += k->kept[i].depth == 0;
}

const char *ktap_failure(const struct ktap *k)
{
	return k->failure;
}

/* One kept result as result.json has it. */
static struct json_object *result_json(const struct kept *r)
{
	struct json_object *o = json_object_new_object();
	if (r->leaf) {
		json_object_object_add(o, "suite", json_cstring_utf8(r->suite));
		json_object_object_add(o, "case", json_cstring_utf8(r->name));
	} else {
		json_object_object_add(o, "name", json_cstring_utf8(r->name));
	}
	json_object_object_add(o, "status", json_object_new_string(ktap_status_name(r->status)));
	if (*r->directive) {
		json_object_object_add(o, "directive", json_object_new_string(r->directive));
		json_object_object_add(o, "reason", json_cstring_utf8(r->reason));
	}
	if (!r->leaf) {
		json_object_object_add(o, "planned", r->planned >= 0 ?
				       json_object_new_int64(r->planned) : NULL);
		json_object_object_add(o, "reported", json_object_new_int64((int64_t)r->reported));
	}
	json_object_object_add(o, "diagnostics", json_cstring_utf8(r->diag));
	json_object_object_add(o, "line", json_object_new_int64(r->line));
	return o;
}

struct json_object *ktap_to_json(const struct ktap *k)
{
	if (!k->seen)
		return NULL;
	struct json_object *o = json_object_new_object(), *suites = json_object_new_array(),
			   *cases = json_object_new_array(), *problems = json_object_new_array();
	for (size_t i = 0; i < k->nkept; i++) {
		const struct kept *r = &k->kept[i];
		if (r->leaf)
			json_object_array_add(cases, result_json(r));
		else if (r->depth == 0)
			json_object_array_add(suites, result_json(r));
	}
	for (size_t i = 0; i < k->nproblems; i++)
		json_object_array_add(problems, json_cstring_utf8(k->problems[i]));
	json_object_object_add(o, "ok", json_object_new_int64((int64_t)k->ok));
	json_object_object_add(o, "fail", json_object_new_int64((int64_t)k->fail));
	json_object_object_add(o, "skip", json_object_new_int64((int64_t)k->skip));
	if (k->not_kept)
		json_object_object_add(o, "not_kept", json_object_new_int64((int64_t)k->not_kept));
	json_object_object_add(o, "failure", json_cstring_utf8(k->failure));
	json_object_object_add(o, "suites", suites);
	json_object_object_add(o, "cases", cases);
	json_object_object_add(o, "problems", problems);
	return o;
}
