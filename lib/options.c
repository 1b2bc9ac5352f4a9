/*
 * options.c: parsing and printing an option table (see options.h).
 */
#include "options.h"
#include "exitcodes.h"
#include "util.h"

#include <stdbool.h>
#include <string.h>

/* The option named arg[0..len) (long) or short_name (when not 0), or NULL. */
static const struct opt *find_opt(const struct opt *opts, const char *arg, size_t len,
				  char short_name)
{
	for (const struct opt *o = opts; o->long_name; o++)
		if (short_name ? o->short_name == short_name
			       : strlen(o->long_name) == len && !strncmp(o->long_name, arg, len))
			return o;
	return NULL;
}

/* Stores value into o's variable (a string or one more of a list). */
static void store(const struct opt *o, const char *value)
{
	if (o->type == OPT_STRING) {
		*(const char **)o->value = value;
	} else {
		struct opt_list *l = o->value;
		l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
		l->v[l->n++] = (char *)value;
	}
}

int options_parse(const struct opt *opts, int argc, char **argv, const char **operand,
		  const char *usage_line)
{
	const char *cmd = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct opt *o = NULL;
		const char *value = NULL;
		if (!strncmp(a, "--", 2) && a[2]) {
			const char *eq = strchr(a + 2, '=');
			o = find_opt(opts, a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2), 0);
			value = eq ? eq + 1 : NULL;
		} else if (a[0] == '-' && a[1] && !a[2]) {
			o = find_opt(opts, NULL, 0, a[1]);
		} else if (operand && !*operand) {
			*operand = a;
			continue;
		}
		if (!o) {
			error("%s: unknown option or %sargument '%s'", cmd, operand ? "extra " : "", a);
			fputs(usage_line, stderr);
			return EXIT_USAGE;
		}
		if (o->type == OPT_FLAG) {
			if (value)
				return error("%s: --%s takes no value", cmd, o->long_name), EXIT_USAGE;
			*(bool *)o->value = true;
			continue;
		}
		if (!value) {
			if (i + 1 >= argc)
				return error("%s: --%s needs %s", cmd, o->long_name, o->arg), EXIT_USAGE;
			value = argv[++i];
		}
		store(o, value);
	}
	return 0;
}

void options_print(const struct opt *opts, int width, FILE *out)
{
	for (const struct opt *o = opts; o->long_name; o++) {
		char left[64];
		char short_part[8] = "    ";
		if (o->short_name)
			snprintf(short_part, sizeof(short_part), "-%c, ", o->short_name);
		snprintf(left, sizeof(left), "%s--%s%s%s", short_part, o->long_name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(out, "  %-*s %s\n", width, left, o->help);
	}
}
