/*
 * usage.h: how bootrig's host code reports an error, in one voice (git's
 * usage.h is the model). Every message goes to stderr as "bootrig: ...",
 * written by textsafe.h's terminal rule, so arguments are given raw.
 *
 * The convention, from the bottom up:
 *
 *   1. die(), die_status(): fatal, for what no caller can handle (out of
 *      memory, a broken invariant, an unwritable stdout). They exit.
 *      Nothing under a running boot calls them: a boot ends as a verdict.
 *
 *   2. error(): prints and returns -1. A function that fails returns
 *      either -1 (`return error("...")`) or, where its caller returns an
 *      exit status, that status (`return error("..."), EXIT_DATAERR;`,
 *      names in exitcodes.h). The message is printed once, where the
 *      failure is found; callers above only pass the status on.
 *      Kinds with a printer of their own, same voice: usage errors
 *      (options_usage_error() in options.h, EXIT_USAGE, with the usage
 *      lines) and configuration errors (config_fail() in config.h,
 *      "FILE:LINE: ...", EXIT_CONFIG).
 *
 *   3. A failure during a boot is not printed but kept as a one-line
 *      reason where the runner reads it: a backend writes it into
 *      m->infra_reason (runner/backend.h), the runner hands it to
 *      judge_infra_error(), and it becomes the verdict INFRA_ERROR with
 *      that "reason" in result.json (exit 125). What stays apart, and why:
 *        - be->error: open() failed, before any machine exists to hold a
 *          reason; open() prints it (2.) and the runner makes it the
 *          reason of every boot of the run;
 *        - a part of a backend whose failure is a state, not one call's
 *          result, keeps its last one in a field the backend copies into
 *          m->infra_reason: a serial line's last_error (serial.h: why the
 *          line is down, quoted for as long as it stays down), the U-Boot
 *          dialogue's error (uboot.h), the reason libvirt's event thread
 *          sets for a domain that failed (runner/libvirt/console.c);
 *        - module_error() (module.h): why the loader could not load a
 *          module; the forwarder (runner/backend.c, builder/sdimage-load.c)
 *          turns it into 2. or 3. The loader cannot print it itself: the
 *          same failure is a message for `build --sd-image` and a boot's
 *          reason for `run`.
 *
 *   4. A helper that cannot know its caller's words, because it serves
 *      several callers or runs under a boot, prints nothing: it writes a
 *      one-line reason into its caller's buffer (`char *why` and its size)
 *      and returns -1. cpio_walk() (builder/cpio.h), serial_parse(),
 *      power_run() and the libvirt backend's helpers do. The caller either prints it
 *      inside its own sentence (2.: "IMAGE: not an initramfs: WHY") or
 *      passes it on as a boot's reason (3.), so a reason is printed once.
 *
 * warning(): prints, changes nothing (a setting ignored, a limit hit).
 */
#ifndef BOOTRIG_USAGE_H
#define BOOTRIG_USAGE_H

__attribute__((noreturn, format(printf, 2, 3)))
void die_status(int status, const char *fmt, ...);
__attribute__((noreturn, format(printf, 1, 2)))
void die(const char *fmt, ...);              /* exits 65 (bad input) */
__attribute__((format(printf, 1, 2)))
int error(const char *fmt, ...);             /* prints, returns -1 */
__attribute__((format(printf, 1, 2)))
void warning(const char *fmt, ...);

#endif
