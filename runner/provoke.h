/*
 * provoke.h: `bootrig run --provoke KIND`: one boot whose kernel prints a
 * report of a known kind on purpose, so that a lab proves its serial
 * capture and judge chain with one boot. The report comes from bootrig's
 * module (initramfs/provoke/provoke.c, built by scripts/build-provoke.sh
 * for each kernel release), shipped in the image as /lib/provoke.ko and
 * loaded by init (`bootrig.provoke=KIND` on the command line, PROVOKE
 * records in initramfs/PROTOCOL.md); sysrq-c needs no module.
 */
#ifndef BOOTRIG_PROVOKE_H
#define BOOTRIG_PROVOKE_H

#include "kernel.h"

/* The kinds, for --help and errors: "bug, warning, ...". */
const char *provoke_kinds(void);

/*
 * provoke_append: the kernel arguments a boot provoking kind gets
 * ("bootrig.provoke=KIND" and what the kind needs, as slub_debug for
 * double-free), malloc'd; NULL when kind is not one of provoke_kinds().
 */
char *provoke_append(const char *kind);

/*
 * provoke_module: the module built for kernel k's release, as an
 * initramfs --add spec "PATH:lib/provoke.ko" (malloc'd):
 * $BOOTRIG_PROVOKE_DIR/<release>/provoke.ko, else
 * <cache>/provoke/<release>/provoke.ko. NULL, with the error printed
 * (how to build it), when there is none.
 */
char *provoke_module(const struct kernel *k);

#endif
