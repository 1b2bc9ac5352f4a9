/*
 * bootrig.c: the entry point. One table maps each subcommand to its
 * function (one file each, see builtin.h); this file only dispatches and
 * prints the top-level help and version.
 */
#include "builtin.h"
#include "exitcodes.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	/* Commands are added here, one line each (see builtin.h). */
	{ "build", cmd_build, "build the initramfs (and SD image) for a kernel; --list an image" },
	{ "compare", cmd_compare, "compare results: A/B statistics, ABIs, new failures (text/json/junit/html)" },
	{ "judge", cmd_judge, "judge a saved console log: verdict, stages, kernel crash reports" },
	{ "run", cmd_run, "boot kernels (in QEMU or on real machines), judge each boot, write its results" },
	{ "bisect", cmd_bisect, "find the commit that made a kernel slower on a metric, or crash (git bisect)" },
	{ "import", cmd_import, "record results directories in a history database (SQLite)" },
	{ "history", cmd_history, "a metric over the kernels of a history database: medians, change points, SVG" },
	{ "logdiff", cmd_logdiff, "what one console log says that another does not, without boot noise" },
	{ "export", cmd_export, "write results as KCIDB I/O JSON for KernelCI (--kcidb)" },
	{ NULL, NULL, NULL },
};

static void usage(FILE *out)
{
	fputs("usage: bootrig [--version] [--help] <command> [<args>]\n\n"
	      "Does this kernel boot, on every userspace ABI, and did it get slower?\n\n"
	      "commands:\n", out);
	for (const struct command *c = commands; c->name; c++)
		fprintf(out, "  %-10s %s\n", c->name, c->summary);
	fputs("\n'bootrig <command> --help' describes each command.\n", out);
}

/*
 * finish_stdout: a command's status, unless what it printed was lost
 * (`> /dev/full`, a closed pipe's EIO, a full disk): stdout is flushed
 * here for every command, and a write that failed, now or earlier, is
 * reported and exits EXIT_INFRA (the host failed; the report is gone), as
 * git's run_builtin() does.
 */
static int finish_stdout(int status)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return status;
	error("cannot write to standard output: %s",
	      errno ? strerror(errno) : "a write failed");
	return EXIT_INFRA;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("bootrig %s\n", BOOTRIG_VERSION);
		return EXIT_PASS;
	}
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		usage(stdout);
		return EXIT_PASS;
	}
	for (const struct command *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return finish_stdout(c->fn(argc - 1, argv + 1));
	error("'%s' is not a bootrig command", name);
	usage(stderr);
	return EXIT_USAGE;
}
