/*
 * options.c: parsing and printing an option table (see options.h).
 */
#include "options.h"
#include "exitcodes.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void opt_list_add(struct opt_list *l, const char *value)
{
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = (char *)value;
}

/* Every table's -h, --help (options.h). */
static bool help_wanted;
static const struct opt help_opt = OPT_FLAG('h', "help", &help_wanted, "this help");

/* The entry after o in opts, the implicit help last; NULL after it. */
static const struct opt *next_opt(const struct opt *opts, const struct opt *o)
{
	(void)opts;
	if (o == &help_opt)
		return NULL;
	return o[1].long_name ? o + 1 : &help_opt;
}

static const struct opt *first_opt(const struct opt *opts)
{
	return opts->long_name ? opts : &help_opt;
}

/* The option named arg[0..len): exact, else the one it is a prefix of.
 * NULL when none or (*ambiguous set) several. */
static const struct opt *find_long(const struct opt *opts, const char *arg, size_t len,
				   bool *ambiguous)
{
	const struct opt *prefix = NULL;
	int n_prefix = 0;
	*ambiguous = false;
	for (const struct opt *o = first_opt(opts); o; o = next_opt(opts, o)) {
		if (strncmp(o->long_name, arg, len))
			continue;
		if (!o->long_name[len])
			return o;
		prefix = o;
		n_prefix++;
	}
	*ambiguous = n_prefix > 1;
	return n_prefix == 1 ? prefix : NULL;
}

static const struct opt *find_short(const struct opt *opts, char c)
{
	for (const struct opt *o = first_opt(opts); o; o = next_opt(opts, o))
		if (o->short_name && o->short_name == c)
			return o;
	return NULL;
}

/* Stores value into o's variable. 0, or EXIT_USAGE after the message. */
static int store(const char *cmd, const struct opt *o, const char *value)
{
	char *end;
	errno = 0;
	switch (o->type) {
	case OPTION_STRING:
		*(const char **)o->value = value;
		return 0;
	case OPTION_REPEAT:
		opt_list_add(o->value, value);
		return 0;
	case OPTION_INT: {
		long v = strtol(value, &end, 10);
		if (errno || end == value || *end || v < o->min || v > o->max)
			return error("%s: --%s wants a whole number from %.0f to %.0f: '%s'", cmd,
				     o->long_name, o->min, o->max, value), EXIT_USAGE;
		*(int *)o->value = (int)v;
		return 0;
	}
	case OPTION_NUMBER: {
		double v = strtod(value, &end);
		if (errno || end == value || *end || !(v >= o->min && v < o->max))
			return error("%s: --%s: '%s' is not a number in [%g, %g)", cmd, o->long_name,
				     value, o->min, o->max), EXIT_USAGE;
		*(double *)o->value = v;
		return 0;
	}
	case OPTION_CALLBACK:
		return o->cb(o, value) < 0 ? EXIT_USAGE : 0;
	case OPTION_FLAG:
		break;
	}
	*(bool *)o->value = true;
	return 0;
}

/* The types' names in --list-options, by enum opt_type. */
static const char *const types[] = { "string", "flag", "repeat", "int", "number", "callback" };

/* --list-options: the table, one tab-separated line per entry. */
static void list_options(const struct opt *opts)
{
	for (const struct opt *o = first_opt(opts); o; o = next_opt(opts, o))
		printf("%s\t%c\t%s\t%s\t%s\t%s\n", o->long_name, o->short_name ? o->short_name : '-',
		       types[o->type], o->flags & OPT_HIDDEN ? "hidden" : "shown",
		       o->arg ? o->arg : "-", o->help ? o->help : "");
	fflush(stdout);
	exit(EXIT_PASS);
}

/* One line of --list-options into o: true when it has the six fields, a
 * long name and a known type. */
static bool read_listed(char *line, struct opt *o)
{
	char *f[6];
	for (int i = 0; i < 6; i++) {
		f[i] = line;
		line = i < 5 ? strchr(line, '\t') : NULL;
		if (i < 5 && !line)
			return false;
		if (line)
			*line++ = '\0';
	}
	int type = -1;
	for (int t = 0; t < (int)ARRAY_SIZE(types); t++)
		if (!strcmp(f[2], types[t]))
			type = t;
	if (!*f[0] || type < 0 || strlen(f[1]) != 1)
		return false;
	*o = (struct opt){ .long_name = xstrdup(f[0]), .short_name = *f[1] == '-' ? 0 : *f[1],
			   .type = (enum opt_type)type, .arg = strcmp(f[4], "-") ? xstrdup(f[4]) : NULL,
			   .help = xstrdup(f[5]), .flags = strcmp(f[3], "hidden") ? 0 : OPT_HIDDEN };
	return true;
}

struct opt *options_from_list(const char *text, size_t *n)
{
	char *copy = xstrdup(text);
	size_t lines = 1;
	for (const char *p = copy; *p; p++)
		lines += *p == '\n';
	struct opt *opts = xcalloc(lines + 1, sizeof(*opts));
	*n = 0;
	for (char *line = copy, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (read_listed(line, &opts[*n]))
			(*n)++;
	}
	free(copy);
	return opts;
}

void options_list_free(struct opt *opts)
{
	for (struct opt *o = opts; o && o->long_name; o++)
		free((char *)o->long_name), free((char *)o->arg), free((char *)o->help);
	free(opts);
}

/* Needs a value: the rest of the word, else the next argument. */
static int take_value(const char *cmd, const struct opt *o, const char *value, int argc,
		      char **argv, int *i)
{
	if (!value) {
		if (*i + 1 >= argc)
			return error("%s: --%s needs %s", cmd, o->long_name, o->arg), EXIT_USAGE;
		value = argv[++*i];
	}
	return store(cmd, o, value);
}

/* The parser behind both entry points: max_operands is 0, 1 or -1 (any),
 * the operands are collected into ops[] (room for argc). */
static int parse(const struct opt *opts, int argc, char **argv, int max_operands,
		 char **ops, int *n_ops, const struct opt_usage *usage)
{
	const char *cmd = argv[0];
	bool only_operands = false;
	*n_ops = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int rc = 0;
		if (!only_operands && max_operands < 0 && !strcmp(a, "--")) {
			only_operands = true;
		} else if (!only_operands && !strcmp(a, "--list-options")) {
			list_options(opts);
		} else if (!only_operands && !strncmp(a, "--", 2) && a[2]) {
			const char *eq = strchr(a + 2, '=');
			bool ambiguous;
			const struct opt *o = find_long(opts, a + 2,
							eq ? (size_t)(eq - a - 2) : strlen(a + 2),
							&ambiguous);
			if (!o) {
				error("%s: %s option '%s'", cmd, ambiguous ? "ambiguous" : "unknown", a);
				rc = EXIT_USAGE;
			} else if (o->type == OPTION_FLAG && eq) {
				rc = (error("%s: --%s takes no value", cmd, o->long_name), EXIT_USAGE);
			} else {
				rc = o->type == OPTION_FLAG ? store(cmd, o, NULL)
							 : take_value(cmd, o, eq ? eq + 1 : NULL, argc,
								      argv, &i);
			}
		} else if (!only_operands && a[0] == '-' && a[1] && a[1] != '-') {
			for (const char *p = a + 1; *p && !rc; p++) {
				const struct opt *o = find_short(opts, *p);
				if (!o) {
					error("%s: unknown option '-%c'", cmd, *p);
					rc = EXIT_USAGE;
				} else if (o->type == OPTION_FLAG) {
					rc = store(cmd, o, NULL);
				} else {
					rc = take_value(cmd, o, p[1] ? p + 1 : NULL, argc, argv, &i);
					break;
				}
			}
		} else if (max_operands < 0 || *n_ops < max_operands) {
			ops[(*n_ops)++] = argv[i];
		} else {
			error("%s: unknown option or %sargument '%s'", cmd,
			      max_operands ? "extra " : "", a);
			rc = EXIT_USAGE;
		}
		if (rc) {
			fputs(usage->lines, stderr);
			return rc;
		}
		if (help_wanted) {
			options_help(opts, usage, stdout);
			fflush(stdout);
			exit(EXIT_PASS);
		}
	}
	return 0;
}

int options_parse(const struct opt *opts, int argc, char **argv, const char **operand,
		  const struct opt_usage *usage)
{
	char *op = NULL;
	int n;
	int rc = parse(opts, argc, argv, operand ? 1 : 0, &op, &n, usage);
	if (!rc && n)
		*operand = op;
	return rc;
}

int options_parse_operands(const struct opt *opts, int *argc, char **argv,
			   const struct opt_usage *usage)
{
	char **ops = xcalloc((size_t)*argc, sizeof(*ops));
	int n;
	int rc = parse(opts, *argc, argv, -1, ops, &n, usage);
	if (!rc) {
		for (int i = 0; i < n; i++)
			argv[1 + i] = ops[i];
		*argc = 1 + n;
	}
	free(ops);
	return rc;
}

int options_usage_error(const struct opt_usage *usage, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	error("%s", msg);
	fputs(usage->lines, stderr);
	return EXIT_USAGE;
}

/* "-k, --kernel KERNEL" (or four spaces for no short name) into left. */
static void left_part(const struct opt *o, char *left, size_t size)
{
	char short_part[8] = "    ";
	if (o->short_name)
		snprintf(short_part, sizeof(short_part), "-%c, ", o->short_name);
	snprintf(left, size, "%s--%s%s%s", short_part, o->long_name, o->arg ? " " : "",
		 o->arg ? o->arg : "");
}

void options_help(const struct opt *opts, const struct opt_usage *usage, FILE *out)
{
	char left[64];
	int width = 0;
	for (const struct opt *o = first_opt(opts); o; o = next_opt(opts, o)) {
		left_part(o, left, sizeof(left));
		if (!(o->flags & OPT_HIDDEN) && (int)strlen(left) > width)
			width = (int)strlen(left);
	}
	fprintf(out, "%s\n%s\n", usage->lines, usage->about);
	for (const struct opt *o = first_opt(opts); o; o = next_opt(opts, o)) {
		if (o->flags & OPT_HIDDEN)
			continue;
		left_part(o, left, sizeof(left));
		fprintf(out, "  %-*s  %s\n", width, left, o->help);
	}
	if (usage->footer)
		fprintf(out, "\n%s", usage->footer);
}
