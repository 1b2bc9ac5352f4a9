/*
 * cmd-logdiff.c: `bootrig logdiff A B`: what one console log says that the
 * other does not, without the noise that differs on every boot.
 *
 * A and B are console logs (console.log from bootrig, or any capture), or a
 * boot's directory (its console.log), or a results directory (its first
 * boot). Each log goes through the judge (runner/judge.h), as `bootrig
 * judge` does, with printk times. The report has three parts, most
 * important first: the judge's verdicts and the kernel failure events one
 * log has and the other lacks, matched by title; milestones side by side
 * (printk time of the banner, of starting init, of a panic or power-off,
 * and the stage times of result.json, host time, when there is one); then the normalized lines one log has and the other lacks
 * (lognorm.h: a multiset difference, so reordered lines are not reported).
 *
 * Exit status, as diff(1): 0 no difference, 1 differences, 64 usage,
 * 65 a log cannot be read.
 */
#include "builtin.h"
#include "compare.h"
#include "crash.h"
#include "judge.h"
#include "exitcodes.h"
#include "lognorm.h"
#include "textsafe.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Kernel messages whose printk time marks a stage of the boot. */
static const struct milestone {
	const char *name, *needle;
} milestones[] = {
	{ "kernel banner", "Linux version " },
	{ "run init", " as init process" },
	{ "panic", "Kernel panic - not syncing" },
	{ "power off", "reboot: Power down" },
	{ "restart", "reboot: Restarting system" },
};
enum { NMILESTONES = sizeof(milestones) / sizeof(milestones[0]) };

struct log_side {
	char *path;                     /* the console log read */
	struct log log;
	bool *only;                     /* lines the other side lacks */
	struct json_object *judged;     /* judge_to_json() of the log */
	struct json_object *events;     /* its "events" array (borrowed) */
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

/* Finds the milestones (printk times of key messages) over the log's lines. */
static void scan_log(struct log_side *ls)
{
	struct strbuf clean = STRBUF_INIT;
	ls->last_time = NAN;
	for (int m = 0; m < NMILESTONES; m++)
		ls->milestone[m] = NAN;
	for (size_t i = 0; i < ls->log.n; i++) {
		lognorm_clean(ls->log.raw[i], strlen(ls->log.raw[i]), &clean);
		double ts;
		size_t len = clean.len;
		const char *text = crash_strip_prefix(clean.buf, &len, &ts);
		if (ts < 0)
			continue;
		ls->last_time = ts;
		for (int m = 0; m < NMILESTONES; m++)
			if (isnan(ls->milestone[m]) && memmem(text, len, milestones[m].needle,
							      strlen(milestones[m].needle)))
				ls->milestone[m] = ts;
	}
	strbuf_release(&clean);
}

/*
 * Judges the log's bytes as `bootrig judge` does, each line at its printk
 * time (the last one seen for lines without), and keeps judge_to_json().
 */
static void judge_log(struct log_side *ls, const char *buf, size_t len)
{
	struct judge_limits none = { .silence = 0 };
	struct judge *j = judge_new(&none);
	double t = 0;
	for (const char *p = buf, *end = buf + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p), m = n;
		double ts;
		crash_strip_prefix(p, &m, &ts);
		if (ts > t)
			t = ts;
		judge_feed(j, p, n, t);
		p += n;
	}
	judge_console_ended(j, t);
	judge_finish(j, t);
	ls->judged = json_object_new_object();
	judge_to_json(j, ls->judged);
	judge_free(j);
	if (!json_object_object_get_ex(ls->judged, "events", &ls->events) ||
	    !json_object_is_type(ls->events, json_type_array))
		ls->events = NULL;
}

/* A string member of the judged log ("verdict", "reason"), or "". */
static const char *judged_str(const struct log_side *ls, const char *key)
{
	struct json_object *v;
	if (json_object_object_get_ex(ls->judged, key, &v) && json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return "";
}

static size_t event_count(const struct log_side *ls)
{
	return ls->events ? json_object_array_length(ls->events) : 0;
}

/* Member key of the log's event i, as a string ("" when absent). */
static const char *event_str(const struct log_side *ls, size_t i, const char *key)
{
	struct json_object *e = json_object_array_get_idx(ls->events, i), *v;
	if (e && json_object_object_get_ex(e, key, &v) && json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return "";
}

static long event_line(const struct log_side *ls, size_t i)
{
	struct json_object *e = json_object_array_get_idx(ls->events, i), *v;
	return e && json_object_object_get_ex(e, "line", &v) ? (long)json_object_get_int64(v) : 0;
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

/* Reads, normalizes and scans one log. 0, or -1 after a message. */
static int load_side(struct log_side *ls, const char *arg)
{
	*ls = (struct log_side){ 0 };
	ls->path = find_console_log(arg);
	if (!ls->path)
		return -1;
	if (log_load(&ls->log, ls->path) < 0) {
		error("cannot read %s: %s", ls->path, strerror(errno));
		free(ls->path);
		return -1;
	}
	ls->only = xcalloc(ls->log.n + 1, sizeof(*ls->only));
	scan_log(ls);
	char *buf;
	size_t len;
	if (read_file(ls->path, &buf, &len) == 0) {
		judge_log(ls, buf, len);
		free(buf);
	} else {
		ls->judged = json_object_new_object();
	}
	ls->result = sibling_result(ls->path);
	return 0;
}

static void free_side(struct log_side *ls)
{
	log_free(&ls->log);
	free(ls->only), free(ls->path);
	json_object_put(ls->judged);
	json_object_put(ls->result);
}

/* Is a's event i absent from b's (matched by title, as a multiset)? */
static bool event_unmatched(const struct log_side *a, size_t i, const struct log_side *b)
{
	const char *title = event_str(a, i, "title");
	size_t rank = 0, in_b = 0;
	for (size_t k = 0; k < i; k++)
		rank += !strcmp(event_str(a, k, "title"), title);
	for (size_t k = 0; k < event_count(b); k++)
		in_b += !strcmp(event_str(b, k, "title"), title);
	return rank >= in_b;
}

/* How many lines of the log the other lacks. */
static size_t count_only(const struct log_side *ls)
{
	size_t n = 0;
	for (size_t i = 0; i < ls->log.n; i++)
		n += ls->only[i];
	return n;
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
		fprintf(out, "%c [%s] %s (line %ld)\n", mark, term_str(event_str(a, i, "kind")),
			term_str(event_str(a, i, "title")), event_line(a, i));
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

/* The normalized lines only this log has, with their line numbers. */
static void print_lines(FILE *out, const struct log_side *ls, char mark, const char *which)
{
	fprintf(out, "\nlines only in %s: %zu\n", which, count_only(ls));
	for (size_t i = 0; i < ls->log.n; i++)
		if (ls->only[i])
			fprintf(out, "%c %6zu: %s\n", mark, ls->log.lineno[i], term_str(ls->log.norm[i]));
}

/* The text report: failures first, then milestones, then lines. */
static void report_logdiff_text(FILE *out, const struct log_side *ls)
{
	for (int k = 0; k < 2; k++) {
		const char *reason = judged_str(&ls[k], "reason");
		fprintf(out, "%c %s (%zu lines): %s%s%s\n", "AB"[k], term_str(ls[k].path), ls[k].log.n,
			term_str(judged_str(&ls[k], "verdict")), *reason ? ": " : "", term_str(reason));
	}
	print_events(out, &ls[0], &ls[1], '-', "A");
	print_events(out, &ls[1], &ls[0], '+', "B");
	print_milestones(out, ls);
	print_lines(out, &ls[0], '-', "A");
	print_lines(out, &ls[1], '+', "B");
}

/* One side of the JSON report (compare/SCHEMA.md, bootrig-logdiff-1). */
static struct json_object *side_json(const struct log_side *a, const struct log_side *b)
{
	struct json_object *o = json_object_new_object(), *events = json_object_new_array();
	struct json_object *lines = json_object_new_array(), *ms = json_object_new_object();
	json_object_object_add(o, "path", json_cstring_utf8(a->path));
	json_object_object_add(o, "lines", json_object_new_int((int)a->log.n));
	for (size_t i = 0; i < event_count(a); i++)
		if (event_unmatched(a, i, b))
			json_object_array_add(events, json_object_get(json_object_array_get_idx(a->events, i)));
	json_object_object_add(o, "verdict", json_cstring_utf8(judged_str(a, "verdict")));
	json_object_object_add(o, "reason", json_cstring_utf8(judged_str(a, "reason")));
	json_object_object_add(o, "new_events", events);
	for (int m = 0; m < NMILESTONES; m++)
		if (!isnan(a->milestone[m]))
			json_object_object_add(ms, milestones[m].name, json_object_new_double(a->milestone[m]));
	if (!isnan(a->last_time))
		json_object_object_add(ms, "last message", json_object_new_double(a->last_time));
	json_object_object_add(o, "milestones", ms);
	for (size_t i = 0; i < a->log.n; i++) {
		if (!a->only[i])
			continue;
		struct json_object *lo = json_object_new_object();
		json_object_object_add(lo, "line", json_object_new_int((int)a->log.lineno[i]));
		json_object_object_add(lo, "text", json_cstring_utf8(a->log.norm[i]));
		json_object_object_add(lo, "raw", json_cstring_utf8(a->log.raw[i]));
		json_object_array_add(lines, lo);
	}
	json_object_object_add(o, "only_here", lines);
	return o;
}

static void report_logdiff_json(FILE *out, const struct log_side *ls)
{
	struct json_object *root = json_object_new_object();
	json_object_object_add(root, "format", json_object_new_string("bootrig-logdiff-1"));
	json_object_object_add(root, "a", side_json(&ls[0], &ls[1]));
	json_object_object_add(root, "b", side_json(&ls[1], &ls[0]));
	json_fputs(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, out);
	json_object_put(root);
}

static const struct option logdiff_options[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void logdiff_usage(FILE *out)
{
	fputs("usage: bootrig logdiff A B [--format text|json]\n\n"
	      "What console log B says that A does not, and the reverse, after removing\n"
	      "what changes on every boot (timestamps, addresses, PIDs, durations, ...).\n"
	      "A and B: a console log, a boot's directory or a results directory.\n"
	      "Exit 0: no difference; 1: differences.\n\n"
	      "  --format FMT             text (default) or json\n"
	      "  --help                   this help\n", out);
}

int cmd_logdiff(int argc, char **argv)
{
	bool json = false;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", logdiff_options, NULL)) != -1) {
		if (c == 'h') {
			logdiff_usage(stdout);
			return EXIT_PASS;
		}
		if (c == 'f' && (!strcmp(optarg, "json") || !strcmp(optarg, "text"))) {
			json = !strcmp(optarg, "json");
			continue;
		}
		error("logdiff: bad option or value: %s", argv[optind - 1]);
		logdiff_usage(stderr);
		return EXIT_USAGE;
	}
	if (argc - optind != 2) {
		error("logdiff: needs two logs, A and B");
		logdiff_usage(stderr);
		return EXIT_USAGE;
	}
	struct log_side ls[2];
	int ra = load_side(&ls[0], argv[optind]);
	int rb = ra < 0 ? -1 : load_side(&ls[1], argv[optind + 1]);
	if (ra < 0 || rb < 0) {
		if (ra == 0)
			free_side(&ls[0]);
		return EXIT_DATAERR;
	}
	log_diff(&ls[0].log, &ls[1].log, ls[0].only, ls[1].only);
	if (json)
		report_logdiff_json(stdout, ls);
	else
		report_logdiff_text(stdout, ls);
	bool differ = count_only(&ls[0]) || count_only(&ls[1]) ||
		count_new_events(&ls[0], &ls[1]) || count_new_events(&ls[1], &ls[0]);
	free_side(&ls[0]);
	free_side(&ls[1]);
	return differ ? EXIT_FAIL : EXIT_PASS;
}
