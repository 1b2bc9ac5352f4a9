/*
 * ilp32_trap.c: runs an aarch64_ilp32 binary on an LP64-only arm64 kernel
 * by doing the ILP32 kernel's part itself, to prove our ILP32 binaries
 * follow the ABI written in rt/arch/aarch64_ilp32.h. Static LP64 aarch64,
 * our runtime, linked above 4 GiB (guest.mk); never shipped in an image.
 *
 *   ilp32_trap ELF [ARG...]   maps the ELF32 AArch64 file's PT_LOAD
 *       segments (below 4 GiB), builds the ILP32 initial stack (argc,
 *       argv, envp, auxv in 32-bit words, as binfmt_ilp32 does), installs
 *       a seccomp filter and jumps to the entry point. Exit status: the
 *       program's, or 86 when any system call broke the ABI.
 *   ilp32_trap abi=... [KEY=VAL...]   (as init runs a test) the driver:
 *       runs rt_selftest, lat_syscall and rt_selftest_wrong from
 *       /bench/aarch64_ilp32/ under the first form; every line they print
 *       comes out as "ilp32_trap: NAME: LINE", so init makes it a LOG
 *       record (never a METRIC: these timings are not ILP32 kernel
 *       timings), then "ilp32_trap: NAME: exit S violations V". Exit 0
 *       when the two real programs passed with no violation and the wrong
 *       one failed with one.
 *
 * The filter (seccomp_data.instruction_pointer is visible to BPF): a call
 * made from below 4 GiB (the ILP32 image) is SECCOMP_RET_TRAP; from above
 * (this program, its vDSO) ALLOW. The SIGSYS handler (SA_NODEFER, so new
 * threads and children are never blocked for it) reads x8 and x0-x5 from
 * the trapped context, checks them against the ABI (the number is in the
 * ILP32 table; each register carries one 32-bit value, zero- or
 * sign-extended; a pair's pad register is 0), performs the call the way
 * the ILP32 kernel would (widening, re-pairing 64-bit halves, struct
 * stat64 and old_timespec32 conversions, compat sigaction and the ILP32
 * signal frame, clone of a thread onto its new stack, execve of an ILP32
 * file through this loader) and writes x0. Violations are printed to
 * stderr as "ilp32_trap: ABI violation: ...".
 *
 * Differences from a kernel, by design: memory is handed out upward from
 * 1 GiB (mmap hints are ignored), loaded pages are RWX, no vDSO (a
 * handler without SA_RESTORER is a violation here), x16 is clobbered in
 * a new thread.
 */
#include "rt.h"

#define SIGSYS 31
#define SA_RESETHAND 0x80000000u
#define MAP_FIXED_NOREPLACE 0x100000
#define PR_SET_NO_NEW_PRIVS 38
#define NR_seccomp 277
#define ARENA_BASE 0x40000000ull
#define ARENA_END 0xe0000000ull
#define STACK_BASE 0xf0000000ull
#define STACK_SIZE (8ull << 20)
#define EXIT_VIOLATION 86
#define LOW(x) ((uint64_t)(x) < (1ull << 32))

/* ---- the LP64 kernel's structures ---- */

struct a64_sigcontext {
	uint64_t fault_address;
	uint64_t regs[31];
	uint64_t sp, pc, pstate;
	uint8_t reserved[4096] __attribute__((aligned(16)));
};

struct a64_ucontext {
	uint64_t uc_flags, uc_link;
	uint64_t ss_sp;
	int32_t ss_flags, pad;
	uint64_t ss_size;
	uint64_t uc_sigmask;
	uint8_t unused[128 - 8];
	struct a64_sigcontext mc;
};

struct a64_siginfo {
	int32_t signo, errno_, code, pad;
	union {
		struct {
			uint64_t call_addr;
			int32_t syscall;
			uint32_t arch;
		} sys;
		struct {
			int32_t pid;
			uint32_t uid;
		} kill;
		uint8_t bytes[112];
	} u;
};

struct a64_sigaction {
	uint64_t handler, flags, restorer, mask;
};

/* asm-generic struct stat (newfstatat, fstat on LP64). */
struct a64_stat {
	uint64_t dev, ino;
	uint32_t mode, nlink, uid, gid;
	uint64_t rdev, pad1;
	int64_t size;
	int32_t blksize, pad2;
	int64_t blocks;
	int64_t atime, atime_nsec, mtime, mtime_nsec, ctime, ctime_nsec;
	uint32_t unused[2];
};

struct a64_timespec {
	int64_t sec, nsec;
};

/* ---- the ILP32 ABI's structures (rt/arch/aarch64_ilp32.h) ---- */

/* arm64's compat struct stat64 (AArch32 EABI layout). */
struct ilp32_stat64 {
	uint64_t dev;
	uint8_t pad0[4];
	uint32_t ino32, mode, nlink, uid, gid;
	uint64_t rdev;
	uint8_t pad3[4];
	int64_t size __attribute__((aligned(8)));
	uint32_t blksize;
	uint64_t blocks __attribute__((aligned(8)));
	uint32_t atime, atime_nsec, mtime, mtime_nsec, ctime, ctime_nsec;
	uint64_t ino;
};
_Static_assert(sizeof(struct ilp32_stat64) == 104, "compat stat64 is 104 bytes");

struct ilp32_timespec {
	int32_t sec, nsec;
};

struct ilp32_sigaction {
	uint32_t handler, flags, restorer, mask[2];
};

/* struct rt_sigframe of signal_ilp32.c: compat_siginfo, ilp32_ucontext. */
struct ilp32_sigframe {
	int32_t info[32];
	uint32_t uc_flags, uc_link;
	uint32_t ss_sp;
	int32_t ss_flags;
	uint32_t ss_size;
	uint32_t uc_sigmask[2];
	uint8_t unused[1024 / 8 - 8];
	struct a64_sigcontext mc;
};
_Static_assert(__builtin_offsetof(struct ilp32_sigframe, mc) == 288, "ilp32 frame layout");

/* ---- state ---- */

static char self_exe[256];
static const char *prog_name = "?";
static volatile uint64_t arena_next = ARENA_BASE;
static volatile uint32_t n_trapped, n_violations;
static struct ilp32_sigaction ilp32_actions[65];

static void violation(const char *call, long nr, const char *what)
{
	__atomic_fetch_add(&n_violations, 1, __ATOMIC_RELAXED);
	rt_dprintf(2, "ilp32_trap: ABI violation: %s: %s(%ld): %s\n", prog_name, call, nr, what);
}

/* ---- the ILP32 system call table as far as our runtime uses it ---- */

enum kind {
	PASS,		/* the LP64 call of the same number, arguments widened */
	LLSEEK, FTRUNCATE64, FSTATAT64, FSTAT64, MMAP2, MUNMAP,
	CLOCK_GETTIME, NANOSLEEP, PPOLL, FUTEX, SIGACTION, SIGPROCMASK,
	SIGRETURN, CLONE, EXECVE, EXIT_GROUP, WAIT4,
};

/* types: one letter per argument: i int (sign-extended), u unsigned or
 * pointer (zero-extended), p a pair's pad (must be 0). */
struct call {
	int nr;
	const char *name, *types;
	enum kind kind;
};

static const struct call calls[] = {
	{ 23, "dup", "i", PASS },	   { 24, "dup3", "iii", PASS },
	{ 25, "fcntl64", "iiu", PASS },	   { 29, "ioctl", "iuu", PASS },
	{ 34, "mkdirat", "iui", PASS },	   { 35, "unlinkat", "iui", PASS },
	{ 39, "umount2", "ui", PASS },	   { 40, "mount", "uuuuu", PASS },
	{ 46, "ftruncate64", "ipuu", FTRUNCATE64 },
	{ 48, "faccessat", "iui", PASS },  { 49, "chdir", "u", PASS },
	{ 56, "openat", "iuiu", PASS },	   { 57, "close", "i", PASS },
	{ 59, "pipe2", "ui", PASS },	   { 61, "getdents64", "iuu", PASS },
	{ 62, "llseek", "iuuui", LLSEEK }, { 63, "read", "iuu", PASS },
	{ 64, "write", "iuu", PASS },	   { 73, "ppoll", "uuuuu", PPOLL },
	{ 79, "fstatat64", "iuui", FSTATAT64 },
	{ 80, "fstat64", "iu", FSTAT64 },  { 81, "sync", "", PASS },
	{ 82, "fsync", "i", PASS },	   { 93, "exit", "i", PASS },
	{ 94, "exit_group", "i", EXIT_GROUP },
	{ 98, "futex", "uiuuuu", FUTEX },  { 101, "nanosleep", "uu", NANOSLEEP },
	{ 113, "clock_gettime", "iu", CLOCK_GETTIME },
	{ 116, "syslog", "iui", PASS },	   { 119, "sched_setscheduler", "iiu", PASS },
	{ 122, "sched_setaffinity", "iuu", PASS },
	{ 123, "sched_getaffinity", "iuu", PASS },
	{ 124, "sched_yield", "", PASS },  { 129, "kill", "ii", PASS },
	{ 134, "rt_sigaction", "iuuu", SIGACTION },
	{ 135, "rt_sigprocmask", "iuuu", SIGPROCMASK },
	{ 139, "rt_sigreturn", "", SIGRETURN },
	{ 142, "reboot", "uuuu", PASS },   { 154, "setpgid", "ii", PASS },
	{ 157, "setsid", "", PASS },	   { 160, "uname", "u", PASS },
	{ 167, "prctl", "iuuuu", PASS },   { 172, "getpid", "", PASS },
	{ 173, "getppid", "", PASS },	   { 178, "gettid", "", PASS },
	{ 198, "socket", "iii", PASS },	   { 199, "socketpair", "iiiu", PASS },
	{ 200, "bind", "iuu", PASS },	   { 201, "listen", "ii", PASS },
	{ 203, "connect", "iuu", PASS },   { 204, "getsockname", "iuu", PASS },
	{ 208, "setsockopt", "iiiuu", PASS },
	{ 210, "shutdown", "ii", PASS },   { 215, "munmap", "uu", MUNMAP },
	{ 220, "clone", "uuuuu", CLONE },  { 221, "execve", "uuu", EXECVE },
	{ 222, "mmap2", "uuuiiu", MMAP2 }, { 226, "mprotect", "uui", PASS },
	{ 241, "perf_event_open", "uiiiu", PASS },
	{ 242, "accept4", "iuui", PASS },  { 260, "wait4", "iuiu", WAIT4 },
	{ 278, "getrandom", "uuu", PASS },
};

static const struct call *find_call(long nr)
{
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (calls[i].nr == nr)
			return &calls[i];
	return NULL;
}

/* ---- helpers for the emulated calls ---- */

static void *uptr(uint64_t v) { return (void *)(uintptr_t)(uint32_t)v; }

static long sys(long nr, uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	return rt_syscall(nr, (long)a, (long)b, (long)c, (long)d, (long)e, (long)f);
}

static void ts_in(struct a64_timespec *t, uint64_t p)
{
	const struct ilp32_timespec *s = uptr(p);
	t->sec = s->sec;
	t->nsec = s->nsec;
}

static void ts_out(uint64_t p, const struct a64_timespec *t)
{
	struct ilp32_timespec *s = uptr(p);
	s->sec = (int32_t)t->sec;
	s->nsec = (int32_t)t->nsec;
}

static void stat_out(uint64_t p, const struct a64_stat *k)
{
	struct ilp32_stat64 *s = uptr(p);

	memset(s, 0, sizeof(*s));
	s->dev = k->dev;
	s->ino32 = (uint32_t)k->ino;
	s->ino = k->ino;
	s->mode = k->mode;
	s->nlink = k->nlink;
	s->uid = k->uid;
	s->gid = k->gid;
	s->rdev = k->rdev;
	s->size = k->size;
	s->blksize = (uint32_t)k->blksize;
	s->blocks = (uint64_t)k->blocks;
	s->atime = (uint32_t)k->atime;
	s->atime_nsec = (uint32_t)k->atime_nsec;
	s->mtime = (uint32_t)k->mtime;
	s->mtime_nsec = (uint32_t)k->mtime_nsec;
	s->ctime = (uint32_t)k->ctime;
	s->ctime_nsec = (uint32_t)k->ctime_nsec;
}

static uint64_t no_sigsys(uint64_t mask) { return mask & ~(1ull << (SIGSYS - 1)); }

/* A 32-bit task's memory: the arena, upward. */
static long map_low(uint64_t addr, uint64_t len, int prot, int flags, int fd, uint64_t off)
{
	long r;

	if (flags & MAP_FIXED) {
		if (!LOW(addr + len))
			return -ENOMEM;
		return sys(222, addr, len, (uint64_t)prot, (uint64_t)flags, (uint64_t)fd, off);
	}
	len = (len + 4095) & ~4095ull;
	addr = __atomic_fetch_add(&arena_next, len + 4096, __ATOMIC_RELAXED);
	if (addr + len > ARENA_END)
		return -ENOMEM;
	r = sys(222, addr, len, (uint64_t)prot, (uint64_t)(flags | MAP_FIXED_NOREPLACE), (uint64_t)fd,
		off);
	return r;
}

static bool is_ilp32_elf(const char *path)
{
	unsigned char h[20];
	long fd = rt_open(path, O_RDONLY | O_CLOEXEC, 0);
	long n;

	if (fd < 0)
		return false;
	n = rt_read((int)fd, h, sizeof(h));
	rt_close((int)fd);
	return n == 20 && memcmp(h, "\177ELF", 4) == 0 && h[4] == 1 && h[18] == 183 && h[19] == 0;
}

/* compat argv/envp: NULL-terminated arrays of 32-bit pointers. */
static int widen_strv(char **out, int max, uint64_t p)
{
	const uint32_t *v = uptr(p);
	int n = 0;

	while (v && v[n]) {
		if (n >= max - 1)
			return -1;
		out[n] = (char *)(uintptr_t)v[n];
		n++;
	}
	out[n] = NULL;
	return n;
}

static long do_execve(uint64_t path, uint64_t argv, uint64_t envp)
{
	char *av[130], *ev[130];
	int ac;

	ac = widen_strv(av + 1, 129, argv);
	if (ac < 0 || widen_strv(ev, 130, envp) < 0)
		return -E2BIG;
	if (!is_ilp32_elf(uptr(path)))
		return rt_execve(uptr(path), av + 1, ev);
	/* an ILP32 file: through us, as a kernel with CONFIG_ARM64_ILP32 */
	av[0] = self_exe;
	av[1] = uptr(path);
	return rt_execve(self_exe, av, ev);
}

/* A new thread: clone on the child's stack, where the child finds the
 * trapped registers and resumes the ILP32 code after the svc with x0 = 0. */
long trap_clone_thread(uint64_t flags, uint64_t stack, uint64_t ptid, uint64_t tls, uint64_t ctid,
		       const uint64_t *regs);
__asm__(".text\n"
	".global trap_clone_thread\n"
	"trap_clone_thread:\n"
	"	mov x9, x5\n"
	"	mov x8, #220\n"
	"	svc #0\n"
	"	cbz x0, 1f\n"
	"	ret\n"
	"1:	ldr x16, [x9, #248]\n"
	"	ldp x0, x1, [x9, #0]\n"
	"	ldp x2, x3, [x9, #16]\n"
	"	ldp x4, x5, [x9, #32]\n"
	"	ldp x6, x7, [x9, #48]\n"
	"	ldp x10, x11, [x9, #80]\n"
	"	ldp x12, x13, [x9, #96]\n"
	"	ldp x14, x15, [x9, #112]\n"
	"	ldr x17, [x9, #136]\n"
	"	ldp x18, x19, [x9, #144]\n"
	"	ldp x20, x21, [x9, #160]\n"
	"	ldp x22, x23, [x9, #176]\n"
	"	ldp x24, x25, [x9, #192]\n"
	"	ldp x26, x27, [x9, #208]\n"
	"	ldp x28, x29, [x9, #224]\n"
	"	ldr x30, [x9, #240]\n"
	"	ldp x8, x9, [x9, #64]\n"
	"	mov x0, #0\n"
	"	br x16\n");

static long do_clone(const uint64_t *a, struct a64_ucontext *uc)
{
	uint64_t *block;

	if ((uint32_t)a[1] == 0)	/* fork-like: the child returns from here */
		return sys(220, (uint32_t)a[0], 0, (uint32_t)a[2], (uint32_t)a[3], (uint32_t)a[4], 0);
	block = (uint64_t *)(uintptr_t)((((uint32_t)a[1]) - 512) & ~15u);
	memcpy(block, uc->mc.regs, 31 * 8);
	block[31] = uc->mc.pc;
	return trap_clone_thread((uint32_t)a[0], (uint32_t)a[1], (uint32_t)a[2], (uint32_t)a[3],
				 (uint32_t)a[4], block);
}

/* The LP64 handler behind every ILP32 handler: builds the ILP32 frame on
 * the same stack and resumes there, in the ILP32 handler. The kernel's
 * frame for this handler sits just below the interrupted sp, where a
 * kernel would put the ILP32 one: ours goes below this handler's own
 * stack instead (FRAME_GAP below its sp, room for what it calls). */
#define FRAME_GAP 8192
static void on_signal(int sig, void *siv, void *ucv)
{
	const struct a64_siginfo *si = siv;
	struct a64_ucontext *uc = ucv;
	const struct ilp32_sigaction *act = &ilp32_actions[sig];
	uint64_t here;
	uint64_t sp;
	struct ilp32_sigframe *f;

	__asm__ volatile("mov %0, sp" : "=r"(here));
	sp = (here - FRAME_GAP - sizeof(struct ilp32_sigframe) - 16) & ~15ull;
	f = (struct ilp32_sigframe *)(uintptr_t)sp;
	uint64_t *record = (uint64_t *)(f + 1);
	uint64_t mask = ((uint64_t)act->mask[1] << 32) | act->mask[0];

	memset(f, 0, __builtin_offsetof(struct ilp32_sigframe, mc));
	f->info[0] = si->signo;
	f->info[1] = si->errno_;
	f->info[2] = si->code;
	f->info[3] = si->u.kill.pid;
	f->info[4] = (int32_t)si->u.kill.uid;
	f->ss_flags = 2;	/* SS_DISABLE */
	f->uc_sigmask[0] = (uint32_t)uc->uc_sigmask;
	f->uc_sigmask[1] = (uint32_t)(uc->uc_sigmask >> 32);
	memcpy(&f->mc, &uc->mc, sizeof(f->mc));
	record[0] = uc->mc.regs[29];
	record[1] = uc->mc.regs[30];
	if (!(act->flags & SA_RESTORER))
		violation("signal delivery", sig, "a handler without SA_RESTORER (no ILP32 vDSO here)");
	uc->mc.regs[0] = (uint64_t)sig;
	uc->mc.regs[1] = sp;
	uc->mc.regs[2] = sp + __builtin_offsetof(struct ilp32_sigframe, uc_flags);
	uc->mc.regs[29] = (uint64_t)(uintptr_t)record;
	uc->mc.regs[30] = act->restorer;
	uc->mc.sp = sp;
	uc->mc.pc = act->handler;
	if (!(act->flags & SA_NODEFER))
		mask |= 1ull << (sig - 1);
	uc->uc_sigmask = no_sigsys(uc->uc_sigmask | mask);
	if (act->flags & SA_RESETHAND)
		ilp32_actions[sig].handler = 0;
}

static long do_sigaction(const uint64_t *a)
{
	int sig = (int)a[0];
	struct ilp32_sigaction *old = &ilp32_actions[sig];
	struct a64_sigaction k = { 0, 0, 0, 0 };
	long r;

	struct ilp32_sigaction next;

	if (sig < 1 || sig > 64 || sig == SIGSYS || (uint32_t)a[3] != 8)
		return -EINVAL;
	if ((uint32_t)a[1])
		memcpy(&next, uptr(a[1]), sizeof(next));
	if ((uint32_t)a[2])
		memcpy(uptr(a[2]), old, sizeof(*old));
	if (!(uint32_t)a[1])
		return 0;
	*old = next;
	k.mask = no_sigsys(((uint64_t)old->mask[1] << 32) | old->mask[0]);
	if (old->handler <= 1) {	/* SIG_DFL, SIG_IGN */
		k.handler = old->handler;
		k.flags = old->flags & ~(uint64_t)SA_RESTORER;
	} else {
		k.handler = (uint64_t)(uintptr_t)on_signal;
		k.flags = (old->flags & (SA_RESTART | SA_NODEFER | SA_RESETHAND | SA_NOCLDSTOP)) |
			  SA_SIGINFO | SA_RESTORER;
		k.restorer = (uint64_t)(uintptr_t)rt_sigreturn_restorer;
	}
	r = sys(134, (uint64_t)sig, (uint64_t)(uintptr_t)&k, 0, 8, 0, 0);
	return r;
}

static void do_sigreturn(struct a64_ucontext *uc)
{
	const struct ilp32_sigframe *f = (const struct ilp32_sigframe *)(uintptr_t)uc->mc.sp;

	uc->uc_sigmask = no_sigsys(((uint64_t)f->uc_sigmask[1] << 32) | f->uc_sigmask[0]);
	memcpy(&uc->mc, &f->mc, sizeof(uc->mc));
}

/* ---- the SIGSYS handler ---- */

static bool check_args(const struct call *c, const uint64_t *a)
{
	bool good = true;

	for (int i = 0; c->types[i]; i++) {
		uint64_t hi = a[i] >> 32;
		char what[96];

		if (c->types[i] == 'p' && a[i] != 0) {
			rt_snprintf(what, sizeof(what), "x%d is a pair's pad and holds 0x%llx", i,
				    (unsigned long long)a[i]);
			violation(c->name, c->nr, what);
			good = false;
		} else if (hi != 0 && !(hi == 0xffffffffu && (a[i] & 0x80000000u))) {
			rt_snprintf(what, sizeof(what), "x%d holds 0x%llx, wider than 32 bits", i,
				    (unsigned long long)a[i]);
			violation(c->name, c->nr, what);
			good = false;
		}
	}
	return good;
}

static long emulate(const struct call *c, uint64_t *a, struct a64_ucontext *uc)
{
	struct a64_timespec t, t2;
	struct a64_stat st;
	uint64_t w[6], mask;
	long r;

	for (int i = 0; i < 6; i++)
		w[i] = c->types[i] == 'i' ? (uint64_t)(int64_t)(int32_t)a[i] : (uint32_t)a[i];
	for (int i = (int)rt_strlen(c->types); i < 6; i++)
		w[i] = 0;
	switch (c->kind) {
	case PASS:
		return sys(c->nr, w[0], w[1], w[2], w[3], w[4], w[5]);
	case LLSEEK:
		r = sys(62, w[0], (w[1] << 32) | w[2], w[4], 0, 0, 0);
		if (r >= 0) {
			uint64_t v = (uint64_t)r;
			memcpy(uptr(w[3]), &v, 8);
			r = 0;
		}
		return r;
	case FTRUNCATE64:
		return sys(46, w[0], (w[3] << 32) | w[2], 0, 0, 0, 0);
	case FSTATAT64:
		r = sys(79, w[0], w[1], (uint64_t)(uintptr_t)&st, w[3], 0, 0);
		if (r == 0)
			stat_out(w[2], &st);
		return r;
	case FSTAT64:
		r = sys(80, w[0], (uint64_t)(uintptr_t)&st, 0, 0, 0, 0);
		if (r == 0)
			stat_out(w[1], &st);
		return r;
	case MMAP2:
		return map_low(w[0], w[1], (int)w[2], (int)w[3], (int)w[4], w[5] << 12);
	case MUNMAP:
		return sys(215, w[0], w[1], 0, 0, 0, 0);
	case CLOCK_GETTIME:
		r = sys(113, w[0], (uint64_t)(uintptr_t)&t, 0, 0, 0, 0);
		if (r == 0)
			ts_out(w[1], &t);
		return r;
	case NANOSLEEP:
		ts_in(&t, w[0]);
		r = sys(101, (uint64_t)(uintptr_t)&t, w[1] ? (uint64_t)(uintptr_t)&t2 : 0, 0, 0, 0, 0);
		if (r == -EINTR && w[1])
			ts_out(w[1], &t2);
		return r;
	case PPOLL:
		if (w[2])
			ts_in(&t, w[2]);
		if (w[3]) {
			memcpy(&mask, uptr(w[3]), 8);
			mask = no_sigsys(mask);
		}
		return sys(73, w[0], w[1], w[2] ? (uint64_t)(uintptr_t)&t : 0,
			   w[3] ? (uint64_t)(uintptr_t)&mask : 0, w[4], 0);
	case FUTEX: {
		int op = (int)w[1] & 127;
		bool timed = op == 0 || op == 9 || op == 6 || op == 11;

		if (timed && w[3])
			ts_in(&t, w[3]);
		return sys(98, w[0], w[1], w[2], timed && w[3] ? (uint64_t)(uintptr_t)&t : w[3], w[4], w[5]);
	}
	case SIGACTION:
		return do_sigaction(w);
	case SIGPROCMASK: {
		/* the ILP32 task's mask is the one this handler's return
		 * restores: uc_sigmask, not the handler's own */
		uint64_t old = uc->uc_sigmask;

		if (w[3] != 8 || w[0] > 2)
			return -EINVAL;
		if (w[1]) {
			memcpy(&mask, uptr(w[1]), 8);
			mask = w[0] == 0 ? old | mask : w[0] == 1 ? old & ~mask : mask;
			uc->uc_sigmask = no_sigsys(mask) & ~((1ull << (SIGKILL - 1)) | (1ull << (SIGSTOP - 1)));
		}
		if (w[2])
			memcpy(uptr(w[2]), &old, 8);
		return 0;
	}
	case SIGRETURN:
		do_sigreturn(uc);
		return (long)uc->mc.regs[0];
	case CLONE:
		return do_clone(a, uc);
	case EXECVE:
		return do_execve(w[0], w[1], w[2]);
	case WAIT4:
		if (w[3])
			return -EINVAL;	/* compat rusage: not converted (the runtime passes NULL) */
		return sys(260, w[0], w[1], w[2], 0, 0, 0);
	case EXIT_GROUP:
		if (n_violations) {
			rt_dprintf(2, "ilp32_trap: %s: %u ABI violation(s) in %u system calls\n", prog_name,
				   n_violations, n_trapped);
			w[0] = EXIT_VIOLATION;
		}
		return sys(94, w[0], 0, 0, 0, 0, 0);
	}
	return -ENOSYS;
}

static void on_sigsys(int sig, void *siv, void *ucv)
{
	const struct a64_siginfo *si = siv;
	struct a64_ucontext *uc = ucv;
	long nr = (long)uc->mc.regs[8];
	const struct call *c;
	uint64_t a[6];
	char what[64];

	(void)sig;
	if (!LOW(si->u.sys.call_addr)) {
		rt_dprintf(2, "ilp32_trap: a call from 0x%llx was trapped\n",
			   (unsigned long long)si->u.sys.call_addr);
		sys(94, 70, 0, 0, 0, 0, 0);
	}
	__atomic_fetch_add(&n_trapped, 1, __ATOMIC_RELAXED);
	memcpy(a, uc->mc.regs, sizeof(a));
	c = find_call(nr);
	if (!c) {
		rt_snprintf(what, sizeof(what), "not in the ILP32 table%s",
			    nr >= 403 && nr <= 423 ? " (time64: absent in openEuler 5.10)" : " we emulate");
		violation("syscall", nr, what);
		uc->mc.regs[0] = (uint64_t)(long)-ENOSYS;
		return;
	}
	check_args(c, a);
	uc->mc.regs[0] = (uint64_t)emulate(c, a, uc);
}

/* ---- loading ---- */

struct elf32_ehdr {
	uint8_t ident[16];
	uint16_t type, machine;
	uint32_t version, entry, phoff, shoff, flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct elf32_phdr {
	uint32_t type, offset, vaddr, paddr, filesz, memsz, flags, align;
};

static long read_at(int fd, void *buf, uint64_t n, int64_t off)
{
	long done = 0;

	if (rt_lseek(fd, off, SEEK_SET) != off)
		return -EIO;
	while ((uint64_t)done < n) {
		long r = rt_read(fd, (char *)buf + done, n - (uint64_t)done);
		if (r <= 0)
			return r < 0 ? r : -EIO;
		done += r;
	}
	return done;
}

/* load: maps the file; returns the entry point, fills the auxv values. */
static uint32_t load(const char *path, uint32_t *phdr, uint32_t *phnum)
{
	struct elf32_ehdr eh;
	struct elf32_phdr ph[16];
	long fd = rt_open(path, O_RDONLY | O_CLOEXEC, 0);

	if (fd < 0)
		rt_die("ilp32_trap: %s: %s", path, rt_errname((int)-fd));
	if (read_at((int)fd, &eh, sizeof(eh), 0) < 0 || memcmp(eh.ident, "\177ELF", 4) != 0 ||
	    eh.ident[4] != 1 || eh.machine != 183 || eh.phentsize != sizeof(ph[0]) || eh.phnum > 16)
		rt_die("ilp32_trap: %s: not an ELF32 AArch64 executable", path);
	if (read_at((int)fd, ph, sizeof(ph[0]) * eh.phnum, eh.phoff) < 0)
		rt_die("ilp32_trap: %s: cannot read the program headers", path);
	*phnum = eh.phnum;
	*phdr = 0;
	for (int i = 0; i < eh.phnum; i++) {
		uint64_t start = ph[i].vaddr & ~4095u, end = ((uint64_t)ph[i].vaddr + ph[i].memsz + 4095) & ~4095ull;
		void *m;

		if (ph[i].type != 1)	/* PT_LOAD */
			continue;
		if (eh.phoff >= ph[i].offset && eh.phoff < ph[i].offset + ph[i].filesz)
			*phdr = ph[i].vaddr + (eh.phoff - ph[i].offset);
		m = rt_mmap((void *)(uintptr_t)start, end - start, PROT_READ | PROT_WRITE | PROT_EXEC,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if ((uintptr_t)m != start)
			rt_die("ilp32_trap: cannot map 0x%llx", (unsigned long long)start);
		if (ph[i].filesz &&
		    read_at((int)fd, (void *)(uintptr_t)ph[i].vaddr, ph[i].filesz, ph[i].offset) < 0)
			rt_die("ilp32_trap: %s: short segment", path);
	}
	rt_close((int)fd);
	return eh.entry;
}

/* The ILP32 initial stack: argc, argv[], NULL, envp[], NULL, auxv, in
 * 32-bit words, strings above; returns sp (16-byte aligned). */
static uint32_t build_stack(int argc, char **argv, char **envp, uint32_t entry, uint32_t phdr,
			    uint32_t phnum)
{
	void *m = rt_mmap((void *)(uintptr_t)STACK_BASE, STACK_SIZE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	uint64_t top = STACK_BASE + STACK_SIZE;
	uint32_t ptrs[512], *w;
	int envc = 0, n = 0;
	uint64_t sp;

	if ((uintptr_t)m != STACK_BASE)
		rt_die("ilp32_trap: cannot map the stack");
	while (envp[envc])
		envc++;
	if (argc + envc + 2 > 400)
		rt_die("ilp32_trap: too many arguments");
	for (int i = 0; i < argc + envc; i++) {
		const char *s = i < argc ? argv[i] : envp[i - argc];
		size_t len = rt_strlen(s) + 1;

		top -= len;
		memcpy((void *)(uintptr_t)top, s, len);
		ptrs[i] = (uint32_t)top;
	}
	top = (top - 16) & ~15ull;	/* AT_RANDOM's 16 bytes */
	rt_getrandom((void *)(uintptr_t)top, 16, 0);
	uint32_t aux[] = { 3, phdr, 4, 32, 5, phnum, 6, 4096, 9, entry, 25, (uint32_t)top, 0, 0 };
	n = 1 + argc + 1 + envc + 1 + (int)(sizeof(aux) / 4);
	sp = (top - (uint64_t)n * 4) & ~15ull;
	w = (uint32_t *)(uintptr_t)sp;
	*w++ = (uint32_t)argc;
	for (int i = 0; i < argc; i++)
		*w++ = ptrs[i];
	*w++ = 0;
	for (int i = 0; i < envc; i++)
		*w++ = ptrs[argc + i];
	*w++ = 0;
	memcpy(w, aux, sizeof(aux));
	return (uint32_t)sp;
}

static void install_trap(void)
{
	/* seccomp_data: nr @0, arch @4, instruction_pointer @8 (high word @12) */
	static const struct { uint16_t code; uint8_t jt, jf; uint32_t k; } filter[] = {
		{ 0x20, 0, 0, 4 },		/* ld arch */
		{ 0x15, 1, 0, 0xc00000b7 },	/* AUDIT_ARCH_AARCH64? */
		{ 0x06, 0, 0, 0x80000000 },	/* kill the process */
		{ 0x20, 0, 0, 12 },		/* ld instruction_pointer >> 32 */
		{ 0x15, 0, 1, 0 },		/* below 4 GiB: the ILP32 image */
		{ 0x06, 0, 0, 0x00030000 },	/* SECCOMP_RET_TRAP */
		{ 0x06, 0, 0, 0x7fff0000 },	/* SECCOMP_RET_ALLOW */
	};
	struct { uint16_t len; const void *filter; } prog = { sizeof(filter) / sizeof(filter[0]), filter };
	struct a64_sigaction sa = { (uint64_t)(uintptr_t)on_sigsys, SA_SIGINFO | SA_NODEFER | SA_RESTORER,
				    (uint64_t)(uintptr_t)rt_sigreturn_restorer, 0 };
	long r;

	if ((r = sys(134, SIGSYS, (uint64_t)(uintptr_t)&sa, 0, 8, 0, 0)) < 0 ||
	    (r = rt_prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) < 0 ||
	    (r = sys(NR_seccomp, 1, 0, (uint64_t)(uintptr_t)&prog, 0, 0, 0)) < 0)
		rt_die("ilp32_trap: cannot install the seccomp trap: %s", rt_errname((int)-r));
}

__attribute__((noreturn)) static void enter(uint64_t entry, uint64_t sp)
{
	register uint64_t x16 __asm__("x16") = entry;
	register uint64_t x17 __asm__("x17") = sp;

	__asm__ volatile("mov sp, x17\n"
			 "mov x0, #0\n	mov x1, #0\n	mov x2, #0\n	mov x3, #0\n"
			 "mov x4, #0\n	mov x5, #0\n	mov x29, #0\n	mov x30, #0\n"
			 "br x16\n" : : "r"(x16), "r"(x17) : "memory");
	__builtin_unreachable();
}

static int run_elf(int argc, char **argv, char **envp)
{
	uint32_t phdr, phnum, entry, sp;
	const char *slash = rt_strrchr(argv[0], '/');

	prog_name = slash ? slash + 1 : argv[0];
	entry = load(argv[0], &phdr, &phnum);
	sp = build_stack(argc, argv, envp, entry, phdr, phnum);
	install_trap();
	enter(entry, sp);
}

/* ---- the driver (as init runs a test) ---- */

struct outcome {
	int status;
	bool done_clean, violations;
	int lines;
};

static void drive(const char *name, char **args, struct outcome *o)
{
	char path[128], buf[4096], line[1024];
	int fds[2], status = 0;
	size_t len = 0;
	long pid, n;

	memset(o, 0, sizeof(*o));
	rt_snprintf(path, sizeof(path), "/bench/aarch64_ilp32/%s", name);
	args[0] = self_exe;
	args[1] = path;
	if (rt_pipe2(fds, O_CLOEXEC) < 0)
		rt_die("ilp32_trap: pipe2");
	pid = rt_fork();
	if (pid == 0) {
		rt_dup2(fds[1], 1);
		rt_dup2(fds[1], 2);
		rt_execve(self_exe, args, rt_environ);
		rt_exit(127);
	}
	rt_close(fds[1]);
	while ((n = rt_read(fds[0], buf, sizeof(buf))) > 0 || n == -EINTR) {
		for (long i = 0; i < n; i++) {
			if (buf[i] != '\n' && len < sizeof(line) - 1) {
				line[len++] = buf[i];
				continue;
			}
			if (buf[i] != '\n')
				continue;
			line[len] = '\0';
			len = 0;
			o->lines++;
			if (rt_starts_with(line, "ilp32_trap: ABI violation"))
				o->violations = true;
			if (rt_starts_with(line, "done ") && rt_strstr(line, " checks, 0 failed"))
				o->done_clean = true;
			rt_printf("ilp32_trap: %s: %s\n", name, line);
		}
	}
	rt_close(fds[0]);
	rt_waitpid((pid_t)pid, &status, 0);
	o->status = status;
	rt_printf("ilp32_trap: %s: exit %d violations %s\n", name,
		  WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (status & 0x7f),
		  o->violations ? "yes" : "none");
}

static int driver(int argc, char **argv)
{
	char *selftest[] = { NULL, NULL, NULL };
	char *wrong[] = { NULL, NULL, NULL };
	char *lat[40] = { NULL, NULL, "abi=aarch64_ilp32" };
	struct outcome st, lt, wr;
	int n = 3;
	bool good;

	for (int i = 1; i < argc && n < 38; i++)
		if (!rt_starts_with(argv[i], "abi="))
			lat[n++] = argv[i];
	lat[n] = NULL;
	drive("rt_selftest", selftest, &st);
	drive("lat_syscall", lat, &lt);
	drive("rt_selftest_wrong", wrong, &wr);
	good = st.status == 0 && st.done_clean && !st.violations && lt.status == 0 && !lt.violations &&
	       lt.lines > 0 && wr.status != 0 && wr.violations;
	rt_printf("ilp32_trap: verdict %s (rt_selftest %s, lat_syscall %s, rt_selftest_wrong %s)\n",
		  good ? "pass" : "FAIL", st.status == 0 && st.done_clean && !st.violations ? "ran clean" : "failed",
		  lt.status == 0 && !lt.violations ? "ran clean" : "failed",
		  wr.status != 0 && wr.violations ? "failed as it must" : "was not caught");
	return good ? 0 : 1;
}

int main(int argc, char **argv, char **envp)
{
	long n = rt_syscall(78, AT_FDCWD, (long)"/proc/self/exe", (long)self_exe, sizeof(self_exe) - 1, 0, 0);

	if (n <= 0)
		rt_strlcpy(self_exe, argv[0], sizeof(self_exe));
	if (argc < 2) {
		rt_eprintf("usage: ilp32_trap ELF32-FILE [ARG...] | ilp32_trap abi=... [KEY=VAL...]\n");
		return 64;
	}
	if (rt_starts_with(argv[1], "abi="))
		return driver(argc, argv);
	return run_elf(argc - 1, argv + 1, envp);
}
