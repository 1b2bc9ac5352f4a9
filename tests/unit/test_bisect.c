/*
 * test_bisect.c: the decisions of `bootrig bisect` (compare/bisect.c):
 * which end a commit's boots are like, when more boots are wanted, what is
 * skipped instead of guessed, crash mode's one-crash-is-bad rule, the boot
 * batches, how one boot counts (its verdict, its failure titles against
 * --title), when an end has its boots and when the ends get more, and the
 * chart's SVG.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"

static const double good[] = { 4.01, 4.02, 4.00, 4.01, 4.02 };
static const double bad[] = { 5.21, 5.22, 5.20, 5.21, 5.23 };

static const struct bisect_opts perf = { 5, 15, 0.01, 5, false, NULL, false };

static enum bisect_mark decide(const double *obs, size_t n, size_t nboots, char **why,
			       struct step_stats *st)
{
	struct step_boots s = { .nboots = nboots, .npass = n, .obs = obs, .nobs = n };
	return bisect_decide_metric(&perf, good, 5, bad, 5, &s, st, why);
}

static void test_like_an_end(void **state)
{
	(void)state;
	char *why;
	struct step_stats st;
	const double g[] = { 4.00, 4.02, 4.01, 4.01, 4.00 };
	assert_int_equal(decide(g, 5, 5, &why, &st), MARK_GOOD);
	assert_non_null(strstr(why, "like good"));
	assert_true(st.p_bad < 0.01 && st.p_good > 0.01);
	assert_float_equal(st.median, 4.01, 1e-9);
	free(why);
	const double b[] = { 5.22, 5.21, 5.20, 5.22, 5.21 };
	assert_int_equal(decide(b, 5, 5, &why, &st), MARK_BAD);
	assert_true(st.change_good > 25 && fabs(st.change_bad) < 1);
	free(why);
}

static void test_undecided_then_nearer_or_skip(void **state)
{
	(void)state;
	char *why;
	struct step_stats st;
	/* halfway: unlike both ends; more boots until max, then the nearer end */
	const double mid[] = { 4.80, 4.81, 4.79, 4.80, 4.80 };
	assert_int_equal(decide(mid, 5, 5, &why, &st), MARK_NONE);
	free(why);
	assert_int_equal(decide(mid, 5, 15, &why, &st), MARK_BAD);
	assert_non_null(strstr(why, "between the ends"));
	free(why);
	/* so noisy it is like both: skipped at max, never guessed */
	const double noisy[] = { 2, 7, 3, 6, 4.5 };
	assert_int_equal(decide(noisy, 5, 5, &why, &st), MARK_NONE);
	free(why);
	assert_int_equal(decide(noisy, 5, 15, &why, &st), MARK_SKIP);
	free(why);
}

static void test_unmeasurable_is_skipped(void **state)
{
	(void)state;
	char *why;
	struct step_stats st;
	/* every boot INFRA_ERROR: skipped after the first batch */
	struct step_boots s = { .nboots = 5, .ninfra = 5 };
	assert_int_equal(bisect_decide_metric(&perf, good, 5, bad, 5, &s, &st, &why), MARK_SKIP);
	assert_non_null(strstr(why, "5 INFRA_ERROR"));
	free(why);
	/* one PASS so far: more boots */
	const double one[] = { 4.01 };
	struct step_boots t = { .nboots = 5, .npass = 1, .ninfra = 4, .obs = one, .nobs = 1 };
	assert_int_equal(bisect_decide_metric(&perf, good, 5, bad, 5, &t, &st, &why), MARK_NONE);
	free(why);
}

static void test_ends(void **state)
{
	(void)state;
	char *why;
	struct step_stats st;
	assert_true(bisect_ends_differ(&perf, good, 5, bad, 5, &st, &why));
	assert_true(st.change_good > 29 && st.change_good < 31);
	free(why);
	const double near[] = { 4.05, 4.06, 4.04, 4.05, 4.06 };   /* +1 %: below 5 % */
	assert_false(bisect_ends_differ(&perf, good, 5, near, 5, &st, &why));
	free(why);
	assert_false(bisect_ends_differ(&perf, good, 1, bad, 5, &st, &why));
	free(why);
	/* compare's noise floor: +11 %, p < 0.01, but the good end's own seeds
	 * span 12 %: not a difference; +15 % is past it */
	const double wide[] = { 9.4, 9.7, 10, 10.3, 10.6 }, up11[] = { 10.5, 10.8, 11.1, 11.4, 11.7 },
		     up15[] = { 10.9, 11.2, 11.5, 11.8, 12.1 };
	assert_false(bisect_ends_differ(&perf, wide, 5, up11, 5, &st, &why));
	assert_true(st.p_good < 0.01 && st.change_good > 10.9);
	free(why);
	assert_true(bisect_ends_differ(&perf, wide, 5, up15, 5, &st, &why));
	free(why);
}

static void test_crash(void **state)
{
	(void)state;
	struct bisect_opts o = { 3, 9, 0.01, 5, true, NULL, false };
	char *why;
	struct step_boots s = { .nboots = 1, .ncrash = 1 };
	assert_int_equal(bisect_decide_crash(&o, &s, &why), MARK_BAD);
	free(why);
	s = (struct step_boots){ .nboots = 2, .npass = 2 };
	assert_int_equal(bisect_decide_crash(&o, &s, &why), MARK_NONE);
	free(why);
	s = (struct step_boots){ .nboots = 3, .npass = 2, .nfail = 1 };
	assert_int_equal(bisect_decide_crash(&o, &s, &why), MARK_GOOD);
	free(why);
	/* INFRA_ERROR boots do not count as clean */
	s = (struct step_boots){ .nboots = 3, .npass = 2, .ninfra = 1 };
	assert_int_equal(bisect_decide_crash(&o, &s, &why), MARK_NONE);
	free(why);
	s = (struct step_boots){ .nboots = 9, .npass = 2, .ninfra = 7 };
	assert_int_equal(bisect_decide_crash(&o, &s, &why), MARK_SKIP);
	free(why);
	/* --title: another crash is neither good nor bad */
	o.title = "*NULL pointer*";
	s = (struct step_boots){ .nboots = 1, .ncrash = 1, .other_title = "Kernel panic - not syncing" };
	assert_int_equal(bisect_decide_crash(&o, &s, &why), MARK_SKIP);
	free(why);
	s = (struct step_boots){ .nboots = 1, .ncrash = 1, .ntitle = 1 };
	assert_int_equal(bisect_decide_crash(&o, &s, &why), MARK_BAD);
	free(why);
}

static void test_batches(void **state)
{
	(void)state;
	struct step_boots s = { 0 };
	assert_int_equal(bisect_next_batch(&perf, &s), 5);
	s.nboots = 5;
	assert_int_equal(bisect_next_batch(&perf, &s), 5);
	s.nboots = 13;
	assert_int_equal(bisect_next_batch(&perf, &s), 2);
	s.nboots = 15;
	assert_int_equal(bisect_next_batch(&perf, &s), 0);
	struct bisect_opts c = { 3, 9, 0.01, 5, true, NULL, false };
	s = (struct step_boots){ 0 };
	assert_int_equal(bisect_next_batch(&c, &s), 1);       /* a crash decides at once */
	s.nboots = 1;
	assert_int_equal(bisect_next_batch(&c, &s), 2);       /* then the rest of the 3 */
	s = (struct step_boots){ .nboots = 3, .ninfra = 1 };
	assert_int_equal(bisect_next_batch(&c, &s), 1);
}

static void test_count_boot(void **state)
{
	(void)state;
	struct step_boots s = { 0 };
	const char *const none[] = { NULL };
	bisect_count_boot(&perf, &s, "PASS", none, 0);
	bisect_count_boot(&perf, &s, "INFRA_ERROR", none, 0);
	bisect_count_boot(&perf, &s, "PANIC", none, 0);
	bisect_count_boot(&perf, &s, "HANG", none, 0);
	bisect_count_boot(&perf, &s, "BOOT_FAIL", none, 0);
	bisect_count_boot(&perf, &s, "FAIL", none, 0);
	assert_int_equal(s.nboots, 6);
	assert_int_equal(s.npass, 1);
	assert_int_equal(s.ninfra, 1);
	assert_int_equal(s.ncrash, 3);
	assert_int_equal(s.nfail, 1);
	assert_int_equal(s.ntitle, 0);
	assert_null(s.other_title);             /* no title pattern: none named */

	struct bisect_opts o = { 3, 9, 0.01, 5, true, "*NULL pointer*", false };
	s = (struct step_boots){ 0 };
	/* a PASS, a FAIL and an INFRA_ERROR without titles name no other crash */
	bisect_count_boot(&o, &s, "PASS", none, 0);
	bisect_count_boot(&o, &s, "FAIL", none, 0);
	bisect_count_boot(&o, &s, "INFRA_ERROR", none, 0);
	assert_null(s.other_title);
	/* one matching title among others counts the boot as titled */
	const char *const both[] = { "WARNING in foo", "BUG: kernel NULL pointer dereference" };
	bisect_count_boot(&o, &s, "PANIC", both, 2);
	assert_int_equal(s.ntitle, 1);
	assert_null(s.other_title);
	/* the first other title is kept (a copy: the caller's may go) */
	char title[] = "Kernel panic - not syncing: VFS";
	const char *const other[] = { title };
	bisect_count_boot(&o, &s, "PANIC", other, 1);
	title[0] = 'X';
	const char *const later[] = { "general protection fault" };
	bisect_count_boot(&o, &s, "PANIC", later, 1);
	assert_string_equal(s.other_title, "Kernel panic - not syncing: VFS");
	assert_int_equal(s.ntitle, 1);
	assert_int_equal(s.ncrash, 3);
	/* a crash without any title is named by its verdict */
	s = (struct step_boots){ 0 };
	bisect_count_boot(&o, &s, "HANG", none, 0);
	assert_string_equal(s.other_title, "HANG");
	char *why;
	assert_int_equal(bisect_decide_crash(&o, &s, &why), MARK_SKIP);
	assert_non_null(strstr(why, "HANG"));
	free(why);

	/* following the bad end's title: the same string, not a pattern (a
	 * title's brackets and stars are its text), and another crash is no
	 * match but a skip */
	struct bisect_opts f = { 3, 9, 0.01, 5, true, "KASAN: use-after-free Read in f [x]", true };
	s = (struct step_boots){ 0 };
	const char *const same[] = { "KASAN: use-after-free Read in f [x]" };
	const char *const near[] = { "KASAN: use-after-free Read in f x" };
	bisect_count_boot(&f, &s, "PANIC", near, 1);
	assert_int_equal(s.ntitle, 0);
	assert_int_equal(bisect_decide_crash(&f, &s, &why), MARK_SKIP);
	free(why);
	bisect_count_boot(&f, &s, "PANIC", same, 1);
	assert_int_equal(s.ntitle, 1);
	assert_int_equal(bisect_decide_crash(&f, &s, &why), MARK_BAD);
	assert_string_equal(why, "1 of 2 boots crashed as 'KASAN: use-after-free Read in f [x]'");
	free(why);
	/* the same title as a pattern would not match itself */
	f.exact = false;
	s = (struct step_boots){ 0 };
	bisect_count_boot(&f, &s, "PANIC", same, 1);
	assert_int_equal(s.ntitle, 0);
}

static void test_end_and_more_boots(void **state)
{
	(void)state;
	char *why;
	/* an end wants its N boots, then is usable with 2 PASS boots */
	struct step_boots s = { .nboots = 3, .npass = 3 };
	assert_int_equal(bisect_decide_end(&perf, &s, 5, &why), MARK_NONE);
	free(why);
	s = (struct step_boots){ .nboots = 5, .npass = 2, .ninfra = 3 };
	assert_int_equal(bisect_decide_end(&perf, &s, 5, &why), MARK_GOOD);
	assert_string_equal(why, "2 PASS boots of 5");
	free(why);
	/* no PASS at all: not measurable, at once */
	s = (struct step_boots){ .nboots = 5, .ninfra = 5 };
	assert_int_equal(bisect_decide_end(&perf, &s, 5, &why), MARK_SKIP);
	free(why);
	/* one PASS: more boots, up to max_boots, then skipped */
	s = (struct step_boots){ .nboots = 5, .npass = 1, .ninfra = 4 };
	assert_int_equal(bisect_decide_end(&perf, &s, 5, &why), MARK_NONE);
	free(why);
	s = (struct step_boots){ .nboots = 15, .npass = 1, .ninfra = 14 };
	assert_int_equal(bisect_decide_end(&perf, &s, 5, &why), MARK_SKIP);
	free(why);
	/* the ends: more boots only while apart by the threshold but not yet
	 * significant, N at a time up to max_boots */
	assert_int_equal(bisect_ends_more(&perf, true, 30, 5), 0);
	assert_int_equal(bisect_ends_more(&perf, false, 7, 5), 10);
	assert_int_equal(bisect_ends_more(&perf, false, -7, 10), 15);
	assert_int_equal(bisect_ends_more(&perf, false, 7, 15), 0);
	assert_int_equal(bisect_ends_more(&perf, false, 4.9, 5), 0);
	assert_int_equal(bisect_ends_more(&perf, false, NAN, 5), 0);
	const struct bisect_opts odd = { 4, 6, 0.01, 5, false, NULL, false };
	assert_int_equal(bisect_ends_more(&odd, false, 7, 4), 6);
}

static void test_chart(void **state)
{
	(void)state;
	const double v[] = { 4.01, 4.02 };
	const char *verdicts[] = { "PASS", "PANIC" };
	struct chart_column cols[] = {
		{ "1a2b3c4d", "good", MARK_GOOD, v, 2, NULL, 0 },
		{ "<b>&", "step 1", MARK_BAD, v, 2, verdicts, 2 },
	};
	struct chart c = { "aarch64.lat_syscall.null", "us", false, cols, 2, 4.0, 5.2, 5 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bisect_chart_svg(&c, f);
	fclose(f);
	assert_non_null(strstr(buf, "<svg "));
	assert_non_null(strstr(buf, "class=\"good-mean\""));
	assert_null(strstr(buf, "<b>&"));               /* text escaped */
	assert_non_null(strstr(buf, "&lt;b&gt;&amp;"));
	size_t dots = 0;
	for (const char *p = buf; (p = strstr(p, "<circle")); p++)
		dots++;
	assert_int_equal(dots, 4);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_like_an_end),
		cmocka_unit_test(test_undecided_then_nearer_or_skip),
		cmocka_unit_test(test_unmeasurable_is_skipped),
		cmocka_unit_test(test_ends),
		cmocka_unit_test(test_crash),
		cmocka_unit_test(test_batches),
		cmocka_unit_test(test_count_boot),
		cmocka_unit_test(test_end_and_more_boots),
		cmocka_unit_test(test_chart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
