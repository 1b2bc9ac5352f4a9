/*
 * arch/aarch64.h: the AArch64 LP64 ABI for the bootrig runtime.
 *
 *  - trap: `svc #0`; number in x8, result in x0 (-4095..-1 is -errno)
 *  - arguments: x0-x5
 *  - clobbered by the kernel: nothing but x0 (and memory)
 *  - 64-bit arguments: one register each
 *  - syscall table: asm-generic (include/uapi/asm-generic/unistd.h),
 *    with the 64-bit names: newfstatat, fcntl, lseek, mmap, ftruncate
 *  - signals: the kernel's vDSO trampoline would do; we pass our own
 *    restorer (rt_sigreturn, 139) like the other ABIs
 *  - entry: sp points at argc and is 16-byte aligned
 */
#ifndef BOOTRIG_RT_ARCH_AARCH64_H
#define BOOTRIG_RT_ARCH_AARCH64_H

#define RT_ABI_NAME "aarch64"
typedef long rt_sysarg_t;
#define RT_ARG(x) ((rt_sysarg_t)(x))
#define RT_PTR(p) ((rt_sysarg_t)(uintptr_t)(p))
#define RT_SA_RESTORER_NEEDED 1
#define O_DIRECTORY 040000
/* open(2) is large-file already on this ABI */
#define RT_O_LARGEFILE 0

#include "generic-numbers.h"
#define __NR_fcntl 25
#define __NR_ppoll 73
#define __NR_ftruncate 46
#define __NR_lseek 62
#define __NR_newfstatat 79
#define __NR_fstat 80
#define __NR_futex 98
#define __NR_nanosleep 101
#define __NR_clock_gettime 113
#define __NR_mmap 222
#define __NR_rt_fstatat __NR_newfstatat

/* struct stat of asm-generic/stat.h (64-bit long). */
struct rt_kstat {
	uint64_t st_dev, st_ino;
	uint32_t st_mode, st_nlink, st_uid, st_gid;
	uint64_t st_rdev, pad1;
	int64_t st_size;
	int32_t st_blksize, pad2;
	int64_t st_blocks;
	int64_t st_atime;
	uint64_t st_atime_nsec;
	int64_t st_mtime;
	uint64_t st_mtime_nsec;
	int64_t st_ctime;
	uint64_t st_ctime_nsec;
	uint32_t unused4, unused5;
};

#include "aarch64-syscall.h"

#ifdef RT_ARCH_IMPL
RT_A64_ASM("");
#endif

#endif
