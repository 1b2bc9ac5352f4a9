/*
 * crash.h: the kernel report detector. It reads console lines one at a time
 * and finds the reports a kernel prints when something goes wrong (panic,
 * oops, BUG, WARNING, KASAN, KFENCE, KMSAN, KCSAN, UBSAN, lockdep, RCU
 * stalls, lockups, hung tasks, kmemleak, an unexpected reboot) and the
 * firmware errors that stop a boot before the kernel. A console that ends
 * in the middle of a report (crash_finish(): its stack not begun or still
 * being printed, a sanitizer's closing rule not come, and no other output
 * after its header) is an event of its own, CRASH_TRUNCATED, and the cut
 * report's event is marked corrupted. Each report becomes
 * one event with a title by syzbot's convention ("WARNING in foo", "KASAN:
 * use-after-free Read in bar", "kernel panic: REASON", "BUG: unable to
 * handle kernel NULL pointer dereference in f"), addresses and numbers
 * replaced by ADDR and NUM. The header table (judge/crash-table.c) names for
 * each entry the kernel file that prints it; tests/t-judge-catalogue.sh
 * checks it against linux-source-6.1.
 *
 * The function named in a title is, as in syzkaller's pkg/report/linux.go,
 * the faulting PC (x86 "RIP: 0010:f+0x1/0x2", arm64 "pc : f+0x1/0x2", arm
 * "PC is at f+0x1/0x2") or the first frame of the call trace that is not
 * generic (dump_stack, panic, __warn, report_bug, locking, string and copy
 * helpers, the scheduler's and UBSAN's reporters, ...: skip_common,
 * skip_helpers and skip_exact in crash.c, with a list per header).
 * Lockdep titles take the lock site ("at: f+0x1/0x2"), RCU stalls and
 * soft lockups the frame above the dispatcher (syscall entry,
 * workqueue, timer), hung tasks the first frame that is not scheduling or
 * waiting. A stack overflow (x86's "stack guard page was hit", arm64's
 * "Insufficient stack space" and its "kernel stack overflow" panic) takes
 * the PC, then the first frame past the overflow handler. A function taken
 * from a frame loses its syscall wrapper's prefix as syzkaller's
 * stripFramePrefixes does ("__x64_sys_ioctl" -> "sys_ioctl").
 *
 * Fatal or not: an event is fatal when the kernel or the running task died
 * (panic, Oops, kernel BUG, page faults, general protection fault, invalid
 * opcode, divide error, double fault, an unexpected reboot). Warnings and
 * sanitizer, lockdep, stall, lockup, hung-task and leak reports are not
 * fatal: the kernel goes on, but the judge still fails the boot for them,
 * as the kernel test robot and syzbot do.
 *
 * A report is one event even when it prints several headers: x86's "BUG:
 * unable to handle page fault", "#PF:" and "Oops: 0000 [#1]" lines, or
 * "kernel BUG at" then "invalid opcode"/"Internal error: Oops - BUG" are
 * one oops. A panic that follows an oops is its own event: both are kept.
 *
 * Lines are fed without their '\n' and already cleaned of '\r', NUL bytes
 * and ANSI escapes (judge.c does that); printk prefixes ("<6>", "[
 * 1.234567]", "[    T1]") are stripped here.
 *
 * The same pass also names the kernel's own progress messages (its banner,
 * the power-off and restart messages) for the judge's stages, so that a
 * console line is scanned once for both (crash_line_progress()).
 */
#ifndef BOOTRIG_CRASH_H
#define BOOTRIG_CRASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum crash_kind {
	CRASH_PANIC,
	CRASH_OOPS,
	CRASH_BUG,
	CRASH_WARNING,
	CRASH_KASAN,
	CRASH_KFENCE,
	CRASH_KMSAN,
	CRASH_KCSAN,
	CRASH_UBSAN,
	CRASH_LOCKDEP,
	CRASH_RCU_STALL,
	CRASH_SOFT_LOCKUP,
	CRASH_HARD_LOCKUP,
	CRASH_HUNG_TASK,
	CRASH_KMEMLEAK,
	CRASH_REBOOT,
	CRASH_FIRMWARE_ERROR,
	CRASH_TRUNCATED,        /* the console ended in the middle of a report (that
				 * report's event is kept too, marked corrupted) */
	CRASH_KIND_COUNT,
};

/* One report. Strings are owned by the detector. */
struct crash_event {
	enum crash_kind kind;
	bool fatal;             /* the kernel or the task died (see above) */
	char *title;            /* syzbot style, never empty, made without control
				 * characters or invalid UTF-8 (text_clean_title) */
	char *alt_title;        /* the title with the guilty function's caller instead, for
				 * grouping reports; the title itself when there is none */
	bool corrupted;         /* the title is unreliable (syzbot's "corrupted"): the
				 * report was cut or interleaved, or no frame was found */
	char *function;         /* the guilty function, "" when unknown */
	long line;              /* 1-based line of the report's first header */
	double time;            /* host time of that line */
	char *excerpt;          /* the report's lines, '\n'-separated */
};

struct crash_detector;

struct crash_detector *crash_detector_new(void);
void crash_detector_free(struct crash_detector *d);

/* One cleaned console line (no '\n'), its 1-based number and host time. */
void crash_feed_line(struct crash_detector *d, const char *line, size_t len,
		     long lineno, double t);

/* The console ended: closes a report still open. Idempotent. */
void crash_finish(struct crash_detector *d);

/* Events closed so far, in the order their reports began. */
size_t crash_event_count(const struct crash_detector *d);
const struct crash_event *crash_event_at(const struct crash_detector *d, size_t i);

/*
 * Bounds, so that a console printing reports forever does not grow the
 * detector: at most CRASH_MAX_EVENTS events are kept, and the first fatal
 * one whatever the count (a panic is never lost); each later event is
 * counted (crash_events_dropped) and shown to the crash_on_dropped() hook,
 * if any, before it is freed. A title is cut at CRASH_MAX_TITLE bytes, an
 * excerpt at 16 KiB.
 */
#define CRASH_MAX_EVENTS 256
#define CRASH_MAX_TITLE 1024
typedef void crash_dropped_fn(void *ctx, const struct crash_event *e);
void crash_on_dropped(struct crash_detector *d, crash_dropped_fn *fn, void *ctx);
size_t crash_events_dropped(const struct crash_detector *d);

/*
 * The header table, for tests/tools/judge-catalogue.c: how many entries it
 * has, entry i's needle, and a detector that ignores entry i (as if it were
 * deleted from the table), so that a test can prove every entry is needed.
 */
size_t crash_header_count(void);
const char *crash_header_needle(size_t i);
void crash_detector_ignore_header(struct crash_detector *d, size_t i);

/* Was "---[ end Kernel panic" seen (the kernel will do nothing more)? The
 * marker alone, with no panic before it, is a panic event of its own. */
bool crash_panic_ended(const struct crash_detector *d);

/* Was a "Kernel panic - not syncing" line seen (older kernels print no end marker)? */
bool crash_panic_seen(const struct crash_detector *d);


enum crash_progress {
	CRASH_PROGRESS_NONE,
	CRASH_PROGRESS_BANNER,          /* "Linux version " or "Booting Linux on physical CPU" */
	CRASH_PROGRESS_POWEROFF,        /* "reboot: Power down", "System halted.", a restart, ... */
};

/* What the last line fed said of the boot's progress. */
enum crash_progress crash_line_progress(const struct crash_detector *d);

const char *crash_kind_name(enum crash_kind k);   /* "panic", "oops", ... */

/*
 * A needle set answers "does this line contain any of these fixed strings?"
 * in one pass over the line, however many strings there are. The pass
 * reads an 8-byte window every `stride` bytes (stride: the shortest
 * string's length - 7, at most 8, so that every occurrence covers a
 * window read) and tests the window's hash in a bitmap of the strings'
 * windows at offsets 0 .. stride-1; only a window whose bit is set is
 * looked up and compared. Strings must be at least 8 bytes long and
 * outlive the set. The detector uses one to skip, in a single scan, the
 * lines that can start nothing (most of a console).
 */
#define NEEDLE_SET_MAX 128

struct needle_window {
	uint64_t head;                  /* 8 bytes of a string, as read from a line */
	unsigned bit;                   /* their hash: the bitmap's bit */
	unsigned offset;                /* where they stand in the string */
	const char *text;               /* the string */
	size_t len;
};

struct needle_set {
	uint64_t bits[1024];            /* 65536 bits */
	size_t stride;
	size_t nwindows;
	struct needle_window windows[NEEDLE_SET_MAX * 8];     /* sorted by bit */
};

/* Builds the set of count strings (each >= 8 bytes, static); dies on a short one. */
void needle_set_init(struct needle_set *set, const char *const *needles, size_t count);

/* Does s[0..n) contain one of the set's strings? */
bool needle_set_search(const struct needle_set *set, const char *s, size_t n);

#endif
