/*
 * arch/svc-syscall.h: rt_syscall0() to rt_syscall6() for the `svc #0`
 * traps of aarch64, aarch64_ilp32 and the ARM EABI: the number in one
 * register, the arguments in the first six, the result in the first; the
 * kernel clobbers nothing else but what the ABI names. The including
 * arch file defines, before it includes this one:
 *   RT_SVC_NR          the number's register ("x8", "r7")
 *   RT_SVC_A0..A5      the argument registers ("x0".."x5", "r0".."r5")
 *   RT_SVC_CLOBBERS    the clobber list ("memory", "cc" on aarch64)
 * and rt_sysarg_t (the register-sized argument type).
 */
#ifndef BOOTRIG_RT_ARCH_SVC_SYSCALL_H
#define BOOTRIG_RT_ARCH_SVC_SYSCALL_H

/* The trap itself, once a0 (and the operands in ...) hold the arguments:
 * the number into RT_SVC_NR, svc, the result from a0. */
#define RT_SVC_SYSCALL(n, ...)                                                            \
	register rt_sysarg_t nr __asm__(RT_SVC_NR) = (n);                                 \
	__asm__ volatile("svc #0" : "+r"(a0) : "r"(nr), ##__VA_ARGS__ : RT_SVC_CLOBBERS); \
	return (long)a0

static inline long rt_syscall0(long n)
{
	register rt_sysarg_t a0 __asm__(RT_SVC_A0) = 0;
	RT_SVC_SYSCALL(n);
}

static inline long rt_syscall1(long n, rt_sysarg_t a1)
{
	register rt_sysarg_t a0 __asm__(RT_SVC_A0) = a1;
	RT_SVC_SYSCALL(n);
}

static inline long rt_syscall2(long n, rt_sysarg_t a1, rt_sysarg_t a2)
{
	register rt_sysarg_t a0 __asm__(RT_SVC_A0) = a1;
	register rt_sysarg_t r1 __asm__(RT_SVC_A1) = a2;
	RT_SVC_SYSCALL(n, "r"(r1));
}

static inline long rt_syscall3(long n, rt_sysarg_t a1, rt_sysarg_t a2, rt_sysarg_t a3)
{
	register rt_sysarg_t a0 __asm__(RT_SVC_A0) = a1;
	register rt_sysarg_t r1 __asm__(RT_SVC_A1) = a2;
	register rt_sysarg_t r2 __asm__(RT_SVC_A2) = a3;
	RT_SVC_SYSCALL(n, "r"(r1), "r"(r2));
}

static inline long rt_syscall4(long n, rt_sysarg_t a1, rt_sysarg_t a2, rt_sysarg_t a3,
			       rt_sysarg_t a4)
{
	register rt_sysarg_t a0 __asm__(RT_SVC_A0) = a1;
	register rt_sysarg_t r1 __asm__(RT_SVC_A1) = a2;
	register rt_sysarg_t r2 __asm__(RT_SVC_A2) = a3;
	register rt_sysarg_t r3 __asm__(RT_SVC_A3) = a4;
	RT_SVC_SYSCALL(n, "r"(r1), "r"(r2), "r"(r3));
}

static inline long rt_syscall5(long n, rt_sysarg_t a1, rt_sysarg_t a2, rt_sysarg_t a3,
			       rt_sysarg_t a4, rt_sysarg_t a5)
{
	register rt_sysarg_t a0 __asm__(RT_SVC_A0) = a1;
	register rt_sysarg_t r1 __asm__(RT_SVC_A1) = a2;
	register rt_sysarg_t r2 __asm__(RT_SVC_A2) = a3;
	register rt_sysarg_t r3 __asm__(RT_SVC_A3) = a4;
	register rt_sysarg_t r4 __asm__(RT_SVC_A4) = a5;
	RT_SVC_SYSCALL(n, "r"(r1), "r"(r2), "r"(r3), "r"(r4));
}

static inline long rt_syscall6(long n, rt_sysarg_t a1, rt_sysarg_t a2, rt_sysarg_t a3,
			       rt_sysarg_t a4, rt_sysarg_t a5, rt_sysarg_t a6)
{
	register rt_sysarg_t a0 __asm__(RT_SVC_A0) = a1;
	register rt_sysarg_t r1 __asm__(RT_SVC_A1) = a2;
	register rt_sysarg_t r2 __asm__(RT_SVC_A2) = a3;
	register rt_sysarg_t r3 __asm__(RT_SVC_A3) = a4;
	register rt_sysarg_t r4 __asm__(RT_SVC_A4) = a5;
	register rt_sysarg_t r5 __asm__(RT_SVC_A5) = a6;
	RT_SVC_SYSCALL(n, "r"(r1), "r"(r2), "r"(r3), "r"(r4), "r"(r5));
}

#endif
