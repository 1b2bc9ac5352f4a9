/*
 * options.h: one option table, both parsed and printed by --help, for the
 * commands whose options are a handful of strings and flags (build and
 * judge), in the spirit of git's parse-options.
 *
 * A table ends with an entry whose long_name is NULL. Accepted forms:
 * --name VALUE, --name=VALUE, -n VALUE, and --name / -n for flags.
 */
#ifndef BOOTRIG_OPTIONS_H
#define BOOTRIG_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

enum opt_type {
	OPT_STRING,     /* value: const char **, the last one given wins */
	OPT_FLAG,       /* value: bool *, set to true */
	OPT_REPEAT,     /* value: struct opt_list *, every one given, in order */
};

struct opt {
	const char *long_name;
	char short_name;          /* 0: none */
	enum opt_type type;
	const char *arg;          /* the value's name in --help; NULL for a flag */
	const char *help;
	void *value;
};

struct opt_list {
	char **v;                 /* pointers into argv; free(v) only */
	size_t n;
};

/*
 * options_parse: argv[0] is the command's name, for the messages. An
 * argument that is not an option is the operand, stored in *operand when
 * operand is not NULL and none came before; otherwise, as an unknown
 * option, it is an error: "CMD: ..." and usage_line on stderr. Returns 0
 * or EXIT_USAGE.
 */
int options_parse(const struct opt *opts, int argc, char **argv, const char **operand,
		  const char *usage_line);

/* options_print: a line per option, "  -k, --kernel KERNEL  help", the
 * left part padded to width. */
void options_print(const struct opt *opts, int width, FILE *out);

#endif
