/*
 * cmd-import.c: `bootrig import --db FILE RESULTS...`: records every boot
 * below each RESULTS (a results directory at any depth, or a result.json)
 * in the history database (db.h), creating it when missing.
 *
 * All or nothing: every result.json is read and checked before anything is
 * written; a boot already in the database is not recorded again.
 * Exit status: 0 recorded (or all known), 64 usage (a --db that is not a
 * file's path too), 65 a results directory or the database could not be
 * read (nothing written; no database made for refused input).
 */
#include "builtin.h"
#include "db.h"
#include "exitcodes.h"
#include "options.h"
#include "textsafe.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

static const struct opt_usage usage = {
	"usage: bootrig import --db FILE RESULTS_DIR... [options]\n",
	"Records every boot below each RESULTS_DIR (any depth; or a result.json) in\n"
	"the history database FILE (SQLite; made when missing), for `bootrig history`\n"
	"and `bootrig compare db:FILE:kernel=...`. A boot already recorded (the same\n"
	"result.json bytes), or copied among the RESULTS_DIRs, is kept once. Exit 0;\n"
	"64: usage, or a --db that is not a file's path (\"\", :memory:, a file: URI);\n"
	"65: unreadable results (not JSON, over 64 MiB, NaN or Infinity in them; no\n"
	"database is made for them) or database (nothing recorded); 125: stdout\n"
	"could not be written.\n",
	NULL,
};

int cmd_import(int argc, char **argv)
{
	const char *db_path = NULL;
	bool quiet = false;
	const struct opt opts[] = {
		OPT_STRING(0, "db", &db_path, "FILE", "the history database (SQLite), made when missing"),
		OPT_FLAG('q', "quiet", &quiet, "print nothing on success"),
		OPT_END(),
	};
	if (options_parse_operands(opts, &argc, argv, &usage))
		return EXIT_USAGE;
	if (!db_path)
		return options_usage_error(&usage, "import: --db FILE is required");
	if (argc < 2)
		return options_usage_error(&usage, "import: needs at least one RESULTS_DIR");
	if (db_path_check(db_path))
		return EXIT_USAGE;
	struct db_import_count n;
	int rc = db_import(db_path, argv + 1, (size_t)argc - 1, &n);
	if (rc == EXIT_PASS && !quiet) {
		printf("%s: %zu boot%s recorded, %zu already there", term_str(db_path), n.added,
		       n.added == 1 ? "" : "s", n.known);
		if (n.copies)
			printf(", %zu cop%s counted once", n.copies,
			       n.copies == 1 ? "y of a boot" : "ies of boots");
		putchar('\n');
	}
	return rc;
}
