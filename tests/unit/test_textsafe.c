/*
 * test_textsafe.c: lib/textsafe.c: the terminal rule (what is escaped, the
 * backslash, clean text unchanged), crash-title cleaning, strict UTF-8 and
 * its repair for JSON, and the JSON text with DEL and C1 escaped.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textsafe.h"

/* s[0..n) by the terminal rule, keeping keep. */
static char *term(const char *s, size_t n, unsigned keep)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_add(&sb, "", 0);
	strbuf_add_term(&sb, s, n, keep);
	return sb.buf;
}

struct term_case {
	const char *in;
	unsigned keep;
	const char *want;
};

/* Each case renders as it should, and term_clean says whether it changed. */
static void check_cases(const struct term_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *got = term(c[i].in, strlen(c[i].in), c[i].keep);
		assert_string_equal(got, c[i].want);
		assert_int_equal(term_clean(c[i].in, strlen(c[i].in), c[i].keep),
				 !strcmp(c[i].in, c[i].want));
		free(got);
	}
}

static void test_term_escapes(void **state)
{
	(void)state;
	static const struct term_case cases[] = {
		{ "plain ASCII, (ok) 100%", 0, "plain ASCII, (ok) 100%" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7", 0,
		  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7" },
		{ "\033]0;title\007", 0, "\\x1b]0;title\\x07" },
		{ "\033]52;c;ZXZpbA==\007", 0, "\\x1b]52;c;ZXZpbA==\\x07" },
		{ "a\033[2Jb", 0, "a\\x1b[2Jb" },
		{ "\b\r\x7f", 0, "\\x08\\x0d\\x7f" },
		{ "raw \x9b" "31m", 0, "raw \\x9b31m" },                    /* 8-bit CSI */
		{ "utf8 \xc2\x9b" "31m \xc2\x9d", 0, "utf8 \\xc2\\x9b31m \\xc2\\x9d" },
		{ "\xc2\xa0nbsp", 0, "\xc2\xa0nbsp" },                      /* U+00A0 is text */
		{ "\xff\xfe", 0, "\\xff\\xfe" },
		{ "over \xc0\xaf \xe0\x80\xaf", 0, "over \\xc0\\xaf \\xe0\\x80\\xaf" },
		{ "surr \xed\xa0\x80", 0, "surr \\xed\\xa0\\x80" },
		{ "big \xf4\x90\x80\x80", 0, "big \\xf4\\x90\\x80\\x80" },
		{ "cut \xe2\x82", 0, "cut \\xe2\\x82" },
		{ "a\nb\tc", 0, "a\\x0ab\\x09c" },
		{ "a\nb\tc", TEXT_KEEP_NEWLINE, "a\nb\\x09c" },
		{ "a\nb\tc", TEXT_KEEP_NEWLINE | TEXT_KEEP_TAB, "a\nb\tc" },
	};
	check_cases(cases, ARRAY_SIZE(cases));
	char *nul = term("a\0b", 3, 0);
	assert_string_equal(nul, "a\\x00b");
	free(nul);
}

/* A backslash is doubled only where it could start an escape. */
static void test_term_backslash(void **state)
{
	(void)state;
	static const struct term_case cases[] = {
		{ "ACPI: \\_SB_.PCI0", 0, "ACPI: \\_SB_.PCI0" },
		{ "C:\\dir\\", 0, "C:\\dir\\" },
		{ "text \\x1b", 0, "text \\\\x1b" },
		{ "two \\\\ a", 0, "two \\\\\\ a" },
		{ "\\\033", 0, "\\\\\\x1b" },
		{ "\\\n", TEXT_KEEP_NEWLINE, "\\\n" },
		{ "\\\n", 0, "\\\\\\x0a" },
	};
	check_cases(cases, ARRAY_SIZE(cases));
}

static void *other_thread(void *arg)
{
	(void)arg;
	const char *a = term_str("t\033");
	return (void *)(intptr_t)!strcmp(a, "t\\x1b");
}

static void test_term_str(void **state)
{
	(void)state;
	const char *clean = "nothing to do";
	assert_ptr_equal(term_str(clean), clean);
	assert_string_equal(term_str(NULL), "");
	const char *r[TERM_RING];
	char want[TERM_RING][16];
	for (int i = 0; i < TERM_RING; i++) {
		char in[8] = { (char)('a' + i), '\033', 0 };
		r[i] = term_str(in);
		snprintf(want[i], sizeof(want[i]), "%c\\x1b", 'a' + i);
	}
	for (int i = 0; i < TERM_RING; i++)
		assert_string_equal(r[i], want[i]);
	assert_string_equal(term_strn("ab\033cd", 3), "ab\\x1b");
	pthread_t t;
	void *res;
	assert_int_equal(pthread_create(&t, NULL, other_thread, NULL), 0);
	assert_int_equal(pthread_join(t, &res), 0);
	assert_true(res != NULL);
}

static void test_clean_title(void **state)
{
	(void)state;
	char t[] = "Kernel panic - not syncing: x\0330;PWNED\007\tend \x9b\xc2\x9d\b\x7f\xff\xc3\xa9";
	text_clean_title(t);
	assert_string_equal(t, "Kernel panic - not syncing: x0;PWNED end \xc3\xa9");
	char same[] = "WARNING in foo_bar";
	text_clean_title(same);
	assert_string_equal(same, "WARNING in foo_bar");
}

static void test_utf8(void **state)
{
	(void)state;
	const unsigned char ok2[] = "\xc3\xa9", ok4[] = "\xf4\x8f\xbf\xbf";
	assert_int_equal(utf8_char_len(ok2, 2), 2);
	assert_int_equal(utf8_char_len(ok4, 4), 4);
	assert_int_equal(utf8_char_len(ok4, 3), 0);                     /* cut */
	assert_int_equal(utf8_char_len((const unsigned char *)"\xc1\xbf", 2), 0);
	assert_int_equal(utf8_char_len((const unsigned char *)"\xed\xbf\xbf", 3), 0);
	assert_int_equal(utf8_char_len((const unsigned char *)"\xee\x80\x80", 3), 3);
	assert_int_equal(utf8_char_len((const unsigned char *)"\xf5\x80\x80\x80", 4), 0);
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_utf8(&sb, "a\xff\xfe" "b\xe2\x82\xac\xe2\x82", 10);
	assert_string_equal(sb.buf, "a\xef\xbf\xbd\xef\xbf\xbd" "b\xe2\x82\xac\xef\xbf\xbd\xef\xbf\xbd");
	strbuf_release(&sb);
}

static void test_json(void **state)
{
	(void)state;
	json_object *o = json_object_new_object();
	json_object_object_add(o, "s", json_string_utf8("a\xff" "b\033\xc2\x9d\x7f", 7));
	json_object_object_add(o, "null", json_cstring_utf8(NULL));
	json_object_add_utf8_key(o, "k\xfe", json_cstring_utf8("\xc3\xa9"));
	assert_string_equal(json_object_get_string(json_object_object_get(o, "s")),
			    "a\xef\xbf\xbd" "b\033\xc2\x9d\x7f");
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_json(&sb, o, JSON_C_TO_STRING_PRETTY);
	assert_non_null(strstr(sb.buf, "\"a\xef\xbf\xbd" "b\\u001b\\u009d\\u007f\""));
	assert_non_null(strstr(sb.buf, "\"k\xef\xbf\xbd\":\"\xc3\xa9\""));
	assert_non_null(strstr(sb.buf, "\"null\":null"));
	/* The text parses back to the same values. */
	json_object *back = json_tokener_parse(sb.buf);
	assert_non_null(back);
	assert_string_equal(json_object_get_string(json_object_object_get(back, "s")),
			    "a\xef\xbf\xbd" "b\033\xc2\x9d\x7f");
	json_object_put(back);
	/* A string made without the helper is repaired when written. */
	json_object_object_add(o, "raw", json_object_new_string("x\x9by"));
	sb.len = 0;
	strbuf_add_json(&sb, o, 0);
	assert_non_null(strstr(sb.buf, "\"x\xef\xbf\xbdy\""));
	strbuf_release(&sb);
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_term_escapes),
		cmocka_unit_test(test_term_backslash),
		cmocka_unit_test(test_term_str),
		cmocka_unit_test(test_clean_title),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
