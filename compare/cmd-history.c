/*
 * cmd-history.c: `bootrig history --db FILE METRIC`: one metric over the
 * kernels of the history database (history.h): each kernel's median,
 * interval and n in time order, and the change points by compare's rule;
 * as text, JSON ("bootrig-history-1"), and an SVG trend (--svg FILE).
 *
 * Exit status: 0 the history was printed (change points or not: `bootrig
 * compare` is the test that fails), 64 usage (an unwritable --svg/-o FILE,
 * a --db that is not a file's path too), 65 the database is missing,
 * empty, not one of ours, or has no kernel with the metric; 125 stdout
 * could not be written. The database is opened read-only (DB_READ).
 */
#include "builtin.h"
#include "history.h"
#include "exitcodes.h"
#include "options.h"
#include "textsafe.h"
#include "util.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct opt_usage usage = {
	"usage: bootrig history --db FILE METRIC [options]\n",
	"Prints METRIC (abi.test.name, as compare names it; abi.test.name:self.FUNC or\n"
	":children.FUNC for FUNC's share in that metric's profile) for each kernel of the\n"
	"history database FILE, in the order of each kernel's first boot (or of its\n"
	"version): its median, interval (mean ± sd) and n (PASS boots), and the change\n"
	"points: kernels that differ from the kernel before them by compare's rule\n"
	"(Welch's t-test p < alpha and |change| >= threshold). The database is only\n"
	"read, never changed. Exit 0; 64: usage, an unwritable --svg or -o FILE, or\n"
	"a --db that is not a file's path (\"\", :memory:, a file: URI); 65: the\n"
	"database is missing, empty or not one of ours, or no kernel has METRIC;\n"
	"125: stdout could not be written.\n",
	NULL,
};

/* Writes an in-memory report to path (whole or not at all) or stdout. */
static int emit(const char *path, const char *buf, size_t len)
{
	if (path)
		return write_file_atomic(path, buf, len) < 0 ? EXIT_USAGE : EXIT_PASS;
	return fwrite(buf, 1, len, stdout) == len && fflush(stdout) == 0 ? EXIT_PASS : EXIT_INFRA;
}

int cmd_history(int argc, char **argv)
{
	const char *db_path = NULL, *abi = NULL, *format = "text", *svg = NULL, *output = NULL;
	const char *metric = NULL, *order = "time";
	struct history h = { .opts = { .threshold_pct = 5, .alpha = 0.01 },
			     .filter = { .variant = "default" } };
	const struct opt opts[] = {
		OPT_STRING(0, "db", &db_path, "FILE", "the history database (bootrig run --db, import)"),
		OPT_STRING(0, "abi", &abi, "ABI", "the ABI, when METRIC is test.name"),
		OPT_STRING(0, "target", &h.filter.target, "T", "only boots on target T (default: any)"),
		OPT_STRING(0, "clock", &h.filter.clock, "C",
			   "only boots of clock C, icount or wall (default: any)"),
		OPT_STRING(0, "variant", &h.filter.variant, "NAME",
			   "only boots of that variant (default: default)"),
		OPT_FLAG(0, "mixed", &h.mixed,
			 "pool a kernel's boots even when their command lines, images or targets differ"),
		OPT_NUMBER(0, "threshold", &h.opts.threshold_pct, "PCT",
			   "smallest |%change| that is a change point (default 5, as compare)", 0, 1e6),
		OPT_NUMBER(0, "alpha", &h.opts.alpha, "P",
			   "significance level of Welch's t-test (default 0.01, as compare)", 1e-12, 1),
		OPT_STRING(0, "order", &order, "ORDER",
			   "time (default: each kernel's first boot) or version (its version, then time)"),
		OPT_STRING(0, "format", &format, "FMT", "text (default) or json"),
		OPT_STRING(0, "svg", &svg, "FILE", "also write the trend chart as SVG to FILE"),
		OPT_STRING('o', "output", &output, "FILE", "write the report to FILE (whole or not at all)"),
		OPT_END(),
	};
	if (options_parse(opts, argc, argv, &metric, &usage))
		return EXIT_USAGE;
	if (!db_path)
		return options_usage_error(&usage, "history: --db FILE is required");
	if (!metric)
		return options_usage_error(&usage, "history: METRIC is required (e.g. aarch64.lat_syscall.null)");
	bool json = !strcmp(format, "json");
	if (!json && strcmp(format, "text"))
		return options_usage_error(&usage, "history: --format: '%s' is not text or json",
					   term_str(format));
	h.by_version = !strcmp(order, "version");
	if (!h.by_version && strcmp(order, "time"))
		return options_usage_error(&usage, "history: --order: '%s' is not time or version",
					   term_str(order));
	if (h.filter.clock && strcmp(h.filter.clock, "icount") && strcmp(h.filter.clock, "wall"))
		return options_usage_error(&usage, "history: --clock wants icount or wall");
	if (history_parse_metric(&h, metric, abi))
		return EXIT_USAGE;
	struct history_db db;
	int rc = db_open(&db, db_path, DB_READ);
	if (rc == EXIT_PASS)
		rc = history_build(&h, &db);
	for (size_t i = 0; rc == EXIT_PASS && i < h.n; i++)
		for (size_t k = 0; k < h.points[i].nwarnings; k++)
			warning("%s", term_str(h.points[i].warnings[k]));
	char *buf = NULL;
	size_t len = 0;
	if (rc == EXIT_PASS && svg) {
		FILE *m = open_memstream(&buf, &len);
		if (!m)
			die_status(EXIT_INFRA, "out of memory");
		history_svg(&h, m);
		fclose(m);
		rc = emit(svg, buf, len);
		free(buf);
	}
	if (rc == EXIT_PASS) {
		FILE *m = open_memstream(&buf, &len);
		if (!m)
			die_status(EXIT_INFRA, "out of memory");
		if (json) {
			struct json_object *root = history_json(&h);
			json_fputs(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, m);
			json_object_put(root);
		} else {
			history_text(&h, m);
		}
		fclose(m);
		rc = emit(output, buf, len);
		free(buf);
	}
	history_free(&h);
	if (db.sql)
		db_close(&db);
	return rc;
}
