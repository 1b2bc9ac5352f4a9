/*
 * uboot.h: talking to U-Boot over a serial line, as a person at the
 * console would: wait for the autoboot prompt and interrupt it, type each
 * command a character at a time (at the pace the board's config sets),
 * check that U-Boot echoes each character before typing the next, wait
 * for the prompt, and read U-Boot's answer for its errors.
 *
 * Every byte read from the line is handed to the sink, with the time it
 * was read at (seconds since the line's epoch), so the console log keeps
 * the whole dialogue.
 *
 * Outcomes:
 *   UBOOT_OK       done (a command ended at the prompt, the kernel started)
 *   UBOOT_ERROR    U-Boot said no ("TFTP error: 'File not found'"...): the
 *                  image or its files are at fault: BOOT_FAIL, the line is in
 *                  u->error
 *   UBOOT_NO_REPLY no autoboot prompt, no echo or no prompt in time: the
 *                  board or its line is at fault: INFRA_ERROR (u->error)
 */
#ifndef BOOTRIG_UBOOT_H
#define BOOTRIG_UBOOT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "serial.h"
#include "util.h"

struct uboot_settings {
	const char *autoboot_prompt;  /* "Hit any key to stop autoboot" */
	const char *interrupt;        /* what stops it: " " */
	const char *prompt;           /* "=> " */
	double char_delay;            /* seconds between typed characters */
	double echo_timeout;          /* for each character's echo */
	double command_timeout;       /* for a command to give the prompt back */
	double autoboot_timeout;      /* from power-on to the autoboot prompt */
	double boot_timeout;          /* from a boot command to "Starting kernel" */
};

/* The defaults of Debian's U-Boot builds; a board's config overrides. */
void uboot_default_settings(struct uboot_settings *set);

enum uboot_status { UBOOT_OK, UBOOT_ERROR, UBOOT_NO_REPLY };

typedef void uboot_sink_fn(void *ctx, const char *bytes, size_t n, double t);

struct uboot {
	struct serial *line;
	const struct uboot_settings *set;
	uboot_sink_fn *sink;
	void *sink_ctx;
	struct strbuf seen;           /* what U-Boot said since the last command began */
	double kernel_started;        /* "Starting kernel" at (since epoch), < 0 not yet */
	const atomic_bool *cancel;    /* when set (another thread), every wait ends */
	char error[512];
};

void uboot_init(struct uboot *u, struct serial *line, const struct uboot_settings *set,
		uboot_sink_fn *sink, void *sink_ctx);
void uboot_release(struct uboot *u);

/* Waits for the autoboot prompt and stops it; ends at U-Boot's prompt. */
enum uboot_status uboot_interrupt(struct uboot *u);

/* Types cmd, Enter, waits for the prompt; an error in the output is UBOOT_ERROR. */
enum uboot_status uboot_command(struct uboot *u, const char *cmd);

/*
 * Types a boot command (booti, bootz, sysboot...) and waits until U-Boot
 * hands over to the kernel ("Starting kernel"); an error, or the prompt
 * coming back, is UBOOT_ERROR.
 */
enum uboot_status uboot_boot(struct uboot *u, const char *cmd);

/*
 * Waits, without typing, for the kernel to be started (boards that boot by
 * themselves, extlinux scans). Same outcomes as uboot_boot().
 */
enum uboot_status uboot_wait_kernel(struct uboot *u, double timeout);

/*
 * uboot_find_error: the first line of text that holds one of U-Boot's
 * error messages (Bad Linux ARM64 Image magic!, File not found, Retry count
 * exceeded, TFTP error, Wrong Image Format, ## Error, *** ERROR, Bad magic,
 * Unknown command...), copied without its line ending into line. Returns
 * 1 when found, 0 when not.
 */
int uboot_find_error(const char *text, char *line, size_t len);

#endif
