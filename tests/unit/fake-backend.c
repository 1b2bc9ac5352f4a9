/*
 * fake-backend.c: the fake backend (fake-backend.h): its operations, then
 * its table. A machine's script is played by console_read() and state():
 * each call releases what the virtual clock has reached. The console fd is
 * a pipe nobody writes to: the runner's 100 ms tick wakes the loop.
 *
 * Machines are kept in a fixed table of atomic pointers, so that
 * emergency_stop() and abandon() find them without a lock.
 */
#include "fake-backend.h"
#include "backend-impl.h"
#include "config.h"
#include "util.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct fake_stats fake_stats;
static const struct fake_script *scripts;
static size_t n_scripts;

enum { M_PREPARED, M_POWERED, M_STOPPED, M_FAILED };

struct fake_machine {
	const struct fake_script *script;
	char *name;
	atomic_int st;            /* M_* */
	atomic_bool abandoned;
	double t0;                /* host time at power-on, 0 before */
	const struct fake_step *step;   /* the next step, and how far into it */
	size_t off;
	double due;               /* virtual time the next step may run */
	int pipe[2];
	bool interrupted;         /* its SIGINT was sent */
	bool kvm;                 /* booted under an unproven KVM */
	bool again;               /* the retried attempt of a script's retry */
};

#define FAKE_MAX_MACHINES 64
static struct fake_machine *_Atomic machines[FAKE_MAX_MACHINES];

void fake_reset(const struct fake_script *s, size_t n)
{
	scripts = s;
	n_scripts = n;
	memset(&fake_stats, 0, sizeof(fake_stats));
}

/* SIGINT once, if op is the script's interrupt. */
static void maybe_interrupt(struct fake_machine *fm, const char *op)
{
	if (fm->script->interrupt && !strcmp(fm->script->interrupt, op) && !fm->interrupted) {
		fm->interrupted = true;
		kill(getpid(), SIGINT);
	}
}

/* 0, or -1 with the reason when the script refuses op or hangs in it
 * (until abandoned, or FAKE_HANG_CAP seconds). */
static int scripted_op(struct machine *m, const char *op)
{
	struct fake_machine *fm = m->priv;
	maybe_interrupt(fm, op);
	if (fm->script->refuse && !strcmp(fm->script->refuse, op) &&
	    (!fm->again || fm->script->refuse_again)) {
		snprintf(m->infra_reason, sizeof(m->infra_reason), "%s", fm->script->refusal);
		return -1;
	}
	if (fm->script->hang && !strcmp(fm->script->hang, op)) {
		double until = now_monotonic() + FAKE_HANG_CAP;
		while (!atomic_load(&fm->abandoned) && now_monotonic() < until) {
			struct timespec nap = { 0, 5 * 1000 * 1000 };
			nanosleep(&nap, NULL);
		}
		snprintf(m->infra_reason, sizeof(m->infra_reason), "fake: %s hung (%s)", op,
			 atomic_load(&fm->abandoned) ? "abandoned" : "nobody abandoned it");
		return -1;
	}
	return 0;
}

/* The machine is off (stopped by the runner or by itself, or failed):
 * counted once, its console ended. Async-signal-safe. */
static void power_down(struct fake_machine *fm, int how)
{
	int was = M_POWERED;
	if (atomic_compare_exchange_strong(&fm->st, &was, how))
		atomic_fetch_sub(&fake_stats.powered, 1);
	else if (was == M_PREPARED)
		atomic_compare_exchange_strong(&fm->st, &was, how);
}

static int fake_open(struct backend *be, const char *where)
{
	(void)where;
	be->where = xstrdup("fake");
	return 0;
}

static int fake_prepare(struct backend *be, struct machine *m, const struct machine_spec *spec)
{
	(void)be;
	unsigned long n = strtoul(spec->kernel + strlen("fake:"), NULL, 10);
	if (strncmp(spec->kernel, "fake:", 5) || n >= n_scripts) {
		snprintf(m->infra_reason, sizeof(m->infra_reason), "fake: no script for %s", spec->kernel);
		return -1;
	}
	struct fake_machine *fm = xcalloc(1, sizeof(*fm));
	fm->script = &scripts[n];
	fm->name = xstrdup(spec->name);
	fm->step = fm->script->steps;
	if (pipe2(fm->pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		die("pipe");
	size_t slot = 0;
	for (; slot < FAKE_MAX_MACHINES; slot++) {
		struct fake_machine *none = NULL;
		if (atomic_compare_exchange_strong(&machines[slot], &none, fm))
			break;
	}
	if (slot == FAKE_MAX_MACHINES)
		die("fake: more than %d machines at once", FAKE_MAX_MACHINES);
	m->priv = fm;
	atomic_fetch_add(&fake_stats.prepared, 1);
	atomic_fetch_add(&fake_stats.alive, 1);
	m->place.index = -1;
	for (int h = 0; h < FAKE_HOSTS && m->place.index < 0; h++)
		if (!spec->avoid_hosts || !spec->avoid_hosts[h])
			m->place.index = h;
	m->place.name = m->place.index == 0 ? "fake0" : "fake1";
	fm->kvm = fm->script->kvm_unproven && strcmp(spec->accel, "tcg");
	fm->again = !strcmp(spec->accel, "again");
	m->unproven = fm->kvm;
	snprintf(m->accelerator, sizeof(m->accelerator), "%s", fm->kvm ? "kvm" : "fake");
	return scripted_op(m, "prepare");
}

static int fake_power_on(struct machine *m)
{
	struct fake_machine *fm = m->priv;
	if (scripted_op(m, "power on") < 0)
		return -1;
	if (fm->script->host0_fails && m->place.index == 0) {
		snprintf(m->infra_reason, sizeof(m->infra_reason), "fake: host fake0 is down");
		return -1;
	}
	fm->t0 = now_monotonic();
	atomic_store(&fm->st, M_POWERED);
	int now = atomic_fetch_add(&fake_stats.powered, 1) + 1;
	int max = atomic_load(&fake_stats.max_powered);
	while (now > max && !atomic_compare_exchange_weak(&fake_stats.max_powered, &max, now))
		;
	return 0;
}

static int fake_console_fd(struct machine *m)
{
	return ((struct fake_machine *)m->priv)->pipe[0];
}

static double fake_clock(struct machine *m)
{
	struct fake_machine *fm = m->priv;
	return fm->t0 > 0 ? (now_monotonic() - fm->t0) * FAKE_SPEED : 0;
}

/* Plays fm's script up to the clock: bytes due into buf (their count), 0
 * when nothing is due, -1 once the console has ended. */
static ssize_t play(struct machine *m, char *buf, size_t len)
{
	struct fake_machine *fm = m->priv;
	double now = fake_clock(m);
	for (;;) {
		int st = atomic_load(&fm->st);
		if (st == M_STOPPED || st == M_FAILED)
			return -1;
		const struct fake_step *s = fm->step;
		if (!s || s->what == FAKE_SILENT || fm->kvm || now < fm->due)
			return 0;
		switch (s->what) {
		case FAKE_SILENT:
			return 0;
		case FAKE_WAIT:
			fm->due += s->seconds;
			fm->step++;
			continue;
		case FAKE_PRINT: {
			size_t all = s->len ? s->len : strlen(s->text);
			size_t n = all - fm->off < len ? all - fm->off : len;
			memcpy(buf, s->text + fm->off, n);
			fm->off += n;
			if (fm->off == all) {
				fm->off = 0;
				fm->step++;
			}
			return (ssize_t)n;
		}
		case FAKE_OFF:
			power_down(fm, M_STOPPED);
			return -1;
		case FAKE_FAIL:
			snprintf(m->infra_reason, sizeof(m->infra_reason), "%s", s->text);
			power_down(fm, M_FAILED);
			return -1;
		}
	}
}

static ssize_t fake_console_read(struct machine *m, char *buf, size_t len)
{
	maybe_interrupt(m->priv, "console");
	return play(m, buf, len);
}

static enum machine_state fake_state(struct machine *m)
{
	struct fake_machine *fm = m->priv;
	maybe_interrupt(fm, "state");
	char none[1];
	if (atomic_load(&fm->st) == M_POWERED)
		play(m, none, 0);     /* an OFF or FAIL that is due */
	switch (atomic_load(&fm->st)) {
	case M_STOPPED:
		return MACHINE_STOPPED;
	case M_FAILED:
		return MACHINE_FAILED;
	default:
		return MACHINE_RUNNING;
	}
}

static int fake_stop(struct machine *m)
{
	int rc = scripted_op(m, "stop");
	power_down(m->priv, M_STOPPED);
	return rc;
}

static void fake_release(struct machine *m)
{
	struct fake_machine *fm = m->priv;
	if (!fm)
		return;
	power_down(fm, M_STOPPED);
	for (size_t i = 0; i < FAKE_MAX_MACHINES; i++) {
		struct fake_machine *me = fm;
		if (atomic_compare_exchange_strong(&machines[i], &me, NULL))
			break;
	}
	close(fm->pipe[0]);
	close(fm->pipe[1]);
	free(fm->name);
	free(fm);
	m->priv = NULL;
	atomic_fetch_sub(&fake_stats.alive, 1);
}

static void fake_emergency_stop(struct backend *be)
{
	(void)be;
	atomic_fetch_add(&fake_stats.emergency, 1);
	for (size_t i = 0; i < FAKE_MAX_MACHINES; i++) {
		struct fake_machine *fm = atomic_load(&machines[i]);
		if (fm)
			power_down(fm, M_STOPPED);
	}
}

static void fake_abandon(struct backend *be, const char *name)
{
	(void)be;
	for (size_t i = 0; i < FAKE_MAX_MACHINES; i++) {
		struct fake_machine *fm = atomic_load(&machines[i]);
		if (fm && !strcmp(fm->name, name)) {
			atomic_store(&fm->abandoned, true);
			power_down(fm, M_STOPPED);
			atomic_fetch_add(&fake_stats.abandoned, 1);
		}
	}
}

/* The answer "boot it again", the attempt kept in keep/, the next one
 * under accel, for reason. */
static void fake_again(struct backend_retry *r, const char *keep, const char *accel,
		       const char *reason)
{
	r->answer = BACKEND_BOOT_AGAIN;
	snprintf(r->reason, sizeof(r->reason), "%s", reason);
	r->keep = keep;
	r->suffix = accel;
	r->accel = accel;
	atomic_fetch_add(&fake_stats.retries, 1);
}

/*
 * The fake's retry policy: a scripted retry of a failed start (once), and
 * the KVM-proof rule on the virtual clock (FAKE_KVM_PROOF).
 */
static void fake_retry(struct backend *be, struct machine *m, const struct machine_spec *spec,
		       const struct backend_event *ev, struct backend_retry *r)
{
	(void)be;
	const struct fake_machine *fm = m->priv;
	const struct fake_script *s = fm ? fm->script : NULL;
	char why[300];
	switch (ev->kind) {
	case BACKEND_START_FAILED:
		/* once: a runner that lost the earlier reason fails a test,
		 * it does not retry for ever */
		if (s && s->retry && !ev->earlier && !fm->again)
			fake_again(r, "attempt-retry", "again", s->retry);
		else if (s && s->retry)
			atomic_fetch_add(&fake_stats.retries_refused, 1);
		break;
	case BACKEND_UNPROVEN_TICK:     /* the KVM-proof rule, on the virtual clock */
		if (ev->t <= FAKE_KVM_PROOF)
			break;
		r->answer = BACKEND_END;
		snprintf(r->reason, sizeof(r->reason), "kvm printed no kernel output in %.0f s",
			 FAKE_KVM_PROOF);
		break;
	case BACKEND_PROVEN:
		break;
	case BACKEND_UNPROVEN_ENDED:
		snprintf(why, sizeof(why), "%s", ev->earlier ? ev->earlier : "kvm: no kernel output");
		if (strcmp(spec->accel, "kvm")) {
			fake_again(r, "attempt-kvm", "tcg", why);
			break;
		}
		r->answer = BACKEND_INFRA_ERROR;
		snprintf(r->reason, sizeof(r->reason), "%s (the kernel is not blamed)", why);
		break;
	case BACKEND_WRITING:
		if (ev->kernel_printed && !strcmp(spec->accel, "tcg"))
			atomic_fetch_add(&fake_stats.kvm_bad, 1);
		break;
	}
}

/* Another host can take the boot when one is not yet avoided. */
static bool fake_host_failed(struct backend *be, int host, const struct machine_spec *spec,
			     const char *why)
{
	(void)be, (void)why;
	atomic_fetch_add(&fake_stats.host_failures, 1);
	for (int h = 0; h < FAKE_HOSTS; h++)
		if (h != host && !spec->avoid_hosts[h])
			return true;
	return false;
}

static void fake_close(struct backend *be)
{
	fake_emergency_stop(be);
	atomic_fetch_sub(&fake_stats.emergency, 1);   /* not an emergency */
	atomic_fetch_add(&fake_stats.closed, 1);
	free(be->where);
	free(be);
}

static const struct backend_ops fake_ops = {
	.name = "fake", .accelerator = "fake", .caps = BACKEND_CAP_THREADED_OPS,
	BACKEND_OPS(fake),
	.release = fake_release, .clock = fake_clock, .abandon = fake_abandon,
	.retry = fake_retry, .host_failed = fake_host_failed,
};

struct backend *fake_backend_new(void)
{
	return backend_alloc(&fake_ops, NULL);
}
