/*
 * console.c: the libvirt backend's event thread and consoles (lv.h). The
 * event thread runs libvirt's event loop: a daemon's console stream's
 * bytes go to the machine's console queue (console-queue.h), the domains'
 * lifecycle events to its state (and wake the runner's poll() through the
 * queue); an embedded machine's console is its serial log, which the
 * event thread reads as it grows into the same queue.
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

/* Event thread: console bytes are waiting on the stream. */
static void stream_event(virStreamPtr st, int events, void *opaque)
{
	struct lv_machine *m = opaque;
	char buf[16384];
	pthread_mutex_lock(&m->lock);
	bool closed = (events & (VIR_STREAM_EVENT_ERROR | VIR_STREAM_EVENT_HANGUP)) != 0;
	bool broke = (events & VIR_STREAM_EVENT_ERROR) != 0;
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
			console_queue_append(m->queue, buf, keep, CONSOLE_NO_STAMP);
			continue;
		}
		if (n != -2)        /* 0: end of stream; -1: error */
			closed = true;
		broke |= n == -1;
		break;
	}
	if (closed && !m->stream_closed) {
		m->stream_closed = true;
		virStreamEventRemoveCallback(st);
	}
	if (closed)
		console_queue_close(m->queue, broke ? CONSOLE_ERROR : CONSOLE_EOF);
	pthread_mutex_unlock(&m->lock);
}

/*
 * Event thread (lv->lock held): the embedded machine m's serial log's new
 * bytes into its console queue, while fewer than SERIAL_LOG_QUEUED wait
 * (the file keeps the rest for the next tick); the queue's end once QEMU
 * has ended (pid: its QEMU, lv->pids) and every byte is read.
 */
static void feed_serial_log(struct lv_machine *m, pid_t pid)
{
	pthread_mutex_lock(&m->lock);
	int fd = m->log_fd;
	bool ended = m->state != MACHINE_RUNNING || m->stop_requested;
	pthread_mutex_unlock(&m->lock);
	if (fd < 0 || console_queue_end(m->queue) != CONSOLE_OPEN)
		return;
	/* decided before the read: what QEMU wrote before it exited is there */
	ended = ended || (pid > 0 && qemu_gone(pid));
	char buf[16384];
	ssize_t n = 1;
	while (console_queue_len(m->queue) < SERIAL_LOG_QUEUED) {
		do
			n = read(fd, buf, sizeof(buf));
		while (n < 0 && errno == EINTR);
		if (n <= 0)
			break;
		console_queue_append(m->queue, buf, (size_t)n, CONSOLE_NO_STAMP);
	}
	if (n < 0) {
		warning("%s: reading the serial log: %s", m->name, strerror(errno));
		console_queue_close(m->queue, CONSOLE_ERROR);
	} else if (n == 0 && ended) {
		console_queue_close(m->queue, CONSOLE_EOF);
	}
}

/* Event thread, every CONSOLE_TICK_MS: feeds each embedded machine's
 * console from its serial log. */
void console_tick(int timer, void *opaque)
{
	(void)timer;
	struct lv_backend *lv = opaque;
	pthread_mutex_lock(&lv->lock);
	for (int i = 0; i < MAX_MACHINES; i++)
		if (lv->machines[i])
			feed_serial_log(lv->machines[i], (pid_t)lv->pids[i]);
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
		console_queue_wake(m->queue);    /* the runner looks at state() */
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
	return console_queue_fd(m->queue);
}

ssize_t lv_console_read(struct machine *mach, char *buf, size_t len)
{
	struct lv_machine *m = mach->priv;
	return console_queue_read(m->queue, buf, len, NULL);
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
	console_queue_close(m->queue, CONSOLE_STOPPED);
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
