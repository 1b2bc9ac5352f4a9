/*
 * fake-backend.h: a backend (runner/backend.h) that boots nothing, for the
 * runner's unit tests (test_matrix_fake.c): each machine follows a script
 * of console bytes, pauses, a hang, a refusal, a crash or a host failure,
 * on a virtual clock, so that matrix_run() can be driven through deadlines,
 * retries, signals and -j in milliseconds.
 *
 * It is built only into the tests; runner/ does not know it. It is what a
 * new backend is: its operations and one static const table of them
 * (struct backend_ops, backend-impl.h), an instance handed to matrix_run()
 * as plan->backend, and a retry policy of its own (backend.h, retry()):
 * its KVM-proof rule, and a scripted "boot it again" for a failed start.
 *
 * The clock: a machine's time (ops->clock, the judge's timers, the runner's
 * deadline and the fake's KVM-proof rule) runs FAKE_SPEED times faster than the
 * host's, from power_on(). The runner's own limits (--op-timeout, its
 * 100 ms tick, its grace periods) stay in host time.
 */
#ifndef BOOTRIG_FAKE_BACKEND_H
#define BOOTRIG_FAKE_BACKEND_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

struct backend;

/* Virtual seconds per host second. */
#define FAKE_SPEED 50.0
/* A hung operation returns by itself after this many host seconds if
 * nobody abandons it (so that a broken runner fails a test, not hangs it). */
#define FAKE_HANG_CAP 4.0
/* The fake's hosts (as libvirt's --connect): a boot the host side failed
 * may be booted again on the other one (backend host_failed()). */
#define FAKE_HOSTS 2

enum fake_do {
	FAKE_SILENT = 0,        /* the script's end: the machine runs on, silent */
	FAKE_PRINT,             /* console bytes: text (len, or 0: strlen) */
	FAKE_WAIT,              /* seconds of virtual time */
	FAKE_OFF,               /* it stops by itself (power off, crash): the
				 * console ends, state() says MACHINE_STOPPED */
	FAKE_FAIL,              /* the host side fails: MACHINE_FAILED, text the reason */
};

struct fake_step {
	enum fake_do what;
	const char *text;
	size_t len;
	double seconds;
};

/* One machine's life. Every field may be left zero. */
/* The fake's KVM-proof time, in virtual seconds (libvirt's is the
 * target's timeouts.kvm_proof, its own config key). */
#define FAKE_KVM_PROOF 5.0

struct fake_script {
	const struct fake_step *steps;   /* after power-on; NULL: silent */
	const char *hang;       /* "prepare", "power on" or "stop": that operation
				 * blocks until the runner abandons the machine */
	const char *refuse;     /* an operation that fails at once (returns -1)... */
	const char *refusal;    /* ...with this m->infra_reason */
	const char *interrupt;  /* "prepare", "power on", "console", "state" or
				 * "stop": SIGINT is sent to the process there */
	bool kvm_unproven;      /* under --accel auto or kvm: KVM not yet proven on
				 * its host; the machine then prints nothing. The
				 * fake's retry policy: no kernel output in
				 * FAKE_KVM_PROOF (virtual) seconds, or an end
				 * before any, boots it again under "tcg" (kept in
				 * attempt-kvm/); with --accel kvm it is INFRA_ERROR */
	bool host0_fails;       /* power on fails on host 0 (a host failure) */
	const char *retry;      /* a failed start (refuse) is booted again once
				 * with this reason (retry policy), the attempt
				 * kept in attempt-retry/; the next attempt is not
				 * refused unless refuse_again. A second failed
				 * start is not retried: INFRA_ERROR */
	bool refuse_again;
};

/* What the fake saw, for the tests' checks; fake_reset() zeroes it. */
struct fake_stats {
	atomic_int prepared;      /* prepare() calls */
	atomic_int alive;         /* prepared and not yet released */
	atomic_int powered;       /* powered on and not yet stopped */
	atomic_int max_powered;   /* the most powered on at once */
	atomic_int abandoned;     /* abandon() calls that found their machine */
	atomic_int emergency;     /* emergency_stop() calls */
	atomic_int kvm_bad;       /* retry(BACKEND_WRITING) after a KVM fallback
				   * whose TCG boot printed: KVM learnt bad */
	atomic_int retries;       /* retry() answers BACKEND_BOOT_AGAIN */
	atomic_int retries_refused;   /* a failed start with a retry reason that
				   * retry() did not retry (the second) */
	atomic_int host_failures; /* host_failed() calls */
	atomic_int closed;        /* close() calls */
};
extern struct fake_stats fake_stats;

/* The scripts: a machine whose spec->kernel is "fake:N" follows scripts[N]
 * (the array must outlive the run). Zeroes fake_stats. */
void fake_reset(const struct fake_script *scripts, size_t n);

/* A new fake backend (BACKEND_CAP_THREADED_OPS: prepare, power on and stop
 * run in the runner's workers, as libvirt's do). */
struct backend *fake_backend_new(void);

#endif
