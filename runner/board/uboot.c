/*
 * uboot.c: the U-Boot dialogue (see uboot.h): reading with a sink and a
 * deadline, waiting for a string, typing with echo checks, recognising
 * U-Boot's errors, and the three steps a board boot uses: interrupt,
 * command, boot.
 */
#include "uboot.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* Messages by which U-Boot says a command failed. */
static const char *const uboot_errors[] = {
	"Bad Linux ARM64 Image magic!",
	"Bad Linux ARM zImage magic!",
	"zimage: Bad magic!",
	"Wrong Image Format",
	"Retry count exceeded",
	"TFTP error",
	"File not found",
	"## Error",
	"*** ERROR",
	"Unknown command",
	"Bad data CRC",
	"Bad Header Checksum",
	"Ramdisk image is corrupt",
	"ERROR: Did not find a cmdline Flattened Device Tree",
	"Could not find a valid device tree",
	"FDT and ATAGS support not compiled in",
	"Failed to load",
	"SCRIPT FAILED",
};

void uboot_default_settings(struct uboot_settings *set)
{
	set->autoboot_prompt = "Hit any key to stop autoboot";
	set->interrupt = " ";
	set->prompt = "=> ";
	set->char_delay = 0.002;
	set->echo_timeout = 5.0;
	set->command_timeout = 120.0;
	set->autoboot_timeout = 60.0;
	set->boot_timeout = 120.0;
}

void uboot_init(struct uboot *u, struct serial *line, const struct uboot_settings *set,
		uboot_sink_fn *sink, void *sink_ctx)
{
	memset(u, 0, sizeof(*u));
	u->line = line;
	u->set = set;
	u->sink = sink;
	u->sink_ctx = sink_ctx;
	u->kernel_started = -1;
	strbuf_add(&u->seen, "", 0);
}

void uboot_release(struct uboot *u)
{
	strbuf_release(&u->seen);
}

/* Copies the line of text around pos (without its ending) into out. */
static void copy_line_at(const char *text, const char *pos, char *out, size_t len)
{
	const char *start = pos, *end = pos;
	while (start > text && start[-1] != '\n' && start[-1] != '\r')
		start--;
	while (*end && *end != '\n' && *end != '\r')
		end++;
	snprintf(out, len, "%.*s", (int)(end - start), start);
}

int uboot_find_error(const char *text, char *line, size_t len)
{
	const char *first = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(uboot_errors); i++) {
		const char *p = strstr(text, uboot_errors[i]);
		if (p && (!first || p < first))
			first = p;
	}
	if (!first)
		return 0;
	copy_line_at(text, first, line, len);
	return 1;
}

/* Reads once for up to wait seconds; everything read goes to the sink and
 * to u->seen. Returns the bytes read (0: none). */
static size_t read_some(struct uboot *u, double wait)
{
	char buf[4096];
	ssize_t n = serial_read(u->line, buf, sizeof(buf), wait);
	if (n <= 0)
		return 0;
	double t = now_monotonic() - u->line->epoch;
	if (u->sink)
		u->sink(u->sink_ctx, buf, (size_t)n, t);
	/* NULs would end the C string we search: drop them from the copy. */
	for (ssize_t i = 0; i < n; i++)
		if (buf[i])
			strbuf_add(&u->seen, &buf[i], 1);
	if (u->kernel_started < 0 && strstr(u->seen.buf, "Starting kernel"))
		u->kernel_started = t;
	return (size_t)n;
}

/* Has the caller's stop flag been raised? */
static bool cancelled(const struct uboot *u)
{
	return u->cancel && atomic_load(u->cancel);
}

/* Reads for up to 0.2 s, never past deadline. false (nothing read) once
 * the deadline has passed or the wait is cancelled: the waits' loop end. */
static bool read_before(struct uboot *u, double deadline)
{
	double left = deadline - now_monotonic();
	if (left <= 0 || cancelled(u))
		return false;
	read_some(u, left < 0.2 ? left : 0.2);
	return true;
}

/* Does out hold U-Boot's "Starting kernel"? Then u->kernel_started is
 * set (read_some sets it as the line arrives; this when it did not). */
static bool saw_kernel_start(struct uboot *u, const char *out)
{
	if (!strstr(out, "Starting kernel"))
		return false;
	if (u->kernel_started < 0)
		u->kernel_started = now_monotonic() - u->line->epoch;
	return true;
}

/* Waits until needle appears in u->seen at or after from; returns its
 * offset, or -1 at the deadline or when cancelled. */
static long wait_for(struct uboot *u, const char *needle, size_t from, double deadline)
{
	for (;;) {
		if (cancelled(u))
			return -1;
		if (from <= u->seen.len) {
			const char *p = strstr(u->seen.buf + from, needle);
			if (p)
				return (long)(p - u->seen.buf);
		}
		if (!read_before(u, deadline))
			return -1;
	}
}

static void pause_for(double seconds)
{
	if (seconds <= 0)
		return;
	struct timespec ts = { (time_t)seconds,
			       (long)((seconds - (double)(time_t)seconds) * 1e9) };
	nanosleep(&ts, NULL);
}

/* Types text followed by Enter, a character at a time, each echo checked.
 * Returns the offset in u->seen just past the echoed Enter, or -1. */
static long type_line(struct uboot *u, const char *text)
{
	strbuf_release(&u->seen);
	strbuf_add(&u->seen, "", 0);
	size_t echo_pos = 0;
	for (const char *c = text;; c++) {
		char ch = *c ? *c : '\r';
		if (serial_write(u->line, &ch, 1) < 0) {
			snprintf(u->error, sizeof(u->error),
				 "the serial line was down while typing '%s'", text);
			return -1;
		}
		/* Enter is echoed as "\r\n"; any other character as itself. */
		const char want[2] = { ch == '\r' ? '\n' : ch, '\0' };
		long at = wait_for(u, want, echo_pos, now_monotonic() + u->set->echo_timeout);
		if (at < 0) {
			snprintf(u->error, sizeof(u->error),
				 "U-Boot did not echo '%c' of '%s' within %.0f s",
				 ch == '\r' ? '?' : ch, text, u->set->echo_timeout);
			return -1;
		}
		echo_pos = (size_t)at + 1;
		if (!*c)
			return (long)echo_pos;
		pause_for(u->set->char_delay);
	}
}

enum uboot_status uboot_interrupt(struct uboot *u)
{
	double deadline = now_monotonic() + u->set->autoboot_timeout;
	long at = wait_for(u, u->set->autoboot_prompt, 0, deadline);
	if (at < 0 && cancelled(u)) {
		snprintf(u->error, sizeof(u->error), "stopped while waiting for U-Boot's autoboot prompt");
		return UBOOT_NO_REPLY;
	}
	if (at < 0) {
		snprintf(u->error, sizeof(u->error), "no U-Boot autoboot prompt ('%s') within %.0f s",
			 u->set->autoboot_prompt, u->set->autoboot_timeout);
		return UBOOT_NO_REPLY;
	}
	/* Send the interrupt until the prompt shows (the first may be eaten
	 * while U-Boot is still printing). */
	size_t from = (size_t)at;
	for (int attempt = 0; attempt < 5; attempt++) {
		serial_write(u->line, u->set->interrupt, strlen(u->set->interrupt));
		if (wait_for(u, u->set->prompt, from, now_monotonic() + 1.0) >= 0)
			return UBOOT_OK;
	}
	snprintf(u->error, sizeof(u->error), "U-Boot's prompt '%s' did not come after interrupting autoboot",
		 u->set->prompt);
	return UBOOT_NO_REPLY;
}

enum uboot_status uboot_command(struct uboot *u, const char *cmd)
{
	long from = type_line(u, cmd);
	if (from < 0)
		return UBOOT_NO_REPLY;
	long at = wait_for(u, u->set->prompt, (size_t)from,
			   now_monotonic() + u->set->command_timeout);
	char line[400];
	if (uboot_find_error(u->seen.buf + from, line, sizeof(line))) {
		snprintf(u->error, sizeof(u->error), "U-Boot: %s (after '%s')", line, cmd);
		return UBOOT_ERROR;
	}
	if (at < 0) {
		snprintf(u->error, sizeof(u->error), "U-Boot's prompt did not come back within %.0f s after '%s'",
			 u->set->command_timeout, cmd);
		return UBOOT_NO_REPLY;
	}
	return UBOOT_OK;
}

/* Watches U-Boot's output from offset from until the kernel starts, an
 * error shows, or the prompt comes back. */
static enum uboot_status watch_boot(struct uboot *u, size_t from, double timeout, const char *what)
{
	double deadline = now_monotonic() + timeout;
	for (;;) {
		const char *out = u->seen.buf + from;
		char line[400];
		if (saw_kernel_start(u, out))
			return UBOOT_OK;
		if (uboot_find_error(out, line, sizeof(line))) {
			snprintf(u->error, sizeof(u->error), "U-Boot: %s (after '%s')", line, what);
			return UBOOT_ERROR;
		}
		if (strstr(out, u->set->prompt)) {
			snprintf(u->error, sizeof(u->error), "U-Boot: '%s' returned to the prompt without starting the kernel",
				 what);
			return UBOOT_ERROR;
		}
		if (!read_before(u, deadline))
			break;
	}
	snprintf(u->error, sizeof(u->error), "U-Boot did not start the kernel within %.0f s after '%s'",
		 timeout, what);
	return UBOOT_ERROR;
}

enum uboot_status uboot_boot(struct uboot *u, const char *cmd)
{
	long from = type_line(u, cmd);
	if (from < 0)
		return UBOOT_NO_REPLY;
	return watch_boot(u, (size_t)from, u->set->boot_timeout, cmd);
}

enum uboot_status uboot_wait_kernel(struct uboot *u, double timeout)
{
	/* A board booting by itself prints errors for the devices it scans
	 * and gives up on; only the end counts: the kernel, or the prompt. */
	double deadline = now_monotonic() + timeout;
	for (;;) {
		if (saw_kernel_start(u, u->seen.buf))
			return UBOOT_OK;
		if (strstr(u->seen.buf, u->set->prompt)) {
			char line[400] = "";
			uboot_find_error(u->seen.buf, line, sizeof(line));
			snprintf(u->error, sizeof(u->error),
				 "U-Boot stopped at its prompt without starting the kernel%s%s",
				 line[0] ? "; it said: " : "", line);
			return UBOOT_ERROR;
		}
		if (!read_before(u, deadline))
			break;
	}
	snprintf(u->error, sizeof(u->error), "the kernel was not started within %.0f s of power-on",
		 timeout);
	return UBOOT_ERROR;
}
