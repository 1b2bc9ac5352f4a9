/*
 * arch/aarch64_ilp32.h: the AArch64 ILP32 ABI (gcc -mabi=ilp32, linked
 * with `ld -m aarch64linux32`) for the bootrig runtime.
 *
 *  - trap: `svc #0`; number in x8, result in x0 (-4095..-1 is -errno)
 *  - arguments: x0-x5 as full 64-bit registers; 32-bit pointers and
 *    unsigned values zero-extended, ints sign-extended (rt_sysarg_t is
 *    long long)
 *  - clobbered by the kernel: nothing but x0 (and memory)
 *  - 64-bit arguments: one register each (never split in pairs)
 *  - syscall table: asm-generic with the 32-bit names (fstatat64,
 *    fcntl64, llseek, mmap2, ftruncate64) and the time64 calls, as the
 *    out-of-tree arm64 ILP32 patches define it
 *  - mainline Linux has no ILP32 support: the kernel refuses these ELF
 *    files with ENOEXEC, which bootrig reports as "unsupported"
 *  - entry: sp points at argc (4-byte slots), 16-byte aligned
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

#include "generic-numbers.h"
#define __NR_fcntl 25
#define __NR_ftruncate64 46
#define __NR_llseek 62
#define __NR_fstatat64 79
#define __NR_fstat64 80
#define __NR_mmap2 222
#define __NR_clock_gettime64 403
#define __NR_clock_nanosleep_time64 407
#define __NR_ppoll_time64 414
#define __NR_futex_time64 422
#define __NR_rt_fstatat __NR_fstatat64

/* struct stat64 of asm-generic/stat.h (same layout as the 64-bit one). */
struct rt_kstat {
	uint64_t st_dev, st_ino;
	uint32_t st_mode, st_nlink, st_uid, st_gid;
	uint64_t st_rdev, pad1;
	int64_t st_size;
	int32_t st_blksize, pad2;
	int64_t st_blocks;
	int32_t st_atime;
	uint32_t st_atime_nsec;
	int32_t st_mtime;
	uint32_t st_mtime_nsec;
	int32_t st_ctime;
	uint32_t st_ctime_nsec;
	uint32_t unused4, unused5;
};

#include "aarch64-syscall.h"

#ifdef RT_ARCH_IMPL
RT_A64_ASM("	mov w1, w1\n	mov w2, w2\n	mov w3, w3\n	mov w4, w4\n	mov w5, w5\n");
#endif

#endif
