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
 * the bisection: ends, then git's steps, each built and booted until its
 * mark is made); the decisions (how a boot counts, when a commit or the
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
 * Exit status: 0 a first bad commit was found, 1 the ends do not differ,
 * 125 infrastructure (a build, boots or git) prevented an answer, 64 usage,
 * 130/143 interrupted.
 */
#include "bisect.h"
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
	  "abi.test.name:self.FUNC or :children.FUNC is FUNC's share of that metric's profile; "
	  "the matching one whose ends differ most)"),
	OPT_FLAG(0, "crash", &A.crash, "crash mode: bad is PANIC, HANG or BOOT_FAIL"),
	OPT_STRING(0, "title", &A.title, "PATTERN", "crash mode: bad is a crash titled so (fnmatch)"),
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
	"Exit 0: a first bad commit was found; 1: good and bad do not differ; 125:\n"
	"infrastructure prevented an answer; 130/143: interrupted (--continue resumes).\n",
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

/* ------------------------------------------------------------ one commit */

/* The command line for this commit: --append, then --append-file's words. */
static char *cmdline_for(const struct bisection *b)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, b->append ? b->append : "");
	if (b->append_file) {
		char *path = b->append_file[0] == '/' ? xstrdup(b->append_file)
						      : xasprintf("%s/%s", b->tree, b->append_file);
		char *text = NULL;
		size_t len;
		if (read_file(path, &text, &len) == 0) {
			for (size_t i = 0; i < len; i++)
				if (text[i] == '\n' || text[i] == '\r' || text[i] == '\t')
					text[i] = ' ';
			char *t = text;
			while (*t == ' ')
				t++;
			size_t n = strlen(t);
			while (n && t[n - 1] == ' ')
				t[--n] = '\0';
			if (*t)
				strbuf_addf(&sb, "%s%s", sb.len ? " " : "", t);
		}
		free(text), free(path);
	}
	return sb.buf;
}

/* Counts the boots below dir into s and st_boots (obs of the metric). */
static int count_boots(const struct bisection *b, const char *dir, struct step *s,
		       struct step_boots *sb)
{
	struct side side;
	memset(&side, 0, sizeof(side));
	*sb = (struct step_boots){ 0 };
	for (size_t i = 0; i < s->nverdicts; i++)
		free(s->verdicts[i]);
	free(s->verdicts), free(s->obs);
	s->verdicts = NULL, s->obs = NULL, s->nverdicts = s->nobs = 0;
	if (access(dir, F_OK) < 0)
		return 0;
	if (side_load(&side, dir, true) < 0)
		return -1;
	s->verdicts = xcalloc(side.nboots + 1, sizeof(*s->verdicts));
	const char **titles = xcalloc(side.nevents + 1, sizeof(*titles));
	for (size_t i = 0; i < side.nboots; i++) {
		const char *v = side.boots[i].verdict;
		s->verdicts[s->nverdicts++] = xstrdup(v);
		size_t nt = 0;
		for (size_t e = 0; e < side.nevents; e++)
			if (side.events[e].boot == i && event_is_kernel_failure(side.events[e].kind))
				titles[nt++] = side.events[e].title;
		bisect_count_boot(&b->o, sb, v, titles, nt);
	}
	free(titles);
	if (b->metric) {
		const char *unit;
		bool higher;
		side_values(&side, b->metric, &s->obs, &s->nobs, &unit, &higher);
	}
	sb->obs = s->obs;
	sb->nobs = s->nobs;
	s->nboots = sb->nboots, s->npass = sb->npass, s->ninfra = sb->ninfra;
	s->ncrash = sb->ncrash, s->nfail = sb->nfail;
	side_free(&side);
	return 0;
}

/* Spawns bootrig run for n more boots of image into results. Its status. */
static int boot(const struct bisection *b, const char *image, const char *results,
		const char *cmdline, size_t n, int log_fd)
{
	char **argv = xcalloc(b->nrun_opts + 16, sizeof(*argv));
	char count[32];
	snprintf(count, sizeof(count), "%zu", n);
	size_t k = 0;
	argv[k++] = b->run_program ? (char *)b->run_program : "/proc/self/exe";
	argv[k++] = "run";
	argv[k++] = "--kernel";
	argv[k++] = (char *)image;
	argv[k++] = "--kernel-tree";            /* the commit built: kernel.git */
	argv[k++] = (char *)b->tree;
	argv[k++] = "--repeat";
	argv[k++] = count;
	if (*cmdline) {
		argv[k++] = "--append";
		argv[k++] = (char *)cmdline;
	}
	for (size_t i = 0; i < b->nrun_opts; i++)
		argv[k++] = b->run_opts[i];
	argv[k++] = "-o";
	argv[k++] = (char *)results;
	argv[k] = NULL;
	int rc = bisect_spawn(argv, NULL, log_fd, NULL, true, 0);
	free(argv);
	return rc;
}

/* The end of a log file, for a message: its last line. */
static char *last_line(const char *path)
{
	char *text = NULL;
	size_t len;
	if (read_file(path, &text, &len) < 0)
		return xstrdup("");
	while (len && text[len - 1] == '\n')
		text[--len] = '\0';
	char *nl = strrchr(text, '\n');
	char *s = xstrdup(nl ? nl + 1 : text);
	free(text);
	return s;
}

enum { TEST_DONE = 0, TEST_INTERRUPTED = -1, TEST_ERROR = -2 };

static void set_why(struct step *s, char *why)
{
	free(s->why);
	s->why = why;
}

/*
 * test_commit: builds the checked-out commit s->sha, boots it and decides
 * its mark (end_boots > 0: an end, which in performance mode takes that
 * many boots and no decision; 0 for a step).
 * TEST_DONE, TEST_INTERRUPTED, or TEST_ERROR (the state dir unusable).
 */
static int test_commit(struct bisection *b, struct step *s, size_t end_boots)
{
	char *dir = xasprintf("%s/%.12s", b->dir, s->sha);
	char *results = xasprintf("%s/results", dir);
	char *blog = xasprintf("%s/build.log", dir), *rlog = xasprintf("%s/run.log", dir);
	char *image = b->image[0] == '/' ? xstrdup(b->image) : xasprintf("%s/%s", b->tree, b->image);
	int rc = TEST_DONE;
	if (mkdir_p(dir, 0755) < 0) {
		error("cannot create %s: %s", dir, strerror(errno));
		rc = TEST_ERROR;
		goto out;
	}
	fprintf(stderr, "bisect: %s %.12s %s: building\n", s->role ? s->role : "testing", s->sha,
		term_str(s->subject));
	int fd = open(blog, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	int brc = fd < 0 ? -1 : bisect_spawn(b->build, b->tree, fd, NULL, true, b->build_timeout);
	if (fd >= 0)
		close(fd);
	if (bisect_stop_signal) {
		rc = TEST_INTERRUPTED;
		goto out;
	}
	struct stat st;
	if (brc != 0 || stat(image, &st) < 0) {
		s->mark = MARK_SKIP;
		set_why(s, brc == BISECT_SPAWN_TIMED_OUT
				   ? xasprintf("the build did not end within %g s (--build-timeout), stopped: "
					       "see %.12s/build.log", b->build_timeout, s->sha)
			   : brc != 0 ? xasprintf("the build failed (exit %d): see %.12s/build.log", brc, s->sha)
				      : xasprintf("the build made no %s", b->image));
		goto out;
	}
	char *cmdline = cmdline_for(b);
	struct step_boots sb;
	fd = open(rlog, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
	for (;;) {
		if (count_boots(b, results, s, &sb) < 0) {
			s->mark = MARK_SKIP;
			set_why(s, xasprintf("its results cannot be read: see %.12s/results", s->sha));
			break;
		}
		char *why = NULL;
		if (end_boots && !b->o.crash)
			s->mark = bisect_decide_end(&b->o, &sb, end_boots, &why);
		else if (b->o.crash)
			s->mark = bisect_decide_crash(&b->o, &sb, &why);
		else
			s->mark = bisect_decide_metric(&b->o, b->ends[0].obs, b->ends[0].nobs, b->ends[1].obs,
						       b->ends[1].nobs, &sb, &s->st, &why);
		set_why(s, why);
		if (s->mark != MARK_NONE)
			break;
		size_t n = bisect_next_batch(&b->o, &sb);
		fprintf(stderr, "bisect:   %zu boot%s (%zu so far)\n", n, n == 1 ? "" : "s", sb.nboots);
		int run_rc = boot(b, image, results, cmdline, n, fd);
		if (bisect_stop_signal) {
			rc = TEST_INTERRUPTED;
			break;
		}
		if (run_rc != 0 && run_rc != 1 && run_rc != 2 && run_rc != 125) {
			char *line = last_line(rlog);
			s->mark = MARK_SKIP;
			set_why(s, xasprintf("bootrig run exited %d: %s", run_rc, line));
			free(line);
			break;
		}
	}
	if (fd >= 0)
		close(fd);
	if (!b->o.crash && s->nobs && isnan(s->st.median)) {
		struct step_stats t;
		bisect_summarize(s->obs, s->nobs, &t);
		s->st.median = t.median, s->st.spread_pct = t.spread_pct;
	}
	free(cmdline);
out:
	free(dir), free(results), free(blog), free(rlog), free(image);
	return rc;
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
 * ("abi.test.name:self.FUNC", results.h: side_values()). 0, or
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

/* Tests both ends. 0 when they differ; else EXIT_FAIL (they do not),
 * EXIT_INFRA, or EXIT_SIGINT for an interruption. */
static int test_ends(struct bisection *b, struct strbuf *git_out)
{
	const char *revs[2] = { b->good_rev, b->bad_rev };
	for (int e = 0; e < 2; e++) {
		struct step *s = &b->ends[e];
		s->role = e ? "bad end" : "good end";
		if (bisect_git_resolve(b->tree, revs[e], s->sha) < 0)
			return EXIT_INFRA;
		free(s->subject);
		s->subject = bisect_git_subject(b->tree, s->sha);
		if (bisect_git_checkout(b->tree, s->sha, git_out) < 0)
			return EXIT_INFRA;
		int rc = test_commit(b, s, b->o.boots);
		if (rc == TEST_INTERRUPTED)
			return EXIT_SIGINT;
		if (rc == TEST_ERROR)
			return EXIT_INFRA;
		/* a crash of another title than --title's: the ends do not differ on it */
		if (s->mark == MARK_SKIP && !(b->o.crash && s->ncrash)) {
			error("bisect: the %s %.12s cannot be tested: %s", s->role, s->sha, s->why);
			return EXIT_INFRA;
		}
	}
	if (b->o.crash) {
		bool differ = b->ends[0].mark == MARK_GOOD && b->ends[1].mark == MARK_BAD;
		free(b->ends_why);
		b->ends_why = xasprintf("good: %s; bad: %s", b->ends[0].why, b->ends[1].why);
		if (!differ) {
			printf("bisect: good and bad do not differ: %s\n", term_str(b->ends_why));
			return EXIT_FAIL;
		}
		return 0;
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
			count_boots(b, d, &b->ends[e], &sb);
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
			int trc = test_commit(b, s, want);
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
	set_why(g, xasprintf("the good end: %zu PASS boots of %zu", g->npass, g->nboots));
	set_why(bd, xasprintf("the bad end: %zu PASS boots of %zu; %s", bd->npass, bd->nboots, b->ends_why));
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
			b->status = rc == EXIT_FAIL ? "no-difference" : rc == EXIT_SIGINT ? "interrupted" : "infra";
			if (rc == EXIT_FAIL)
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
		int t = test_commit(b, s, 0);
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
	b->status = "infra";
	return EXIT_INFRA;
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
	b->o = (struct bisect_opts){ (size_t)n, (size_t)m, 0.01, 5, A.crash, NULL };
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
	if (rc == EXIT_PASS)
		printf("first bad commit: %s %s\n", b.first_bad, term_str(b.first_bad_subject));
	else if (b.candidates) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_add_term(&sb, b.candidates, strlen(b.candidates), TEXT_KEEP_NEWLINE);
		printf("no answer: only skipped commits are left; the first bad commit could be any of:\n%s",
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
