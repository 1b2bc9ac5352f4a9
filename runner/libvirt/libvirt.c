/*
 * libvirt.c: the libvirt runner backend (see backend.h; its parts and how
 * they work together: lv.h): the backend's operations and the module's
 * entry, backend_libvirt_new().
 *
 * The file is divided into: messages; opening the hosts; a machine's
 * operations (prepare, power on, state, stop, release); the backend's
 * (a host that failed, emergency stop, close); the
 * table.
 */
#include "lv.h"
#include "backend-impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---------------------------------------------------------------- messages */

/* libvirt reports through our own messages, never on its own. */
static void silent_error(void *opaque, virErrorPtr err)
{
	(void)opaque;
	(void)err;
}

const char *lv_error(void)
{
	const char *msg = virGetLastErrorMessage();
	return msg ? msg : "unknown libvirt error";
}

int format_reason(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	size_t len = strlen(buf);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	for (char *p = buf; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return -1;
}

/* Fails open(): the reason, on one line, is printed and kept in be->error. */
#define open_failed(be, ...) \
	(format_reason((be)->error, sizeof((be)->error), __VA_ARGS__), error("%s", (be)->error))

/* ---------------------------------------------------------------- opening */

/* Is uri the embedded driver (our own root)? */
static bool embedded_uri(const char *uri)
{
	return !uri || !strcmp(uri, "qemu:///embed");
}


/* lifecycle_event (console.c) as the generic callback type that
 * virConnectDomainEventRegisterAny() takes; libvirt calls it back with its
 * own type for VIR_DOMAIN_EVENT_ID_LIFECYCLE. The cast goes through
 * void (*)(void), C's way of saying the type change is meant (clang's
 * -Wcast-function-type-mismatch rejects libvirt's direct cast,
 * VIR_DOMAIN_EVENT_CALLBACK). */
static virConnectDomainEventGenericCallback lifecycle_generic(void)
{
	return (virConnectDomainEventGenericCallback)(void (*)(void))lifecycle_event;
}

/*
 * connect_host: opens h's connection (keepalive on a daemon's, so that a
 * host gone silent is noticed), reads its capabilities and versions and
 * watches its domains' events. 0, or -1 with the reason in why: the host
 * is then unreachable and skipped (h->conn NULL). The embedded driver is
 * asked for neither capabilities nor QEMU version: both make it probe every
 * emulator on the machine (a fresh root: seconds, and QEMU processes that
 * the sanitizers' leak check at exit trips on); it boots with the target's
 * own emulator, and its qemu_version stays unknown.
 */
static int connect_host(struct lv_host *h, char *why, size_t len)
{
	const char *uri = h->uri;
	char *embed_uri = NULL;
	if (h->embed)
		uri = embed_uri = xasprintf("qemu:///embed?root=%s", h->lv->embed_root);
	h->conn = virConnectOpen(uri);
	free(embed_uri);
	const char *what = "cannot connect";
	unsigned long v = 0, lib = 0;
	if (h->conn && !h->embed && virConnectSetKeepAlive(h->conn, 5, 3) < 0)
		what = "cannot set keepalive";
	else if (h->conn && !h->embed && !(h->caps = virConnectGetCapabilities(h->conn)))
		what = "cannot read its capabilities";
	else if (h->conn && ((!h->embed && virConnectGetVersion(h->conn, &v) < 0) ||
			     virConnectGetLibVersion(h->conn, &lib) < 0))
		what = "cannot read its versions";
	else if (h->conn && (h->lifecycle_cb = virConnectDomainEventRegisterAny(
				     h->conn, NULL, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
				     lifecycle_generic(), h, NULL)) < 0)
		what = "cannot watch domain events";
	else if (h->conn) {
		if (!h->embed)
			format_version(v, h->qemu_version, sizeof(h->qemu_version));
		format_version(lib, h->libvirt_version, sizeof(h->libvirt_version));
		return 0;
	}
	snprintf(why, len, "%s to %s: %s", what, h->uri, lv_error());
	if (h->conn)
		virConnectClose(h->conn);
	h->conn = NULL;
	return -1;
}

/* A daemon's host whose pool exists already: what it holds is known
 * before the first boot is placed (choose_host()). A host without one gets
 * it on first use. */
static void know_pool(struct lv_host *h)
{
	if (h->embed)
		return;
	virStoragePoolPtr p = virStoragePoolLookupByName(h->conn, POOL_NAME);
	if (!p)
		return;
	virStoragePoolFree(p);
	char why[400];
	pthread_mutex_lock(&h->pool_lock);
	if (ensure_pool(h, why, sizeof(why)) < 0)
		warning("%s", why);
	pthread_mutex_unlock(&h->pool_lock);
}

/*
 * lv_open: the run's hosts are the constructor's (struct libvirt_options),
 * or else the one URI where (NULL:
 * the embedded driver). Every host is connected; one that cannot be is
 * reported and skipped, and open() fails only when none can.
 */
static int lv_open(struct backend *be, const char *where)
{
	struct lv_backend *lv = be->priv;
	struct backend_host one = { .name = where, .uri = where, .slots = 1 };
	const struct backend_host *list = lv->opt_n_hosts ? lv->opt_hosts : &one;
	size_t n = lv->opt_n_hosts ? lv->opt_n_hosts : 1;
	if (n > BACKEND_MAX_HOSTS)
		return open_failed(be, "too many hosts (%zu; at most %d)", n, BACKEND_MAX_HOSTS);
	struct strbuf names = STRBUF_INIT;
	strbuf_add(&names, "", 0);
	for (size_t i = 0; i < n; i++) {
		struct lv_host *h = &lv->hosts[i];
		h->lv = lv;
		h->index = (int)i;
		h->embed = embedded_uri(list[i].uri);
		h->lifecycle_cb = -1;
		pthread_mutex_init(&h->pool_lock, NULL);
		h->slots = list[i].slots > 0 ? list[i].slots : 1;
		h->pool_path = xstrdup(list[i].pool_path ? list[i].pool_path : DEFAULT_POOL_PATH);
		h->pool_max = (unsigned long long)(list[i].pool_max_mb > 0 ? list[i].pool_max_mb
						   : DEFAULT_POOL_MAX_MB) << 20;
		lv->n_hosts = i + 1;
		if (h->embed && !lv->embed_root) {
			lv->embed_root = claim_embed_root(&lv->slot_lock_fd);
			if (!lv->embed_root || write_qemu_conf(lv->embed_root) < 0) {
				strbuf_release(&names);
				return open_failed(be, "cannot set up the embedded libvirt root");
			}
		} else if (h->embed) {
			strbuf_release(&names);
			return open_failed(be, "the embedded driver can be only one of the hosts");
		}
		h->uri = h->embed ? xasprintf("qemu:///embed?root=%s", lv->embed_root)
			 : xstrdup(list[i].uri);
		h->name = xstrdup(list[i].name ? list[i].name : h->embed ? "embed" : h->uri);
		strbuf_addf(&names, "%s%s", i ? "," : "", n > 1 ? h->name : h->uri);
	}
	be->where = names.buf;
	/* Before libvirt starts any thread: the guardian is a fork. */
	start_guardian(lv);
	/* Libvirt daemonizes QEMU: it would become init's child, and a dead
	 * QEMU stays a zombie until init reaps it (seconds on some hosts), all
	 * that time libvirt waits for it to go. As a subreaper, bootrig gets
	 * its QEMUs as children and reaps them itself (reap_qemu()). */
	if (lv->embed_root && prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		warning("cannot become a subreaper: %s", strerror(errno));
	/* Where libvirt's own log goes is set before it is initialized: see
	 * route_libvirt_log() in cmd-run.c. */
	virSetErrorFunc(NULL, silent_error);
	if (virInitialize() < 0 || virEventRegisterDefaultImpl() < 0)
		return open_failed(be, "cannot initialize libvirt: %s", lv_error());
	virEventAddTimeout(200, tick, lv, NULL);
	virEventAddTimeout(CONSOLE_TICK_MS, console_tick, lv, NULL);
	if (pthread_create(&lv->thread, NULL, event_thread, lv) != 0)
		return open_failed(be, "cannot start the libvirt event thread");
	lv->thread_running = true;
	size_t reachable = 0;
	for (size_t i = 0; i < lv->n_hosts; i++) {
		struct lv_host *h = &lv->hosts[i];
		char why[400];
		if (connect_host(h, why, sizeof(why)) == 0) {
			reachable++;
			know_pool(h);
		} else if (lv->n_hosts == 1)
			return open_failed(be, "%s", why);
		else
			error("host %s is unreachable, skipped for this run: %s", h->name, why);
	}
	if (!reachable)
		return open_failed(be, "no host of the %zu given is reachable", lv->n_hosts);
	return 0;
}

/* ---------------------------------------------------------------- a machine */

/* Registers m for event lookups; -1 when MAX_MACHINES run at once. */
static int register_machine(struct lv_backend *lv, struct lv_machine *m)
{
	pthread_mutex_lock(&lv->lock);
	for (int i = 0; i < MAX_MACHINES; i++) {
		if (!lv->machines[i]) {
			lv->machines[i] = m;
			pthread_mutex_unlock(&lv->lock);
			return 0;
		}
	}
	pthread_mutex_unlock(&lv->lock);
	return -1;
}

static void unregister_machine(struct lv_backend *lv, struct lv_machine *m)
{
	pthread_mutex_lock(&lv->lock);
	for (int i = 0; i < MAX_MACHINES; i++) {
		if (lv->machines[i] == m) {
			lv->machines[i] = NULL;
			lv->pids[i] = 0;
		}
	}
	pthread_mutex_unlock(&lv->lock);
}

/* The serial <log> file of the embedded driver, in its root: its live
 * console (read_serial_log()); a daemon's host gets none here (its log
 * is a volume, make_log_volume()). */
static char *serial_log_path(const struct lv_host *h, const struct machine_spec *spec)
{
	if (!h->embed)
		return NULL;
	return xasprintf("%s/log/%s.serial", h->lv->embed_root, spec->name);
}

static int lv_prepare(struct backend *be, struct machine *mach, const struct machine_spec *spec)
{
	struct lv_backend *lv = be->priv;
	reap_graveyard(lv, GRAVE_AGE);
	struct lv_machine *m = xcalloc(1, sizeof(*m));
	mach->backend = be;
	mach->priv = m;
	mach->place.index = -1;
	m->lv = lv;
	m->log_fd = -1;
	pthread_mutex_init(&m->lock, NULL);
	m->name = xstrdup(spec->name);
	m->state = MACHINE_RUNNING;
	const char *cut = getenv("BOOTRIG_FAULT_STREAM_CUT");
	m->cut_after = cut && *cut ? atoll(cut) : -1;
	char *names[3];
	volume_names(lv, spec, names);
	struct lv_host *h = choose_host(lv, spec, names, mach->infra_reason,
					sizeof(mach->infra_reason));
	free(names[0]), free(names[1]), free(names[2]);
	if (!h)
		return -1;
	m->host = h;
	mach->place = (struct machine_place){
		.index = h->index, .name = h->name, .uri = h->uri,
		.facts = { { "qemu_version", *h->qemu_version ? h->qemu_version : NULL },
			   { "libvirt_version", h->libvirt_version } },
	};
	int kvm = choose_accel(h, spec, mach);
	if (kvm < 0)
		return -1;
	snprintf(mach->clock, sizeof(mach->clock), "%s", !kvm && spec->icount ? "icount" : "wall");
	if (h->embed) {
		char *dir = xasprintf("%s/log", lv->embed_root);
		mkdir_p(dir, 0755);
		free(dir);
	}
	struct machine_spec there = *spec;
	char *paths[3] = { NULL, NULL, NULL };
	char *emulator = h->embed ? NULL : host_emulator(h, spec->target);
	m->serial_log = serial_log_path(h, spec);
	char *log_there = h->embed ? NULL : make_log_volume(h, m, mach->infra_reason,
							     sizeof(mach->infra_reason));
	if ((h->embed || log_there) && stage_files(h, mach, &there, paths) == 0)
		m->xml = domain_xml(&there, kvm, emulator ? emulator : spec->target->emulator,
				    h->embed ? m->serial_log : log_there, mach->infra_reason,
				    sizeof(mach->infra_reason));
	free(paths[0]), free(paths[1]), free(paths[2]), free(emulator), free(log_there);
	if (!m->xml)
		return -1;
	char *xml_path = xasprintf("%s/domain.xml", spec->dir);
	int rc = write_file_atomic(xml_path, m->xml, strlen(m->xml));
	free(xml_path);
	if (rc < 0) {
		set_reason(mach, "cannot write domain.xml");
		return -1;
	}
	if (!(m->queue = console_queue_new(0)) || register_machine(lv, m) < 0) {
		set_reason(mach, "too many machines at once");
		return -1;
	}
	return 0;
}

/*
 * lv_power_on: create the domain paused, attach the console (the serial
 * log, or a daemon's console stream: attach_console()), then resume: the
 * console is there before the first instruction runs, so no console byte
 * is lost. With a daemon's URI, AUTODESTROY ends the domain
 * if our connection closes; the embedded driver does not support it (and
 * dies with us anyway): there the guardian kills QEMU.
 */
static int lv_power_on(struct machine *mach)
{
	struct lv_machine *m = mach->priv;
	struct lv_backend *lv = m->lv;
	struct lv_host *h = m->host;
	unsigned flags = VIR_DOMAIN_START_PAUSED | (h->embed ? 0 : VIR_DOMAIN_START_AUTODESTROY);
	if (m->serial_log)
		unlink(m->serial_log);    /* QEMU appends: a stale file's bytes are not this boot's */
	m->dom = virDomainCreateXML(h->conn, m->xml, flags);
	if (!m->dom) {
		set_reason(mach, "cannot start %s%s%s: %s", m->name, h->embed ? "" : " on host ",
			   h->embed ? "" : h->name, lv_error());
		return -1;
	}
	m->started = true;
	remember_pid(lv, m);
	if (attach_console(mach) < 0)
		return -1;
	if (virDomainResume(m->dom) < 0) {
		set_reason(mach, "cannot resume %s: %s", m->name, lv_error());
		return -1;
	}
	return 0;
}

/* The domain's state, asking libvirt too: a dead connection is a failure. */
static enum machine_state lv_state(struct machine *mach)
{
	struct lv_machine *m = mach->priv;
	reap_qemu(m, false);
	pthread_mutex_lock(&m->lock);
	enum machine_state s = m->state;
	if (s == MACHINE_FAILED)
		set_reason(mach, "%s", m->reason);
	pthread_mutex_unlock(&m->lock);
	if (s == MACHINE_RUNNING && m->host->conn && virConnectIsAlive(m->host->conn) == 0) {
		set_reason(mach, "the libvirt connection to %s was lost", m->host->uri);
		s = MACHINE_FAILED;
	}
	return s;
}

/*
 * lv_stop: the boot is decided. The console is detached first (the domain
 * still runs: safe, see detach_console()); then, nothing in the guest
 * being worth an orderly exit, our own QEMU gets SIGKILL (virDomainDestroy
 * sends SIGTERM and polls every 200 ms, and a busy TCG QEMU can take
 * seconds to go) and libvirt cleans up after it.
 */
static int lv_stop(struct machine *mach)
{
	struct lv_machine *m = mach->priv;
	pthread_mutex_lock(&m->lock);
	bool already = m->stop_requested;
	bool running = m->state == MACHINE_RUNNING;
	m->stop_requested = true;
	pthread_mutex_unlock(&m->lock);
	if (already || !m->dom)
		return 0;
	if (running) {
		detach_console(m, true);
		if (m->qemu_pid > 0 && m->host->embed && kill(m->qemu_pid, SIGKILL) == 0)
			reap_qemu(m, true);
	}
	if (virDomainDestroy(m->dom) < 0 && virDomainIsActive(m->dom) == 1) {
		set_reason(mach, "cannot destroy %s: %s", m->name, lv_error());
		if (m->qemu_pid > 0 && running)
			kill(m->qemu_pid, SIGKILL);
		return -1;
	}
	return 0;
}

static void lv_release(struct machine *mach)
{
	struct lv_machine *m = mach->priv;
	if (!m)
		return;
	lv_stop(mach);
	reap_qemu(m, false);
	unregister_machine(m->lv, m);
	detach_console(m, false);
	if (m->dom)
		virDomainFree(m->dom);
	if (m->serial_log)
		unlink(m->serial_log);
	if (m->log_volume && !m->log_fetched && m->host->pool) {    /* never fetched */
		virStorageVolPtr vol = virStorageVolLookupByName(m->host->pool, m->log_volume);
		if (vol)
			virStorageVolDelete(vol, 0), virStorageVolFree(vol);
	}
	if (m->host) {
		pthread_mutex_lock(&m->lv->lock);
		m->host->running--;
		pthread_mutex_unlock(&m->lv->lock);
	}
	if (m->log_fd >= 0)
		close(m->log_fd);
	free(m->serial_log), free(m->log_volume), free(m->xml), free(m->name);
	m->serial_log = m->log_volume = m->xml = m->name = NULL;
	mach->priv = NULL;
	if (m->callback_added && !atomic_load(&m->callback_gone)) {
		/* detach_console()'s wait ran out (a loaded host): libvirt's
		 * event thread will still call stream_callback_gone(m). */
		pthread_mutex_lock(&m->lv->lock);
		m->limbo_next = m->lv->limbo;
		m->lv->limbo = m;
		pthread_mutex_unlock(&m->lv->lock);
		return;
	}
	console_queue_free(m->queue);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/* ---------------------------------------------------------------- the backend */

/*
 * lv_host_failed: host failed a boot of spec (why). A host whose
 * connection is gone, or that failed HOST_MAX_FAILURES boots, is taken out
 * of the run, with a message. True when another host, not in
 * spec->avoid_hosts, can boot spec's target. A run of one host has no
 * other: its failures are the boot's INFRA_ERROR, as they always were.
 */
static bool lv_host_failed(struct backend *be, int host, const struct machine_spec *spec,
			   const char *why)
{
	struct lv_backend *lv = be->priv;
	if (host < 0 || (size_t)host >= lv->n_hosts)
		return false;
	if (lv->n_hosts == 1)
		return false;
	struct lv_host *h = &lv->hosts[host];
	bool dead = h->conn && virConnectIsAlive(h->conn) == 0;
	pthread_mutex_lock(&lv->lock);
	h->failures++;
	bool take_out = !h->out && (dead || h->failures >= HOST_MAX_FAILURES);
	if (take_out)
		h->out = true;
	bool other = false;
	for (size_t i = 0; i < lv->n_hosts && !other; i++) {
		const struct lv_host *o = &lv->hosts[i];
		other = (int)i != host && o->conn && !o->out &&
			!(spec->avoid_hosts && spec->avoid_hosts[i]) &&
			host_can_boot(o, spec->target, NULL, 0);
	}
	pthread_mutex_unlock(&lv->lock);
	if (take_out)
		error("host %s (%s) is taken out of the run after %d failure%s: %s", h->name, h->uri,
		      h->failures, h->failures == 1 ? "" : "s", why);
	return other;
}

static const char *lv_console_log_file(struct machine *mach)
{
	struct lv_machine *m = mach->priv;
	if (m)
		fetch_log_volume(m);
	return m ? m->serial_log : NULL;
}

/* Only the embedded driver's QEMUs are ours to kill; a daemon's domains
 * were started with autodestroy, so our connection's end (even at a
 * crash) ends them. */
/* Async-signal-safe: the QEMUs whose pids we know, every QEMU named for
 * this run (one still starting has no pid file yet), and every child of
 * ours but the guardian (a launcher stuck between fork and exec, what a
 * stand-in emulator became). */
static void lv_emergency_stop(struct backend *be)
{
	struct lv_backend *lv = be->priv;
	for (int i = 0; i < MAX_MACHINES; i++)
		if (lv->pids[i] > 0)
			kill((pid_t)lv->pids[i], SIGKILL);
	char mark[64];
	snprintf(mark, sizeof(mark), "guest=bootrig-%ld-", (long)getpid());
	kill_marked(mark);
	kill_children(lv->guardian, NULL, NULL);
}

/* A machine whose operation is stuck: its QEMU (by its name, in QEMU's
 * command line) and every child of ours that is not another boot's QEMU
 * (a launcher stuck before exec, a stand-in emulator); takes no lock. */
static void lv_abandon(struct backend *be, const char *name)
{
	struct lv_backend *lv = be->priv;
	char mine[160], others[64];
	snprintf(mine, sizeof(mine), "guest=%.120s,", name);
	snprintf(others, sizeof(others), "guest=bootrig-%ld-", (long)getpid());
	kill_marked(mine);
	kill_children(lv->guardian, others, mine);
}

static void lv_close(struct backend *be)
{
	struct lv_backend *lv = be->priv;
	reap_graveyard(lv, -1);
	reap_strays(lv);
	for (size_t i = 0; i < lv->n_hosts; i++) {
		struct lv_host *h = &lv->hosts[i];
		if (h->conn) {
			if (h->lifecycle_cb >= 0)
				virConnectDomainEventDeregisterAny(h->conn, h->lifecycle_cb);
			if (h->pool)
				virStoragePoolFree(h->pool);
			virConnectClose(h->conn);
		}
	}
	if (lv->thread_running) {
		atomic_store(&lv->quit, true);
		pthread_join(lv->thread, NULL);
	}
	while (lv->limbo) {        /* no event thread now: nothing calls them */
		struct lv_machine *m = lv->limbo;
		lv->limbo = m->limbo_next;
		console_queue_free(m->queue);
		pthread_mutex_destroy(&m->lock);
		free(m);
	}
	if (lv->guardian_fd >= 0) {
		if (write(lv->guardian_fd, "q", 1) != 1)
			warning("guardian: %s", strerror(errno));
		close(lv->guardian_fd);
	}
	if (lv->guardian > 0)
		waitpid(lv->guardian, NULL, 0);
	if (lv->slot_lock_fd >= 0)
		close(lv->slot_lock_fd);
	for (size_t i = 0; i < lv->n_hosts; i++) {
		struct lv_host *h = &lv->hosts[i];
		for (size_t k = 0; k < h->n_staged; k++)
			free(h->staged[k]);
		for (size_t k = 0; k < h->n_present; k++)
			free(h->present[k]);
		free(h->staged), free(h->present), free(h->caps), free(h->pool_path);
		free(h->name), free(h->uri);
		pthread_mutex_destroy(&h->pool_lock);
	}
	for (size_t i = 0; i < lv->n_shas; i++)
		free(lv->shas[i].path), free(lv->shas[i].stamp);
	free(lv->shas);
	pthread_mutex_destroy(&lv->lock);
	pthread_mutex_destroy(&lv->grave_lock);
	free(lv->embed_root), free(lv);
	free(be->where), free(be);
}

/* ---------------------------------------------------------------- the table */

/* A boot's own files that belong to one attempt: kept with it when the
 * boot is booted again (attempt-kvm/, attempt-<k>/). */
static const char *const lv_attempt_files[] = { "domain.xml", NULL };

static const struct backend_ops lv_ops = {
	.name = "libvirt", .accelerator = "tcg",
	.caps = BACKEND_CAP_WHERE_IS_URI | BACKEND_CAP_THREADED_OPS,
	.attempt_files = lv_attempt_files,
	BACKEND_OPS(lv),
	.abandon = lv_abandon,
	.release = lv_release, .console_log_file = lv_console_log_file,
	.retry = lv_retry, .host_failed = lv_host_failed,
};

/*
 * backend_libvirt_new: the libvirt backend, not yet connected (open()).
 * The caller's machine functions reach it through backend.h's table.
 */
struct backend *backend_libvirt_new(const struct libvirt_options *o)
{
	struct lv_backend *lv = xcalloc(1, sizeof(*lv));
	if (o && o->n_hosts) {
		lv->opt_hosts = o->hosts;
		lv->opt_n_hosts = o->n_hosts;
	}
	pthread_mutex_init(&lv->lock, NULL);
	pthread_mutex_init(&lv->grave_lock, NULL);
	lv->slot_lock_fd = -1;
	lv->guardian = -1;
	lv->guardian_fd = -1;
	return backend_alloc(&lv_ops, lv);
}
