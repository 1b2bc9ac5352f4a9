/*
 * lognorm.h: console logs made comparable. Each line is normalized: what
 * changes from boot to boot of the same kernel (timestamps, addresses,
 * PIDs, hex values, durations, BogoMIPS and clock rates, UUIDs, dates,
 * the numbers in result protocol records) becomes a placeholder, and
 * messages that only say how fast the machine ran (clock calibration, the
 * x86 timer probe) become empty; what is left is what the kernel said. Two logs are then compared as multisets of
 * normalized lines, so a line moved by probe-order races is not a
 * difference, but a line one log has and the other lacks is.
 */
#ifndef BOOTRIG_LOGNORM_H
#define BOOTRIG_LOGNORM_H

#include "util.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Normalizes one console line (no newline; may hold \r, NUL, ANSI escapes,
 * which are dropped) into out, replacing out's content.
 */
void lognorm_line(const char *line, size_t len, struct strbuf *out);

/* Copies line into out (replacing it) without \r, NUL, ANSI escape
 * sequences or other control characters but tab. */
void lognorm_clean(const char *line, size_t len, struct strbuf *out);

/*
 * A console log, split into lines, each kept raw and normalized. A printk
 * timestamp in the middle of a line ("...ok[    0.000000] Linux version")
 * means a message cut into another: it starts a line of its own, with the
 * same physical line number.
 */
struct log {
	char **raw;             /* each line, without its newline (owned) */
	char **norm;            /* each line normalized (owned) */
	size_t *lineno;         /* each line's 1-based line in the file */
	size_t n;
};

/* Reads and normalizes path. Returns 0, or -1 with errno set. */
int log_load(struct log *log, const char *path);
/* The same over a buffer (copied). */
void log_parse(struct log *log, const char *text, size_t len);
void log_free(struct log *log);

/*
 * Multiset difference of two logs: only_a[i] is set when line i of a has no
 * partner in b (an equal normalized line not already paired), and likewise
 * only_b. Lines that normalize to nothing are never set. The arrays hold
 * a->n and b->n entries.
 */
void log_diff(const struct log *a, const struct log *b, bool *only_a, bool *only_b);

/* A table of strings with counts, in insertion order. */
struct line_counts;
struct line_counts *line_counts_new(void);
void line_counts_free(struct line_counts *t);
/* Adds delta to key's count (inserting it at 0) and returns the new count. */
unsigned line_counts_add(struct line_counts *t, const char *key, unsigned delta);
unsigned line_counts_get(const struct line_counts *t, const char *key);
size_t line_counts_size(const struct line_counts *t);
const char *line_counts_key(const struct line_counts *t, size_t i);
unsigned line_counts_value(const struct line_counts *t, size_t i);

#endif
