/*
 * sdimage.c: an SD-card (or virtio disk) image that U-Boot's distro boot
 * starts: MBR, one bootable FAT partition (type 0x0c) holding the kernel,
 * the initramfs, an optional DTB and extlinux/extlinux.conf. Written with
 * libguestfs's C API (its appliance runs under QEMU TCG here), into a
 * temporary file renamed into place at the end.
 */
#include "build.h"
#include "exitcodes.h"
#include "kernel.h"
#include "util.h"

#include <errno.h>
#include <guestfs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIB (1024 * 1024)

/* The kernel's file name on the boot partition, by arch. */
static const char *kernel_file(const struct kernel *k)
{
	switch (k->arch) {
	case KARCH_ARM: return "zImage";
	case KARCH_X86_64: return "bzImage";
	default: return "Image";
	}
}

/* The file name part of path. */
static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* extlinux.conf for one entry that boots at once. */
static char *extlinux_conf(const struct kernel *k, const char *dtb, const char *console,
			   const char *append)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "# written by bootrig %s\nDEFAULT bootrig\nTIMEOUT 1\nMENU TITLE bootrig\n\n"
		    "LABEL bootrig\n  MENU LABEL %s\n  KERNEL /%s\n  INITRD /initrd.img\n",
		    BOOTRIG_VERSION, k->id, kernel_file(k));
	if (dtb)
		strbuf_addf(&sb, "  FDT /%s\n", base_of(dtb));
	strbuf_addf(&sb, "  APPEND console=%s panic=-1%s%s\n", console ? console : "ttyAMA0",
		    append && *append ? " " : "", append ? append : "");
	return sb.buf;
}

/* Bytes the partition needs: the files, plus room for FAT and slack. */
static int64_t disk_size(const char *const *files, size_t n)
{
	int64_t total = 16 * MIB;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (files[i] && stat(files[i], &st) == 0)
			total += st.st_size;
	}
	total += total / 8;
	total = (total + MIB - 1) / MIB * MIB;
	return total < 64 * MIB ? 64 * MIB : total;
}

/* Fills the launched handle's disk; -1 on the first libguestfs error. */
static int fill_disk(guestfs_h *g, const struct kernel *k, const char *initramfs,
		     const char *dtb, const char *conf)
{
	char *dtb_dest = dtb ? xasprintf("/%s", base_of(dtb)) : NULL;
	char *kernel_dest = xasprintf("/%s", kernel_file(k));
	int rc = -1;
	if (guestfs_part_disk(g, "/dev/sda", "mbr") == 0 &&
	    guestfs_part_set_mbr_id(g, "/dev/sda", 1, 0x0c) == 0 &&
	    guestfs_part_set_bootable(g, "/dev/sda", 1, 1) == 0 &&
	    guestfs_mkfs_opts(g, "vfat", "/dev/sda1", GUESTFS_MKFS_OPTS_LABEL, "BOOTRIG", -1) == 0 &&
	    guestfs_mount(g, "/dev/sda1", "/") == 0 &&
	    guestfs_upload(g, k->image, kernel_dest) == 0 &&
	    guestfs_upload(g, initramfs, "/initrd.img") == 0 &&
	    (!dtb || guestfs_upload(g, dtb, dtb_dest) == 0) &&
	    guestfs_mkdir_p(g, "/extlinux") == 0 &&
	    guestfs_write(g, "/extlinux/extlinux.conf", conf, strlen(conf)) == 0 &&
	    guestfs_umount_all(g) == 0 && guestfs_shutdown(g) == 0)
		rc = 0;
	free(dtb_dest);
	free(kernel_dest);
	return rc;
}

int build_sd_image(const struct kernel *k, const char *initramfs, const char *dtb,
		   const char *console, const char *append, const char *output)
{
	if (dtb && access(dtb, R_OK) != 0)
		return error("%s: %s", dtb, strerror(errno)), EXIT_DATAERR;
	setenv("LIBGUESTFS_BACKEND", "direct", 0);
	setenv("LIBGUESTFS_BACKEND_SETTINGS", "force_tcg", 0);
	guestfs_h *g = guestfs_create();
	if (!g)
		return error("libguestfs: cannot create a handle"), EXIT_INFRA;
	guestfs_set_error_handler(g, NULL, NULL);
	const char *files[] = { k->image, initramfs, dtb };
	/* the temporary disk is created here first (open_tmp_beside: no
	 * planted symlink followed), then filled by libguestfs */
	char *tmp;
	int fd = open_tmp_beside(output, &tmp);
	if (fd < 0) {
		error("cannot create %s: %s", tmp, strerror(errno));
		free(tmp);
		guestfs_close(g);
		return EXIT_INFRA;
	}
	close(fd);
	char *conf = extlinux_conf(k, dtb, console, append);
	int rc = EXIT_INFRA;
	if (guestfs_disk_create(g, tmp, "raw", disk_size(files, ARRAY_SIZE(files)), -1) == 0 &&
	    guestfs_add_drive_opts(g, tmp, GUESTFS_ADD_DRIVE_OPTS_FORMAT, "raw", -1) == 0 &&
	    guestfs_launch(g) == 0 && fill_disk(g, k, initramfs, dtb, conf) == 0)
		rc = 0;
	if (rc)
		error("%s: libguestfs failed: %s", output,
		      guestfs_last_error(g) ? guestfs_last_error(g) : "(no message)");
	guestfs_close(g);
	if (!rc && rename(tmp, output) < 0)
		rc = (error("cannot rename %s to %s: %s", tmp, output, strerror(errno)), EXIT_INFRA);
	if (rc)
		unlink(tmp);
	free(conf);
	free(tmp);
	return rc;
}
