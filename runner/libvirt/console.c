/*
 * console.c: the libvirt backend's event thread and consoles (lv.h). The
 * event thread runs libvirt's event loop: a daemon's console stream's
 * bytes go to the machine's queue, the domains' lifecycle events to its
 * state, and either wakes the runner's poll() through the machine's pipe;
 * an embedded machine's console is its serial log, read as it grows.
 *
 * The file is divided into: the event thread and its callbacks; the
 * console's operations; detaching a stream (and its graveyard).
 */
#include "lv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- events */

void *event_thread(void *arg)
{
	struct lv_backend *lv = arg;
	while (!atomic_load(&lv->quit))
		if (virEventRunDefaultImpl() < 0)
			warning("libvirt event loop: %s", lv_error());
	return NULL;
}

/* A timer that wakes the event loop regularly, so the thread sees quit;
 * it also reaps what libvirt's daemonized QEMUs leave (reap_strays()),
 * even while the runner's thread waits inside libvirt. */
void tick(int timer, void *opaque)
{
	(void)timer;
	reap_strays(opaque);
}

/* Wakes the runner's poll(); called with m->lock held. */
static void wake_runner(struct lv_machine *m)
{
	char c = 1;
	if (write(m->wake[1], &c, 1) < 0 && errno != EAGAIN)
		warning("%s: wake pipe: %s", m->name, strerror(errno));
}

/* Event thread: console bytes are waiting on the stream. */
static void stream_event(virStreamPtr st, int events, void *opaque)
{
	struct lv_machine *m = opaque;
	char buf[16384];
	pthread_mutex_lock(&m->lock);
	bool closed = (events & (VIR_STREAM_EVENT_ERROR | VIR_STREAM_EVENT_HANGUP)) != 0;
	for (;;) {
		int n = virStreamRecv(st, buf, sizeof(buf));
		if (n > 0) {
			size_t keep = (size_t)n;
			if (m->cut_after >= 0) {
				unsigned long long left = (unsigned long long)m->cut_after;
				left = m->streamed < left ? left - m->streamed : 0;
				keep = left < keep ? (size_t)left : keep;
			}
			m->streamed += (unsigned long long)n;
			strbuf_add(&m->queue, buf, keep);
			continue;
		}
		if (n != -2)        /* 0: end of stream; -1: error */
			closed = true;
		break;
	}
	if (closed && !m->stream_closed) {
		m->stream_closed = true;
		virStreamEventRemoveCallback(st);
	}
	wake_runner(m);
	pthread_mutex_unlock(&m->lock);
}

/* Event thread, every CONSOLE_TICK_MS: wakes the runner for each embedded
 * machine whose serial log grew. */
void console_tick(int timer, void *opaque)
{
	(void)timer;
	struct lv_backend *lv = opaque;
	pthread_mutex_lock(&lv->lock);
	for (int i = 0; i < MAX_MACHINES; i++) {
		struct lv_machine *m = lv->machines[i];
		if (!m)
			continue;
		pthread_mutex_lock(&m->lock);
		struct stat st;
		if (m->log_fd >= 0 && fstat(m->log_fd, &st) == 0 && st.st_size > m->log_seen) {
			m->log_seen = st.st_size;
			wake_runner(m);
		}
		pthread_mutex_unlock(&m->lock);
	}
	pthread_mutex_unlock(&lv->lock);
}

/* Event thread: libvirt dropped the stream callback for good (it will not
 * run again), so the machine may be freed. */
static void stream_callback_gone(void *opaque)
{
	struct lv_machine *m = opaque;
	atomic_store(&m->callback_gone, true);
}

static struct lv_machine *find_machine(struct lv_backend *lv, const char *name)
{
	for (int i = 0; i < MAX_MACHINES; i++)
		if (lv->machines[i] && !strcmp(lv->machines[i]->name, name))
			return lv->machines[i];
	return NULL;
}

/*
 * Event thread: a domain started, stopped or crashed. Stopping on its own
 * (powered off, reset with on_reboot=destroy, guest crash) is the guest's
 * doing; STOPPED_FAILED (QEMU died without a shutdown: killed, or crashed
 * itself) is the host's.
 */
int lifecycle_event(virConnectPtr conn, virDomainPtr dom, int event, int detail,
			   void *opaque)
{
	(void)conn;
	struct lv_host *h = opaque;
	struct lv_backend *lv = h->lv;
	if (event != VIR_DOMAIN_EVENT_STOPPED && event != VIR_DOMAIN_EVENT_CRASHED)
		return 0;
	pthread_mutex_lock(&lv->lock);
	struct lv_machine *m = find_machine(lv, virDomainGetName(dom));
	if (m) {
		pthread_mutex_lock(&m->lock);
		if (m->state == MACHINE_RUNNING && !m->stop_requested) {
			if (event == VIR_DOMAIN_EVENT_STOPPED && detail == VIR_DOMAIN_EVENT_STOPPED_FAILED) {
				m->state = MACHINE_FAILED;
				snprintf(m->reason, sizeof(m->reason),
					 "QEMU exited without a shutdown (killed, or it crashed)");
			} else if (event == VIR_DOMAIN_EVENT_STOPPED &&
				   detail == VIR_DOMAIN_EVENT_STOPPED_DESTROYED) {
				m->state = MACHINE_FAILED;
				snprintf(m->reason, sizeof(m->reason),
					 "the domain was destroyed by someone else");
			} else {
				m->state = MACHINE_STOPPED;
			}
		}
		wake_runner(m);
		pthread_mutex_unlock(&m->lock);
	}
	pthread_mutex_unlock(&lv->lock);
	return 0;
}

/* ---------------------------------------------------------------- the console */

int attach_console(struct machine *mach)
{
	struct lv_machine *m = mach->priv;
	if (m->host->embed) {
		/* the console is the serial log, from its first byte (paused) */
		int fd = m->serial_log ? open(m->serial_log, O_RDONLY | O_CLOEXEC) : -1;
		if (fd < 0)
			return set_reason(mach, "%s: cannot read the serial log %s: %s", m->name,
					  m->serial_log ? m->serial_log : "(none)", strerror(errno));
		pthread_mutex_lock(&m->lock);
		m->log_fd = fd;
		pthread_mutex_unlock(&m->lock);
		return 0;
	}
	m->stream = virStreamNew(m->host->conn, VIR_STREAM_NONBLOCK);
	if (!m->stream || virDomainOpenConsole(m->dom, NULL, m->stream, VIR_DOMAIN_CONSOLE_FORCE) < 0 ||
	    virStreamEventAddCallback(m->stream, VIR_STREAM_EVENT_READABLE | VIR_STREAM_EVENT_ERROR |
				      VIR_STREAM_EVENT_HANGUP, stream_event, m,
				      stream_callback_gone) < 0)
		return set_reason(mach, "%s: cannot open the console: %s", m->name, lv_error());
	m->callback_added = true;
	return 0;
}

int lv_console_fd(struct machine *mach)
{
	struct lv_machine *m = mach->priv;
	return m->wake[0];
}

/* The embedded driver's console: the serial log's new bytes; it has ended
 * (-1) once QEMU has and every byte is read. */
static ssize_t read_serial_log(struct lv_machine *m, char *buf, size_t len)
{
	pthread_mutex_lock(&m->lock);
	bool ended = m->state != MACHINE_RUNNING || m->stop_requested;
	pid_t pid = ended ? 0 : m->qemu_pid;    /* reap_qemu() only runs after stop_requested */
	pthread_mutex_unlock(&m->lock);
	/* decided before the read: what QEMU wrote before it exited is there */
	ended = ended || (pid > 0 && qemu_gone(pid));
	ssize_t n;
	do
		n = read(m->log_fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		return n;
	if (n < 0)
		warning("%s: reading the serial log: %s", m->name, strerror(errno));
	return n < 0 || ended ? -1 : 0;
}

ssize_t lv_console_read(struct machine *mach, char *buf, size_t len)
{
	struct lv_machine *m = mach->priv;
	char drain[256];
	while (read(m->wake[0], drain, sizeof(drain)) > 0)
		;
	if (m->log_fd >= 0)
		return read_serial_log(m, buf, len);
	pthread_mutex_lock(&m->lock);
	size_t n = m->queue.len < len ? m->queue.len : len;
	ssize_t rc = (ssize_t)n;
	if (n) {
		memcpy(buf, m->queue.buf, n);
		memmove(m->queue.buf, m->queue.buf + n, m->queue.len - n + 1);
		m->queue.len -= n;
		if (m->queue.len)
			wake_runner(m);    /* more waits: poll() must see it */
	} else if (m->stream_closed) {
		rc = -1;
	}
	pthread_mutex_unlock(&m->lock);
	return rc;
}

/* ---------------------------------------------------------------- detaching */

/* Aborts and frees the buried streams older than min_age seconds; with
 * min_age < 0, all of them, first waiting until the youngest is GRAVE_AGE
 * old (at close: the connection, and with it the embedded driver, can
 * then end before bootrig does). */
void reap_graveyard(struct lv_backend *lv, double min_age)
{
	pthread_mutex_lock(&lv->grave_lock);
	double youngest = 0;
	for (int i = 0; i < MAX_MACHINES; i++)
		if (lv->graveyard[i] && lv->buried_at[i] > youngest)
			youngest = lv->buried_at[i];
	if (min_age < 0 && youngest > 0) {
		double wait = youngest + GRAVE_AGE - now_monotonic();
		if (wait > 0)
			usleep((useconds_t)(wait * 1e6));
	}
	double now = now_monotonic();
	for (int i = 0; i < MAX_MACHINES; i++) {
		if (!lv->graveyard[i] || (min_age >= 0 && now - lv->buried_at[i] < min_age))
			continue;
		virStreamAbort(lv->graveyard[i]);
		virStreamFree(lv->graveyard[i]);
		lv->graveyard[i] = NULL;
	}
	pthread_mutex_unlock(&lv->grave_lock);
}

/* Buries stream (see detach_console()). */
static void bury_stream(struct lv_backend *lv, virStreamPtr stream)
{
	for (;;) {
		pthread_mutex_lock(&lv->grave_lock);
		for (int i = 0; i < MAX_MACHINES; i++) {
			if (!lv->graveyard[i]) {
				lv->graveyard[i] = stream;
				lv->buried_at[i] = now_monotonic();
				pthread_mutex_unlock(&lv->grave_lock);
				return;
			}
		}
		pthread_mutex_unlock(&lv->grave_lock);
		reap_graveyard(lv, -1);   /* full: make room */
	}
}

/*
 * detach_console: stop reading m's console stream. Aborting a console
 * stream while libvirt tears the domain down deadlocks inside libvirt
 * (the stream's lock, then the domain's console lock, against the
 * opposite order in the teardown). So the stream is aborted at once only
 * while the domain still runs (we are about to destroy it); the stream of
 * a domain that ended on its own is buried and aborted a few seconds
 * later (reap_graveyard()).
 */
void detach_console(struct lv_machine *m, bool domain_running)
{
	if (!m->stream)
		return;
	pthread_mutex_lock(&m->lock);
	if (!m->stream_closed)
		virStreamEventRemoveCallback(m->stream);
	m->stream_closed = true;
	pthread_mutex_unlock(&m->lock);
	/* The event thread may be about to run stream_event() for m: wait
	 * (bounded) until libvirt says the callback is gone. */
	for (int i = 0; m->callback_added && !atomic_load(&m->callback_gone) && i < 2000; i++)
		usleep(1000);
	if (domain_running) {
		virStreamAbort(m->stream);
		virStreamFree(m->stream);
	} else {
		bury_stream(m->lv, m->stream);
	}
	m->stream = NULL;
}
