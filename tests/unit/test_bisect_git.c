/*
 * test_bisect_git.c: what `bootrig bisect` runs (compare/bisect-git.c),
 * against the real git in a throw-away repository made here (eight
 * commits, the fifth the first bad one): a rev and its subject, checkout,
 * a whole `git bisect` driven to its first bad commit, only skipped
 * commits left (the candidates), the bisection's state and reset; and the
 * spawner: its capture, exit status, directory, start failure and time
 * limit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisect-git.h"
#include "exitcodes.h"
#include "util.h"

#define NCOMMITS 8
#define FIRST_BAD 5     /* commits 5.. have "bad" in the file */

static char tree[64];
static char shas[NCOMMITS][41];

/* git in the tree, which must exit 0. */
#define GIT(...) assert_int_equal(bisect_git(tree, &out, __VA_ARGS__, NULL), 0)

static int make_repo(void **state)
{
	(void)state;
	/* no user's or system's configuration; a fixed identity */
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_AUTHOR_NAME", "t", 1), setenv("GIT_AUTHOR_EMAIL", "t@example.org", 1);
	setenv("GIT_COMMITTER_NAME", "t", 1), setenv("GIT_COMMITTER_EMAIL", "t@example.org", 1);
	snprintf(tree, sizeof(tree), "/tmp/test_bisect_git.XXXXXX");
	if (!mkdtemp(tree))
		return -1;
	struct strbuf out = STRBUF_INIT;
	if (bisect_git(tree, &out, "init", "-q", "-b", "trunk", NULL) != 0)
		return fprintf(stderr, "git init: %s\n", out.buf), strbuf_release(&out), -1;
	for (int i = 0; i < NCOMMITS; i++) {
		char *path = xasprintf("%s/state", tree), msg[32];
		const char *text = i >= FIRST_BAD ? "bad\n" : "good\n";
		char *body = xasprintf("%s%d\n", text, i);
		int rc = write_file_atomic(path, body, strlen(body));
		snprintf(msg, sizeof(msg), "commit %d", i);
		if (rc == 0)
			rc = bisect_git(tree, &out, "add", "state", NULL);
		if (rc == 0)
			rc = bisect_git(tree, &out, "commit", "-q", "-m", msg, NULL);
		if (rc == 0)
			rc = bisect_git_head(tree, shas[i], &out);
		free(path), free(body);
		if (rc != 0)
			return fprintf(stderr, "commit %d: %s\n", i, out.buf), strbuf_release(&out), -1;
	}
	strbuf_release(&out);
	return 0;
}

static int remove_repo(void **state)
{
	(void)state;
	char *argv[] = { "rm", "-rf", tree, NULL };
	return bisect_spawn(argv, NULL, -1, NULL, false, 0);
}

/* Is the checked-out commit bad (its file says so)? */
static bool checked_out_bad(void)
{
	char *path = xasprintf("%s/state", tree), *text = NULL;
	size_t len;
	assert_int_equal(read_file(path, &text, &len), 0);
	bool bad = !strncmp(text, "bad", 3);
	free(path), free(text);
	return bad;
}

static void test_revs(void **state)
{
	(void)state;
	char sha[41];
	assert_int_equal(bisect_git_resolve(tree, "HEAD~2", sha), 0);
	assert_string_equal(sha, shas[NCOMMITS - 3]);
	assert_int_equal(bisect_git_resolve(tree, shas[1], sha), 0);
	assert_string_equal(sha, shas[1]);
	assert_int_equal(bisect_git_resolve(tree, "no-such-rev", sha), -1);
	char *subject = bisect_git_subject(tree, shas[3]);
	assert_string_equal(subject, "commit 3");
	free(subject);
	char *where = bisect_git_where(tree);
	assert_string_equal(where, "trunk");
	free(where);
	char *dir = bisect_git_dir(tree);
	assert_non_null(dir);
	char *want = xasprintf("%s/.git", tree);
	char *real_want = realpath(want, NULL);
	assert_string_equal(dir, real_want);
	free(dir), free(want), free(real_want);
	assert_null(bisect_git_dir("/"));       /* not a git tree: NULL, said */
}

static void test_checkout(void **state)
{
	(void)state;
	struct strbuf out = STRBUF_INIT;
	char head[41];
	assert_int_equal(bisect_git_checkout(tree, shas[2], &out), 0);
	assert_int_equal(bisect_git_head(tree, head, &out), 0);
	assert_string_equal(head, shas[2]);
	assert_false(checked_out_bad());
	char *where = bisect_git_where(tree);   /* detached: the short commit */
	assert_int_equal(strncmp(where, shas[2], strlen(where)), 0);
	free(where);
	assert_int_equal(bisect_git_checkout(tree, "no-such-rev", &out), -1);
	GIT("checkout", "-q", "trunk");
	strbuf_release(&out);
}

static void test_bisect_to_first_bad(void **state)
{
	(void)state;
	struct strbuf out = STRBUF_INIT;
	char *first_bad = NULL, *candidates = NULL;
	assert_false(bisect_git_bisecting(tree));
	int rc = bisect_git(tree, &out, "bisect", "start", shas[NCOMMITS - 1], shas[0], NULL);
	int said = bisect_git_said(rc, out.buf, &first_bad, &candidates);
	assert_int_equal(said, 0);
	assert_true(bisect_git_bisecting(tree));
	int steps = 0;
	while (said == 0 && steps++ < NCOMMITS) {
		char head[41];
		assert_int_equal(bisect_git_head(tree, head, &out), 0);
		enum bisect_mark m = checked_out_bad() ? MARK_BAD : MARK_GOOD;
		rc = bisect_git_mark(tree, head, m, &out);
		said = bisect_git_said(rc, out.buf, &first_bad, &candidates);
	}
	assert_int_equal(said, 1);
	assert_true(steps <= 3);                /* log2(7 commits between) */
	assert_string_equal(first_bad, shas[FIRST_BAD]);
	assert_null(candidates);
	GIT("bisect", "reset");
	assert_false(bisect_git_bisecting(tree));
	char *where = bisect_git_where(tree);   /* back on the branch */
	assert_string_equal(where, "trunk");
	free(where), free(first_bad);
	strbuf_release(&out);
}

static void test_only_skipped_left(void **state)
{
	(void)state;
	struct strbuf out = STRBUF_INIT;
	char *first_bad = NULL, *candidates = NULL;
	int rc = bisect_git(tree, &out, "bisect", "start", shas[NCOMMITS - 1], shas[0], NULL);
	int said = bisect_git_said(rc, out.buf, &first_bad, &candidates);
	for (int steps = 0; said == 0 && steps < 2 * NCOMMITS; steps++) {
		char head[41];
		assert_int_equal(bisect_git_head(tree, head, &out), 0);
		rc = bisect_git_mark(tree, head, MARK_SKIP, &out);
		said = bisect_git_said(rc, out.buf, &first_bad, &candidates);
	}
	assert_int_equal(said, 2);
	assert_null(first_bad);
	assert_non_null(candidates);
	/* every commit after the good end may be it: each is listed */
	for (int i = 1; i < NCOMMITS; i++)
		assert_non_null(strstr(candidates, shas[i]));
	assert_null(strstr(candidates, "We cannot bisect more"));
	free(candidates);
	GIT("bisect", "reset");
	strbuf_release(&out);
}

static void test_said(void **state)
{
	(void)state;
	char *first_bad = NULL, *candidates = NULL;
	const char *found = "0123456789012345678901234567890123456789 is the first bad commit\n"
			    "commit 0123456789012345678901234567890123456789\n";
	assert_int_equal(bisect_git_said(0, found, &first_bad, &candidates), 1);
	assert_string_equal(first_bad, "0123456789012345678901234567890123456789");
	/* a step: go on; a failure of git: -1 */
	assert_int_equal(bisect_git_said(0, "Bisecting: 3 revisions left to test after this\n",
					 &first_bad, &candidates), 0);
	assert_int_equal(bisect_git_said(1, "fatal: bad revision\n", &first_bad, &candidates), -1);
	/* a first-bad line too short to hold a sha is no answer */
	assert_int_equal(bisect_git_said(0, "abc is the first bad commit\n", &first_bad, &candidates), 0);
	assert_null(candidates);
	free(first_bad);
}

static void test_spawn(void **state)
{
	(void)state;
	struct strbuf out = STRBUF_INIT;
	strbuf_addstr(&out, "");
	char *echo[] = { "echo", "hello", NULL };
	assert_int_equal(bisect_spawn(echo, NULL, -1, &out, false, 0), 0);
	assert_string_equal(out.buf, "hello\n");
	strbuf_release(&out), strbuf_addstr(&out, "");
	char *pwd[] = { "pwd", "-P", NULL };
	assert_int_equal(bisect_spawn(pwd, tree, -1, &out, false, 0), 0);
	char *real = realpath(tree, NULL);
	assert_string_equal(bisect_first_line(out.buf), real);
	free(real);
	char *no[] = { "false", NULL };
	assert_int_equal(bisect_spawn(no, NULL, -1, NULL, false, 0), 1);
	strbuf_release(&out), strbuf_addstr(&out, "");
	char *missing[] = { "/nonexistent/program", NULL };
	assert_int_equal(bisect_spawn(missing, NULL, -1, &out, false, 0), EXIT_NOEXEC);
	assert_non_null(strstr(out.buf, "cannot run /nonexistent/program"));
	/* past its limit: stopped by SIGTERM, not waited for */
	char *slow[] = { "sleep", "60", NULL };
	double t0 = now_monotonic();
	assert_int_equal(bisect_spawn(slow, NULL, -1, NULL, false, 0.3), BISECT_SPAWN_TIMED_OUT);
	assert_true(now_monotonic() - t0 < 30);
	strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_revs),
		cmocka_unit_test(test_checkout),
		cmocka_unit_test(test_bisect_to_first_bad),
		cmocka_unit_test(test_only_skipped_left),
		cmocka_unit_test(test_said),
		cmocka_unit_test(test_spawn),
	};
	return cmocka_run_group_tests(tests, make_repo, remove_repo);
}
