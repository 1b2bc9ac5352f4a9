/*
 * cmd-compare.c: `bootrig compare BASE CAND [CAND2 ...]`: reads each side's
 * results, compares every candidate with BASE (compare.c) and prints one
 * report (text, JSON, JUnit XML or HTML) to stdout or -o FILE.
 *
 * Exit status (the contract): 0 nothing regressed significantly, 1 something
 * did (a metric, an ABI, a new kernel failure or failing verdict), 125 a
 * side has no usable boot, 64 usage (an unwritable -o FILE too), 65 unreadable
 * results.
 */
#include "builtin.h"
#include "compare.h"
#include "exitcodes.h"
#include "textsafe.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum report_format { FORMAT_TEXT, FORMAT_JSON, FORMAT_JUNIT, FORMAT_HTML };

#define BY_HOST_MAX 128

struct compare_args {
	struct compare_opts opts;
	const char **globs;
	size_t nglobs;
	enum report_format format;
	const char *output;
	bool mixed;                /* --mixed: pool boots run differently */
	bool by_host;              /* --by-host: compare host by host */
};

/* The options, parsed and printed by --help from this one table. */
static const struct opt_help {
	const char *name;
	int has_arg;
	int val;
	const char *arg, *help;
} compare_options[] = {
	{ "metric", required_argument, 'm', "GLOB",
	  "only metrics whose abi.test.name matches (repeatable; e.g. '*.lat_syscall.*')" },
	{ "threshold", required_argument, 't', "PCT",
	  "smallest |%change| that counts as a change (default 5)" },
	{ "alpha", required_argument, 'a', "P",
	  "significance level of Welch's t-test (default 0.01)" },
	{ "mixed", no_argument, 'M', NULL,
	  "pool boots of one kernel and variant even when their command lines, images or targets differ" },
	{ "by-host", no_argument, 'H', NULL,
	  "compare each libvirt host's boots with the same host's on the other side" },
	{ "logs", no_argument, 'L', NULL,
	  "also compare the console logs (normalized lines one side lacks)" },
	{ "format", required_argument, 'f', "FMT", "text (default), json, junit or html" },
	{ "output", required_argument, 'o', "FILE", "write the report to FILE (whole or not at all)" },
	{ "help", no_argument, 'h', NULL, "this help" },
};

static void compare_usage(FILE *out)
{
	fputs("usage: bootrig compare BASE_DIR CAND_DIR [CAND_DIR...] [options]\n\n"
	      "Compares the boots below each CAND_DIR with those below BASE_DIR: every\n"
	      "result.json at any depth, all boots pooled; each PASS boot's median of a\n"
	      "metric is one observation. Exit 0: nothing regressed; 1: a significant\n"
	      "regression or a new kernel failure; 125: a side has no usable boot.\n\n", out);
	for (size_t i = 0; i < ARRAY_SIZE(compare_options); i++) {
		const struct opt_help *o = &compare_options[i];
		char left[64];
		snprintf(left, sizeof(left), "%s--%s%s%s", o->val == 'o' ? "-o, " : "    ",
			 o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(out, "  %-24s %s\n", left, o->help);
	}
}

/* A number option in [lo, hi), or a usage error. */
static int parse_number(const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v < hi)) {
		error("--%s: '%s' is not a number in [%g, %g)", opt, s, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_format(const char *s, enum report_format *out)
{
	static const char *const names[] = { "text", "json", "junit", "html" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i])) {
			*out = (enum report_format)i;
			return 0;
		}
	return error("--format: '%s' is not text, json, junit or html", s);
}

/* Parses argv; returns the index of the first side, or -1 (usage error),
 * or 0 when --help was printed. */
static int parse_args(int argc, char **argv, struct compare_args *a)
{
	struct option longopts[ARRAY_SIZE(compare_options) + 1];
	for (size_t i = 0; i < ARRAY_SIZE(compare_options); i++)
		longopts[i] = (struct option){ compare_options[i].name, compare_options[i].has_arg,
					       NULL, compare_options[i].val };
	longopts[ARRAY_SIZE(compare_options)] = (struct option){ 0 };
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		int bad = 0;
		switch (c) {
		case 'm':
			a->globs = xrealloc(a->globs, (a->nglobs + 2) * sizeof(*a->globs));
			a->globs[a->nglobs++] = optarg;
			a->globs[a->nglobs] = NULL;
			break;
		case 't': bad = parse_number("threshold", optarg, 0, 1e6, &a->opts.threshold_pct); break;
		case 'a': bad = parse_number("alpha", optarg, 1e-12, 1, &a->opts.alpha); break;
		case 'L': a->opts.logs = true; break;
		case 'M': a->mixed = true; break;
		case 'H': a->by_host = true; break;
		case 'f': bad = parse_format(optarg, &a->format); break;
		case 'o': a->output = optarg; break;
		case 'h': compare_usage(stdout); return 0;
		default:
			error("compare: unknown option or missing value: %s", argv[optind - 1]);
			return -1;
		}
		if (bad)
			return -1;
	}
	if (argc - optind < 2) {
		error("compare: needs a BASE_DIR and at least one CAND_DIR");
		return -1;
	}
	return optind;
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
			if (side_load_host(&sides[s], paths[s], a->mixed, hosts[h]) < 0)
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
			printf("host %s\n", *hosts[h] ? hosts[h] : "(unnamed)");
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
	int first = parse_args(argc, argv, &a);
	if (first <= 0) {
		free(a.globs);
		if (first < 0)
			compare_usage(stderr);
		return first < 0 ? EXIT_USAGE : EXIT_PASS;
	}
	a.opts.metric_globs = a.globs;
	size_t nsides = (size_t)(argc - first);
	struct side *sides = xcalloc(nsides, sizeof(*sides));
	int status = EXIT_PASS;
	for (size_t s = 0; s < nsides && status == EXIT_PASS; s++)
		if (side_load(&sides[s], argv[first + (int)s], a.mixed) < 0)
			status = EXIT_DATAERR;
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
	free(a.globs);
	return status;
}
