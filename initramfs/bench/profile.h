/*
 * profile.h: the profile pass of a metric (initramfs/PROTOCOL.md:
 * PROFILE, PFUNC, PSTACK). When init passes the knob profile=1
 * (bootrig.profile=1), every metric, after its METRIC line, runs its own
 * loop again (the same iters per call) for profile_ms guest milliseconds
 * with sampling on, so the reported figure is never measured while
 * sampling. Sampling: perf_event_open on the cpu-clock software event
 * (profile_event=cycles: the cycles counter, falling back to cpu-clock),
 * one event per online CPU, pid 0 and inherit (forked children are
 * sampled too, into our ring), kernel and user, with callchains; the
 * rings are drained between calls of the loop (the events disabled while
 * draining). Symbolization (symtab.h): kernel frames against the table
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

/* Under icount (shift=3) these give about 1500-4500 samples a metric
 * (smoke on cloud-arm64 and amd64). The host time a pass costs goes with
 * its samples (the sampling interrupt, the kernel's unwinding, our
 * records), not with its guest milliseconds: 50 us x 200 ms gave as many
 * samples (1700-3600) for more guest time; 10 us x 50 ms gave fewer
 * (1000-4000: at 10 us the sampling overhead eats the period). */
#define PROFILE_DEFAULT_MS 100
#define PROFILE_DEFAULT_PERIOD_US 20

/* bench_profile_init: reads the knobs into b (bench_init calls it). */
void bench_profile_init(struct bench *b);

/* bench_profile: the pass for the metric `name` (a no-op unless
 * profile=1): fn(ctx, iters) again and again for profile_ms. */
void bench_profile(struct bench *b, const char *name, bench_loop_fn fn, void *ctx, unsigned long iters);

/* bench_profile_fixed: the pass of a bench_time_fixed metric (hackbench):
 * fn(ctx, 1) at least once, until profile_ms; one pass printed under each
 * of names[0..count-1] (the metrics of one measurement). */
void bench_profile_fixed(struct bench *b, const char *const *names, int count, bench_loop_fn fn,
			 void *ctx);

#endif
