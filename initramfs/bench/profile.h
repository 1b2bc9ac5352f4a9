/*
 * profile.h: the profile pass of a metric (initramfs/PROTOCOL.md:
 * PROFILE, PFUNC, PSTACK). When init passes the knob profile=1
 * (bootrig.profile=1), every metric, after its METRIC line, runs its own
 * loop again (the same iters per call) for profile_ms guest milliseconds
 * with sampling on, so the reported figure is never measured while
 * sampling. Sampling: perf_event_open on the cpu-clock software event
 * (profile_event=cycles: the cycles counter, falling back to cpu-clock),
 * one event per online CPU, pid 0 and inherit (forked children are
 * sampled too, into our ring), kernel and user, with callchains; a
 * thread of ours, started before the events (so never sampled), drains
 * the rings every few milliseconds while the loop runs (without it:
 * between calls of the loop, the events off while draining). Symbolization (symtab.h): kernel frames against the table
 * init wrote (knob profile_ksyms=), user frames against /proc/self/exe's
 * own ELF symbols, named FUNC_[u]; "[kernel]" / "[unknown]_[u]" where no
 * symbol covers the address. User frames are the kernel's frame-pointer
 * walk: the first (the interrupted user pc) is exact; the walk is cut at
 * the first frame no symbol of the binary covers (the test loops are
 * built without frame pointers: on x86_64 the walk rarely gets past the
 * system call wrapper; a leaf function that keeps no frame record is
 * skipped, as perf skips it) and at the profiler's own functions (the
 * pass's frames down from main are not the metric's). A child that
 * exec'd another program (lat_proc exec) has its user frames as
 * "[unknown]_[u]". Samples are counted by their raw addresses while the
 * pass runs and symbolized once per distinct stack at its end.
 *
 * Knobs: profile=1, profile_ms=N (default PROFILE_DEFAULT_MS),
 * profile_period_us=N (default PROFILE_DEFAULT_PERIOD_US, at least 10),
 * profile_event=cpu-clock|cycles, profile_ksyms=PATH.
 * When the event or its ring cannot be had, the metric's record is
 * "PROFILE abi= test= name= status=unavailable reason=ERRNAME" and the
 * test goes on.
 */
#ifndef BOOTRIG_PROFILE_H
#define BOOTRIG_PROFILE_H

#include "bench.h"

/* Under icount (shift=3) these give about 1000-3000 samples a metric of
 * the smoke suite (lat_syscall; cloud-arm64 and amd64): each sample costs
 * the guest thousands of instructions (the timer interrupt, the kernel's
 * unwinding of both stacks), which icount turns into guest time, so a
 * pass samples less often than its period. Measured on cloud-arm64's
 * smoke boot (host seconds, unprofiled 2.2-2.3): 20 us x 100 ms 5.7-6.0
 * (1000-3000 samples), 50 us x 200 ms 9.9-13.2 (2000-2900), 100 us x
 * 300 ms 12.7 (2000-2600); 10 us x 50 ms gave no more samples than 20 us
 * (the overhead eats the period). About 1.5 s of a profiled boot is fixed
 * (reading /proc/kallsyms once, the records on the console). */
#define PROFILE_DEFAULT_MS 100
#define PROFILE_DEFAULT_PERIOD_US 20

/* bench_profile_init: reads the knobs into b (bench_init calls it). */
void bench_profile_init(struct bench *b);

/* bench_profile: the pass for the metric `name` (a no-op unless
 * profile=1): fn(ctx, iters) again and again for profile_ms. */
void bench_profile(struct bench *b, const char *name, bench_loop_fn fn, void *ctx, unsigned long iters);

/* bench_profile_fixed: the pass of a bench_time_fixed metric (hackbench):
 * fn(ctx, 1) at least once, until profile_ms; one pass printed under each
 * of names[0..count-1] (the metrics of one measurement). op_ns, what one
 * operation took while measured, stretches the period so that one
 * operation takes at most about 4000 samples (period_ns= says the period
 * used): sampling every 20 us made hackbench's operation 12 times longer. */
void bench_profile_fixed(struct bench *b, const char *const *names, int count, bench_loop_fn fn,
			 void *ctx, uint64_t op_ns);

#endif
