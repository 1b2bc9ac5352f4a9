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

/*
 * A kernel's size as size(1) prints it for vmlinux (Berkeley format: text
 * is code and read-only data, data the writable sections with contents,
 * bss the rest of what is allocated), in bytes, each -1 when unknown; and
 * image, its size in memory from the image header where the header says
 * it (arm64's image_size), else -1. from: "vmlinux" (the build tree's),
 * "bzImage payload" (x86: the vmlinux inside, inflated), "Image header",
 * or NULL; reason (malloc'd, or NULL): why text, data and bss are unknown.
 */
struct kernel_size {
	long long text, data, bss, image;
	const char *from;
	char *reason;
};

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
	struct kernel_size size;        /* kernel_size_read() */
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
 * remote become k's git_* (in place of any), and k->size its vmlinux's
 * where tree has one (kernel_size_read()). 0 (a warning when HEAD is no
 * SHA-1 commit: nothing recorded), or EXIT_USAGE after a message naming
 * tree when it is no git work tree.
 */
int kernel_set_tree(struct kernel *k, const char *tree);
/*
 * kernel_size_read: sets k->size (kernel-size.c), from the vmlinux of the
 * build tree (tree, or the tree k->image is in: TREE/arch/ARCH/boot/),
 * else from the image's own bytes (kept in the cache by k->sha256). Never
 * fails: what it cannot tell is -1, with the reason. kernel_open() calls
 * it; kernel_set_tree() again, for the tree given.
 */
void kernel_size_read(struct kernel *k, const char *tree);
/* kernel_size_json: z as result.json's and the manifest's kernel.size:
 * {"text", "data", "bss", "image": bytes or null, "from": string or null,
 * "reason": where text, data and bss are null}. */
struct json_object;
struct json_object *kernel_size_json(const struct kernel_size *z);
void kernel_release(struct kernel *k);

const char *kernel_arch_name(enum kernel_arch a);   /* "arm64", "x86_64", "arm" */

#endif
