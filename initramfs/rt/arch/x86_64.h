/*
 * arch/x86_64.h: the x86_64 ABI (LP64) for the bootrig runtime.
 *
 *  - trap: `syscall`; number in rax, result in rax (-4095..-1 is -errno)
 *  - arguments: rdi, rsi, rdx, r10, r8, r9
 *  - clobbered by the kernel: rcx (return address), r11 (rflags), memory
 *  - 64-bit arguments: one register each
 *  - syscall table: arch/x86/entry/syscalls/syscall_64.tbl (common + 64)
 *  - signals: the kernel needs an SA_RESTORER trampoline (rt_sigreturn)
 *  - entry: rsp points at argc; align to 16 before calling C
 */
#ifndef BOOTRIG_RT_ARCH_X86_64_H
#define BOOTRIG_RT_ARCH_X86_64_H

#define RT_ABI_NAME "x86_64"
typedef long rt_sysarg_t;
#define RT_ARG(x) ((rt_sysarg_t)(x))
#define RT_PTR(p) ((rt_sysarg_t)(uintptr_t)(p))
#define RT_SA_RESTORER_NEEDED 1
#define O_DIRECTORY 0200000
/* open(2) is large-file already on this ABI */
#define RT_O_LARGEFILE 0
#define RT_SYSCALL_BASE 0

/* The calls whose x32 numbers differ (x32 has its own entries for them). */
#define __NR_rt_sigaction 13
#define __NR_rt_sigreturn 15
#define __NR_ioctl 16
#define __NR_setsockopt 54
#define __NR_execve 59
#include "x86_64-numbers.h"

#include "x86_64-stat.h"

#include "x86_64-syscall.h"

#ifdef RT_ARCH_IMPL
__asm__(
	".text\n"
	RT_ASM_GLOBAL(_start)
	"	xor %ebp, %ebp\n"
	"	mov %rsp, %rdi\n"          /* argc, argv... for rt_start_c */
	"	and $-16, %rsp\n"
	"	call rt_start_c\n"
	"	hlt\n"

	/* rt_clone_thread(flags rdi, stack rsi, ptid rdx, ctid rcx, fn r8, arg r9) */
	RT_ASM_GLOBAL(rt_clone_thread)
	"	mov %rcx, %r10\n"          /* ctid: clone's 4th argument */
	RT_X86_64_CLONE_TAIL(56, 60)        /* __NR_clone, __NR_exit */

	RT_ASM_GLOBAL(rt_sigreturn_restorer)
	"	mov $15, %eax\n"           /* __NR_rt_sigreturn */
	"	syscall\n"
	"	hlt\n");
#endif

#endif
