/*
 * test_options.c: the option table shared by build and judge (lib/options.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "options.h"

static const struct opt_usage usage = { "usage: cmd\n", "What cmd does.\n", "The end.\n" };

struct args {
	const char *kernel, *operand;
	struct opt_list add;
	bool flag;
};

/* Parses the NULL-terminated words (argv[0] "cmd") into *a; the status. */
static int parse(struct args *a, int with_operand, ...)
{
	char *argv[16] = { "cmd" };
	int argc = 1;
	va_list ap;
	va_start(ap, with_operand);
	for (char *w; argc < 15 && (w = va_arg(ap, char *));)
		argv[argc++] = w;
	va_end(ap);
	const struct opt opts[] = {
		OPT_STRING('k', "kernel", &a->kernel, "KERNEL", "the kernel"),
		OPT_REPEAT(0, "add", &a->add, "SRC:DEST", "a file"),
		OPT_FLAG('f', "flag", &a->flag, "a flag"),
		OPT_END(),
	};
	memset(a, 0, sizeof(*a));
	return options_parse(opts, argc, argv, with_operand ? &a->operand : NULL, &usage);
}

static void test_every_form(void **state)
{
	(void)state;
	struct args a;
	assert_int_equal(parse(&a, false, "--kernel", "A", "-k", "B", "--kernel=C", "-f",
			       "--add", "x:y", "--add=z:w", NULL), 0);
	assert_string_equal(a.kernel, "C");   /* the last one wins */
	assert_true(a.flag);
	assert_int_equal(a.add.n, 2);
	assert_string_equal(a.add.v[0], "x:y");
	assert_string_equal(a.add.v[1], "z:w");
	free(a.add.v);
}

static void test_usage_errors(void **state)
{
	(void)state;
	struct args a;
	assert_int_equal(parse(&a, false, "--bogus", NULL), EXIT_USAGE);
	assert_int_equal(parse(&a, false, "-x", NULL), EXIT_USAGE);
	assert_int_equal(parse(&a, false, "--", NULL), EXIT_USAGE);
	assert_int_equal(parse(&a, false, "--flag=1", NULL), EXIT_USAGE);
	assert_int_equal(parse(&a, false, "--kernel", NULL), EXIT_USAGE);
	assert_int_equal(parse(&a, false, "operand", NULL), EXIT_USAGE);
}

static void test_operand(void **state)
{
	(void)state;
	struct args a;
	assert_int_equal(parse(&a, true, "-f", "log", "--kernel", "K", NULL), 0);
	assert_string_equal(a.operand, "log");
	assert_string_equal(a.kernel, "K");
	/* "-" alone is an operand (standard input's usual name), a second is not */
	assert_int_equal(parse(&a, true, "-", NULL), 0);
	assert_string_equal(a.operand, "-");
	assert_int_equal(parse(&a, true, "one", "two", NULL), EXIT_USAGE);
}

/* The typed entries, clusters, attached values, prefixes, operands. */
struct typed {
	int n;
	double x;
	const char *s;
	bool f, g;
	int calls;
};

static int count_cb(const struct opt *o, const char *v)
{
	struct typed *t = o->value;
	t->calls++;
	return strcmp(v, "bad") ? 0 : -1;
}

static int parse_typed(struct typed *t, int *argc, char **argv)
{
	const struct opt opts[] = {
		OPT_INT('n', "number", &t->n, "N", "an int", 1, 10),
		OPT_NUMBER(0, "ratio", &t->x, "X", "a double", 0, 1),
		OPT_STRING('s', "string", &t->s, "S", "a string"),
		OPT_FLAG('f', "flag", &t->f, "a flag"),
		OPT_FLAG('g', "flag-two", &t->g, "another flag"),
		OPT_CALLBACK('c', "call", t, "V", "a callback", count_cb),
		OPT_HIDDEN_STRING(0, "secret", &t->s, "S", "a test-only string"),
		OPT_END(),
	};
	memset(t, 0, sizeof(*t));
	return options_parse_operands(opts, argc, argv, &usage);
}

static void test_typed(void **state)
{
	(void)state;
	struct typed t;
	char *ok[] = { "cmd", "A", "-n3", "--ratio=0.5", "-fgsVAL", "B", "--call", "x", "--", "-n", NULL };
	int argc = 10;
	assert_int_equal(parse_typed(&t, &argc, ok), 0);
	assert_int_equal(t.n, 3);
	assert_true(t.x == 0.5);
	assert_true(t.f && t.g);
	assert_string_equal(t.s, "VAL");
	assert_int_equal(t.calls, 1);
	assert_int_equal(argc, 4);    /* A, B and, after --, "-n" */
	assert_string_equal(ok[1], "A");
	assert_string_equal(ok[2], "B");
	assert_string_equal(ok[3], "-n");
	char *prefix[] = { "cmd", "--num", "10", "--sec=S", NULL };
	argc = 4;
	assert_int_equal(parse_typed(&t, &argc, prefix), 0);
	assert_int_equal(t.n, 10);
	assert_string_equal(t.s, "S");
	char *bad[][3] = {
		{ "cmd", "--number=0" }, { "cmd", "--number=11" }, { "cmd", "-nx" },
		{ "cmd", "--ratio=1" }, { "cmd", "--ratio=-0.1" }, { "cmd", "--ratio=" },
		{ "cmd", "--call=bad" }, { "cmd", "--fl" }, { "cmd", "-fx" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		argc = 2;
		assert_int_equal(parse_typed(&t, &argc, bad[i]), EXIT_USAGE);
	}
}

/* A hidden entry is parsed, never printed; every table has -h, --help. */
static void test_hidden_not_printed(void **state)
{
	(void)state;
	const char *s = NULL;
	const struct opt opts[] = {
		OPT_STRING(0, "shown", &s, "S", "a shown string"),
		OPT_HIDDEN_STRING(0, "secret", &s, "S", "a test-only string"),
		OPT_END(),
	};
	char *buf = NULL;
	size_t len;
	FILE *out = open_memstream(&buf, &len);
	options_help(opts, &usage, out);
	fclose(out);
	assert_string_equal(buf, "usage: cmd\n\nWhat cmd does.\n\n"
			    "      --shown S  a shown string\n"
			    "  -h, --help     this help\n"
			    "\nThe end.\n");
	assert_null(strstr(buf, "secret"));
	free(buf);
}

/* options_from_list reads back what --list-options prints: names, types,
 * value names, help and hidden; a line that is not one is left out. */
static void test_from_list(void **state)
{
	(void)state;
	size_t n;
	struct opt *o = options_from_list(
		"kernel\tk\trepeat\tshown\tKERNEL\tkernel to boot; repeatable\n"
		"no-wait\tW\tflag\tshown\t-\trefuse at once\n"
		"not a line\n"
		"bogus\t-\tnosuchtype\tshown\t-\thelp\n"
		"probe\t-\tstring\thidden\tPATH\t\n", &n);
	assert_int_equal(n, 3);
	assert_string_equal(o[0].long_name, "kernel");
	assert_int_equal(o[0].short_name, 'k');
	assert_int_equal(o[0].type, OPTION_REPEAT);
	assert_string_equal(o[0].arg, "KERNEL");
	assert_string_equal(o[0].help, "kernel to boot; repeatable");
	assert_int_equal(o[0].flags, 0);
	assert_null(o[0].value);
	assert_string_equal(o[1].long_name, "no-wait");
	assert_int_equal(o[1].type, OPTION_FLAG);
	assert_null(o[1].arg);
	assert_string_equal(o[2].long_name, "probe");
	assert_int_equal(o[2].short_name, 0);
	assert_int_equal(o[2].flags, OPT_HIDDEN);
	assert_string_equal(o[2].help, "");
	assert_null(o[3].long_name);
	options_list_free(o);
	o = options_from_list("", &n);
	assert_int_equal(n, 0);
	assert_null(o[0].long_name);
	options_list_free(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_form),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_operand),
		cmocka_unit_test(test_typed),
		cmocka_unit_test(test_hidden_not_printed),
		cmocka_unit_test(test_from_list),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
