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
	/* A build tree that is a git work tree (kernel_open() asks git):
	 * HEAD's commit (40 hex), `git describe --always --tags --dirty` and
	 * remote.origin.url; each NULL when unknown (not a tree, not git, no
	 * remote). The image is what the tree last built: the commit is the
	 * checkout's at the run, as KCIDB's git_commit_hash means it. */
	char *git_commit, *git_describe, *git_url;
};

/*
 * kernel_open: identify KERNEL. Returns 0, or prints a clear error naming the
 * path and returns the exit status to use: 65 (EXIT_DATAERR) for a file
 * that is missing or not a kernel alike.
 */
int kernel_open(const char *input, struct kernel *k);
/*
 * kernel_set_tree: the git work tree k's image was built from (`run
 * --kernel-tree`, each step of `bisect`): its HEAD commit, describe and
 * remote become k's git_* (in place of any). 0 (a warning when HEAD is no
 * SHA-1 commit: nothing recorded), or EXIT_USAGE after a message naming
 * tree when it is no git work tree.
 */
int kernel_set_tree(struct kernel *k, const char *tree);
void kernel_release(struct kernel *k);

const char *kernel_arch_name(enum kernel_arch a);   /* "arm64", "x86_64", "arm" */

#endif
