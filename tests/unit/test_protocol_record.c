/*
 * test_protocol_record.c: unit tests of the result protocol's strict number
 * and list parsers (judge/protocol-record.c): what a record's value may be,
 * and every near miss that must be refused. The decoder is test_protocol.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "protocol.h"

static void test_parse_numbers(void **state)
{
	uint64_t u = 7;
	int64_t i = 7;
	double v = 7;

	(void)state;
	assert_true(proto_parse_u64("0", &u));
	assert_int_equal(u, 0);
	assert_true(proto_parse_u64("18446744073709551615", &u));
	assert_true(u == UINT64_MAX);
	u = 7;
	assert_false(proto_parse_u64("18446744073709551616", &u));
	assert_false(proto_parse_u64("", &u));
	assert_false(proto_parse_u64("-1", &u));
	assert_false(proto_parse_u64("+1", &u));
	assert_false(proto_parse_u64(" 1", &u));
	assert_false(proto_parse_u64("1 ", &u));
	assert_false(proto_parse_u64("0x10", &u));
	assert_false(proto_parse_u64(NULL, &u));
	assert_int_equal(u, 7);
	assert_true(proto_parse_i64("-9223372036854775808", &i));
	assert_true(i == INT64_MIN);
	assert_false(proto_parse_i64("9223372036854775808", &i));
	assert_true(proto_parse_i64("-12", &i));
	assert_int_equal(i, -12);
	assert_false(proto_parse_i64("-", &i));

	assert_true(proto_parse_double("0.4412", &v));
	assert_true(v == 0.4412);
	assert_true(proto_parse_double("-3", &v));
	assert_true(v == -3.0);
	assert_true(proto_parse_double("14.1021", &v));
	v = 7;
	const char *bad[] = { "", "1e3", "1.", ".5", "-", "inf", "nan", "1,2", "1.2.3",
			      " 1", "1 ", "+1", "0x1p3", "1.5x" };
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		assert_false(proto_parse_double(bad[k], &v));
	assert_true(v == 7);
	char huge[400];
	memset(huge, '9', 399);
	huge[399] = '\0';
	assert_false(proto_parse_double(huge, &v));     /* not finite */
}

static void test_parse_lists(void **state)
{
	double *v;
	size_t n;

	(void)state;
	assert_true(proto_parse_list("1.5,1.6,1.4", &v, &n));
	assert_int_equal(n, 3);
	assert_true(v[0] == 1.5 && v[1] == 1.6 && v[2] == 1.4);
	free(v);
	assert_true(proto_parse_list("", &v, &n));
	assert_int_equal(n, 0);
	assert_null(v);
	assert_true(proto_parse_list("42", &v, &n));
	assert_int_equal(n, 1);
	free(v);
	const char *bad[] = { ",", "1,", ",1", "1,,2", "1,x", "1;2", "1, 2", "1e5" };
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		assert_false(proto_parse_list(bad[k], &v, &n));
		assert_null(v);
		assert_int_equal(n, 0);
	}
	char **w = proto_split_words("aarch64,arm", &n);
	assert_int_equal(n, 2);
	assert_string_equal(w[0], "aarch64");
	assert_string_equal(w[1], "arm");
	assert_null(w[2]);
	proto_free_words(w);
	w = proto_split_words("", &n);
	assert_int_equal(n, 0);
	assert_null(w[0]);
	proto_free_words(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_numbers),
		cmocka_unit_test(test_parse_lists),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
