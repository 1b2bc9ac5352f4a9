/*
 * peer.c: a PID 1 for `make bench`'s peer comparisons (scripts/bench.d/
 * 12-hackbench-peer.sh), never shipped in a bootrig image.
 *
 * It runs other programs side by side with ours, on the same kernel and
 * clock, and prints how long each run took: the figure a user gets when
 * they measure one of our metrics against the published tool of the same
 * name (rt-tests' hackbench, a dynamic glibc program).
 *
 * The plan is /peer/plan, one command a line:
 *   LABEL PATH ARG...        (single spaces; no quoting; at most 15 args)
 * and /peer/runs holds the run count R (default 3). Runs alternate: round
 * 1 runs every command once in plan order, then round 2..., so a drift of
 * the host falls on every command alike. Each run's output passes through
 * to the console; around it peer prints
 *   PEER label=LABEL run=K status=S guest_s=SECONDS
 * with the guest's CLOCK_MONOTONIC from fork to reap (under icount: guest
 * instructions, not host time). Then "PEER done" and power off.
 */
#include "rt.h"

#define PLAN_MAX 4096
#define CMDS_MAX 8
#define ARGS_MAX 16

struct cmd {
	char *label;
	char *argv[ARGS_MAX + 1];
};

/* The console as fds 0, 1 and 2 (devtmpfs mounted first). */
static void open_console(void)
{
	rt_mkdir("/dev", 0755);
	rt_mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	long fd = rt_open("/dev/console", O_RDWR | O_NOCTTY, 0);
	if (fd < 0)
		return;
	for (int i = 0; i < 3; i++)
		if (fd != i)
			rt_dup2((int)fd, i);
	if (fd > 2)
		rt_close((int)fd);
}

/* Splits the plan's lines into commands; returns their count. */
static int parse_plan(char *text, struct cmd *cmds)
{
	int n = 0;
	for (char *line = text; line && *line && n < CMDS_MAX;) {
		char *next = rt_strchr(line, '\n');
		if (next)
			*next++ = 0;
		int argc = -1;
		for (char *w = line; w && *w;) {
			char *sp = rt_strchr(w, ' ');
			if (sp)
				*sp++ = 0;
			if (*w) {
				if (argc < 0)
					cmds[n].label = w;
				else if (argc < ARGS_MAX)
					cmds[n].argv[argc] = w;
				argc++;
			}
			w = sp;
		}
		if (argc > 0) {
			cmds[n].argv[argc < ARGS_MAX ? argc : ARGS_MAX] = NULL;
			n++;
		}
		line = next;
	}
	return n;
}

/* One run of c: fork, exec, reap; prints its PEER line. */
static void run_one(const struct cmd *c, int k, char **envp)
{
	uint64_t t0 = rt_now_ns();
	long pid = rt_fork();
	if (pid == 0) {
		rt_execve(c->argv[0], c->argv, envp);
		rt_eprintf("peer: exec %s failed\n", c->argv[0]);
		rt_exit(127);
	}
	int status = -1;
	if (pid > 0)
		while (rt_waitpid((pid_t)pid, &status, 0) == -EINTR)
			;
	uint64_t ns = rt_now_ns() - t0;
	rt_printf("PEER label=%s run=%d status=%d guest_s=%lu.%06lu\n", c->label, k, status,
		  (unsigned long)(ns / 1000000000u), (unsigned long)(ns % 1000000000u / 1000u));
}

int main(int argc, char **argv, char **envp)
{
	static char plan[PLAN_MAX];
	char runs_text[16];
	struct cmd cmds[CMDS_MAX];
	(void)argc;
	(void)argv;

	open_console();
	rt_mkdir("/proc", 0555);
	rt_mount("proc", "/proc", "proc", 0, NULL);
	rt_mkdir("/tmp", 01777);
	rt_mount("tmpfs", "/tmp", "tmpfs", 0, NULL);
	int n = rt_read_file("/peer/plan", plan, sizeof plan) > 0 ? parse_plan(plan, cmds) : 0;
	long runs = 3;
	if (rt_read_file("/peer/runs", runs_text, sizeof runs_text) > 0)
		runs = rt_atol_default(runs_text, 3);
	if (n == 0)
		rt_printf("PEER error: no commands in /peer/plan\n");
	for (long k = 1; k <= runs; k++)
		for (int i = 0; i < n; i++)
			run_one(&cmds[i], (int)k, envp);
	rt_printf("PEER done\n");
	rt_sync();
	rt_reboot(RB_POWER_OFF);
	return 0;
}
