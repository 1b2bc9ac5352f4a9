/*
 * arch/aarch64-syscall.h: the `svc #0` trap, shared by aarch64 and
 * aarch64_ilp32 (both pass 64-bit x registers; rt_sysarg_t is long on
 * LP64, long long on ILP32). Number in x8; arguments x0-x5; result in x0;
 * the kernel clobbers nothing else.
 */
#ifndef BOOTRIG_RT_ARCH_AARCH64_SYSCALL_H
#define BOOTRIG_RT_ARCH_AARCH64_SYSCALL_H

#define RT_SVC_NR "x8"
#define RT_SVC_A0 "x0"
#define RT_SVC_A1 "x1"
#define RT_SVC_A2 "x2"
#define RT_SVC_A3 "x3"
#define RT_SVC_A4 "x4"
#define RT_SVC_A5 "x5"
#define RT_SVC_CLOBBERS "memory", "cc"
#include "svc-syscall.h"

/* rt_syscall3_wide: the whole 64-bit result (lseek's offset). */
static inline int64_t rt_syscall3_wide(long n, rt_sysarg_t a1, rt_sysarg_t a2, rt_sysarg_t a3)
{
	register rt_sysarg_t x0 __asm__("x0") = a1;
	register rt_sysarg_t x1 __asm__("x1") = a2;
	register rt_sysarg_t x2 __asm__("x2") = a3;
	register rt_sysarg_t x8 __asm__("x8") = n;
	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory", "cc");
	return (int64_t)x0;
}

/* LP64: one register per 64-bit value (ILP32 defines its pairs first). */
#ifndef RT_ARG64
#define RT_ARG64(x) ((rt_sysarg_t)(x))
#define RT_FTRUNCATE64_ARGS(fd, len) RT_ARG(fd), RT_ARG64(len), 0, 0, 0, 0
#endif

/* Entry, thread trampoline and restorer; W is "x" on LP64 and "w" on
 * ILP32 for the registers holding C pointers (zero-extended first). */
#define RT_A64_ASM(zext)                                                      \
	__asm__(".text\n"                                                     \
		RT_ASM_GLOBAL(_start)                                         \
		"	mov x29, #0\n"                                        \
		"	mov x30, #0\n"                                        \
		"	mov x0, sp\n"                                         \
		"	and x1, x0, #-16\n"                                   \
		"	mov sp, x1\n"                                         \
		"	bl rt_start_c\n"                                      \
		"	b .\n"                                                \
		/* rt_clone_thread(x0 flags, x1 stack, x2 ptid, x3 ctid,      \
		 * x4 fn, x5 arg): clone(flags, stack, ptid, tls, ctid) */    \
		RT_ASM_GLOBAL(rt_clone_thread)                                \
		zext                                                          \
		"	and x1, x1, #-16\n"                                   \
		"	stp x4, x5, [x1, #-16]!\n"                            \
		"	mov x4, x3\n"                                         \
		"	mov x3, #0\n"                                         \
		"	mov x8, #220\n"                                       \
		"	svc #0\n"                                             \
		"	cbz x0, 1f\n"                                         \
		"	ret\n"                                                \
		"1:	ldp x1, x0, [sp], #16\n"                              \
		"	mov x29, #0\n"                                        \
		"	blr x1\n"                                             \
		"	mov x8, #93\n"                                        \
		"	svc #0\n"                                             \
		"	b .\n"                                                \
		RT_ASM_GLOBAL(rt_sigreturn_restorer)                          \
		"	mov x8, #139\n"                                       \
		"	svc #0\n")

#endif
