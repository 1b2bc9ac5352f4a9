/*
 * options.h: one option table per command, both parsed and printed by
 * --help (git's parse-options): every command (build, run, judge, compare,
 * logdiff, bisect) declares its options here once, so its help lists
 * exactly what it parses.
 *
 * A table ends with OPT_END(). Accepted forms: --name VALUE,
 * --name=VALUE, a unique prefix of a long name (--kern), -n VALUE, -nVALUE,
 * and --name / -n for flags, clustered (-Wh). An entry with OPT_HIDDEN is
 * parsed but not printed (test-only options).
 *
 * Every table also has, without declaring them:
 *   -h, --help        the command's help (struct opt_usage, then one line
 *                     per shown option) on stdout, then exit 0, as git's
 *                     parse-options does;
 *   --list-options    hidden: one line per entry, "long_name<TAB>short<TAB>
 *                     type<TAB>shown|hidden<TAB>arg<TAB>help" (short and arg
 *                     "-" when none; help included), then exit 0;
 *                     tests/t-options.sh compares it with --help, and
 *                     options_from_list() reads it back (bisect forwards
 *                     every option of run's table so).
 */
#ifndef BOOTRIG_OPTIONS_H
#define BOOTRIG_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

enum opt_type {
	OPTION_STRING,     /* value: const char **, the last one given wins */
	OPTION_FLAG,       /* value: bool *, set to true */
	OPTION_REPEAT,     /* value: struct opt_list *, every one given, in order */
	OPTION_INT,        /* value: int *, a whole number in [min, max] */
	OPTION_NUMBER,     /* value: double *, a number in [min, max) */
	OPTION_CALLBACK,   /* cb(o, value): 0, or -1 with the error printed */
};

/* opt.flags */
#define OPT_HIDDEN 1u   /* parsed, but not in --help */

struct opt {
	const char *long_name;
	char short_name;          /* 0: none */
	enum opt_type type;
	const char *arg;          /* the value's name in --help; NULL for a flag */
	const char *help;
	void *value;
	double min, max;          /* OPT_INT and OPT_NUMBER: the range */
	int (*cb)(const struct opt *o, const char *value);   /* OPT_CALLBACK */
	unsigned flags;
};

/*
 * The entries, as git writes them: short name (0: none), long name, the
 * variable, the value's name in --help, the help line. A table ends with
 * OPT_END().
 */
#define OPT_ENTRY(t, s, l, v, a, h, ...) \
	{ .long_name = (l), .short_name = (s), .type = (t), .arg = (a), .help = (h), \
	  .value = (v), __VA_ARGS__ }
#define OPT_STRING(s, l, v, a, h)  OPT_ENTRY(OPTION_STRING, s, l, v, a, h, .flags = 0)
#define OPT_FLAG(s, l, v, h)       OPT_ENTRY(OPTION_FLAG, s, l, v, NULL, h, .flags = 0)
#define OPT_REPEAT(s, l, v, a, h)  OPT_ENTRY(OPTION_REPEAT, s, l, v, a, h, .flags = 0)
#define OPT_INT(s, l, v, a, h, lo, hi) \
	OPT_ENTRY(OPTION_INT, s, l, v, a, h, .min = (lo), .max = (hi))
#define OPT_NUMBER(s, l, v, a, h, lo, hi) \
	OPT_ENTRY(OPTION_NUMBER, s, l, v, a, h, .min = (lo), .max = (hi))
#define OPT_CALLBACK(s, l, v, a, h, fn) OPT_ENTRY(OPTION_CALLBACK, s, l, v, a, h, .cb = (fn))
/* A test-only option: parsed, not shown. */
#define OPT_HIDDEN_STRING(s, l, v, a, h) \
	OPT_ENTRY(OPTION_STRING, s, l, v, a, h, .flags = OPT_HIDDEN)
#define OPT_END() { .long_name = NULL }

struct opt_list {
	char **v;                 /* pointers into argv; free(v) only */
	size_t n;
};

/* opt_list_add: one more value at the end of l. */
void opt_list_add(struct opt_list *l, const char *value);

/* A command's help around its options: the usage lines ("usage: bootrig
 * CMD ...\n", also printed after a usage error), what the command does
 * (after a blank line) and what follows the options (NULL: nothing). */
struct opt_usage {
	const char *lines;
	const char *about;
	const char *footer;
};

/*
 * options_parse: argv[0] is the command's name, for the messages. An
 * argument that is not an option is the operand, stored in *operand when
 * operand is not NULL and none came before; otherwise, as an unknown
 * option, it is an error: "CMD: ..." and the usage lines on stderr.
 * Returns 0 or EXIT_USAGE; --help and --list-options exit 0.
 */
int options_parse(const struct opt *opts, int argc, char **argv, const char **operand,
		  const struct opt_usage *usage);

/*
 * options_parse_operands: as options_parse, for commands that take any
 * number of operands, before, between or after the options; a lone "--"
 * ends the options. The operands are moved, in order, to argv[1..]; *argc
 * becomes 1 + their number. Returns 0 or EXIT_USAGE.
 */
int options_parse_operands(const struct opt *opts, int *argc, char **argv,
			   const struct opt_usage *usage);

/* options_usage_error: a usage error found after parsing: "bootrig: " and
 * the message, then the usage lines, on stderr. Returns EXIT_USAGE. */
__attribute__((format(printf, 2, 3)))
int options_usage_error(const struct opt_usage *usage, const char *fmt, ...);

/*
 * options_from_list: the table that another command's --list-options
 * printed (text): an entry per line, with its long and short name, type,
 * value name, help and OPT_HIDDEN as listed, value and cb NULL (for the
 * caller to set), then OPT_END(); *n entries. A line that does not parse
 * is left out. Its strings are the table's own: free with
 * options_list_free().
 */
struct opt *options_from_list(const char *text, size_t *n);
void options_list_free(struct opt *opts);

/* options_help: the whole --help: usage lines, about, a line per shown
 * option ("  -k, --kernel KERNEL  help", aligned), footer. */
void options_help(const struct opt *opts, const struct opt_usage *usage, FILE *out);

#endif
