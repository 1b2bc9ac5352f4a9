/*
 * test_result.c: result.json is written once a boot, by result_write()
 * (runner/result.c): the runner's fields, then the judge's, then a
 * backend's own section (a board's "board") under the backend's name, in
 * one file that ends in a newline and keeps '/' unescaped, as RESULTS.md
 * shows it. No backend reads it back to add to it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge.h"
#include "result.h"
#include "util.h"

/* A judged console: a kernel banner, then nothing (HANG in the kernel stage). */
static struct judge *judged(void)
{
	struct judge_limits none = { .silence = 0 };
	struct judge *j = judge_new(&none);
	const char *log = "[    0.000000] Linux version 6.1.0 (x@y) #1 SMP\n";
	judge_feed(j, log, strlen(log), 0.5);
	judge_console_ended(j, 1.0);
	judge_finish(j, 1.0);
	return j;
}

static struct result_info info_for(const char *backend)
{
	return (struct result_info){
		.kernel_path = "/boot/vmlinuz", .kernel_id = "vmlinuz-0123abcd", .kernel_arch = "arm64",
		.variant = "default", .boot = 1, .append = "console=ttyAMA0",
		.backend = backend, .target = "lab-rpi4", .accelerator = "board", .clock = "wall",
		.started = 0, .duration = 1.5,
	};
}

/* Writes result.json into a new directory; returns its text (owned). */
static char *write_and_read(struct result_info *info, const struct judge *j, char dir[64])
{
	strcpy(dir, "/tmp/test_result.XXXXXX");
	assert_non_null(mkdtemp(dir));
	assert_int_equal(result_write(dir, info, j), 0);
	char *path = xasprintf("%s/result.json", dir), *text;
	size_t len;
	assert_int_equal(read_file(path, &text, &len), 0);
	unlink(path);
	rmdir(dir);
	free(path);
	return text;
}

static void test_backend_section_written_with_the_rest(void **state)
{
	(void)state;
	struct judge *j = judged();
	struct result_info info = info_for("board");
	info.backend_section = json_object_new_object();
	json_object_object_add(info.backend_section, "serial",
			       json_object_new_string("/dev/ttyUSB0"));
	json_object_object_add(info.backend_section, "attempts", json_object_new_int(2));
	char dir[64];
	char *text = write_and_read(&info, j, dir);
	size_t len = strlen(text);
	assert_true(len > 0 && text[len - 1] == '\n');
	assert_non_null(strstr(text, "\"serial\":\"/dev/ttyUSB0\""));   /* '/' not escaped */
	json_object *o = json_tokener_parse(text), *board, *v, *verdict;
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "board", &board));
	assert_true(json_object_object_get_ex(board, "attempts", &v));
	assert_int_equal(json_object_get_int(v), 2);
	assert_true(json_object_object_get_ex(o, "verdict", &verdict));
	assert_string_equal(json_object_get_string(verdict), "HANG");
	/* the backend's section comes last, after the judge's fields and duration */
	const char *last = NULL;
	json_object_object_foreach(o, key, val) {
		(void)val;
		last = key;
	}
	assert_string_equal(last, "board");
	assert_true(strstr(text, "\"duration\"") < strstr(text, "\"board\":{"));
	json_object_put(o);
	free(text);
	judge_free(j);
}

static void test_no_backend_section(void **state)
{
	(void)state;
	struct judge *j = judged();
	struct result_info info = info_for("libvirt");
	char dir[64];
	char *text = write_and_read(&info, j, dir);
	json_object *o = json_tokener_parse(text), *v;
	assert_non_null(o);
	assert_false(json_object_object_get_ex(o, "board", &v));
	assert_false(json_object_object_get_ex(o, "libvirt", &v));
	assert_true(json_object_object_get_ex(o, "backend", &v));
	assert_string_equal(json_object_get_string(v), "libvirt");
	json_object_put(o);
	free(text);
	judge_free(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backend_section_written_with_the_rest),
		cmocka_unit_test(test_no_backend_section),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
