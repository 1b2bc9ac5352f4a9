/*
 * build.h: making the initramfs that a boot runs, and an SD-card image.
 *
 * `bootrig build` (builder/cmd-build.c) and `bootrig run` (when the user
 * gives no --initramfs) both call build_initramfs(). The image is a cpio
 * "newc" archive written here (builder/cpio.c), gzip'd through libdeflate
 * unless asked not to, and fully reproducible: entries sorted by name, uid/gid 0,
 * mtime from $SOURCE_DATE_EPOCH (0 when unset), inode numbers 1, 2, ... in
 * that order, gzip with no name, mtime 0 and OS byte 3 (Unix).
 *
 * What the image holds:
 *   /init                      build/guest/<native abi>/init
 *   /bench/<abi>/probe         for each ABI (init execs it: does the kernel run it?)
 *   /bench/<abi>/<test>        for each ABI and each test of the suite
 *   /bench/data/file           4 KiB the syscall tests stat and open
 *   /etc/bootrig/plan          suite=, tests=, abis=, samples=, repeat=, test_timeout=,
 *                              profile=1 (a suite with profile = true)
 *   /dev/console               char 5:1, for the early console
 *   the user's extra files     (--add SRC:DEST, or files = ( "SRC:DEST" ) in a config)
 * plus every directory on the way. With append_to, a copy of that existing
 * initramfs comes first and ours is appended (the kernel reads concatenated
 * archives). The guest binaries come from bootrig_guest_dir().
 *
 * Next to the image, IMAGE.json (the image's path with ".json" appended)
 * is the manifest: kernel, arch, ABIs, suite, plan, and every file with its
 * mode, size and sha256.
 */
#ifndef BOOTRIG_BUILD_H
#define BOOTRIG_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct kernel;
struct target;
struct suite;

/* What the image cache did for a build (builder/build.c, "the image cache"). */
enum image_cache {
	IMAGE_CACHE_OFF,        /* not gzip'd: nothing to keep */
	IMAGE_CACHE_HIT,        /* the gzip'd archive came from the cache */
	IMAGE_CACHE_MADE,       /* made, and kept for the next build */
	IMAGE_CACHE_UNSETTLED,  /* made; not kept, a file changed in the last seconds */
};

struct build_options {
	const struct kernel *kernel;   /* required: its arch picks the ABIs */
	const struct target *target;   /* required: abis (native first) */
	const struct suite *suite;     /* required: tests and the plan */
	char **abis;                   /* NULL: all of target->abis; else a subset */
	size_t n_abis;
	char **extra_files;            /* "SRC:DEST" strings */
	size_t n_extra_files;
	const char *append_to;         /* NULL, or an initramfs copied first */
	bool compress;                 /* gzip (default true) */
	bool write_manifest;           /* write OUTPUT.json (default true) */
	enum image_cache *cache_outcome;  /* when not NULL, set to what the cache did */
};

/* Defaults: compress and write_manifest true, everything else zero. */
void build_options_init(struct build_options *opt);

/*
 * build_initramfs: write the initramfs for opt to output (through a
 * temporary file and rename: never half-written), and the manifest when
 * asked. Returns 0, or prints a clear error and returns the exit status
 * to use: 65 (bad input: a missing guest binary, a bad --add), 64 (an ABI
 * the target does not have), 125 (cannot write).
 */
int build_initramfs(const struct build_options *opt, const char *output);

/*
 * build_sd_image: a raw disk image for U-Boot's distro boot, written with
 * libguestfs: an MBR table, one FAT32 partition (bootable) holding
 * /Image (or zImage/bzImage), /initrd.img, /<dtb> when given and
 * /extlinux/extlinux.conf (APPEND "console=<console> panic=-1 <append>").
 * Sets LIBGUESTFS_BACKEND=direct and LIBGUESTFS_BACKEND_SETTINGS=force_tcg
 * when unset. Returns 0, or an exit status as above (125: libguestfs failed).
 */
int build_sd_image(const struct kernel *k, const char *initramfs, const char *dtb,
		   const char *console, const char *append, const char *output);

/*
 * build_list: print an image's entries, "MODE SIZE NAME" a line, to out
 * (gzip'd or plain cpio, concatenated archives too). The reader checks
 * every length against what is there. Returns 0, or 65 with the error
 * printed when the image is corrupt or truncated.
 */
int build_list(const char *image, FILE *out);

#endif
