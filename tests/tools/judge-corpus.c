/*
 * judge-corpus.c: runs the judge over the crash corpus (tests/fixtures/crash)
 * and checks every fixture's events against the ones it records.
 *
 *   judge-corpus [--stats] FIXTURE...
 *
 * A fixture is a console log whose first lines are its header:
 *   # SOURCE: where the log comes from
 *   # EVENT: kind | title         one line per event, in order
 *   # EVENT: none                 a log where nothing must be found
 * The rest is fed to the judge as console bytes, as a saved log is by
 * `bootrig judge`. A fixture passes when the judge's kernel events (the
 * protocol's are not counted) are exactly the expected ones: same number,
 * same kinds, same titles, in order.
 *
 * Output: TAP, one line per fixture, with the difference on failure. With
 * --stats, the corpus scores instead (what scripts/bench.d/41-judge-corpus.sh
 * prints): crash logs detected, clean logs flagged, titles exact, functions
 * right. Exit status: 0 when every fixture passed, 1 otherwise.
 */
#include "judge.h"
#include "util.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 64

struct expected {
	char *kind[MAX_EVENTS], *title[MAX_EVENTS];
	size_t n;
	bool clean;
};

struct scores {
	int crash_logs, detected, clean_logs, clean_flagged;
	int titles, titles_right, functions, functions_right;
	int fixtures, passed;
};

/* Splits "kind | title" into e; returns false on a malformed line. */
static bool add_expected(struct expected *e, const char *text)
{
	if (!strcmp(text, "none")) {
		e->clean = true;
		return true;
	}
	const char *bar = strstr(text, " | ");
	if (!bar || e->n == MAX_EVENTS)
		return false;
	e->kind[e->n] = xasprintf("%.*s", (int)(bar - text), text);
	e->title[e->n] = xstrdup(bar + 3);
	e->n++;
	return true;
}

/* Reads the header lines; *body is where the console bytes start. */
static bool read_header(char *buf, struct expected *e, char **body)
{
	char *p = buf;
	while (!strncmp(p, "# ", 2)) {
		char *nl = strchr(p, '\n');
		if (!nl)
			return false;
		*nl = '\0';
		if (!strncmp(p, "# EVENT: ", 9) && !add_expected(e, p + 9))
			return false;
		p = nl + 1;
	}
	*body = p;
	return e->clean || e->n > 0;
}

/* The judge's kernel events for the console bytes in body. */
static json_object *judge_events(const char *body, size_t len)
{
	struct judge_limits none = { .silence = 0 };
	struct judge *j = judge_new(&none);
	judge_feed(j, body, len, 0);
	judge_console_ended(j, 0);
	judge_finish(j, 0);
	json_object *res = json_object_new_object(), *events, *kernel = json_object_new_array();
	judge_to_json(j, res);
	json_object_object_get_ex(res, "events", &events);
	for (size_t i = 0; i < json_object_array_length(events); i++) {
		json_object *ev = json_object_array_get_idx(events, i), *kind;
		json_object_object_get_ex(ev, "kind", &kind);
		if (strcmp(json_object_get_string(kind), "protocol"))
			json_object_array_add(kernel, json_object_get(ev));
	}
	json_object_put(res);
	judge_free(j);
	return kernel;
}

static const char *field(json_object *ev, const char *key)
{
	json_object *v;
	return json_object_object_get_ex(ev, key, &v) ? json_object_get_string(v) : "";
}

/* Adds this fixture to the scores. */
static void score(struct scores *s, const struct expected *e, json_object *got)
{
	size_t n = json_object_array_length(got);
	if (e->clean) {
		s->clean_logs++;
		s->clean_flagged += n > 0;
		return;
	}
	s->crash_logs++;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(field(json_object_array_get_idx(got, i), "kind"), e->kind[0])) {
			s->detected++;
			break;
		}
	for (size_t k = 0; k < e->n; k++) {
		json_object *ev = k < n ? json_object_array_get_idx(got, k) : NULL;
		const char *in = strstr(e->title[k], " in ");
		s->titles++;
		s->titles_right += ev && !strcmp(field(ev, "title"), e->title[k]);
		/* the title ends in its function: after the last " in " ("BUG: using
		 * smp_processor_id() in preemptible code in F"), of which the first
		 * word (KCSAN names two: "data-race in f / g") */
		for (const char *later = in; later; later = strstr(in + 4, " in "))
			in = later;
		if (in && strcmp(in + 4, "corrupted")) {    /* "in corrupted": no function */
			size_t len = strcspn(in + 4, " ");
			const char *fn = ev ? field(ev, "function") : "";
			s->functions++;
			s->functions_right += ev && strlen(fn) == len && !strncmp(fn, in + 4, len);
		}
	}
}

/* Prints why got differs from e, as TAP comments. */
static void show_difference(const struct expected *e, json_object *got)
{
	for (size_t k = 0; k < e->n; k++)
		printf("#   expected: %s | %s\n", e->kind[k], e->title[k]);
	if (e->clean)
		printf("#   expected: none\n");
	for (size_t i = 0; i < json_object_array_length(got); i++) {
		json_object *ev = json_object_array_get_idx(got, i);
		printf("#   got:      %s | %s\n", field(ev, "kind"), field(ev, "title"));
	}
}

static bool matches(const struct expected *e, json_object *got)
{
	size_t n = json_object_array_length(got);
	if (n != e->n)
		return false;
	for (size_t k = 0; k < n; k++) {
		json_object *ev = json_object_array_get_idx(got, k);
		if (strcmp(field(ev, "kind"), e->kind[k]) || strcmp(field(ev, "title"), e->title[k]))
			return false;
	}
	return true;
}

/* One fixture: its TAP line (unless quiet), its scores. */
static bool check_fixture(const char *path, int number, bool quiet, struct scores *s)
{
	char *buf, *body;
	size_t len;
	struct expected e = { .n = 0 };
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	bool ok = false;
	if (read_file(path, &buf, &len) < 0) {
		printf("not ok %d - %s\n# cannot read it\n", number, name);
		return false;
	}
	if (!read_header(buf, &e, &body)) {
		printf("not ok %d - %s\n# no \"# EVENT:\" header\n", number, name);
	} else {
		json_object *got = judge_events(body, len - (size_t)(body - buf));
		ok = matches(&e, got);
		score(s, &e, got);
		if (!quiet) {
			printf("%s %d - %s\n", ok ? "ok" : "not ok", number, name);
			if (!ok)
				show_difference(&e, got);
		}
		json_object_put(got);
	}
	for (size_t k = 0; k < e.n; k++) {
		free(e.kind[k]);
		free(e.title[k]);
	}
	free(buf);
	return ok;
}

static double pct(int a, int b)
{
	return b ? 100.0 * a / b : 0;
}

int main(int argc, char **argv)
{
	bool stats = argc > 1 && !strcmp(argv[1], "--stats");
	int first = stats ? 2 : 1;
	struct scores s = { 0 };
	if (argc <= first) {
		fprintf(stderr, "usage: judge-corpus [--stats] FIXTURE...\n");
		return 64;
	}
	if (!stats)
		printf("1..%d\n", argc - first);
	for (int i = first; i < argc; i++) {
		s.fixtures++;
		s.passed += check_fixture(argv[i], i - first + 1, stats, &s);
	}
	if (stats) {
		printf("fixtures:            %d (%d crash logs, %d clean logs), %d fully right (%.1f%%)\n",
		       s.fixtures, s.crash_logs, s.clean_logs, s.passed, pct(s.passed, s.fixtures));
		printf("crashes detected:    %d of %d (%.1f%%)\n", s.detected, s.crash_logs,
		       pct(s.detected, s.crash_logs));
		printf("clean logs flagged:  %d of %d (%.1f%%)\n", s.clean_flagged, s.clean_logs,
		       pct(s.clean_flagged, s.clean_logs));
		printf("titles exact:        %d of %d (%.1f%%)\n", s.titles_right, s.titles,
		       pct(s.titles_right, s.titles));
		printf("functions right:     %d of %d (%.1f%%)\n", s.functions_right, s.functions,
		       pct(s.functions_right, s.functions));
	}
	return s.passed == s.fixtures ? 0 : 1;
}
