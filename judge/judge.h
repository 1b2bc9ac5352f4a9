/*
 * judge.h: the judge of a boot, shared by every runner (libvirt, boards) and
 * by `bootrig judge` over a saved log.
 *
 * It is a state machine fed with console bytes as they arrive, each chunk
 * with the host time (seconds since power-on) it was read at:
 *
 *   firmware -> kernel ("Linux version") -> init (the protocol's BEGIN)
 *            -> results (first test record) -> end (END) -> poweroff
 *
 * Each stage has a timeout, and the console a silence timeout (struct
 * judge_limits). It finds kernel failures (panic, oops, BUG, WARNING, KASAN,
 * lockdep, RCU stalls, lockups, hung tasks, an unexpected reboot, ...) and
 * turns each into an event with a syzbot-style title. It decodes the result
 * protocol (judge/protocol.h) into sysinfo, the ABI table, tests and metrics.
 *
 * Verdicts, in this order of precedence (judge.c decides):
 *   INFRA_ERROR  judge_infra_error() was called: the kernel is not blamed;
 *                or the console was cut (judge_console_cut) before any
 *                kernel report: what followed is unknown;
 *   PANIC        a fatal kernel event: panic, Oops, kernel BUG, a page
 *                fault, general protection fault, invalid opcode, divide
 *                error, double fault, or an unexpected reboot (a second
 *                "Linux version" banner);
 *   BOOT_FAIL    no kernel banner and no protocol record (no output, bad
 *                image, firmware error), or the machine stopped before BEGIN;
 *   HANG         a stage outlived its limit or the console went silent;
 *   FAIL         booted, but a non-fatal kernel report was printed
 *                (WARNING, KASAN, KFENCE, KMSAN, KCSAN, UBSAN, lockdep, RCU
 *                stall, soft/hard lockup, hung task, kmemleak: the kernel
 *                went on, but like the kernel test robot and syzbot we count
 *                any of them as a kernel failure), or init reported an
 *                ERROR, a test failed, timed out or never reported, records
 *                were corrupt, lost or out of count, or END never came;
 *                or a KUnit case failed (the kernel's own KTAP, ktap.h);
 *   PASS         END seen, every record there, every test PASS, no event.
 * Every event is listed in result.json with "fatal" telling the two apart
 * (up to CRASH_MAX_EVENTS, crash.h; the verdict counts the others too);
 * duplicated or reordered record lines are listed but lose nothing;
 * records after END and a metric twice in one test run are not read, and
 * FAIL (judge/protocol.h).
 *
 * Bounds: what the judge keeps does not grow with the console: a line is
 * read as its first 64 KiB and its last 16 KiB, records are kept up to
 * 8 MiB for result.json (more: FAIL, counted), open tests up to 1024.
 *
 * The runner asks judge_should_stop() after each chunk and on a timer: the
 * boot is over when the guest powered off after END, when a panic has
 * ended ("---[ end Kernel panic"), or when a timeout expired. The verdict is
 * then final (judge_finish()).
 */
#ifndef BOOTRIG_JUDGE_H
#define BOOTRIG_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;
struct crash_event;

enum verdict {
	VERDICT_PASS,
	VERDICT_FAIL,
	VERDICT_PANIC,
	VERDICT_HANG,
	VERDICT_BOOT_FAIL,
	VERDICT_INFRA_ERROR,
};

/* enum stage, struct judge_limits, judge_default_limits(), stage_name() */
#include "stages.h"

struct judge;

/* A judge for one boot under limits (not NULL: judge_default_limits()
 * gives the defaults; a saved log's judge has none, all zero). */
struct judge *judge_new(const struct judge_limits *limits);
void judge_free(struct judge *j);

/*
 * A known issue of the target: a non-fatal event (a WARNING, a sanitizer
 * report...) whose title matches title_pattern (fnmatch) is still listed,
 * marked "expected", but decides nothing. A fatal event is never waived.
 * For emulation artifacts, like QEMU's a64fx model tripping a cache-line
 * WARNING every kernel prints on it; call before feeding.
 */
void judge_expect_event(struct judge *j, const char *title_pattern);

/* Console bytes read at host time t (seconds since power-on). */
void judge_feed(struct judge *j, const char *bytes, size_t n, double t);

/*
 * Should the runner stop the machine now? True once the boot is decided:
 * END seen and the guest is powering off, a panic ended, or a stage or the
 * silence timeout expired at time now.
 */
bool judge_should_stop(struct judge *j, double now);

/* The machine stopped by itself (it powered off, or QEMU exited) at t. */
void judge_machine_stopped(struct judge *j, double t);

/*
 * The console ended with nothing more to read (the end of a saved log) and
 * the machine was not seen to stop: a boot that is not decided by then
 * (no END, no ended panic) stopped talking in its current stage: HANG.
 */
void judge_console_ended(struct judge *j, double t);

/*
 * The reader stopped before the console ended (a size limit): what followed
 * is unknown, so only a report seen stands: PANIC for a fatal one, FAIL for
 * another kernel report; anything else is INFRA_ERROR with reason (the judge
 * cannot tell), never PASS, HANG or BOOT_FAIL. Ends the console as
 * judge_console_ended() does.
 */
void judge_console_cut(struct judge *j, double t, const char *reason);

/* The host failed (libvirt, QEMU, serial line, power): INFRA_ERROR. */
void judge_infra_error(struct judge *j, const char *reason);

/* Ends the boot at time t and decides the verdict; idempotent. */
enum verdict judge_finish(struct judge *j, double t);

/* The verdict judge_finish() decided (PASS before it is called). */
enum verdict judge_verdict(const struct judge *j);

/* One line: why the verdict ("" for PASS). Valid until judge_free(). */
const char *judge_reason(const struct judge *j);

/* How many events were not kept past CRASH_MAX_EVENTS (counted all the same). */
size_t judge_events_not_kept(const struct judge *j);

/* The stage the boot is in now (for live progress lines). */
enum stage judge_stage(const struct judge *j);

/*
 * The ABI table as the guest reported it, typed (result.json's "abis"
 * without building JSON): row i (from 0) of the ABIs in the order each was
 * first reported, with its last status ("ok", "unsupported"...) and
 * reason (NULL: none). False past the last row. The strings are the
 * guest's, raw, valid until judge_free().
 */
struct judge_abi {
	const char *abi, *status, *reason;
};
bool judge_abi_at(const struct judge *j, size_t i, struct judge_abi *row);

/*
 * The rest of what the console showed, typed (the same facts result.json
 * holds, without building JSON). Each *_at() fills row i (from 0), in
 * result.json's order, and is false past the last row; strings are the
 * guest's or the detector's, raw, valid until judge_free() (a printer
 * makes them terminal-safe, JSON makes them UTF-8). Call after
 * judge_finish(), or on a running judge for what came so far.
 */

/* When stage s began (host seconds since power-on), or -1: never reached. */
double judge_stage_time(const struct judge *j, enum stage s);

/*
 * Event i of result.json's "events": the kernel reports (crash.h, the first
 * CRASH_MAX_EVENTS), then the protocol problems that lost data (up to 32),
 * then the host failure (judge_infra_error()), if any.
 */
struct judge_event {
	const char *kind;               /* crash_kind_name(), "protocol" or "infra" */
	const char *title;              /* never NULL */
	const char *function;           /* "" when unknown */
	const char *excerpt;            /* the report's lines, '\n'-separated ("" for none) */
	long line;                      /* 1-based console line */
	double time;                    /* host time of that line */
	bool fatal;
	bool expected;                  /* a known issue (judge_expect_event()) */
	const struct crash_event *crash; /* the kernel report (alt_title, corrupted...),
					  * NULL for protocol and infra events */
};
bool judge_event_at(const struct judge *j, size_t i, struct judge_event *e);
/* How many events judge_event_at() has. */
size_t judge_event_count(const struct judge *j);

/* Event i as result.json has it (a new object: json_object_put() it), or NULL past the last. */
struct json_object *judge_event_json(const struct judge *j, size_t i);

/* Row i of result.json's "tests": one RESULT record each. */
struct judge_test {
	const char *abi, *test, *status, *reason;       /* "" when absent */
	bool has_ms;                    /* ms was sent and is a number */
	uint64_t ms;
};
bool judge_test_at(const struct judge *j, size_t i, struct judge_test *row);

/* Row i of result.json's "metrics": one METRIC record each. A number that
 * is absent or malformed is NAN (n: has_n false). */
struct judge_metric {
	const char *abi, *test, *name, *unit, *better;  /* "" when absent */
	bool has_n;
	uint64_t n;
	double median, min, max, mean, stddev;
	const char *samples;            /* the samples as sent ("1.2,1.3": proto_parse_list()
					 * reads them), or NULL */
};
bool judge_metric_at(const struct judge *j, size_t i, struct judge_metric *row);

/* The KTAP (KUnit) results the console showed (ktap.h; ktap_seen() false
 * when none): what result.json's "ktap" lists. Valid until judge_free(). */
struct ktap;
const struct ktap *judge_ktap(const struct judge *j);

/*
 * Adds to obj what RESULTS.md puts in result.json from the console:
 * verdict, exit_code, reason, stages, events, protocol, sysinfo, abis,
 * tests, metrics, and ktap when the console had KTAP. The judge's one JSON builder: result.c calls it once a
 * boot, `bootrig judge --format json` once a log; a reader of the judge
 * uses the accessors above, never this JSON.
 */
void judge_to_json(const struct judge *j, struct json_object *obj);

const char *verdict_name(enum verdict v);       /* "PASS", ... */
int verdict_exit_code(enum verdict v);          /* as in the contract */
int verdict_severity(enum verdict v);           /* for "the worst one" */

#endif
