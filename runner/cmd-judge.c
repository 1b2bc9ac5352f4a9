/*
 * cmd-judge.c: `bootrig judge CONSOLE_LOG [--format text|json]`: the run's
 * judge (judge.h) over a saved console log, from bootrig or from anywhere
 * else (LAVA, a terminal capture).
 *
 * Times: a console.tlog ("[0001.234567] line", host seconds since power-on,
 * recognised by its .tlog name or its zero-padded stamps) gives each line
 * its host time; otherwise the kernel's printk stamps ("[    1.234567]")
 * are used, the last one carried over lines without one; a log with
 * neither has no times (stages are then reached, at unknown times).
 *
 * A log is judged, never refused: one without a kernel banner is a
 * BOOT_FAIL, one that stops mid-boot a HANG in that stage. The exit status
 * is the verdict's (0 PASS, 1 FAIL, 2 PANIC/HANG/BOOT_FAIL), so judging a
 * saved log scripts like `bootrig run`; 64 for usage, 66 when the log does
 * not exist, 65 when it cannot be read.
 */
#include "builtin.h"
#include "crash.h"
#include "exitcodes.h"
#include "judge.h"
#include "options.h"
#include "textsafe.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum time_source { TIMES_TLOG, TIMES_PRINTK, TIMES_NONE };

struct judge_args {
	const char *log, *format;
	bool help;
};

static const char usage_line[] = "usage: bootrig judge CONSOLE_LOG [--format text|json]\n";

/* --help: the usage line, then one line per entry of the option table. */
static void print_help(const struct opt *opts, FILE *out)
{
	fputs(usage_line, out);
	fputs("\nJudges a saved console log as `bootrig run` judges a boot: the verdict,\n"
	      "the stages reached (with times from a console.tlog or printk stamps) and\n"
	      "every kernel report found (kind, syzbot-style title, excerpt).\n\n", out);
	options_print(opts, 26, out);
	fputs("\nExit status: 0 PASS, 1 FAIL, 2 PANIC, HANG or BOOT_FAIL, 64 usage,\n"
	      "65 the log cannot be read, 66 it does not exist.\n", out);
}

/* "[0001.234567] " at s: the tlog stamp's length and time, 0 when absent. */
static size_t tlog_stamp(const char *s, size_t n, double *t)
{
	size_t i = 1;
	if (n < 4 || s[0] != '[' || !isdigit((unsigned char)s[1]))
		return 0;
	while (i < n && isdigit((unsigned char)s[i]))
		i++;
	if (i >= n || s[i] != '.')
		return 0;
	i++;
	while (i < n && isdigit((unsigned char)s[i]))
		i++;
	if (i + 1 >= n || s[i] != ']' || s[i + 1] != ' ')
		return 0;
	*t = strtod(s + 1, NULL);
	return i + 2;
}

/* Where line times come from: a console.tlog, printk stamps, or nowhere. */
static enum time_source detect_times(const char *path, const char *buf, size_t len)
{
	size_t plen = strlen(path);
	double t;
	if ((plen > 5 && !strcmp(path + plen - 5, ".tlog")) ||
	    (len && tlog_stamp(buf, len, &t) && buf[1] == '0'))
		return TIMES_TLOG;
	for (size_t i = 0; i + 2 < len; i++)
		if (buf[i] == '[' && (i == 0 || buf[i - 1] == '\n' || buf[i - 1] == '>')) {
			size_t n = len - i;
			double ts;
			crash_strip_prefix(buf + i, &n, &ts);
			if (ts >= 0)
				return TIMES_PRINTK;
		}
	return TIMES_NONE;
}

/* Feeds the log to j line by line with each line's time; returns the last time. */
static double feed_log(struct judge *j, const char *buf, size_t len, enum time_source src)
{
	double t = 0;
	const char *p = buf, *end = buf + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		const char *text = p;
		size_t tn = n;
		if (src == TIMES_TLOG) {
			size_t k = tlog_stamp(p, n, &t);
			text += k;
			tn -= k;
		} else if (src == TIMES_PRINTK) {
			size_t m = n;
			double ts;
			crash_strip_prefix(p, &m, &ts);
			if (ts >= 0 && ts >= t)
				t = ts;
		}
		judge_feed(j, text, tn, t);
		p += n;
	}
	return t;
}

/* The first lines of an event's excerpt, indented. */
static void print_excerpt(const char *excerpt)
{
	const char *p = excerpt;
	int shown = 0;
	while (*p && shown < 12) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);
		printf("      | %s\n", term_strn(p, (size_t)n));
		shown++;
		p += n + (nl ? 1 : 0);
	}
	if (*p)
		printf("      | ...\n");
}

/* The text report: verdict and reason, stages, then every event. */
static void print_text(const char *path, json_object *res, enum time_source src)
{
	json_object *v, *stages, *events;
	json_object_object_get_ex(res, "verdict", &v);
	printf("%s: %s", term_str(path), json_object_get_string(v));
	json_object_object_get_ex(res, "reason", &v);
	if (*json_object_get_string(v))
		printf(": %s", term_str(json_object_get_string(v)));
	putchar('\n');
	json_object_object_get_ex(res, "stages", &stages);
	printf("  stages:");
	for (int s = 0; s < STAGE_COUNT; s++) {
		if (json_object_object_get_ex(stages, stage_name(s), &v)) {
			if (src == TIMES_NONE)
				printf(" %s", stage_name(s));
			else
				printf(" %s %.3f", stage_name(s), json_object_get_double(v));
		}
	}
	putchar('\n');
	json_object_object_get_ex(res, "events", &events);
	size_t n = json_object_array_length(events);
	printf("  events: %zu\n", n);
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(events, i), *k, *title, *line, *fatal,
			    *excerpt;
		json_object_object_get_ex(e, "kind", &k);
		json_object_object_get_ex(e, "title", &title);
		json_object_object_get_ex(e, "line", &line);
		json_object_object_get_ex(e, "fatal", &fatal);
		json_object_object_get_ex(e, "excerpt", &excerpt);
		printf("  %zu. %s%s, line %lld: %s\n", i + 1, term_str(json_object_get_string(k)),
		       json_object_get_boolean(fatal) ? " (fatal)" : "",
		       (long long)json_object_get_int64(line), term_str(json_object_get_string(title)));
		print_excerpt(json_object_get_string(excerpt));
	}
}

/* Times a log without any are unknown: null in JSON, not 0. */
static void null_times(json_object *res)
{
	json_object *stages, *events;
	if (json_object_object_get_ex(res, "stages", &stages)) {
		json_object_object_foreach(stages, key, val) {
			(void)val;
			json_object_object_add(stages, key, NULL);
		}
	}
	if (json_object_object_get_ex(res, "events", &events))
		for (size_t i = 0; i < json_object_array_length(events); i++)
			json_object_object_add(json_object_array_get_idx(events, i), "time", NULL);
}

int cmd_judge(int argc, char **argv)
{
	struct judge_args a = { NULL, "text", false };
	const struct opt opts[] = {
		{ "format", 'f', OPT_STRING, "text|json", "the report's format (default text)", &a.format },
		{ "help", 'h', OPT_FLAG, NULL, "this help", &a.help },
		{ NULL, 0, 0, NULL, NULL, NULL },
	};
	int rc = options_parse(opts, argc, argv, &a.log, usage_line);
	if (rc)
		return rc;
	if (a.help) {
		print_help(opts, stdout);
		return EXIT_PASS;
	}
	if (!a.log) {
		error("judge: which console log?");
		fputs(usage_line, stderr);
		return EXIT_USAGE;
	}
	if (strcmp(a.format, "text") && strcmp(a.format, "json")) {
		error("judge: --format is text or json, not '%s'", a.format);
		return EXIT_USAGE;
	}
	char *buf;
	size_t len;
	if (read_file(a.log, &buf, &len) < 0) {
		int missing = errno == ENOENT;
		error("judge: cannot read %s: %s", a.log, strerror(errno));
		return missing ? 66 : EXIT_DATAERR;
	}
	struct judge_limits none = { .silence = 0 };
	struct judge *j = judge_new(&none);
	enum time_source src = detect_times(a.log, buf, len);
	double last = feed_log(j, buf, len, src);
	judge_console_ended(j, last);
	enum verdict v = judge_finish(j, last);
	json_object *res = json_object_new_object();
	json_object_object_add(res, "log", json_cstring_utf8(a.log));
	json_object_object_add(res, "times", json_object_new_string(
		src == TIMES_TLOG ? "tlog" : src == TIMES_PRINTK ? "printk" : "none"));
	judge_to_json(j, res);
	if (src == TIMES_NONE)
		null_times(res);
	if (!strcmp(a.format, "json"))
		json_fputs(res, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, stdout);
	else
		print_text(a.log, res, src);
	json_object_put(res);
	judge_free(j);
	free(buf);
	return verdict_exit_code(v);
}
