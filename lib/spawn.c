/*
 * spawn.c: running another program (spawn.h): the fork, the child up to
 * exec (async-signal-safe), the wait with a time limit, the kill.
 */
#include "spawn.h"
#include "exitcodes.h"
#include "usage.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void child_write_error(const char *what, const char *arg, int err)
{
	const char *reason = strerrordesc_np(err);   /* a constant string: no locale */
	const char *parts[] = { "bootrig: ", what, " ", arg, ": ", reason ? reason : "error", "\n" };
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (write(STDERR_FILENO, parts[i], strlen(parts[i])) < 0)
			return;
}

/* The child of spawn_start(): only async-signal-safe calls until exec. */
static void exec_child(const struct spawn *sp)
{
	if (sp->own_group)
		setpgid(0, 0);
	for (int i = 0; i < 3; i++) {
		int fd = sp->fd[i];
		if (fd == SPAWN_DEVNULL)
			fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (fd >= 0 && fd != i)
			dup2(fd, i);
		else if (fd == i)
			fcntl(fd, F_SETFD, 0);   /* ours as it is: kept across exec */
	}
	if (sp->dir && chdir(sp->dir) < 0) {
		child_write_error("cannot enter", sp->dir, errno);
		_exit(EXIT_NOEXEC);
	}
	if (sp->default_signals) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
	}
	if (sp->envp)
		execvpe(sp->argv[0], sp->argv, sp->envp);
	else
		execvp(sp->argv[0], sp->argv);
	child_write_error("cannot run", sp->argv[0], errno);
	_exit(EXIT_NOEXEC);
}

int spawn_start(struct spawn *sp)
{
	pid_t pid = fork();
	if (pid < 0)
		return error("cannot fork for %s: %s", sp->argv[0], strerror(errno));
	if (pid == 0)
		exec_child(sp);
	if (sp->own_group)
		setpgid(pid, pid);   /* also here: a kill before the child's setpgid finds the group */
	sp->pid = pid;
	return 0;
}

static int decode_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

int spawn_wait(struct spawn *sp, double timeout_s)
{
	double deadline = now_monotonic() + timeout_s;
	int pidfd = timeout_s != 0 ? (int)syscall(SYS_pidfd_open, sp->pid, 0) : -1;
	long nap_ns = 1000 * 1000;
	int rc;
	for (;;) {
		int status;
		pid_t r = waitpid(sp->pid, &status, timeout_s < 0 && pidfd < 0 ? 0 : WNOHANG);
		if (r == sp->pid) {
			rc = decode_status(status);
			sp->pid = 0;
			break;
		}
		if (r < 0 && errno != EINTR) {
			rc = error("waitpid %s: %s", sp->argv[0], strerror(errno));
			break;
		}
		if (r < 0)
			continue;
		double left = timeout_s < 0 ? 1 : deadline - now_monotonic();
		if (left <= 0) {
			rc = SPAWN_RUNNING;
			break;
		}
		/* a pidfd is readable once the child exited; without one (before
		 * Linux 5.3), naps that grow from 1 ms to 10 ms */
		if (pidfd >= 0) {
			struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
			poll(&pfd, 1, timeout_s < 0 ? -1 : (int)(left * 1000) + 1);
		} else {
			struct timespec ts = { 0, nap_ns };
			nanosleep(&ts, NULL);
			nap_ns = nap_ns * 2 > 10 * 1000 * 1000 ? 10 * 1000 * 1000 : nap_ns * 2;
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	return rc;
}

int spawn_kill(const struct spawn *sp, int sig)
{
	if (sp->pid <= 0)
		return errno = ESRCH, -1;
	return kill(sp->own_group ? -sp->pid : sp->pid, sig);
}

int run_argv(char *const argv[], double timeout_s, int stdout_fd, int stderr_fd)
{
	struct spawn sp = SPAWN_INIT(argv);
	sp.own_group = true;
	sp.fd[1] = stdout_fd < 0 ? SPAWN_INHERIT : stdout_fd;
	sp.fd[2] = stderr_fd < 0 ? SPAWN_INHERIT : stderr_fd;
	if (spawn_start(&sp) < 0)
		return -1;
	int rc = spawn_wait(&sp, timeout_s > 0 ? timeout_s : -1);
	if (rc == SPAWN_RUNNING) {
		spawn_kill(&sp, SIGKILL);
		spawn_wait(&sp, -1);
		return -2;
	}
	return rc;
}
