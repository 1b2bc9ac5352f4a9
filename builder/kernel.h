/*
 * kernel.h: what a kernel is, read from the image itself (never from its
 * file name). A KERNEL argument may be an arm64 Image, an arm zImage, an x86
 * bzImage (each maybe gzip'd, as some distributions ship them), a Debian
 * linux-image-*.deb (the vmlinuz is taken out of it), or a kernel build
 * tree (arch/<arch>/boot/{Image,zImage,bzImage}).
 */
#ifndef BOOTRIG_KERNEL_H
#define BOOTRIG_KERNEL_H

enum kernel_arch { KARCH_UNKNOWN, KARCH_ARM64, KARCH_X86_64, KARCH_ARM };

struct kernel {
	char *input;       /* what the user gave */
	char *image;       /* the bootable image file (extracted from a .deb into the cache) */
	char *id;          /* results directory name: base name + first 8 hex of the sha256 */
	char *version;     /* "6.1.0-57-arm64 (...)" where the image has it, else NULL */
	char sha256[65];
	enum kernel_arch arch;
};

/*
 * kernel_open: identify KERNEL. Returns 0, or prints a clear error naming the
 * path and returns the exit status to use: 65 (EXIT_DATAERR) for a file
 * that is missing or not a kernel alike.
 */
int kernel_open(const char *input, struct kernel *k);
void kernel_release(struct kernel *k);

const char *kernel_arch_name(enum kernel_arch a);   /* "arm64", "x86_64", "arm" */

#endif
