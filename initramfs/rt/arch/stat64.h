/*
 * arch/stat64.h: struct stat64 as the i386 and arm kernels write it
 * (fstatat64). The same C declaration gives each ABI's layout: i386 aligns
 * long long to 4 in structures, ARM EABI to 8, and the kernel's own
 * declaration follows the same rules.
 */
#ifndef BOOTRIG_RT_ARCH_STAT64_H
#define BOOTRIG_RT_ARCH_STAT64_H

struct rt_kstat {
	unsigned long long st_dev;
	unsigned char pad0[4];
	unsigned long st_ino32;
	unsigned int st_mode;
	unsigned int st_nlink;
	unsigned long st_uid;
	unsigned long st_gid;
	unsigned long long st_rdev;
	unsigned char pad3[4];
	long long st_size;
	unsigned long st_blksize;
	unsigned long long st_blocks;
	unsigned long st_atime, st_atime_nsec;
	unsigned long st_mtime, st_mtime_nsec;
	unsigned long st_ctime, st_ctime_nsec;
	unsigned long long st_ino;
};

#endif
