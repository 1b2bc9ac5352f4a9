/*
 * console.h: what bootrig knows of a kernel console's lines, in one place
 * for every reader of them: the judge and its crash detector (judge/),
 * the protocol decoder (judge/protocol.c), the log normalizer and logdiff
 * (compare/), the boards' serial line (runner/board/).
 *
 *   - controls: ANSI escape sequences (ECMA-48) and the bytes a line is
 *     cleaned of (console_escape_length, console_clean); the judge's
 *     streaming reader (judge/judge.c feed_byte) applies the same rule a
 *     byte at a time, and lib/textsafe.h renders text for a terminal;
 *   - prefixes: printk's "<6>[    1.234567] [    T1] " (console_strip_prefix)
 *     and a console.tlog's host time "[0001.234567] " (console_tlog_stamp);
 *   - needles: the kernel messages that mark a boot's milestones.
 */
#ifndef BOOTRIG_CONSOLE_H
#define BOOTRIG_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>

/* The kernel's banner: its first line, "Linux version 6.1.0 ...". */
#define CONSOLE_BANNER "Linux version "
/* A panic's first line. */
#define CONSOLE_PANIC "Kernel panic - not syncing"
/* The kernel powering off and restarting (kernel/reboot.c). */
#define CONSOLE_POWER_DOWN "reboot: Power down"
#define CONSOLE_RESTART "reboot: Restarting system"

/* Every message of a kernel that stops by itself (power off, halt,
 * restart), anywhere in a line; NULL-terminated. */
extern const char *const console_stop_needles[];

/*
 * console_escape_length: the length of the escape sequence at s[0] (an
 * ESC, 0x1b), n > 0: CSI (ESC [ params intermediates final), OSC and the
 * other strings (ESC ] ... BEL or ESC \), and the two- or three-byte
 * forms. A sequence cut by the end of the buffer runs to its end.
 */
size_t console_escape_length(const unsigned char *s, size_t n);

/*
 * console_clean: copies in[0..n) to out (room for n) without NUL, CR and
 * escape sequences, and with drop_controls without every other C0
 * control but tab. Returns the length written (at most n; no NUL added).
 */
size_t console_clean(const char *in, size_t n, char *out, bool drop_controls);

/*
 * console_strip_prefix: the text of a console line after its printk
 * prefixes ("<6>", "[    1.234567]", "[    T1]", and one space); *len is
 * updated. When ts is not NULL, *ts is the printk time, or -1 when the
 * line has none.
 */
const char *console_strip_prefix(const char *line, size_t *len, double *ts);

/*
 * console_tlog_stamp: the length of a console.tlog line's host-time stamp
 * at s ("[0001.234567] ", as runner/capture.c writes it) and its time in
 * *t; 0 when there is none.
 */
size_t console_tlog_stamp(const char *s, size_t n, double *t);

#endif
