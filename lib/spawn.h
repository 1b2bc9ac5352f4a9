/*
 * spawn.h: bootrig's one way to run another program: by argv (no shell),
 * with the environment, directory and standard descriptors it is given,
 * in a process group of its own or ours; waited for with a time limit, and
 * stopped by its PID (or its group). Every program bootrig starts goes
 * through it: run_argv() (power commands), bisect's builds, git and
 * `bootrig run` (compare/bisect-git.c), dpkg-deb (builder/kernel.c).
 * (The two async-signal-safe forks that must allocate nothing, the boards'
 * emergency power-off and libvirt's guardian, are their own.)
 *
 * The child, between fork() and exec(), makes only async-signal-safe calls
 * (no stdio, no malloc, no error(): child_write_error): in a child of a
 * multithreaded process nothing else is, since another thread may have
 * held a lock at the fork. tests/t-forksafe.sh checks its calls.
 *
 * Use:
 *   struct spawn sp = SPAWN_INIT(argv);
 *   sp.fd[1] = log_fd;                   sp.own_group = true; ...
 *   if (spawn_start(&sp) < 0) ...        the reason is printed
 *   rc = spawn_wait(&sp, 30);            SPAWN_RUNNING: still running
 *   spawn_kill(&sp, SIGKILL); spawn_wait(&sp, -1);
 */
#ifndef BOOTRIG_SPAWN_H
#define BOOTRIG_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

#define SPAWN_INHERIT (-1)   /* fd[i]: the child has ours */
#define SPAWN_DEVNULL (-2)   /* fd[i]: /dev/null */

/* spawn_wait(): still running at the time limit (it was not stopped). */
#define SPAWN_RUNNING (-2)

struct spawn {
	char *const *argv;      /* argv[0] is searched in PATH */
	char *const *envp;      /* its environment; NULL: ours */
	const char *dir;        /* where it runs; NULL: here (cannot enter: exit 127) */
	int fd[3];              /* its stdin, stdout, stderr: a descriptor of ours
				 * (dup2'd), SPAWN_INHERIT or SPAWN_DEVNULL */
	bool own_group;         /* a process group of its own (spawn_kill: the group) */
	bool default_signals;   /* SIGINT and SIGTERM back to SIG_DFL in the child */
	pid_t pid;              /* set by spawn_start(); 0 once it was waited for */
};

#define SPAWN_INIT(av) \
	{ .argv = (av), .fd = { SPAWN_INHERIT, SPAWN_INHERIT, SPAWN_INHERIT } }

/*
 * spawn_start: forks and execs sp->argv as sp says; sp->pid is the child.
 * A program that cannot be run, or a dir that cannot be entered, is the
 * child's exit status 127 (EXIT_NOEXEC) with "bootrig: cannot run X: why"
 * on its stderr. 0, or -1 when it could not fork (error printed).
 */
int spawn_start(struct spawn *sp);

/*
 * spawn_wait: waits up to timeout_s seconds (< 0: no limit; 0: only looks)
 * for the child to exit, with a pidfd (no sleep for a quick child).
 * Returns its exit status (0..255), 128+signal when a signal ended it,
 * SPAWN_RUNNING when it still runs at the limit, -1 on an error (printed).
 * Once it returned a status, sp->pid is 0.
 */
int spawn_wait(struct spawn *sp, double timeout_s);

/* spawn_kill: sends sig to the child, to its whole group with
 * sp->own_group. 0, or -1 (errno) when it is gone. */
int spawn_kill(const struct spawn *sp, int sig);

/*
 * child_write_error: for a forked child before exec (or after a failed
 * one): writes "bootrig: WHAT ARG: REASON\n" to stderr with write() alone,
 * REASON being err's description. Async-signal-safe (no stdio, no malloc,
 * no locale).
 */
void child_write_error(const char *what, const char *arg, int err);

/*
 * run_argv: runs argv (spawn_start(), in a group of its own) with its
 * stdout and stderr to stdout_fd and stderr_fd (-1: ours), and waits up to
 * timeout_s seconds (<= 0: no limit); then kills its group. Returns the
 * exit status (0..255), 128+signal when killed by a signal, -2 on timeout,
 * -1 when it could not be started (error printed).
 */
int run_argv(char *const argv[], double timeout_s, int stdout_fd, int stderr_fd);

#endif
