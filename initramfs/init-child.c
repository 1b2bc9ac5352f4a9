/*
 * init-child.c: running a child: fork, exec with an errno pipe, its
 * output on a pipe cut into framed lines, a watchdog (init.h).
 */
#include "init.h"

/* spawn: runs argv[0] in its own process group, stdout and stderr into
 * *out_fd (a pipe read end; -1: no pipe wanted, output discarded).
 * Returns the pid or -errno; *exec_fd is the CLOEXEC pipe that carries
 * execve's errno (4 bytes) or EOF when exec succeeded. */
long spawn(char *const argv[], int *out_read, int *exec_read)
{
	int out[2] = { -1, -1 }, ex[2];
	long pid, r;

	if ((r = rt_pipe2(ex, O_CLOEXEC)) < 0)
		return r;
	if (out_read && (r = rt_pipe2(out, O_CLOEXEC)) < 0) {
		rt_close(ex[0]), rt_close(ex[1]);
		return r;
	}
	pid = rt_fork();
	if (pid == 0) {
		static char *const machine_env[] = { "HOME=/", "TERM=linux", "PATH=/bin", NULL };
		char *const *envp = is_pid1 ? machine_env : rt_environ;
		long devnull = rt_open("/dev/null", O_RDWR, 0);
		int e;

		rt_setpgid(0, 0);
		if (devnull >= 0)
			rt_dup2((int)devnull, 0);
		rt_dup2(out_read ? out[1] : devnull >= 0 ? (int)devnull : 2, 1);
		rt_dup2(out_read ? out[1] : devnull >= 0 ? (int)devnull : 2, 2);
		e = (int)-rt_execve(argv[0], argv, envp);
		rt_write(ex[1], &e, sizeof(e));
		rt_exit(127);
	}
	rt_close(ex[1]);
	if (out_read)
		rt_close(out[1]);
	if (pid < 0) {
		rt_close(ex[0]);
		if (out_read)
			rt_close(out[0]);
		return pid;
	}
	rt_setpgid((pid_t)pid, (pid_t)pid);
	*exec_read = ex[0];
	if (out_read)
		*out_read = out[0];
	return pid;
}

/* One whole line of the child (lb->buf): its record; in the counting run
 * only a PERFSTAT (the rest the timed run printed already). */
static void child_line(struct line_buf *lb)
{
	if (!lb->counting || (lb->len > 9 && rt_strncmp(lb->buf, "PERFSTAT ", 9) == 0))
		frame_child_line(lb->abi, lb->test, lb->buf, lb->len);
	lb->len = 0;
}

static void line_feed(struct line_buf *lb, const char *p, size_t n)
{
	while (n--) {
		char c = *p++;
		if (c == '\n') {
			child_line(lb);
			continue;
		}
		if (lb->len == sizeof(lb->buf) - 1) {      /* an overlong line: cut */
			if (!lb->counting)
				log_line(lb->abi, lb->test, lb->buf, lb->len);
			lb->len = 0;
		}
		lb->buf[lb->len++] = c;
	}
}

/* supervise: reads the child's output until EOF and its exit, killing its
 * process group at the deadline. */
void supervise(long pid, int out, int ex, long timeout_ms, struct line_buf *lb,
		      struct run *run)
{
	uint64_t start = rt_now_ns(), deadline = start + (uint64_t)timeout_ms * 1000000u;
	bool reaped = false;
	int e = 0;

	run->exec_errno = 0;
	run->timed_out = false;
	if (rt_read(ex, &e, sizeof(e)) == (long)sizeof(e))
		run->exec_errno = e;
	rt_close(ex);
	while (out >= 0 || !reaped) {
		uint64_t now = rt_now_ns();
		long r;
		if (now >= deadline) {
			rt_kill((pid_t)-pid, SIGKILL);
			run->timed_out = true;
			break;
		}
		if (!reaped) {
			r = rt_wait4((pid_t)pid, &run->status, WNOHANG, NULL);
			reaped = r == pid;
		}
		if (out >= 0) {
			struct rt_pollfd pfd = { out, POLLIN, 0 };
			long wait_ms = (long)((deadline - now) / 1000000u) + 1;
			char buf[2048];
			if (wait_ms > 200)
				wait_ms = 200;
			if (rt_poll(&pfd, 1, (int)wait_ms) > 0) {
				r = rt_read(out, buf, sizeof(buf));
				if (r > 0)
					line_feed(lb, buf, (size_t)r);
				else if (r == 0 || r != -EINTR) {
					rt_close(out);
					out = -1;
				}
			}
		} else if (!reaped) {
			rt_sleep_ms(5);
		}
	}
	/* whatever is left of the group (a forked helper holding the pipe) */
	rt_kill((pid_t)-pid, SIGKILL);
	if (!reaped)
		rt_waitpid((pid_t)pid, &run->status, 0);
	if (out >= 0)
		rt_close(out);
	if (lb && lb->len)
		child_line(lb);
	while (rt_wait4(-1, NULL, WNOHANG | __WALL, NULL) > 0)
		;                        /* orphans re-parented to us */
	run->ms = (long)((rt_now_ns() - start) / 1000000u);
}

/* describe_exit: "exit 3", "signal 11" or NULL for exit 0. */
const char *describe_exit(int status)
{
	static char why[32];

	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return NULL;
	if (WIFSIGNALED(status))
		rt_snprintf(why, sizeof(why), "signal %d", WTERMSIG(status));
	else
		rt_snprintf(why, sizeof(why), "exit %d", WEXITSTATUS(status));
	return why;
}
