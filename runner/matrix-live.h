/*
 * matrix-live.h: what the files of the runner's loop share (matrix.h is
 * its interface); private to runner/matrix*.c:
 *
 *   matrix.c          the loop (matrix_run()), signals and one boot's life;
 *   matrix-workers.c  the worker threads that start and stop machines;
 *   matrix-report.c   what the run shows: event lines, live progress, the
 *                     summary table and the exit status.
 */
#ifndef BOOTRIG_MATRIX_LIVE_H
#define BOOTRIG_MATRIX_LIVE_H

#include "matrix.h"
#include "backend.h"
#include "capture.h"
#include "result.h"
#include "util.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

enum boot_phase { PHASE_STARTING, PHASE_RUNNING, PHASE_STOPPING, PHASE_DRAINING };

/* A boot on its way (on the heap: a worker holds a pointer to it). */
struct live_boot {
	struct boot_job *job;
	struct backend *be;       /* the run's backend, even for a boot that never
				   * reached it (m.backend NULL) */
	struct machine m;
	struct judge *judge;
	struct capture cap;
	struct machine_spec spec; /* what prepare() got; spec.name owned */
	enum boot_phase phase;
	double t0;                /* monotonic time at power-on */
	time_t started;
	double deadline;          /* relative to t0 */
	double closed_at;         /* console closed (relative), or -1 */
	enum stage shown_stage;
	/* The end, once decided. */
	double end_t;             /* relative time when the boot was decided */
	bool stopped_by_itself;   /* the machine ended on its own */
	double drain_until;       /* monotonic: DRAINING ends then at the latest */
	/* Its operation in a worker (STARTING, STOPPING): matrix-workers.c. */
	void (*op)(struct live_boot *b);
	bool worker_running;      /* handed to a worker and not yet joined */
	atomic_bool worker_done;
	int worker_rc;            /* the operation's 0 or -1 */
	double op_since;          /* monotonic: when the operation began */
	const char *_Atomic op_name;   /* what the worker is in now ("prepare") */
	bool stuck;               /* its operation overran its deadline: the
				   * boot is written, the machine left to the
				   * worker (never released or freed by the loop) */
	/* The backend's retry policy (backend.h, retry()): why an attempt of
	 * this boot was no result and the boot was (or is to be) booted again,
	 * as the backend said (result.json "accelerator_fallback"), or NULL;
	 * the place that attempt ran on; the accelerator_reason the backend
	 * gave for the boot's result, or "". */
	char *retry_reason;
	int retry_place;
	char retry_accel_reason[200];
	/* Places (hosts) that failed this boot: its next attempt avoids them;
	 * every attempt, for result.json. */
	bool avoid[BACKEND_MAX_HOSTS];
	struct result_attempt *attempts;
	size_t n_attempts;
};

/* The boot's time now: the backend's clock (LAVA: the log's), else host
 * seconds since power-on. */
static inline double since(const struct live_boot *b)
{
	const struct backend *be = b->m.backend;
	if (be && be->ops->clock && b->m.priv && b->phase != PHASE_STARTING)
		return be->ops->clock((struct machine *)&b->m);
	return now_monotonic() - b->t0;
}

/* ---- matrix-workers.c */

/* Starts n workers before the backend is opened (fewer if threads cannot
 * be made); they never take SIGINT/SIGTERM. */
void workers_start(int n);
/* Ends the workers (every operation must have been joined, but those
 * abandoned as stuck: detached after a short wait). */
void workers_stop(void);
/* One more worker, in place of one stuck in an abandoned operation. */
void workers_add(void);
/* The pipe through which an operation's end wakes the loop: made once
 * (die() when it cannot be), its read end, emptied. */
void workers_open_pipe(void);
int workers_fd(void);
void workers_drain(void);
/* Runs fn(b) (it sets b->worker_rc) in a worker when the backend allows
 * it, else at once; then b->worker_done is set and the loop woken. */
void workers_run(struct live_boot *b, void (*fn)(struct live_boot *b));
/* Waits until b's operation, if any, has ended. */
void workers_join(struct live_boot *b);

/* ---- matrix-report.c */

/* Live lines on a terminal (stderr), or stage lines off one: from
 * report_start() to report_end(). */
void report_start(void);
void report_end(void);
/* Redraws the live lines (twice a second at most). */
void report_live(struct live_boot **live, int n_live);
/* Off a terminal: one line per boot that entered a stage. */
void report_stages(struct live_boot **live, int n_live);
/* One plain event line on stderr (live lines, if any, cleared first). */
void report_event(const struct live_boot *b, const char *what);
/* The summary table on stdout. */
void report_summary(const struct run_plan *plan);
/* The contract's exit status: the worst verdict's, or the signal's. */
int report_exit_status(const struct run_plan *plan, int interrupted_by);

#endif
