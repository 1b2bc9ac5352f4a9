/*
 * arch.h: chooses the one file that knows the ABI (arch/<abi>.h) from the
 * compiler's own predefined macros. Nothing else in the runtime tests the
 * architecture.
 *
 * Every arch/<abi>.h provides the same surface:
 *   RT_ABI_NAME            the bootrig ABI name ("aarch64", "x32", ...)
 *   rt_sysarg_t            an integer as wide as a syscall argument register
 *   RT_ARG(x), RT_PTR(p)   an integer / a pointer as rt_sysarg_t
 *   RT_ARG64(x)            a 64-bit value as the ABI passes it: one register,
 *                          or a (lo, hi) pair on 32-bit ABIs
 *   rt_syscall0..6()       the trap, returning the raw result as long
 *   rt_syscall3_wide()     the same with a 64-bit result, where the ABI has
 *                          plain lseek (no __NR_llseek)
 *   __NR_*                 the syscall numbers the runtime uses
 *   O_DIRECTORY            (it differs between architectures)
 *   RT_O_LARGEFILE         added to every open: 0, or the ABI's O_LARGEFILE
 *   struct rt_kstat        what the ABI's stat call (__NR_rt_fstatat) fills
 *   RT_SA_RESTORER_NEEDED  1 when rt_sigaction must pass a restorer
 * and, when RT_ARCH_IMPL is defined (only in start.c), the assembly: the
 * entry point _start (stack pointer to rt_start_c()), rt_clone_thread()
 * and rt_sigreturn_restorer().
 */
#ifndef BOOTRIG_RT_ARCH_H
#define BOOTRIG_RT_ARCH_H

/* RT_ASM_GLOBAL(name): in an arch file's assembly, the label of an entry
 * point the C code calls or the linker starts at, made global. */
#define RT_ASM_GLOBAL(name) ".global " #name "\n" #name ":\n"

#if defined(__x86_64__) && defined(__ILP32__)
#include "arch/x32.h"
#elif defined(__x86_64__)
#include "arch/x86_64.h"
#elif defined(__i386__)
#include "arch/i386.h"
#elif defined(__aarch64__) && defined(__ILP32__)
#include "arch/aarch64_ilp32.h"
#elif defined(__aarch64__)
#include "arch/aarch64.h"
#elif defined(__arm__) && defined(__ARM_EABI__)
#include "arch/arm.h"
#else
#error "bootrig runtime: unsupported ABI (see initramfs/rt/arch.h)"
#endif

/* Entry-side contracts every arch file's assembly calls or provides. */
struct rt_thread;
/* rt_start_c: portable start-up: sp points at argc, argv..., NULL, envp. */
__attribute__((noreturn)) void rt_start_c(long *sp);
/* rt_clone_thread: clone(flags, stack, ptid, tls=0, ctid); the child runs
 * fn(arg) on stack and then exit(2)s with its return value; the parent
 * gets the tid or -errno. */
long rt_clone_thread(unsigned long flags, void *stack, volatile uint32_t *ptid,
		     volatile uint32_t *ctid, int (*fn)(void *), void *arg);
void rt_sigreturn_restorer(void);

#endif
