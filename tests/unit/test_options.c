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

struct args {
	const char *kernel, *operand;
	struct opt_list add;
	bool flag;
};

/* Parses the NULL-terminated words (argv[0] "cmd") into *a; the status. */
static int parse(struct args *a, bool with_operand, ...)
{
	char *argv[16] = { "cmd" };
	int argc = 1;
	va_list ap;
	va_start(ap, with_operand);
	for (char *w; argc < 15 && (w = va_arg(ap, char *));)
		argv[argc++] = w;
	va_end(ap);
	const struct opt opts[] = {
		{ "kernel", 'k', OPT_STRING, "KERNEL", "the kernel", &a->kernel },
		{ "add", 0, OPT_REPEAT, "SRC:DEST", "a file", &a->add },
		{ "flag", 'f', OPT_FLAG, NULL, "a flag", &a->flag },
		{ NULL, 0, 0, NULL, NULL, NULL },
	};
	memset(a, 0, sizeof(*a));
	return options_parse(opts, argc, argv, with_operand ? &a->operand : NULL, "usage: cmd\n");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_form),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_operand),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
