/*
 * matrix-report.c: what a run shows (matrix-live.h): one event line per
 * thing that happens to a boot, live lines per running boot on a terminal
 * (or a line per stage off one), the summary table at the end, and the
 * exit status it makes. Text from the guest or the config goes through
 * term_str() (lib/textsafe.h).
 *
 * The file is divided into: progress; the summary.
 */
#include "matrix-live.h"
#include "exitcodes.h"
#include "textsafe.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* ---------------------------------------------------------------- progress */

/* Live lines on a terminal: one per running boot, redrawn in place;
 * active from report_start() to report_end(). */
static struct progress {
	bool tty;
	int drawn;                /* lines drawn last time */
	double last;
} progress;
static bool progress_active;

static void progress_clear(struct progress *p)
{
	if (!p || !p->tty || !p->drawn)
		return;
	fprintf(stderr, "\033[%dA\033[J", p->drawn);
	p->drawn = 0;
}

void report_start(void)
{
	progress = (struct progress){ .tty = isatty(STDERR_FILENO) == 1 };
	progress_active = true;
}

void report_end(void)
{
	progress_clear(&progress);
	progress_active = false;
}

void report_event(const struct live_boot *b, const char *what)
{
	if (progress_active)
		progress_clear(&progress);
	fprintf(stderr, "bootrig: [%s %s %d] %s\n", term_str(b->job->kernel_id),
		term_str(b->job->variant), b->job->boot, term_str(what));
}

/* Redraws the live lines: at once after they were cleared, else twice a
 * second. */
void report_live(struct live_boot **live, int n_live)
{
	struct progress *p = &progress;
	if (!p->tty || (p->drawn && now_monotonic() - p->last < 0.5))
		return;
	progress_clear(p);
	for (int i = 0; i < n_live; i++) {
		struct live_boot *b = live[i];
		bool starting = b->phase == PHASE_STARTING;
		fprintf(stderr, "  %-40.40s %-12.12s #%-3d %-9s %7.1fs\n", term_str(b->job->kernel_id),
			term_str(b->job->variant), b->job->boot,
			starting ? "starting" : stage_name(judge_stage(b->judge)),
			starting ? 0.0 : since(b));
	}
	p->drawn = n_live;
	p->last = now_monotonic();
}

/* Off a terminal: one plain line when a boot enters a stage. */
void report_stages(struct live_boot **live, int n_live)
{
	if (progress.tty)
		return;
	for (int i = 0; i < n_live; i++) {
		struct live_boot *b = live[i];
		if (b->phase == PHASE_STARTING)
			continue;
		enum stage s = judge_stage(b->judge);
		if (s == b->shown_stage)
			continue;
		b->shown_stage = s;
		char *what = xasprintf("stage %s at %.2fs", stage_name(s), since(b));
		report_event(b, what);
		free(what);
	}
}

/* ---------------------------------------------------------------- summary */

/* qsort: boot jobs by summary_rank. */
static int by_summary_rank(const void *a, const void *b)
{
	const struct boot_job *x = *(const struct boot_job *const *)a;
	const struct boot_job *y = *(const struct boot_job *const *)b;
	return (x->summary_rank > y->summary_rank) - (x->summary_rank < y->summary_rank);
}

/* The table on stdout, in kernel, variant, boot order (the boots ran
 * repeat by repeat). */
void report_summary(const struct run_plan *plan)
{
	printf("%-40s %-12s %3s  %-11s %8s  %s\n", "kernel", "variant", "n", "verdict", "duration",
	       "ABIs");
	const struct boot_job **order = xcalloc(plan->n_jobs ? plan->n_jobs : 1, sizeof(*order));
	for (size_t i = 0; i < plan->n_jobs; i++)
		order[i] = &plan->jobs[i];
	qsort(order, plan->n_jobs, sizeof(*order), by_summary_rank);
	for (size_t i = 0; i < plan->n_jobs; i++) {
		const struct boot_job *job = order[i];
		const char *verdict = job->done ? verdict_name(job->verdict)
					: job->interrupted ? "INTERRUPTED" : "NOT RUN";
		printf("%-40s %-12s %3d  %-11s %7.1fs  %s\n", term_str(job->kernel_id),
		       term_str(job->variant), job->boot, verdict, job->duration, term_str(job->abis));
		if (job->done && job->reason && *job->reason)
			printf("%56s %s\n", "", term_str(job->reason));
	}
	free(order);
	fflush(stdout);
}

/* The contract's exit status for what happened. */
int report_exit_status(const struct run_plan *plan, int interrupted_by)
{
	if (interrupted_by)
		return interrupted_by == SIGTERM ? EXIT_SIGTERM : EXIT_SIGINT;
	int worst = -1;
	enum verdict wv = VERDICT_PASS;
	for (size_t i = 0; i < plan->n_jobs; i++) {
		const struct boot_job *job = &plan->jobs[i];
		if (job->done && verdict_severity(job->verdict) > worst) {
			worst = verdict_severity(job->verdict);
			wv = job->verdict;
		}
	}
	return worst < 0 ? EXIT_INFRA : verdict_exit_code(wv);
}
