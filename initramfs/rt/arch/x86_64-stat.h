/*
 * arch/x86_64-stat.h: struct stat as the x86_64 kernel writes it
 * (arch/x86/include/uapi/asm/stat.h, filled by newfstatat), shared by
 * x86_64 and x32: x32 has no stat of its own, its fields are the 64-bit
 * ones (fixed-width types give the one layout on both).
 */
#ifndef BOOTRIG_RT_ARCH_X86_64_STAT_H
#define BOOTRIG_RT_ARCH_X86_64_STAT_H

struct rt_kstat {
	uint64_t st_dev, st_ino, st_nlink;
	uint32_t st_mode, st_uid, st_gid, pad0;
	uint64_t st_rdev;
	int64_t st_size, st_blksize, st_blocks;
	uint64_t st_atime, st_atime_nsec, st_mtime, st_mtime_nsec, st_ctime, st_ctime_nsec;
	int64_t unused[3];
};
#define __NR_rt_fstatat __NR_newfstatat

#endif
