/*
 * cmd-logdiff.c: `bootrig logdiff A B`: what one console log says that the
 * other does not, without the noise that differs on every boot.
 *
 * A and B are console logs (console.log from bootrig, or any capture), or a
 * boot's directory (its console.log), or a results directory (its first
 * boot). Each log goes through the judge (judge/judge.h), as `bootrig
 * judge` does, with printk times. The report has three parts, most
 * important first: the judge's verdicts and the kernel failure events one
 * log has and the other lacks, matched by title; milestones side by side
 * (printk time of the banner, of starting init, of a panic or power-off,
 * and the stage times of result.json, host time, when there is one); then the normalized lines one log has and the other lacks
 * (lognorm.h: a multiset difference, so reordered lines are not reported).
 *
 * Memory does not grow with the logs: each is read as a stream (once to
 * count its normalized lines, once for the judge, once to list its lines
 * the other lacks), lines are kept to 64 KiB, and the multiset is one hash
 * and counts per distinct line of the smaller log (lognorm.h's line_pairs);
 * at most --max-bytes (4 GiB by default) of each log is read. Each of
 * these limits says so on stderr when it cuts something.
 *
 * Exit status, as diff(1): 0 no difference, 1 differences, 64 usage,
 * 65 a log cannot be read.
 */
#include "builtin.h"
#include "compare.h"
#include "console.h"
#include "judge.h"
#include "judgelog.h"
#include "exitcodes.h"
#include "lognorm.h"
#include "options.h"
#include "textsafe.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Kernel messages whose printk time marks a stage of the boot. */
static const struct milestone {
	const char *name, *needle;
} milestones[] = {
	{ "kernel banner", CONSOLE_BANNER },
	{ "run init", " as init process" },
	{ "panic", CONSOLE_PANIC },
	{ "power off", CONSOLE_POWER_DOWN },
	{ "restart", CONSOLE_RESTART },
};
enum { NMILESTONES = sizeof(milestones) / sizeof(milestones[0]) };

struct log_side {
	char *path;                     /* the console log read */
	int side;                       /* 0 for A, 1 for B */
	size_t nlines;                  /* its lines, as log_parse() splits them */
	size_t only;                    /* how many of them the other side lacks */
	struct log_read read;           /* what reading it met (cut lines, size) */
	struct judge *judge;            /* the judged log (judgelog_judge()), NULL: unreadable */
	size_t nevents;                 /* its events (judge_event_at()) */
	double milestone[NMILESTONES];  /* printk seconds, NAN when absent */
	double last_time;               /* the last printk time */
	struct json_object *result;     /* result.json beside the log, or NULL */
};

/* The console.log that path names (a file, a boot dir, a results dir:
 * its first boot in natural order), or NULL after an error message. */
static char *find_console_log(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		error("cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	if (!S_ISDIR(st.st_mode))
		return xstrdup(path);
	char *direct = xasprintf("%s/console.log", path);
	if (stat(direct, &st) == 0)
		return direct;
	free(direct);
	struct dirent **names;
	int n = scandir(path, &names, NULL, versionsort);
	char *found = NULL;
	for (int i = 0; i < n; i++) {
		if (!found && names[i]->d_name[0] != '.') {
			char *sub = xasprintf("%s/%s", path, names[i]->d_name);
			if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
				int saved = errno;
				found = find_console_log(sub);
				errno = saved;
			}
			free(sub);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	if (!found)
		error("no console.log in %s", path);
	return found;
}

/* The first pass over a log: each line counted, normalized into the pairs
 * and looked at for milestones (printk times of key messages). */
struct first_pass {
	struct log_side *ls;
	struct line_pairs *pairs;
	struct strbuf norm, clean;
};

static void first_pass_line(void *ctx, const char *raw, size_t len, size_t lineno)
{
	struct first_pass *fp = ctx;
	struct log_side *ls = fp->ls;
	(void)lineno;
	ls->nlines++;
	lognorm_line(raw, len, &fp->norm);
	line_pairs_count(fp->pairs, ls->side, fp->norm.buf);
	lognorm_clean(raw, len, &fp->clean);
	double ts;
	size_t n = fp->clean.len;
	const char *text = console_strip_prefix(fp->clean.buf, &n, &ts);
	if (ts < 0)
		return;
	ls->last_time = ts;
	for (int m = 0; m < NMILESTONES; m++)
		if (isnan(ls->milestone[m]) && memmem(text, n, milestones[m].needle,
						      strlen(milestones[m].needle)))
			ls->milestone[m] = ts;
}

/* Reads the log once: lines, pairs, milestones. 0, or -1 after a message. */
static int first_pass(struct log_side *ls, struct line_pairs *pairs, uint64_t max_bytes)
{
	struct first_pass fp = { ls, pairs, STRBUF_INIT, STRBUF_INIT };
	ls->last_time = NAN;
	for (int m = 0; m < NMILESTONES; m++)
		ls->milestone[m] = NAN;
	int rc = log_each_line(ls->path, max_bytes, first_pass_line, &fp, &ls->read);
	if (rc < 0)
		error("cannot read %s: %s", ls->path, strerror(errno));
	strbuf_release(&fp.norm);
	strbuf_release(&fp.clean);
	if (rc == 0 && ls->read.lines_cut)
		warning("logdiff: %s: %zu lines longer than %d bytes are compared on their first %d bytes",
			ls->path, ls->read.lines_cut, LOG_LINE_MAX, LOG_LINE_MAX);
	if (rc == 0 && ls->read.cut)
		warning("logdiff: stopped reading %s at %llu bytes (--max-bytes): the rest is not compared",
			ls->path, (unsigned long long)ls->read.bytes);
	return rc;
}

/* Judges the log as `bootrig judge` does (judgelog.h). */
static void judge_log(struct log_side *ls, uint64_t max_bytes)
{
	struct judged_log read;
	ls->judge = judgelog_judge(ls->path, max_bytes, &read);
	ls->nevents = ls->judge ? judge_event_count(ls->judge) : 0;
}

/* The judged log's verdict name, or "" when it could not be judged. */
static const char *side_verdict(const struct log_side *ls)
{
	return ls->judge ? verdict_name(judge_verdict(ls->judge)) : "";
}

/* Why that verdict ("" for PASS or no verdict). */
static const char *side_reason(const struct log_side *ls)
{
	return ls->judge ? judge_reason(ls->judge) : "";
}

static size_t event_count(const struct log_side *ls)
{
	return ls->nevents;
}

/* The log's event i (i < event_count()). */
static struct judge_event side_event(const struct log_side *ls, size_t i)
{
	struct judge_event e;
	judge_event_at(ls->judge, i, &e);
	return e;
}

/* The result.json in the log's directory, if any. */
static struct json_object *sibling_result(const char *log_path)
{
	char *dir = xstrdup(log_path), *slash = strrchr(dir, '/');
	char *path = xasprintf("%s/result.json", slash ? (*slash = '\0', dir) : ".");
	struct json_object *obj = json_object_from_file(path);
	free(path), free(dir);
	return obj;
}

/* Reads, normalizes, scans and judges one log (into pairs: its build side
 * first). 0, or -1 after a message. */
static int load_side(struct log_side *ls, struct line_pairs *pairs, uint64_t max_bytes)
{
	if (first_pass(ls, pairs, max_bytes) < 0)
		return -1;
	judge_log(ls, max_bytes);
	ls->result = sibling_result(ls->path);
	return 0;
}

static void free_side(struct log_side *ls)
{
	free(ls->path);
	judge_free(ls->judge);
	json_object_put(ls->result);
}

/* The listing pass over a log: fn gets each line the other side lacks. */
typedef void only_fn(void *ctx, size_t lineno, const char *norm, const char *raw, size_t len);
struct listing {
	struct line_pairs *pairs;
	int side;
	only_fn *fn;
	void *ctx;
	struct strbuf norm;
};

static void listing_line(void *ctx, const char *raw, size_t len, size_t lineno)
{
	struct listing *l = ctx;
	lognorm_line(raw, len, &l->norm);
	if (line_pairs_take(l->pairs, l->side, l->norm.buf))
		l->fn(l->ctx, lineno, l->norm.buf, raw, len);
}

/* Reads the log again and hands fn its lines the other side lacks. */
static void each_only_line(const struct log_side *ls, struct line_pairs *pairs,
			   uint64_t max_bytes, only_fn *fn, void *ctx)
{
	struct listing l = { pairs, ls->side, fn, ctx, STRBUF_INIT };
	struct log_read read;
	if (log_each_line(ls->path, max_bytes, listing_line, &l, &read) < 0)
		error("cannot read %s again: %s", ls->path, strerror(errno));
	strbuf_release(&l.norm);
}

/* Is a's event i absent from b's (matched by title, as a multiset)? */
static bool event_unmatched(const struct log_side *a, size_t i, const struct log_side *b)
{
	const char *title = side_event(a, i).title;
	size_t rank = 0, in_b = 0;
	for (size_t k = 0; k < i; k++)
		rank += !strcmp(side_event(a, k).title, title);
	for (size_t k = 0; k < event_count(b); k++)
		in_b += !strcmp(side_event(b, k).title, title);
	return rank >= in_b;
}

/* How many of a's events have no match in b. */
static size_t count_new_events(const struct log_side *a, const struct log_side *b)
{
	size_t n = 0;
	for (size_t i = 0; i < event_count(a); i++)
		n += event_unmatched(a, i, b);
	return n;
}

/* a's kernel failures that b lacks, each marked with `mark`. */
static void print_events(FILE *out, const struct log_side *a, const struct log_side *b,
			 char mark, const char *which)
{
	bool header = false;
	for (size_t i = 0; i < event_count(a); i++) {
		if (!event_unmatched(a, i, b))
			continue;
		if (!header)
			fprintf(out, "\nkernel failures only in %s:\n", which);
		header = true;
		struct judge_event e = side_event(a, i);
		fprintf(out, "%c [%s] %s (line %ld)\n", mark, term_str(e.kind), term_str(e.title),
			e.line);
	}
}

static void print_time(FILE *out, double t)
{
	if (isnan(t))
		fprintf(out, " %12s", "-");
	else
		fprintf(out, " %12.3f", t);
}

/* Milestones (printk time) and result.json stages (host time), A beside B. */
static void print_milestones(FILE *out, const struct log_side *ls)
{
	fprintf(out, "\n%-24s %12s %12s\n", "milestone (printk s)", "A", "B");
	for (int m = 0; m < NMILESTONES; m++) {
		if (isnan(ls[0].milestone[m]) && isnan(ls[1].milestone[m]))
			continue;
		fprintf(out, "%-24s", milestones[m].name);
		print_time(out, ls[0].milestone[m]);
		print_time(out, ls[1].milestone[m]);
		fputc('\n', out);
	}
	fprintf(out, "%-24s", "last message");
	print_time(out, ls[0].last_time);
	print_time(out, ls[1].last_time);
	fputc('\n', out);
	if (!ls[0].result && !ls[1].result)
		return;
	for (int s = 0; s < RESULT_STAGES; s++) {
		char label[40];
		snprintf(label, sizeof(label), "stage %s (host s)", result_stage_names[s]);
		fprintf(out, "%-24s", label);
		for (int k = 0; k < 2; k++) {
			struct json_object *stages, *v;
			double t = NAN;
			if (ls[k].result && json_object_object_get_ex(ls[k].result, "stages", &stages) &&
			    json_object_object_get_ex(stages, result_stage_names[s], &v))
				t = json_object_get_double(v);
			print_time(out, t);
		}
		fputc('\n', out);
	}
}

/* print_lines' listing: one line, marked. */
struct text_lines {
	FILE *out;
	char mark;
};

static void print_line(void *ctx, size_t lineno, const char *norm, const char *raw, size_t len)
{
	struct text_lines *tl = ctx;
	(void)raw, (void)len;
	fprintf(tl->out, "%c %6zu: %s\n", tl->mark, lineno, term_str(norm));
}

/* The normalized lines only this log has, with their line numbers. */
static void print_lines(FILE *out, const struct log_side *ls, struct line_pairs *pairs,
			uint64_t max_bytes, char mark, const char *which)
{
	struct text_lines tl = { out, mark };
	fprintf(out, "\nlines only in %s: %zu\n", which, ls->only);
	each_only_line(ls, pairs, max_bytes, print_line, &tl);
}

/* The text report: failures first, then milestones, then lines. */
static void report_logdiff_text(FILE *out, const struct log_side *ls, struct line_pairs *pairs,
				uint64_t max_bytes)
{
	for (int k = 0; k < 2; k++) {
		const char *reason = side_reason(&ls[k]);
		fprintf(out, "%c %s (%zu lines): %s%s%s\n", "AB"[k], term_str(ls[k].path), ls[k].nlines,
			term_str(side_verdict(&ls[k])), *reason ? ": " : "", term_str(reason));
	}
	print_events(out, &ls[0], &ls[1], '-', "A");
	print_events(out, &ls[1], &ls[0], '+', "B");
	print_milestones(out, ls);
	print_lines(out, &ls[0], pairs, max_bytes, '-', "A");
	print_lines(out, &ls[1], pairs, max_bytes, '+', "B");
}

/* One side of the JSON report (compare/SCHEMA.md, bootrig-logdiff-1), but
 * its "only_here" lines: a placeholder string that json_only_lines() then
 * replaces with the lines, streamed. */
#define ONLY_HERE_MARK "@@only_here:%c@@"
static struct json_object *side_json(const struct log_side *a, const struct log_side *b)
{
	struct json_object *o = json_object_new_object(), *events = json_object_new_array();
	struct json_object *ms = json_object_new_object();
	json_object_object_add(o, "path", json_cstring_utf8(a->path));
	json_object_object_add(o, "lines", json_object_new_int((int)a->nlines));
	for (size_t i = 0; i < event_count(a); i++)
		if (event_unmatched(a, i, b))
			json_object_array_add(events, judge_event_json(a->judge, i));
	json_object_object_add(o, "verdict", json_cstring_utf8(side_verdict(a)));
	json_object_object_add(o, "reason", json_cstring_utf8(side_reason(a)));
	json_object_object_add(o, "new_events", events);
	for (int m = 0; m < NMILESTONES; m++)
		if (!isnan(a->milestone[m]))
			json_object_object_add(ms, milestones[m].name, json_object_new_double(a->milestone[m]));
	if (!isnan(a->last_time))
		json_object_object_add(ms, "last message", json_object_new_double(a->last_time));
	json_object_object_add(o, "milestones", ms);
	char mark[32];
	snprintf(mark, sizeof(mark), ONLY_HERE_MARK, "ab"[a->side]);
	json_object_object_add(o, "only_here", json_object_new_string(mark));
	return o;
}

/* json_only_lines' listing: one element of "only_here", as json-c's pretty
 * printer would indent it at depth 3. */
struct json_lines {
	FILE *out;
	size_t n;
};

static void json_line(void *ctx, size_t lineno, const char *norm, const char *raw, size_t len)
{
	struct json_lines *jl = ctx;
	struct json_object *lo = json_object_new_object();
	json_object_object_add(lo, "line", json_object_new_int((int)lineno));
	json_object_object_add(lo, "text", json_cstring_utf8(norm));
	json_object_object_add(lo, "raw", json_string_utf8(raw, len));
	fputs(jl->n++ ? ",\n      " : "\n      ", jl->out);
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_json(&sb, lo, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	const char *s = sb.buf;
	for (const char *nl; (nl = strchr(s, '\n')); s = nl + 1)
		fprintf(jl->out, "%.*s\n      ", (int)(nl - s), s);
	fputs(s, jl->out);
	strbuf_release(&sb);
	json_object_put(lo);
}

/* The "only_here" array of a side, streamed in place of its placeholder. */
static void json_only_lines(FILE *out, const struct log_side *ls, struct line_pairs *pairs,
			    uint64_t max_bytes)
{
	struct json_lines jl = { out, 0 };
	fputc('[', out);
	each_only_line(ls, pairs, max_bytes, json_line, &jl);
	fputs("\n    ]", out);
}

static void report_logdiff_json(FILE *out, const struct log_side *ls, struct line_pairs *pairs,
				uint64_t max_bytes)
{
	struct json_object *root = json_object_new_object();
	json_object_object_add(root, "format", json_object_new_string("bootrig-logdiff-1"));
	json_object_object_add(root, "a", side_json(&ls[0], &ls[1]));
	json_object_object_add(root, "b", side_json(&ls[1], &ls[0]));
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_json(&sb, root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	const char *doc = sb.buf;
	for (int k = 0; k < 2; k++) {
		char mark[32];
		snprintf(mark, sizeof(mark), "\"" ONLY_HERE_MARK "\"", "ab"[k]);
		const char *at = strstr(doc, mark);
		fwrite(doc, 1, (size_t)(at - doc), out);
		json_only_lines(out, &ls[k], pairs, max_bytes);
		doc = at + strlen(mark);
	}
	fputs(doc, out);
	fputc('\n', out);
	strbuf_release(&sb);
	json_object_put(root);
}

static const struct opt_usage usage = {
	"usage: bootrig logdiff A B [--format text|json] [--max-bytes N]\n",
	"What console log B says that A does not, and the reverse, after removing\n"
	"what changes on every boot (timestamps, addresses, PIDs, durations, ...).\n"
	"A and B: a console log, a boot's directory or a results directory.\n"
	"Exit 0: no difference; 1: differences.\n",
	NULL,
};

/* --format text|json */
static int take_format(const struct opt *o, const char *v)
{
	if (strcmp(v, "json") && strcmp(v, "text"))
		return error("logdiff: --format is text or json, not '%s'", v);
	*(bool *)o->value = !strcmp(v, "json");
	return 0;
}

/* --max-bytes N[KMG] */
static int take_max_bytes(const struct opt *o, const char *v)
{
	if (!judgelog_parse_size(v, o->value))
		return error("logdiff: --max-bytes is a byte count (like 512M), not '%s'", v);
	return 0;
}

int cmd_logdiff(int argc, char **argv)
{
	bool json = false;
	uint64_t max_bytes = JUDGELOG_MAX_BYTES;
	const struct opt opts[] = {
		OPT_CALLBACK(0, "format", &json, "FMT", "text (default) or json", take_format),
		OPT_CALLBACK(0, "max-bytes", &max_bytes, "N",
			     "read at most N bytes of each log (K, M, G; default 4G)", take_max_bytes),
		OPT_END(),
	};
	if (options_parse_operands(opts, &argc, argv, &usage))
		return EXIT_USAGE;
	if (argc - 1 != 2)
		return options_usage_error(&usage, "logdiff: needs two logs, A and B");
	struct log_side ls[2] = { { .side = 0 }, { .side = 1 } };
	for (int k = 0; k < 2; k++) {
		ls[k].path = find_console_log(argv[1 + k]);
		if (!ls[k].path) {
			free(ls[0].path);
			return EXIT_DATAERR;
		}
	}
	/* the pairs are made from the smaller log: memory bounded by it */
	struct stat st[2];
	int build = stat(ls[0].path, &st[0]) == 0 && stat(ls[1].path, &st[1]) == 0 &&
		    st[1].st_size < st[0].st_size;
	struct line_pairs *pairs = line_pairs_new(build);
	if (load_side(&ls[build], pairs, max_bytes) < 0 ||
	    load_side(&ls[!build], pairs, max_bytes) < 0) {
		free_side(&ls[0]);
		free_side(&ls[1]);
		line_pairs_free(pairs);
		return EXIT_DATAERR;
	}
	if (line_pairs_full(pairs))
		warning("logdiff: %s has more than %u different lines: its others are listed as "
			"differences, unpaired", ls[build].path, LOG_MAX_DISTINCT);
	for (int k = 0; k < 2; k++)
		ls[k].only = line_pairs_only(pairs, k);
	if (json)
		report_logdiff_json(stdout, ls, pairs, max_bytes);
	else
		report_logdiff_text(stdout, ls, pairs, max_bytes);
	bool differ = ls[0].only || ls[1].only ||
		count_new_events(&ls[0], &ls[1]) || count_new_events(&ls[1], &ls[0]);
	free_side(&ls[0]);
	free_side(&ls[1]);
	line_pairs_free(pairs);
	return differ ? EXIT_FAIL : EXIT_PASS;
}
