/*
 * cmd-compare.c: `bootrig compare BASE CAND [CAND2 ...]`: reads each side's
 * results, compares every candidate with BASE (compare.c) and prints one
 * report (text, JSON, JUnit XML, HTML or KTAP) to stdout or -o FILE.
 *
 * Exit status (the contract): 0 nothing regressed significantly, 1 something
 * did (a metric, an ABI, a new kernel failure, failing verdict or KTAP case
 * failure), 125 a
 * side has no usable boot, 64 usage (an unwritable -o FILE too), 65 unreadable
 * results.
 */
#include "builtin.h"
#include "compare.h"
#include "db.h"
#include "exitcodes.h"
#include "options.h"
#include "textsafe.h"
#include "util.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum report_format { FORMAT_TEXT, FORMAT_JSON, FORMAT_JUNIT, FORMAT_HTML, FORMAT_KTAP };

#define BY_HOST_MAX 128

struct compare_args {
	struct compare_opts opts;
	struct opt_list globs;
	enum report_format format;
	const char *output;
	bool mixed;                /* --mixed: pool boots run differently */
	bool by_host;              /* --by-host: compare host by host */
};

static const struct opt_usage usage = {
	"usage: bootrig compare BASE_DIR CAND_DIR [CAND_DIR...] [options]\n",
	"Compares the boots below each CAND_DIR with those below BASE_DIR: every\n"
	"result.json at any depth, all boots pooled; each PASS boot's median of a\n"
	"metric is one observation (--include-fail: a FAIL boot's too, when it failed\n"
	"for a KTAP case, a kernel report or an init error, not its benchmarks or\n"
	"records; marked in the text, JSON and HTML reports). Exit 0: nothing regressed; 1: a significant\n"
	"regression or a new kernel failure; 64: usage, or -o FILE cannot be\n"
	"written; 65: a result.json cannot be read (not JSON, over 64 MiB, NaN or\n"
	"Infinity in it) or a database side cannot; 125: a side has no usable\n"
	"boot, or the report could not be written to stdout.\n"
	"Under a metric that changed, the functions of its profile (run --profile)\n"
	"whose share changed most, in the kernel test robot's form\n"
	"(perf-profile.self.FUNC, perf-profile.children.FUNC: base %, change in\n"
	"points, cand %, Welch's p over each boot's share); the HTML report draws a\n"
	"differential flame graph per profiled metric.\n"
	"A side db:FILE:kernel=VERSION-OR-SHA256[:target=T][:clock=C][:variant=V]\n"
	"is that kernel's boots in the history database FILE (bootrig import).\n",
	NULL,
};

/* --format text|json|junit|html|ktap */
static int take_format(const struct opt *o, const char *s)
{
	static const char *const names[] = { "text", "json", "junit", "html", "ktap" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i])) {
			*(enum report_format *)o->value = (enum report_format)i;
			return 0;
		}
	return error("--format: '%s' is not text, json, junit, html or ktap", s);
}

/* Parses argv (the sides moved to argv[1..]); 0 or EXIT_USAGE. */
static int parse_args(int *argc, char **argv, struct compare_args *a)
{
	/* The options, parsed and printed by --help from this one table. */
	const struct opt opts[] = {
		OPT_REPEAT(0, "metric", &a->globs, "GLOB",
			   "only metrics whose abi.test.name matches (repeatable; e.g. '*.lat_syscall.*'); "
			   "'abi.test.name:self.FUNC' (or :children.FUNC) that metric with those functions' "
			   "profile lines, changed or not"),
		OPT_NUMBER(0, "threshold", &a->opts.threshold_pct, "PCT",
			   "smallest |%change| that counts as a change (default 5)", 0, 1e6),
		OPT_NUMBER(0, "alpha", &a->opts.alpha, "P",
			   "significance level of Welch's t-test (default 0.01)", 1e-12, 1),
		OPT_FLAG(0, "mixed", &a->mixed,
			 "pool boots of one kernel and variant even when their command lines, images or targets differ"),
		OPT_FLAG(0, "include-fail", &a->opts.include_fail,
			 "count the metrics of FAIL boots that failed for something other than their "
			 "metrics (a KTAP case, a kernel report, an init error), marked as such"),
		OPT_FLAG(0, "by-host", &a->by_host,
			 "compare each libvirt host's boots with the same host's on the other side"),
		OPT_FLAG(0, "logs", &a->opts.logs,
			 "also compare the console logs (normalized lines one side lacks)"),
		OPT_FLAG(0, "profile-all", &a->opts.profile_all,
			 "perf-profile lines for every profiled metric, not only the changed ones"),
		OPT_FLAG(0, "perf-stat-all", &a->opts.perf_stat_all,
			 "every metric's perf stat counter rows, not only the changed ones"),
		OPT_FLAG(0, "no-profile", &a->opts.no_profile,
			 "no perf-profile lines and no flame graphs"),
		OPT_CALLBACK(0, "format", &a->format, "FMT",
			     "text (default), json, junit, html or ktap (kunit.py parse reads it)",
			     take_format),
		OPT_STRING('o', "output", &a->output, "FILE",
			   "write the report to FILE (whole or not at all)"),
		OPT_END(),
	};
	int rc = options_parse_operands(opts, argc, argv, &usage);
	if (!rc && *argc - 1 < 2)
		rc = options_usage_error(&usage, "compare: needs a BASE_DIR and at least one CAND_DIR");
	return rc;
}

/* The report, in the chosen format, into a memory buffer. */
static char *render(const struct comparison *c, enum report_format format, bool colour,
		    size_t *len)
{
	char *buf = NULL;
	FILE *out = open_memstream(&buf, len);
	if (!out)
		die_status(EXIT_INFRA, "out of memory");
	switch (format) {
	case FORMAT_TEXT: report_text(c, out, colour); break;
	case FORMAT_JUNIT: report_junit(c, out); break;
	case FORMAT_HTML: report_html(c, out); break;
	case FORMAT_KTAP: report_ktap(c, out); break;
	case FORMAT_JSON: {
		struct json_object *root = report_json(c);
		json_fputs(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, out);
		json_object_put(root);
		break;
	}
	}
	fclose(out);
	return buf;
}

/* Colour for text on a terminal, unless NO_COLOR is set (no-color.org). */
static bool want_colour(const struct compare_args *a)
{
	const char *nc = getenv("NO_COLOR");
	return a->format == FORMAT_TEXT && !a->output && isatty(STDOUT_FILENO) && !(nc && *nc);
}

/* Warns of each side whose boots come from more than one host. */
static void warn_many_hosts(const struct side *sides, size_t nsides)
{
	for (size_t s = 0; s < nsides; s++) {
		const char *hosts[8];
		size_t n = side_hosts(&sides[s], hosts, ARRAY_SIZE(hosts));
		if (n > 1)
			warning("%s: its boots come from %zu hosts (%s, %s%s): host differences are "
				"part of the sample; --by-host compares host by host", sides[s].label,
				n, *hosts[0] ? hosts[0] : "?", *hosts[1] ? hosts[1] : "?",
				n > 2 ? ", ..." : "");
	}
}

/*
 * compare_by_host: --by-host: for each host of the base side that every
 * candidate side has too, that host's boots on every side are compared,
 * the reports one after another, each under a "host NAME" line (text
 * only). Returns the worst exit code.
 */
static int compare_by_host(struct compare_args *a, char **paths, size_t nsides,
			   const struct side *all)
{
	const char *hosts[BY_HOST_MAX];
	size_t nh = side_hosts(&all[0], hosts, BY_HOST_MAX);
	int worst = -1;
	for (size_t h = 0; h < nh; h++) {
		struct side *sides = xcalloc(nsides, sizeof(*sides));
		bool everywhere = true;
		int status = EXIT_PASS;
		for (size_t s = 0; s < nsides && status == EXIT_PASS; s++) {
			if (side_load_how(&sides[s], paths[s], &(struct side_how){
					.mixed = a->mixed, .include_fail = a->opts.include_fail,
					.host = hosts[h] }) < 0)
				status = EXIT_DATAERR;
			else if (!sides[s].nboots)
				everywhere = false;
		}
		if (status == EXIT_PASS && !everywhere)
			warning("host %s: not on every side: its boots are not compared", hosts[h]);
		if (status == EXIT_PASS && everywhere) {
			struct comparison c;
			compare_sides(&c, sides, nsides, &a->opts);
			for (size_t i = 0; i < c.nwarnings; i++)
				warning("host %s: %s", hosts[h], c.warnings[i]);
			size_t len;
			char *report = render(&c, a->format, want_colour(a), &len);
			printf("host %s\n", *hosts[h] ? term_str(hosts[h]) : "(unnamed)");
			status = fwrite(report, 1, len, stdout) == len && fflush(stdout) == 0 ?
				c.exit_code : EXIT_INFRA;
			free(report);
			comparison_free(&c);
			if (worst < 0 || status > worst)
				worst = status;
		}
		for (size_t s = 0; s < nsides; s++)
			side_free(&sides[s]);
		free(sides);
		if (status == EXIT_DATAERR || status == EXIT_INFRA)
			return status;
	}
	if (worst < 0)
		return error("--by-host: no host has boots on every side"), EXIT_INFRA;
	return worst;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_args a = { .opts = { .threshold_pct = 5, .alpha = 0.01 } };
	if (parse_args(&argc, argv, &a)) {
		free(a.globs.v);
		return EXIT_USAGE;
	}
	const int first = 1;
	if (a.globs.n) {    /* NULL-terminated */
		opt_list_add(&a.globs, NULL);
		a.opts.metric_globs = (const char **)a.globs.v;
	}
	size_t nsides = (size_t)(argc - first);
	struct side *sides = xcalloc(nsides, sizeof(*sides));
	const struct side_how how = { .mixed = a.mixed, .include_fail = a.opts.include_fail };
	int status = EXIT_PASS;
	for (size_t s = 0; s < nsides && status == EXIT_PASS; s++)
		if ((db_is_side_spec(argv[first + (int)s]) ?
		     db_side_load(&sides[s], argv[first + (int)s], &how) :
		     side_load_how(&sides[s], argv[first + (int)s], &how)) < 0)
			status = EXIT_DATAERR;
	for (size_t s = 0; status == EXIT_PASS && a.by_host && s < nsides; s++)
		if (db_is_side_spec(argv[first + (int)s])) {
			error("--by-host: results directories only, not a database side");
			status = EXIT_USAGE;
		}
	if (status == EXIT_PASS && a.by_host && (a.format != FORMAT_TEXT || a.output)) {
		error("--by-host: text reports on stdout only");
		status = EXIT_USAGE;
	} else if (status == EXIT_PASS && a.by_host) {
		status = compare_by_host(&a, argv + first, nsides, sides);
	} else if (status == EXIT_PASS) {
		warn_many_hosts(sides, nsides);
		struct comparison c;
		compare_sides(&c, sides, nsides, &a.opts);
		for (size_t i = 0; i < c.nwarnings; i++)
			warning("%s", c.warnings[i]);
		size_t len;
		char *report = render(&c, a.format, want_colour(&a), &len);
		if (a.output)
			status = write_file_atomic(a.output, report, len) < 0 ? EXIT_USAGE : c.exit_code;
		else
			status = fwrite(report, 1, len, stdout) == len && fflush(stdout) == 0 ?
				c.exit_code : EXIT_INFRA;
		free(report);
		comparison_free(&c);
	}
	for (size_t s = 0; s < nsides; s++)
		side_free(&sides[s]);
	free(sides);
	free(a.globs.v);
	return status;
}
