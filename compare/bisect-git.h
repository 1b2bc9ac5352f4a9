/*
 * bisect-git.h: what `bootrig bisect` (compare/cmd-bisect.c) runs: programs
 * spawned by argv (the build, `bootrig run`, git) in a process group of
 * their own with our SIGINT/SIGTERM passed on, and git in the user's tree
 * (a commit's sha and subject, checkout, `git bisect` start/mark/reset and
 * what it answered). No decision is made here (those are bisect.h's) and
 * nothing of the state file (bisect-state.h): each function takes the
 * tree's path, so it is tested alone against a throw-away repository
 * (tests/unit/test_bisect_git.c).
 */
#ifndef BOOTRIG_BISECT_GIT_H
#define BOOTRIG_BISECT_GIT_H

#include "bisect.h"
#include "options.h"
#include "util.h"

#include <signal.h>
#include <stdbool.h>

/* The SIGINT or SIGTERM we got (0: none), set by the handlers below. */
extern volatile sig_atomic_t bisect_stop_signal;

/* Installs the handlers that set bisect_stop_signal (first signal kept). */
void bisect_install_stop_handlers(void);

/* After SIGTERM at the limit, a group still there this long gets SIGKILL. */
#define BISECT_SPAWN_KILL_GRACE 10.0
/* bisect_spawn()'s status when the limit was reached and the group stopped. */
#define BISECT_SPAWN_TIMED_OUT (-2)

/*
 * bisect_spawn: argv in dir (NULL: ours), in a process group of its own,
 * stdin from /dev/null; its stdout and stderr to out_fd, or captured into
 * *cap when cap is given (then out_fd is ignored). With forward, a SIGINT
 * or SIGTERM we get meanwhile (bisect_stop_signal) is sent on to its group.
 * With limit > 0, a program still running after limit seconds gets
 * SIGTERM, its group too, then SIGKILL BISECT_SPAWN_KILL_GRACE seconds
 * later: BISECT_SPAWN_TIMED_OUT. Returns its exit status (128+signal when
 * killed), or -1 when it could not start (error printed).
 */
int bisect_spawn(char *const argv[], const char *dir, int out_fd, struct strbuf *cap, bool forward,
		 double limit);

/*
 * bisect_run_table: the options of `bootrig run` as its own table lists
 * them (`bootrig run --list-options`, the running executable's: see
 * options_from_list()), so that bisect takes and passes on each of them,
 * a new one too, with no list of its own. *n entries. NULL, with the
 * error printed, when run does not answer.
 */
struct opt *bisect_run_table(size_t *n);

/*
 * bisect_run_check: does `bootrig run` take these options (argv[0..n))?
 * They are parsed by run's own parser (`bootrig run ARGS... --list-options`:
 * a value run refuses, --accel x, is refused now and not at every step).
 * 0, or EXIT_USAGE with run's message printed.
 */
int bisect_run_check(char *const *args, size_t n);

/* git -C TREE ARGS... (NULL-terminated, at most 12), output captured into
 * *out (released first). The exit status. */
int bisect_git(const char *tree, struct strbuf *out, ...);

/* The first line of s, without its newline, in place. */
char *bisect_first_line(char *s);

/* The full sha of REV's commit into sha, or -1 (error printed). */
int bisect_git_resolve(const char *tree, const char *rev, char sha[41]);

/* The subject of commit sha: the first line git log prints (malloc'd). */
char *bisect_git_subject(const char *tree, const char *sha);

/* Detaches the tree at sha. 0, or -1 (error printed with git's words in
 * *out). */
int bisect_git_checkout(const char *tree, const char *sha, struct strbuf *out);

/* The commit HEAD is on into sha. 0, or -1. */
int bisect_git_head(const char *tree, char sha[41], struct strbuf *out);

/*
 * bisect_git_said: what a `git bisect` command that exited rc said in out:
 * 1 when it named the first bad commit (*first_bad: its sha, malloc'd,
 * replacing the old), 2 when only skipped commits are left (*candidates:
 * git's "could be any of" list, malloc'd), 0 to go on, -1 on an error
 * (printed).
 */
int bisect_git_said(int rc, const char *out, char **first_bad, char **candidates);

/* git bisect good|bad|skip sha; git's words in *out. Its exit status. */
int bisect_git_mark(const char *tree, const char *sha, enum bisect_mark m, struct strbuf *out);

/* Is a git bisection in progress in the tree? */
bool bisect_git_bisecting(const char *tree);

/* The branch (or short commit) the tree is on, for the messages
 * (malloc'd; "?" when git cannot tell). */
char *bisect_git_where(const char *tree);

/* The tree's absolute git dir (malloc'd), or NULL (error printed). */
char *bisect_git_dir(const char *tree);

#endif
