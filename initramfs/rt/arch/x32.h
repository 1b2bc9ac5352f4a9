/*
 * arch/x32.h: the x32 ABI (ILP32 on x86_64) for the bootrig runtime.
 *
 *  - trap: `syscall`; number in rax with __X32_SYSCALL_BIT (0x40000000)
 *    set, result in rax (-4095..-1 is -errno)
 *  - arguments: rdi, rsi, rdx, r10, r8, r9, as full 64-bit registers:
 *    pointers and unsigned values zero-extended, ints sign-extended
 *    (rt_sysarg_t is long long)
 *  - clobbered by the kernel: rcx, r11, memory
 *  - 64-bit arguments (off_t is 64-bit on x32): one register each; a
 *    64-bit result (lseek) needs the whole rax: rt_syscall3_wide()
 *  - syscall table: syscall_64.tbl, "common" and "x32" entries (512..547
 *    replace the 64-bit ones for calls with pointer-sized structures)
 *  - signals: SA_RESTORER trampoline calling x32 rt_sigreturn (513)
 *  - entry: like x86_64; the initial stack has 4-byte argv/envp slots
 *  - a kernel without CONFIG_X86_X32_ABI (or booted without
 *    syscall.x32=y where it is off by default) refuses the ELF: ENOEXEC
 */
#ifndef BOOTRIG_RT_ARCH_X32_H
#define BOOTRIG_RT_ARCH_X32_H

#define RT_ABI_NAME "x32"
typedef long long rt_sysarg_t;
#define RT_ARG(x) ((rt_sysarg_t)(x))
#define RT_PTR(p) ((rt_sysarg_t)(uintptr_t)(p))
#define RT_SA_RESTORER_NEEDED 1
#define O_DIRECTORY 0200000
/* open(2) is large-file already on this ABI */
#define RT_O_LARGEFILE 0
#define RT_SYSCALL_BASE 0x40000000

#define __NR_rt_sigaction (RT_SYSCALL_BASE + 512)
#define __NR_rt_sigreturn (RT_SYSCALL_BASE + 513)
#define __NR_ioctl (RT_SYSCALL_BASE + 514)
#define __NR_execve (RT_SYSCALL_BASE + 520)
#define __NR_setsockopt (RT_SYSCALL_BASE + 541)
#include "x86_64-numbers.h"

/* x32 uses x86_64's struct stat (64-bit fields). */
#include "x86_64-stat.h"

#include "x86_64-syscall.h"

#ifdef RT_ARCH_IMPL
__asm__(
	".text\n"
	RT_ASM_GLOBAL(_start)
	"	xor %ebp, %ebp\n"
	"	mov %esp, %edi\n"          /* the stack is below 4 GiB */
	"	and $-16, %esp\n"
	"	call rt_start_c\n"
	"	hlt\n"

	/* rt_clone_thread(flags edi, stack esi, ptid edx, ctid ecx, fn r8d, arg r9d):
	 * 32-bit values, zero-extended before the kernel sees them. */
	RT_ASM_GLOBAL(rt_clone_thread)
	"	mov %edi, %edi\n"
	"	mov %esi, %esi\n"
	"	mov %edx, %edx\n"
	"	mov %ecx, %r10d\n"         /* ctid */
	"	mov %r8d, %r8d\n"
	"	mov %r9d, %r9d\n"
	/* __NR_clone, __NR_exit | __X32_SYSCALL_BIT */
	RT_X86_64_CLONE_TAIL(0x40000038, 0x4000003c)

	RT_ASM_GLOBAL(rt_sigreturn_restorer)
	"	mov $0x40000201, %eax\n"   /* x32 rt_sigreturn (513) */
	"	syscall\n"
	"	hlt\n");
#endif

#endif
