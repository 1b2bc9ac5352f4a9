/*
 * arch/generic-numbers.h: the asm-generic syscall table
 * (include/uapi/asm-generic/unistd.h) as far as the runtime uses it,
 * shared by aarch64 and aarch64_ilp32. The calls that differ with the
 * width of long (fstatat, fcntl, lseek, mmap, ftruncate, time) are
 * defined by each ABI file.
 */
#ifndef BOOTRIG_RT_ARCH_GENERIC_NUMBERS_H
#define BOOTRIG_RT_ARCH_GENERIC_NUMBERS_H

#define __NR_dup 23
#define __NR_dup3 24
#define __NR_ioctl 29
#define __NR_mkdirat 34
#define __NR_unlinkat 35
#define __NR_umount2 39
#define __NR_mount 40
#define __NR_faccessat 48
#define __NR_chdir 49
#define __NR_openat 56
#define __NR_close 57
#define __NR_pipe2 59
#define __NR_getdents64 61
#define __NR_read 63
#define __NR_write 64
#define __NR_sync 81
#define __NR_fsync 82
#define __NR_exit 93
#define __NR_exit_group 94
#define __NR_syslog 116
#define __NR_finit_module 273
#define __NR_sched_setaffinity 122
#define __NR_sched_getaffinity 123
#define __NR_sched_yield 124
#define __NR_sched_setscheduler 119
#define __NR_kill 129
#define __NR_rt_sigaction 134
#define __NR_rt_sigprocmask 135
#define __NR_rt_sigreturn 139
#define __NR_reboot 142
#define __NR_setpgid 154
#define __NR_setsid 157
#define __NR_uname 160
#define __NR_prctl 167
#define __NR_getpid 172
#define __NR_getppid 173
#define __NR_gettid 178
#define __NR_socket 198
#define __NR_socketpair 199
#define __NR_bind 200
#define __NR_listen 201
#define __NR_connect 203
#define __NR_getsockname 204
#define __NR_setsockopt 208
#define __NR_shutdown 210
#define __NR_munmap 215
#define __NR_clone 220
#define __NR_execve 221
#define __NR_mprotect 226
#define __NR_perf_event_open 241
#define __NR_accept4 242
#define __NR_wait4 260
#define __NR_getrandom 278

#endif
