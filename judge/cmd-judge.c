/*
 * cmd-judge.c: `bootrig judge CONSOLE_LOG [--format text|json|ktap]`: the run's
 * judge (judge.h) over a saved console log, from bootrig or from anywhere
 * else (LAVA, a terminal capture).
 *
 * The log is read as a stream (judge/judgelog.h: each line's time from a
 * console.tlog's or the kernel's printk stamps; at most --max-bytes of it,
 * 4 GiB by default, so that an endless input like /dev/zero ends, judged
 * as cut: INFRA_ERROR unless a kernel report was seen); a log with no
 * times has its stages reached at unknown times.
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
#include "judgelog.h"
#include "ktap.h"
#include "ktapout.h"
#include "options.h"
#include "textsafe.h"
#include "util.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct judge_args {
	const char *log, *format, *max_bytes;
};

static const struct opt_usage usage = {
	"usage: bootrig judge CONSOLE_LOG [--format text|json|ktap] [--max-bytes N]\n",
	"Judges a saved console log as `bootrig run` judges a boot: the verdict,\n"
	"the stages reached (with times from a console.tlog or printk stamps) and\n"
	"every kernel report found (kind, syzbot-style title, excerpt), and the\n"
	"KTAP (KUnit) cases the kernel printed. --format ktap writes it all as KTAP\n"
	"for kunit.py parse: the kernel's KTAP as it was (nesting, numbers, plans,\n"
	"directives; a suite the console ended inside stays not ok), then the boot\n"
	"and each test of each ABI.\n",
	"Exit status: 0 PASS, 1 FAIL, 2 PANIC, HANG or BOOT_FAIL, 64 usage,\n"
	"65 the log cannot be read, 66 it does not exist, 125 INFRA_ERROR (the log\n"
	"was cut at --max-bytes) or the report could not be written (stdout full).\n",
};

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
static void print_text(const char *path, const struct judge *j, enum verdict v,
		       enum time_source src)
{
	printf("%s: %s", term_str(path), verdict_name(v));
	if (*judge_reason(j))
		printf(": %s", term_str(judge_reason(j)));
	putchar('\n');
	printf("  stages:");
	for (int s = 0; s < STAGE_COUNT; s++) {
		double t = judge_stage_time(j, s);
		if (t < 0)
			continue;
		if (src == TIMES_NONE)
			printf(" %s", stage_name(s));
		else
			printf(" %s %.3f", stage_name(s), t);
	}
	putchar('\n');
	struct judge_event e;
	printf("  events: %zu\n", judge_event_count(j));
	for (size_t i = 0; judge_event_at(j, i, &e); i++) {
		printf("  %zu. %s%s, line %ld: %s\n", i + 1, term_str(e.kind),
		       e.fatal ? " (fatal)" : "", e.line, term_str(e.title));
		print_excerpt(e.excerpt);
	}
	const struct ktap *kt = judge_ktap(j);
	if (!ktap_seen(kt))
		return;
	struct ktap_counts c;
	struct ktap_result r;
	ktap_counts(kt, &c);
	printf("  ktap: %zu ok, %zu failed, %zu skipped\n", c.ok, c.fail, c.skip);
	for (size_t i = 0; ktap_case_at(kt, i, &r); i++)
		if (r.status == KTAP_FAIL)
			printf("  not ok %s%s%s (line %ld)\n", term_str(r.suite), *r.suite ? "." : "",
			       term_str(r.name), r.line);
}

/* The KTAP report's status of a judge_test status. */
static enum ktapout_status test_status(const char *status)
{
	return !strcmp(status, "PASS") ? KTAPOUT_OK : KTAPOUT_FAIL;
}

/* The KTAP report: the kernel's own KTAP as it was read (ktap_write(): its
 * results keep their numbers, nesting, plans and directives, so that a KTAP
 * reader concludes what it would of the console), then bootrig's: a subtest
 * "boot" (the verdict, each event) and one "tests" (each test of each ABI,
 * when there are any). A document the console ended before its plan did
 * keeps that plan: its missing results come last, after bootrig's, as the
 * document's own were missing at its end. */
static void print_ktap(const struct judge *j, enum verdict v)
{
	const struct ktap *kt = judge_ktap(j);
	struct ktap_counts c;
	struct judge_test t;
	struct judge_event e;
	size_t ntests = 0;
	while (judge_test_at(j, ntests, &t))
		ntests++;
	ktap_counts(kt, &c);
	struct ktapout k;
	ktapout_begin(&k, stdout, c.top + 1 + (ntests > 0) + c.missing);
	ktap_write(kt, &k);

	ktapout_subtest(&k, "boot", 1 + judge_event_count(j));
	bool failed = v != VERDICT_PASS;
	char *why = *judge_reason(j) ? xasprintf("%s: %s", verdict_name(v), judge_reason(j))
				     : xstrdup(verdict_name(v));
	ktapout_case(&k, "verdict", failed ? KTAPOUT_FAIL : KTAPOUT_OK, NULL, why);
	free(why);
	for (size_t i = 0; judge_event_at(j, i, &e); i++) {
		char *name = xasprintf("%s: %s", e.kind, e.title);
		char *diag = xasprintf("line %ld%s%s", e.line, e.fatal ? ", fatal" : "",
				       e.expected ? ", a known issue" : "");
		ktapout_case(&k, name, e.expected ? KTAPOUT_OK : KTAPOUT_FAIL, NULL, diag);
		failed = failed || !e.expected;
		free(name), free(diag);
	}
	ktapout_end_subtest(&k, "boot", failed ? KTAPOUT_FAIL : KTAPOUT_OK);

	if (ntests) {
		failed = false;
		ktapout_subtest(&k, "tests", ntests);
		for (size_t i = 0; judge_test_at(j, i, &t); i++) {
			char *name = xasprintf("%s.%s", t.abi, t.test);
			char *diag = *t.reason ? xasprintf("%s: %s", t.status, t.reason) : NULL;
			ktapout_case(&k, name, test_status(t.status), NULL, diag);
			failed = failed || test_status(t.status) == KTAPOUT_FAIL;
			free(name), free(diag);
		}
		ktapout_end_subtest(&k, "tests", failed ? KTAPOUT_FAIL : KTAPOUT_OK);
	}
	if (c.missing) {
		char *diag = xasprintf("the console ended before the kernel's KTAP did: %zu planned "
				       "results never reported", c.missing);
		ktapout_diag(&k, diag);
		free(diag);
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
	struct judge_args a = { NULL, "text", NULL };
	const struct opt opts[] = {
		OPT_STRING('f', "format", &a.format, "text|json|ktap", "the report's format (default text)"),
		OPT_STRING(0, "max-bytes", &a.max_bytes, "N",
			   "read at most N bytes (K, M, G suffixes; default 4G)"),
		OPT_END(),
	};
	int rc = options_parse(opts, argc, argv, &a.log, &usage);
	if (rc)
		return rc;
	if (!a.log)
		return options_usage_error(&usage, "judge: which console log?");
	if (strcmp(a.format, "text") && strcmp(a.format, "json") && strcmp(a.format, "ktap")) {
		error("judge: --format is text, json or ktap, not '%s'", a.format);
		return EXIT_USAGE;
	}
	uint64_t max_bytes = JUDGELOG_MAX_BYTES;
	if (a.max_bytes && !judgelog_parse_size(a.max_bytes, &max_bytes)) {
		error("judge: --max-bytes is a byte count (like 512M), not '%s'", a.max_bytes);
		return EXIT_USAGE;
	}
	struct judged_log read;
	struct judge *j = judgelog_judge(a.log, max_bytes, &read);
	if (!j) {
		int missing = errno == ENOENT;
		error("judge: cannot read %s: %s", a.log, strerror(errno));
		return missing ? EXIT_NOINPUT : EXIT_DATAERR;
	}
	enum time_source src = read.times;
	enum verdict v = judge_finish(j, read.last_t);
	if (judge_events_not_kept(j))
		warning("judge: %s: %zu further events not kept (the first %d are listed; the "
			"verdict counts them all)", a.log, judge_events_not_kept(j), CRASH_MAX_EVENTS);
	if (!strcmp(a.format, "json")) {
		json_object *res = json_object_new_object();
		json_object_object_add(res, "log", json_cstring_utf8(a.log));
		json_object_object_add(res, "times", json_object_new_string(
			src == TIMES_TLOG ? "tlog" : src == TIMES_PRINTK ? "printk" : "none"));
		judge_to_json(j, res);
		if (src == TIMES_NONE)
			null_times(res);
		json_fputs(res, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, stdout);
		json_object_put(res);
	} else if (!strcmp(a.format, "ktap")) {
		print_ktap(j, v);
	} else {
		print_text(a.log, j, v, src);
	}
	judge_free(j);
	return verdict_exit_code(v);
}
