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
 * directory that `bootrig compare` reads. The decisions are bisect.c's.
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
#include "builtin.h"
#include "compare.h"
#include "exitcodes.h"
#include "options.h"
#include "results.h"
#include "stats.h"
#include "textsafe.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <json-c/json.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define BISECT_FORMAT "bootrig-bisect-1"

/* ------------------------------------------------------------ options */

/* What the command line says (pointers into argv). */
struct bisect_args {
	const char *tree, *good, *bad, *image, *metric, *title, *boots, *max_boots;
	const char *alpha, *threshold, *output, *append, *append_file, *build_timeout;
	const char *target, *config, *suite, *board, *timeout, *clock, *accel, *jobs, *initramfs;
	const char *lava, *lava_token_file;
	struct opt_list connect;
	const char *build_dummy;
	bool crash, cont;
};

static struct bisect_args A;

/* The one table: parsed by options_parse (but --build, taken out first:
 * split_build) and printed by --help. */
static const struct opt bisect_opts_table[] = {
	OPT_STRING(0, "tree", &A.tree, "DIR", "the git tree to bisect (default: .)"),
	OPT_STRING(0, "good", &A.good, "REV", "a commit without the regression"),
	OPT_STRING(0, "bad", &A.bad, "REV", "a commit with it"),
	OPT_STRING(0, "build", &A.build_dummy, "ARGV... [--]", "the build command, run in DIR without a shell: the "
	  "words up to a lone --, or else up to the next bisect option"),
	OPT_STRING(0, "build-timeout", &A.build_timeout, "S", "a build still running after S seconds "
	  "is stopped and its commit skipped (default 14400; 0: no limit)"),
	OPT_STRING(0, "image", &A.image, "PATH", "the kernel image the build leaves (relative to DIR)"),
	OPT_STRING(0, "metric", &A.metric, "GLOB", "performance: the metric (abi.test.name glob; the matching "
	  "one whose ends differ most)"),
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
	OPT_STRING(0, "target", &A.target, "NAME", "bootrig run --target"),
	OPT_STRING(0, "config", &A.config, "FILE", "bootrig run --config"),
	OPT_STRING(0, "suite", &A.suite, "NAME", "bootrig run --suite"),
	OPT_REPEAT(0, "connect", &A.connect, "URI", "bootrig run --connect (repeatable)"),
	OPT_STRING(0, "board", &A.board, "NAME", "bootrig run --board"),
	OPT_STRING(0, "lava", &A.lava, "URL", "bootrig run --lava: boot on a LAVA lab"),
	OPT_STRING(0, "lava-token-file", &A.lava_token_file, "FILE", "bootrig run --lava-token-file"),
	OPT_STRING(0, "timeout", &A.timeout, "S", "bootrig run --timeout"),
	OPT_STRING(0, "clock", &A.clock, "wall|icount", "bootrig run --clock"),
	OPT_STRING(0, "accel", &A.accel, "auto|kvm|tcg", "bootrig run --accel"),
	OPT_STRING(0, "initramfs", &A.initramfs, "IMAGE", "bootrig run --initramfs"),
	OPT_STRING('j', "jobs", &A.jobs, "N", "bootrig run -j: boots at once"),
	OPT_STRING('o', "output", &A.output, "BISECT_DIR",
		   "the state (default: DIR's git dir/bootrig-bisect)"),
	OPT_FLAG(0, "continue", &A.cont, "resume the interrupted bisection of BISECT_DIR"),
	OPT_END(),
};

static const struct opt_usage bisect_usage = {
	"usage: bootrig bisect --tree DIR --good REV --bad REV --build ARGV... [--] --image PATH\n"
	"                      [--metric GLOB | --crash [--title PATTERN]] [options]\n"
	"       bootrig bisect --continue [--tree DIR] [-o BISECT_DIR]\n",
	"Drives git bisect in DIR: builds each commit it picks, boots the image and\n"
	"marks the commit good, bad or skip (a failed build, boots that could not run).\n"
	"Exit 0: a first bad commit was found; 1: good and bad do not differ; 125:\n"
	"infrastructure prevented an answer; 130/143: interrupted (--continue resumes).\n",
	NULL,
};

/* Is a one of bisect's options (--name or --name=...)? */
static bool is_bisect_option(const char *a)
{
	if (strncmp(a, "--", 2) || !a[2])
		return !strcmp(a, "-o") || !strcmp(a, "-j") || !strcmp(a, "-h");
	size_t len = strcspn(a + 2, "=");
	if (len == 4 && !strncmp(a + 2, "help", 4))    /* every table's (options.h) */
		return true;
	for (const struct opt *o = bisect_opts_table; o->long_name; o++)
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

/* ------------------------------------------------------------ the state */

struct step {
	char sha[41];
	char *subject;
	const char *role;               /* "good end", "bad end", NULL: a step */
	enum bisect_mark mark;
	char *why;
	size_t nboots, npass, ninfra, ncrash, nfail;
	double *obs;
	size_t nobs;
	char **verdicts;
	size_t nverdicts;
	struct step_stats st;
};

struct bisection {
	/* settings, saved in bisect.json */
	char *tree, *dir, *good_rev, *bad_rev, *image, *append, *append_file, *glob, *title;
	char **build;
	size_t nbuild;
	char **run_opts;                /* passed to bootrig run */
	size_t nrun_opts;
	struct bisect_opts o;
	double build_timeout;           /* seconds, 0: none */
	/* found */
	char *metric, *unit;            /* performance: "abi.test.name" */
	bool higher_better;
	struct step ends[2];            /* [0] good, [1] bad */
	bool ends_done;
	struct step_stats ends_st;
	char *ends_why;
	struct step *steps;
	size_t nsteps;
	const char *status;             /* running interrupted found no-difference infra */
	char *first_bad, *first_bad_subject;
	char *candidates;               /* git's "could be any of" list */
};

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	if (!stop_signal)
		stop_signal = sig;
}

static void install_stop_handlers(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* A build's default limit: 4 hours, far above a kernel build on 2 cores. */
#define BUILD_TIMEOUT_DEFAULT 14400.0
/* After SIGTERM at the limit, a group still there this long gets SIGKILL. */
#define SPAWN_KILL_GRACE 10.0
/* spawn()'s status when the limit was reached and the group stopped. */
#define SPAWN_TIMED_OUT (-2)

/*
 * spawn: argv in dir (NULL: ours), in a process group of its own, stdin
 * from /dev/null; its stdout and stderr to out_fd, or captured into *cap
 * when cap is given (then out_fd is ignored). With forward, a SIGINT or
 * SIGTERM we get meanwhile is sent on to its group. With limit > 0, a
 * program still running after limit seconds gets SIGTERM, its group too,
 * then SIGKILL SPAWN_KILL_GRACE seconds later: SPAWN_TIMED_OUT. Returns its
 * exit status (128+signal when killed), or -1 when it could not start
 * (error printed).
 */
static int spawn(char *const argv[], const char *dir, int out_fd, struct strbuf *cap, bool forward,
		 double limit)
{
	int p[2] = { -1, -1 };
	if (cap && pipe2(p, O_CLOEXEC) < 0)
		return error("pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		if (cap)
			close(p[0]), close(p[1]);
		return error("cannot fork for %s: %s", argv[0], strerror(errno));
	}
	if (pid == 0) {
		setpgid(0, 0);
		int null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, STDIN_FILENO);
		int fd = cap ? p[1] : out_fd;
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		if (dir && chdir(dir) < 0) {
			error("cannot enter %s: %s", dir, strerror(errno));
			_exit(EXIT_NOEXEC);
		}
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[0], argv);
		error("cannot run %s: %s", argv[0], strerror(errno));
		_exit(EXIT_NOEXEC);
	}
	setpgid(pid, pid);
	if (cap)
		close(p[1]);
	bool forwarded = false, eof = !cap;
	int status = 0;
	double t0 = now_monotonic(), termed_at = 0;
	for (;;) {
		if (forward && stop_signal && !forwarded) {
			kill(-pid, stop_signal);
			forwarded = true;
		}
		if (limit > 0 && !termed_at && now_monotonic() - t0 > limit) {
			kill(-pid, SIGTERM);
			termed_at = now_monotonic();
		} else if (termed_at && now_monotonic() - termed_at > SPAWN_KILL_GRACE) {
			kill(-pid, SIGKILL);
		}
		if (eof) {
			pid_t r = waitpid(pid, &status, WNOHANG);
			if (r == pid)
				break;
			if (r < 0 && errno != EINTR)
				return error("waitpid %s: %s", argv[0], strerror(errno));
			poll(NULL, 0, 100);
			continue;
		}
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };
		if (poll(&pfd, 1, 200) <= 0)
			continue;
		char buf[4096];
		ssize_t n = read(p[0], buf, sizeof(buf));
		if (n > 0)
			strbuf_add(cap, buf, (size_t)n);
		else if (n == 0 || errno != EINTR)
			eof = true, close(p[0]);
	}
	if (termed_at) {
		kill(-pid, SIGKILL);   /* what the group's leader left behind */
		return SPAWN_TIMED_OUT;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

/* git -C TREE ARGS... (NULL-terminated), output captured into *out
 * (released first). The exit status. */
static int git(const struct bisection *b, struct strbuf *out, ...)
{
	char *argv[16] = { "git", "-C", b->tree };
	int n = 3;
	va_list ap;
	va_start(ap, out);
	for (char *a; n < 15 && (a = va_arg(ap, char *));)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	strbuf_release(out);
	strbuf_addstr(out, "");
	return spawn(argv, NULL, -1, out, false, 0);
}

/* The first line of s, without its newline, in place. */
static char *first_line(char *s)
{
	s[strcspn(s, "\n")] = '\0';
	return s;
}

/* The full sha of REV's commit into sha, or -1 (error printed). */
static int resolve(const struct bisection *b, const char *rev, char sha[41])
{
	struct strbuf out = STRBUF_INIT;
	char *spec = xasprintf("%s^{commit}", rev);
	int rc = git(b, &out, "rev-parse", "--verify", "-q", spec, NULL);
	free(spec);
	if (rc == 0 && strlen(first_line(out.buf)) == 40)
		memcpy(sha, out.buf, 41);
	else
		rc = error("bisect: '%s' is not a commit in %s", rev, b->tree);
	strbuf_release(&out);
	return rc ? -1 : 0;
}

static char *subject_of(const struct bisection *b, const char *sha)
{
	struct strbuf out = STRBUF_INIT;
	git(b, &out, "log", "-1", "--format=%s", sha, NULL);
	char *s = xstrdup(first_line(out.buf));
	strbuf_release(&out);
	return s;
}

/* A JSON array of strings. */
static struct json_object *json_strings(char *const *v, size_t n)
{
	struct json_object *a = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_cstring_utf8(v[i]));
	return a;
}

static struct json_object *json_num(double v)
{
	return isnan(v) ? NULL : json_object_new_double(v);
}

static struct json_object *step_json(const struct step *s)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "commit", json_object_new_string(s->sha));
	json_object_object_add(o, "subject", json_cstring_utf8(s->subject));
	if (s->role)
		json_object_object_add(o, "role", json_object_new_string(s->role));
	json_object_object_add(o, "decision", json_object_new_string(bisect_mark_name(s->mark)));
	json_object_object_add(o, "why", json_cstring_utf8(s->why));
	json_object_object_add(o, "boots", json_object_new_int64((int64_t)s->nboots));
	json_object_object_add(o, "pass", json_object_new_int64((int64_t)s->npass));
	json_object_object_add(o, "infra_error", json_object_new_int64((int64_t)s->ninfra));
	json_object_object_add(o, "crashed", json_object_new_int64((int64_t)s->ncrash));
	json_object_object_add(o, "verdicts", json_strings(s->verdicts, s->nverdicts));
	struct json_object *obs = json_object_new_array();
	for (size_t i = 0; i < s->nobs; i++)
		json_object_array_add(obs, json_object_new_double(s->obs[i]));
	json_object_object_add(o, "samples", obs);
	json_object_object_add(o, "median", json_num(s->st.median));
	json_object_object_add(o, "spread_pct", json_num(s->st.spread_pct));
	json_object_object_add(o, "p_good", json_num(s->st.p_good));
	json_object_object_add(o, "p_bad", json_num(s->st.p_bad));
	json_object_object_add(o, "p_mwu_good", json_num(s->st.mwu_good));
	json_object_object_add(o, "p_mwu_bad", json_num(s->st.mwu_bad));
	json_object_object_add(o, "change_good_pct", json_num(s->st.change_good));
	json_object_object_add(o, "change_bad_pct", json_num(s->st.change_bad));
	return o;
}

/* bisect.json, whole or not at all. */
static int save(const struct bisection *b)
{
	struct json_object *r = json_object_new_object();
	json_object_object_add(r, "format", json_object_new_string(BISECT_FORMAT));
	json_object_object_add(r, "status", json_object_new_string(b->status));
	json_object_object_add(r, "tree", json_cstring_utf8(b->tree));
	json_object_object_add(r, "good", json_cstring_utf8(b->good_rev));
	json_object_object_add(r, "bad", json_cstring_utf8(b->bad_rev));
	json_object_object_add(r, "mode", json_object_new_string(b->o.crash ? "crash" : "metric"));
	json_object_object_add(r, "metric_glob", json_cstring_utf8(b->glob));
	json_object_object_add(r, "metric", json_cstring_utf8(b->metric));
	json_object_object_add(r, "unit", json_cstring_utf8(b->unit));
	json_object_object_add(r, "higher_better", json_object_new_boolean(b->higher_better));
	json_object_object_add(r, "title", json_cstring_utf8(b->title));
	json_object_object_add(r, "build", json_strings(b->build, b->nbuild));
	json_object_object_add(r, "image", json_cstring_utf8(b->image));
	json_object_object_add(r, "append", json_cstring_utf8(b->append));
	json_object_object_add(r, "append_file", json_cstring_utf8(b->append_file));
	json_object_object_add(r, "run_options", json_strings(b->run_opts, b->nrun_opts));
	json_object_object_add(r, "boots", json_object_new_int64((int64_t)b->o.boots));
	json_object_object_add(r, "max_boots", json_object_new_int64((int64_t)b->o.max_boots));
	json_object_object_add(r, "alpha", json_object_new_double(b->o.alpha));
	json_object_object_add(r, "threshold_pct", json_object_new_double(b->o.threshold_pct));
	json_object_object_add(r, "build_timeout_s", json_object_new_double(b->build_timeout));
	struct json_object *ends = json_object_new_object();
	if (b->ends_done) {
		json_object_object_add(ends, "good", step_json(&b->ends[0]));
		json_object_object_add(ends, "bad", step_json(&b->ends[1]));
		json_object_object_add(ends, "change_pct", json_num(b->ends_st.change_good));
		json_object_object_add(ends, "p_welch", json_num(b->ends_st.p_good));
		json_object_object_add(ends, "p_mwu", json_num(b->ends_st.mwu_good));
		json_object_object_add(ends, "why", json_cstring_utf8(b->ends_why));
	}
	json_object_object_add(r, "ends", ends);
	struct json_object *steps = json_object_new_array();
	for (size_t i = 0; i < b->nsteps; i++)
		json_object_array_add(steps, step_json(&b->steps[i]));
	json_object_object_add(r, "steps", steps);
	struct json_object *fb = NULL;
	if (b->first_bad) {
		fb = json_object_new_object();
		json_object_object_add(fb, "commit", json_object_new_string(b->first_bad));
		json_object_object_add(fb, "subject", json_cstring_utf8(b->first_bad_subject));
	}
	json_object_object_add(r, "first_bad", fb);
	json_object_object_add(r, "candidates", json_cstring_utf8(b->candidates));
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_json(&sb, r, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	strbuf_addstr(&sb, "\n");
	char *path = xasprintf("%s/bisect.json", b->dir);
	int rc = write_file_atomic(path, sb.buf, sb.len);
	free(path);
	strbuf_release(&sb);
	json_object_put(r);
	return rc;
}

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;
	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v) : NULL;
}

static char *jdup(struct json_object *o, const char *key)
{
	const char *s = jstr(o, key);
	return s ? xstrdup(s) : NULL;
}

static double jnum(struct json_object *o, const char *key)
{
	struct json_object *v;
	return json_object_object_get_ex(o, key, &v) && v ? json_object_get_double(v) : NAN;
}

static char **jstrings(struct json_object *o, const char *key, size_t *n)
{
	struct json_object *a;
	*n = 0;
	if (!json_object_object_get_ex(o, key, &a) || !json_object_is_type(a, json_type_array))
		return NULL;
	size_t len = json_object_array_length(a);
	char **v = xcalloc(len + 1, sizeof(*v));
	for (size_t i = 0; i < len; i++)
		v[(*n)++] = xstrdup(json_object_get_string(json_object_array_get_idx(a, i)));
	return v;
}

static enum bisect_mark mark_of(const char *s)
{
	return !s ? MARK_NONE : !strcmp(s, "good") ? MARK_GOOD : !strcmp(s, "bad") ? MARK_BAD
		: !strcmp(s, "skip") ? MARK_SKIP : MARK_NONE;
}

static void step_load(struct json_object *o, struct step *s)
{
	const char *sha = jstr(o, "commit");
	snprintf(s->sha, sizeof(s->sha), "%s", sha ? sha : "");
	s->subject = jdup(o, "subject");
	s->mark = mark_of(jstr(o, "decision"));
	s->why = jdup(o, "why");
	s->nboots = (size_t)jnum(o, "boots");
	s->npass = (size_t)jnum(o, "pass");
	s->ninfra = (size_t)jnum(o, "infra_error");
	s->ncrash = (size_t)jnum(o, "crashed");
	s->verdicts = jstrings(o, "verdicts", &s->nverdicts);
	struct json_object *a;
	if (json_object_object_get_ex(o, "samples", &a) && json_object_is_type(a, json_type_array)) {
		s->nobs = json_object_array_length(a);
		s->obs = xcalloc(s->nobs + 1, sizeof(*s->obs));
		for (size_t i = 0; i < s->nobs; i++)
			s->obs[i] = json_object_get_double(json_object_array_get_idx(a, i));
	}
	s->st = (struct step_stats){ jnum(o, "median"), jnum(o, "spread_pct"), jnum(o, "p_good"),
				     jnum(o, "p_bad"), jnum(o, "p_mwu_good"), jnum(o, "p_mwu_bad"),
				     jnum(o, "change_good_pct"), jnum(o, "change_bad_pct") };
}

/* Loads DIR/bisect.json for --continue. 0, or an exit status. */
static int load(struct bisection *b)
{
	char *path = xasprintf("%s/bisect.json", b->dir), *text = NULL;
	size_t len;
	if (read_file(path, &text, &len) < 0) {
		error("bisect --continue: no bisection to continue in %s (%s)", b->dir, strerror(errno));
		free(path);
		return EXIT_USAGE;
	}
	struct json_object *r = json_tokener_parse(text);
	free(text);
	const char *fmt = r ? jstr(r, "format") : NULL;
	if (!fmt || strcmp(fmt, BISECT_FORMAT)) {
		error("%s: not a bootrig bisection", path);
		free(path);
		json_object_put(r);
		return EXIT_DATAERR;
	}
	free(path);
	const char *status = jstr(r, "status");
	if (status && strcmp(status, "running") && strcmp(status, "interrupted")) {
		error("bisect --continue: the bisection in %s is over (%s)", b->dir, status);
		json_object_put(r);
		return EXIT_USAGE;
	}
	free(b->tree);
	b->tree = jdup(r, "tree");
	b->good_rev = jdup(r, "good");
	b->bad_rev = jdup(r, "bad");
	b->o.crash = status && jstr(r, "mode") && !strcmp(jstr(r, "mode"), "crash");
	b->glob = jdup(r, "metric_glob");
	b->metric = jdup(r, "metric");
	b->unit = jdup(r, "unit");
	struct json_object *v;
	b->higher_better = json_object_object_get_ex(r, "higher_better", &v) && json_object_get_boolean(v);
	b->title = jdup(r, "title");
	b->o.title = b->title;
	b->build = jstrings(r, "build", &b->nbuild);
	b->image = jdup(r, "image");
	b->append = jdup(r, "append");
	b->append_file = jdup(r, "append_file");
	b->run_opts = jstrings(r, "run_options", &b->nrun_opts);
	b->o.boots = (size_t)jnum(r, "boots");
	b->o.max_boots = (size_t)jnum(r, "max_boots");
	b->o.alpha = jnum(r, "alpha");
	b->o.threshold_pct = jnum(r, "threshold_pct");
	b->build_timeout = json_object_object_get_ex(r, "build_timeout_s", &v)
				   ? json_object_get_double(v) : BUILD_TIMEOUT_DEFAULT;
	struct json_object *ends, *e;
	if (json_object_object_get_ex(r, "ends", &ends) && json_object_object_get_ex(ends, "good", &e)) {
		step_load(e, &b->ends[0]);
		if (json_object_object_get_ex(ends, "bad", &e))
			step_load(e, &b->ends[1]);
		b->ends_st.change_good = jnum(ends, "change_pct");
		b->ends_st.p_good = jnum(ends, "p_welch");
		b->ends_st.mwu_good = jnum(ends, "p_mwu");
		b->ends_why = jdup(ends, "why");
		b->ends_done = true;
	}
	struct json_object *steps;
	if (json_object_object_get_ex(r, "steps", &steps) && json_object_is_type(steps, json_type_array)) {
		b->nsteps = json_object_array_length(steps);
		b->steps = xcalloc(b->nsteps + 1, sizeof(*b->steps));
		for (size_t i = 0; i < b->nsteps; i++)
			step_load(json_object_array_get_idx(steps, i), &b->steps[i]);
	}
	json_object_put(r);
	if (!b->tree || !b->nbuild || !b->image || !b->o.boots || b->o.max_boots < b->o.boots)
		return error("%s/bisect.json: settings missing", b->dir), EXIT_DATAERR;
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
	static char other[256];
	for (size_t i = 0; i < side.nboots; i++) {
		const char *v = side.boots[i].verdict;
		s->verdicts[s->nverdicts++] = xstrdup(v);
		sb->nboots++;
		if (!strcmp(v, "PASS"))
			sb->npass++;
		else if (!strcmp(v, "INFRA_ERROR"))
			sb->ninfra++;
		else if (!strcmp(v, "PANIC") || !strcmp(v, "HANG") || !strcmp(v, "BOOT_FAIL"))
			sb->ncrash++;
		else
			sb->nfail++;
		if (!b->title)
			continue;
		bool matched = false;
		const char *unmatched = NULL;
		for (size_t e = 0; e < side.nevents; e++) {
			const struct event_info *ev = &side.events[e];
			if (ev->boot != i)
				continue;
			if (!event_is_kernel_failure(ev->kind))
				continue;
			if (fnmatch(b->title, ev->title, 0) == 0)
				matched = true;
			else if (!unmatched)
				unmatched = ev->title;
		}
		if (matched)
			sb->ntitle++;
		else if (!sb->other_title && (unmatched || strcmp(v, "PASS")) &&
			 strcmp(v, "INFRA_ERROR") && strcmp(v, "FAIL")) {
			snprintf(other, sizeof(other), "%s", unmatched ? unmatched : v);
			sb->other_title = other;
		}
	}
	if (b->metric) {
		for (size_t m = 0; m < side.nmetrics; m++) {
			const struct metric_series *ms = &side.metrics[m];
			char id[512];
			snprintf(id, sizeof(id), "%s.%s.%s", ms->abi, ms->test, ms->name);
			if (strcmp(id, b->metric))
				continue;
			s->obs = xcalloc(ms->n + 1, sizeof(*s->obs));
			memcpy(s->obs, ms->obs, ms->n * sizeof(*s->obs));
			s->nobs = ms->n;
		}
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
	argv[k++] = "/proc/self/exe";
	argv[k++] = "run";
	argv[k++] = "--kernel";
	argv[k++] = (char *)image;
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
	int rc = spawn(argv, NULL, log_fd, NULL, true, 0);
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
	int fd = open(blog, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int brc = fd < 0 ? -1 : spawn(b->build, b->tree, fd, NULL, true, b->build_timeout);
	if (fd >= 0)
		close(fd);
	if (stop_signal) {
		rc = TEST_INTERRUPTED;
		goto out;
	}
	struct stat st;
	if (brc != 0 || stat(image, &st) < 0) {
		s->mark = MARK_SKIP;
		set_why(s, brc == SPAWN_TIMED_OUT
				   ? xasprintf("the build did not end within %g s (--build-timeout), stopped: "
					       "see %.12s/build.log", b->build_timeout, s->sha)
			   : brc != 0 ? xasprintf("the build failed (exit %d): see %.12s/build.log", brc, s->sha)
				      : xasprintf("the build made no %s", b->image));
		goto out;
	}
	char *cmdline = cmdline_for(b);
	struct step_boots sb;
	fd = open(rlog, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	for (;;) {
		if (count_boots(b, results, s, &sb) < 0) {
			s->mark = MARK_SKIP;
			set_why(s, xasprintf("its results cannot be read: see %.12s/results", s->sha));
			break;
		}
		char *why = NULL;
		if (end_boots && !b->o.crash) {
			bool enough = sb.nboots >= end_boots && (sb.npass >= 2 || sb.nboots >= b->o.max_boots ||
								  sb.npass == 0);
			s->mark = enough ? (sb.npass >= 2 ? MARK_GOOD : MARK_SKIP) : MARK_NONE;
			why = xasprintf("%zu PASS boots of %zu", sb.npass, sb.nboots);
		} else if (b->o.crash) {
			s->mark = bisect_decide_crash(&b->o, &sb, &why);
		} else {
			s->mark = bisect_decide_metric(&b->o, b->ends[0].obs, b->ends[0].nobs, b->ends[1].obs,
						       b->ends[1].nobs, &sb, &s->st, &why);
		}
		set_why(s, why);
		if (s->mark != MARK_NONE)
			break;
		size_t n = bisect_next_batch(&b->o, &sb);
		fprintf(stderr, "bisect:   %zu boot%s (%zu so far)\n", n, n == 1 ? "" : "s", sb.nboots);
		int run_rc = boot(b, image, results, cmdline, n, fd);
		if (stop_signal) {
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
 * pick_metric: performance mode, after the ends' boots: the metric that
 * --metric's glob selects whose ends differ most (by |%change|, among the
 * significant ones; else the largest change, for the message). 0, or
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
		const struct metric_series *other = side_metric(&bad, ms->abi, ms->test, ms->name);
		if (fnmatch(b->glob, id, 0) || !other)
			continue;
		struct step_stats st;
		char *why = NULL;
		bool sig = bisect_ends_differ(&b->o, ms->obs, ms->n, other->obs, other->n, &st, &why);
		free(why);
		double ch = isnan(st.change_good) ? 0 : fabs(st.change_good);
		if ((sig && !best_sig) || (sig == best_sig && ch > best)) {
			best = ch, best_sig = sig;
			free(b->metric), free(b->unit);
			b->metric = xstrdup(id);
			b->unit = xstrdup(ms->unit);
			b->higher_better = ms->higher_better;
		}
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
		if (resolve(b, revs[e], s->sha) < 0)
			return EXIT_INFRA;
		free(s->subject);
		s->subject = subject_of(b, s->sha);
		if (git(b, git_out, "checkout", "-q", "--detach", s->sha, NULL) != 0)
			return error("git checkout %s: %s", s->sha, git_out->buf), EXIT_INFRA;
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
		double ch = b->ends_st.change_good;
		if (differ || want >= b->o.max_boots || isnan(ch) || fabs(ch) < b->o.threshold_pct)
			break;
		want = want + b->o.boots < b->o.max_boots ? want + b->o.boots : b->o.max_boots;
		fprintf(stderr, "bisect: the ends are not yet significantly apart (%s): %zu boots of each\n",
			term_str(b->ends_why), want);
		for (int e = 0; e < 2; e++) {
			struct step *s = &b->ends[e];
			if (git(b, git_out, "checkout", "-q", "--detach", s->sha, NULL) != 0)
				return error("git checkout %s: %s", s->sha, git_out->buf), EXIT_INFRA;
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

/* ------------------------------------------------------------ reports */


static void print_row(const struct bisection *b, const char *label, const struct step *s, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	char med[32], sp[32], pg[32], pb[32];
	if (b->o.crash) {
		strbuf_addf(&sb, "  %-9s %.12s  %5zu  %7zu  %-8s  %s\n", label, s->sha, s->nboots, s->ncrash,
			    bisect_mark_name(s->mark), term_str(s->subject));
	} else {
		fmt_value(s->st.median, med, sizeof(med));
		snprintf(sp, sizeof(sp), isnan(s->st.spread_pct) ? "-" : "%.1f%%", s->st.spread_pct);
		strbuf_addf(&sb, "  %-9s %.12s  %5zu  %10s  %7s  %8s  %8s  %-8s  %s\n", label, s->sha,
			    s->nboots, med, sp, bisect_fmt_p(s->st.p_good, pg, sizeof(pg)),
			    bisect_fmt_p(s->st.p_bad, pb, sizeof(pb)), bisect_mark_name(s->mark),
			    term_str(s->subject));
	}
	strbuf_addf(&sb, "  %-9s %s\n", "", term_str(s->why));
	fputs(sb.buf, out);
	strbuf_release(&sb);
}

static void print_table(const struct bisection *b, FILE *out)
{
	if (b->o.crash)
		fprintf(out, "  %-9s %-12s  %5s  %7s  %-8s  %s\n", "step", "commit", "boots", "crashed",
			"decision", "subject");
	else
		fprintf(out, "  %-9s %-12s  %5s  %10s  %7s  %8s  %8s  %-8s  %s\n", "step", "commit", "boots",
			"median", "±stddev", "p(good)", "p(bad)", "decision", "subject");
	if (b->ends_done) {
		print_row(b, "good", &b->ends[0], out);
		print_row(b, "bad", &b->ends[1], out);
	}
	for (size_t i = 0; i < b->nsteps; i++) {
		char label[24];
		snprintf(label, sizeof(label), "%zu", i + 1);
		print_row(b, label, &b->steps[i], out);
	}
}

static int write_chart(const struct bisection *b)
{
	size_t n = (b->ends_done ? 2 : 0) + b->nsteps;
	struct chart_column *cols = xcalloc(n + 1, sizeof(*cols));
	char (*labels)[16] = xcalloc(n + 1, sizeof(*labels));
	char (*roles)[32] = xcalloc(n + 1, sizeof(*roles));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const struct step *s = b->ends_done && i < 2 ? &b->ends[i] : &b->steps[i - (b->ends_done ? 2 : 0)];
		snprintf(labels[k], sizeof(labels[k]), "%.8s", s->sha);
		if (b->ends_done && i < 2)
			snprintf(roles[k], sizeof(roles[k]), "%s", i ? "bad" : "good");
		else
			snprintf(roles[k], sizeof(roles[k]), "step %zu", i + 1 - (b->ends_done ? 2 : 0));
		cols[k] = (struct chart_column){ labels[k], roles[k], s->mark, s->obs, s->nobs,
						 (const char *const *)s->verdicts, s->nverdicts };
		if (!b->o.crash)
			cols[k].nverdicts = 0;
		k++;
	}
	struct chart c = { b->o.crash ? "crash bisection" : b->metric, b->o.crash ? NULL : b->unit,
			   b->o.crash, cols, k, NAN, NAN };
	if (b->ends_done && !b->o.crash) {
		c.good_mean = stats_mean(b->ends[0].obs, b->ends[0].nobs);
		c.bad_mean = stats_mean(b->ends[1].obs, b->ends[1].nobs);
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bisect_chart_svg(&c, f);
	fclose(f);
	char *path = xasprintf("%s/chart.svg", b->dir);
	int rc = write_file_atomic(path, buf, len);
	free(path), free(buf), free(cols), free(labels), free(roles);
	return rc;
}

/* ------------------------------------------------------------ the bisection */

/* What a git bisect command said: 1 when it named the first bad commit
 * (b->first_bad set), 2 when only skipped commits are left (candidates),
 * 0 to go on, -1 on an error. */
static int bisect_said(struct bisection *b, int rc, const char *out)
{
	const char *p = strstr(out, " is the first bad commit");
	if (p && p - out >= 40) {
		const char *sha = p - 40;
		free(b->first_bad), free(b->first_bad_subject);
		b->first_bad = xasprintf("%.40s", sha);
		b->first_bad_subject = subject_of(b, b->first_bad);
		return 1;
	}
	const char *any = strstr(out, "could be any of:\n");
	if (any) {
		any += strlen("could be any of:\n");
		const char *end = strstr(any, "We cannot bisect more");
		free(b->candidates);
		b->candidates = xasprintf("%.*s", (int)(end ? end - any : (long)strlen(any)), any);
		return 2;
	}
	if (rc != 0)
		return error("git bisect: %s", out);
	return 0;
}

/* Marks sha in git's bisection: bisect_said's answer. */
static int mark(struct bisection *b, const char *sha, enum bisect_mark m, struct strbuf *out)
{
	int rc = git(b, out, "bisect", (char *)bisect_mark_name(m), (char *)sha, NULL);
	return bisect_said(b, rc, out->buf);
}

/* Is a git bisection in progress in the tree? */
static bool bisecting(const struct bisection *b)
{
	struct strbuf out = STRBUF_INIT;
	bool yes = false;
	if (git(b, &out, "rev-parse", "--git-path", "BISECT_START", NULL) == 0) {
		char *p = first_line(out.buf);
		char *path = p[0] == '/' ? xstrdup(p) : xasprintf("%s/%s", b->tree, p);
		yes = access(path, F_OK) == 0;
		free(path);
	}
	strbuf_release(&out);
	return yes;
}

/* The branch (or commit) the tree is on, for the messages. */
static char *where_is(const struct bisection *b)
{
	struct strbuf out = STRBUF_INIT;
	int rc = git(b, &out, "symbolic-ref", "-q", "--short", "HEAD", NULL);
	if (rc != 0)
		rc = git(b, &out, "rev-parse", "--short", "HEAD", NULL);
	char *s = xstrdup(rc == 0 ? first_line(out.buf) : "?");
	strbuf_release(&out);
	return s;
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
	if (resolve(b, b->good_rev, good) < 0 || resolve(b, b->bad_rev, bad) < 0) {
		b->status = "infra";
		return EXIT_USAGE;
	}
	int grc = git(b, &out, "bisect", "start", bad, good, NULL);
	if ((said = bisect_said(b, grc, out.buf)) < 0) {
		b->status = "infra";
		strbuf_release(&out);
		return EXIT_INFRA;
	}
	for (size_t i = 0; i < b->nsteps && !said; i++)
		if ((said = mark(b, b->steps[i].sha, b->steps[i].mark, &out)) < 0)
			break;
	char next[41] = "";
	if (!said && git(b, &out, "rev-parse", "HEAD", NULL) == 0)
		snprintf(next, sizeof(next), "%s", first_line(out.buf));
	if (said >= 0 && !b->ends_done) {
		rc = test_ends(b, &out);
		if (rc == 0) {
			b->ends_done = true;
			save(b);
		} else {
			b->status = rc == EXIT_FAIL ? "no-difference" : rc == EXIT_SIGINT ? "interrupted" : "infra";
			if (rc == EXIT_FAIL)
				b->ends_done = true;
			strbuf_release(&out);
			return rc;
		}
		if (!said && git(b, &out, "checkout", "-q", "--detach", next, NULL) != 0) {
			error("git checkout %s: %s", next, out.buf);
			said = -1;
		}
	}
	while (said == 0) {
		if (git(b, &out, "rev-parse", "HEAD", NULL) != 0) {
			said = -1;
			break;
		}
		b->steps = xrealloc(b->steps, (b->nsteps + 1) * sizeof(*b->steps));
		struct step *s = &b->steps[b->nsteps];
		memset(s, 0, sizeof(*s));
		snprintf(s->sha, sizeof(s->sha), "%s", first_line(out.buf));
		s->subject = subject_of(b, s->sha);
		char role[32];
		snprintf(role, sizeof(role), "step %zu", b->nsteps + 1);
		s->role = role;
		int t = test_commit(b, s, 0);
		s->role = NULL;
		if (t != TEST_DONE) {
			free(s->subject), free(s->why), free(s->obs);
			for (size_t i = 0; i < s->nverdicts; i++)
				free(s->verdicts[i]);
			free(s->verdicts);
			b->status = t == TEST_INTERRUPTED ? "interrupted" : "infra";
			strbuf_release(&out);
			return t == TEST_INTERRUPTED ? EXIT_SIGINT : EXIT_INFRA;
		}
		b->nsteps++;
		fprintf(stderr, "bisect: %.12s is %s: %s\n", s->sha, bisect_mark_name(s->mark),
			term_str(s->why));
		save(b);
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

static void release(struct bisection *b)
{
	struct step *all[2] = { b->ends, b->steps };
	size_t counts[2] = { 2, b->nsteps };
	for (int g = 0; g < 2; g++)
		for (size_t i = 0; all[g] && i < counts[g]; i++) {
			struct step *s = &all[g][i];
			free(s->subject), free(s->why), free(s->obs);
			for (size_t k = 0; k < s->nverdicts; k++)
				free(s->verdicts[k]);
			free(s->verdicts);
		}
	free(b->steps);
	for (size_t i = 0; b->build && i < b->nbuild; i++)
		free(b->build[i]);
	for (size_t i = 0; b->run_opts && i < b->nrun_opts; i++)
		free(b->run_opts[i]);
	free(b->build), free(b->run_opts);
	free(b->tree), free(b->dir), free(b->good_rev), free(b->bad_rev), free(b->image);
	free(b->append), free(b->append_file), free(b->glob), free(b->title);
	free(b->metric), free(b->unit), free(b->ends_why);
	free(b->first_bad), free(b->first_bad_subject), free(b->candidates);
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
	const struct { const char *name, *value; } pass[] = {
		{ "--target", A.target }, { "--config", A.config }, { "--suite", A.suite },
		{ "--board", A.board }, { "--timeout", A.timeout }, { "--clock", A.clock },
		{ "--accel", A.accel }, { "--initramfs", A.initramfs }, { "-j", A.jobs },
		{ "--lava", A.lava }, { "--lava-token-file", A.lava_token_file },
	};
	b->run_opts = xcalloc(2 * ARRAY_SIZE(pass) + 2 * A.connect.n + 1, sizeof(*b->run_opts));
	for (size_t i = 0; i < ARRAY_SIZE(pass); i++)
		if (pass[i].value) {
			b->run_opts[b->nrun_opts++] = xstrdup(pass[i].name);
			b->run_opts[b->nrun_opts++] = xstrdup(pass[i].value);
		}
	for (size_t i = 0; i < A.connect.n; i++) {
		b->run_opts[b->nrun_opts++] = xstrdup("--connect");
		b->run_opts[b->nrun_opts++] = xstrdup(A.connect.v[i]);
	}
	return 0;
}

/* The default state directory: the tree's git dir/bootrig-bisect. */
static char *default_dir(const struct bisection *b)
{
	struct strbuf out = STRBUF_INIT;
	char *dir = NULL;
	if (git(b, &out, "rev-parse", "--absolute-git-dir", NULL) == 0)
		dir = xasprintf("%s/bootrig-bisect", first_line(out.buf));
	else
		error("bisect: %s is not a git tree: %s", b->tree, out.buf);
	strbuf_release(&out);
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
	int rc = split_build(&argc, argv, &build, &nbuild);
	if (!rc)
		rc = options_parse(bisect_opts_table, argc, argv, NULL, &bisect_usage);
	if (rc) {
		free(build), free(A.connect.v);
		return rc;
	}
	struct bisection b;
	memset(&b, 0, sizeof(b));
	b.status = "running";
	b.tree = realpath(A.tree ? A.tree : ".", NULL);
	if (!b.tree) {
		error("bisect: %s: %s", A.tree ? A.tree : ".", strerror(errno));
		free(build), free(A.connect.v);
		return EXIT_USAGE;
	}
	if (A.cont && (A.good || A.bad || nbuild || A.image || A.metric || A.crash || A.boots)) {
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
		if ((rc = load(&b)))
			goto done;
		/* a bootrig that was killed left git bisecting: back to the branch */
		struct strbuf out = STRBUF_INIT;
		if (bisecting(&b))
			git(&b, &out, "bisect", "reset", NULL);
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
		if (bisecting(&b)) {
			rc = (error("bisect: a git bisect is in progress in %s: git bisect reset first",
				    b.tree), EXIT_USAGE);
			goto done;
		}
		if (mkdir_p(b.dir, 0755) < 0) {
			rc = (error("cannot create %s: %s", b.dir, strerror(errno)), EXIT_INFRA);
			goto done;
		}
	}
	char *branch = where_is(&b);
	install_stop_handlers();
	save(&b);
	rc = bisect_loop(&b);
	struct strbuf out = STRBUF_INIT;
	if (bisecting(&b) && git(&b, &out, "bisect", "reset", NULL) != 0)
		error("git bisect reset: %s", out.buf);
	strbuf_release(&out);
	if (stop_signal) {
		rc = stop_signal == SIGTERM ? EXIT_SIGTERM : EXIT_SIGINT;
		b.status = "interrupted";
	}
	save(&b);
	write_chart(&b);
	print_table(&b, stdout);
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
	release(&b);
	free(build), free(A.connect.v);
	return rc;
}
