/*
 * cmd-bisect.c: `bootrig bisect`: find the commit that made a kernel slower
 * on a metric, or made it crash, by driving `git bisect` in the user's tree
 * and booting each commit it picks.
 *
 *   bootrig bisect --tree DIR --good REV --bad REV --build ARGV... [--]
 *       --image PATH [--metric GLOB | --crash [--title PATTERN]] [--boots N]
 *       [--max-boots M] [--append-file FILE] [run options] [-o BISECT_DIR]
 *   bootrig bisect --continue [--tree DIR] [-o BISECT_DIR]
 *
 * The run options are every option of `bootrig run` but those bisect sets
 * (--kernel, --kernel-tree, --repeat, -o; --append is bisect's own): read from run's own
 * table (`bootrig run --list-options`, bisect_run_table()), so that a new
 * run option needs no edit here, checked once by run's parser
 * (bisect_run_check()) and passed on, as given, to every step's run.
 *
 * --build takes the arguments after it up to a lone "--" when one follows,
 * else up to the first of bisect's own options (so `--build make -j8 Image
 * --image arch/arm64/boot/Image` reads as it is written). It runs in DIR,
 * by argv, no shell; a build that fails is `git bisect skip`ped.
 *
 * Each step's boots are made by spawning `bootrig run` itself (the running
 * executable, by argv) into BISECT_DIR/<commit:12>/results, not by calling
 * matrix_run() in this process: run already owns the kernel loading, the
 * initramfs build, the results lock, libvirt's log routing (it re-execs),
 * and its own Ctrl-C handling (it stops its machines, keeps the boots that
 * finished and exits 130); a child of its own process group gets our
 * SIGINT/SIGTERM forwarded, and each step's results are a plain results
 * directory that `bootrig compare` reads.
 *
 * The parts: this file is the command (options, settings, the order of
 * the bisection: ends, then git's steps); bisect-commit.c one commit (built
 * and booted until its mark is made); the decisions (how a boot counts, when a commit or the
 * ends are decided, when more boots are wanted) are bisect.c's, the
 * programs and git (spawn, checkout, git bisect's marks and answers)
 * bisect-git.c's, the record (bisect.json, the table, chart.svg)
 * bisect-state.c's.
 *
 * The state is in BISECT_DIR (default: DIR's git dir/bootrig-bisect):
 * bisect.json (the settings, the ends, every step; rewritten after each
 * step), chart.svg, and per tested commit its build.log, run.log and
 * results/. A bisection interrupted by Ctrl-C or SIGTERM resets git's
 * bisection (the tree goes back to the branch it was on) and
 * `bootrig bisect --continue` starts it again from bisect.json: git is told
 * the marks already made, and a commit's boots already in its results
 * count.
 *
 * Crash mode follows one crash by its title (bisect.h): the bad end is
 * booted first, all N of its boots, and its first crash's title is the
 * one followed (--title: a pattern instead); each boot of a commit has its
 * own seed. A bisection whose ends do not tell (the bad end does not show
 * the crash, the good end is not clean of it) or that ends on skipped
 * commits is inconclusive: it lists the candidate commits and exits 125,
 * as syzbot's does; a found one says how often the bad end crashed and
 * the chance that a commit marked good was bad all the same.
 *
 * Exit status: 0 a first bad commit was found, 1 the ends do not differ
 * (performance mode), 125 inconclusive, or infrastructure (a build, boots
 * or git) prevented an answer, 64 usage, 130/143 interrupted.
 */
#include "bisect.h"
#include "bisect-commit.h"
#include "bisect-git.h"
#include "bisect-state.h"
#include "builtin.h"
#include "compare.h"
#include "exitcodes.h"
#include "options.h"
#include "results.h"
#include "textsafe.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ options */

/* What the command line says (pointers into argv). */
struct bisect_args {
	const char *tree, *good, *bad, *image, *metric, *title, *boots, *max_boots;
	const char *alpha, *threshold, *output, *append, *append_file, *build_timeout;
	const char *build_dummy, *run_program;
	bool crash, cont;
};

static struct bisect_args A;

/* Bisect's own options. The table parsed (by options_parse, but --build,
 * taken out first: split_build) and printed by --help is these, then run's
 * (make_table). */
static const struct opt bisect_own[] = {
	OPT_STRING(0, "tree", &A.tree, "DIR", "the git tree to bisect (default: .)"),
	OPT_STRING(0, "good", &A.good, "REV", "a commit without the regression"),
	OPT_STRING(0, "bad", &A.bad, "REV", "a commit with it"),
	OPT_STRING(0, "build", &A.build_dummy, "ARGV... [--]", "the build command, run in DIR without a shell: the "
	  "words up to a lone --, or else up to the next bisect option"),
	OPT_STRING(0, "build-timeout", &A.build_timeout, "S", "a build still running after S seconds "
	  "is stopped and its commit skipped (default 14400; 0: no limit)"),
	OPT_STRING(0, "image", &A.image, "PATH", "the kernel image the build leaves (relative to DIR)"),
	OPT_STRING(0, "metric", &A.metric, "GLOB", "performance: the metric (abi.test.name glob; "
	  "abi.test.name:self.FUNC or :children.FUNC is FUNC's share of that metric's profile, "
	  ":perf-stat.EVENT its perf stat counter; the matching one whose ends differ most)"),
	OPT_FLAG(0, "crash", &A.crash, "crash mode: bad is the bad end's crash, by its title (a crash "
	  "without a title: PANIC, HANG or BOOT_FAIL); another crash skips the commit"),
	OPT_STRING(0, "title", &A.title, "PATTERN", "crash mode: bad is a crash titled so (fnmatch), "
	  "not the bad end's"),
	OPT_STRING(0, "boots", &A.boots, "N", "boots per end and per commit (default 5)"),
	OPT_STRING(0, "max-boots", &A.max_boots, "M",
		   "boots of an undecided commit or pair of ends at most (default 3 x N)"),
	OPT_STRING(0, "alpha", &A.alpha, "P", "significance of Welch's t-test (default 0.01)"),
	OPT_STRING(0, "threshold", &A.threshold, "PCT", "smallest |%change| that counts (default 5)"),
	OPT_STRING(0, "append", &A.append, "ARGS", "kernel command-line arguments for every boot"),
	OPT_STRING(0, "append-file", &A.append_file, "FILE", "more arguments, read from FILE in DIR at each commit "
	  "(missing: none)"),
	OPT_STRING('o', "output", &A.output, "BISECT_DIR",
		   "the state (default: DIR's git dir/bootrig-bisect)"),
	OPT_FLAG(0, "continue", &A.cont, "resume the interrupted bisection of BISECT_DIR"),
	/* test-only: each step runs "PATH run ..." instead of this bootrig, a
	 * stand-in that boots nothing (tests/t-bisect-options.sh); not kept in
	 * bisect.json */
	OPT_HIDDEN_STRING(0, "run-program", &A.run_program, "PATH", "test-only: the program of each step's run"),
	OPT_END(),
};

static const struct opt_usage bisect_usage = {
	"usage: bootrig bisect --tree DIR --good REV --bad REV --build ARGV... [--] --image PATH\n"
	"                      [--metric GLOB | --crash [--title PATTERN]] [options] [run options]\n"
	"       bootrig bisect --continue [--tree DIR] [-o BISECT_DIR]\n",
	"Drives git bisect in DIR: builds each commit it picks, boots the image and\n"
	"marks the commit good, bad or skip (a failed build, boots that could not run).\n"
	"Every option of bootrig run (\"run:\" below) but --kernel, --kernel-tree, --repeat,\n"
	"--append and -o, which bisect sets, is passed on to each step's run.\n"
	"Exit 0: a first bad commit was found; 1: good and bad do not differ (--metric);\n"
	"125: inconclusive (the ends do not tell, or only skipped commits are left: the\n"
	"candidates listed) or infrastructure prevented an answer; 130/143: interrupted\n"
	"(--continue resumes).\n",
	NULL,
};

/* ------------------------------------------------------------ run's options */

/* Run's options that bisect sets at each step itself (and its own, which
 * take their place: --append, -o, --help). */
static const char *const run_set_here[] = { "kernel", "kernel-tree", "repeat", NULL };

static struct opt *run_table;      /* run's, as it lists them (bisect_run_table) */
static size_t nrun;
static bool *run_flags;            /* run_table[i], a flag, was given */
static struct opt *table;          /* bisect_own, then run's that are passed on */
static char **fwd;                 /* what each step's run gets: "--name" [value] */
static size_t nfwd;

static void fwd_add(char *arg)
{
	fwd = xrealloc(fwd, (nfwd + 2) * sizeof(*fwd));
	fwd[nfwd++] = arg;
	fwd[nfwd] = NULL;
}

/* A run option with a value, in the order given: passed on as it is. */
static int forward(const struct opt *o, const char *value)
{
	fwd_add(xasprintf("--%s", o->long_name));
	fwd_add(xstrdup(value));
	return 0;
}

static bool own_option(const char *name)
{
	for (const struct opt *o = bisect_own; o->long_name; o++)
		if (!strcmp(o->long_name, name))
			return true;
	return !strcmp(name, "help");
}

/*
 * make_table: the table: bisect_own, then every option of run's own table
 * (so a new run option needs no edit here) but run_set_here and the names
 * bisect owns: a value is passed on by forward(), a flag by
 * forward_flags() after parsing; a short name stays unless bisect's own
 * has it. Its help starts "run: ". 0, or EXIT_INFRA when run did not list
 * its options.
 */
static int make_table(void)
{
	if (!(run_table = bisect_run_table(&nrun)))
		return EXIT_INFRA;
	size_t nown = ARRAY_SIZE(bisect_own) - 1, k = nown;
	table = xcalloc(nown + nrun + 1, sizeof(*table));
	memcpy(table, bisect_own, nown * sizeof(*table));
	run_flags = xcalloc(nrun + 1, sizeof(*run_flags));
	for (size_t i = 0; i < nrun; i++) {
		struct opt *o = &run_table[i];
		bool skip = own_option(o->long_name);
		for (size_t s = 0; run_set_here[s]; s++)
			skip = skip || !strcmp(o->long_name, run_set_here[s]);
		if (skip)
			continue;
		char *help = xasprintf("run: %s", o->help);
		free((char *)o->help);
		o->help = help;
		for (const struct opt *b = bisect_own; b->long_name; b++)
			if (b->short_name && b->short_name == o->short_name)
				o->short_name = 0;
		table[k] = *o;
		if (o->type == OPTION_FLAG) {
			table[k].value = &run_flags[i];
		} else {
			table[k].type = OPTION_CALLBACK;
			table[k].cb = forward;
		}
		k++;
	}
	return 0;
}

/* After parsing: each run flag given, passed on. */
static void forward_flags(void)
{
	for (size_t i = 0; i < nrun; i++)
		if (run_flags[i])
			fwd_add(xasprintf("--%s", run_table[i].long_name));
}

static void free_table(void)
{
	for (size_t i = 0; i < nfwd; i++)
		free(fwd[i]);
	free(fwd), free(table), free(run_flags);
	options_list_free(run_table);
	fwd = NULL, nfwd = 0, table = NULL, run_flags = NULL, run_table = NULL;
}

/* Is a one of the table's options (--name or --name=...), or -o, -j, -h?
 * (A --build's words end at one: split_build.) */
static bool is_bisect_option(const char *a)
{
	if (strncmp(a, "--", 2) || !a[2])
		return !strcmp(a, "-o") || !strcmp(a, "-j") || !strcmp(a, "-h");
	size_t len = strcspn(a + 2, "=");
	if (len == 4 && !strncmp(a + 2, "help", 4))    /* every table's (options.h) */
		return true;
	for (const struct opt *o = table; o->long_name; o++)
		if (strlen(o->long_name) == len && !strncmp(o->long_name, a + 2, len))
			return true;
	return false;
}

/*
 * split_build: takes "--build ARGV..." out of argv (in place) into *build
 * (a NULL-terminated copy of the pointers). 0, or EXIT_USAGE.
 */
static int split_build(int *argc, char **argv, char ***build, size_t *nbuild)
{
	int i = 1;
	while (i < *argc && strcmp(argv[i], "--build"))
		i++;
	if (i >= *argc)
		return 0;
	int end = i + 1;
	bool dashdash = false;
	for (int k = i + 1; k < *argc; k++)
		if (!strcmp(argv[k], "--")) {
			end = k;
			dashdash = true;
			break;
		}
	if (!dashdash)
		while (end < *argc && !is_bisect_option(argv[end]))
			end++;
	*nbuild = (size_t)(end - i - 1);
	if (!*nbuild)
		return error("bisect: --build needs a command"), EXIT_USAGE;
	*build = xcalloc(*nbuild + 1, sizeof(**build));
	memcpy(*build, argv + i + 1, *nbuild * sizeof(**build));
	int skip = end - i + (dashdash ? 1 : 0);
	memmove(argv + i, argv + i + skip, (size_t)(*argc - i - skip) * sizeof(*argv));
	*argc -= skip;
	return 0;
}

/* ------------------------------------------------------------ the ends */

/*
 * consider: metric id with the good end's observations g[ng], against the
 * bad end bad: made the bisection's metric when it matches the glob and
 * differs more than the best so far (a significant difference first).
 */
static void consider(struct bisection *b, const char *id, const double *g, size_t ng,
		     const struct side *bad, double *best, bool *best_sig)
{
	double *o;
	size_t no;
	const char *unit;
	bool higher;
	if (fnmatch(b->glob, id, 0) || !side_values(bad, id, &o, &no, &unit, &higher))
		return;
	struct step_stats st;
	char *why = NULL;
	bool sig = bisect_ends_differ(&b->o, g, ng, o, no, &st, &why);
	free(why), free(o);
	double ch = isnan(st.change_good) ? 0 : fabs(st.change_good);
	if ((sig && !*best_sig) || (sig == *best_sig && ch > *best)) {
		*best = ch, *best_sig = sig;
		free(b->metric), free(b->unit);
		b->metric = xstrdup(id);
		b->unit = xstrdup(unit);
		b->higher_better = higher;
	}
}

/*
 * pick_metric: performance mode, after the ends' boots: the metric that
 * --metric's glob selects whose ends differ most (by |%change|, among the
 * significant ones; else the largest change, for the message). A glob
 * with a ':' also matches the functions' shares of the metrics' profiles
 * ("abi.test.name:self.FUNC", results.h: side_values()); the perf stat
 * counters ("abi.test.name:perf-stat.EVENT") only a glob with
 * ":perf-stat." selects (else "x86_64.*" could follow page faults). 0, or
 * EXIT_USAGE when none matches.
 */
static int pick_metric(struct bisection *b)
{
	struct side g, bad;
	memset(&g, 0, sizeof(g)), memset(&bad, 0, sizeof(bad));
	char *gd = xasprintf("%s/%.12s/results", b->dir, b->ends[0].sha);
	char *bd = xasprintf("%s/%.12s/results", b->dir, b->ends[1].sha);
	int rc = side_load(&g, gd, true) < 0 || side_load(&bad, bd, true) < 0 ? EXIT_INFRA : 0;
	double best = -1;
	bool best_sig = false;
	for (size_t m = 0; !rc && m < g.nmetrics; m++) {
		const struct metric_series *ms = &g.metrics[m];
		if (strstr(ms->name, PERF_STAT_MARK) && !strstr(b->glob, PERF_STAT_MARK))
			continue;       /* a counter only by a glob that names one */
		char id[512];
		snprintf(id, sizeof(id), "%s.%s.%s", ms->abi, ms->test, ms->name);
		consider(b, id, ms->obs, ms->n, &bad, &best, &best_sig);
	}
	for (size_t m = 0; !rc && strchr(b->glob, ':') && m < g.nprofiles; m++) {
		const struct profile_series *p = &g.profiles[m];
		double *v = xcalloc(p->nboots + 1, sizeof(*v));
		for (size_t f = 0; f < p->nfns; f++)
			for (int k = 0; k < 2; k++) {
				char *id = xasprintf("%s.%s.%s:%s.%s", p->abi, p->test, p->name,
						     k ? "children" : "self", p->fns[f].name);
				profile_fn_values(p, &p->fns[f], k, 0.5, v);
				consider(b, id, v, p->nboots, &bad, &best, &best_sig);
				free(id);
			}
		free(v);
	}
	if (!rc && !b->metric)
		rc = (error("bisect: no metric of both ends matches '%s'", b->glob), EXIT_USAGE);
	side_free(&g), side_free(&bad);
	free(gd), free(bd);
	return rc;
}

/* Resolves end e (0 good, 1 bad), checks it out and tests it. 0; EXIT_SIGINT
 * interrupted; EXIT_INFRA when git cannot, or the end cannot be tested (a
 * skip that is not crash mode's crash of another title). */
static int test_end(struct bisection *b, int e, struct strbuf *git_out)
{
	struct step *s = &b->ends[e];
	s->role = e ? "bad end" : "good end";
	if (bisect_git_resolve(b->tree, e ? b->bad_rev : b->good_rev, s->sha) < 0)
		return EXIT_INFRA;
	free(s->subject);
	s->subject = bisect_git_subject(b->tree, s->sha);
	if (bisect_git_checkout(b->tree, s->sha, git_out) < 0)
		return EXIT_INFRA;
	int rc = bisect_test_commit(b, s, b->o.boots);
	if (rc != TEST_DONE)
		return rc == TEST_INTERRUPTED ? EXIT_SIGINT : EXIT_INFRA;
	if (s->mark == MARK_SKIP && !(b->o.crash && (s->ncrash || s->nfail))) {
		error("bisect: the %s %.12s cannot be tested: %s", s->role, s->sha, s->why);
		return EXIT_INFRA;
	}
	return 0;
}

/* Crash mode, no --title: the bisection follows the bad end's first crash
 * by its exact title (bisect.h), from now on; the bad end is counted again
 * under it. Nothing when its crash has no title (the verdicts decide). */
static void follow_bad_end(struct bisection *b)
{
	struct step *s = &b->ends[1];
	struct step_boots sb;
	char *dir = xasprintf("%s/%.12s/results", b->dir, s->sha), *title = NULL;
	if (bisect_count_boots(b, dir, s, &sb, &title) == 0 && title) {
		free(b->follow);
		b->follow = title;
		b->o.title = b->follow;
		b->o.exact = true;
		if (bisect_count_boots(b, dir, s, &sb, NULL) == 0) {
			char *why = NULL;
			s->mark = bisect_decide_crash(&b->o, &sb, &why);
			bisect_set_why(s, why);
		}
	} else {
		free(title);
	}
	free(dir);
}

/* Every commit of good..bad, newest first, "SHA SUBJECT" a line (malloc'd):
 * the candidates of a bisection whose ends do not tell. */
static char *range_commits(const struct bisection *b)
{
	struct strbuf out = STRBUF_INIT;
	char *range = xasprintf("%s..%s", b->ends[0].sha, b->ends[1].sha);
	if (bisect_git(b->tree, &out, "log", "--format=%H %s", range, NULL) != 0) {
		strbuf_release(&out);
		out.buf = NULL;
	}
	free(range);
	return out.buf;
}

/*
 * test_crash_ends: crash mode's ends, the bad one first (N boots, all of
 * them: its title and how often it shows), then the good one. 0 when the
 * bad end shows the crash and the good end is good; else the bisection is
 * inconclusive (status "inconclusive", every commit of the range its
 * candidates, EXIT_INFRA as syzbot's and git's "cannot tell"), or
 * EXIT_INFRA, EXIT_SIGINT.
 */
static int test_crash_ends(struct bisection *b, struct strbuf *git_out)
{
	for (int e = 1; e >= 0; e--) {
		int rc = test_end(b, e, git_out);
		if (rc)
			return rc;
		if (e == 1 && !b->title)
			follow_bad_end(b);
	}
	free(b->ends_why);
	b->ends_why = xasprintf("good: %s; bad: %s", b->ends[0].why, b->ends[1].why);
	if (b->ends[0].mark == MARK_GOOD && b->ends[1].mark == MARK_BAD)
		return 0;
	b->status = "inconclusive";
	free(b->candidates);
	b->candidates = range_commits(b);
	printf("bisect: inconclusive: %s\n",
	       b->ends[1].mark != MARK_BAD ? "the bad end does not show the crash"
	       : "the good end is not good");
	printf("bisect: good and bad do not differ: %s\n", term_str(b->ends_why));
	return EXIT_INFRA;
}

/* Tests both ends. 0 when they differ; else EXIT_FAIL (they do not),
 * EXIT_INFRA, or EXIT_SIGINT for an interruption. */
static int test_ends(struct bisection *b, struct strbuf *git_out)
{
	if (b->o.crash)
		return test_crash_ends(b, git_out);
	for (int e = 0; e < 2; e++) {
		int rc = test_end(b, e, git_out);
		if (rc)
			return rc;
	}
	int rc = pick_metric(b);
	if (rc)
		return rc;
	/* The ends' samples of the chosen metric. A change past the threshold
	 * that is not yet significant (a few boots, one end a little spread: a
	 * kernel's steady states a few percent apart) gets more boots of both
	 * ends, N at a time up to --max-boots, as an undecided step does. */
	size_t want = b->o.boots;
	bool differ;
	for (;;) {
		struct step_boots sb;
		for (int e = 0; e < 2; e++) {
			char *d = xasprintf("%s/%.12s/results", b->dir, b->ends[e].sha);
			bisect_count_boots(b, d, &b->ends[e], &sb, NULL);
			free(d);
			bisect_summarize(b->ends[e].obs, b->ends[e].nobs, &b->ends[e].st);
			b->ends[e].mark = e ? MARK_BAD : MARK_GOOD;
		}
		free(b->ends_why);
		differ = bisect_ends_differ(&b->o, b->ends[0].obs, b->ends[0].nobs, b->ends[1].obs,
					    b->ends[1].nobs, &b->ends_st, &b->ends_why);
		if (!(want = bisect_ends_more(&b->o, differ, b->ends_st.change_good, want)))
			break;
		fprintf(stderr, "bisect: the ends are not yet significantly apart (%s): %zu boots of each\n",
			term_str(b->ends_why), want);
		for (int e = 0; e < 2; e++) {
			struct step *s = &b->ends[e];
			if (bisect_git_checkout(b->tree, s->sha, git_out) < 0)
				return EXIT_INFRA;
			int trc = bisect_test_commit(b, s, want);
			if (trc == TEST_INTERRUPTED)
				return EXIT_SIGINT;
			if (trc == TEST_ERROR)
				return EXIT_INFRA;
			if (s->mark == MARK_SKIP) {
				error("bisect: the %s %.12s cannot be tested: %s", s->role, s->sha, s->why);
				return EXIT_INFRA;
			}
		}
	}
	struct step *g = &b->ends[0], *bd = &b->ends[1];
	bd->st.p_good = b->ends_st.p_good, bd->st.mwu_good = b->ends_st.mwu_good;
	bd->st.change_good = b->ends_st.change_good;
	bisect_set_why(g, xasprintf("the good end: %zu PASS boots of %zu", g->npass, g->nboots));
	bisect_set_why(bd, xasprintf("the bad end: %zu PASS boots of %zu; %s", bd->npass, bd->nboots, b->ends_why));
	if (!differ) {
		printf("bisect: good and bad do not differ on %s: %s\n", b->metric, term_str(b->ends_why));
		return EXIT_FAIL;
	}
	return 0;
}

/* ------------------------------------------------------------ the bisection */

/* What a git bisect command said (bisect_git_said), with the first bad
 * commit's subject when it named one. */
static int said_of(struct bisection *b, int rc, const char *out)
{
	int said = bisect_git_said(rc, out, &b->first_bad, &b->candidates);
	if (said == 1) {
		free(b->first_bad_subject);
		b->first_bad_subject = bisect_git_subject(b->tree, b->first_bad);
	}
	return said;
}

/* Marks sha in git's bisection: said_of's answer. */
static int mark(struct bisection *b, const char *sha, enum bisect_mark m, struct strbuf *out)
{
	int rc = bisect_git_mark(b->tree, sha, m, out);
	return said_of(b, rc, out->buf);
}

/*
 * bisect_loop: git's bisection from start to an answer. Returns the exit
 * status; b->status says how it ended.
 */
static int bisect_loop(struct bisection *b)
{
	struct strbuf out = STRBUF_INIT;
	int rc = 0, said = 0;
	char good[41], bad[41];
	if (bisect_git_resolve(b->tree, b->good_rev, good) < 0 || bisect_git_resolve(b->tree, b->bad_rev, bad) < 0) {
		b->status = "infra";
		return EXIT_USAGE;
	}
	int grc = bisect_git(b->tree, &out, "bisect", "start", bad, good, NULL);
	if ((said = said_of(b, grc, out.buf)) < 0) {
		b->status = "infra";
		strbuf_release(&out);
		return EXIT_INFRA;
	}
	for (size_t i = 0; i < b->nsteps && !said; i++)
		if ((said = mark(b, b->steps[i].sha, b->steps[i].mark, &out)) < 0)
			break;
	char next[41] = "";
	if (!said)
		bisect_git_head(b->tree, next, &out);
	if (said >= 0 && !b->ends_done) {
		rc = test_ends(b, &out);
		if (rc == 0) {
			b->ends_done = true;
			bisect_state_save(b);
		} else {
			if (strcmp(b->status, "inconclusive"))
				b->status = rc == EXIT_FAIL ? "no-difference"
					    : rc == EXIT_SIGINT ? "interrupted" : "infra";
			if (rc == EXIT_FAIL || !strcmp(b->status, "inconclusive"))
				b->ends_done = true;
			strbuf_release(&out);
			return rc;
		}
		if (!said && bisect_git_checkout(b->tree, next, &out) < 0)
			said = -1;
	}
	while (said == 0) {
		char head[41];
		if (bisect_git_head(b->tree, head, &out) < 0) {
			said = -1;
			break;
		}
		b->steps = xrealloc(b->steps, (b->nsteps + 1) * sizeof(*b->steps));
		struct step *s = &b->steps[b->nsteps];
		memset(s, 0, sizeof(*s));
		memcpy(s->sha, head, sizeof(s->sha));
		s->subject = bisect_git_subject(b->tree, s->sha);
		char role[32];
		snprintf(role, sizeof(role), "step %zu", b->nsteps + 1);
		s->role = role;
		int t = bisect_test_commit(b, s, 0);
		s->role = NULL;
		if (t != TEST_DONE) {
			bisect_step_free(s);
			b->status = t == TEST_INTERRUPTED ? "interrupted" : "infra";
			strbuf_release(&out);
			return t == TEST_INTERRUPTED ? EXIT_SIGINT : EXIT_INFRA;
		}
		b->nsteps++;
		fprintf(stderr, "bisect: %.12s is %s: %s\n", s->sha, bisect_mark_name(s->mark),
			term_str(s->why));
		bisect_state_save(b);
		said = mark(b, s->sha, s->mark, &out);
	}
	strbuf_release(&out);
	if (said == 1) {
		b->status = "found";
		return EXIT_PASS;
	}
	b->status = said == 2 ? "inconclusive" : "infra";   /* 2: only skipped commits left */
	return EXIT_INFRA;
}

/*
 * print_crash_odds: crash mode, an answer found: how often the bad end
 * showed the crash (k of n boots) and, when not always, the chance that a
 * commit marked good was bad all the same: each had N boots without the
 * crash, which a bad commit gives with chance (1 - k/n)^N (the bad end's
 * rate as the crash's), so that a flaky crash's answer says how sure it
 * is; a commit that showed it is bad for certain.
 */
static void print_crash_odds(const struct bisection *b)
{
	const struct step *bad = &b->ends[1];
	size_t n = bad->nboots - bad->ninfra, k = b->o.title ? bad->ntitle : bad->ncrash, good = 0;
	for (size_t i = 0; i < b->nsteps; i++)
		good += b->steps[i].mark == MARK_GOOD;
	if (!n)
		return;
	printf("crash: the bad end showed it in %zu of %zu boots", k, n);
	if (k < n && good) {
		double miss = pow(1 - (double)k / (double)n, (double)b->o.boots);
		printf("; a commit marked good had %zu boots without it, which a bad one gives with "
		       "chance %.2g (%zu commit%s marked good: more --boots makes it smaller)", b->o.boots,
		       miss, good, good == 1 ? "" : "s");
	}
	printf("\n");
}

/* A count option: 1..10000, or -1. */
static long count_opt(const char *name, const char *s, long dflt)
{
	if (!s)
		return dflt;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v < 1 || v > 10000)
		return error("bisect: --%s wants a number from 1 to 10000: '%s'", name, s), -1;
	return v;
}

static int number_opt(const char *name, const char *s, double lo, double hi, double *out)
{
	if (!s)
		return 0;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v < hi))
		return error("bisect: --%s: '%s' is not a number in [%g, %g)", name, s, lo, hi);
	*out = v;
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* The settings of a new bisection from the options. 0 or EXIT_USAGE. */
static int settings(struct bisection *b, char **build, size_t nbuild)
{
	if (!A.good || !A.bad || !nbuild || !A.image)
		return error("bisect: --good, --bad, --build and --image are required"), EXIT_USAGE;
	if (!!A.metric == A.crash)
		return error("bisect: give one of --metric GLOB or --crash"), EXIT_USAGE;
	if (A.title && !A.crash)
		return error("bisect: --title is for --crash"), EXIT_USAGE;
	long n = count_opt("boots", A.boots, 5), m = count_opt("max-boots", A.max_boots, -2);
	if (n < 0 || m == -1)
		return EXIT_USAGE;
	if (m == -2)
		m = 3 * n;
	if (m < n)
		return error("bisect: --max-boots (%ld) is below --boots (%ld)", m, n), EXIT_USAGE;
	b->o = (struct bisect_opts){ (size_t)n, (size_t)m, 0.01, 5, A.crash, NULL, false };
	if (number_opt("alpha", A.alpha, 1e-12, 1, &b->o.alpha) < 0 ||
	    number_opt("threshold", A.threshold, 0, 1e6, &b->o.threshold_pct) < 0)
		return EXIT_USAGE;
	b->build_timeout = BUILD_TIMEOUT_DEFAULT;
	if (number_opt("build-timeout", A.build_timeout, 0, 1e7, &b->build_timeout) < 0)
		return EXIT_USAGE;
	b->good_rev = xstrdup(A.good), b->bad_rev = xstrdup(A.bad), b->image = xstrdup(A.image);
	b->glob = dup_or_null(A.metric), b->title = dup_or_null(A.title), b->o.title = b->title;
	b->append = dup_or_null(A.append), b->append_file = dup_or_null(A.append_file);
	b->build = xcalloc(nbuild + 1, sizeof(*b->build));
	for (size_t i = 0; i < nbuild; i++)
		b->build[b->nbuild++] = xstrdup(build[i]);
	/* run's options, checked by run's parser once, not refused at every step */
	if (nfwd && bisect_run_check(fwd, nfwd))
		return EXIT_USAGE;
	b->run_opts = fwd ? fwd : xcalloc(1, sizeof(*b->run_opts));
	b->nrun_opts = nfwd;
	fwd = NULL, nfwd = 0;
	return 0;
}

/* The default state directory: the tree's git dir/bootrig-bisect. */
static char *default_dir(const struct bisection *b)
{
	char *dir = NULL;
	char *git_dir = bisect_git_dir(b->tree);
	if (git_dir)
		dir = xasprintf("%s/bootrig-bisect", git_dir);
	free(git_dir);
	return dir;
}

/* Does dir hold no bisection (no bisect.json)? */
static bool fresh_dir(const char *dir)
{
	char *p = xasprintf("%s/bisect.json", dir);
	bool fresh = access(p, F_OK) < 0;
	free(p);
	return fresh;
}

int cmd_bisect(int argc, char **argv)
{
	char **build = NULL;
	size_t nbuild = 0;
	memset(&A, 0, sizeof(A));
	int rc = make_table();
	if (!rc)
		rc = split_build(&argc, argv, &build, &nbuild);
	if (!rc)
		rc = options_parse(table, argc, argv, NULL, &bisect_usage);
	if (rc) {
		free(build), free_table();
		return rc;
	}
	forward_flags();
	struct bisection b;
	memset(&b, 0, sizeof(b));
	b.status = "running";
	b.run_program = A.run_program;
	b.tree = realpath(A.tree ? A.tree : ".", NULL);
	if (!b.tree) {
		error("bisect: %s: %s", A.tree ? A.tree : ".", strerror(errno));
		free(build), free_table();
		return EXIT_USAGE;
	}
	if (A.cont && (A.good || A.bad || nbuild || A.image || A.metric || A.crash || A.boots || nfwd)) {
		rc = (error("bisect --continue takes its settings from BISECT_DIR/bisect.json: give only "
			    "--tree and -o"), EXIT_USAGE);
		goto done;
	}
	if (A.output) {
		mkdir_p(A.output, 0755);
		b.dir = realpath(A.output, NULL);
		if (!b.dir) {
			rc = (error("bisect: %s: %s", A.output, strerror(errno)), EXIT_USAGE);
			goto done;
		}
	} else if (!(b.dir = default_dir(&b))) {
		rc = EXIT_USAGE;
		goto done;
	}
	if (A.cont) {
		if ((rc = bisect_state_load(&b)))
			goto done;
		/* a bootrig that was killed left git bisecting: back to the branch */
		struct strbuf out = STRBUF_INIT;
		if (bisect_git_bisecting(b.tree))
			bisect_git(b.tree, &out, "bisect", "reset", NULL);
		strbuf_release(&out);
	} else {
		if ((rc = settings(&b, build, nbuild)))
			goto done;
		if (!fresh_dir(b.dir)) {
			rc = (error("bisect: %s holds a bisection already: 'bootrig bisect --continue' "
				    "resumes an interrupted one; remove the directory (or give another -o) "
				    "to start anew", b.dir), EXIT_USAGE);
			goto done;
		}
		if (bisect_git_bisecting(b.tree)) {
			rc = (error("bisect: a git bisect is in progress in %s: git bisect reset first",
				    b.tree), EXIT_USAGE);
			goto done;
		}
		if (mkdir_p(b.dir, 0755) < 0) {
			rc = (error("cannot create %s: %s", b.dir, strerror(errno)), EXIT_INFRA);
			goto done;
		}
	}
	char *branch = bisect_git_where(b.tree);
	bisect_install_stop_handlers();
	bisect_state_save(&b);
	rc = bisect_loop(&b);
	struct strbuf out = STRBUF_INIT;
	if (bisect_git_bisecting(b.tree) && bisect_git(b.tree, &out, "bisect", "reset", NULL) != 0)
		error("git bisect reset: %s", out.buf);
	strbuf_release(&out);
	if (bisect_stop_signal) {
		rc = bisect_stop_signal == SIGTERM ? EXIT_SIGTERM : EXIT_SIGINT;
		b.status = "interrupted";
	}
	bisect_state_save(&b);
	bisect_write_chart(&b);
	bisect_print_table(&b, stdout);
	if (!b.o.crash && b.metric && b.ends_done)
		printf("metric: %s (%s, %s is better): %s\n", term_str(b.metric), term_str(b.unit),
		       b.higher_better ? "higher" : "lower", term_str(b.ends_why));
	if (b.o.crash && b.ends_done && rc == EXIT_PASS)
		print_crash_odds(&b);
	if (rc == EXIT_PASS)
		printf("first bad commit: %s %s\n", b.first_bad, term_str(b.first_bad_subject));
	else if (b.candidates) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_add_term(&sb, b.candidates, strlen(b.candidates), TEXT_KEEP_NEWLINE);
		printf("inconclusive: %s; the first bad commit could be any of:\n%s",
		       b.ends[0].mark == MARK_GOOD && b.ends[1].mark == MARK_BAD
			       ? "only skipped commits are left" : "the ends do not tell",
		       sb.buf);
		strbuf_release(&sb);
	} else if (!strcmp(b.status, "interrupted"))
		printf("interrupted: 'bootrig bisect --continue%s%s%s%s' resumes\n",
		       A.tree ? " --tree " : "", A.tree ? term_str(b.tree) : "", A.output ? " -o " : "",
		       A.output ? term_str(b.dir) : "");
	printf("chart: %s/chart.svg\njson: %s/bisect.json\n", term_str(b.dir), term_str(b.dir));
	fprintf(stderr, "bisect: %s is back on %s\n", term_str(b.tree), term_str(branch));
	free(branch);
	fflush(stdout);
done:
	bisect_release(&b);
	free(build), free_table();
	return rc;
}
