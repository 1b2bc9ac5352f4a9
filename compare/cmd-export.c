/*
 * cmd-export.c: `bootrig export --kcidb [--origin NAME] [-o FILE] RESULTS...`:
 * every boot below RESULTS as KCIDB I/O JSON (kcidb.h has the mapping),
 * for `kcidb-submit` and KernelCI's dashboards.
 *
 * The document is whole or absent: it is built in memory and written to
 * FILE through a temporary file and a rename (or to stdout), so a results
 * directory that cannot be read (a truncated result.json, a missing field)
 * leaves no partial or invalid JSON behind. Exit 0; 64 usage (an unwritable
 * FILE too, as compare); 65 results that cannot be read, naming the file.
 */
#include "builtin.h"
#include "exitcodes.h"
#include "kcidb.h"
#include "options.h"
#include "textsafe.h"
#include "util.h"

#include <json-c/json.h>
#include <stdlib.h>

struct export_args {
	bool kcidb;
	const char *origin;
	const char *output;
};

static const struct opt_usage usage = {
	"usage: bootrig export --kcidb [--origin NAME] [-o FILE] RESULTS...\n",
	"Writes every boot below each RESULTS directory (or result.json) as KCIDB\n"
	"I/O data (schema v4.5): a checkout per kernel, a build per kernel and\n"
	"variant, a test per boot (path \"boot\"), per ABI (\"bootrig.<abi>\"), per ABI\n"
	"test and per metric (\"bootrig.<abi>.<test>[.<metric>]\", its median as the\n"
	"test's number). Exit 0; 64: usage, or -o FILE cannot be written; 65: a\n"
	"result that cannot be read, is larger than 64 MiB or holds NaN or Infinity\n"
	"(nothing written); 125: stdout could not be written.\n",
	NULL,
};

int cmd_export(int argc, char **argv)
{
	struct export_args a = { .origin = "bootrig" };
	const struct opt opts[] = {
		OPT_FLAG(0, "kcidb", &a.kcidb, "KCIDB I/O JSON (the one format, required)"),
		OPT_STRING(0, "origin", &a.origin, "NAME",
			   "the submitting CI system, [a-z0-9_]+, the prefix of every ID (default bootrig)"),
		OPT_STRING('o', "output", &a.output, "FILE",
			   "write the document to FILE (whole or not at all; default stdout)"),
		OPT_END(),
	};
	if (options_parse_operands(opts, &argc, argv, &usage))
		return EXIT_USAGE;
	if (!a.kcidb)
		return options_usage_error(&usage, "export: say which format: --kcidb");
	if (!kcidb_origin_valid(a.origin))
		return options_usage_error(&usage, "export: --origin '%s' is not a KCIDB origin ([a-z0-9_]+)",
					   term_str(a.origin));
	if (argc < 2)
		return options_usage_error(&usage, "export: needs at least one RESULTS directory");
	struct json_object *doc = kcidb_export((const char *const *)argv + 1, (size_t)argc - 1, a.origin);
	if (!doc)
		return EXIT_DATAERR;
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_json(&sb, doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
	strbuf_addstr(&sb, "\n");
	json_object_put(doc);
	int status = EXIT_PASS;
	if (a.output)
		status = write_file_atomic(a.output, sb.buf, sb.len) < 0 ? EXIT_USAGE : EXIT_PASS;
	else if (fwrite(sb.buf, 1, sb.len, stdout) != sb.len || fflush(stdout) != 0)
		status = (error("export: cannot write the document to stdout"), EXIT_INFRA);
	strbuf_release(&sb);
	return status;
}
