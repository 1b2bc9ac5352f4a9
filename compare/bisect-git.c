/*
 * bisect-git.c: the programs `bootrig bisect` runs and git in the user's
 * tree (bisect-git.h).
 */
#include "bisect-git.h"
#include "exitcodes.h"
#include "spawn.h"
#include "textsafe.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile sig_atomic_t bisect_stop_signal;

static void on_stop(int sig)
{
	if (!bisect_stop_signal)
		bisect_stop_signal = sig;
}

void bisect_install_stop_handlers(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int bisect_spawn(char *const argv[], const char *dir, int out_fd, struct strbuf *cap, bool forward,
		 double limit)
{
	int p[2] = { -1, -1 };
	if (cap && pipe2(p, O_CLOEXEC) < 0)
		return error("pipe: %s", strerror(errno));
	struct spawn sp = SPAWN_INIT(argv);
	sp.dir = dir;
	sp.own_group = true;
	sp.default_signals = true;
	sp.fd[0] = SPAWN_DEVNULL;
	sp.fd[1] = sp.fd[2] = cap ? p[1] : out_fd < 0 ? SPAWN_INHERIT : out_fd;
	if (spawn_start(&sp) < 0) {
		if (cap)
			close(p[0]), close(p[1]);
		return -1;
	}
	if (cap)
		close(p[1]);
	pid_t group = sp.pid;
	bool forwarded = false, eof = !cap;
	int rc = SPAWN_RUNNING;
	double t0 = now_monotonic(), termed_at = 0;
	while (rc == SPAWN_RUNNING) {
		if (forward && bisect_stop_signal && !forwarded) {
			spawn_kill(&sp, bisect_stop_signal);
			forwarded = true;
		}
		if (limit > 0 && !termed_at && now_monotonic() - t0 > limit) {
			spawn_kill(&sp, SIGTERM);
			termed_at = now_monotonic();
		} else if (termed_at && now_monotonic() - termed_at > BISECT_SPAWN_KILL_GRACE) {
			spawn_kill(&sp, SIGKILL);
		}
		if (eof) {
			rc = spawn_wait(&sp, 0.1);
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
		kill(-group, SIGKILL);   /* what the group's leader left behind */
		return BISECT_SPAWN_TIMED_OUT;
	}
	return rc;
}

/* `bootrig run ARGS... --list-options`: its exit status, its output in
 * *out. */
static int run_list_options(char *const *args, size_t n, struct strbuf *out)
{
	char **argv = xcalloc(n + 4, sizeof(*argv));
	argv[0] = "/proc/self/exe";
	argv[1] = "run";
	for (size_t i = 0; i < n; i++)
		argv[2 + i] = args[i];
	argv[2 + n] = "--list-options";
	strbuf_addstr(out, "");
	int rc = bisect_spawn(argv, NULL, -1, out, false, 0);
	free(argv);
	return rc;
}

struct opt *bisect_run_table(size_t *n)
{
	struct strbuf out = STRBUF_INIT;
	int rc = run_list_options(NULL, 0, &out);
	struct opt *opts = rc == 0 ? options_from_list(out.buf, n) : NULL;
	if (opts && !*n)
		options_list_free(opts), opts = NULL;
	if (!opts)
		error("bisect: bootrig run did not list its options (exit %d): %s", rc,
		      term_str(bisect_first_line(out.buf)));
	strbuf_release(&out);
	return opts;
}

int bisect_run_check(char *const *args, size_t n)
{
	struct strbuf out = STRBUF_INIT;
	int rc = run_list_options(args, n, &out);
	if (rc != 0) {
		/* run's first line, "bootrig: run: --accel wants ..." */
		const char *line = bisect_first_line(out.buf);
		if (!strncmp(line, "bootrig: ", 9))
			line += 9;
		error("bisect: bootrig run refuses an option (exit %d): %s", rc, term_str(line));
		rc = EXIT_USAGE;
	}
	strbuf_release(&out);
	return rc;
}

int bisect_git(const char *tree, struct strbuf *out, ...)
{
	char *argv[16] = { "git", "-C", (char *)tree };
	int n = 3;
	va_list ap;
	va_start(ap, out);
	for (char *a; n < 15 && (a = va_arg(ap, char *));)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	strbuf_release(out);
	strbuf_addstr(out, "");
	return bisect_spawn(argv, NULL, -1, out, false, 0);
}

char *bisect_first_line(char *s)
{
	s[strcspn(s, "\n")] = '\0';
	return s;
}

int bisect_git_resolve(const char *tree, const char *rev, char sha[41])
{
	struct strbuf out = STRBUF_INIT;
	char *spec = xasprintf("%s^{commit}", rev);
	int rc = bisect_git(tree, &out, "rev-parse", "--verify", "-q", spec, NULL);
	free(spec);
	if (rc == 0 && strlen(bisect_first_line(out.buf)) == 40)
		memcpy(sha, out.buf, 41);
	else
		rc = error("bisect: '%s' is not a commit in %s", rev, tree);
	strbuf_release(&out);
	return rc ? -1 : 0;
}

char *bisect_git_subject(const char *tree, const char *sha)
{
	struct strbuf out = STRBUF_INIT;
	bisect_git(tree, &out, "log", "-1", "--format=%s", sha, NULL);
	char *s = xstrdup(bisect_first_line(out.buf));
	strbuf_release(&out);
	return s;
}

int bisect_git_checkout(const char *tree, const char *sha, struct strbuf *out)
{
	if (bisect_git(tree, out, "checkout", "-q", "--detach", sha, NULL) != 0)
		return error("git checkout %s: %s", sha, out->buf);
	return 0;
}

int bisect_git_head(const char *tree, char sha[41], struct strbuf *out)
{
	if (bisect_git(tree, out, "rev-parse", "HEAD", NULL) != 0)
		return -1;
	snprintf(sha, 41, "%s", bisect_first_line(out->buf));
	return 0;
}

int bisect_git_said(int rc, const char *out, char **first_bad, char **candidates)
{
	const char *p = strstr(out, " is the first bad commit");
	if (p && p - out >= 40) {
		free(*first_bad);
		*first_bad = xasprintf("%.40s", p - 40);
		return 1;
	}
	const char *any = strstr(out, "could be any of:\n");
	if (any) {
		any += strlen("could be any of:\n");
		const char *end = strstr(any, "We cannot bisect more");
		free(*candidates);
		*candidates = xasprintf("%.*s", (int)(end ? end - any : (long)strlen(any)), any);
		return 2;
	}
	if (rc != 0)
		return error("git bisect: %s", out);
	return 0;
}

int bisect_git_mark(const char *tree, const char *sha, enum bisect_mark m, struct strbuf *out)
{
	return bisect_git(tree, out, "bisect", (char *)bisect_mark_name(m), (char *)sha, NULL);
}

bool bisect_git_bisecting(const char *tree)
{
	struct strbuf out = STRBUF_INIT;
	bool yes = false;
	if (bisect_git(tree, &out, "rev-parse", "--git-path", "BISECT_START", NULL) == 0) {
		char *p = bisect_first_line(out.buf);
		char *path = p[0] == '/' ? xstrdup(p) : xasprintf("%s/%s", tree, p);
		yes = access(path, F_OK) == 0;
		free(path);
	}
	strbuf_release(&out);
	return yes;
}

char *bisect_git_where(const char *tree)
{
	struct strbuf out = STRBUF_INIT;
	int rc = bisect_git(tree, &out, "symbolic-ref", "-q", "--short", "HEAD", NULL);
	if (rc != 0)
		rc = bisect_git(tree, &out, "rev-parse", "--short", "HEAD", NULL);
	char *s = xstrdup(rc == 0 ? bisect_first_line(out.buf) : "?");
	strbuf_release(&out);
	return s;
}

char *bisect_git_dir(const char *tree)
{
	struct strbuf out = STRBUF_INIT;
	char *dir = NULL;
	if (bisect_git(tree, &out, "rev-parse", "--absolute-git-dir", NULL) == 0)
		dir = xstrdup(bisect_first_line(out.buf));
	else
		error("bisect: %s is not a git tree: %s", tree, out.buf);
	strbuf_release(&out);
	return dir;
}
