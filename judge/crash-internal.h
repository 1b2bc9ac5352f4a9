/*
 * crash-internal.h: what the files of the kernel report detector share
 * (crash.h is its public contract). Only judge/crash*.c include this.
 *
 *   crash-lines.c   line helpers: needle sets, stack frames, PC lines, lock
 *                   sites, rule lines;
 *   crash-demangle.c  Rust's mangled names as frames print them;
 *   crash-table.c   the header table: one row a report header (the kernel's
 *                   source that prints it, its needle, kind, fatal flag and
 *                   title rule), the per-row skip lists, the firmware errors;
 *   crash-frames.c  choosing the guilty function (skip lists after
 *                   syzkaller's, stall and hung-task extractors);
 *   crash-title.c   titles: one rule a style, syzbot's conventions;
 *   crash-context.c whose lines a report reads: printk callers, messages
 *                   with stacks of their own;
 *   crash.c         the line state machine: open, extend and close reports.
 *
 * Adding a kind of report is one row in crash-table.c (with a style below,
 * or a new style and its rule in crash-title.c) and one fixture in
 * tests/fixtures/crash/.
 */
#ifndef BOOTRIG_CRASH_INTERNAL_H
#define BOOTRIG_CRASH_INTERNAL_H

#include "crash.h"
#include "util.h"

#include <string.h>

#define MAX_FRAMES 64
#define MAX_REPORT_LINES 160
#define MAX_EXCERPT 16384
#define FN_MAX 128
#define PREAMBLE_LINES 4
#define CONTEXT_MAX 16          /* a printk caller, "T12345" or "C1" */

/* Does s (n bytes) start with the NUL-terminated p? */
static inline bool starts(const char *s, size_t n, const char *p)
{
	size_t m = strlen(p);
	return n >= m && !memcmp(s, p, m);
}

/* memmem on a length-bounded line with a C-string needle. */
static inline const char *find(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle));
}

/* ------------------------------------------------- crash-lines.c */

/* Can c be part of a C symbol as the kernel prints it (".isra.0" included)? */
bool crash_is_ident_char(char c);

/* Copies the identifier at s (up to n bytes) into fn (FN_MAX bytes) without
 * compiler suffixes (".isra.0", ".cold"), a Rust name demangled; its length
 * in s, 0 when none. */
size_t crash_take_ident(const char *s, size_t n, char *fn);

/* Is this line a stack frame (x86, arm64, arm, decoded)? fn gets its
 * function; *questionable is set for " ? f+0x.." frames. */
bool crash_parse_frame(const char *s, size_t n, char *fn, bool *questionable);

/* arm's "(f) from [<c1>] (g+0x1/0x2)" frame: its caller g into fn. */
bool crash_parse_frame_caller(const char *s, size_t n, char *fn);

/* The function of a faulting-PC line ("RIP: 0010:f+0x..", "pc : f+0x..", powerpc's
 * "--- interrupt: 700 at f+0x..",
 * "PC is at f+0x..", ...) into fn; false when the line is none. */
bool crash_parse_pc_line(const char *s, size_t n, char *fn);

/* The function of a lockdep lock site ("..., at: f+0x1/0x2") into fn. */
bool crash_parse_lock_site(const char *s, size_t n, char *fn);

/* A line of '=' or '-' (KASAN, UBSAN and lockdep frame their reports so). */
bool crash_is_rule_line(const char *s, size_t n);

/* crash-demangle.c: the Rust symbol s (n bytes, "_R...", the v0 mangling)
 * demangled into out ("<kernel::x::Y>::f"); false when it is none. */
bool crash_demangle_rust(const char *s, size_t n, char *out, size_t size);

/* ------------------------------------------------- crash-table.c */

/* How a row's title is made (crash-title.c: crash_report_title()). */
enum style {
	ST_FN,          /* "<title> in F" from PC then stack */
	ST_STACK,       /* "<title> in F" from the stack only */
	ST_PANIC,       /* "Kernel panic - not syncing: REASON" */
	ST_WARNING,     /* "WARNING in F" (F from the header), special files */
	ST_SANITIZER,   /* KASAN/KFENCE/KMSAN: "KASAN: TYPE [Read|Write] in F" */
	ST_KCSAN,       /* "KCSAN: data-race in f / g", verbatim */
	ST_UBSAN,       /* "UBSAN: TYPE in F" from the stack */
	ST_LOCK_SITE,   /* "<title> in F" from the lock site (with a skip list: the first
			 * of two sites not skipped; no site announced: the header) */
	ST_LOCK_STACK,  /* "<title> in F" from the stack under "which became X at:" */
	ST_STALL,       /* RCU stall, lockups, stack overflow: the frame above the
			 * dispatcher (crash_stall_function()) */
	ST_HUNG,        /* hung task: first frame not waiting */
	ST_LEAK,        /* "memory leak in F" from the allocation stack */
	ST_ARM_FAULT,   /* "Unable to handle kernel WHAT at virtual address" */
	ST_ARM_ERROR,   /* "Internal error: Oops - WHAT: code [#1]": "Internal error in F" */
	ST_FIXED,       /* the title as given */
	ST_HEAD,        /* the header's own words up to "stop", then title, then " in F"
			 * from the stack ("BUG: spinlock bad magic in F") */
	ST_LINE,        /* the header line from its needle, numbers replaced */
	ST_SLUB,        /* "BUG cache (Tainted): MSG" -> "BUG: MSG" */
	ST_HEADER_FN,   /* the header from its needle, offsets dropped ("INFO: Freed in f age=NUM
			 * cpu=NUM pid=NUM"), F named by it; corrupted */
	ST_PRELUDE,     /* a WARN's message line; the "WARNING:" line after it joins */
	ST_OVERFLOW,    /* "kernel stack overflow in F": PC then stack (arm64's
			 * "Insufficient stack space", its panic joins) */
	ST_BAD_PAGE,    /* "BUG: Bad page state in F", F the allocation's stack (page_owner's
			 * "page last allocated"), the allocator's frames skipped */
	ST_BAD_STACK,   /* the unwinder's "WARNING: kernel stack regs/frame pointer at X
			 * ... has bad value" (crash-title.c: bad_stack_title()) */
	ST_RUST,        /* a Rust panic: "MESSAGE in F", the message the line after the
			 * header, F the call trace's first frame (demangled) */
	ST_TRUSTY,      /* the secure OS's panic: "trusty: ASSERT FAILED: MSG" or
			 * "trusty: panic: MSG" from the header line */
};

/* A kind's bit in a row's "joins" mask. */
#define K(kind) (1u << (kind))

struct header {
	const char *needle;     /* where it must be in the stripped line */
	bool at_start;          /* needle starts the line, else anywhere */
	enum crash_kind kind;
	bool fatal;
	enum style style;
	const char *title;      /* title, or its part before " in F" */
	unsigned joins;         /* continues an open report of these kinds */
	const char *const *skip; /* more frames to skip for this title */
	const char *stop;       /* ST_HEAD: where the header's words end */
	bool prelude;           /* a WARNING header within 3 lines joins this report */
};

/* The rows, most specific first (the first match wins), and their count. */
extern const struct header crash_headers[];
extern const size_t crash_nheaders;

/* A "WARNING:" line of no form the table knows (no WARN's "at f+0x.."),
 * outside a report: a report of its own, titled by the line (syzkaller's
 * title when no format of its oops matches), unless it is one of the lines
 * known not to be a bug (crash_warning_line_benign()). */
extern const struct header crash_warning_line;
bool crash_warning_line_benign(const char *s, size_t n);

/* A line that starts a boot (crash.c: banner()); a second boot on one
 * console is an event, crash_reboot_title. */
struct boot_line {
	const char *needle;
	bool at_start;          /* needle starts the line, else anywhere */
	bool early;             /* printed before the banner: a reboot is seen there */
	bool progress;          /* names the kernel stage (crash_line_progress()) */
};

extern const struct boot_line crash_boot_lines[];
extern const size_t crash_nboot_lines;
extern const char crash_reboot_title[];

/* The firmware's failures (before any kernel banner), NULL-terminated. */
extern const char *const crash_firmware_errors[];

/* Skip lists of rows that the title rules use too. */
extern const char *const crash_skip_rcu[];
extern const char *const crash_skip_odebug[];
extern const char *const crash_skip_refcount[];
extern const char *const crash_skip_usercopy[];
extern const char *const crash_skip_overflow[];
extern const char *const crash_skip_lock_sock[];

/* ------------------------------------------------- the state */

/* The parts of a report's stack, as syzkaller's stack formats name them:
 * a line that holds a PC ("RIP: 0010:f+0x1/0x2", "pc : f", "PC is at f"),
 * a "Call Trace:" line, x86's timer interrupt frame (apic_timer_interrupt),
 * any interrupt entry (that, "Exception stack", el1h_64_irq), page_owner's
 * "page last allocated" line, the stack. */
enum stack_part { PART_PC, PART_CALL_TRACE, PART_TIMER_IRQ, PART_IRQ_ENTRY, PART_PAGE_ALLOC,
		  PART_STACK, PART_END };

/* One reading of a report's stack by parts (crash-frames.c: crash_walk_line()),
 * its frames given to syzkaller's stall extractor as they come, so that a
 * stack of any depth is read whole. */
struct stack_walk {
	const enum stack_part *parts;   /* PART_END-terminated; NULL: no walk */
	const char *const *extra;       /* frames skipped besides the common lists */
	bool first;                     /* the first frame not skipped is the function
					 * (else syzkaller's stall extractor) */
	size_t idx;                     /* the part being read */
	bool any, done;                 /* a frame was read; the anchor was found */
	char prev[FN_MAX];              /* the last frame read */
	char found[FN_MAX];             /* the function, once done */
};

/* How many lines a report whose stack walk is still reading may have. */
#define MAX_WALK_LINES 4096

struct report {
	const struct header *h;
	enum crash_kind kind;
	bool fatal;
	long line;
	double time;
	struct strbuf excerpt;
	size_t nlines;
	size_t nheaders;            /* leading header lines (inlined repeats) */
	char header_fn[FN_MAX];     /* "in F" of the header line */
	char pc_fn[FN_MAX];         /* the faulting PC's function */
	char lock_fn[FN_MAX];       /* lockdep's lock site */
	bool lock_armed;            /* a "trying to acquire" line was seen */
	int nsites;                 /* lock sites read after it */
	char frames[MAX_FRAMES][FN_MAX];
	size_t nframes;
	bool in_trace, trace_done;
	bool call_trace;            /* its "Call Trace:" line was read */
	bool in_regs;           /* in the register dump after a RIP inside the stack */
	bool restarted;         /* the stack restarted at the first RIP inside it */
	bool foreign;               /* a line that is no part of a report came after the header */
	bool epilogue;              /* what a panic prints after its stack ("Kernel Offset:",
				 * "Rebooting in N seconds..", after which no end marker comes) */
	bool cut;                   /* the console ended in the middle of it */
	char *header_text;          /* the first header line, stripped */
	char *message;              /* ST_RUST: the line after the header */
	char context[CONTEXT_MAX];  /* its printk caller ("T12", "C1"), "console" for a printk
				 * time alone, "" without one */
	bool cpu_traceback;         /* "Sending NMI from CPU": the CPUs' lines are its too */
	bool text_ended;            /* its text ended at a message that prints a stack of
				 * its own (crash_info_with_stack()), no caller telling
				 * the two stacks apart */
	char access[8];             /* KASAN: "Read" or "Write" */
	bool source_line;           /* a line after the header names "file.c:123" */
	struct stack_walk walk[2];  /* the stack by syzkaller's parts, then its parts2 */
};

struct crash_detector {
	struct report *open;
	struct crash_event *events;
	size_t nevents, alloc;
	bool finished, panic_ended, panic_seen;
	bool fatal_kept;                /* a fatal event is in events */
	size_t dropped;                 /* events past CRASH_MAX_EVENTS */
	crash_dropped_fn *on_dropped;
	void *dropped_ctx;
	int banners;
	char *preamble[PREAMBLE_LINES];
	long preamble_line[PREAMBLE_LINES];
	size_t npreamble;
	long last_line;
	enum crash_progress progress;   /* of the last line */
	bool reboot_pending;            /* a reboot's first line was seen, its banner not yet */
	uint64_t ignored[4];            /* headers crash_detector_ignore_header() turned off */
	char context[CONTEXT_MAX];      /* the printk caller of the line being read ("T12",
					 * "C1"), "console" without one, "" without a printk time */
};

/* ------------------------------------------------- crash-frames.c */

/* fn without its longest syscall-wrapper prefix ("__x64_sys_ioctl" ->
 * "sys_ioctl", syzkaller's stripFramePrefixes); a pointer into fn. */
const char *crash_strip_frame_prefix(const char *fn);

/* Is fn in list: exact names (exact), substrings, or "^prefix" entries? */
bool crash_in_list(const char *fn, const char *const *list, bool exact);

/* Is fn a generic frame a title must not name (the common lists plus extra)? */
bool crash_skipped(const char *fn, const char *const *extra);

/* The first function of r that is not skipped: the header's (use_header),
 * then the PC's (use_pc), then the stack's; "" when none. */
const char *crash_first_unskipped(const struct report *r, bool use_pc, bool use_header,
				  const char *const *extra);

/* A stall's function: the frame just above the first dispatcher of its
 * stack, as its walks found it (a walk of first frames: the first frame
 * not skipped); "" when there is none. */
const char *crash_stall_function(const struct report *r);

/* Chooses r's stack walks by its header (stalls, lockups, stack overflows,
 * a corrupted stack end); called when r opens. */
void crash_walk_start(struct report *r);

/* Feeds a walk one line of its report. */
void crash_walk_line(struct stack_walk *w, const char *s, size_t n);

/* Is a walk of r still reading (its report may run past MAX_REPORT_LINES)? */
bool crash_walk_pending(const struct report *r);

/* A hung task's function: the first frame that is not waiting. */
const char *crash_hung_function(const struct report *r);

/* ------------------------------------------------- crash-context.c */

/* The printk caller of a raw console line: "T123" or "C1" from
 * "[   12.345678][ T123] ", "" for a line with a printk time and no caller,
 * NULL for one without a printk time (into ctx, CONTEXT_MAX bytes). */
const char *crash_line_context(const char *s, size_t n, char *ctx);

/* Is the raw line another printk caller's than d's open report's (which
 * then leaves it out)? False when no report is open or it has no caller. */
bool crash_other_context(const struct crash_detector *d, const char *line, size_t len);

/* Does the line hold a message that prints a stack of its own though it is
 * no bug (syzkaller's infoMessagesWithStack)? */
bool crash_info_with_stack(const char *s, size_t n);

/* ------------------------------------------------- crash-title.c */

/* The text between from and the first of stop (or the end), trimmed (malloc'd). */
char *crash_slice(const char *from, const char *stop);

/* The message of a "Kernel panic - not syncing: MSG" text (a pointer into it). */
const char *crash_panic_message(const char *text);

/* "kernel panic: MSG" for a panic's message up to stop (NULL: its end). */
char *crash_panic_text_title(const char *msg, const char *stop);

/* title (freed) with addresses as ADDR and lone numbers as NUM (malloc'd). */
char *crash_sanitize_title(char *title);

/* syzkaller's sanitizeTitle on a clean title: runs of spaces as one, none at
 * either end (in place). */
void crash_squeeze_title(char *title);

/* The event's title (malloc'd) and function (*fn, owned by r or static),
 * once r is complete. */
char *crash_report_title(const struct report *r, const char **fn);

/* Is the title unreliable (syzbot's "corrupted")? */
bool crash_report_corrupted(const struct report *r, const char *fn);

/* The title with its function replaced by the caller's (malloc'd). */
char *crash_alt_title(const struct report *r, const char *title, const char *fn);

/* crash-lines.c: lines of an open report. crash_is_report_body: a line
 * that belongs to a report after its call trace (registers, markers, a
 * blank line); crash_is_register_line: an x86 register dump's line
 * ("RSP: 0018:...", "CR2: ..."); crash_has_source_line: the line names a
 * source line ("kernel/rcu/tree.c:123", syzkaller's {{SRC}}). */
bool crash_is_report_body(const char *s, size_t n);
bool crash_is_register_line(const char *s, size_t n);
bool crash_has_source_line(const char *s, size_t n);

#endif
