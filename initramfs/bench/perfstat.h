/*
 * perfstat.h: the counters of `perf stat`, per metric (initramfs/PROTOCOL.md:
 * METRIC's perf_ops=, perf_ns=, perf=, perf_absent=, perf_scaled=).
 *
 * The events are opened for a metric's counting pass only, and closed at
 * its end, so no event exists while the metric is timed. They count CPU 0,
 * the CPU bench_init pins the test and the children it forks to (as
 * `perf stat -a -C 0`: a pipe's peer, a forked child and the kernel's work
 * on that CPU are counted; the clock is cpu-clock), user and kernel, not
 * the hypervisor. Not an event of the task (pid 0): while a task event
 * exists, and for a second (HZ) after the last one is closed, the kernel
 * runs its perf hooks at every context switch (perf_sched_events), which
 * made lat_ctx 3 % and lat_pipe 1.5 % slower in the metrics timed after a
 * pass. With pin=0 the test is not pinned, and the events are the task's
 * (task-clock; children not counted). The events: the software ones the
 * kernel keeps on any host, then the hardware ones of the CPU's PMU
 * (generic PERF_TYPE_HARDWARE ids: the kernel maps them to the PMU's own
 * or refuses one it has not). An event that cannot be opened is absent
 * with the errno name the kernel gave (ENOENT: no PMU, as x86 under TCG;
 * or this PMU has no such event), never 0.
 *
 * The counting pass: after a metric's samples, its own loop runs again,
 * `runs` times `iters` operations (bench.h: BENCH_COUNT_RUNS), the events on
 * (prctl PR_TASK_PERF_EVENTS_ENABLE) around each call of the loop and off
 * between, so the counts are the loop's own; each run is counted on its
 * own and the one with the least clock is kept (its ops and ns), as the
 * fastest sub-run is a sample: an interrupt only adds to a run; the reported figure is never
 * measured with counters on, and the pass cannot move it. An event the
 * kernel multiplexed (more events than the PMU has counters) is scaled by
 * its time enabled over its time running, as perf stat does, and named in
 * perf_scaled; one that never ran in the pass is absent, "not-counted".
 * The knob counters=0 opens nothing: every event absent, "off".
 */
#ifndef BOOTRIG_PERFSTAT_H
#define BOOTRIG_PERFSTAT_H

#include "rt.h"

#define PSTAT_EVENTS 16

struct pstat_event {
	const char *name;       /* perf stat's name: task-clock, cycles... */
	uint32_t type;          /* PERF_TYPE_SOFTWARE or PERF_TYPE_HARDWARE */
	uint64_t config;
};
extern const struct pstat_event pstat_events[PSTAT_EVENTS];
#define PSTAT_CLOCK 0           /* pstat_events' indexes of these three */
#define PSTAT_CYCLES 6
#define PSTAT_INSTRUCTIONS 7

/* One metric's counts from its pass. */
struct pstat_counts {
	uint64_t ops;                    /* operations counted, 0: no pass */
	uint64_t ns;                     /* their time by the benchmark's clock */
	uint64_t value[PSTAT_EVENTS];    /* totals over the ops */
	uint8_t state[PSTAT_EVENTS];     /* PSTAT_* */
	uint8_t off;                     /* counters=0: nothing was opened */
	int16_t cpu;                     /* the CPU counted, or -1: the task */
	int16_t err[PSTAT_EVENTS];       /* an absent event's errno (0: off) */
};
enum { PSTAT_ABSENT, PSTAT_COUNTED, PSTAT_SCALED, PSTAT_NOT_COUNTED };

/* pstat_loop_fn is bench_loop_fn (bench.h): the operations' nanoseconds
 * not to count are returned. */
typedef uint64_t (*pstat_loop_fn)(void *ctx, unsigned long iters);

/* pstat_pass: the counting pass of one metric into *c (see above), the
 * events opened and closed again; on = false (counters=0): none opened,
 * every event absent, "off". Times with rt_now_ns, overhead_ns its read's
 * cost (subtracted per call, as the benchmark does). */
void pstat_pass(bool on, int cpu, pstat_loop_fn fn, void *ctx, unsigned long iters,
		int runs, uint64_t overhead_ns, struct pstat_counts *c);

/* pstat_name: event i's name; the clock is cpu-clock when a CPU is
 * counted, task-clock when the task is. */
const char *pstat_name(int i, int cpu);

/* pstat_per_op: event i's count per operation, or -1 when it has none. */
double pstat_per_op(const struct pstat_counts *c, int i);

/* pstat_format: the METRIC line's perf fields for *c (with a leading
 * space each) into buf; returns their length (< size). */
size_t pstat_format(const struct pstat_counts *c, char *buf, size_t size);

#endif
