/*
 * cmd-export.c: `bootrig export --kcidb [--origin NAME] [--git-commit SHA]
 * [--git-url URL] [-o FILE] RESULTS...`:
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
	struct kcidb_git git;
};

static const struct opt_usage usage = {
	"usage: bootrig export --kcidb [--origin NAME] [--git-commit SHA] [--git-url URL]\n"
	"                      [-o FILE] RESULTS...\n",
	"Writes every boot below each RESULTS directory (or result.json) as KCIDB\n"
	"I/O data (schema v5.3): a checkout per kernel (its git commit when known),\n"
	"a build per kernel and initramfs, a test per boot (path \"boot\"; the\n"
	"variant and command line in its environment), per ABI\n"
	"(\"boot.bootrig.<abi>\"), per ABI test and per metric\n"
	"(\"boot.bootrig.<abi>.<test>[.<metric>]\", its median as the test's number),\n"
	"per KUnit case (\"kunit.<suite>.<case>\"; a name no path can hold is\n"
	"counted, not exported).\n"
	"Exit 0; 64: usage (a bad --git-commit or --git-url), or -o FILE cannot be\n"
	"written; 65: a result that cannot be read, is larger than 64 MiB or holds\n"
	"NaN or Infinity (nothing written); 125: stdout could not be written.\n",
	NULL,
};

int cmd_export(int argc, char **argv)
{
	struct export_args a = { .origin = "bootrig" };
	const struct opt opts[] = {
		OPT_FLAG(0, "kcidb", &a.kcidb, "KCIDB I/O JSON (the one format, required)"),
		OPT_STRING(0, "origin", &a.origin, "NAME",
			   "the submitting CI system, [a-z0-9_]+, the prefix of every ID (default bootrig)"),
		OPT_STRING(0, "git-commit", &a.git.commit, "SHA",
			   "the kernels' git commit (40 hex digits), for every checkout"),
		OPT_STRING(0, "git-url", &a.git.url, "URL",
			   "their git repository (https://), for every checkout"),
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
	if (a.git.commit && !kcidb_git_commit_valid(a.git.commit))
		return options_usage_error(&usage, "export: --git-commit '%s' is not a full commit hash "
					   "(40 lowercase hex digits, git rev-parse HEAD)", term_str(a.git.commit));
	if (a.git.url && !kcidb_git_url_valid(a.git.url))
		return options_usage_error(&usage, "export: --git-url '%s' is not an https:// URL (KCIDB v5 "
					   "takes no other)", term_str(a.git.url));
	if (argc < 2)
		return options_usage_error(&usage, "export: needs at least one RESULTS directory");
	struct json_object *doc = kcidb_export((const char *const *)argv + 1, (size_t)argc - 1, a.origin,
					       &a.git);
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
