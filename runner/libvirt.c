/*
 * libvirt.c: the libvirt runner backend (see backend.h).
 *
 * One connection per host, kept open for the whole run; hosts are
 * --connect URIs (repeatable) or the config's hosts = ( ... ), and without
 * either the one host is the embedded QEMU driver (qemu:///embed?root=DIR),
 * which needs no daemon: the driver lives in this process, so an event
 * loop must run for as long as the connection does. A thread runs
 * libvirt's default event loop for every connection; it receives a
 * daemon's console streams' bytes (virDomainOpenConsole: the console comes
 * over libvirt's own protocol; the serial port's log file, a volume on the
 * daemon's host, is fetched through libvirt after the domain to complete a
 * stream that lost the end) and the domains' lifecycle events, and hands
 * them to the runner's thread through a mutex-protected queue per machine
 * and a pipe that poll() sees. The embedded driver's console is its serial
 * log file, written by QEMU itself and read as it grows (console_tick()):
 * no stream, so no wake-up per byte and no bytes lost in the pty when QEMU
 * exits.
 *
 * A daemon's host gets the boot's files through libvirt too: a directory
 * storage pool of ours ("bootrig"), one volume per file content
 * ("<sha256>.kernel", ".initrd", ".dtb"), uploaded once over a virStream
 * and reused by later boots and runs, pruned least-recently-used under a
 * size cap. The embedded driver reads the local files as they are.
 *
 * Each boot goes to a host whose capabilities have the target's arch and
 * machine, with a free slot first, then the one holding its files, then
 * the least busy (better_place()); a host that fails the boot is avoided
 * by its next attempt, and one that keeps failing is taken out of the run
 * (lv_host_failed()).
 *
 * The file is divided into:
 *   - the embedded root (a locked slot under the cache, with qemu.conf);
 *   - hosts: capabilities, versions, choosing one;
 *   - the accelerator rule (KVM only once a real boot proved it, per host);
 *   - the storage pool and uploads;
 *   - the guardian (a child process that kills our QEMUs if we die);
 *   - the event thread and its callbacks;
 *   - domain XML;
 *   - the backend operations.
 */
#include "backend.h"
#include "config.h"
#include "exitcodes.h"
#include "sha256.h"
#include "util.h"

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_MACHINES 256
/* How often the event thread looks whether an embedded machine's serial
 * log grew (console_tick()): the live console's granularity. */
#define CONSOLE_TICK_MS 20
/* Console streams buried this long ago are safe to abort (libvirt frees
 * the domain's console bookkeeping milliseconds after the domain ended;
 * see detach_console()). */
#define GRAVE_AGE 1.0
/* A host that failed this many boots is taken out of the run. */
#define HOST_MAX_FAILURES 2
#define POOL_NAME "bootrig"
#define DEFAULT_POOL_PATH "/var/lib/bootrig/pool"
#define DEFAULT_POOL_MAX_MB 4096

/* The state of one domain, shared by the runner's thread and the event
 * thread under lock. */
struct lv_machine {
	struct lv_backend *lv;
	pthread_mutex_t lock;
	char *name;
	char *xml;
	struct lv_host *host;      /* where it runs (NULL until chosen) */
	char *serial_log;          /* the serial port's <log> as read here: the embedded
				    * driver's file, or a daemon's log volume once fetched */
	char *log_volume;          /* a daemon's host: the log's volume in our pool */
	bool log_fetched;
	/* TEST ONLY: BOOTRIG_FAULT_STREAM_CUT=N drops every stream byte past
	 * the first N, as a loaded daemon's stream was seen to lose the end
	 * (-1: no fault); streamed counts the bytes the stream gave. */
	long long cut_after;
	unsigned long long streamed;
	virDomainPtr dom;
	virStreamPtr stream;
	int wake[2];               /* event thread -> runner: bytes or a state change */
	struct strbuf queue;       /* console bytes not yet read by the runner */
	bool stream_closed;
	int log_fd;                /* the embedded driver: serial_log, read as the console
				    * (-1: the console is the stream) */
	off_t log_seen;            /* its size when the runner was last woken for it */
	bool callback_added;
	atomic_bool callback_gone;  /* libvirt let go of the stream callback */
	bool started, stop_requested;
	enum machine_state state;
	pid_t qemu_pid;
	char reason[256];          /* set by the event thread when the domain failed */
	struct lv_machine *limbo_next;  /* on lv->limbo (lv_release()) */
};

/* One host: a connection, what it can boot, its pool. */
struct lv_host {
	struct lv_backend *lv;
	int index;                 /* in lv->hosts and be->hosts */
	char *name, *uri;
	int slots;
	bool embed;                /* the embedded driver (local files, local QEMU) */
	virConnectPtr conn;        /* NULL: unreachable, skipped */
	int lifecycle_cb;
	char *caps;                /* virConnectGetCapabilities() */
	char qemu_version[24], libvirt_version[24];
	char *pool_path;
	unsigned long long pool_max;   /* bytes */
	virStoragePoolPtr pool;    /* once ensure_pool() made or found it */
	pthread_mutex_t pool_lock; /* one upload or prune at a time per host */
	char **staged;             /* volume names this run uses (never pruned) */
	size_t n_staged;
	char **present;            /* the pool's volumes as we know them (uploads,
				    * prunes), for choose_host(); under lv->lock */
	size_t n_present;
	/* under lv->lock */
	int running, failures;
	bool out;                  /* taken out of the run */
};

struct lv_backend {
	struct lv_host hosts[BACKEND_MAX_HOSTS];
	size_t n_hosts;
	char *embed_root;          /* the embedded host's root, or NULL */
	int slot_lock_fd;
	pthread_t thread;
	bool thread_running;
	atomic_bool quit;
	pid_t guardian;
	int guardian_fd;
	/* Every machine prepared and not yet released (event lookups). */
	pthread_mutex_t lock;
	struct lv_machine *machines[MAX_MACHINES];
	/* Console streams of domains that ended on their own, waiting to be
	 * aborted (see detach_console()); under grave_lock (the runner may
	 * prepare and stop machines in several threads). */
	pthread_mutex_t grave_lock;
	virStreamPtr graveyard[MAX_MACHINES];
	double buried_at[MAX_MACHINES];
	/* The sha256 of each file staged, by path and stat data (stage_file()
	 * hashes a file once a run); under lock. */
	struct file_sha { char *path, *stamp; char sha[65]; } *shas;
	size_t n_shas;
	/* QEMU pids, for emergency_stop() from a signal handler. */
	volatile sig_atomic_t pids[MAX_MACHINES];
	/* Released machines whose stream callback libvirt had not yet let go
	 * of (its free function will still write to them): freed by close(),
	 * once the event thread has ended. Runner threads only, under lock. */
	struct lv_machine *limbo;
};

/* libvirt reports through our own messages, never on its own. */
static void silent_error(void *opaque, virErrorPtr err)
{
	(void)opaque;
	(void)err;
}

/* The last libvirt error as one line. */
static const char *lv_error(void)
{
	const char *msg = virGetLastErrorMessage();
	return msg ? msg : "unknown libvirt error";
}

/* ---------------------------------------------------------------- embed */

/*
 * claim_embed_root: the embedded driver locks its root, so two bootrig
 * processes cannot share one. Slots cache/embed/0, 1, ... are claimed with
 * flock (released when we exit, even on a crash); the first free one is
 * used, so QEMU's capability cache survives between runs. The path stays
 * short: unix sockets under it must fit in 108 bytes. Returns the root or
 * NULL (error printed).
 */
static char *claim_embed_root(int *lock_fd)
{
	const char *base = getenv("BOOTRIG_EMBED_ROOT");
	char *top = base ? xstrdup(base) : xasprintf("%s/embed", bootrig_cache_dir());
	for (int slot = 0; slot < 64; slot++) {
		char *root = xasprintf("%s/%d", top, slot);
		char *lock = xasprintf("%s.lock", root);
		if (mkdir_p(top, 0755) < 0) {
			error("cannot create %s: %s", top, strerror(errno));
			free(lock), free(root), free(top);
			return NULL;
		}
		int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		free(lock);
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0) {
			*lock_fd = fd;
			free(top);
			return root;
		}
		if (fd >= 0)
			close(fd);
		free(root);
	}
	error("no free embedded libvirt root under %s", top);
	free(top);
	return NULL;
}

/*
 * write_qemu_conf: the embedded driver's qemu.conf. stdio_handler "file"
 * (no virtlogd daemon); QEMU runs as the user running bootrig, so it can
 * read the kernel and initramfs wherever they are (as root, libvirt would
 * otherwise switch to libvirt-qemu, which cannot enter /root); and with
 * no security driver and no dynamic ownership, libvirt never chowns or
 * labels the user's kernel and initramfs files (nor keeps xattrs on them).
 */
static int write_qemu_conf(const char *root)
{
	char *etc = xasprintf("%s/etc", root);
	char *conf = xasprintf("%s/qemu.conf", etc);
	char *text = xasprintf("# written by bootrig\nstdio_handler = \"file\"\n"
			       "user = \"+%u\"\ngroup = \"+%u\"\n"
			       "security_driver = \"none\"\ndynamic_ownership = 0\n"
			       "remember_owner = 0\n",
			       (unsigned)geteuid(), (unsigned)getegid());
	int rc = mkdir_p(etc, 0755) < 0 ? error("cannot create %s: %s", etc, strerror(errno))
		 : write_file_atomic(conf, text, strlen(text));
	free(text), free(conf), free(etc);
	return rc;
}

/* ---------------------------------------------------------------- hosts */

/*
 * caps_guest: the <guest> of h's capabilities for arch (libvirt's
 * qemu_arch: aarch64, x86_64, armv7l): its start, and *end at its
 * </guest>; NULL when the host has no emulator for that arch.
 */
static const char *caps_guest(const struct lv_host *h, const char *arch, const char **end)
{
	char needle[80];
	snprintf(needle, sizeof(needle), "<arch name='%.60s'>", arch);
	const char *a = h->caps ? strstr(h->caps, needle) : NULL;
	if (!a)
		return NULL;
	const char *e = strstr(a, "</guest>");
	*end = e ? e : a + strlen(a);
	return a;
}

/* Does [s, end) hold needle? */
static bool span_has(const char *s, const char *end, const char *needle)
{
	const char *p = strstr(s, needle);
	return p && p < end;
}

static int split_machine(const char *spec, char **machine, int *gic, char *why, size_t len);

/*
 * host_can_boot: h's capabilities have an emulator for t's arch and t's
 * machine type among its machines (by name or canonical name); else why
 * (if not NULL) says what is missing.
 */
static bool host_can_boot(const struct lv_host *h, const struct target *t, char *why, size_t len)
{
	if (h->embed) {     /* this machine: the target's own emulator (no caps: see connect_host()) */
		bool ok = access(t->emulator, X_OK) == 0;
		if (!ok && why)
			snprintf(why, len, "no emulator %s", t->emulator);
		return ok;
	}
	const char *end, *g = caps_guest(h, t->qemu_arch, &end);
	if (!g) {
		if (why)
			snprintf(why, len, "no %s emulator", t->qemu_arch);
		return false;
	}
	char *machine, dummy[8];
	int gic;
	if (split_machine(t->machine, &machine, &gic, dummy, sizeof(dummy)) < 0)
		return true;    /* domain_xml() refuses it, with the reason */
	char *by_name = xasprintf(">%s</machine>", machine);
	char *by_canon = xasprintf("canonical='%s'", machine);
	bool ok = span_has(g, end, by_name) || span_has(g, end, by_canon);
	if (!ok && why)
		snprintf(why, len, "no machine '%s' for %s", machine, t->qemu_arch);
	free(by_name), free(by_canon), free(machine);
	return ok;
}

/* The emulator h's capabilities name for t's arch (malloc'd), or NULL. */
static char *host_emulator(const struct lv_host *h, const struct target *t)
{
	const char *end, *g = caps_guest(h, t->qemu_arch, &end);
	const char *e = g ? strstr(g, "<emulator>") : NULL;
	if (!e || e > end)
		return NULL;
	e += strlen("<emulator>");
	const char *close_tag = strstr(e, "</emulator>");
	return close_tag && close_tag < end ? xasprintf("%.*s", (int)(close_tag - e), e) : NULL;
}

/* libvirt's version number (major * 1000000 + minor * 1000 + release) as text. */
static void format_version(unsigned long v, char *buf, size_t len)
{
	snprintf(buf, len, "%lu.%lu.%lu", v / 1000000, v / 1000 % 1000, v % 1000);
}

static int host_holds(const struct lv_host *h, char *const *names, int n);

/* Is a host with a free slot (free), holding `holds` of the boot's files,
 * at `load` (running / slots), a better place than the best so far? A free
 * slot first; among free hosts the one that already has the most of the
 * files (no upload: a second run of the same kernels goes where they are),
 * then the least loaded; when every host is full (-j past the slots), the
 * least loaded, then the files. Ties keep the host listed first. */
static bool better_place(bool free, int holds, double load, bool best_free, int best_holds,
			 double best_load)
{
	if (free != best_free)
		return free;
	if (free && holds != best_holds)
		return holds > best_holds;
	if (load != best_load)
		return load < best_load;
	return holds > best_holds;
}

/*
 * choose_host: the host for spec's boot: of the hosts still in the run,
 * reachable, not in spec->avoid_hosts and able to boot its target, the
 * best place (better_place()) for a boot whose files have the volume
 * names names[0..2] (NULL: none); its running count is taken. NULL when
 * none can (why says so, with each host's reason).
 */
static struct lv_host *choose_host(struct lv_backend *lv, const struct machine_spec *spec,
				   char *const names[3], char *why, size_t len)
{
	struct lv_host *best = NULL;
	double best_load = 0;
	bool best_free = false;
	int best_holds = 0;
	struct strbuf no = STRBUF_INIT;
	strbuf_add(&no, "", 0);
	pthread_mutex_lock(&lv->lock);
	for (size_t i = 0; i < lv->n_hosts; i++) {
		struct lv_host *h = &lv->hosts[i];
		char cant[160] = "";
		if (!h->conn)
			snprintf(cant, sizeof(cant), "unreachable");
		else if (h->out)
			snprintf(cant, sizeof(cant), "taken out of the run");
		else if (spec->avoid_hosts && spec->avoid_hosts[i])
			snprintf(cant, sizeof(cant), "failed this boot before");
		if (*cant || !host_can_boot(h, spec->target, cant, sizeof(cant))) {
			strbuf_addf(&no, "%s%s: %s", no.len ? "; " : "", h->name, cant);
			continue;
		}
		double load = (double)h->running / h->slots;
		bool free = h->running < h->slots;
		int holds = h->embed ? 0 : host_holds(h, names, 3);
		if (!best || better_place(free, holds, load, best_free, best_holds, best_load))
			best = h, best_load = load, best_free = free, best_holds = holds;
	}
	if (best)
		best->running++;
	pthread_mutex_unlock(&lv->lock);
	if (!best)
		snprintf(why, len, "no host can boot target %s (%s)", spec->target->name, no.buf);
	strbuf_release(&no);
	return best;
}

/* ---------------------------------------------------------------- accelerator */

/*
 * The accelerator rule: chosen by proof, not by hope. On some hosts
 * /dev/kvm opens and a trivial guest runs under it, and then every real
 * kernel hangs right after the BIOS; so KVM counts as working on a host
 * only once a real boot under it has printed kernel output, and nothing
 * short of a real boot decides it. cache/accel keeps what boots showed,
 * one line per host boot, emulator, machine and CPU model:
 *
 *   "<boot_id>\t<emulator>\t<machine>\t<cpu>\tyes|no\t<why>\n"
 *
 * With accel "auto": "yes" is KVM (proven); "no" is TCG; no line is KVM
 * *unproven*: the runner (matrix.c) watches the boot, and if it prints
 * no kernel output within the target's kvm_proof seconds (or ends or
 * fails before any), stops it and boots it again under TCG, recording the
 * fallback; then it tells us what it learnt (lv_accel_learned()). "kvm"
 * forces KVM (a KVM boot that shows nothing is then INFRA_ERROR, never
 * the kernel's fault); "tcg" forces TCG. Lines of an earlier host boot
 * are dropped: a reboot may change what KVM does.
 *
 * The rule holds per host: a daemon's host keys its lines
 * "<boot_id>@<uri>" (this machine's boot id: what we cannot see of a
 * remote host's reboots, our own reboot at least forgets), and whether it
 * has KVM at all is what its capabilities say (<domain type='kvm'>).
 */

/* The host's boot id (a new one each host boot), malloc'd. */
static char *host_boot_id(void)
{
	char *id = NULL;
	if (read_file("/proc/sys/kernel/random/boot_id", &id, NULL) < 0)
		id = xstrdup("unknown");
	id[strcspn(id, "\n")] = '\0';
	return id;
}

/* "<boot_id>[@<uri>]\t<emulator>\t<machine>\t<cpu>\t": the cache key of t
 * on h (the embedded driver's lines carry no URI). */
static char *accel_key(const struct lv_host *h, const struct target *t)
{
	char *id = host_boot_id();
	char *key = xasprintf("%s%s%s\t%s\t%s\t%s\t", id, h->embed ? "" : "@", h->embed ? "" : h->uri,
			      t->emulator, t->machine, t->cpu ? t->cpu : "");
	free(id);
	for (char *p = key; *p; p++)    /* a key is one line */
		if (*p == '\n')
			*p = ' ';
	return key;
}

/* Opens and locks cache/accel.lock (exclusive); -1 when it cannot. */
static int accel_cache_lock(void)
{
	mkdir_p(bootrig_cache_dir(), 0755);
	char *path = xasprintf("%s/accel.lock", bootrig_cache_dir());
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	free(path);
	if (fd >= 0 && flock(fd, LOCK_EX) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* What the cache says of key: 1 yes, 0 no, -1 nothing; the line's why
 * into why[len]. */
static int accel_cache_get(const char *key, char *why, size_t len)
{
	char *path = xasprintf("%s/accel", bootrig_cache_dir());
	char *text = NULL;
	int found = -1;
	size_t klen = strlen(key);
	if (read_file(path, &text, NULL) == 0) {
		for (char *line = text; line && *line;) {
			char *nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			if (!strncmp(line, key, klen)) {
				const char *v = line + klen;
				found = !strncmp(v, "yes", 3) ? 1 : 0;
				const char *tab = strchr(v, '\t');
				snprintf(why, len, "%s", tab ? tab + 1 : "");
			}
			line = nl ? nl + 1 : NULL;
		}
	}
	free(text), free(path);
	return found;
}

/* Records what a boot showed of key (under the lock); the lines of other
 * host boots are dropped. */
static void accel_cache_put(const char *key, bool works, const char *why)
{
	int lock = accel_cache_lock();
	char *path = xasprintf("%s/accel", bootrig_cache_dir());
	char *text = NULL, *id = host_boot_id();
	struct strbuf sb = STRBUF_INIT;
	strbuf_add(&sb, "", 0);
	size_t klen = strlen(key), idlen = strlen(id);
	if (read_file(path, &text, NULL) == 0) {
		for (char *line = text; line && *line;) {
			char *nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			if (strncmp(line, key, klen) && !strncmp(line, id, idlen) &&
			    (line[idlen] == '\t' || line[idlen] == '@'))
				strbuf_addf(&sb, "%s\n", line);
			line = nl ? nl + 1 : NULL;
		}
	}
	strbuf_addf(&sb, "%s%s\t", key, works ? "yes" : "no");
	for (const char *p = why ? why : ""; *p; p++)
		strbuf_add(&sb, *p == '\n' || *p == '\t' ? " " : p, 1);
	strbuf_addstr(&sb, "\n");
	if (write_file_atomic(path, sb.buf, sb.len) < 0)
		warning("cannot record what KVM did in %s", path);
	strbuf_release(&sb);
	free(text), free(id), free(path);
	if (lock >= 0)
		close(lock);
}

/* Can host h give t's guests KVM at all? Embedded: the guest's arch must
 * be this machine's and /dev/kvm open to us; a daemon's host: its
 * capabilities must offer KVM for the arch. Else why says what is missing. */
static bool host_has_kvm(const struct lv_host *h, const struct target *t, char *why, size_t len)
{
	if (!h->embed) {
		const char *end, *g = caps_guest(h, t->qemu_arch, &end);
		if (g && span_has(g, end, "<domain type='kvm'"))
			return true;
		snprintf(why, len, "host %s offers no KVM for %s guests", h->name, t->qemu_arch);
		return false;
	}
	struct utsname u;
	if (uname(&u) < 0 || strcmp(u.machine, t->qemu_arch)) {
		snprintf(why, len, "%s guests get no KVM on this %s host", t->qemu_arch,
			 uname(&u) < 0 ? "unknown" : u.machine);
		return false;
	}
	if (access("/dev/kvm", R_OK | W_OK) < 0) {
		snprintf(why, len, "/dev/kvm: %s", strerror(errno));
		return false;
	}
	return true;
}

/*
 * choose_accel: the accelerator of one boot, by the rule above: sets
 * mach->accelerator, ->accel_reason and ->accel_unproven. Returns 1 for KVM, 0 for TCG,
 * -1 when a forced KVM cannot be had (mach->infra_reason set).
 */
static int choose_accel(const struct lv_host *h, const struct machine_spec *spec,
			struct machine *mach)
{
	const struct target *t = spec->target;
	const char *want = spec->accel && *spec->accel ? spec->accel : "auto";
	char *reason = mach->accel_reason, why[160] = "";
	size_t rlen = sizeof(mach->accel_reason);
	int kvm = 0;
	if (!strcmp(want, "tcg")) {
		snprintf(reason, rlen, "tcg: asked for (accel tcg)");
	} else if (spec->icount_forced && strcmp(want, "kvm")) {
		snprintf(reason, rlen, "tcg: --clock icount needs TCG");
	} else if (!host_has_kvm(h, t, why, sizeof(why))) {
		if (!strcmp(want, "kvm")) {
			snprintf(mach->infra_reason, sizeof(mach->infra_reason),
				 "--accel kvm, but %s", why);
			return -1;
		}
		snprintf(reason, rlen, "tcg: %s", why);
	} else {
		char *key = accel_key(h, t);
		int known = accel_cache_get(key, why, sizeof(why));
		if (!strcmp(want, "kvm")) {
			kvm = 1;
			mach->accel_unproven = known != 1;
			snprintf(reason, rlen, "kvm: asked for (accel kvm)%s",
				 known == 1 ? "; proven on this host" : "; not proven on this host");
		} else if (known == 1) {
			kvm = 1;
			snprintf(reason, rlen, "kvm: a real boot under KVM printed kernel output "
				 "on this host before");
		} else if (known == 0) {
			snprintf(reason, rlen, "tcg: KVM failed on this host before (%s)", why);
		} else {
			kvm = 1;
			mach->accel_unproven = true;
			snprintf(reason, rlen, "kvm: not proven on this host yet; TCG if it prints "
				 "no kernel output in %.0f s", t->kvm_proof);
		}
		free(key);
	}
	snprintf(mach->accelerator, sizeof(mach->accelerator), "%s", kvm ? "kvm" : "tcg");
	return kvm;
}

/* ---------------------------------------------------------------- pool */

static void add_xml_text(struct strbuf *sb, const char *s);

/* Marks volume name as in h's pool or not (what choose_host() knows). */
static void set_present(struct lv_host *h, const char *name, bool there)
{
	pthread_mutex_lock(&h->lv->lock);
	size_t i = 0;
	while (i < h->n_present && strcmp(h->present[i], name))
		i++;
	if (there && i == h->n_present) {
		h->present = xrealloc(h->present, (h->n_present + 1) * sizeof(*h->present));
		h->present[h->n_present++] = xstrdup(name);
	} else if (!there && i < h->n_present) {
		free(h->present[i]);
		h->present[i] = h->present[--h->n_present];
	}
	pthread_mutex_unlock(&h->lv->lock);
}

/* How many of names[0..n-1] (NULL ones skipped) h's pool holds, as far as
 * we know. Under lv->lock. */
static int host_holds(const struct lv_host *h, char *const *names, int n)
{
	int holds = 0;
	for (int k = 0; k < n; k++)
		for (size_t i = 0; names[k] && i < h->n_present; i++)
			if (!strcmp(h->present[i], names[k])) {
				holds++;
				break;
			}
	return holds;
}

/*
 * ensure_pool: h's storage pool "bootrig" (a directory, h->pool_path on
 * that host), found, or defined, built (mkdir) and started on first use;
 * autostarted, so it outlives the daemon's restarts. Called under
 * h->pool_lock. 0, or -1 (why set).
 */
static int ensure_pool(struct lv_host *h, char *why, size_t len)
{
	if (h->pool)
		return 0;
	virStoragePoolPtr p = virStoragePoolLookupByName(h->conn, POOL_NAME);
	if (!p) {
		struct strbuf xml = STRBUF_INIT;
		strbuf_addstr(&xml, "<pool type='dir'><name>" POOL_NAME "</name><target><path>");
		add_xml_text(&xml, h->pool_path);
		strbuf_addstr(&xml, "</path></target></pool>\n");
		p = virStoragePoolDefineXML(h->conn, xml.buf, 0);
		strbuf_release(&xml);
		if (!p || virStoragePoolBuild(p, 0) < 0) {
			snprintf(why, len, "host %s: cannot make the storage pool %s at %s: %s", h->name,
				 POOL_NAME, h->pool_path, lv_error());
			if (p)
				virStoragePoolUndefine(p), virStoragePoolFree(p);
			return -1;
		}
		virStoragePoolSetAutostart(p, 1);
	}
	if (virStoragePoolIsActive(p) != 1 && virStoragePoolCreate(p, 0) < 0) {
		snprintf(why, len, "host %s: cannot start the storage pool %s: %s", h->name, POOL_NAME,
			 lv_error());
		virStoragePoolFree(p);
		return -1;
	}
	virStoragePoolRefresh(p, 0);
	h->pool = p;
	virStorageVolPtr *vols = NULL;
	int n = virStoragePoolListAllVolumes(p, &vols, 0);
	for (int i = 0; i < n; i++) {
		set_present(h, virStorageVolGetName(vols[i]), true);
		virStorageVolFree(vols[i]);
	}
	free(vols);
	return 0;
}

/*
 * The pool's use record, in the cache: which volume of h this machine's
 * runs used last, "NAME\tUNIX_TIME" per line (cache/hosts/<uri>.used):
 * least-recently-used pruning goes by it (a volume no run of ours
 * recorded counts as the oldest).
 */
static char *use_record_path(const struct lv_host *h)
{
	char *uri = xstrdup(h->uri);
	for (char *p = uri; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-", *p))
			*p = '_';
	char *path = xasprintf("%s/hosts/%s.used", bootrig_cache_dir(), uri);
	free(uri);
	return path;
}

/* When this machine last used volume name of h (0: never recorded). */
static long long last_use(const char *record, const char *name)
{
	size_t len = strlen(name);
	for (const char *line = record; line && *line;) {
		if (!strncmp(line, name, len) && line[len] == '\t')
			return atoll(line + len + 1);
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return 0;
}

/* Volume name of h is this run's: never pruned (under h->pool_lock). */
static void keep_for_run(struct lv_host *h, const char *name)
{
	for (size_t i = 0; i < h->n_staged; i++)
		if (!strcmp(h->staged[i], name))
			return;
	h->staged = xrealloc(h->staged, (h->n_staged + 1) * sizeof(*h->staged));
	h->staged[h->n_staged++] = xstrdup(name);
}

/* Records that volume name of h is used now (under h->pool_lock). */
static void note_use(struct lv_host *h, const char *name)
{
	char *path = use_record_path(h);
	char *dir = xasprintf("%s/hosts", bootrig_cache_dir());
	mkdir_p(dir, 0755);
	free(dir);
	char *text = NULL;
	struct strbuf sb = STRBUF_INIT;
	strbuf_add(&sb, "", 0);
	size_t len = strlen(name);
	if (read_file(path, &text, NULL) == 0) {
		for (char *line = text; line && *line;) {
			char *nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			if (strncmp(line, name, len) || line[len] != '\t')
				strbuf_addf(&sb, "%s\n", line);
			line = nl ? nl + 1 : NULL;
		}
	}
	strbuf_addf(&sb, "%s\t%lld\n", name, (long long)time(NULL));
	if (write_file_atomic_nosync(path, sb.buf, sb.len) < 0)
		warning("cannot record the use of %s in %s", name, path);
	strbuf_release(&sb);
	free(text), free(path);
	keep_for_run(h, name);
}

/*
 * prune_pool: makes room for `need` more bytes in h's pool under its cap:
 * deletes the volumes least recently used by us first, never one this run
 * uses. Under h->pool_lock.
 */
static void prune_pool(struct lv_host *h, unsigned long long need)
{
	virStorageVolPtr *vols = NULL;
	int n = virStoragePoolListAllVolumes(h->pool, &vols, 0);
	if (n <= 0) {
		free(vols);
		return;
	}
	char *path = use_record_path(h), *record = NULL;
	read_file(path, &record, NULL);
	unsigned long long total = 0, *size = xcalloc((size_t)n, sizeof(*size));
	long long *used = xcalloc((size_t)n, sizeof(*used));
	for (int i = 0; i < n; i++) {
		virStorageVolInfo info;
		if (virStorageVolGetInfo(vols[i], &info) == 0)
			size[i] = info.capacity;
		total += size[i];
		used[i] = last_use(record, virStorageVolGetName(vols[i]));
		for (size_t k = 0; k < h->n_staged; k++)
			if (!strcmp(h->staged[k], virStorageVolGetName(vols[i])))
				used[i] = -1;    /* this run's: kept */
	}
	while (total + need > h->pool_max) {
		int oldest = -1;
		for (int i = 0; i < n; i++)
			if (vols[i] && used[i] >= 0 && (oldest < 0 || used[i] < used[oldest]))
				oldest = i;
		if (oldest < 0)
			break;
		fprintf(stderr, "bootrig: host %s: pruning volume %s (%llu bytes, least recently used)\n",
			h->name, virStorageVolGetName(vols[oldest]), size[oldest]);
		if (virStorageVolDelete(vols[oldest], 0) == 0) {
			total -= size[oldest];
			set_present(h, virStorageVolGetName(vols[oldest]), false);
		}
		virStorageVolFree(vols[oldest]);
		vols[oldest] = NULL;
	}
	for (int i = 0; i < n; i++)
		if (vols[i])
			virStorageVolFree(vols[i]);
	free(vols), free(size), free(used), free(record), free(path);
}

/* virStreamSendAll()'s source: the next bytes of the file (opaque: its fd). */
static int read_for_stream(virStreamPtr st, char *data, size_t nbytes, void *opaque)
{
	(void)st;
	ssize_t n;
	do
		n = read(*(int *)opaque, data, nbytes);
	while (n < 0 && errno == EINTR);
	return (int)n;
}

/* Uploads path (size bytes) into vol over a virStream. 0 or -1. */
static int upload_file(struct lv_host *h, virStorageVolPtr vol, const char *path,
		       unsigned long long size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	virStreamPtr st = virStreamNew(h->conn, 0);
	int rc = -1;
	if (st && virStorageVolUpload(vol, st, 0, size, 0) == 0) {
		if (virStreamSendAll(st, read_for_stream, &fd) == 0 && virStreamFinish(st) == 0)
			rc = 0;
		else
			virStreamAbort(st);
	}
	if (st)
		virStreamFree(st);
	close(fd);
	return rc;
}

/* The sha256 of path into sha[65], hashed once a run while its stat data
 * stay the same. 0, or -1 (errno set). */
static int file_sha256(struct lv_backend *lv, const char *path, const struct stat *st, char sha[65])
{
	char *stamp = stat_stamp(st);
	pthread_mutex_lock(&lv->lock);
	for (size_t i = 0; i < lv->n_shas; i++) {
		if (!strcmp(lv->shas[i].path, path) && !strcmp(lv->shas[i].stamp, stamp)) {
			memcpy(sha, lv->shas[i].sha, 65);
			pthread_mutex_unlock(&lv->lock);
			free(stamp);
			return 0;
		}
	}
	pthread_mutex_unlock(&lv->lock);
	if (sha256_file(path, sha) < 0) {
		free(stamp);
		return -1;
	}
	pthread_mutex_lock(&lv->lock);
	lv->shas = xrealloc(lv->shas, (lv->n_shas + 1) * sizeof(*lv->shas));
	struct file_sha *f = &lv->shas[lv->n_shas++];
	f->path = xstrdup(path);
	f->stamp = stamp;
	memcpy(f->sha, sha, 65);
	pthread_mutex_unlock(&lv->lock);
	return 0;
}

/*
 * stage_file: path's volume on h, "<sha256><suffix>": found (complete:
 * its capacity is the file's size and all of it is written; a volume an
 * interrupted upload left is deleted and made again) or created and
 * uploaded now. Returns the volume's path on that host (malloc'd), or NULL
 * (why set).
 */
static char *stage_file(struct lv_host *h, const char *path, const char *suffix, char *why,
			size_t len)
{
	char sha[65];
	struct stat st;
	if (stat(path, &st) < 0 || file_sha256(h->lv, path, &st, sha) < 0) {
		snprintf(why, len, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	unsigned long long size = (unsigned long long)st.st_size;
	char *name = xasprintf("%s%s", sha, suffix), *vpath = NULL;
	pthread_mutex_lock(&h->pool_lock);
	if (ensure_pool(h, why, len) < 0)
		goto out;
	virStorageVolPtr vol = virStorageVolLookupByName(h->pool, name);
	virStorageVolInfo info;
	if (vol && (virStorageVolGetInfo(vol, &info) < 0 || info.capacity != size ||
		    info.allocation < size)) {
		virStorageVolDelete(vol, 0);     /* an upload that did not finish */
		virStorageVolFree(vol);
		vol = NULL;
		set_present(h, name, false);
	}
	if (!vol) {
		prune_pool(h, size);
		char *xml = xasprintf("<volume><name>%s</name><capacity unit='bytes'>%llu</capacity>"
				      "<allocation unit='bytes'>0</allocation><target>"
				      "<format type='raw'/><permissions><mode>0644</mode>"
				      "</permissions></target></volume>\n", name, size);
		vol = virStorageVolCreateXML(h->pool, xml, 0);
		free(xml);
		double t0 = now_monotonic();
		if (!vol || upload_file(h, vol, path, size) < 0) {
			snprintf(why, len, "host %s: cannot upload %s as volume %s: %s", h->name, path,
				 name, lv_error());
			if (vol)
				virStorageVolDelete(vol, 0), virStorageVolFree(vol);
			goto out;
		}
		double t = now_monotonic() - t0;
		fprintf(stderr, "bootrig: host %s: uploaded %s as %s (%llu bytes, %.1f MB/s)\n",
			h->name, path, name, size, t > 0 ? (double)size / 1e6 / t : 0.0);
	}
	vpath = virStorageVolGetPath(vol);
	if (!vpath)
		snprintf(why, len, "host %s: volume %s has no path: %s", h->name, name, lv_error());
	else
		note_use(h, name), set_present(h, name, true);
	virStorageVolFree(vol);
out:
	pthread_mutex_unlock(&h->pool_lock);
	free(name);
	return vpath;
}

/*
 * The serial log of a daemon's domain: the console stream is live but not
 * the whole truth (under load one was seen to end seconds before its
 * domain, losing the boot's last lines), so the serial port also logs to a
 * file on that host, a volume of our pool, "<domain>.serial", made empty
 * before the domain (mode 0600). After the domain it is fetched through
 * libvirt (virStorageVolDownload), read by capture_reconcile() beside what
 * the stream gave, and deleted. A stale one (a run that died) is never
 * recorded as used, so it is pruned first.
 */

/* Makes m's log volume on h; its path there (malloc'd), or NULL (why set). */
static char *make_log_volume(struct lv_host *h, struct lv_machine *m, char *why, size_t len)
{
	char *vpath = NULL;
	char *name = xasprintf("%s.serial", m->name);
	pthread_mutex_lock(&h->pool_lock);
	if (ensure_pool(h, why, len) < 0)
		goto out;
	virStorageVolPtr vol = virStorageVolLookupByName(h->pool, name);
	if (vol)    /* a domain of the same name's, long gone */
		virStorageVolDelete(vol, 0), virStorageVolFree(vol);
	char *xml = xasprintf("<volume><name>%s</name><capacity unit='bytes'>0</capacity><target>"
			      "<format type='raw'/><permissions><mode>0600</mode></permissions>"
			      "</target></volume>\n", name);
	vol = virStorageVolCreateXML(h->pool, xml, 0);
	free(xml);
	vpath = vol ? virStorageVolGetPath(vol) : NULL;
	if (!vpath) {
		snprintf(why, len, "host %s: cannot make the console's log volume %s: %s", h->name,
			 name, lv_error());
		if (vol)
			virStorageVolDelete(vol, 0);
	} else {
		keep_for_run(h, name);
		m->log_volume = name;
		name = NULL;
	}
	if (vol)
		virStorageVolFree(vol);
out:
	pthread_mutex_unlock(&h->pool_lock);
	free(name);
	return vpath;
}

/* virStreamRecvAll()'s sink: appends to the buffer (opaque: a strbuf). */
static int add_from_stream(virStreamPtr st, const char *data, size_t nbytes, void *opaque)
{
	(void)st;
	strbuf_add(opaque, data, nbytes);
	return (int)nbytes;
}

/*
 * fetch_log_volume: m's log volume, downloaded once into a file of ours
 * (m->serial_log, in $TMPDIR), and deleted from the host. Nothing when it
 * cannot be (a lost connection): the stream's bytes are then all there
 * is, with a warning.
 */
static void fetch_log_volume(struct lv_machine *m)
{
	if (!m->log_volume || m->log_fetched)
		return;
	m->log_fetched = true;
	struct lv_host *h = m->host;
	struct strbuf log = STRBUF_INIT;
	strbuf_add(&log, "", 0);
	virStorageVolPtr vol = h->pool ? virStorageVolLookupByName(h->pool, m->log_volume) : NULL;
	virStreamPtr st = vol ? virStreamNew(h->conn, 0) : NULL;
	bool ok = false;
	if (st && virStorageVolDownload(vol, st, 0, 0, 0) == 0) {
		if (virStreamRecvAll(st, add_from_stream, &log) == 0 && virStreamFinish(st) == 0)
			ok = true;
		else
			virStreamAbort(st);
	}
	const char *tmp = getenv("TMPDIR");
	char *path = xasprintf("%s/%s.serial", tmp && *tmp ? tmp : "/tmp", m->name);
	if (ok && write_file_atomic_nosync(path, log.buf, log.len) < 0) {
		warning("cannot keep the console's log of %s in %s: %s", m->name, path, strerror(errno));
		ok = false;
	} else if (!ok) {
		warning("host %s: cannot fetch the console's log %s (%s): only the stream's bytes are kept",
			h->name, m->log_volume, lv_error());
	}
	if (st)
		virStreamFree(st);
	if (vol) {
		virStorageVolDelete(vol, 0);
		virStorageVolFree(vol);
	}
	strbuf_release(&log);
	if (ok)
		m->serial_log = path;
	else
		free(path);
}

/* ---------------------------------------------------------------- guardian */

/* Reads /proc/PID/WHAT into buf[size], NUL-terminated: the bytes read
 * (<= 0: none). Allocates nothing: the guardian (a forked child) and the
 * event thread (beside libvirt's forks) call it. */
static ssize_t read_proc(const char *pid, const char *what, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%.20s/%s", pid, what);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* Kills every process whose command line holds `mark` (QEMU's
 * "-name guest=bootrig-<pid>-<n>,..."); returns how many. */
static int kill_marked(const char *mark)
{
	DIR *proc = opendir("/proc");
	if (!proc)
		return 0;
	int killed = 0;
	struct dirent *d;
	while ((d = readdir(proc))) {
		char cmd[4096];
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		ssize_t n = read_proc(d->d_name, "cmdline", cmd, sizeof(cmd));
		if (n <= 0)
			continue;
		for (ssize_t i = 0; i < n; i++)
			if (!cmd[i])
				cmd[i] = ' ';
		if (strstr(cmd, mark) && kill(atoi(d->d_name), SIGKILL) == 0)
			killed++;
	}
	closedir(proc);
	return killed;
}

/*
 * guardian_main: the guardian child. A byte on the pipe means bootrig
 * closed the backend itself (every domain is gone): it exits. End of file
 * means bootrig died (even SIGKILL closes the pipe): it then
 * kills every QEMU whose domain bootrig named (backend.h: "bootrig-<pid>-
 * <n>"), twice, a second apart, for a QEMU that libvirt was still starting.
 * Libvirt daemonizes QEMU, so QEMU is not our child and PR_SET_PDEATHSIG
 * cannot be put on it: this process is how no QEMU outlives bootrig.
 */
static void guardian_main(int fd, pid_t owner)
{
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	char c;
	for (;;) {
		ssize_t n = read(fd, &c, 1);
		if (n == 1)            /* bootrig closed the backend itself: all clear */
			_exit(EXIT_PASS);
		if (n == 0 || errno != EINTR)
			break;
	}
	char mark[64];
	snprintf(mark, sizeof(mark), "guest=bootrig-%ld-", (long)owner);
	kill_marked(mark);
	sleep(1);
	kill_marked(mark);
	_exit(EXIT_PASS);
}

/* Starts the guardian; before any thread exists (it forks). */
static void start_guardian(struct lv_backend *lv)
{
	int fds[2];
	lv->guardian = -1;
	lv->guardian_fd = -1;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		warning("no guardian process: %s", strerror(errno));
		return;
	}
	pid_t owner = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		warning("no guardian process: %s", strerror(errno));
		close(fds[0]), close(fds[1]);
		return;
	}
	if (pid == 0) {
		close(fds[1]);
		guardian_main(fds[0], owner);
	}
	close(fds[0]);
	lv->guardian = pid;
	lv->guardian_fd = fds[1];
}

/* ---------------------------------------------------------------- events */

static void *event_thread(void *arg)
{
	struct lv_backend *lv = arg;
	while (!atomic_load(&lv->quit))
		if (virEventRunDefaultImpl() < 0)
			warning("libvirt event loop: %s", lv_error());
	return NULL;
}

static void reap_strays(struct lv_backend *lv);

/* A timer that wakes the event loop regularly, so the thread sees quit;
 * it also reaps what libvirt's daemonized QEMUs leave (reap_strays()),
 * even while the runner's thread waits inside libvirt. */
static void tick(int timer, void *opaque)
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
static void console_tick(int timer, void *opaque)
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
static int lifecycle_event(virConnectPtr conn, virDomainPtr dom, int event, int detail,
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

/* ---------------------------------------------------------------- domain XML */

/* Appends s to sb with XML's special characters escaped. */
static void add_xml_text(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': strbuf_addstr(sb, "&lt;"); break;
		case '>': strbuf_addstr(sb, "&gt;"); break;
		case '&': strbuf_addstr(sb, "&amp;"); break;
		case '\'': strbuf_addstr(sb, "&apos;"); break;
		case '"': strbuf_addstr(sb, "&quot;"); break;
		default: strbuf_add(sb, s, 1);
		}
	}
}

static void add_element(struct strbuf *sb, const char *indent, const char *tag, const char *text)
{
	strbuf_addf(sb, "%s<%s>", indent, tag);
	add_xml_text(sb, text);
	strbuf_addf(sb, "</%s>\n", tag);
}

/*
 * The target's machine may carry QEMU-style options: "virt,gic-version=3".
 * The machine type goes to <type machine=>; gic-version becomes
 * <features><gic version=/>; other options are refused (returns -1).
 */
static int split_machine(const char *spec, char **machine, int *gic, char *why, size_t len)
{
	char *copy = xstrdup(spec);
	char *opts = strchr(copy, ',');
	*gic = 0;
	if (opts)
		*opts++ = '\0';
	*machine = xstrdup(copy);
	char *save = NULL;   /* strtok_r: prepare() runs in several threads at once */
	for (char *opt = opts ? strtok_r(opts, ",", &save) : NULL; opt;
	     opt = strtok_r(NULL, ",", &save)) {
		if (!strncmp(opt, "gic-version=", 12) && atoi(opt + 12) > 0) {
			*gic = atoi(opt + 12);
			continue;
		}
		snprintf(why, len, "machine option '%s' is not supported (only gic-version=N)", opt);
		free(copy);
		return -1;
	}
	free(copy);
	return 0;
}

static void add_cpu(struct strbuf *sb, const char *cpu)
{
	if (!cpu || !*cpu)
		return;
	if (!strcmp(cpu, "max")) {
		strbuf_addstr(sb, "  <cpu mode='maximum' match='exact'/>\n");
	} else if (!strcmp(cpu, "host")) {
		strbuf_addstr(sb, "  <cpu mode='host-passthrough'/>\n");
	} else {
		strbuf_addstr(sb, "  <cpu mode='custom' match='exact'>\n");
		strbuf_addstr(sb, "    <model fallback='forbid'>");
		add_xml_text(sb, cpu);
		strbuf_addstr(sb, "</model>\n  </cpu>\n");
	}
}

static void add_os(struct strbuf *sb, const struct machine_spec *spec, const char *machine)
{
	strbuf_addstr(sb, "  <os>\n    <type arch='");
	add_xml_text(sb, spec->target->qemu_arch);
	strbuf_addstr(sb, "' machine='");
	add_xml_text(sb, machine);
	strbuf_addstr(sb, "'>hvm</type>\n");
	add_element(sb, "    ", "kernel", spec->kernel);
	if (spec->initrd)
		add_element(sb, "    ", "initrd", spec->initrd);
	add_element(sb, "    ", "cmdline", spec->cmdline);
	if (spec->dtb)
		add_element(sb, "    ", "dtb", spec->dtb);
	strbuf_addstr(sb, "  </os>\n");
}

/*
 * domain_xml: a transient domain with nothing but what a boot needs: the
 * kernel, its initramfs and command line (paths on the host that runs it),
 * one serial port (a pty for the live console, read over the console
 * stream; logged to serial_log if not NULL), no NIC, graphics, USB, balloon or
 * RNG; every way of ending (poweroff, reboot, crash) destroys it. A TCG
 * boot with spec->icount gets QEMU's instruction-counting clock, as
 * `-icount OPTIONS` through libvirt's QEMU namespace (libvirt has no
 * element for it).
 */
static char *domain_xml(const struct machine_spec *spec, bool kvm, const char *emulator,
			const char *serial_log, char *why, size_t len)
{
	const struct target *t = spec->target;
	char *machine;
	int gic;
	if (split_machine(t->machine, &machine, &gic, why, len) < 0)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	const char *icount = kvm ? NULL : spec->icount;
	strbuf_addf(&sb, "<domain type='%s'%s>\n", kvm ? "kvm" : "qemu",
		    icount ? " xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'" : "");
	add_element(&sb, "  ", "name", spec->name);
	strbuf_addf(&sb, "  <memory unit='MiB'>%d</memory>\n", t->memory_mb > 0 ? t->memory_mb : 512);
	strbuf_addf(&sb, "  <vcpu>%d</vcpu>\n", t->vcpus > 0 ? t->vcpus : 1);
	add_os(&sb, spec, machine);
	bool x86 = !strcmp(t->qemu_arch, "x86_64") || !strcmp(t->qemu_arch, "i686");
	if (gic || x86) {
		strbuf_addstr(&sb, "  <features>\n");
		if (gic)
			strbuf_addf(&sb, "    <gic version='%d'/>\n", gic);
		if (x86)    /* ACPI is how an x86 guest powers itself off */
			strbuf_addstr(&sb, "    <acpi/>\n");
		strbuf_addstr(&sb, "  </features>\n");
	}
	add_cpu(&sb, t->cpu);
	strbuf_addstr(&sb, "  <clock offset='utc'/>\n"
		      "  <on_poweroff>destroy</on_poweroff>\n"
		      "  <on_reboot>destroy</on_reboot>\n"
		      "  <on_crash>destroy</on_crash>\n"
		      "  <devices>\n");
	add_element(&sb, "    ", "emulator", emulator);
	strbuf_addstr(&sb, "    <serial type='pty'>\n");
	if (serial_log) {
		strbuf_addstr(&sb, "      <log file='");
		add_xml_text(&sb, serial_log);
		strbuf_addstr(&sb, "' append='off'/>\n");
	}
	strbuf_addstr(&sb, "      <target port='0'/>\n    </serial>\n"
		      "    <console type='pty'>\n      <target type='serial' port='0'/>\n"
		      "    </console>\n");
	if (x86)
		strbuf_addstr(&sb, "    <controller type='usb' model='none'/>\n");
	strbuf_addstr(&sb, "    <memballoon model='none'/>\n  </devices>\n");
	if (icount) {   /* libvirt has no element for it: QEMU's own argument */
		strbuf_addstr(&sb, "  <qemu:commandline>\n    <qemu:arg value='-icount'/>\n"
			      "    <qemu:arg value='");
		add_xml_text(&sb, icount);
		strbuf_addstr(&sb, "'/>\n  </qemu:commandline>\n");
	}
	strbuf_addstr(&sb, "</domain>\n");
	free(machine);
	return sb.buf;
}

/* ---------------------------------------------------------------- operations */

static void reap_graveyard(struct lv_backend *lv, double min_age);

/* Sets mach->infra_reason, on one line (QEMU's messages span several). */
__attribute__((format(printf, 2, 3)))
static void set_reason(struct machine *mach, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(mach->infra_reason, sizeof(mach->infra_reason), fmt, ap);
	va_end(ap);
	char *p = mach->infra_reason;
	size_t len = strlen(p);
	while (len && (p[len - 1] == '\n' || p[len - 1] == ' '))
		p[--len] = '\0';
	for (; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

/* Fails open(): the reason is printed and kept in be->error. */
__attribute__((format(printf, 2, 3)))
static int open_failed(struct backend *be, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(be->error, sizeof(be->error), fmt, ap);
	va_end(ap);
	return error("%s", be->error);
}

/* Is uri the embedded driver (our own root)? */
static bool embedded_uri(const char *uri)
{
	return !uri || !strcmp(uri, "qemu:///embed");
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
				     VIR_DOMAIN_EVENT_CALLBACK(lifecycle_event), h, NULL)) < 0)
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
 * lv_open: the run's hosts are be->hosts, or else the one URI where (NULL:
 * the embedded driver). Every host is connected; one that cannot be is
 * reported and skipped, and open() fails only when none can.
 */
static int lv_open(struct backend *be, const char *where)
{
	struct lv_backend *lv = be->priv;
	struct backend_host one = { .name = where, .uri = where, .slots = 1 };
	const struct backend_host *list = be->n_hosts ? be->hosts : &one;
	size_t n = be->n_hosts ? be->n_hosts : 1;
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

/* The volume suffix of spec's kernel, initrd and dtb. */
static const char *const volume_suffix[3] = { ".kernel", ".initrd", ".dtb" };

/*
 * volume_names: the volume names spec's kernel, initrd and DTB have on a
 * daemon's host (names[k] malloc'd; NULL without that file, or when it
 * cannot be read: stage_file() says why), for choose_host(). All NULL when
 * every host is the embedded driver.
 */
static void volume_names(struct lv_backend *lv, const struct machine_spec *spec, char *names[3])
{
	const char *files[3] = { spec->kernel, spec->initrd, spec->dtb };
	bool daemon = false;
	for (size_t i = 0; i < lv->n_hosts; i++)
		daemon |= !lv->hosts[i].embed;
	for (int k = 0; k < 3; k++) {
		char sha[65];
		struct stat st;
		names[k] = NULL;
		if (daemon && files[k] && stat(files[k], &st) == 0 &&
		    file_sha256(lv, files[k], &st, sha) == 0)
			names[k] = xasprintf("%s%s", sha, volume_suffix[k]);
	}
}

/*
 * stage_files: on a daemon's host, the boot's kernel, initramfs and DTB
 * as volumes of our pool (stage_file()); spec's paths are replaced by
 * theirs on that host (paths[], malloc'd, freed by the caller). The
 * embedded driver reads the local files. 0, or -1 (reason set).
 */
static int stage_files(struct lv_host *h, struct machine *mach, struct machine_spec *spec,
		       char *paths[3])
{
	if (h->embed)
		return 0;
	const char **files[3] = { &spec->kernel, &spec->initrd, &spec->dtb };
	for (int i = 0; i < 3; i++) {
		if (!*files[i])
			continue;
		paths[i] = stage_file(h, *files[i], volume_suffix[i], mach->infra_reason,
				      sizeof(mach->infra_reason));
		if (!paths[i])
			return -1;
		*files[i] = paths[i];
	}
	return 0;
}

static int lv_prepare(struct backend *be, struct machine *mach, const struct machine_spec *spec)
{
	struct lv_backend *lv = be->priv;
	reap_graveyard(lv, GRAVE_AGE);
	struct lv_machine *m = xcalloc(1, sizeof(*m));
	mach->backend = be;
	mach->priv = m;
	mach->host = -1;
	m->lv = lv;
	m->wake[0] = m->wake[1] = -1;
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
	mach->host = h->index;
	mach->host_name = h->name;
	mach->host_uri = h->uri;
	mach->host_qemu_version = *h->qemu_version ? h->qemu_version : NULL;
	mach->host_libvirt_version = h->libvirt_version;
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
	if (pipe2(m->wake, O_CLOEXEC | O_NONBLOCK) < 0 || register_machine(lv, m) < 0) {
		set_reason(mach, "too many machines at once");
		return -1;
	}
	return 0;
}

/* The QEMU pid of an embedded domain (from the driver's pid file), or 0. */
static pid_t read_qemu_pid(const struct lv_host *h, const char *name)
{
	if (!h->embed)
		return 0;
	char *path = xasprintf("%s/run/qemu/%s.pid", h->lv->embed_root, name);
	char *text = NULL;
	pid_t pid = 0;
	if (read_file(path, &text, NULL) == 0)
		pid = (pid_t)atoi(text);
	free(text), free(path);
	return pid;
}

static void remember_pid(struct lv_backend *lv, struct lv_machine *m)
{
	m->qemu_pid = read_qemu_pid(m->host, m->name);
	pthread_mutex_lock(&lv->lock);
	for (int i = 0; i < MAX_MACHINES; i++)
		if (lv->machines[i] == m)
			lv->pids[i] = m->qemu_pid;
	pthread_mutex_unlock(&lv->lock);
}

/*
 * lv_power_on: create the domain paused, attach the console stream, then
 * resume: the stream is there before the first instruction runs, so no
 * console byte is lost. With a daemon's URI, AUTODESTROY ends the domain
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
	if (h->embed) {
		/* the console is the serial log, from its first byte (paused) */
		int fd = m->serial_log ? open(m->serial_log, O_RDONLY | O_CLOEXEC) : -1;
		if (fd < 0) {
			set_reason(mach, "%s: cannot read the serial log %s: %s", m->name,
				   m->serial_log ? m->serial_log : "(none)", strerror(errno));
			return -1;
		}
		pthread_mutex_lock(&m->lock);
		m->log_fd = fd;
		pthread_mutex_unlock(&m->lock);
		if (virDomainResume(m->dom) < 0) {
			set_reason(mach, "cannot resume %s: %s", m->name, lv_error());
			return -1;
		}
		return 0;
	}
	m->stream = virStreamNew(h->conn, VIR_STREAM_NONBLOCK);
	if (!m->stream || virDomainOpenConsole(m->dom, NULL, m->stream, VIR_DOMAIN_CONSOLE_FORCE) < 0 ||
	    virStreamEventAddCallback(m->stream, VIR_STREAM_EVENT_READABLE | VIR_STREAM_EVENT_ERROR |
				      VIR_STREAM_EVENT_HANGUP, stream_event, m,
				      stream_callback_gone) < 0) {
		set_reason(mach, "%s: cannot open the console: %s",
			 m->name, lv_error());
		return -1;
	}
	m->callback_added = true;
	if (virDomainResume(m->dom) < 0) {
		set_reason(mach, "cannot resume %s: %s",
			 m->name, lv_error());
		return -1;
	}
	return 0;
}

static int lv_console_fd(struct machine *mach)
{
	struct lv_machine *m = mach->priv;
	return m->wake[0];
}

/* The embedded QEMU of pid has exited (a zombie of ours, or gone). */
static bool qemu_gone(pid_t pid)
{
	siginfo_t si = { 0 };
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0)
		return si.si_pid == pid;
	return kill(pid, 0) < 0 && errno == ESRCH;
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

static ssize_t lv_console_read(struct machine *mach, char *buf, size_t len)
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

/*
 * reap_qemu: collect m's QEMU if it has exited (it is our child when we
 * are its subreaper; only that pid is waited for, never another child
 * libvirt waits for itself). block: wait for it (after SIGKILL).
 */
static void reap_qemu(struct lv_machine *m, bool block)
{
	if (m->qemu_pid <= 0)
		return;
	int status;
	pid_t r;
	do
		r = waitpid(m->qemu_pid, &status, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r != m->qemu_pid && !(r < 0 && errno == ECHILD && block))
		return;
	/* gone (or never ours to wait for): its pid may be reused now */
	pthread_mutex_lock(&m->lv->lock);
	for (int i = 0; i < MAX_MACHINES; i++)
		if (m->lv->machines[i] == m)
			m->lv->pids[i] = 0;
	pthread_mutex_unlock(&m->lv->lock);
	m->qemu_pid = 0;
}

/*
 * reap_strays: as a subreaper, bootrig inherits every QEMU libvirt
 * daemonizes, the capability probes' too (libvirt starts one per emulator
 * on a fresh root and kills it, but it is no longer libvirt's child to
 * wait for). Collects each zombie child whose name is qemu-*, except the
 * domains' own QEMUs (reap_qemu() waits for those, by pid). Called by the
 * event thread's tick, while libvirt may fork in other threads: so it
 * allocates nothing (no opendir(), no stdio), and scans /proc only when a
 * child is waiting to be collected at all.
 */
struct dirent64_raw {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static void reap_strays(struct lv_backend *lv)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	if (!lv->embed_root || waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || !si.si_pid)
		return;
	int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return;
	long self = (long)getpid();
	char ents[8192];
	long n;
	while ((n = syscall(SYS_getdents64, dir, ents, sizeof(ents))) > 0) {
		for (long off = 0; off < n;) {
			const struct dirent64_raw *d = (const void *)(ents + off);
			off += d->d_reclen;
			if (d->d_name[0] < '1' || d->d_name[0] > '9')
				continue;
			char stat[512];
			if (read_proc(d->d_name, "stat", stat, sizeof(stat)) <= 0)
				continue;
			/* "pid (comm) S ppid ...": comm may hold spaces and parentheses */
			char *open_paren = strchr(stat, '('), *close_paren = strrchr(stat, ')');
			if (!open_paren || !close_paren || strncmp(open_paren + 1, "qemu-", 5) ||
			    strncmp(close_paren, ") Z ", 4) || strtol(close_paren + 4, NULL, 10) != self)
				continue;
			pid_t pid = (pid_t)strtol(d->d_name, NULL, 10);
			bool domain = false;
			pthread_mutex_lock(&lv->lock);
			for (int i = 0; i < MAX_MACHINES; i++)
				domain |= lv->pids[i] == pid;
			pthread_mutex_unlock(&lv->lock);
			if (!domain)
				waitpid(pid, NULL, WNOHANG);
		}
	}
	close(dir);
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

/* Aborts and frees the buried streams older than min_age seconds; with
 * min_age < 0, all of them, first waiting until the youngest is GRAVE_AGE
 * old (at close: the connection, and with it the embedded driver, can
 * then end before bootrig does). */
static void reap_graveyard(struct lv_backend *lv, double min_age)
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
static void detach_console(struct lv_machine *m, bool domain_running)
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
	if (m->wake[0] >= 0)
		close(m->wake[0]), close(m->wake[1]);
	if (m->log_fd >= 0)
		close(m->log_fd);
	strbuf_release(&m->queue);
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
	pthread_mutex_destroy(&m->lock);
	free(m);
}

static void lv_accel_learned(struct backend *be, int host, const struct target *t, bool works,
			     const char *why)
{
	struct lv_backend *lv = be->priv;
	if (host < 0 || (size_t)host >= lv->n_hosts)
		return;
	char *key = accel_key(&lv->hosts[host], t);
	accel_cache_put(key, works, why);
	free(key);
}

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
static void lv_emergency_stop(struct backend *be)
{
	struct lv_backend *lv = be->priv;
	for (int i = 0; i < MAX_MACHINES; i++)
		if (lv->pids[i] > 0)
			kill((pid_t)lv->pids[i], SIGKILL);
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

/*
 * backend_libvirt_new: the libvirt backend, not yet connected (open()).
 * The caller's machine functions reach it through backend.h's table.
 */
struct backend *backend_libvirt_new(void)
{
	struct backend *be = xcalloc(1, sizeof(*be));
	struct lv_backend *lv = xcalloc(1, sizeof(*lv));
	pthread_mutex_init(&lv->lock, NULL);
	pthread_mutex_init(&lv->grave_lock, NULL);
	lv->slot_lock_fd = -1;
	lv->guardian = -1;
	lv->guardian_fd = -1;
	be->name = "libvirt";
	be->accelerator = "tcg";
	be->where_is_uri = true;
	be->priv = lv;
	be->threaded_ops = true;
	be->open = lv_open;
	be->prepare = lv_prepare;
	be->power_on = lv_power_on;
	be->console_fd = lv_console_fd;
	be->console_read = lv_console_read;
	be->state = lv_state;
	be->stop = lv_stop;
	be->release = lv_release;
	be->console_log_file = lv_console_log_file;
	be->emergency_stop = lv_emergency_stop;
	be->accel_learned = lv_accel_learned;
	be->host_failed = lv_host_failed;
	be->close = lv_close;
	return be;
}
