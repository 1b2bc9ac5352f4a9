/*
 * lv.h: what the files of the libvirt backend (runner/libvirt/, the virt
 * module: lib/module.h) share; private to them. The backend's interface
 * is runner/backend.h; backend_libvirt_new() (libvirt.c) is the module's
 * one public function.
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
 * them to the runner's thread through a console queue per machine
 * (runner/console-queue.h: its descriptor is what poll() sees). The
 * embedded driver's console is its serial log file, written by QEMU itself
 * and read as it grows into the same queue by the event thread
 * (console_tick()): no stream, so no wake-up per byte and no bytes lost in
 * the pty when QEMU exits.
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
 * The files:
 *   libvirt.c  the backend operations (backend.h's table): open, prepare,
 *              power on, state, stop, release, close;
 *   hosts.c    hosts' capabilities and choosing one; the accelerator rule
 *              (KVM only once a real boot proved it, per host);
 *   storage.c  a daemon's storage pool, uploads, the console's log volume;
 *   domain.c   domain XML;
 *   console.c  the event thread and its callbacks, the console (stream or
 *              serial log) and its detaching;
 *   qemu.c     the embedded driver's own: its root (a locked slot under the
 *              cache, with qemu.conf), the guardian (a child process that
 *              kills our QEMUs if we die), reaping QEMU.
 *
 * Threads: the runner's thread (and, with BACKEND_CAP_THREADED_OPS, its workers:
 * prepare + power_on and stop of different machines at once) and the event
 * thread; what each function may be called from is said with it, and
 * which lock guards what with the field.
 *
 * Every function declared here is hidden: the module's own, never bound
 * to a symbol of the executable (which exports its own, -rdynamic) or of
 * a library.
 */
#ifndef BOOTRIG_LV_H
#define BOOTRIG_LV_H

#include "backend.h"
#include "config.h"
#include "console-queue.h"
#include "util.h"

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#pragma GCC visibility push(hidden)

#define MAX_MACHINES 256
/* How often the event thread looks whether an embedded machine's serial
 * log grew (console_tick()): the live console's granularity. */
#define CONSOLE_TICK_MS 20
/* The most bytes of an embedded machine's serial log that wait in its
 * console queue: the log file holds the rest until the runner reads. */
#define SERIAL_LOG_QUEUED (1u << 20)
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
	/* event thread -> runner: console bytes (its own lock, taken under
	 * m->lock too), and a wake-up for a state change */
	struct console_queue *queue;
	bool stream_closed;
	int log_fd;                /* the embedded driver: serial_log, read as the console
				    * by the event thread (-1: the console is the stream) */
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
	int index;                 /* in lv->hosts and the options' hosts */
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
	/* The constructor's options (struct libvirt_options): the run's hosts,
	 * the caller's array; opt_n_hosts 0: open()'s where is the only one. */
	const struct backend_host *opt_hosts;
	size_t opt_n_hosts;
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

/* ---- libvirt.c */

/* The last libvirt error as one line. */
const char *lv_error(void);

/*
 * format_reason: formats into buf[size] on one line (QEMU's and libvirt's
 * messages span several: trailing newlines and spaces are dropped, the
 * others become spaces). Returns -1. set_reason(): into a machine's
 * infra_reason.
 */
__attribute__((format(printf, 3, 4)))
int format_reason(char *buf, size_t size, const char *fmt, ...);
#define set_reason(mach, ...) \
	format_reason((mach)->infra_reason, sizeof((mach)->infra_reason), __VA_ARGS__)

/* ---- hosts.c */

/* Can h boot t: the embedded driver has t's emulator here, a daemon's
 * host's capabilities have t's arch and machine? Else why (if not NULL)
 * says what is missing. */
bool host_can_boot(const struct lv_host *h, const struct target *t, char *why, size_t len);
/* The emulator h's capabilities name for t's arch (malloc'd), or NULL. */
char *host_emulator(const struct lv_host *h, const struct target *t);
/* libvirt's version number (major * 1000000 + minor * 1000 + release) as text. */
void format_version(unsigned long v, char *buf, size_t len);
/* The host for spec's boot (its running count taken), or NULL (why set):
 * see hosts.c. names: the volume names of its files (volume_names()). */
struct lv_host *choose_host(struct lv_backend *lv, const struct machine_spec *spec,
			    char *const names[3], char *why, size_t len);
/* The accelerator of one boot (hosts.c: the rule): 1 KVM, 0 TCG, -1 a
 * forced KVM that cannot be had (mach->infra_reason set). */
int choose_accel(const struct lv_host *h, const struct machine_spec *spec, struct machine *mach);
/* Records what a boot of t on h showed of KVM (works, or not: why). */
void accel_record(const struct lv_host *h, const struct target *t, bool works, const char *why);
/* A target's timeouts.kvm_proof (libvirt's key, registered by
 * libvirt-def.c), or LV_DEFAULT_KVM_PROOF: how long a boot under a KVM not
 * yet proven on its host may print no kernel output before it is booted
 * again under TCG. */
#define LV_DEFAULT_KVM_PROOF 15.0
double lv_kvm_proof(const struct target *t);
/* The backend's retry policy (backend.h, retry()): the KVM-to-TCG
 * fallback and QEMU's refusal of a kernel image (hosts.c). */
void lv_retry(struct backend *be, struct machine *m, const struct machine_spec *spec,
	      const struct backend_event *ev, struct backend_retry *r);

/* ---- storage.c */

/* h's storage pool, found or made (under h->pool_lock). 0, or -1 (why set). */
int ensure_pool(struct lv_host *h, char *why, size_t len);
/* How many of names[0..n-1] (NULL ones skipped) h's pool holds, as far as
 * we know. Under lv->lock. */
int host_holds(const struct lv_host *h, char *const *names, int n);
/* The volume names of spec's kernel, initrd and DTB on a daemon's host
 * (names[k] malloc'd or NULL), for choose_host(). */
void volume_names(struct lv_backend *lv, const struct machine_spec *spec, char *names[3]);
/* On a daemon's host, spec's files as volumes (their paths there into
 * spec and paths[], malloc'd, freed by the caller). 0, or -1 (reason set). */
int stage_files(struct lv_host *h, struct machine *mach, struct machine_spec *spec,
		char *paths[3]);
/* m's console log volume on h: its path there (malloc'd), or NULL (why set). */
char *make_log_volume(struct lv_host *h, struct lv_machine *m, char *why, size_t len);
/* m's log volume downloaded into m->serial_log once, and deleted. */
void fetch_log_volume(struct lv_machine *m);

/* ---- domain.c */

/* Appends s to sb with XML's special characters escaped. */
void add_xml_text(struct strbuf *sb, const char *s);
/* A target's machine "TYPE[,gic-version=N]" split; -1 (why set) for
 * another option. */
int split_machine(const char *spec, char **machine, int *gic, char *why, size_t len);
/* The transient domain of spec's boot (malloc'd), or NULL (why set). */
char *domain_xml(const struct machine_spec *spec, bool kvm, const char *emulator,
		 const char *serial_log, char *why, size_t len);

/* ---- console.c */

/* The event thread's body: libvirt's event loop until lv->quit. */
void *event_thread(void *arg);
/* Event-loop timers (virEventAddTimeout(), opaque: lv): tick() every
 * 200 ms, console_tick() every CONSOLE_TICK_MS. */
void tick(int timer, void *opaque);
void console_tick(int timer, void *opaque);
/* The domain lifecycle callback (opaque: the struct lv_host). */
int lifecycle_event(virConnectPtr conn, virDomainPtr dom, int event, int detail, void *opaque);
/* Attaches mach's console while its domain is paused: the serial log
 * (embedded) or a console stream and its callback. 0, or -1 (reason set). */
int attach_console(struct machine *mach);
/* backend.h's console_fd() and console_read(). */
int lv_console_fd(struct machine *mach);
ssize_t lv_console_read(struct machine *mach, char *buf, size_t len);
/* Stops reading m's console stream (see console.c). */
void detach_console(struct lv_machine *m, bool domain_running);
/* Aborts the buried streams older than min_age seconds (< 0: all). */
void reap_graveyard(struct lv_backend *lv, double min_age);

/* ---- qemu.c */

/* The embedded root: a free slot under the cache, locked (*lock_fd), or
 * NULL (error printed). */
char *claim_embed_root(int *lock_fd);
/* The embedded driver's qemu.conf under root. 0 or -1 (error printed). */
int write_qemu_conf(const char *root);
/* Starts the guardian process; before any thread exists (it forks). */
void start_guardian(struct lv_backend *lv);
/* Reads m's QEMU pid (embedded driver) into m->qemu_pid and lv->pids. */
/* Kills (SIGKILL) every process whose command line holds mark; how many.
 * Async-signal-safe. */
int kill_marked(const char *mark);
/* Kills every child of ours (QEMUs we are the subreaper of, a launcher
 * stuck before exec) but except and but those whose command line holds
 * others and not mine (others NULL: all); how many. Async-signal-safe. */
int kill_children(pid_t except, const char *others, const char *mine);
void remember_pid(struct lv_backend *lv, struct lv_machine *m);
/* The embedded QEMU of pid has exited (a zombie of ours, or gone). */
bool qemu_gone(pid_t pid);
/* Collects m's QEMU if it has exited (block: wait for it). */
void reap_qemu(struct lv_machine *m, bool block);
/* Collects the zombie QEMUs that are not a domain's (the event thread's
 * tick; allocates nothing). */
void reap_strays(struct lv_backend *lv);

#pragma GCC visibility pop

#endif
