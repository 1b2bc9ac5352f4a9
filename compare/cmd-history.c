/*
 * cmd-history.c: `bootrig history --db FILE METRIC`: one metric over the
 * kernels of the history database (history.h): each kernel's median,
 * interval and n in time order, and the change points by compare's rule;
 * as text, JSON ("bootrig-history-1"), and an SVG trend (--svg FILE).
 *
 * `bootrig history --db FILE --crashes [--fixed-after N]`: every crash
 * title over the kernels instead (crashes.h): kind, boots, kernels, first
 * and last kernel, open or fixed; any variant unless --variant.
 *
 * Exit status: 0 the history was printed (change points or not: `bootrig
 * compare` is the test that fails), 64 usage (an unwritable --svg/-o FILE,
 * a --db that is not a file's path too), 65 the database is missing,
 * empty, not one of ours, or has no kernel with the metric; 125 stdout
 * could not be written. The database is opened read-only (DB_READ).
 */
#include "builtin.h"
#include "crashes.h"
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
	"usage: bootrig history --db FILE METRIC [options]\n"
	"   or: bootrig history --db FILE --crashes [--fixed-after N] [options]\n",
	"Prints METRIC (abi.test.name, as compare names it; abi.test.name:self.FUNC or\n"
	":children.FUNC for FUNC's share in that metric's profile, :perf-stat.EVENT for\n"
	"its perf stat counter, per operation, or :perf-stat.ipc) for each kernel of the\n"
	"history database FILE, in the order of each kernel's first boot (or of its\n"
	"version): its median, interval (mean ± sd) and n (PASS boots), and the change\n"
	"points: kernels that differ from the kernel before them by compare's rule\n"
	"(Welch's t-test p < alpha and |change| >= threshold or, if larger, the seeds'\n"
	"spread of either kernel's boots). The database is only\n"
	"read, never changed. With --crashes: every crash title the kernels' boots\n"
	"showed (any variant unless --variant), its kind, boots, kernels, the first and\n"
	"last kernel it appeared on, and open (on one of the last N kernels that ran\n"
	"its tests: variant and target) or fixed (gone from them). Exit 0; 64: usage, an unwritable --svg or -o FILE, or\n"
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

/* Builds a report in memory by fill(m, ctx) and writes it (emit()). */
static int report(const char *path, void (*fill)(FILE *, const void *), const void *ctx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		die_status(EXIT_INFRA, "out of memory");
	fill(m, ctx);
	fclose(m);
	int rc = emit(path, buf, len);
	free(buf);
	return rc;
}

static void put_json(FILE *m, struct json_object *root)
{
	json_fputs(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, m);
	json_object_put(root);
}

struct crash_out {
	const struct crash_history *ch;
	const char *db_path;
	bool json;
};

static void fill_crashes(FILE *m, const void *ctx)
{
	const struct crash_out *o = ctx;
	if (o->json)
		put_json(m, crash_history_json(o->ch));
	else
		crash_history_text(o->ch, o->db_path, m);
}

struct history_out {
	const struct history *h;
	bool json;
};

static void fill_history(FILE *m, const void *ctx)
{
	const struct history_out *o = ctx;
	if (o->json)
		put_json(m, history_json(o->h));
	else
		history_text(o->h, m);
}

static void fill_svg(FILE *m, const void *ctx)
{
	history_svg(ctx, m);
}

/* history --crashes: the crash identities of db_path (h: the filter and
 * order as parsed). */
static int crash_report(const char *db_path, const struct history *h, int fixed_after, bool json,
			const char *output)
{
	struct crash_history ch = { .filter = h->filter, .by_version = h->by_version,
				    .fixed_after = fixed_after };
	struct history_db db;
	int rc = db_open(&db, db_path, DB_READ);
	if (rc == EXIT_PASS)
		rc = crash_history_build(&ch, &db);
	if (rc == EXIT_PASS)
		rc = report(output, fill_crashes, &(struct crash_out){ &ch, db_path, json });
	crash_history_free(&ch);
	if (db.sql)
		db_close(&db);
	return rc;
}

int cmd_history(int argc, char **argv)
{
	const char *db_path = NULL, *abi = NULL, *format = "text", *svg = NULL, *output = NULL;
	const char *metric = NULL, *order = "time", *variant = NULL;
	bool crashes = false;
	int fixed_after = 1;
	struct history h = { .opts = { .threshold_pct = 5, .alpha = 0.01 },
			     .filter = { .variant = "default" } };
	const struct opt opts[] = {
		OPT_STRING(0, "db", &db_path, "FILE", "the history database (bootrig run --db, import)"),
		OPT_STRING(0, "abi", &abi, "ABI", "the ABI, when METRIC is test.name"),
		OPT_STRING(0, "target", &h.filter.target, "T", "only boots on target T (default: any)"),
		OPT_STRING(0, "clock", &h.filter.clock, "C",
			   "only boots of clock C, icount or wall (default: any)"),
		OPT_STRING(0, "variant", &variant, "NAME",
			   "only boots of that variant (default: default; --crashes: any)"),
		OPT_FLAG(0, "crashes", &crashes, "every crash title over the kernels, open or fixed"),
		OPT_INT(0, "fixed-after", &fixed_after, "N",
			"--crashes: fixed once gone from the last N kernels that ran its tests (default 1)",
			1, 1000000),
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
	if (!metric && !crashes)
		return options_usage_error(&usage, "history: METRIC is required (e.g. aarch64.lat_syscall.null)");
	if (metric && crashes)
		return options_usage_error(&usage, "history: --crashes takes no METRIC");
	if (crashes && svg)
		return options_usage_error(&usage, "history: --crashes draws no --svg");
	h.filter.variant = variant ? variant : crashes ? NULL : "default";
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
	if (crashes)
		return crash_report(db_path, &h, fixed_after, json, output);
	if (history_parse_metric(&h, metric, abi))
		return EXIT_USAGE;
	struct history_db db;
	int rc = db_open(&db, db_path, DB_READ);
	if (rc == EXIT_PASS)
		rc = history_build(&h, &db);
	for (size_t i = 0; rc == EXIT_PASS && i < h.n; i++)
		for (size_t k = 0; k < h.points[i].nwarnings; k++)
			warning("%s", term_str(h.points[i].warnings[k]));
	if (rc == EXIT_PASS && svg)
		rc = report(svg, fill_svg, &h);
	if (rc == EXIT_PASS)
		rc = report(output, fill_history, &(struct history_out){ &h, json });
	history_free(&h);
	if (db.sql)
		db_close(&db);
	return rc;
}
