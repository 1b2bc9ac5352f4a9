/*
 * sys.c: the system call wrappers of rt.h, written once for every ABI over
 * the arch layer's rt_syscall0..6 and __NR_* numbers.
 *
 * Where ABIs differ in which call exists (lseek or _llseek, mmap or mmap2,
 * clock_gettime or clock_gettime64), the choice is made by whether the
 * arch file defines the number, as nolibc does; no code here names an
 * architecture. Every wrapper returns what the kernel returned: >= 0, or
 * -errno (see rt_sys_result()).
 */
#include "rt.h"

/* rt_sys_result: the one place a raw syscall return becomes the runtime's
 * convention. Linux returns -4095..-1 for errors on all our ABIs; every
 * other value is a result. The raw value is already narrowed to long by
 * the arch layer, so this only documents and keeps the convention. */
static inline long rt_sys_result(long raw)
{
	return raw;
}

/* SYSn(nr, args...): the call, through rt_sys_result(). Variadic so that
 * an argument macro expanding to a register pair (RT_ARG64 on 32-bit
 * ABIs) counts as two arguments. */
#define SYS0(...) rt_sys_result(rt_syscall0(__VA_ARGS__))
#define SYS1(...) rt_sys_result(rt_syscall1(__VA_ARGS__))
#define SYS2(...) rt_sys_result(rt_syscall2(__VA_ARGS__))
#define SYS3(...) rt_sys_result(rt_syscall3(__VA_ARGS__))
#define SYS4(...) rt_sys_result(rt_syscall4(__VA_ARGS__))
#define SYS5(...) rt_sys_result(rt_syscall5(__VA_ARGS__))
#define SYS6(...) rt_sys_result(rt_syscall6(__VA_ARGS__))

long rt_syscall(long nr, rt_sysarg_t a1, rt_sysarg_t a2, rt_sysarg_t a3,
		rt_sysarg_t a4, rt_sysarg_t a5, rt_sysarg_t a6)
{
	return SYS6(nr, a1, a2, a3, a4, a5, a6);
}

/* RT_KTS(ts): the timespec as the kernel reads it. Where the arch file
 * says RT_KERNEL_TIME32 (aarch64_ilp32's time32 calls), a struct
 * old_timespec32 copy in the caller's frame; elsewhere ts itself.
 * RT_KTS_BACK(ts) copies a kernel-written one back. */
#ifdef RT_KERNEL_TIME32
struct rt_ktimespec {
	int32_t tv_sec, tv_nsec;
};
static struct rt_ktimespec *rt_kts(struct rt_ktimespec *k, const struct rt_timespec *ts)
{
	if (!ts)
		return NULL;
	k->tv_sec = (int32_t)ts->tv_sec;
	k->tv_nsec = (int32_t)ts->tv_nsec;
	return k;
}
static void rt_kts_back(struct rt_timespec *ts, const struct rt_ktimespec *k)
{
	if (ts) {
		ts->tv_sec = k->tv_sec;
		ts->tv_nsec = k->tv_nsec;
	}
}
#define RT_KTS_DECL(name) struct rt_ktimespec name = { 0, 0 }
#define RT_KTS(name, ts) rt_kts(&(name), (ts))
#define RT_KTS_BACK(ts, name) rt_kts_back((ts), &(name))
#else
#define RT_KTS_DECL(name) char name __attribute__((unused))
#define RT_KTS(name, ts) (ts)
#define RT_KTS_BACK(ts, name) ((void)(ts))
#endif

/* ---- process ---- */

void rt_exit(int status)
{
	for (;;)
		rt_syscall1(__NR_exit_group, RT_ARG(status));
}

void rt_thread_exit(int status)
{
	for (;;)
		rt_syscall1(__NR_exit, RT_ARG(status));
}

long rt_getpid(void) { return SYS0(__NR_getpid); }
long rt_getppid(void) { return SYS0(__NR_getppid); }
long rt_gettid(void) { return SYS0(__NR_gettid); }

/* fork as clone(SIGCHLD, no new stack): the generic tables have no fork,
 * and the argument order after the 2nd differs, so pass zeros only. */
long rt_fork(void)
{
	return SYS5(__NR_clone, RT_ARG(SIGCHLD), 0, 0, 0, 0);
}

long rt_execve(const char *path, char *const argv[], char *const envp[])
{
	return SYS3(__NR_execve, RT_PTR(path), RT_PTR(argv), RT_PTR(envp));
}

long rt_wait4(pid_t pid, int *status, int options, void *rusage)
{
	return SYS4(__NR_wait4, RT_ARG(pid), RT_PTR(status), RT_ARG(options), RT_PTR(rusage));
}

long rt_waitpid(pid_t pid, int *status, int options)
{
	long r;

	do
		r = rt_wait4(pid, status, options, NULL);
	while (r == -EINTR);
	return r;
}

long rt_kill(pid_t pid, int sig) { return SYS2(__NR_kill, RT_ARG(pid), RT_ARG(sig)); }
long rt_setpgid(pid_t pid, pid_t pgid) { return SYS2(__NR_setpgid, RT_ARG(pid), RT_ARG(pgid)); }
long rt_setsid(void) { return SYS0(__NR_setsid); }
long rt_sched_yield(void) { return SYS0(__NR_sched_yield); }

long rt_sched_setscheduler(pid_t pid, int policy, int priority)
{
	int param = priority;             /* struct sched_param */
	return SYS3(__NR_sched_setscheduler, RT_ARG(pid), RT_ARG(policy), RT_PTR(&param));
}

long rt_sched_setaffinity(pid_t pid, size_t size, const void *mask)
{
	return SYS3(__NR_sched_setaffinity, RT_ARG(pid), RT_ARG(size), RT_PTR(mask));
}

long rt_sched_getaffinity(pid_t pid, size_t size, void *mask)
{
	return SYS3(__NR_sched_getaffinity, RT_ARG(pid), RT_ARG(size), RT_PTR(mask));
}

long rt_prctl(int option, unsigned long a2, unsigned long a3, unsigned long a4,
	      unsigned long a5)
{
	return SYS5(__NR_prctl, RT_ARG(option), RT_ARG(a2), RT_ARG(a3), RT_ARG(a4), RT_ARG(a5));
}

long rt_getrandom(void *buf, size_t n, unsigned flags)
{
	return SYS3(__NR_getrandom, RT_PTR(buf), RT_ARG(n), RT_ARG(flags));
}

long rt_uname(struct rt_utsname *u) { return SYS1(__NR_uname, RT_PTR(u)); }

long rt_reboot(unsigned cmd)
{
	return SYS4(__NR_reboot, RT_ARG(0xfee1deadu), RT_ARG(0x28121969u), RT_ARG(cmd), 0);
}

long rt_mount(const char *src, const char *target, const char *fstype,
	      unsigned long flags, const void *data)
{
	return SYS5(__NR_mount, RT_PTR(src), RT_PTR(target), RT_PTR(fstype), RT_ARG(flags),
		    RT_PTR(data));
}

long rt_umount2(const char *target, int flags)
{
	return SYS2(__NR_umount2, RT_PTR(target), RT_ARG(flags));
}

long rt_sync(void) { return SYS0(__NR_sync); }

long rt_syslog(int type, char *buf, int len)
{
	return SYS3(__NR_syslog, RT_ARG(type), RT_PTR(buf), RT_ARG(len));
}

long rt_finit_module(int fd, const char *params, int flags)
{
	return SYS3(__NR_finit_module, RT_ARG(fd), RT_PTR(params), RT_ARG(flags));
}

/* ---- files ---- */

long rt_read(int fd, void *buf, size_t n)
{
	return SYS3(__NR_read, RT_ARG(fd), RT_PTR(buf), RT_ARG(n));
}

long rt_write(int fd, const void *buf, size_t n)
{
	return SYS3(__NR_write, RT_ARG(fd), RT_PTR(buf), RT_ARG(n));
}

long rt_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	size_t done = 0;

	while (done < n) {
		long r = rt_write(fd, p + done, n - done);
		if (r == -EINTR || r == -EAGAIN)
			continue;
		if (r < 0)
			return r;
		if (r == 0)
			return -EIO;
		done += (size_t)r;
	}
	return (long)n;
}

long rt_openat(int dirfd, const char *path, int flags, int mode)
{
	return SYS4(__NR_openat, RT_ARG(dirfd), RT_PTR(path), RT_ARG(flags | RT_O_LARGEFILE),
		    RT_ARG(mode));
}

long rt_open(const char *path, int flags, int mode)
{
	return rt_openat(AT_FDCWD, path, flags, mode);
}

long rt_close(int fd) { return SYS1(__NR_close, RT_ARG(fd)); }

int64_t rt_lseek(int fd, int64_t offset, int whence)
{
#ifdef __NR_llseek
	uint64_t result = 0;
	long r = SYS5(__NR_llseek, RT_ARG(fd), RT_ARG((uint32_t)((uint64_t)offset >> 32)),
		      RT_ARG((uint32_t)offset), RT_PTR(&result), RT_ARG(whence));
	return r < 0 ? r : (int64_t)result;
#else
	/* the result is an offset: all 64 bits of the register (x32's long is 32) */
	return rt_syscall3_wide(__NR_lseek, RT_ARG(fd), RT_ARG64(offset), RT_ARG(whence));
#endif
}

/* rt_stat_from_kernel: the ABI's struct into the portable one. */
static void rt_stat_from_kernel(struct rt_stat *st, const struct rt_kstat *k)
{
	st->dev = k->st_dev;
	st->ino = k->st_ino;
	st->rdev = k->st_rdev;
	st->mode = (uint32_t)k->st_mode;
	st->nlink = (uint32_t)k->st_nlink;
	st->uid = (uint32_t)k->st_uid;
	st->gid = (uint32_t)k->st_gid;
	st->size = (int64_t)k->st_size;
	st->blocks = (int64_t)k->st_blocks;
	st->blksize = (int64_t)k->st_blksize;
	st->mtime_sec = (int64_t)k->st_mtime;
	st->mtime_nsec = (int64_t)k->st_mtime_nsec;
}

long rt_fstatat(int dirfd, const char *path, struct rt_stat *st, int flags)
{
	struct rt_kstat k;
	long r = SYS4(__NR_rt_fstatat, RT_ARG(dirfd), RT_PTR(path), RT_PTR(&k), RT_ARG(flags));

	if (r == 0)
		rt_stat_from_kernel(st, &k);
	return r;
}

long rt_stat(const char *path, struct rt_stat *st) { return rt_fstatat(AT_FDCWD, path, st, 0); }

long rt_lstat(const char *path, struct rt_stat *st)
{
	return rt_fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

/* fstat(2) itself (fstat or fstat64), not fstatat(AT_EMPTY_PATH): the
 * benchmark measures the call programs make. */
long rt_fstat(int fd, struct rt_stat *st)
{
	struct rt_kstat k;
#ifdef __NR_fstat64
	long r = SYS2(__NR_fstat64, RT_ARG(fd), RT_PTR(&k));
#else
	long r = SYS2(__NR_fstat, RT_ARG(fd), RT_PTR(&k));
#endif
	if (r == 0)
		rt_stat_from_kernel(st, &k);
	return r;
}

long rt_pipe2(int fds[2], int flags) { return SYS2(__NR_pipe2, RT_PTR(fds), RT_ARG(flags)); }
long rt_dup(int fd) { return SYS1(__NR_dup, RT_ARG(fd)); }

long rt_dup3(int oldfd, int newfd, int flags)
{
	return SYS3(__NR_dup3, RT_ARG(oldfd), RT_ARG(newfd), RT_ARG(flags));
}

/* dup2 over dup3, which refuses oldfd == newfd: dup2 then only checks
 * that the descriptor is open. */
long rt_dup2(int oldfd, int newfd)
{
	if (oldfd == newfd) {
		long r = rt_fcntl(oldfd, F_GETFD, 0);
		return r < 0 ? r : newfd;
	}
	return rt_dup3(oldfd, newfd, 0);
}

long rt_fcntl(int fd, int cmd, long arg)
{
	return SYS3(__NR_fcntl, RT_ARG(fd), RT_ARG(cmd), RT_ARG(arg));
}

long rt_ioctl(int fd, unsigned long req, void *arg)
{
	return SYS3(__NR_ioctl, RT_ARG(fd), RT_ARG(req), RT_PTR(arg));
}

long rt_unlink(const char *path) { return SYS3(__NR_unlinkat, RT_ARG(AT_FDCWD), RT_PTR(path), 0); }

long rt_rmdir(const char *path)
{
	return SYS3(__NR_unlinkat, RT_ARG(AT_FDCWD), RT_PTR(path), RT_ARG(AT_REMOVEDIR));
}

long rt_mkdir(const char *path, int mode)
{
	return SYS3(__NR_mkdirat, RT_ARG(AT_FDCWD), RT_PTR(path), RT_ARG(mode));
}

long rt_chdir(const char *path) { return SYS1(__NR_chdir, RT_PTR(path)); }
long rt_fsync(int fd) { return SYS1(__NR_fsync, RT_ARG(fd)); }

long rt_ftruncate(int fd, int64_t length)
{
#ifdef __NR_ftruncate64
	return SYS6(__NR_ftruncate64, RT_FTRUNCATE64_ARGS(fd, length));
#else
	return SYS2(__NR_ftruncate, RT_ARG(fd), RT_ARG64(length));
#endif
}

long rt_getdents64(int fd, void *buf, size_t n)
{
	return SYS3(__NR_getdents64, RT_ARG(fd), RT_PTR(buf), RT_ARG(n));
}

long rt_access(const char *path, int mode)
{
	return SYS3(__NR_faccessat, RT_ARG(AT_FDCWD), RT_PTR(path), RT_ARG(mode));
}

long rt_poll(struct rt_pollfd *fds, unsigned n, int timeout_ms)
{
	struct rt_timespec ts = { timeout_ms / 1000, (int64_t)(timeout_ms % 1000) * 1000000 };
	RT_KTS_DECL(kts);
	const void *tsp = RT_KTS(kts, timeout_ms < 0 ? NULL : &ts);
#ifdef __NR_ppoll_time64
	return SYS5(__NR_ppoll_time64, RT_PTR(fds), RT_ARG(n), RT_PTR(tsp), 0, 0);
#else
	return SYS5(__NR_ppoll, RT_PTR(fds), RT_ARG(n), RT_PTR(tsp), 0, 0);
#endif
}

/* ---- memory ---- */

void *rt_mmap(void *addr, size_t len, int prot, int flags, int fd, int64_t offset)
{
#ifdef __NR_mmap2
	long r = SYS6(__NR_mmap2, RT_PTR(addr), RT_ARG(len), RT_ARG(prot), RT_ARG(flags),
		      RT_ARG(fd), RT_ARG((unsigned long)(offset >> 12)));
#else
	long r = SYS6(__NR_mmap, RT_PTR(addr), RT_ARG(len), RT_ARG(prot), RT_ARG(flags),
		      RT_ARG(fd), RT_ARG64(offset));
#endif
	return (void *)(uintptr_t)(unsigned long)r;
}

long rt_munmap(void *addr, size_t len) { return SYS2(__NR_munmap, RT_PTR(addr), RT_ARG(len)); }

long rt_mprotect(void *addr, size_t len, int prot)
{
	return SYS3(__NR_mprotect, RT_PTR(addr), RT_ARG(len), RT_ARG(prot));
}

/* ---- time ---- */

long rt_clock_gettime(int clock, struct rt_timespec *ts)
{
#ifdef __NR_clock_gettime64
	return SYS2(__NR_clock_gettime64, RT_ARG(clock), RT_PTR(ts));
#else
	RT_KTS_DECL(k);
	long r = SYS2(__NR_clock_gettime, RT_ARG(clock), RT_PTR(RT_KTS(k, ts)));

	if (r == 0)
		RT_KTS_BACK(ts, k);
	return r;
#endif
}

uint64_t rt_now_ns(void)
{
	struct rt_timespec ts = { 0, 0 };

	rt_clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

long rt_nanosleep(const struct rt_timespec *req, struct rt_timespec *rem)
{
#ifdef __NR_clock_nanosleep_time64
	return SYS4(__NR_clock_nanosleep_time64, RT_ARG(CLOCK_MONOTONIC), 0, RT_PTR(req),
		    RT_PTR(rem));
#else
	RT_KTS_DECL(kreq);
	RT_KTS_DECL(krem);
	long r = SYS2(__NR_nanosleep, RT_PTR(RT_KTS(kreq, req)), RT_PTR(RT_KTS(krem, rem)));

	if (r == -EINTR)
		RT_KTS_BACK(rem, krem);
	return r;
#endif
}

void rt_sleep_ms(unsigned ms)
{
	struct rt_timespec req = { ms / 1000, (int64_t)(ms % 1000) * 1000000 }, rem;

	while (rt_nanosleep(&req, &rem) == -EINTR)
		req = rem;
}

/* Sorts v[0..n-1] ascending (n is small). */
static void sort_u64(uint64_t *v, int n)
{
	for (int i = 1; i < n; i++) {
		uint64_t x = v[i];
		int j = i;

		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

void rt_clock_measure(struct rt_clock *c)
{
	enum { PAIRS = 64 };
	uint64_t d[PAIRS];

	for (int i = 0; i < PAIRS; i++) {
		uint64_t t0 = rt_now_ns();
		d[i] = rt_now_ns() - t0;
	}
	sort_u64(d, PAIRS);
	c->overhead_ns = d[0];
	/* The step: among the faster half (the slower ones took an interrupt),
	 * the smallest difference; a coarse clock reads 0 then its tick. */
	c->res_ns = 0;
	for (int i = 1; i < PAIRS; i++)
		if (d[i] != d[i - 1] && (i < PAIRS / 2 || d[i - 1] == 0) &&
		    (!c->res_ns || d[i] - d[i - 1] < c->res_ns))
			c->res_ns = d[i] - d[i - 1];
	if (!c->res_ns)
		c->res_ns = 1;
	/* The noise: how far the median pair is from the fastest. */
	uint64_t fastest = d[0] ? d[0] : c->res_ns;
	uint64_t ppm = (d[PAIRS / 2] - d[0]) * 1000000u / fastest;
	c->noise_ppm = ppm > 1000000u ? 1000000u : (uint32_t)ppm;
}

/* ---- signals ---- */

/* struct sigaction as the kernel reads it for rt_sigaction on all our
 * ABIs: handler, flags, restorer, then the 64-bit mask as two words (so
 * 32-bit ABIs do not align it to 8). */
struct rt_ksigaction {
	rt_sighandler_t handler;
	unsigned long flags;
	void (*restorer)(void);
	uint32_t mask[2];
};

/* SA_SIGINFO is always set for a handler: without it the 32-bit x86 and
 * arm kernels build the old sigframe, which returns through sigreturn,
 * not the rt_sigreturn our restorer calls. A handler of one int argument
 * ignores the other two. */
long rt_sigaction(int sig, rt_sighandler_t handler, unsigned long flags)
{
	struct rt_ksigaction sa = { handler, flags, NULL, { 0, 0 } };

	if (handler != SIG_DFL && handler != SIG_IGN)
		sa.flags |= SA_SIGINFO;

	if (RT_SA_RESTORER_NEEDED) {
		sa.flags |= SA_RESTORER;
		sa.restorer = rt_sigreturn_restorer;
	}
	return SYS4(__NR_rt_sigaction, RT_ARG(sig), RT_PTR(&sa), 0, RT_ARG(8));
}

long rt_sigprocmask(int how, const uint64_t *set, uint64_t *old)
{
	return SYS4(__NR_rt_sigprocmask, RT_ARG(how), RT_PTR(set), RT_PTR(old), RT_ARG(8));
}

/* ---- futex ---- */

long rt_futex(volatile uint32_t *addr, int op, uint32_t val, const struct rt_timespec *timeout)
{
#ifdef __NR_futex_time64
	return SYS4(__NR_futex_time64, RT_PTR(addr), RT_ARG(op), RT_ARG(val), RT_PTR(timeout));
#else
	RT_KTS_DECL(k);
	return SYS4(__NR_futex, RT_PTR(addr), RT_ARG(op), RT_ARG(val), RT_PTR(RT_KTS(k, timeout)));
#endif
}

long rt_futex_wait(volatile uint32_t *addr, uint32_t val, const struct rt_timespec *timeout)
{
	return rt_futex(addr, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, val, timeout);
}

/* The count travels in the val argument; the timeout slot is unused. */
long rt_futex_wake(volatile uint32_t *addr, int n)
{
	return rt_futex(addr, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, (uint32_t)n, NULL);
}

/* ---- sockets ---- */

long rt_socket(int domain, int type, int protocol)
{
	return SYS3(__NR_socket, RT_ARG(domain), RT_ARG(type), RT_ARG(protocol));
}

long rt_socketpair(int domain, int type, int protocol, int fds[2])
{
	return SYS4(__NR_socketpair, RT_ARG(domain), RT_ARG(type), RT_ARG(protocol), RT_PTR(fds));
}

long rt_bind(int fd, const void *addr, unsigned addrlen)
{
	return SYS3(__NR_bind, RT_ARG(fd), RT_PTR(addr), RT_ARG(addrlen));
}

long rt_listen(int fd, int backlog) { return SYS2(__NR_listen, RT_ARG(fd), RT_ARG(backlog)); }

long rt_accept(int fd, void *addr, unsigned *addrlen)
{
	return SYS4(__NR_accept4, RT_ARG(fd), RT_PTR(addr), RT_PTR(addrlen), 0);
}

long rt_connect(int fd, const void *addr, unsigned addrlen)
{
	return SYS3(__NR_connect, RT_ARG(fd), RT_PTR(addr), RT_ARG(addrlen));
}

long rt_setsockopt(int fd, int level, int name, const void *val, unsigned len)
{
	return SYS5(__NR_setsockopt, RT_ARG(fd), RT_ARG(level), RT_ARG(name), RT_PTR(val),
		    RT_ARG(len));
}

long rt_getsockname(int fd, void *addr, unsigned *addrlen)
{
	return SYS3(__NR_getsockname, RT_ARG(fd), RT_PTR(addr), RT_PTR(addrlen));
}

long rt_shutdown(int fd, int how) { return SYS2(__NR_shutdown, RT_ARG(fd), RT_ARG(how)); }

long rt_perf_event_open(struct rt_perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			unsigned long flags)
{
	return SYS5(__NR_perf_event_open, RT_PTR(attr), RT_ARG(pid), RT_ARG(cpu),
		    RT_ARG(group_fd), RT_ARG(flags));
}

/* raise: what the toolchain's libgcc calls on integer division by zero
 * (__aeabi_ldiv0 on arm); delivers sig to the calling process. */
int raise(int sig);
int raise(int sig)
{
	return (int)rt_kill((pid_t)rt_getpid(), sig);
}

long rt_read_file(const char *path, char *buf, size_t size)
{
	long fd = rt_open(path, O_RDONLY | O_CLOEXEC, 0);
	size_t len = 0;

	if (fd < 0)
		return fd;
	while (len + 1 < size) {
		long r = rt_read((int)fd, buf + len, size - 1 - len);
		if (r == -EINTR)
			continue;
		if (r < 0) {
			rt_close((int)fd);
			return r;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	rt_close((int)fd);
	return (long)len;
}

int rt_online_cpus(int *cpus, int max)
{
	char text[256];
	long len = rt_read_file("/sys/devices/system/cpu/online", text, sizeof(text));
	const char *s = text;
	int n = 0;

	if (len < 0)
		return (int)len;
	while (*s && *s != '\n') {
		uint64_t lo, hi;
		s = rt_parse_u64(s, &lo);
		if (!s)
			return -EINVAL;
		hi = lo;
		if (*s == '-' && !(s = rt_parse_u64(s + 1, &hi)))
			return -EINVAL;
		for (uint64_t c = lo; c <= hi && n < max; c++)
			cpus[n++] = (int)c;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return n > 0 ? n : -EINVAL;
}
