/*
 * arch/arm.h: the ARM EABI (AArch32, ARM mode, armv7-a, hard float) for
 * the bootrig runtime.
 *
 *  - trap: `svc #0`; number in r7, result in r0 (-4095..-1 is -errno)
 *  - arguments: r0-r5 (r6 unused here)
 *  - clobbered by the kernel: nothing but r0 and memory
 *  - 64-bit arguments: an even/odd register pair, so ftruncate64 takes
 *    (fd, pad, lo, hi); _llseek takes (hi, lo) explicitly; mmap2 takes the
 *    offset in 4096-byte pages
 *  - 64-bit time: clock_gettime64, clock_nanosleep_time64, futex_time64
 *  - syscall table: arch/arm/tools/syscall.tbl (EABI numbers, no 0x900000)
 *  - signals: SA_RESTORER trampoline calling rt_sigreturn (173)
 *  - entry: sp points at argc; fp and lr cleared; sp 8-byte aligned for C
 *  - built with -marm: r7 is free (it is the frame pointer only in Thumb)
 */
#ifndef BOOTRIG_RT_ARCH_ARM_H
#define BOOTRIG_RT_ARCH_ARM_H

#define RT_ABI_NAME "arm"
typedef long rt_sysarg_t;
#define RT_ARG(x) ((rt_sysarg_t)(x))
#define RT_PTR(p) ((rt_sysarg_t)(uintptr_t)(p))
#define RT_SA_RESTORER_NEEDED 1
#define O_DIRECTORY 040000
/* what the kernel needs for files past 2 GiB (rt_openat adds it) */
#define RT_O_LARGEFILE 0400000

/* The numbers i386 shares; then ARM's own. */
#include "i386-arm-numbers.h"
#define __NR_getdents64 217
#define __NR_exit_group 248
#define __NR_socket 281
#define __NR_bind 282
#define __NR_connect 283
#define __NR_listen 284
#define __NR_getsockname 286
#define __NR_socketpair 288
#define __NR_shutdown 293
#define __NR_setsockopt 294
#define __NR_openat 322
#define __NR_mkdirat 323
#define __NR_fstatat64 327
#define __NR_unlinkat 328
#define __NR_faccessat 334
#define __NR_dup3 358
#define __NR_pipe2 359
#define __NR_perf_event_open 364
#define __NR_accept4 366
#define __NR_finit_module 379
#define __NR_getrandom 384

#define __NR_rt_fstatat __NR_fstatat64
#define __NR_fcntl __NR_fcntl64
#include "stat64.h"

/* The trap: number in r7, arguments r0-r5, result in r0. */
#define RT_SVC_NR "r7"
#define RT_SVC_A0 "r0"
#define RT_SVC_A1 "r1"
#define RT_SVC_A2 "r2"
#define RT_SVC_A3 "r3"
#define RT_SVC_A4 "r4"
#define RT_SVC_A5 "r5"
#define RT_SVC_CLOBBERS "memory"
#include "svc-syscall.h"

/* A 64-bit value as a register pair, low word first (little endian). */
#define RT_ARG64(x) ((rt_sysarg_t)(uint32_t)(uint64_t)(x)), \
		    ((rt_sysarg_t)(uint32_t)((uint64_t)(x) >> 32))
/* ftruncate64(fd, pad, lo, hi): the pair starts at an even register. */
#define RT_FTRUNCATE64_ARGS(fd, len) RT_ARG(fd), 0, RT_ARG64(len), 0, 0

#ifdef RT_ARCH_IMPL
__asm__(
	".text\n"
	".arm\n"
	RT_ASM_GLOBAL(_start)
	"	mov fp, #0\n"
	"	mov lr, #0\n"
	"	mov r0, sp\n"
	"	bic r1, r0, #15\n"
	"	mov sp, r1\n"
	"	bl rt_start_c\n"
	"	b .\n"

	/* rt_clone_thread(r0 flags, r1 stack, r2 ptid, r3 ctid, [sp] fn, [sp+4] arg):
	 * clone(r0 flags, r1 stack, r2 ptid, r3 tls, r4 ctid). */
	RT_ASM_GLOBAL(rt_clone_thread)
	"	push {r4, r5, r7, lr}\n"
	"	ldr ip, [sp, #16]\n"       /* fn */
	"	ldr r5, [sp, #20]\n"       /* arg */
	"	bic r1, r1, #15\n"
	"	sub r1, r1, #16\n"
	"	str ip, [r1]\n"
	"	str r5, [r1, #4]\n"
	"	mov r4, r3\n"
	"	mov r3, #0\n"
	"	mov r7, #120\n"            /* __NR_clone */
	"	svc #0\n"
	"	cmp r0, #0\n"
	"	beq 1f\n"
	"	pop {r4, r5, r7, pc}\n"
	"1:	mov fp, #0\n"
	"	ldr ip, [sp]\n"
	"	ldr r0, [sp, #4]\n"
	"	blx ip\n"
	"	mov r7, #1\n"              /* __NR_exit */
	"	svc #0\n"
	"	b .\n"

	RT_ASM_GLOBAL(rt_sigreturn_restorer)
	"	mov r7, #173\n"
	"	svc #0\n");
#endif

#endif
