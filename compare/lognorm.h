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
#include <stdint.h>

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

/* The largest console.log compare --logs reads whole (a boot's console is
 * a few megabytes; /dev/zero would never end). */
#define LOG_MAX_BYTES (128u << 20)

/* Reads and normalizes path, at most LOG_MAX_BYTES of it (read_file_max).
 * Returns 0, or -1 with errno set (EFBIG: larger than that). */
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

/*
 * Logs of any size, in bounded memory. log_each_line() reads path in
 * chunks of LOG_CHUNK bytes and hands fn each of its lines as log_parse()
 * splits them (raw, without the newline; lineno the physical line). A
 * physical line is kept to its first LOG_LINE_MAX bytes (st->lines_cut
 * counts the longer ones); at most max_bytes are read (st->cut: there was
 * more). Returns 0, or -1 with errno set.
 */
#define LOG_CHUNK (1u << 20)
#define LOG_LINE_MAX 65536
struct log_read {
	uint64_t bytes;                 /* bytes read */
	size_t lines_cut;               /* physical lines longer than LOG_LINE_MAX */
	bool cut;                       /* stopped at max_bytes with more to read */
};
typedef void log_line_fn(void *ctx, const char *raw, size_t len, size_t lineno);
int log_each_line(const char *path, uint64_t max_bytes, log_line_fn *fn, void *ctx,
		  struct log_read *st);

/*
 * log_diff() for logs read as streams: the multiset difference of two
 * sides' normalized lines, kept as one entry per distinct line (a 64-bit
 * hash and counts: the lines themselves are not kept). The entries are
 * made from the build side's lines only (the smaller log, so memory is
 * bounded by it), at most LOG_MAX_DISTINCT of them (line_pairs_full()
 * then: the build side's further distinct lines have no partner).
 *   1. line_pairs_count() every line of the build side, then of the other;
 *   2. line_pairs_only(side): how many of its lines the other side lacks;
 *   3. line_pairs_take(side, line) over the side's lines again, in order:
 *      true when that line is one of them (as log_diff's only_a[i]).
 * Lines that normalize to nothing are never differences.
 */
#define LOG_MAX_DISTINCT (1u << 20)
struct line_pairs;
struct line_pairs *line_pairs_new(int build_side);
void line_pairs_free(struct line_pairs *p);
void line_pairs_count(struct line_pairs *p, int side, const char *norm);
size_t line_pairs_only(const struct line_pairs *p, int side);
bool line_pairs_take(struct line_pairs *p, int side, const char *norm);
bool line_pairs_full(const struct line_pairs *p);

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
