/*
 * test_bisect_state.c: a bisection's record (compare/bisect-state.c):
 * bisect.json keeps its format (the keys --continue and readers use) and
 * loads back to what was saved (saving the loaded one writes the same
 * bytes); --continue refuses what is no bisection, an ended one and one
 * without its settings; the step table and chart.svg are made from it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisect-state.h"
#include "exitcodes.h"
#include "util.h"

static char dir_a[64], dir_b[64];

static int make_dirs(void **state)
{
	(void)state;
	snprintf(dir_a, sizeof(dir_a), "/tmp/test_bisect_state.XXXXXX");
	snprintf(dir_b, sizeof(dir_b), "/tmp/test_bisect_state.XXXXXX");
	return mkdtemp(dir_a) && mkdtemp(dir_b) ? 0 : -1;
}

static int remove_dirs(void **state)
{
	(void)state;
	const char *names[] = { "bisect.json", "chart.svg" };
	for (size_t i = 0; i < 2; i++) {
		char *a = xasprintf("%s/%s", dir_a, names[i]), *b = xasprintf("%s/%s", dir_b, names[i]);
		unlink(a), unlink(b);
		free(a), free(b);
	}
	return rmdir(dir_a) | rmdir(dir_b);
}

static char *file_text(const char *dir)
{
	char *path = xasprintf("%s/bisect.json", dir), *text = NULL;
	size_t len;
	assert_int_equal(read_file(path, &text, &len), 0);
	free(path);
	return text;
}

static void fill_step(struct step *s, const char *sha, const char *subject, enum bisect_mark m,
		      double base)
{
	snprintf(s->sha, sizeof(s->sha), "%s", sha);
	s->subject = xstrdup(subject);
	s->mark = m;
	s->why = xasprintf("why %s", subject);
	s->nboots = 3, s->npass = 2, s->ninfra = 1;
	s->obs = xcalloc(3, sizeof(*s->obs));
	s->obs[0] = base, s->obs[1] = base + 0.25;
	s->nobs = 2;
	s->verdicts = xcalloc(4, sizeof(*s->verdicts));
	s->verdicts[0] = xstrdup("PASS"), s->verdicts[1] = xstrdup("PASS");
	s->verdicts[2] = xstrdup("INFRA_ERROR");
	s->nverdicts = 3;
	s->st = (struct step_stats){ base, 1.5, 0.5, 0.001, 0.4, 0.002, 0.1, -20 };
}

/* A performance bisection after its ends and two steps. */
static void fill(struct bisection *b, const char *dir)
{
	memset(b, 0, sizeof(*b));
	b->tree = xstrdup("/src/linux"), b->dir = xstrdup(dir);
	b->good_rev = xstrdup("v6.1"), b->bad_rev = xstrdup("HEAD");
	b->image = xstrdup("arch/x86/boot/bzImage"), b->append = xstrdup("quiet");
	b->glob = xstrdup("*.lat_syscall.*");
	b->build = xcalloc(4, sizeof(*b->build));
	b->build[b->nbuild++] = xstrdup("make"), b->build[b->nbuild++] = xstrdup("-j2");
	b->run_opts = xcalloc(3, sizeof(*b->run_opts));
	b->run_opts[b->nrun_opts++] = xstrdup("--clock"), b->run_opts[b->nrun_opts++] = xstrdup("icount");
	b->o = (struct bisect_opts){ 3, 9, 0.01, 5, false, NULL, false };
	b->build_timeout = 600;
	b->metric = xstrdup("x86_64.lat_syscall.null"), b->unit = xstrdup("us");
	b->ends_done = true;
	fill_step(&b->ends[0], "1111111111111111111111111111111111111111", "good one", MARK_GOOD, 4);
	fill_step(&b->ends[1], "2222222222222222222222222222222222222222", "bad one", MARK_BAD, 5);
	b->ends[0].role = "good end", b->ends[1].role = "bad end";
	b->ends_st = (struct step_stats){ NAN, NAN, 0.0004, NAN, 0.008, NAN, 25, NAN };
	b->ends_why = xstrdup("+25.0% (p 0.0004)");
	b->steps = xcalloc(2, sizeof(*b->steps));
	fill_step(&b->steps[0], "3333333333333333333333333333333333333333", "step \"one\"", MARK_BAD, 5);
	fill_step(&b->steps[1], "4444444444444444444444444444444444444444", "step two", MARK_SKIP, 4.5);
	b->steps[1].st.p_good = NAN;            /* untested: null in the file */
	b->nsteps = 2;
	b->status = "interrupted";
}

/* fill()'s bisection saved in dir (and released). */
static void save_filled(const char *dir)
{
	struct bisection b;
	fill(&b, dir);
	assert_int_equal(bisect_state_save(&b), 0);
	bisect_release(&b);
}

/* The step table of b, as printed (malloc'd). */
static char *table_of(const struct bisection *b)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bisect_print_table(b, f);
	return fclose(f), buf;
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;
	assert_true(json_object_object_get_ex(o, key, &v));
	return v;
}

static void test_format(void **state)
{
	(void)state;
	save_filled(dir_a);
	char *text = file_text(dir_a);
	struct json_object *r = json_tokener_parse(text);
	assert_non_null(r);
	assert_string_equal(json_object_get_string(get(r, "format")), "bootrig-bisect-1");
	assert_string_equal(json_object_get_string(get(r, "status")), "interrupted");
	assert_string_equal(json_object_get_string(get(r, "mode")), "metric");
	assert_int_equal(json_object_get_int(get(r, "max_boots")), 9);
	assert_int_equal(json_object_array_length(get(r, "build")), 2);
	struct json_object *ends = get(r, "ends");
	assert_string_equal(json_object_get_string(get(get(ends, "good"), "role")), "good end");
	assert_float_equal(json_object_get_double(get(ends, "change_pct")), 25, 1e-9);
	struct json_object *steps = get(r, "steps");
	assert_int_equal(json_object_array_length(steps), 2);
	struct json_object *s1 = json_object_array_get_idx(steps, 0), *s2 = json_object_array_get_idx(steps, 1);
	assert_string_equal(json_object_get_string(get(s1, "decision")), "bad");
	assert_string_equal(json_object_get_string(get(s1, "subject")), "step \"one\"");
	assert_int_equal(json_object_array_length(get(s1, "verdicts")), 3);
	assert_int_equal(json_object_array_length(get(s1, "samples")), 2);
	assert_false(json_object_object_get_ex(s1, "role", NULL));   /* a step has none */
	assert_null(get(s2, "p_good"));                              /* NaN: null */
	assert_string_equal(json_object_get_string(get(s2, "decision")), "skip");
	assert_null(get(r, "first_bad"));
	json_object_put(r);
	free(text);
}

static void test_round_trip(void **state)
{
	(void)state;
	save_filled(dir_a);
	struct bisection l;
	memset(&l, 0, sizeof(l));
	l.dir = xstrdup(dir_a);
	l.tree = xstrdup("/elsewhere");         /* replaced by the file's */
	assert_int_equal(bisect_state_load(&l), 0);
	assert_string_equal(l.tree, "/src/linux");
	assert_int_equal(l.nsteps, 2);
	assert_int_equal(l.steps[1].mark, MARK_SKIP);
	assert_true(isnan(l.steps[1].st.p_good));
	assert_float_equal(l.steps[0].obs[1], 5.25, 1e-12);
	assert_true(l.ends_done);
	assert_float_equal(l.build_timeout, 600, 0);
	/* the loaded one saved elsewhere: the same bytes */
	l.status = "interrupted";
	free(l.dir);
	l.dir = xstrdup(dir_b);
	l.ends[0].role = "good end", l.ends[1].role = "bad end";   /* as test_ends sets them */
	assert_int_equal(bisect_state_save(&l), 0);
	char *a = file_text(dir_a), *c = file_text(dir_b);
	assert_string_equal(a, c);
	free(a), free(c);
	/* the table and the chart are made from it */
	char *buf = table_of(&l);
	assert_non_null(strstr(buf, "p(good)"));
	assert_non_null(strstr(buf, "333333333333"));
	assert_non_null(strstr(buf, "why step two"));
	free(buf);
	assert_int_equal(bisect_write_chart(&l), 0);
	char *svg_path = xasprintf("%s/chart.svg", dir_b);
	assert_int_equal(access(svg_path, F_OK), 0);
	free(svg_path);
	bisect_release(&l);
}

/* Loads dir_b/bisect.json after writing text there. */
static int load_text(const char *text)
{
	char *path = xasprintf("%s/bisect.json", dir_b);
	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	free(path);
	struct bisection l;
	memset(&l, 0, sizeof(l));
	l.dir = xstrdup(dir_b);
	int rc = bisect_state_load(&l);
	bisect_release(&l);
	return rc;
}

static void test_refused(void **state)
{
	(void)state;
	assert_int_equal(load_text("{\"format\": \"something-else\"}"), EXIT_DATAERR);
	assert_int_equal(load_text("not json"), EXIT_DATAERR);
	assert_int_equal(load_text("{\"format\": \"bootrig-bisect-1\", \"status\": \"found\"}"), EXIT_USAGE);
	assert_int_equal(load_text("{\"format\": \"bootrig-bisect-1\", \"status\": \"running\"}"),
			 EXIT_DATAERR);          /* no settings */
	struct bisection l;
	memset(&l, 0, sizeof(l));
	l.dir = xstrdup("/nonexistent/bisect");
	assert_int_equal(bisect_state_load(&l), EXIT_USAGE);
	bisect_release(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, make_dirs, remove_dirs);
}
