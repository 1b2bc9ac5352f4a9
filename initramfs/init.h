/*
 * init.h: what the parts of bootrig's PID-1 init (initramfs/init*.c) share.
 * One binary, built from:
 *
 *   init.c          the ABI probes, the tests, --provoke, and main()
 *   init-record.c   records (initramfs/PROTOCOL.md): framing, CRC, escaping,
 *                   a child's lines framed as records or LOG
 *   init-plan.c     the plan: /etc/bootrig/plan, then the kernel command line
 *   init-system.c   the machine: mounts, the console (and its loglevel while
 *                   measuring), loopback, SYSINFO
 *   init-child.c    running a child: fork, exec with an errno pipe, its
 *                   output on a pipe, a watchdog
 *
 * Freestanding: the runtime is initramfs/rt/rt.h (no libc).
 */
#ifndef BOOTRIG_INIT_H
#define BOOTRIG_INIT_H

#include "rt.h"

#define RECORD_MAX 4096          /* a record line, newline included */
#define LIST_MAX 32              /* entries in a plan list */
#define NAME_MAX_LEN 64          /* a test, ABI or knob */
/* At most this many samples per metric, so that a METRIC line (every
 * sample listed) stays within one record (bench.h's BENCH_MAX_SAMPLES). */
#define MAX_SAMPLES 100

/* Running as PID 1 (on the machine), not in test mode (init.c). */
extern bool is_pid1;

/* ------------------------------------------------------------ records */

extern int out_fd;               /* the console, or stdout in test mode */
extern unsigned record_seq;      /* the next record's sequence number */

/* A record being built: "@@BR 1 <seq> <KIND>" then " key=value"... */
struct record {
	char buf[RECORD_MAX];
	size_t len;
	bool full;                /* a field did not fit and was cut */
};

/* rec_begin: a new record of kind, numbered record_seq. */
void rec_begin(struct record *r, const char *kind);
/* rec_raw: s as it is (cut, r->full set, when the record is full). */
void rec_raw(struct record *r, const char *s, size_t n);
/* rec_value: v escaped: bytes 0x21..0x7e except '%' as they are, else %XX. */
void rec_value(struct record *r, const char *v, size_t n);
/* rec_field: " key=<escaped value>" */
void rec_field(struct record *r, const char *key, const char *value);
/* rec_fieldf: rec_field with a printf value (at most 255 bytes). */
__attribute__((format(printf, 3, 4)))
void rec_fieldf(struct record *r, const char *key, const char *fmt, ...);
/* rec_end: appends the CRC and writes the line to out_fd with one write(2). */
void rec_end(struct record *r);

/* log_line: a LOG record for abi/test with text (split over records when
 * longer than one can hold). */
void log_line(const char *abi, const char *test, const char *text, size_t n);

/* frame_child_line: one line a test printed (no newline) becomes its
 * record (a kind word, a space and valid fields) or a LOG record. */
void frame_child_line(const char *abi, const char *test, const char *line, size_t n);

/* ------------------------------------------------------------ the plan */

struct list {
	int n;
	char item[LIST_MAX][NAME_MAX_LEN];
};

struct plan {
	const char *source;       /* builtin, file or cmdline */
	char suite[NAME_MAX_LEN];
	char provoke[NAME_MAX_LEN];   /* a kind to provoke (initramfs/provoke/), "" none */
	struct list tests, abis, knobs;
	bool abis_set;
	long samples, min_samples, repeat, test_timeout;
	long idle_ms;             /* idle=MS: sleep MS before the first test (a
				   * longer boot, on purpose; 0: none) */
	bool profile;             /* profile=1: every metric gets a profile pass */
	bool no_perf_stat;        /* perf_stat=0: the tests get counters=0 */
	bool boot_time;           /* boot_time=1: the initcalls' and phases' times
				   * before the tests (init-boottime.c) */
	char ci_target[16];       /* a decimal percentage, as given */
	char error[160];          /* set when the plan cannot be used */
};

/* decimal_fixed: the decimal at *s ("12.345") in units of 10^-places
 * ("12.345", 2: 1234; digits past places dropped), saturating at 10^15;
 * *s moves past it. */
long long decimal_fixed(const char **s, int places);

/* list_has: is s an entry of l? */
bool list_has(const struct list *l, const char *s);
/* plan_defaults: the built-in plan (suite=smoke tests=lat_syscall ...). */
void plan_defaults(struct plan *p);
/* plan_read_file: lines key=value; blank lines and '#' comments skipped;
 * a bad one sets p->error. A missing file changes nothing. */
void plan_read_file(struct plan *p, const char *path);
/* plan_read_cmdline: every bootrig.KEY=VALUE word overrides the plan. */
void plan_read_cmdline(struct plan *p, const char *cmdline);

/* ------------------------------------------------------------ the profile */

/* Where init writes the kernel's symbol table for the test binaries
 * (knob profile_ksyms=; initramfs/bench/symtab.h). */
#define KSYMS_PATH "/tmp/bootrig-ksyms"
/* ksyms_build: reads /proc/kallsyms once (root prefix for test mode),
 * writes its text symbols to path (setting kptr_restrict to 0 first when
 * the addresses read as 0); NULL, or what went wrong. Logs the count and
 * the time it took. */
const char *ksyms_build(const char *root, const char *path);

/* ------------------------------------------------------------ boot time */

/* boot_time_report: the kernel's initcall_debug records in its log buffer
 * as METRICs of (boot, initcall) and (boot, phase), then a BOOTTIME record
 * of what was read (init-boottime.c); init_ns: rt_now_ns() when init began;
 * root: "" on the machine, else test mode's DIR, whose file kernel-log
 * stands for the buffer. */
void boot_time_report(unsigned long long init_ns, const char *root);

/* ------------------------------------------------------------ the machine */

/* mount_all: what tests need; a failure is returned as a message. */
const char *mount_all(void);
/* open_console: /dev/console as the output and as fds 0, 1 and 2. */
void open_console(void);
/* loopback_up: 127.0.0.1/8 on lo, and the interface up; NULL or a message. */
const char *loopback_up(void);
/* print_sysinfo: the SYSINFO record. */
void print_sysinfo(const char *uptime, const char *cmdline);
/* quiet_console, restore_console: the console loglevel lowered while
 * measuring, and put back. */
void quiet_console(void);
void restore_console(void);
/* first_word: the first run of non-space bytes of s, cut in place. */
char *first_word(char *s);
/* chomp: s without its trailing newlines. */
char *chomp(char *s);

/* ------------------------------------------------------------ a child */

struct run {
	long exec_errno;          /* execve's errno, 0 when it succeeded */
	int status;               /* wait status */
	bool timed_out;
	long ms;
};

/* Child output, cut into lines and framed. */
struct line_buf {
	char buf[RECORD_MAX];
	size_t len;
	const char *abi, *test;
	bool counting;          /* the counting run: only its PERFSTAT lines are kept */
};

/* spawn: runs argv[0] in its own process group, stdout and stderr into
 * *out_read (a pipe read end; NULL: no pipe wanted, output discarded).
 * Returns the pid or -errno; *exec_read is the CLOEXEC pipe that carries
 * execve's errno (4 bytes) or EOF when exec succeeded. */
long spawn(char *const argv[], int *out_read, int *exec_read);
/* supervise: reads the child's output (into lb, framed; out -1: none)
 * until EOF and its exit, killing its process group at the deadline. */
void supervise(long pid, int out, int ex, long timeout_ms, struct line_buf *lb, struct run *run);
/* describe_exit: "exit 3", "signal 11" or NULL for exit 0. */
const char *describe_exit(int status);

#endif
