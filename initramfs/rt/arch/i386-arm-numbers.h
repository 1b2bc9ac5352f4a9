/*
 * arch/i386-arm-numbers.h: the syscall numbers i386 and the ARM EABI share,
 * as far as the runtime uses them: ARM's table (arch/arm/tools/syscall.tbl)
 * began as a copy of i386's (arch/x86/entry/syscalls/syscall_32.tbl), so
 * the old calls keep one number on both, and the time64 calls (403 on) are
 * numbered alike on every 32-bit ABI. The calls whose numbers differ
 * (sockets, *at, later additions) are in each ABI's file.
 */
#ifndef BOOTRIG_RT_ARCH_I386_ARM_NUMBERS_H
#define BOOTRIG_RT_ARCH_I386_ARM_NUMBERS_H

#define __NR_exit 1
#define __NR_read 3
#define __NR_write 4
#define __NR_close 6
#define __NR_execve 11
#define __NR_chdir 12
#define __NR_getpid 20
#define __NR_mount 21
#define __NR_sync 36
#define __NR_kill 37
#define __NR_dup 41
#define __NR_umount2 52
#define __NR_ioctl 54
#define __NR_setpgid 57
#define __NR_getppid 64
#define __NR_setsid 66
#define __NR_reboot 88
#define __NR_munmap 91
#define __NR_syslog 103
#define __NR_wait4 114
#define __NR_fsync 118
#define __NR_clone 120
#define __NR_uname 122
#define __NR_mprotect 125
#define __NR_llseek 140
#define __NR_sched_yield 158
#define __NR_sched_setscheduler 156
#define __NR_prctl 172
#define __NR_rt_sigreturn 173
#define __NR_rt_sigaction 174
#define __NR_rt_sigprocmask 175
#define __NR_mmap2 192
#define __NR_ftruncate64 194
#define __NR_fstat64 197
#define __NR_fcntl64 221
#define __NR_gettid 224
#define __NR_sched_setaffinity 241
#define __NR_sched_getaffinity 242
#define __NR_clock_gettime64 403
#define __NR_clock_nanosleep_time64 407
#define __NR_ppoll_time64 414
#define __NR_futex_time64 422

#endif
