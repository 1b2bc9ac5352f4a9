/*
 * arch/i386.h: the i386 ABI (ILP32, 32-bit x86) for the bootrig runtime.
 *
 *  - trap: `int $0x80`; number in eax, result in eax (-4095..-1 is -errno)
 *  - arguments: ebx, ecx, edx, esi, edi, ebp (the 6th is loaded into ebp
 *    around the trap, as ebp may be in use by the compiler)
 *  - clobbered by the kernel: nothing but eax and memory
 *  - 64-bit arguments: two registers, low word first (ftruncate64);
 *    _llseek takes (hi, lo) explicitly; mmap2 takes the offset in pages
 *  - 64-bit time: clock_gettime64, clock_nanosleep_time64, futex_time64
 *  - syscall table: arch/x86/entry/syscalls/syscall_32.tbl
 *  - signals: SA_RESTORER trampoline calling rt_sigreturn (173)
 *  - entry: esp points at argc; pass it on the stack, 16-byte aligned
 */
#ifndef BOOTRIG_RT_ARCH_I386_H
#define BOOTRIG_RT_ARCH_I386_H

#define RT_ABI_NAME "i386"
typedef long rt_sysarg_t;
#define RT_ARG(x) ((rt_sysarg_t)(x))
#define RT_PTR(p) ((rt_sysarg_t)(uintptr_t)(p))
#define RT_SA_RESTORER_NEEDED 1
#define O_DIRECTORY 0200000
/* what the kernel needs for files past 2 GiB (rt_openat adds it) */
#define RT_O_LARGEFILE 0100000

/* The numbers ARM shares; then i386's own. */
#include "i386-arm-numbers.h"
#define __NR_getdents64 220
#define __NR_exit_group 252
#define __NR_openat 295
#define __NR_mkdirat 296
#define __NR_fstatat64 300
#define __NR_unlinkat 301
#define __NR_faccessat 307
#define __NR_dup3 330
#define __NR_pipe2 331
#define __NR_perf_event_open 336
#define __NR_finit_module 350
#define __NR_getrandom 355
#define __NR_socket 359
#define __NR_socketpair 360
#define __NR_bind 361
#define __NR_connect 362
#define __NR_listen 363
#define __NR_accept4 364
#define __NR_setsockopt 366
#define __NR_getsockname 367
#define __NR_shutdown 373

#define __NR_rt_fstatat __NR_fstatat64
#define __NR_fcntl __NR_fcntl64
#include "stat64.h"

static inline long rt_syscall0(long n)
{
	long ret;
	__asm__ volatile("int $0x80" : "=a"(ret) : "0"(n) : "memory");
	return ret;
}

static inline long rt_syscall1(long n, long a1)
{
	long ret;
	__asm__ volatile("int $0x80" : "=a"(ret) : "0"(n), "b"(a1) : "memory");
	return ret;
}

static inline long rt_syscall2(long n, long a1, long a2)
{
	long ret;
	__asm__ volatile("int $0x80" : "=a"(ret) : "0"(n), "b"(a1), "c"(a2) : "memory");
	return ret;
}

static inline long rt_syscall3(long n, long a1, long a2, long a3)
{
	long ret;
	__asm__ volatile("int $0x80" : "=a"(ret) : "0"(n), "b"(a1), "c"(a2), "d"(a3) : "memory");
	return ret;
}

static inline long rt_syscall4(long n, long a1, long a2, long a3, long a4)
{
	long ret;
	__asm__ volatile("int $0x80" : "=a"(ret)
			 : "0"(n), "b"(a1), "c"(a2), "d"(a3), "S"(a4) : "memory");
	return ret;
}

static inline long rt_syscall5(long n, long a1, long a2, long a3, long a4, long a5)
{
	long ret;
	__asm__ volatile("int $0x80" : "=a"(ret)
			 : "0"(n), "b"(a1), "c"(a2), "d"(a3), "S"(a4), "D"(a5) : "memory");
	return ret;
}

/* The 6th argument goes through the stack into ebp (nolibc's way). */
static inline long rt_syscall6(long n, long a1, long a2, long a3, long a4, long a5, long a6)
{
	long ret;
	__asm__ volatile("pushl %[a6]\n\t"
			 "pushl %%ebp\n\t"
			 "movl 4(%%esp), %%ebp\n\t"
			 "int $0x80\n\t"
			 "popl %%ebp\n\t"
			 "addl $4, %%esp"
			 : "=a"(ret)
			 : "0"(n), "b"(a1), "c"(a2), "d"(a3), "S"(a4), "D"(a5), [a6] "g"(a6)
			 : "memory");
	return ret;
}

/* A 64-bit value as two registers, low word first. */
#define RT_ARG64(x) ((rt_sysarg_t)(uint32_t)(uint64_t)(x)), \
		    ((rt_sysarg_t)(uint32_t)((uint64_t)(x) >> 32))
/* ftruncate64(fd, lo, hi). */
#define RT_FTRUNCATE64_ARGS(fd, len) RT_ARG(fd), RT_ARG64(len), 0, 0, 0

#ifdef RT_ARCH_IMPL
__asm__(
	".text\n"
	RT_ASM_GLOBAL(_start)
	"	xor %ebp, %ebp\n"
	"	mov %esp, %eax\n"
	"	and $-16, %esp\n"
	"	sub $12, %esp\n"
	"	push %eax\n"               /* rt_start_c(sp) */
	"	call rt_start_c\n"
	"	hlt\n"

	/* rt_clone_thread(flags, stack, ptid, ctid, fn, arg), all on the stack:
	 * clone(ebx flags, ecx stack, edx ptid, esi tls, edi ctid). */
	RT_ASM_GLOBAL(rt_clone_thread)
	"	push %ebx\n"
	"	push %esi\n"
	"	push %edi\n"
	"	mov 16(%esp), %ebx\n"
	"	mov 20(%esp), %ecx\n"
	"	and $-16, %ecx\n"
	"	sub $16, %ecx\n"
	"	mov 36(%esp), %eax\n"      /* arg at 0(child sp), fn at 4 */
	"	mov %eax, 0(%ecx)\n"
	"	mov 32(%esp), %eax\n"
	"	mov %eax, 4(%ecx)\n"
	"	mov 24(%esp), %edx\n"
	"	xor %esi, %esi\n"
	"	mov 28(%esp), %edi\n"
	"	mov $120, %eax\n"          /* __NR_clone */
	"	int $0x80\n"
	"	test %eax, %eax\n"
	"	jnz 1f\n"
	"	xor %ebp, %ebp\n"
	"	mov 4(%esp), %eax\n"
	"	call *%eax\n"              /* fn(arg): esp is 16-byte aligned here */
	"	mov %eax, %ebx\n"
	"	mov $1, %eax\n"            /* __NR_exit */
	"	int $0x80\n"
	"	hlt\n"
	"1:	pop %edi\n"
	"	pop %esi\n"
	"	pop %ebx\n"
	"	ret\n"

	RT_ASM_GLOBAL(rt_sigreturn_restorer)
	"	mov $173, %eax\n"
	"	int $0x80\n"
	"	hlt\n");
#endif

#endif
