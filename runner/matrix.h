/*
 * matrix.h: running a set of boots (kernels x variants x repeats), up to N
 * at once, through one backend; judging each, writing its results, showing
 * progress and a summary, and cleaning up on Ctrl-C or SIGTERM.
 */
#ifndef BOOTRIG_MATRIX_H
#define BOOTRIG_MATRIX_H

#include <stdbool.h>
#include <stddef.h>

#include "judge.h"

struct kernel_size;

struct backend;
struct config;
struct target;

/* One boot to make. The runner (cmd-run.c) fills the first part. */
struct boot_job {
	const char *kernel_path;      /* as the user gave it */
	const char *kernel_image;     /* the bootable file */
	const char *kernel_id;
	const char *kernel_arch;
	const char *kernel_version;
	const char *kernel_sha256;    /* hex, or NULL */
	const char *kernel_git_commit, *kernel_git_describe, *kernel_git_url;  /* or NULL */
	const struct kernel_size *kernel_size;  /* its text, data, bss (kernel.h), or NULL */
	const struct target *target;  /* the kernel's arch's target (config.h) */
	const char *machine;          /* a named machine of the config (boards: the
				       * board's name; result.json "target"), else NULL */
	const char *initrd;           /* or NULL */
	const char *initrd_sha256;    /* its sha256 (hex), or NULL */
	const char *variant;          /* "default" or the NAME of --variant */
	char *cmdline;                /* the whole kernel command line (owned) */
	int boot;                     /* from 1 */
	char *dir;                    /* RESULTS_DIR/<kernel-id>/<variant>/<n> (owned) */
	struct judge_limits limits;
	const char *icount;           /* -icount options for a TCG boot, or NULL (wall clock) */
	bool icount_forced;           /* --clock icount: TCG even where KVM works */
	char seed[24];                /* with icount: QEMU's -seed, or "" (--seed random) */
	const char *accel;            /* "auto", "kvm", "tcg": --accel, else the target's */
	size_t summary_rank;          /* place in the summary (kernel, variant, boot order) */

	/* Filled by matrix_run(). */
	bool done;                    /* judged and written */
	bool interrupted;             /* stopped by Ctrl-C/SIGTERM: no result */
	enum verdict verdict;
	double duration;
	char *abis;                   /* "aarch64=ok arm=ok ..." (owned) */
	char *reason;                 /* the judge's one line (owned) */
};

struct run_plan {
	struct backend *backend;
	const char *where;            /* the backend's open() where (a URI, a board's
				       * name); NULL: the default */
	const struct config *cfg;
	struct boot_job *jobs;
	size_t n_jobs;
	int parallel;                 /* -j */
	double op_timeout;            /* --op-timeout: how long one backend operation
				       * (define, start, console attach, stop) may take;
				       * 0: OP_TIMEOUT_DEFAULT */
};

/* A backend operation's deadline when --op-timeout is not given: far above
 * a libvirt start under TCG on a loaded host (seconds), far below the
 * boot's own limits. */
#define OP_TIMEOUT_DEFAULT 120.0

/*
 * matrix_run: open the backend, make every boot (at most plan->parallel at
 * once), write each one's results, print the summary table to stdout, and
 * close the backend. Returns the exit status: the worst verdict's
 * (contract), 125 when the backend could not be opened (every boot is
 * then written as INFRA_ERROR), 130/143 when interrupted by SIGINT/SIGTERM
 * (the boots that finished keep their results; every machine is stopped).
 *
 * Never waits forever on the backend: an operation in a worker (prepare,
 * power on, stop) that overruns plan->op_timeout ends its boot as
 * INFRA_ERROR naming the operation (its machine's processes killed by PID:
 * backend abandon()), and the run goes on. SIGINT/SIGTERM end the run
 * within STOP_GRACE + a few seconds even while the loop itself is stuck in
 * a backend call: a watchdog thread then kills every machine by PID
 * (emergency_stop()) and, if the loop still does not return, ends the
 * process with the signal's status; what finished is on disk already.
 */
int matrix_run(struct run_plan *plan);

void boot_job_release(struct boot_job *job);

#endif
