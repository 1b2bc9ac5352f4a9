/*
 * qemu.c: what the libvirt backend does beside libvirt for the embedded
 * driver's QEMUs (lv.h): the driver's root, the guardian that kills our
 * QEMUs if bootrig dies, their pids, and reaping them (bootrig is their
 * subreaper).
 *
 * The file is divided into: the embedded root; the guardian; pids and
 * reaping.
 */
#include "lv.h"
#include "exitcodes.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---------------------------------------------------------------- embed */

/*
 * claim_embed_root: the embedded driver locks its root, so two bootrig
 * processes cannot share one. Slots cache/embed/0, 1, ... are claimed with
 * flock (released when we exit, even on a crash); the first free one is
 * used, so QEMU's capability cache survives between runs. The path stays
 * short: unix sockets under it must fit in 108 bytes. Returns the root or
 * NULL (error printed).
 */
char *claim_embed_root(int *lock_fd)
{
	const char *base = getenv("BOOTRIG_EMBED_ROOT");
	char *top = base ? xstrdup(base) : xasprintf("%s/embed", bootrig_cache_dir());
	for (int slot = 0; slot < 64; slot++) {
		char *root = xasprintf("%s/%d", top, slot);
		char *lock = xasprintf("%s.lock", root);
		if (mkdir_p(top, 0755) < 0) {
			error("cannot create %s: %s", top, strerror(errno));
			free(lock), free(root), free(top);
			return NULL;
		}
		int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		free(lock);
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0) {
			*lock_fd = fd;
			free(top);
			return root;
		}
		if (fd >= 0)
			close(fd);
		free(root);
	}
	error("no free embedded libvirt root under %s", top);
	free(top);
	return NULL;
}

/*
 * write_qemu_conf: the embedded driver's qemu.conf. stdio_handler "file"
 * (no virtlogd daemon); QEMU runs as the user running bootrig, so it can
 * read the kernel and initramfs wherever they are (as root, libvirt would
 * otherwise switch to libvirt-qemu, which cannot enter /root); and with
 * no security driver and no dynamic ownership, libvirt never chowns or
 * labels the user's kernel and initramfs files (nor keeps xattrs on them).
 */
int write_qemu_conf(const char *root)
{
	char *etc = xasprintf("%s/etc", root);
	char *conf = xasprintf("%s/qemu.conf", etc);
	char *text = xasprintf("# written by bootrig\nstdio_handler = \"file\"\n"
			       "user = \"+%u\"\ngroup = \"+%u\"\n"
			       "security_driver = \"none\"\ndynamic_ownership = 0\n"
			       "remember_owner = 0\n",
			       (unsigned)geteuid(), (unsigned)getegid());
	int rc = mkdir_p(etc, 0755) < 0 ? error("cannot create %s: %s", etc, strerror(errno))
		 : write_file_atomic(conf, text, strlen(text));
	free(text), free(conf), free(etc);
	return rc;
}

/* ---------------------------------------------------------------- guardian */

/* Reads /proc/PID/WHAT into buf[size], NUL-terminated: the bytes read
 * (<= 0: none). Allocates nothing: the guardian (a forked child) and the
 * event thread (beside libvirt's forks) call it. */
static ssize_t read_proc(const char *pid, const char *what, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%.20s/%s", pid, what);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* One entry of getdents64(2) (struct linux_dirent64): /proc is read with
 * it, not opendir(), wherever another thread may fork or we are a forked
 * child (opendir() mallocs). */
struct dirent64_raw {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* proc_each: visit(pid, arg) for every process in /proc (pid: its
 * directory's name, digits). /proc is read with getdents64 into a stack
 * buffer: no malloc, so this may run in a forked child of a process with
 * threads (the guardian), from a signal handler (emergency_stop) or while
 * libvirt forks in another thread (reap_strays). */
static void proc_each(void (*visit)(const char *pid, void *arg), void *arg)
{
	int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return;
	char ents[8192];
	long len;
	while ((len = syscall(SYS_getdents64, dir, ents, sizeof(ents))) > 0) {
		for (long off = 0; off < len;) {
			const struct dirent64_raw *d = (const void *)(ents + off);
			off += d->d_reclen;
			if (d->d_name[0] >= '1' && d->d_name[0] <= '9')
				visit(d->d_name, arg);
		}
	}
	close(dir);
}

/* Does pid's command line hold needle? (Its NULs read as spaces.) */
static bool cmdline_has(const char *pid, const char *needle)
{
	char cmd[4096];
	ssize_t n = read_proc(pid, "cmdline", cmd, sizeof(cmd));
	for (ssize_t i = 0; i < n; i++)
		if (!cmd[i])
			cmd[i] = ' ';
	return n > 0 && strstr(cmd, needle);
}

struct kill_marked_arg {
	const char *mark;
	int killed;
};

static void kill_if_marked(const char *pid, void *arg)
{
	struct kill_marked_arg *k = arg;
	if (cmdline_has(pid, k->mark) && kill(atoi(pid), SIGKILL) == 0)
		k->killed++;
}

/* Kills every process whose command line holds `mark` (QEMU's
 * "-name guest=bootrig-<pid>-<n>,..."); returns how many. */
int kill_marked(const char *mark)
{
	struct kill_marked_arg k = { mark, 0 };
	proc_each(kill_if_marked, &k);
	return k.killed;
}

/* "pid (comm) S ppid ...": the ppid of a /proc/<pid>/stat text, or -1
 * (comm may hold spaces and parentheses). */
static long stat_ppid(const char *stat)
{
	const char *close_paren = strrchr(stat, ')');
	if (!close_paren || strlen(close_paren) < 4)
		return -1;
	return strtol(close_paren + 4, NULL, 10);
}

struct kill_children_arg {
	long self;
	pid_t except;
	const char *others, *mine;
	int killed;
};

static void kill_if_child(const char *pid, void *arg)
{
	struct kill_children_arg *k = arg;
	char stat[512];
	pid_t p = (pid_t)atoi(pid);
	if (p == k->except || read_proc(pid, "stat", stat, sizeof(stat)) <= 0 ||
	    stat_ppid(stat) != k->self)
		return;
	if (k->others && cmdline_has(pid, k->others) && !(k->mine && cmdline_has(pid, k->mine)))
		return;     /* another boot's QEMU */
	if (kill(p, SIGKILL) == 0)
		k->killed++;
}

/*
 * kill_children: SIGKILL every child of ours (as libvirt's subreaper we
 * are the parent of every QEMU it daemonized, and of whatever a stand-in
 * emulator became) but except (the guardian), and but another boot's
 * QEMU: a child whose command line holds others ("guest=bootrig-<pid>-")
 * and not mine ("guest=<name>,"). others NULL: every child. A launcher
 * stuck between fork and exec (issue 27's hang) is a child too.
 * Async-signal-safe (proc_each). Returns how many.
 */
int kill_children(pid_t except, const char *others, const char *mine)
{
	struct kill_children_arg k = { (long)getpid(), except, others, mine, 0 };
	proc_each(kill_if_child, &k);
	return k.killed;
}

/*
 * guardian_main: the guardian child. A byte on the pipe means bootrig
 * closed the backend itself (every domain is gone): it exits. End of file
 * means bootrig died (even SIGKILL closes the pipe): it then
 * kills every QEMU whose domain bootrig named (backend.h: "bootrig-<pid>-
 * <n>"), twice, a second apart, for a QEMU that libvirt was still starting.
 * Libvirt daemonizes QEMU, so QEMU is not our child and PR_SET_PDEATHSIG
 * cannot be put on it: this process is how no QEMU outlives bootrig.
 */
static void guardian_main(int fd, pid_t owner)
{
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	char c;
	for (;;) {
		ssize_t n = read(fd, &c, 1);
		if (n == 1)            /* bootrig closed the backend itself: all clear */
			_exit(EXIT_PASS);
		if (n == 0 || errno != EINTR)
			break;
	}
	char mark[64];
	snprintf(mark, sizeof(mark), "guest=bootrig-%ld-", (long)owner);
	kill_marked(mark);
	sleep(1);
	kill_marked(mark);
	_exit(EXIT_PASS);
}

/* Starts the guardian; before any thread exists (it forks). */
void start_guardian(struct lv_backend *lv)
{
	int fds[2];
	lv->guardian = -1;
	lv->guardian_fd = -1;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		warning("no guardian process: %s", strerror(errno));
		return;
	}
	pid_t owner = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		warning("no guardian process: %s", strerror(errno));
		close(fds[0]), close(fds[1]);
		return;
	}
	if (pid == 0) {
		close(fds[1]);
		guardian_main(fds[0], owner);
	}
	close(fds[0]);
	lv->guardian = pid;
	lv->guardian_fd = fds[1];
}

/* ---------------------------------------------------------------- pids and reaping */

/* The QEMU pid of an embedded domain (from the driver's pid file), or 0. */
static pid_t read_qemu_pid(const struct lv_host *h, const char *name)
{
	if (!h->embed)
		return 0;
	char *path = xasprintf("%s/run/qemu/%s.pid", h->lv->embed_root, name);
	char *text = NULL;
	pid_t pid = 0;
	if (read_file(path, &text, NULL) == 0)
		pid = (pid_t)atoi(text);
	free(text), free(path);
	return pid;
}

void remember_pid(struct lv_backend *lv, struct lv_machine *m)
{
	m->qemu_pid = read_qemu_pid(m->host, m->name);
	pthread_mutex_lock(&lv->lock);
	for (int i = 0; i < MAX_MACHINES; i++)
		if (lv->machines[i] == m)
			lv->pids[i] = m->qemu_pid;
	pthread_mutex_unlock(&lv->lock);
}

/* The embedded QEMU of pid has exited (a zombie of ours, or gone). */
bool qemu_gone(pid_t pid)
{
	siginfo_t si = { 0 };
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0)
		return si.si_pid == pid;
	return kill(pid, 0) < 0 && errno == ESRCH;
}

/*
 * reap_qemu: collect m's QEMU if it has exited (it is our child when we
 * are its subreaper; only that pid is waited for, never another child
 * libvirt waits for itself). block: wait for it (after SIGKILL).
 */
void reap_qemu(struct lv_machine *m, bool block)
{
	if (m->qemu_pid <= 0)
		return;
	int status;
	pid_t r;
	do
		r = waitpid(m->qemu_pid, &status, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r != m->qemu_pid && !(r < 0 && errno == ECHILD && block))
		return;
	/* gone (or never ours to wait for): its pid may be reused now */
	pthread_mutex_lock(&m->lv->lock);
	for (int i = 0; i < MAX_MACHINES; i++)
		if (m->lv->machines[i] == m)
			m->lv->pids[i] = 0;
	pthread_mutex_unlock(&m->lv->lock);
	m->qemu_pid = 0;
}

/*
 * reap_strays: as a subreaper, bootrig inherits every QEMU libvirt
 * daemonizes, the capability probes' too (libvirt starts one per emulator
 * on a fresh root and kills it, but it is no longer libvirt's child to
 * wait for). Collects each zombie child whose name is qemu-*, except the
 * domains' own QEMUs (reap_qemu() waits for those, by pid). Called by the
 * event thread's tick, while libvirt may fork in other threads: so it
 * allocates nothing (no opendir(), no stdio), and scans /proc only when a
 * child is waiting to be collected at all.
 */

static void reap_if_stray(const char *pid, void *arg)
{
	struct lv_backend *lv = arg;
	char stat[512];
	if (read_proc(pid, "stat", stat, sizeof(stat)) <= 0)
		return;
	char *open_paren = strchr(stat, '('), *close_paren = strrchr(stat, ')');
	if (!open_paren || !close_paren || strncmp(open_paren + 1, "qemu-", 5) ||
	    strncmp(close_paren, ") Z ", 4) || stat_ppid(stat) != (long)getpid())
		return;
	pid_t p = (pid_t)strtol(pid, NULL, 10);
	bool domain = false;
	pthread_mutex_lock(&lv->lock);
	for (int i = 0; i < MAX_MACHINES; i++)
		domain |= lv->pids[i] == p;
	pthread_mutex_unlock(&lv->lock);
	if (!domain)
		waitpid(p, NULL, WNOHANG);
}

void reap_strays(struct lv_backend *lv)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	if (!lv->embed_root || waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || !si.si_pid)
		return;
	proc_each(reap_if_stray, lv);
}
