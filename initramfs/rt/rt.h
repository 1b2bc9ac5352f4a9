/*
 * rt.h: the freestanding runtime every guest program is built on (init,
 * probe and the benchmark binaries). No libc: this header, the portable
 * sources beside it (start.c, sys.c, string.c, format.c, thread.c,
 * alloc.c) and one file per ABI under arch/ are all there is.
 *
 * The same sources are compiled for six ABIs: x86_64, x32, i386, aarch64,
 * aarch64_ilp32 and arm (EABI, ARM mode). Only arch/<abi>.h differs: it
 * holds the syscall numbers, the syscall0..6 primitives, the entry point
 * and the clone thread trampoline. arch.h picks the file.
 *
 * Conventions, everywhere in this header:
 *  - Every system call wrapper returns what the kernel returned: a value
 *    >= 0 on success, -errno on failure (like the kernel and nolibc's
 *    sys_*()). There is no errno variable. rt_errname(-ret) names an error.
 *    rt_sys_result() in sys.c is the one place a raw register value becomes
 *    that long.
 *  - Pointers returned by rt_mmap() are tested with RT_IS_ERR() and
 *    RT_PTR_ERR().
 *  - 64-bit quantities (file offsets, times, sizes of files) are int64_t on
 *    every ABI; the arch layer splits them where the ABI needs it.
 *  - A program defines `int main(int argc, char **argv, char **envp)`; its
 *    return value is the exit status (exit_group).
 */
#ifndef BOOTRIG_RT_H
#define BOOTRIG_RT_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdbool.h>

#include "arch.h"

/* ------------------------------------------------------------------ */
/* Types a libc would give us.                                          */

typedef long ssize_t;
typedef int pid_t;
typedef int64_t off64_t;

/* ------------------------------------------------------------------ */
/* Error numbers (asm-generic/errno*.h; the same on all six ABIs).      */

#define EPERM 1
#define ENOENT 2
#define ESRCH 3
#define EINTR 4
#define EIO 5
#define ENXIO 6
#define E2BIG 7
#define ENOEXEC 8
#define EBADF 9
#define ECHILD 10
#define EAGAIN 11
#define ENOMEM 12
#define EACCES 13
#define EFAULT 14
#define EBUSY 16
#define EEXIST 17
#define ENODEV 19
#define ENOTDIR 20
#define EISDIR 21
#define EINVAL 22
#define ENFILE 23
#define EMFILE 24
#define ENOTTY 25
#define ETXTBSY 26
#define ENOSPC 28
#define ESPIPE 29
#define EROFS 30
#define EPIPE 32
#define ERANGE 34
#define ENOSYS 38
#define ETIMEDOUT 110
#define ECONNREFUSED 111
#define EADDRINUSE 98
#define EOPNOTSUPP 95
#define EAFNOSUPPORT 97

/* "ENOENT" for 2 (a constant string); "E<n>" in a static buffer for
 * numbers it does not know. */
const char *rt_errname(int err);

/* ------------------------------------------------------------------ */
/* Constants of the calls below (uapi values, common to our ABIs).      */

#define AT_FDCWD (-100)
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_REMOVEDIR 0x200
#define AT_EMPTY_PATH 0x1000

#define O_RDONLY 00
#define O_WRONLY 01
#define O_RDWR 02
#define O_CREAT 0100
#define O_EXCL 0200
#define O_NOCTTY 0400
#define O_TRUNC 01000
#define O_APPEND 02000
#define O_NONBLOCK 04000
#define O_CLOEXEC 02000000
/* O_DIRECTORY differs (x86 0200000, arm/arm64 040000): arch.h has it. */

#define F_GETFD 1
#define F_SETFD 2
#define F_GETFL 3
#define F_SETFL 4
#define FD_CLOEXEC 1

#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2

#define S_IFMT 0170000
#define S_IFDIR 0040000
#define S_IFREG 0100000
#define S_IFCHR 0020000
#define S_ISDIR(m) (((m) & S_IFMT) == S_IFDIR)
#define S_ISREG(m) (((m) & S_IFMT) == S_IFREG)

#define PROT_NONE 0
#define PROT_READ 1
#define PROT_WRITE 2
#define PROT_EXEC 4
#define MAP_SHARED 0x01
#define MAP_PRIVATE 0x02
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define MAP_STACK 0x20000
#define MAP_POPULATE 0x8000

#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_MONOTONIC_RAW 4
#define CLOCK_BOOTTIME 7

#define WNOHANG 1
#define WUNTRACED 2
#define __WALL 0x40000000
#define WIFEXITED(s) (((s) & 0x7f) == 0)
#define WEXITSTATUS(s) (((s) >> 8) & 0xff)
#define WIFSIGNALED(s) (((s) & 0x7f) != 0 && ((s) & 0x7f) != 0x7f)
#define WTERMSIG(s) ((s) & 0x7f)

#define SIGHUP 1
#define SIGINT 2
#define SIGQUIT 3
#define SIGILL 4
#define SIGTRAP 5
#define SIGABRT 6
#define SIGBUS 7
#define SIGFPE 8
#define SIGKILL 9
#define SIGUSR1 10
#define SIGSEGV 11
#define SIGUSR2 12
#define SIGPIPE 13
#define SIGALRM 14
#define SIGTERM 15
#define SIGCHLD 17
#define SIGCONT 18
#define SIGSTOP 19
#define SIG_DFL ((rt_sighandler_t)0)
#define SIG_IGN ((rt_sighandler_t)1)
#define SA_NOCLDSTOP 0x00000001
#define SA_SIGINFO 0x00000004
#define SA_RESTORER 0x04000000
#define SA_ONSTACK 0x08000000
#define SA_RESTART 0x10000000
#define SA_NODEFER 0x40000000
#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2

#define CLONE_VM 0x00000100
#define CLONE_FS 0x00000200
#define CLONE_FILES 0x00000400
#define CLONE_SIGHAND 0x00000800
#define CLONE_VFORK 0x00004000
#define CLONE_THREAD 0x00010000
#define CLONE_SYSVSEM 0x00040000
#define CLONE_PARENT_SETTID 0x00100000
#define CLONE_CHILD_CLEARTID 0x00200000
#define CLONE_CHILD_SETTID 0x01000000

#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_PRIVATE_FLAG 128

#define MS_RDONLY 1
#define MS_NOSUID 2
#define MS_NODEV 4
#define MS_NOEXEC 8
#define MNT_DETACH 2

#define RB_POWER_OFF 0x4321fedc
#define RB_AUTOBOOT 0x01234567
#define RB_HALT_SYSTEM 0xcdef0123

/* syslog(2) / klogctl actions. */
#define SYSLOG_ACTION_READ_ALL 3
#define SYSLOG_ACTION_CONSOLE_OFF 6
#define SYSLOG_ACTION_CONSOLE_ON 7
#define SYSLOG_ACTION_CONSOLE_LEVEL 8

#define PR_SET_NAME 15
#define PR_SET_PDEATHSIG 1
#define PR_SET_CHILD_SUBREAPER 36

#define GRND_NONBLOCK 1

#define AF_UNIX 1
#define AF_INET 2
#define SOCK_STREAM 1
#define SOCK_DGRAM 2
#define SOCK_CLOEXEC O_CLOEXEC
#define IPPROTO_TCP 6
#define SOL_SOCKET 1
#define SO_REUSEADDR 2
#define TCP_NODELAY 1
#define SHUT_RDWR 2
#define INADDR_LOOPBACK 0x7f000001u
#define INADDR_ANY 0u

/* Network interface ioctls (init brings up lo). */
#define SIOCGIFFLAGS 0x8913
#define SIOCSIFFLAGS 0x8914
#define SIOCSIFADDR 0x8916
#define SIOCSIFNETMASK 0x891c
#define FIONREAD 0x541b              /* bytes queued in a pipe (int) */
#define IFF_UP 0x1
#define IFF_RUNNING 0x40

/* perf_event_open(2). */
#define PERF_TYPE_HARDWARE 0
#define PERF_TYPE_SOFTWARE 1
#define PERF_COUNT_HW_CPU_CYCLES 0
#define PERF_COUNT_HW_INSTRUCTIONS 1
#define PERF_COUNT_SW_TASK_CLOCK 1
#define PERF_ATTR_DISABLED (1ull << 0)
#define PERF_ATTR_EXCLUDE_KERNEL (1ull << 5)
#define PERF_ATTR_EXCLUDE_HV (1ull << 6)
#define PERF_EVENT_IOC_ENABLE 0x2400
#define PERF_EVENT_IOC_DISABLE 0x2401
#define PERF_EVENT_IOC_RESET 0x2403
#define PERF_FORMAT_TOTAL_TIME_ENABLED (1ull << 0)
#define PERF_FORMAT_TOTAL_TIME_RUNNING (1ull << 1)
#define PR_TASK_PERF_EVENTS_DISABLE 31
#define PR_TASK_PERF_EVENTS_ENABLE 32
/* Sampling (the profile pass, initramfs/bench/profile.h). */
#define PERF_COUNT_SW_CPU_CLOCK 0
#define PERF_SAMPLE_IP (1ull << 0)
#define PERF_SAMPLE_TID (1ull << 1)
#define PERF_SAMPLE_CALLCHAIN (1ull << 5)
#define PERF_ATTR_INHERIT (1ull << 1)
#define PERF_ATTR_EXCLUDE_USER (1ull << 4)
#define PERF_ATTR_COMM (1ull << 9)
#define PERF_FLAG_FD_CLOEXEC 8ul
#define PERF_RECORD_LOST 2
#define PERF_RECORD_COMM 3
#define PERF_RECORD_SAMPLE 9
#define PERF_RECORD_MISC_CPUMODE_MASK 7
#define PERF_RECORD_MISC_KERNEL 1
#define PERF_RECORD_MISC_USER 2
#define PERF_RECORD_MISC_COMM_EXEC (1u << 13)
/* Callchain context markers (u64 values >= PERF_CONTEXT_MAX). */
#define PERF_CONTEXT_HV ((uint64_t)-32)
#define PERF_CONTEXT_KERNEL ((uint64_t)-128)
#define PERF_CONTEXT_USER ((uint64_t)-512)
#define PERF_CONTEXT_MAX ((uint64_t)-4095)

/* ------------------------------------------------------------------ */
/* Structures the kernel reads or writes (same layout on all ABIs).     */

/* struct __kernel_timespec: 64-bit seconds on every ABI (the time64 calls
 * are used on the 32-bit ABIs). */
struct rt_timespec {
	int64_t tv_sec;
	int64_t tv_nsec;
};

struct rt_utsname {
	char sysname[65];
	char nodename[65];
	char release[65];
	char version[65];
	char machine[65];
	char domainname[65];
};

/* A portable stat: filled from the ABI's own stat call and structure
 * (newfstatat on 64-bit ABIs, fstatat64 on 32-bit ones). */
struct rt_stat {
	uint64_t dev, ino, rdev;
	uint32_t mode, nlink, uid, gid;
	int64_t size, blocks;
	int64_t blksize;
	int64_t mtime_sec, mtime_nsec;
};

struct rt_sockaddr_in {
	uint16_t sin_family;   /* AF_INET */
	uint16_t sin_port;     /* network byte order: rt_htons() */
	uint32_t sin_addr;     /* network byte order: rt_htonl() */
	uint8_t sin_zero[8];
};

/* struct ifreq, as far as SIOCSIFFLAGS / SIOCSIFADDR use it (40 bytes on
 * 64-bit ABIs, 32 on 32-bit ones: the union holds a struct ifmap with
 * unsigned longs). */
struct rt_ifreq {
	char ifr_name[16];
	union {
		struct rt_sockaddr_in ifr_addr;
		short ifr_flags;
		unsigned long ifr_pad[3];
		char ifr_bytes[24];
	};
};

/* struct perf_event_attr up to PERF_ATTR_SIZE_VER5 (112 bytes). */
struct rt_perf_event_attr {
	uint32_t type;
	uint32_t size;                 /* sizeof(struct rt_perf_event_attr) */
	uint64_t config;
	uint64_t sample_period;
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t flags;                /* PERF_ATTR_* bits (the bitfield) */
	uint32_t wakeup_events;
	uint32_t bp_type;
	uint64_t config1;
	uint64_t config2;
	uint64_t branch_sample_type;
	uint64_t sample_regs_user;
	uint32_t sample_stack_user;
	int32_t clockid;
	uint64_t sample_regs_intr;
	uint32_t aux_watermark;
	uint16_t sample_max_stack;
	uint16_t reserved_2;
};

/* The first page of a sampling event's ring buffer (struct
 * perf_event_mmap_page): only the data section's fields are used. The
 * same layout on every ABI (the 32-bit ABIs included: u64 fields). */
struct rt_perf_mmap_page {
	uint8_t header[1024];          /* version, lock, time fields... */
	volatile uint64_t data_head;   /* written by the kernel */
	volatile uint64_t data_tail;   /* written by the reader */
	uint64_t data_offset;          /* where the data pages start */
	uint64_t data_size;
};
/* The ring's barriers (as perf's own reader has them): read
 * data_head, then rt_perf_rmb() before reading records; rt_perf_mb()
 * after reading them, before writing data_tail. Fences the compiler
 * turns into each ABI's instruction (dmb ish on arm and arm64, nothing
 * or mfence on x86). */
static inline void rt_perf_rmb(void) { __atomic_thread_fence(__ATOMIC_ACQUIRE); }
static inline void rt_perf_mb(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

/* struct linux_dirent64, as rt_getdents64() returns them. */
struct rt_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

typedef void (*rt_sighandler_t)(int);

/* ------------------------------------------------------------------ */
/* Start-up and exit.                                                   */

extern char **rt_environ;

/* exit_group(2): ends every thread of the process. */
__attribute__((noreturn)) void rt_exit(int status);
/* exit(2): ends the calling thread only. */
__attribute__((noreturn)) void rt_thread_exit(int status);

/* ------------------------------------------------------------------ */
/* System calls. Return >= 0 or -errno (see the top of this file).      */

long rt_read(int fd, void *buf, size_t n);
long rt_write(int fd, const void *buf, size_t n);
/* rt_write_all: writes all n bytes (retrying short writes and EINTR);
 * returns n or -errno. */
long rt_write_all(int fd, const void *buf, size_t n);
long rt_open(const char *path, int flags, int mode);          /* openat(AT_FDCWD) */
long rt_openat(int dirfd, const char *path, int flags, int mode);
long rt_close(int fd);
int64_t rt_lseek(int fd, int64_t offset, int whence);        /* lseek or _llseek */
long rt_stat(const char *path, struct rt_stat *st);
long rt_lstat(const char *path, struct rt_stat *st);
long rt_fstat(int fd, struct rt_stat *st);
long rt_fstatat(int dirfd, const char *path, struct rt_stat *st, int flags);
long rt_pipe2(int fds[2], int flags);
long rt_dup(int fd);
long rt_dup2(int oldfd, int newfd);                          /* via dup3 */
long rt_dup3(int oldfd, int newfd, int flags);
long rt_fcntl(int fd, int cmd, long arg);
long rt_ioctl(int fd, unsigned long req, void *arg);
long rt_unlink(const char *path);
long rt_mkdir(const char *path, int mode);
long rt_rmdir(const char *path);
long rt_chdir(const char *path);
long rt_fsync(int fd);
long rt_ftruncate(int fd, int64_t length);
long rt_getdents64(int fd, void *buf, size_t n);
long rt_access(const char *path, int mode);                  /* faccessat */

struct rt_pollfd {
	int fd;
	short events;
	short revents;
};
#define POLLIN 0x001
#define POLLOUT 0x004
#define POLLERR 0x008
#define POLLHUP 0x010
/* rt_poll: poll(2) over ppoll (ppoll_time64 on 32-bit ABIs); timeout_ms
 * < 0 waits for ever. Returns the number of ready fds, 0 on timeout. */
long rt_poll(struct rt_pollfd *fds, unsigned n, int timeout_ms);

long rt_getpid(void);
long rt_getppid(void);
long rt_gettid(void);
/* rt_fork: clone(SIGCHLD); 0 in the child, its pid in the parent. */
long rt_fork(void);
long rt_execve(const char *path, char *const argv[], char *const envp[]);
long rt_wait4(pid_t pid, int *status, int options, void *rusage);
long rt_waitpid(pid_t pid, int *status, int options);       /* wait4, no rusage */
long rt_kill(pid_t pid, int sig);
long rt_setpgid(pid_t pid, pid_t pgid);
long rt_setsid(void);
long rt_sched_yield(void);
long rt_sched_setaffinity(pid_t pid, size_t size, const void *mask);
/* rt_sched_setscheduler: sched_setscheduler(2) for pid (0: the calling
 * thread) with SCHED_* policy and its static priority. */
long rt_sched_setscheduler(pid_t pid, int policy, int priority);
#define SCHED_OTHER 0
#define SCHED_FIFO 1
long rt_sched_getaffinity(pid_t pid, size_t size, void *mask);
long rt_prctl(int option, unsigned long a2, unsigned long a3, unsigned long a4,
	      unsigned long a5);
long rt_getrandom(void *buf, size_t n, unsigned flags);
long rt_uname(struct rt_utsname *u);
long rt_reboot(unsigned cmd);                                /* magic numbers included */
long rt_mount(const char *src, const char *target, const char *fstype,
	      unsigned long flags, const void *data);
long rt_umount2(const char *target, int flags);
long rt_sync(void);
/* rt_syslog: syslog(2) (klogctl): SYSLOG_ACTION_CONSOLE_LEVEL sets the
 * console loglevel to len. */
long rt_syslog(int type, char *buf, int len);
/* rt_finit_module: finit_module(2): loads the module open on fd with the
 * parameters params ("kind=bug"). */
long rt_finit_module(int fd, const char *params, int flags);

void *rt_mmap(void *addr, size_t len, int prot, int flags, int fd, int64_t offset);
long rt_munmap(void *addr, size_t len);
long rt_mprotect(void *addr, size_t len, int prot);
#define RT_IS_ERR(p) ((unsigned long)(p) >= (unsigned long)-4095)
#define RT_PTR_ERR(p) ((long)(p))

/* CLOCK_MONOTONIC etc. by the raw syscall (no vDSO); clock_gettime64 on
 * the 32-bit ABIs. */
long rt_clock_gettime(int clock, struct rt_timespec *ts);
/* rt_now_ns: CLOCK_MONOTONIC in nanoseconds. */
uint64_t rt_now_ns(void);
long rt_nanosleep(const struct rt_timespec *req, struct rt_timespec *rem);
/* rt_sleep_ms: sleeps ms milliseconds (restarted after signals). */
void rt_sleep_ms(unsigned ms);

/* What the clock of rt_now_ns() is like, measured by rt_clock_measure():
 *   overhead_ns  the least time one rt_now_ns() call adds to an interval
 *                (the shortest of 64 back-to-back pairs);
 *   res_ns       the clock's step: the smallest difference between two
 *                distinct intervals of the faster half (a coarse clock
 *                shows 0 and its tick), at least 1;
 *   noise_ppm    how much the same back-to-back pair varies: (median -
 *                fastest) / fastest of the 64, in millionths. 0 on a
 *                deterministic clock (QEMU's icount); host preemption and
 *                TCG's own jitter on a wall clock.
 * It takes 128 clock reads. init measures it once per boot and
 * gives it to every test (bench.h: clock_res_ns=, clock_noise_ppm=). */
struct rt_clock {
	uint64_t overhead_ns, res_ns;
	uint32_t noise_ppm;
};
void rt_clock_measure(struct rt_clock *c);

/* rt_sigaction: installs handler (or SIG_DFL / SIG_IGN) for sig with
 * SA_* flags; the per-ABI restorer is added where the ABI needs one. The
 * mask during the handler is empty. */
long rt_sigaction(int sig, rt_sighandler_t handler, unsigned long flags);
/* rt_sigprocmask on the 64-signal set (bit n-1 is signal n). */
long rt_sigprocmask(int how, const uint64_t *set, uint64_t *old);

/* rt_futex: futex(2) (futex_time64 on 32-bit ABIs) with op as given:
 * FUTEX_WAIT or FUTEX_WAKE, with or without FUTEX_PRIVATE_FLAG. */
long rt_futex(volatile uint32_t *addr, int op, uint32_t val, const struct rt_timespec *timeout);
/* futex(2), FUTEX_PRIVATE_FLAG added: wait while *addr == val (timeout may
 * be NULL; relative), wake up to n waiters. A private waiter is not woken
 * by the kernel's CLONE_CHILD_CLEARTID wake, which is a shared one. */
long rt_futex_wait(volatile uint32_t *addr, uint32_t val, const struct rt_timespec *timeout);
long rt_futex_wake(volatile uint32_t *addr, int n);

long rt_socket(int domain, int type, int protocol);
long rt_socketpair(int domain, int type, int protocol, int fds[2]);
long rt_bind(int fd, const void *addr, unsigned addrlen);
long rt_listen(int fd, int backlog);
long rt_accept(int fd, void *addr, unsigned *addrlen);      /* accept4(..., 0) */
long rt_connect(int fd, const void *addr, unsigned addrlen);
long rt_setsockopt(int fd, int level, int name, const void *val, unsigned len);
long rt_getsockname(int fd, void *addr, unsigned *addrlen);
long rt_shutdown(int fd, int how);
static inline uint16_t rt_htons(uint16_t v) { return (uint16_t)((v << 8) | (v >> 8)); }
static inline uint32_t rt_htonl(uint32_t v)
{
	return (v >> 24) | ((v >> 8) & 0xff00) | ((v << 8) & 0xff0000) | (v << 24);
}

long rt_perf_event_open(struct rt_perf_event_attr *attr, pid_t pid, int cpu,
			int group_fd, unsigned long flags);
/* rt_online_cpus: the online CPUs (/sys/devices/system/cpu/online, a
 * list like "0-3,5") into cpus[0..max-1]; returns how many, or -errno
 * when the file cannot be read or parsed. */
int rt_online_cpus(int *cpus, int max);

/* rt_syscall: any call by number (the arch's __NR_* names), for what has
 * no wrapper. Arguments are passed as the ABI's register width. */
long rt_syscall(long nr, rt_sysarg_t a1, rt_sysarg_t a2, rt_sysarg_t a3,
		rt_sysarg_t a4, rt_sysarg_t a5, rt_sysarg_t a6);

/* ------------------------------------------------------------------ */
/* Threads over raw clone(CLONE_VM|CLONE_THREAD|...), joined by a futex
 * on the child tid the kernel clears at exit (CLONE_CHILD_CLEARTID).   */

struct rt_thread {
	volatile uint32_t tid;      /* non-zero while the thread runs */
	int (*fn)(void *arg);
	void *arg;
	int ret;                    /* fn's return value, after join */
	void *stack;                /* mmap'd */
	size_t stack_size;
};

/* rt_thread_start: runs fn(arg) in a new thread with its own mmap'd stack
 * of stack_size bytes (0: 64 KiB). Returns the tid or -errno. The thread
 * has no TLS; it must not call rt_exit() unless it means to end the
 * process. */
long rt_thread_start(struct rt_thread *t, int (*fn)(void *), void *arg, size_t stack_size);
/* rt_thread_join: waits for the thread to end, frees its stack, returns
 * fn's return value. */
int rt_thread_join(struct rt_thread *t);

/* ------------------------------------------------------------------ */
/* Memory and strings. memcpy/memset/memmove/memcmp are real symbols
 * (gcc emits calls to them).                                           */

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void *rt_memchr(const void *s, int c, size_t n);
size_t rt_strlen(const char *s);
size_t rt_strnlen(const char *s, size_t max);
int rt_strcmp(const char *a, const char *b);
int rt_strncmp(const char *a, const char *b, size_t n);
char *rt_strchr(const char *s, int c);
char *rt_strrchr(const char *s, int c);
char *rt_strstr(const char *hay, const char *needle);
/* rt_strlcpy: copies at most size-1 bytes, always terminates (size > 0);
 * returns strlen(src). */
size_t rt_strlcpy(char *dst, const char *src, size_t size);
/* rt_starts_with: true when s begins with prefix. */
bool rt_starts_with(const char *s, const char *prefix);
/* rt_parse_u64: decimal (or 0x hex) at s into *out; returns the pointer
 * after the digits, or NULL when there is no digit or it overflows. */
const char *rt_parse_u64(const char *s, uint64_t *out);
/* rt_atoi_default: the whole of s as a non-negative decimal int, or def
 * when s is NULL, empty, or not entirely digits. */
long rt_atol_default(const char *s, long def);

/* rt_argval: for a program called with key=value arguments (the tests'
 * argv: abi=aarch64 samples=11 slow_null=10), the value of key, or NULL. */
const char *rt_argval(int argc, char **argv, const char *key);
/* rt_getenv: the value of NAME in rt_environ, or NULL. */
const char *rt_getenv(const char *name);

/* Bump allocator over mmap'd chunks: memory is zeroed, 16-byte aligned,
 * never freed one by one. NULL when the kernel has no memory. */
void *rt_alloc(size_t n);
/* rt_alloc_pages / rt_free_pages: a private anonymous mapping of its own. */
void *rt_alloc_pages(size_t n);
void rt_free_pages(void *p, size_t n);

/* rt_read_file: up to size-1 bytes of path into buf, NUL-terminated.
 * Returns the length or -errno. */
long rt_read_file(const char *path, char *buf, size_t size);

/* ------------------------------------------------------------------ */
/* Formatted output. Conversions: %d %i %u %x %X %o %s %c %p %% with the
 * l, ll, z length modifiers, width, '-', '0', precision on %s (%.*s),
 * and %f on doubles with a precision (%.4f; default 6, at most 9),
 * printed as fixed point, never exponent form. Each rt_printf family
 * call formats into one buffer of at most RT_PRINTF_MAX bytes (longer
 * output is cut) and writes it with one write(2), so a line printed by
 * one call is never interleaved with another process's. */

#define RT_PRINTF_MAX 4096
__attribute__((format(printf, 3, 0)))
int rt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
/* rt_snprintf returns the length the whole output would have (like C99). */
__attribute__((format(printf, 3, 4)))
int rt_snprintf(char *buf, size_t size, const char *fmt, ...);
/* rt_append: rt_snprintf at buf + *len (of size), *len advanced and kept
 * below size (the output cut when it does not fit). */
__attribute__((format(printf, 4, 5)))
void rt_append(char *buf, size_t size, size_t *len, const char *fmt, ...);
/* rt_u64_double: a 64-bit count as a double, from two 32-bit halves: the
 * 32-bit ABIs then need no 64-bit integer conversion helpers (soft-float
 * code on arm). */
static inline double rt_u64_double(uint64_t v)
{
	return (double)(uint32_t)(v >> 32) * 4294967296.0 + (double)(uint32_t)v;
}
__attribute__((format(printf, 2, 3)))
int rt_dprintf(int fd, const char *fmt, ...);
__attribute__((format(printf, 1, 2)))
int rt_printf(const char *fmt, ...);                          /* fd 1 */
__attribute__((format(printf, 1, 2)))
int rt_eprintf(const char *fmt, ...);                         /* fd 2 */
/* rt_die: prints "<fmt>\n" on stderr and exits with status 1. */
__attribute__((noreturn, format(printf, 1, 2)))
void rt_die(const char *fmt, ...);

#endif
