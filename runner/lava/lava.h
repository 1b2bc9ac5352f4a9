/*
 * lava.h: bootrig on a LAVA lab: the parts that need no network, in the
 * executable (the backend that talks to the server is runner/lava/lava.c, the
 * "lava" module, linked with libcurl: lib/module.h).
 *
 *   lava-job.c   the job definition (YAML text, written by us) of one boot
 *   lava-log.c   LAVA's job log (its YAML lines) turned back into console
 *                lines with their times; a job's state and health
 *   lava-serve.c --lava-serve: the run's boot files over HTTP, from a
 *                bounded server in a thread of the run
 *
 * A boot through LAVA: bootrig builds the initramfs as for libvirt, writes
 * <boot dir>/job.yaml, submits it (REST API v0.2), follows the job, reads
 * the target's lines out of the job's log into the console stream, and
 * judges them with its own judge (runner/matrix.c). The file URLs in the
 * job are file:// (the dispatcher shares our filesystem: only for a
 * server on loopback), the user's --lava-url-prefix followed by the
 * file's absolute path, or bootrig's own server's (--lava-serve).
 */
#ifndef BOOTRIG_LAVA_H
#define BOOTRIG_LAVA_H

#include <stdbool.h>
#include <stddef.h>

#include "stages.h"
#include "util.h"

struct backend;
struct machine_spec;
struct lava_serve;

/* What a run through LAVA was given (cmd-run.c), for the backend. */
struct lava_options {
	const char *url;             /* the server: "http://127.0.0.1:8000" (no /api) */
	const char *token;           /* the API token, or NULL: anonymous */
	const char *url_prefix;      /* --lava-url-prefix, or NULL: file:// */
	struct lava_serve *serve;    /* --lava-serve: the run's file server, or NULL
				      * (the run's: the backend does not stop it) */
	const char *device_type;     /* "qemu" unless a target says otherwise */
	const char *dtb;             /* a LAVA board's DTB for every job, or NULL */
};

/* One boot's job (lava_job_write()). Strings are the config's and the
 * runner's, quoted by the writer. */
struct lava_job_params {
	const char *job_name;        /* "bootrig <kernel-id> <variant> #<n>" */
	const char *device_type;     /* "qemu", or a board's type */
	const char *arch;            /* the kernel's arch: "arm64", "x86_64", "arm" */
	const char *machine, *cpu;   /* the target's QEMU machine and CPU (qemu) */
	int memory_mb, vcpus;
	const char *icount;          /* QEMU -icount options, or NULL / "" */
	const char *seed;            /* with icount: QEMU's -seed (backend.h), or NULL */
	const char *kernel_url, *initrd_url, *dtb_url;   /* dtb_url may be NULL */
	const char *kernel_type;     /* tftp: "image", "zimage" or "bzimage" */
	const char *cmdline;         /* the whole kernel command line */
	bool tftp;                   /* a board: deploy to tftp, boot u-boot */
	const struct judge_limits *limits;   /* bootrig's stage deadlines */
};

/*
 * lava_job_write: the job definition of one boot into out (appended):
 * device_type, job_name, timeouts (from the stage deadlines), context
 * (qemu: arch, machine, cpu, memory, no KVM, the command line as QEMU's
 * -append; a board: the command line but its leading console= word as
 * extra_kernel_args, which LAVA's u-boot templates put in bootargs), a deploy action (tmpfs for qemu, tftp for boards), a boot
 * action (qemu or u-boot, no prompts: init has no shell) and a monitors
 * test action with the protocol's BEGIN and END records as its start and
 * end and one test case per ABI record (initramfs/PROTOCOL.md). Every
 * string is a YAML double-quoted scalar. Returns 0, or -1 with why (one
 * line) in err: a string that is not UTF-8 or a command line QEMU's
 * quoting in the dispatcher cannot carry (a quote or a backslash), or,
 * for a board, u-boot's bootargs (a single quote).
 */
int lava_job_write(const struct lava_job_params *p, struct strbuf *out, char *err, size_t errlen);

/*
 * lava_write_job_file: the job of the boot spec (its target's machine,
 * files, command line and limits; spec->dir its directory) for a device
 * of device_type ("qemu": tmpfs and QEMU; any other: a board, tftp and
 * U-Boot), written to spec->dir/job.yaml. Its files' URLs: serve's
 * (lava_serve_url(): each file registered) when serve is not NULL, else
 * lava_file_url(url_prefix, ...). The text into *yaml (malloc'd)
 * when yaml is not NULL. 0, or -1 with why in err.
 */
int lava_write_job_file(const struct machine_spec *spec, const char *device_type,
			const char *url_prefix, struct lava_serve *serve, char **yaml, char *err,
			size_t errlen);

/* The URL of path for the dispatcher: "file://PATH", or prefix + PATH;
 * NULL (err set) when path holds a byte a URL would need escaped
 * (outside [A-Za-z0-9._~/+,=@:-]). Malloc'd. */
char *lava_file_url(const char *prefix, const char *path, char *err, size_t errlen);

/* ---- --lava-serve: the run's files over HTTP (lava-serve.c) ------------ */

/* The server's bounds: connections at once, bytes of one request head,
 * seconds a connection may make no progress. */
#define SERVE_MAX_CONN 16
#define SERVE_MAX_REQUEST 8192
#define SERVE_IDLE 30.0

/*
 * lava_serve_start: listens on spec ("ADDR[:PORT]", "[V6ADDR]:PORT"; a
 * numeric address; PORT 0 or absent: any free one) and serves, from a
 * thread of its own, the files registered with lava_serve_url() at
 * http://ADDR:PORT/<token><absolute path>, the token random, one per
 * server. GET and HEAD only; everything not registered is 404. NULL with
 * why in err when it cannot listen.
 */
struct lava_serve *lava_serve_start(const char *spec, char *err, size_t errlen);

/* "http://ADDR:PORT/<token>": the port the one bound. */
const char *lava_serve_prefix(const struct lava_serve *s);

/* Registers path (absolute) and returns its URL (malloc'd), or NULL (err
 * set) for a path lava_file_url() refuses. Thread-safe. */
char *lava_serve_url(struct lava_serve *s, const char *path, char *err, size_t errlen);

/* Stops the server (its thread joined, every socket closed) and frees it.
 * NULL: nothing. */
void lava_serve_stop(struct lava_serve *s);

/*
 * lava_url_is_loopback: whether the LAVA server URL's host is this machine
 * (127.0.0.0/8, "localhost", ::1): only then may its dispatcher be taken
 * to share our filesystem (file:// URLs).
 */
bool lava_url_is_loopback(const char *url);

/* The LAVA context arch of a kernel arch ("arm64" -> "arm64", "x86_64" ->
 * "x86_64", "arm" -> "arm"), or NULL for an arch bootrig does not know. */
const char *lava_arch(const char *kernel_arch);

/* ---- the job's log ---------------------------------------------------- */

/* One line of a LAVA log, decoded: lvl, and msg when it is a string (NULL
 * when it is a mapping: results lines). Malloc'd strings. */
struct lava_log_line {
	char *lvl;
	char *msg;                   /* target lines: LAVA's escaping undone */
	double dt;                   /* seconds since the epoch (UTC), or -1 */
	char *error_msg;             /* a results line's "error_msg", or NULL */
};

/*
 * lava_log_parse_line: one line of the log as LAVA's REST API returns it
 * (`- {"dt": "2026-12-03T06:10:01.123456", "lvl": "target", "msg": "..."}`,
 * without its newline). A double-quoted msg is decoded (YAML escapes);
 * for a console line (target, feedback), the '\"' the dispatcher writes
 * for every '"' of the console becomes '"' again. Returns 0, or -1 for a line that is not one
 * (the line is then skipped, and counted by the caller). *out is filled
 * on 0; release it with lava_log_line_release().
 */
int lava_log_parse_line(const char *line, size_t len, struct lava_log_line *out);
void lava_log_line_release(struct lava_log_line *l);

/*
 * Which log lines are the console (tests/LAVA.md): the dispatcher logs what
 * it reads from the serial line as "target" while an action expects on it
 * and as "feedback" otherwise (the END record and what follows it often
 * come in the finalize step as feedback); once the finalize step has sent
 * its own input ("poweroff"), what comes back is LAVA's, not the guest's.
 * Feed every line, in order, to lava_console_line(): true when l is a
 * console line (its msg the text).
 */
struct lava_console {
	bool finalizing;             /* the "start: N finalize" line was seen */
	bool closed;                 /* then an input line: the console ended */
};
bool lava_console_line(struct lava_console *c, const struct lava_log_line *l);

/* "2026-12-03T06:10:01.123456" (UTC, as the dispatcher writes it) into
 * seconds since the epoch, or -1. */
double lava_parse_dt(const char *s);

/* ---- the job's state ----------------------------------------------------- */

enum lava_job_phase {
	LAVA_QUEUED,                 /* Submitted, Scheduling, Scheduled */
	LAVA_RUNNING,                /* Running, Canceling */
	LAVA_FINISHED,               /* Finished */
	LAVA_UNKNOWN,                /* a state this bootrig does not know */
};

enum lava_job_health {
	LAVA_HEALTH_UNKNOWN,         /* not finished yet */
	LAVA_HEALTH_COMPLETE,
	LAVA_HEALTH_INCOMPLETE,
	LAVA_HEALTH_CANCELED,
};

/* The REST API's "state" and "health" strings (any case). */
enum lava_job_phase lava_job_phase(const char *state);
enum lava_job_health lava_job_health(const char *health);

/*
 * lava_job_infra_failure: whether a finished job ended as the lab's
 * failure: Incomplete, or Canceled but not by us. The backend reports it
 * as MACHINE_FAILED with LAVA's message; the runner makes that the boot's
 * INFRA_ERROR only when the kernel printed nothing
 * (BACKEND_CAP_JUDGE_FAILURE_AFTER_KERNEL): a job that reached the kernel is
 * judged from its console whatever LAVA says.
 */
bool lava_job_infra_failure(enum lava_job_health health, bool canceled_by_us);

/* The backend (runner/lava/lava.c, in the "lava" module; runner/backend.c
 * loads it). o is copied. Never NULL. */
struct backend *backend_lava_new(const struct lava_options *o);

#endif
