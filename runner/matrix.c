/*
 * matrix.c: the boots of one `bootrig run` (matrix.h).
 *
 * One poll() loop over every running boot's console fd with a short tick
 * for the timers. Each boot: prepare, power on, feed console bytes to the
 * capture and the judge, ask the judge whether to stop, ask the backend
 * whether the machine still runs; at the end stop it, read the console's
 * last bytes, judge, write console.log, console.tlog and result.json,
 * release it.
 *
 * Starting a machine and stopping one block for a while (libvirt: ~0.5 s
 * to create a domain and open its console; killing QEMU and destroying the
 * domain). With a backend that allows it (BACKEND_CAP_THREADED_OPS), each of these
 * runs in a worker thread (one per -j slot, made before the backend opens:
 * matrix-workers.c), so that the loop keeps serving the other boots and
 * -j 2 overlaps two boots fully; the worker touches only the boot's
 * machine (m) and its power-on time, and wakes the loop through a pipe.
 * The judge, the capture and the output (matrix-report.c) stay on the
 * loop's thread. A boot's phase says who holds it:
 *
 *   STARTING  a worker prepares and powers the machine on
 *   RUNNING   the loop reads its console and watches its timers
 *   STOPPING  a worker stops the machine (the boot is decided)
 *   DRAINING  the loop reads the console's last bytes (DRAIN_LIMIT)
 *
 * The file is divided into: signals and emergency cleanup; one boot's
 * life; matrix_run(). What the loop's files share: matrix-live.h.
 */
#include "matrix-live.h"
#include "config.h"
#include "exitcodes.h"
#include "textsafe.h"

#include <errno.h>
#include <json-c/json.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TICK_MS 100
/* A console that closed while the machine seems to run: how long to wait
 * for libvirt's stop event before calling it a host failure. */
#define CLOSED_GRACE 5.0
/* Past the sum of every stage's limit the runner ends a boot itself, even
 * if the judge never asked to (a safety net, not a verdict). */
#define DEADLINE_SLACK 30.0
/* How long the last console bytes may lag behind the machine's end. */
#define DRAIN_LIMIT 1.0

/* ---------------------------------------------------------------- signals */

static volatile sig_atomic_t interrupted_by;
static struct backend *emergency_backend;
/* The run's backend operation deadline (plan->op_timeout). */
static double op_limit = OP_TIMEOUT_DEFAULT;

static void on_interrupt(int sig)
{
	if (!interrupted_by)
		interrupted_by = sig;
}

/* If bootrig exits while machines run (die() somewhere), kill them. */
static void emergency_at_exit(void)
{
	if (emergency_backend && emergency_backend->ops->emergency_stop)
		emergency_backend->ops->emergency_stop(emergency_backend);
}

static void install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;   /* no SA_RESTART: poll() returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	static bool registered;
	if (!registered)
		atexit(emergency_at_exit);
	registered = true;
}

/* ---------------------------------------------------------------- the watchdog */

/*
 * The watchdog: a thread that never takes a signal and never calls the
 * backend but for emergency_stop() (async-signal-safe: kill by PID). It
 * makes sure the run ends in bounded time when the loop's own thread is
 * stuck in a backend call (state(), release(), close(), or a join on a
 * stuck worker):
 *   - after SIGINT/SIGTERM, the loop has STOP_GRACE seconds to end the run
 *     itself; then every machine is killed by PID; KILL_GRACE seconds
 *     later the process ends with the signal's status (what finished is
 *     on disk: result.json is written whole or not at all);
 *   - without a signal, a loop that has not come round for op_limit +
 *     STOP_GRACE seconds gets the same, with exit status 125 (backends
 *     whose operations all run in workers only, BACKEND_CAP_THREADED_OPS: the
 *     others, boards and LAVA, power on in the loop, for minutes).
 */
#define STOP_GRACE 4.0
#define KILL_GRACE 3.0
static struct {
	pthread_t thread;
	bool running;
	atomic_bool quit;
	_Atomic double beat;          /* monotonic: the loop came round then */
	bool threaded;                /* the backend has BACKEND_CAP_THREADED_OPS */
	_Atomic double closing;       /* monotonic: be->close() began then (be is
				       * not the watchdog's to touch from then), or 0 */
} watchdog;

static void watchdog_end(int status, const char *why)
{
	char line[200];
	int n = snprintf(line, sizeof(line), "bootrig: error: %s; every machine was killed, "
			 "the finished boots are kept\n", why);
	if (write(STDERR_FILENO, line, n > 0 ? (size_t)n : 0) < 0)
		_exit(status);
	_exit(status);
}

static void *watchdog_main(void *arg)
{
	struct backend *be = arg;
	double signalled = 0, killed = 0;
	while (!atomic_load(&watchdog.quit)) {
		struct timespec nap = { 0, 100 * 1000 * 1000 };
		nanosleep(&nap, NULL);
		double now = now_monotonic(), closing = atomic_load(&watchdog.closing);
		if (closing) {         /* results and machines are done with */
			if (now - closing > op_limit + STOP_GRACE)
				watchdog_end(EXIT_INFRA, "closing the backend did not return");
			continue;
		}
		bool stuck = watchdog.threaded && now - atomic_load(&watchdog.beat) > op_limit + STOP_GRACE;
		if (interrupted_by && !signalled)
			signalled = now;
		if (!killed && (stuck || (signalled && now - signalled > STOP_GRACE))) {
			if (be->ops->emergency_stop)
				be->ops->emergency_stop(be);
			killed = now;
		}
		if (killed && now - killed > KILL_GRACE && !atomic_load(&watchdog.quit)) {
			if (interrupted_by)
				watchdog_end(interrupted_by == SIGTERM ? EXIT_SIGTERM : EXIT_SIGINT,
					     "interrupted while a backend call did not return");
			watchdog_end(EXIT_INFRA, "a backend call did not return; the run was ended");
		}
	}
	return NULL;
}

static void watchdog_start(struct backend *be)
{
	atomic_store(&watchdog.quit, false);
	atomic_store(&watchdog.beat, now_monotonic());
	atomic_store(&watchdog.closing, 0.0);
	watchdog.threaded = backend_can(be, BACKEND_CAP_THREADED_OPS);
	sigset_t stop, old;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	watchdog.running = pthread_create(&watchdog.thread, NULL, watchdog_main, be) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!watchdog.running)
		warning("no watchdog thread: a stuck backend call could hang this run");
}

static void watchdog_stop(void)
{
	if (!watchdog.running)
		return;
	atomic_store(&watchdog.quit, true);
	pthread_join(watchdog.thread, NULL);
	watchdog.running = false;
}

/* ---------------------------------------------------------------- one boot */

/* Worker (matrix-workers.c): prepare and power on b's machine; b->t0 is
 * when the guest could run (power_on() returned). */
static void start_machine(struct live_boot *b)
{
	struct backend *be = b->m.backend;
	atomic_store(&b->op_name, "prepare");
	int rc = be->ops->prepare(be, &b->m, &b->spec);
	if (rc == 0) {
		b->started = time(NULL);
		b->t0 = now_monotonic();
		atomic_store(&b->op_name, "power on");
		rc = b->m.backend->ops->power_on(&b->m);
		if (rc == 0)
			b->t0 = now_monotonic();
	}
	b->worker_rc = rc;
}

/* Worker: stop b's machine. */
static void stop_machine(struct live_boot *b)
{
	atomic_store(&b->op_name, "stop");
	b->worker_rc = b->m.backend->ops->stop(&b->m);
}

/* The sum of the stage limits: the safety-net deadline. */
static double total_limit(const struct judge_limits *l)
{
	double sum = 0;
	for (int s = 0; s < STAGE_COUNT; s++)
		sum += l->stage[s] > 0 ? l->stage[s] : 600.0;
	return sum + DEADLINE_SLACK;
}

/* "aarch64=ok arm=ok aarch64_ilp32=unsupported" from the judge's ABI table. */
static char *abi_summary(const struct judge *j)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_add(&sb, "", 0);
	struct judge_abi row;
	for (size_t i = 0; judge_abi_at(j, i, &row); i++) {
		if (sb.len)
			strbuf_addstr(&sb, " ");
		strbuf_add_utf8(&sb, row.abi, strlen(row.abi));    /* as result.json has them */
		strbuf_addstr(&sb, "=");
		strbuf_add_utf8(&sb, row.status, strlen(row.status));
	}
	return sb.buf;
}

/* Reads every console byte waiting; false once the console has closed. */
static bool pump_console(struct live_boot *b)
{
	char buf[16384];
	for (;;) {
		ssize_t n = b->m.backend->ops->console_read(&b->m, buf, sizeof(buf));
		if (n < 0)
			return false;
		if (n == 0)
			return true;
		const struct backend_ops *ops = b->m.backend->ops;
		double t = ops->console_stamp ? ops->console_stamp(&b->m) : since(b);
		capture_feed(&b->cap, buf, (size_t)n, t);
		judge_feed(b->judge, buf, (size_t)n, t);
	}
}

static bool boot_again(struct live_boot *b, const struct backend_retry *r);
static bool boot_elsewhere(struct live_boot *b, const char *why);
static void record_attempt(struct live_boot *b, const char *error);

/*
 * ask_retry: the backend's retry policy on ev (backend.h, retry()): its
 * answer in r (BACKEND_GO_ON when it has none). ev's earlier fields are
 * filled from b. Not for a stuck boot (its machine is a worker's).
 */
static void ask_retry(struct live_boot *b, struct backend_event *ev, struct backend_retry *r)
{
	memset(r, 0, sizeof(*r));
	struct backend *be = b->be;
	ev->earlier = b->retry_reason;
	ev->earlier_place = b->retry_place;
	if (be->ops->retry)
		be->ops->retry(be, &b->m, &b->spec, ev, r);
}

/* Keeps why as b's retry reason (it replaces an earlier one). */
static void keep_retry_reason(struct live_boot *b, const char *why)
{
	char *copy = xstrdup(why);
	free(b->retry_reason);
	b->retry_reason = copy;
}

/*
 * drain_console: after the machine stopped, the last bytes may still be on
 * their way (libvirt reports the domain's end and the console's end of
 * stream separately): read until the console closes, for at most
 * DRAIN_LIMIT seconds.
 */
static void drain_console(struct live_boot *b)
{
	double until = now_monotonic() + DRAIN_LIMIT;
	int fd = b->m.backend->ops->console_fd(&b->m);
	while (pump_console(b) && fd >= 0 && now_monotonic() < until) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		poll(&p, 1, 20);
	}
}

/*
 * write_boot: the machine is stopped and its console drained (or it never
 * started): judge, write the files, release the machine. t: when the boot
 * was decided. Returns 0, or -1 when a result file could not be written.
 */
static int write_boot(struct live_boot *b, double t)
{
	/* NULL: the boot never reached it, or its machine is a stuck worker's */
	struct backend *be = b->stuck ? NULL : b->m.backend;
	/* The backend's own copy of the console first: what the stream lost
	 * at its end is the judge's to read before the verdict, as if it had
	 * come live (a daemon's console stream may end before its domain). */
	const char *log = be && b->m.priv && be->ops->console_log_file
		? be->ops->console_log_file(&b->m) : NULL;
	size_t recovered = capture_reconcile(&b->cap, log);
	if (b->cap.recovered_tail)
		judge_feed(b->judge, b->cap.raw.buf + b->cap.raw.len - b->cap.recovered_tail,
			   b->cap.recovered_tail, t);
	if (be && b->m.priv && b->stopped_by_itself)
		judge_machine_stopped(b->judge, t);
	struct boot_job *job = b->job;
	/* A boot retried: the backend learns how the retry went (libvirt: KVM
	 * fell back and the same kernel printed under TCG: KVM is to blame on
	 * that host, and later boots go straight to TCG). */
	if (b->retry_reason && be) {
		struct backend_event ev = { .kind = BACKEND_WRITING, .t = t, .why = "",
					    .kernel_printed = judge_stage(b->judge) > STAGE_FIRMWARE };
		struct backend_retry r;
		ask_retry(b, &ev, &r);
	}
	/* A boot whose console was not kept is not a result: INFRA_ERROR. */
	int rc = 0;
	if (capture_write(&b->cap, job->dir) < 0) {
		char *why = xasprintf("cannot write %s/console.log: %s", job->dir, strerror(errno));
		judge_infra_error(b->judge, why);
		free(why);
		rc = -1;
	}
	job->verdict = judge_finish(b->judge, t);
	if (b->retry_accel_reason[0])
		memcpy(b->m.accel_reason, b->retry_accel_reason, sizeof(b->m.accel_reason));
	job->duration = t;
	job->abis = abi_summary(b->judge);
	job->reason = xstrdup(judge_reason(b->judge));
	struct result_info info = {
		.kernel_path = job->kernel_path, .kernel_id = job->kernel_id,
		.kernel_arch = job->kernel_arch, .kernel_version = job->kernel_version,
		.kernel_sha256 = job->kernel_sha256, .kernel_git_commit = job->kernel_git_commit,
		.kernel_git_describe = job->kernel_git_describe, .kernel_git_url = job->kernel_git_url,
		.kernel_size = job->kernel_size,
		.variant = job->variant, .boot = job->boot, .append = job->cmdline,
		.initramfs = job->initrd, .initramfs_sha256 = job->initrd_sha256,
		.backend = b->be->ops->name,
		.target = job->machine ? job->machine : job->target->name,
		.uri = be && backend_can(be, BACKEND_CAP_WHERE_IS_URI)
			? (b->m.place.uri ? b->m.place.uri : be->where) : NULL,
		.host_name = b->m.place.name, .host_facts = b->m.place.facts,
		.accelerator = b->m.accelerator[0] ? b->m.accelerator : b->be->ops->accelerator,
		.accelerator_reason = b->m.accel_reason[0] ? b->m.accel_reason : NULL,
		.accelerator_fallback = b->retry_reason,
		.clock = b->m.clock[0] ? b->m.clock : "wall",
		.seed = !strcmp(b->m.clock, "icount") && job->seed[0] ? job->seed : NULL,
		.started = b->started ? b->started : time(NULL), .duration = t,
		.console_recovered = recovered,
		.backend_section = be && b->m.priv && be->ops->result_section
			? be->ops->result_section(&b->m) : NULL,
	};
	if (b->n_attempts) {    /* the last attempt is this one */
		record_attempt(b, job->verdict == VERDICT_INFRA_ERROR ? job->reason : NULL);
		info.attempts = b->attempts;
		info.n_attempts = b->n_attempts;
	}
	/* No summary line says PASS for a boot whose result.json is not on disk. */
	if (result_write(job->dir, &info, b->judge) < 0) {
		free(job->reason);
		job->reason = xasprintf("cannot write %s/result.json: %s", job->dir, strerror(errno));
		job->verdict = VERDICT_INFRA_ERROR;
		rc = -1;
	} else if (be && b->m.priv && be->ops->annotate && be->ops->annotate(&b->m, job->dir) < 0) {
		free(job->reason);
		job->reason = xasprintf("cannot add the %s's files to %s", be->ops->name, job->dir);
		job->verdict = VERDICT_INFRA_ERROR;
		rc = -1;
	}
	if (be && b->m.priv)
		be->ops->release(&b->m);
	job->done = true;
	char *what = xasprintf("%s in %.1fs%s%s", verdict_name(job->verdict), t,
			       *job->reason ? ": " : "", job->reason);
	report_event(b, what);
	free(what);
	return rc;
}

/*
 * finish_boot: the whole end of a boot at once, in this thread: stop the
 * machine (unless it stopped by itself), read what is left on the
 * console, judge, write, release. For boots that end before they run.
 */
static int finish_boot(struct live_boot *b, bool stopped_by_itself)
{
	struct backend *be = b->m.backend;
	double t = b->t0 > 0 ? since(b) : 0.0;
	b->stopped_by_itself = stopped_by_itself;
	if (be && b->m.priv) {
		if (!stopped_by_itself && be->ops->stop(&b->m) < 0)
			judge_infra_error(b->judge, b->m.infra_reason);
		drain_console(b);
	}
	return write_boot(b, t);
}

/*
 * end_boot: the boot is decided (at relative time now): a worker stops the
 * machine unless it stopped by itself, then the loop drains its console
 * (PHASE_STOPPING, then PHASE_DRAINING; advance_boot() goes on).
 */
static void end_boot(struct live_boot *b, bool stopped_by_itself)
{
	b->end_t = since(b);
	b->stopped_by_itself = stopped_by_itself;
	b->drain_until = -1;
	if (stopped_by_itself) {
		b->phase = PHASE_DRAINING;
		b->drain_until = now_monotonic() + DRAIN_LIMIT;
		return;
	}
	b->phase = PHASE_STOPPING;
	workers_run(b, stop_machine);
}

/* Ends a boot that could not start: INFRA_ERROR with the backend's reason. */
static void fail_to_start(struct live_boot *b, const char *reason)
{
	judge_infra_error(b->judge, reason);
	finish_boot(b, false);
}

/*
 * start_boot: sets up job's boot and has a worker prepare and power on its
 * machine (PHASE_STARTING; started() goes on). Returns false when the
 * boot ended at once (its results are written).
 */
static bool start_boot(struct backend *be, const struct config *cfg, struct boot_job *job,
		       int seq, struct live_boot *b)
{
	memset(b, 0, sizeof(*b));
	b->job = job;
	b->be = be;
	b->judge = judge_new(&job->limits);
	b->closed_at = -1;
	b->shown_stage = STAGE_FIRMWARE;
	capture_init(&b->cap);
	if (mkdir_p(job->dir, 0755) < 0) {
		char *why = xasprintf("cannot create %s: %s", job->dir, strerror(errno));
		fail_to_start(b, why);
		free(why);
		return false;
	}
	b->spec = (struct machine_spec){
		.name = xasprintf("bootrig-%ld-%d", (long)getpid(), seq),
		.kernel = job->kernel_image, .initrd = job->initrd,
		.cmdline = job->cmdline, .target = job->target, .machine = job->machine, .cfg = cfg,
		.dir = job->dir, .icount = job->icount, .icount_forced = job->icount_forced,
		.seed = job->seed[0] ? job->seed : NULL,
		.accel = job->accel ? job->accel : "auto", .avoid_hosts = b->avoid,
		.limits = &job->limits,
	};
	b->deadline = total_limit(&job->limits);
	b->retry_place = -1;
	b->m.backend = be;
	b->phase = PHASE_STARTING;
	workers_run(b, start_machine);
	return true;
}

/*
 * started: b's start worker is done. The boot runs (true), or it ended at
 * once (false: its results are written): the backend blamed the kernel
 * (its emulator refused the image), or the host failed. Or the backend's
 * retry policy has it booted again (true).
 */
static bool started(struct live_boot *b)
{
	workers_join(b);
	if (b->worker_rc < 0) {
		struct backend_event ev = { .kind = BACKEND_START_FAILED, .why = b->m.infra_reason };
		struct backend_retry r;
		ask_retry(b, &ev, &r);
		if (r.answer == BACKEND_BLAME_KERNEL) {
			warning("%s: %s", b->job->kernel_id, b->m.infra_reason);
			finish_boot(b, true);
			return false;
		}
		if (r.answer == BACKEND_BOOT_AGAIN)
			return boot_again(b, &r);
	}
	if (b->worker_rc < 0 && boot_elsewhere(b, b->m.infra_reason))
		return true;
	if (b->worker_rc < 0) {
		fail_to_start(b, b->m.infra_reason);
		return false;
	}
	b->phase = PHASE_RUNNING;
	report_event(b, "started");
	return true;
}

/*
 * check_boot: a running boot, after a wake-up or a tick: decides whether
 * it has ended (end_boot()).
 */
static void check_boot(struct live_boot *b)
{
	struct backend *be = b->m.backend;
	bool open = pump_console(b);
	double t = since(b);
	if (!open && b->closed_at < 0)
		b->closed_at = t;
	enum machine_state st = be->ops->state(&b->m);
	if (st == MACHINE_FAILED && backend_can(be, BACKEND_CAP_JUDGE_FAILURE_AFTER_KERNEL) &&
	    judge_stage(b->judge) > STAGE_FIRMWARE)
		st = MACHINE_STOPPED;    /* it reached the kernel: the console decides */
	if (b->m.unproven && judge_stage(b->judge) > STAGE_FIRMWARE) {
		/* kernel output: the accelerator works there */
		struct backend_event ev = { .kind = BACKEND_PROVEN, .t = t, .why = "",
					    .kernel_printed = true };
		struct backend_retry r;
		ask_retry(b, &ev, &r);
		b->m.unproven = false;
	} else if (b->m.unproven && st == MACHINE_RUNNING) {
		struct backend_event ev = { .kind = BACKEND_UNPROVEN_TICK, .t = t, .why = "" };
		struct backend_retry r;
		ask_retry(b, &ev, &r);
		if (r.answer == BACKEND_END) {
			keep_retry_reason(b, r.reason);
			end_boot(b, false);
			return;
		}
	}
	if (st == MACHINE_FAILED && boot_elsewhere(b, b->m.infra_reason)) {
		return;
	} else if (st == MACHINE_FAILED) {
		judge_infra_error(b->judge, b->m.infra_reason);
		end_boot(b, false);
	} else if (st == MACHINE_STOPPED) {
		end_boot(b, true);
	} else if (b->closed_at >= 0 && t - b->closed_at > CLOSED_GRACE) {
		judge_infra_error(b->judge, "the console closed while the machine was running");
		end_boot(b, false);
	} else if (judge_should_stop(b->judge, t) || t > b->deadline) {
		end_boot(b, false);
	}
}

/*
 * keep_attempt: b's attempt's console, and the backend's own files of it
 * (its ops' attempt_files), into dir. 0, or -1 (errno set).
 */
static int keep_attempt(struct live_boot *b, const char *dir)
{
	if (mkdir_p(dir, 0755) < 0 || capture_write(&b->cap, dir) < 0)
		return -1;
	const char *const *files = b->be->ops->attempt_files;
	for (size_t i = 0; files && files[i]; i++) {
		char *from = xasprintf("%s/%s", b->job->dir, files[i]);
		char *to = xasprintf("%s/%s", dir, files[i]);
		int rc = rename(from, to) < 0 && errno != ENOENT ? -1 : 0;
		free(from), free(to);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/*
 * restart_boot: b's attempt is no result. Its console and the backend's
 * files of it are kept in <n>/<attempt_dir>/, the machine is stopped and
 * released, and the boot starts again (its machine named with suffix)
 * with a new judge and capture (PHASE_STARTING); event is printed.
 */
static void restart_boot(struct live_boot *b, const char *attempt_dir, const char *suffix,
			 const char *event)
{
	struct backend *be = b->m.backend;
	char *attempt = xasprintf("%s/%s", b->job->dir, attempt_dir);
	if (keep_attempt(b, attempt) < 0)
		warning("%s: the attempt's console was not kept: %s", attempt, strerror(errno));
	free(attempt);
	if (b->m.priv) {
		be->ops->stop(&b->m);
		be->ops->release(&b->m);
	}
	judge_free(b->judge);
	capture_release(&b->cap);
	b->judge = judge_new(&b->job->limits);
	capture_init(&b->cap);
	memset(&b->m, 0, sizeof(b->m));
	b->m.backend = be;
	char *name = xasprintf("%s-%s", b->spec.name, suffix);
	free((char *)b->spec.name);
	b->spec.name = name;
	b->closed_at = -1;
	b->shown_stage = STAGE_FIRMWARE;
	b->t0 = 0;
	b->started = 0;
	b->stopped_by_itself = false;
	report_event(b, event);
	b->phase = PHASE_STARTING;
	workers_run(b, start_machine);
}

/*
 * boot_again: the backend's retry policy said r (BACKEND_BOOT_AGAIN): this
 * attempt is no result and no evidence against the kernel. Its reason is
 * kept (result.json "accelerator_fallback"), with the place it ran on; the
 * attempt is kept in <n>/<r->keep>/ and the boot starts again as the
 * backend asked (restart_boot()). Returns true (it goes on).
 */
static bool boot_again(struct live_boot *b, const struct backend_retry *r)
{
	keep_retry_reason(b, r->reason);
	memcpy(b->retry_accel_reason, r->accel_reason, sizeof(b->retry_accel_reason));
	b->retry_place = b->m.place.index;
	if (r->accel)
		b->spec.accel = r->accel;
	restart_boot(b, r->keep ? r->keep : "attempt-retry", r->suffix ? r->suffix : "retry",
		     r->event[0] ? r->event : r->reason);
	return true;
}

/* Adds b's attempt on its current host to b->attempts (error: why the
 * host failed it, or NULL). */
static void record_attempt(struct live_boot *b, const char *error)
{
	b->attempts = xrealloc(b->attempts, (b->n_attempts + 1) * sizeof(*b->attempts));
	struct result_attempt *a = &b->attempts[b->n_attempts++];
	a->host = b->m.place.name ? xstrdup(b->m.place.name) : NULL;
	a->uri = b->m.place.uri ? xstrdup(b->m.place.uri) : NULL;
	a->error = error ? xstrdup(error) : NULL;
}

/*
 * boot_elsewhere: the host side failed b's boot on its host (why: it could
 * not start it, or the host or its connection went away). When the
 * backend knows of another host that can boot it, the attempt is kept in
 * <n>/attempt-<k>/ and the boot starts again there (true); else false, and
 * the failure is the boot's INFRA_ERROR.
 */
static bool boot_elsewhere(struct live_boot *b, const char *why)
{
	struct backend *be = b->m.backend;
	int host = b->m.place.index;
	if (!be || !be->ops->host_failed || host < 0 || host >= BACKEND_MAX_HOSTS)
		return false;
	b->avoid[host] = true;
	char *reason = xstrdup(why);
	if (!be->ops->host_failed(be, host, &b->spec, reason)) {
		free(reason);
		return false;
	}
	record_attempt(b, reason);
	char *dir = xasprintf("attempt-%zu", b->n_attempts);
	char *suffix = xasprintf("r%zu", b->n_attempts);
	char *what = xasprintf("host %s failed it (%s): booting it again on another host",
			       b->m.place.name ? b->m.place.name : "?", reason);
	restart_boot(b, dir, suffix, what);
	free(what), free(suffix), free(dir), free(reason);
	return true;
}

/*
 * unproven_ended: b, under an accelerator its backend has not proven
 * there, has ended before any kernel output (it stopped, failed, or timed
 * out). The backend's retry policy decides: booted again (true: not over),
 * or INFRA_ERROR with its reason, never the kernel's fault, or judged as
 * usual (false: write it).
 */
static bool unproven_ended(struct live_boot *b)
{
	struct backend_event ev = { .kind = BACKEND_UNPROVEN_ENDED, .t = b->end_t,
				    .why = judge_reason(b->judge) };
	struct backend_retry r;
	ask_retry(b, &ev, &r);
	if (r.answer == BACKEND_BOOT_AGAIN)
		return boot_again(b, &r);
	if (r.answer == BACKEND_INFRA_ERROR) {
		judge_infra_error(b->judge, r.reason);
		free(b->retry_reason);
		b->retry_reason = NULL;
	}
	return false;
}

/*
 * op_overran: b's operation in a worker has not returned in op_limit
 * seconds. The backend kills b's machine by PID (abandon()), so that the
 * stuck call may return; the boot is written as INFRA_ERROR naming the
 * operation, without touching the machine (b->stuck: the worker may still
 * be in it), and a new worker takes the stuck one's place. The loop parks
 * b (matrix_run()) instead of freeing it.
 */
static void op_overran(struct live_boot *b)
{
	const char *op = atomic_load(&b->op_name);
	char *why = xasprintf("backend operation '%s' did not return in %.0f s (its machine was killed)",
			      op ? op : "?", op_limit);
	b->stuck = true;
	if (b->be->ops->abandon)
		b->be->ops->abandon(b->be, b->spec.name);
	workers_add();
	judge_infra_error(b->judge, why);
	double t = b->phase == PHASE_STOPPING ? b->end_t : 0.0;
	write_boot(b, t);
	free(why);
}

/*
 * advance_boot: moves b on after a wake-up or a tick, whatever its phase.
 * Returns true when the boot is over (results written, machine released).
 */
static bool advance_boot(struct live_boot *b)
{
	bool done = atomic_load(&b->worker_done);
	if (!done && b->worker_running && (b->phase == PHASE_STARTING || b->phase == PHASE_STOPPING) &&
	    now_monotonic() - b->op_since > op_limit) {
		op_overran(b);
		return true;
	}
	switch (b->phase) {
	case PHASE_STARTING:
		return done && !started(b);
	case PHASE_RUNNING:
		check_boot(b);
		return false;
	case PHASE_STOPPING:
		if (!done)
			return false;
		workers_join(b);
		if (b->worker_rc < 0)
			judge_infra_error(b->judge, b->m.infra_reason);
		b->phase = PHASE_DRAINING;
		b->drain_until = now_monotonic() + DRAIN_LIMIT;
		return advance_boot(b);
	case PHASE_DRAINING:
		if (pump_console(b) && now_monotonic() < b->drain_until)
			return false;
		if (b->m.unproven && unproven_ended(b))
			return false;
		write_boot(b, b->end_t);
		return true;
	}
	return false;
}

/* Ctrl-C or SIGTERM: stop the machine, write nothing for it. */
static void abandon_boot(struct live_boot *b)
{
	struct backend *be = b->m.backend;
	workers_join(b);
	if (b->m.priv) {
		be->ops->stop(&b->m);
		be->ops->release(&b->m);
	}
	b->job->interrupted = true;
	report_event(b, "interrupted: machine stopped, no result");
}

static void free_live(struct live_boot *b)
{
	for (size_t i = 0; i < b->n_attempts; i++)
		free(b->attempts[i].host), free(b->attempts[i].uri), free(b->attempts[i].error);
	free(b->attempts);
	free(b->retry_reason);
	judge_free(b->judge);
	capture_release(&b->cap);
	free((char *)b->spec.name);
}

/* ---------------------------------------------------------------- the loop */

/* The backend could not be opened: every boot is an INFRA_ERROR. */
static void fail_all(struct run_plan *plan, const char *reason)
{
	for (size_t i = 0; i < plan->n_jobs; i++) {
		struct live_boot b;
		memset(&b, 0, sizeof(b));
		b.job = &plan->jobs[i];
		b.be = plan->backend;
		b.judge = judge_new(&b.job->limits);
		capture_init(&b.cap);
		if (mkdir_p(b.job->dir, 0755) == 0)
			fail_to_start(&b, reason);
		else
			error("cannot create %s: %s", b.job->dir, strerror(errno));
		free_live(&b);
	}
}

/* Waits for console bytes, a worker's end or the next tick. */
static void wait_for_events(struct live_boot **live, int n_live)
{
	struct pollfd fds[n_live + 1];
	nfds_t n = 0;
	fds[n++] = (struct pollfd){ .fd = workers_fd(), .events = POLLIN };
	for (int i = 0; i < n_live; i++) {
		struct live_boot *b = live[i];
		if (b->phase == PHASE_RUNNING || b->phase == PHASE_DRAINING)
			fds[n++] = (struct pollfd){ .fd = b->m.backend->ops->console_fd(&b->m),
						    .events = POLLIN };
	}
	if (poll(fds, n, TICK_MS) < 0 && errno != EINTR)
		warning("poll: %s", strerror(errno));
	workers_drain();
}

int matrix_run(struct run_plan *plan)
{
	struct backend *be = plan->backend;
	interrupted_by = 0;
	op_limit = plan->op_timeout > 0 ? plan->op_timeout : OP_TIMEOUT_DEFAULT;
	install_signals();
	watchdog_start(be);
	int parallel = plan->parallel > 0 ? plan->parallel : 1;
	if ((size_t)parallel > plan->n_jobs)
		parallel = plan->n_jobs ? (int)plan->n_jobs : 1;
	if (backend_can(be, BACKEND_CAP_THREADED_OPS))
		workers_start(parallel);
	if (be->ops->open(be, plan->where) < 0) {
		workers_stop();
		fail_all(plan, *be->error ? be->error : "the backend could not be opened");
		report_summary(plan);
		atomic_store(&watchdog.closing, now_monotonic());
		be->ops->close(be);
		watchdog_stop();
		return EXIT_INFRA;
	}
	emergency_backend = be;
	workers_open_pipe();
	struct live_boot **live = xcalloc((size_t)parallel, sizeof(*live));
	/* boots whose operation overran: written, left to their workers */
	struct live_boot **parked = NULL;
	size_t n_parked = 0;
	int n_live = 0, seq = 0;
	size_t next = 0;
	report_start();
	while (!interrupted_by && (next < plan->n_jobs || n_live > 0)) {
		while (!interrupted_by && n_live < parallel && next < plan->n_jobs) {
			struct live_boot *b = xcalloc(1, sizeof(*b));
			if (start_boot(be, plan->cfg, &plan->jobs[next++], ++seq, b)) {
				live[n_live++] = b;
			} else {
				free_live(b);
				free(b);
			}
		}
		report_live(live, n_live);
		atomic_store(&watchdog.beat, now_monotonic());
		wait_for_events(live, n_live);
		report_stages(live, n_live);
		for (int i = 0; i < n_live && !interrupted_by; i++) {
			if (!advance_boot(live[i]))
				continue;
			if (live[i]->stuck) {
				parked = xrealloc(parked, (n_parked + 1) * sizeof(*parked));
				parked[n_parked++] = live[i];
			} else {
				free_live(live[i]);
				free(live[i]);
			}
			live[i] = live[--n_live];
			i--;
		}
	}
	report_end();
	for (int i = 0; i < n_live; i++)   /* every operation under way ends first */
		workers_join(live[i]);
	for (int i = 0; i < n_live; i++) {
		abandon_boot(live[i]);
		free_live(live[i]);
		free(live[i]);
	}
	free(live);
	workers_stop();
	/* A parked boot whose worker came back is released; one still stuck
	 * keeps the backend: it is not closed (that could wait on the stuck
	 * call), its machines are killed by PID, the process exits soon. */
	bool still_stuck = false;
	for (size_t i = 0; i < n_parked; i++) {
		struct live_boot *b = parked[i];
		if (!atomic_load(&b->worker_done)) {
			still_stuck = true;
			continue;
		}
		if (b->m.priv)
			be->ops->release(&b->m);
		free_live(b);
		free(b);
	}
	free(parked);
	atomic_store(&watchdog.closing, now_monotonic());
	if (still_stuck && be->ops->emergency_stop)
		be->ops->emergency_stop(be);
	else
		be->ops->close(be);
	emergency_backend = NULL;
	watchdog_stop();
	report_summary(plan);
	return report_exit_status(plan, interrupted_by);
}

void boot_job_release(struct boot_job *job)
{
	free(job->cmdline);
	free(job->dir);
	free(job->abis);
	free(job->reason);
}

