/*
 * arch/x86_64-syscall.h: the `syscall` trap, shared by x86_64 and x32 (both
 * pass 64-bit registers; rt_sysarg_t is long on x86_64, long long on x32).
 * Number in rax; arguments rdi, rsi, rdx, r10, r8, r9; rcx and r11 are
 * clobbered. The raw result is a 64-bit register: rt_syscall*() narrow it
 * to long, which keeps -errno and every valid x32 pointer.
 */
#ifndef BOOTRIG_RT_ARCH_X86_64_SYSCALL_H
#define BOOTRIG_RT_ARCH_X86_64_SYSCALL_H

static inline long rt_syscall0(long n)
{
	rt_sysarg_t ret;
	__asm__ volatile("syscall" : "=a"(ret) : "0"((rt_sysarg_t)n) : "rcx", "r11", "memory");
	return (long)ret;
}

static inline long rt_syscall1(long n, rt_sysarg_t a1)
{
	rt_sysarg_t ret;
	__asm__ volatile("syscall" : "=a"(ret) : "0"((rt_sysarg_t)n), "D"(a1)
			 : "rcx", "r11", "memory");
	return (long)ret;
}

static inline long rt_syscall2(long n, rt_sysarg_t a1, rt_sysarg_t a2)
{
	rt_sysarg_t ret;
	__asm__ volatile("syscall" : "=a"(ret) : "0"((rt_sysarg_t)n), "D"(a1), "S"(a2)
			 : "rcx", "r11", "memory");
	return (long)ret;
}

static inline long rt_syscall4(long n, rt_sysarg_t a1, rt_sysarg_t a2, rt_sysarg_t a3,
			       rt_sysarg_t a4)
{
	rt_sysarg_t ret;
	register rt_sysarg_t r10 __asm__("r10") = a4;
	__asm__ volatile("syscall" : "=a"(ret)
			 : "0"((rt_sysarg_t)n), "D"(a1), "S"(a2), "d"(a3), "r"(r10)
			 : "rcx", "r11", "memory");
	return (long)ret;
}

static inline long rt_syscall5(long n, rt_sysarg_t a1, rt_sysarg_t a2, rt_sysarg_t a3,
			       rt_sysarg_t a4, rt_sysarg_t a5)
{
	rt_sysarg_t ret;
	register rt_sysarg_t r10 __asm__("r10") = a4;
	register rt_sysarg_t r8 __asm__("r8") = a5;
	__asm__ volatile("syscall" : "=a"(ret)
			 : "0"((rt_sysarg_t)n), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return (long)ret;
}

static inline long rt_syscall6(long n, rt_sysarg_t a1, rt_sysarg_t a2, rt_sysarg_t a3,
			       rt_sysarg_t a4, rt_sysarg_t a5, rt_sysarg_t a6)
{
	rt_sysarg_t ret;
	register rt_sysarg_t r10 __asm__("r10") = a4;
	register rt_sysarg_t r8 __asm__("r8") = a5;
	register rt_sysarg_t r9 __asm__("r9") = a6;
	__asm__ volatile("syscall" : "=a"(ret)
			 : "0"((rt_sysarg_t)n), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8),
			   "r"(r9)
			 : "rcx", "r11", "memory");
	return (long)ret;
}

/* rt_syscall3_wide: the whole 64-bit result, for the call whose result
 * may not fit a 32-bit long on x32 (lseek's offset). */
static inline int64_t rt_syscall3_wide(long n, rt_sysarg_t a1, rt_sysarg_t a2, rt_sysarg_t a3)
{
	int64_t ret;
	__asm__ volatile("syscall" : "=a"(ret) : "0"((int64_t)n), "D"(a1), "S"(a2), "d"(a3)
			 : "rcx", "r11", "memory");
	return ret;
}

/* rt_syscall3: rt_syscall3_wide's result narrowed to long (-errno and
 * every x32 pointer survive it). */
static inline long rt_syscall3(long n, rt_sysarg_t a1, rt_sysarg_t a2, rt_sysarg_t a3)
{
	return (long)rt_syscall3_wide(n, a1, a2, a3);
}

/* One register per 64-bit value. */
#define RT_ARG64(x) ((rt_sysarg_t)(x))

/* RT_X86_64_CLONE_TAIL(nr_clone, nr_exit): the end of rt_clone_thread's
 * assembly, shared by x86_64 and x32 once each has put flags, stack,
 * ptid in rdi, rsi, rdx, ctid in r10 and fn, arg in r8, r9 (64-bit
 * registers): fn and arg go on the child's aligned stack, clone runs with
 * no tls, the child calls fn(arg) and exits this thread with its result,
 * the parent returns clone's result. nr_clone and nr_exit are the ABI's
 * numbers as literals (they are pasted into the text). */
#define RT_X86_64_CLONE_TAIL(nr_clone, nr_exit)                                 \
	"	and $-16, %rsi\n"                                               \
	"	sub $16, %rsi\n"                                                \
	"	mov %r8, 0(%rsi)\n"        /* fn and arg on the child's stack */ \
	"	mov %r9, 8(%rsi)\n"                                             \
	"	xor %r8d, %r8d\n"          /* tls */                            \
	"	mov $" #nr_clone ", %eax\n"                                     \
	"	syscall\n"                                                      \
	"	test %rax, %rax\n"                                              \
	"	jnz 1f\n"                                                       \
	"	xor %ebp, %ebp\n"                                               \
	"	pop %rax\n"                                                     \
	"	pop %rdi\n"                                                     \
	"	call *%rax\n"                                                   \
	"	mov %eax, %edi\n"                                               \
	"	mov $" #nr_exit ", %eax\n"    /* this thread only */            \
	"	syscall\n"                                                      \
	"	hlt\n"                                                          \
	"1:	ret\n"

#endif
