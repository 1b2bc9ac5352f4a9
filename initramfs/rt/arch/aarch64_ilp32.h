/*
 * arch/aarch64_ilp32.h: the AArch64 ILP32 ABI (gcc -mabi=ilp32, linked
 * with `ld -m aarch64linux32`) for the bootrig runtime.
 *
 * Target: openEuler's 5.10 kernel (CONFIG_ARM64_ILP32), the revision
 * users run. Mainline Linux has no ILP32: it refuses these ELF files with
 * ENOEXEC, which bootrig reports as "unsupported". Sources (public trees,
 * read through the code index):
 *   [doc]   bjzhang/linux Documentation/arm64/ilp32.txt (the series' text)
 *   [tab]   openeuler-mirror/kernel arch/arm64/kernel/sys_ilp32.c
 *   [uapi]  openeuler-mirror/kernel arch/arm64/include/uapi/asm/unistd.h
 *   [gen]   openeuler-mirror/kernel include/uapi/asm-generic/unistd.h
 *           (the OLK-5.10 revision: kabi_reserved441.., __NR_syscalls 457)
 *   [pair]  openeuler-mirror/kernel arch/arm64/kernel/sys32_common.c
 *   [elf]   openeuler-mirror/kernel arch/arm64/kernel/binfmt_ilp32.c
 *   [sig]   openeuler-mirror/kernel arch/arm64/kernel/signal_ilp32.c,
 *           signal32_common.c, vdso-ilp32/Makefile
 *   [cmp]   openeuler-mirror/kernel arch/arm64/include/asm/compat.h
 *
 *  - trap: `svc #0`; number in x8, result in x0 (-4095..-1 is -errno);
 *    the kernel clobbers nothing but x0
 *  - arguments: x0-x5, each carrying ONE 32-bit value; the kernel
 *    "delouses" (zero-extends) w0-w7 [doc], so the top halves do not
 *    matter to it (we zero-extend pointers and sign-extend ints anyway)
 *  - table: asm-generic with __SYSCALL_COMPAT [tab][gen]: the compat
 *    handler where there is one, the 32-bit names (fcntl64 25,
 *    statfs64 43, fstatfs64 44, truncate64 45, ftruncate64 46, llseek 62,
 *    sendfile64 71, fstatat64 79, fstat64 80, mmap2 222 in 4 KiB units,
 *    fadvise64_64 223), sync_file_range2 84 [uapi]; no renameat,
 *    getrlimit, setrlimit [uapi]; shmat is the LP64 one [tab]
 *  - 64-bit values: a (lo, hi) register pair (little endian), aligned to
 *    an even register with a pad, as AArch32 EABI [doc][pair]:
 *        pread64(fd, buf, count, pad, lo, hi)     pwrite64: the same
 *        truncate64(path, pad, lo, hi)            ftruncate64(fd, pad, lo, hi)
 *        readahead(fd, pad, lo, hi, count)
 *        fadvise64_64(fd, advice, off lo, hi, len lo, hi)
 *        sync_file_range2(fd, flags, off lo, hi, nbytes lo, hi)
 *        fallocate(fd, mode, off lo, hi, len lo, hi)
 *    and llseek(fd, offset HIGH, offset LOW, loff_t *result, whence):
 *    the generic sys_llseek, high half first [gen]
 *  - 64-bit types [doc]: off_t, ino_t, blkcnt_t, fsblkcnt_t, fsfilcnt_t,
 *    rlim_t; long, pointers and time_t are 32-bit
 *  - time: the 5.10 table has the time32 calls with struct
 *    old_timespec32 { s32 tv_sec; s32 tv_nsec } (nanosleep 101,
 *    clock_gettime 113, clock_nanosleep 115, ppoll 73, futex 98,
 *    wait4 260 with compat rusage): [gen] keeps them when the kernel's
 *    __BITS_PER_LONG is 64, and defines the time64 calls (403-423) only
 *    for __BITS_PER_LONG == 32, so sys_ilp32.c (64-bit) has NO time64
 *    entries: they are ENOSYS on openEuler 5.10
 *  - struct stat: fstatat64/fstat64 fill arm64's compat struct stat64,
 *    the AArch32 EABI layout (arch/stat64.h; with -mabi=ilp32 the same C
 *    declaration gives the same offsets, size 104)
 *  - statfs64/fstatfs64: the AArch32 handlers (struct compat_statfs64,
 *    size argument 84, 88 accepted) [tab][pair]; not used by the runtime
 *  - signals: rt_sigaction takes struct compat_sigaction {u32 handler,
 *    u32 flags, u32 restorer, u32 mask[2]}; the frame is struct
 *    rt_sigframe { struct compat_siginfo info; struct ilp32_ucontext uc }
 *    with uc = { u32 uc_flags, uc_link; compat_stack_t uc_stack;
 *    compat_sigset_t uc_sigmask; u8 pad[120]; struct sigcontext
 *    uc_mcontext (the full 64-bit register set) } [sig]; the handler
 *    returns through rt_sigreturn, the generic 139 [sig: vdso-ilp32]. 5.10
 *    always puts the vDSO's sigtramp_ilp32 in x30 (setup_return ignores
 *    SA_RESTORER) [sig]; the 4.x series honours SA_RESTORER. Our restorer
 *    is the same two instructions, so both work.
 *  - ELF [elf]: ELFCLASS32, EM_AARCH64; the initial stack holds argc,
 *    argv[], NULL, envp[], NULL and the auxv in 32-bit words
 *    (elf_addr_t is Elf32_Addr); AT_SYSINFO_EHDR is the ILP32 vDSO; sp
 *    points at argc, 16-byte aligned
 *
 * How the 4.x series (norov/linux, bjzhang/linux, the openEuler 4.19
 * branch; the seeds' kernels) differs: the same pair rule and numbers in
 * the series' last revisions (early revisions passed 64-bit values in one
 * register, which [doc] no longer says); there are no time64 calls at all
 * (they came in 5.1), so the time32 calls above are the only time ABI both
 * have; SA_RESTORER is honoured. The `tests/t-guest-ilp32.sh` trap test
 * checks every call against this list.
 */
#ifndef BOOTRIG_RT_ARCH_AARCH64_ILP32_H
#define BOOTRIG_RT_ARCH_AARCH64_ILP32_H

#define RT_ABI_NAME "aarch64_ilp32"
typedef long long rt_sysarg_t;
#define RT_ARG(x) ((rt_sysarg_t)(x))
#define RT_PTR(p) ((rt_sysarg_t)(uintptr_t)(p))
#define RT_SA_RESTORER_NEEDED 1
#define O_DIRECTORY 040000
/* what the kernel needs for files past 2 GiB (rt_openat adds it) */
#define RT_O_LARGEFILE 0100000
/* the kernel reads and writes struct old_timespec32 (sys.c converts) */
#define RT_KERNEL_TIME32 1

#include "generic-numbers.h"
#define __NR_fcntl 25
#define __NR_ppoll 73
#define __NR_ftruncate64 46
#define __NR_llseek 62
#define __NR_fstatat64 79
#define __NR_fstat64 80
#define __NR_futex 98
#define __NR_nanosleep 101
#define __NR_clock_gettime 113
#define __NR_mmap2 222
#define __NR_rt_fstatat __NR_fstatat64

/* struct stat64 as arm64 writes it for 32-bit tasks (AArch32 EABI). */
#include "stat64.h"

/* A 64-bit value as a (lo, hi) pair of registers. */
#define RT_ARG64(x) ((rt_sysarg_t)(uint32_t)(uint64_t)(x)), \
	((rt_sysarg_t)(uint32_t)((uint64_t)(x) >> 32))
#ifndef RT_ILP32_WRONG_PAIRS
/* ftruncate64(fd, pad, lo, hi) */
#define RT_FTRUNCATE64_ARGS(fd, len) RT_ARG(fd), 0, RT_ARG64(len), 0, 0
#else
/* The deliberately wrong wrapper (make ... RT_ILP32_WRONG_PAIRS): the
 * length in one register, as LP64 passes it. The trap test must fail. */
#define RT_FTRUNCATE64_ARGS(fd, len) RT_ARG(fd), RT_ARG(len), 0, 0, 0, 0
#endif

#include "aarch64-syscall.h"

#ifdef RT_ARCH_IMPL
RT_A64_ASM("	mov w1, w1\n	mov w2, w2\n	mov w3, w3\n	mov w4, w4\n	mov w5, w5\n");
#endif

#endif
