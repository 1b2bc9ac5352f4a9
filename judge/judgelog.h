/*
 * judgelog.h: a saved console log fed to a judge (judge.h) as a stream, for
 * `bootrig judge` and `bootrig logdiff`: the log is read in chunks of
 * JUDGELOG_CHUNK bytes and never held whole, so its size does not matter
 * (the judge's own bounds are in judge.h and RESULTS.md).
 *
 * Times: a console.tlog ("[0001.234567] line", host seconds since power-on,
 * recognised by its .tlog name or the zero-padded stamp of its first line)
 * gives each line its host time, the stamp removed; otherwise the kernel's
 * printk stamps ("[    1.234567]") are used, the last one carried over
 * lines without one; a log with neither has no times (every line at 0).
 *
 * Size: at most max_bytes are read (JUDGELOG_MAX_BYTES by default; a log
 * without end, like /dev/zero, would never finish). A log cut there is
 * ended with judge_console_cut() (its verdict is then never PASS, HANG or
 * BOOT_FAIL) and a warning names the path and the offset.
 */
#ifndef BOOTRIG_JUDGELOG_H
#define BOOTRIG_JUDGELOG_H

#include <stdbool.h>
#include <stdint.h>

struct judge;

#define JUDGELOG_CHUNK (1u << 20)
#define JUDGELOG_MAX_BYTES (4ull << 30)

enum time_source { TIMES_TLOG, TIMES_PRINTK, TIMES_NONE };

struct judged_log {
	enum time_source times;         /* where the line times came from */
	double last_t;                  /* the last line's time */
	uint64_t bytes;                 /* bytes read */
	bool cut;                       /* stopped at max_bytes with more to read */
};

/*
 * Feeds the console log at path to j, each line at its time, then ends the
 * console (judge_console_ended(), or judge_console_cut() past max_bytes);
 * the caller then calls judge_finish(j, out->last_t). Returns 0, or -1 with
 * errno set when the log cannot be opened or read (nothing is ended then).
 */
int judgelog_feed(struct judge *j, const char *path, uint64_t max_bytes,
		  struct judged_log *out);

/*
 * judgelog_judge: the one way a saved log is judged (`bootrig judge` and
 * `bootrig logdiff`; `compare --logs` judges no log, it takes the verdicts
 * from result.json and compares the lines): a judge with no limits (a saved log has no clock to
 * run out), fed the log at path (judgelog_feed()) and finished at its last
 * line's time. Returns the judge (judge_free() it; judge_finish() again
 * gives its verdict), or NULL with errno set when the log cannot be read.
 */
struct judge *judgelog_judge(const char *path, uint64_t max_bytes, struct judged_log *out);

/*
 * Parses a byte count for --max-bytes: decimal digits with an optional K,
 * M, G or T suffix (powers of 1024), at least 1. False on anything else.
 */
bool judgelog_parse_size(const char *s, uint64_t *out);

#endif
