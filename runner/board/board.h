/*
 * board.h: a board as its config describes it (configs/boards/NAME.cfg), read
 * by runner/board/board-config.c and driven by runner/board/board.c (the
 * "board" backend of backend.h).
 *
 *   boards = ( {
 *     name = "sim-arm64-tftp";
 *     arch = "arm64";                       # the kernels it boots
 *     serial = { uri = "unix:${state}/serial.sock"; baud = 115200;
 *                appear_timeout = 30.0;     # line absent at power-on: wait
 *                lost_timeout = 30.0; };    # line lost mid-boot: INFRA_ERROR after
 *     power  = { pre_power = [ ... ]; on = [ "cmd", "arg", ... ];
 *                off = [ ... ]; reset = [ ... ]; timeout = 60.0; };
 *     boot   = { method = "u-boot-tftp";    # or "u-boot-extlinux", "self"
 *                tftp_root = "${state}/tftp"; tftp_dir = "bootrig";
 *                stage = true;              # copy the files into tftp_root
 *                ipaddr = "10.0.2.15"; serverip = "10.0.2.2";  # no ipaddr: dhcp
 *                kernel_addr = "${kernel_addr_r}"; initrd_addr = "${ramdisk_addr_r}";
 *                fdt_addr = "${fdtcontroladdr}"; dtb = "";      # a DTB file to load
 *                command = "booti";         # bootz for arm zImages
 *                extlinux = "virtio 0:1";   # u-boot-extlinux: the partition
 *                scan = "virtio scan";      # typed first (u-boot-extlinux)
 *                commands = [ ... ];        # more commands typed before loading
 *                autoboot_prompt = "Hit any key to stop autoboot";
 *                interrupt = " "; prompt = "=> "; char_delay = 0.002;
 *                echo_timeout = 5.0; command_timeout = 120.0;
 *                autoboot_timeout = 60.0; boot_timeout = 120.0; };
 *     lock = "";                            # default CACHE/locks/<name>.lock
 *     retries = 0;                          # more attempts after a firmware failure
 *   } );
 *
 * Strings may use ${board}, ${state} (CACHE/boards/<name>, created), ${cache},
 * ${configs}, and per boot ${kernel}, ${initrd}, ${dtb}, ${sd_image}: the
 * files staged for it. Other ${...} (U-Boot's variables) are left as they are.
 */
#ifndef BOOTRIG_BOARD_H
#define BOOTRIG_BOARD_H

#include <stdbool.h>

#include "config.h"
#include "power.h"
#include "uboot.h"

struct config;

enum boot_method { BOOT_UBOOT_TFTP, BOOT_UBOOT_EXTLINUX, BOOT_SELF };

struct board {
	char *name;
	char *file;                   /* the config file it came from */
	struct config_where where;    /* for messages: file, "board", name */
	char *arch;                   /* "" when any */
	char *serial_uri;
	int baud;
	double appear_timeout, lost_timeout;
	struct power power;           /* argvs not yet expanded */
	enum boot_method method;
	char *tftp_root, *tftp_dir;
	bool stage;
	char *ipaddr, *serverip;
	char *kernel_addr, *initrd_addr, *fdt_addr, *dtb, *command;
	char *extlinux, *scan;
	char **commands;              /* NULL-terminated */
	struct uboot_settings uboot;  /* strings point into the fields below */
	char *autoboot_prompt, *interrupt, *prompt;
	char *lock;
	int retries;
	char *state_dir;
	/* backend = "lava": a board of a LAVA lab (LAVA owns its serial line,
	 * power and bootloader: the board has no serial, power or boot group),
	 * booted as jobs for device_type (deploy to tftp, boot u-boot) with dtb
	 * (a file, ${configs} and ${cache} expanded; "" none); lava_url and
	 * lava_token_file as a target's, NULL when not given. */
	bool lava;
	char *device_type, *lava_url, *lava_token_file, *lava_dtb;
};

/* The config's list of boards (boards = ( ... ), and configs/boards/NAME.cfg):
 * the board backend's (lib/config.h's config_extend(), board-def.c). */
#define BOARD_LIST "boards"

/*
 * board_load: read the board NAME from cfg into b. Returns 0, or prints
 * "FILE:LINE: ..." and returns EXIT_CONFIG (78); an unknown board is
 * EXIT_USAGE (64) with the known names listed.
 */
int board_load(const struct config *cfg, const char *name, struct board *b);
void board_release(struct board *b);

/* Per-boot values of ${kernel}, ${initrd}, ${dtb}, ${sd_image}. */
struct board_vars {
	const char *kernel, *initrd, *dtb, *sd_image;
};

/* s with the variables above expanded (a new string). */
char *board_expand(const struct board *b, const struct board_vars *v, const char *s);

/* Checks the board's config before a run (bootrig run --board): 0, or
 * EXIT_CONFIG (78, "FILE:LINE: ..." printed) or EXIT_USAGE (64: no such
 * board). */
int board_config_check(const struct config *cfg, const char *name);

#endif
