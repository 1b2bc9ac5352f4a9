/*
 * backend.h: the private interface every runner backend implements.
 *
 * A backend powers machines on and off and hands their console bytes to
 * the runner (runner/matrix.c); the runner owns the judge, the timers, the
 * capture files and result.json, and is the same for every backend. Model:
 * redis ae.h / ae_epoll.c: one small fixed table of operations.
 *
 * Backends, each a group of files of its own: libvirt (runner/libvirt/, any
 * URI; the default is the embedded QEMU driver; built as the "virt"
 * module), boards (runner/board/: serial console, power control, U-Boot)
 * and LAVA labs (runner/lava/: jobs on a LAVA server; built as the "lava"
 * module, linked with libcurl). A backend's files make its table with
 * backend-impl.h.
 *
 * Life of a backend and its machines (all calls from the runner's thread,
 * except that with be->threaded_ops set, prepare + power_on and stop of a
 * machine may run in a worker thread, while the runner's thread calls the
 * other operations on other machines):
 *
 *   be = def->create(...)              the run's backend (registry.h)
 *   be->open(be, where)               once: connect (URI / board name)
 *     m = xcalloc(1, sizeof *m) ... be->prepare(be, m, spec)
 *     be->power_on(m)                 console bytes flow from here; t = 0
 *     loop: poll(be->console_fd(m)) -> be->console_read(m, ...) -> judge
 *           be->state(m)              after each wake-up and on a timer
 *     be->stop(m)                     when the judge says so (idempotent)
 *     be->release(m)                  frees m->priv; m itself is the caller's
 *   be->close(be)                     stops whatever still runs, frees be
 *
 * Every operation that fails returns -1 (or MACHINE_FAILED) after writing a
 * one-line reason into m->infra_reason (open(), before any machine: printed
 * with error() and kept in be->error); the runner turns it into INFRA_ERROR
 * (exit 125). A backend never calls exit() (lib/usage.h, 3.).
 *
 * Interruption: be->emergency_stop(be) may be called from a signal handler
 * or an atexit() handler; it must only use async-signal-safe calls (kill(),
 * write()) to end every machine the backend started, so that no emulator
 * or powered board outlives bootrig.
 */
#ifndef BOOTRIG_BACKEND_H
#define BOOTRIG_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct config;
struct target;
struct backend;
struct json_object;
struct judge_limits;

/* The most libvirt hosts one run may use. */
#define BACKEND_MAX_HOSTS 128

/* One libvirt host of a run (--connect URI, repeatable, or the config's
 * hosts = ( ... )), set by the runner in be->hosts before open(). */
struct backend_host {
	const char *name;            /* short name for messages and result.json */
	const char *uri;             /* "qemu:///embed": the embedded driver */
	int slots;                   /* boots at once on it (>= 1) */
	const char *pool_path;       /* its storage pool's directory, or NULL:
				      * /var/lib/bootrig/pool */
	long long pool_max_mb;       /* the pool's size cap, or 0: 4096 MiB */
};

/* What to boot: filled by the runner, read by the backend. */
struct machine_spec {
	const char *name;            /* unique: "bootrig-<pid>-<n>" */
	const char *kernel;          /* bootable image file (struct kernel .image) */
	const char *initrd;          /* initramfs file, or NULL */
	const char *dtb;             /* device tree file, or NULL */
	const char *cmdline;         /* the whole kernel command line */
	const struct target *target; /* libvirt: the emulated machine (config.h) */
	const char *board;           /* boards: the board's name in the config */
	const struct config *cfg;    /* the loaded configuration */
	const char *dir;             /* the boot's results directory: the backend may
				      * write its own files there (domain.xml) */
	const char *icount;          /* libvirt: QEMU -icount options for a TCG boot
				      * ("shift=3,sleep=off"), or NULL: the wall clock */
	bool icount_forced;          /* --clock icount: use TCG even where KVM works */
	const char *accel;           /* libvirt: "auto", "kvm" or "tcg" (--accel, the
				      * target's accel); see runner/libvirt/hosts.c's accelerator rule */
	const bool *avoid_hosts;     /* libvirt: [i] true: do not use host i (it failed
				      * this boot before), or NULL */
	const struct judge_limits *limits;  /* the boot's stage limits (LAVA: the job's
				      * timeouts), or NULL: the target's */
};

/* One machine being booted. The runner allocates it zeroed; the backend
 * fills the fields below in prepare() and keeps its own state in priv. */
struct machine {
	struct backend *backend;
	void *priv;
	char accelerator[16];        /* result.json "accelerator": "kvm", "tcg", "board" */
	char clock[8];               /* result.json "clock": "icount" or "wall" (the
				      * guest's time source; empty: "wall") */
	char infra_reason[512];      /* why the last operation failed */
	/* Filled by prepare() with the accelerator. accel_reason: why it was
	 * chosen (result.json "accelerator_reason"). accel_unproven: KVM was
	 * chosen but no real boot under it has yet printed kernel output on
	 * this host: the runner must not blame the kernel for what this boot
	 * shows before kernel output, and tells the backend what it learnt
	 * (accel_learned). */
	char accel_reason[200];
	bool accel_unproven;
	/* libvirt: the host prepare() chose (index into the backend's hosts;
	 * -1: none could take the boot, or it failed before choosing); its
	 * name, URI and versions for result.json (the backend's strings,
	 * valid until close()). */
	int host;
	const char *host_name, *host_uri;
	const char *host_qemu_version, *host_libvirt_version;
};

enum machine_state {
	MACHINE_RUNNING,             /* powered on (or not yet started) */
	MACHINE_STOPPED,             /* it stopped by itself: powered off, reset, crashed */
	MACHINE_FAILED,              /* the host side failed: infra_reason says how */
};

struct backend {
	const char *name;            /* result.json "backend": "libvirt", "board" */
	const char *accelerator;     /* result.json "accelerator" of a boot whose
				      * machine has none (it failed before prepare()
				      * chose one): "tcg" (libvirt), "board" */
	char *where;                 /* result.json "uri" (libvirt) or the board name */
	bool where_is_uri;           /* where (or the machine's host_uri) is a URI for
				      * result.json "uri" (libvirt); a board's name is not */
	char error[512];             /* why open() failed (also printed) */
	void *priv;
	bool no_wait;                /* boards: refuse a busy board at once (--no-wait)
				      * instead of waiting for its lock */
	bool threaded_ops;           /* set by the backend: prepare + power_on and stop
				      * of different machines may run at once, each in
				      * a thread of its own (libvirt) */
	int max_parallel;            /* boots at once when -j is not given (LAVA: it
				      * queues every boot, up to this many); 0: the
				      * runner's rule */
	bool judge_failure_after_kernel;    /* a machine that fails (MACHINE_FAILED)
				      * after the kernel printed is judged from its
				      * console, not INFRA_ERROR (LAVA: a job Incomplete
				      * after the kernel started) */
	const struct backend_host *hosts;   /* libvirt: the run's hosts (set by the
				      * runner before open()); n_hosts 0: open()'s
				      * where is the only one */
	size_t n_hosts;

	/* Connect. where: a libvirt URI (NULL: the default) or a board name.
	 * 0, or -1 with the error printed and kept in be->error. */
	int (*open)(struct backend *be, const char *where);
	/* Get m ready to power on (define the domain, load the board's
	 * files...). 0 or -1 (m->infra_reason set). */
	int (*prepare)(struct backend *be, struct machine *m, const struct machine_spec *spec);
	/* Power on. The first console byte arrives after this returns. */
	int (*power_on)(struct machine *m);
	/* An fd that poll() reports readable when console bytes wait (or on
	 * end of stream). Valid from power_on() to release(). */
	int (*console_fd)(struct machine *m);
	/* Reads waiting console bytes without blocking: > 0 bytes read, 0
	 * nothing waits now, -1 the console is closed for good (the machine
	 * stopped or the line broke: ask state()). */
	ssize_t (*console_read)(struct machine *m, char *buf, size_t len);
	/* Optional (may be NULL): the time, in seconds since power-on, of the
	 * bytes the last console_read() returned (LAVA: their log line's dt);
	 * NULL: the host's time when they were read. */
	double (*console_stamp)(struct machine *m);
	/* Optional (may be NULL): the boot's time now, in the same timeline
	 * (never before a stamp given), for the judge's timers; NULL: host
	 * seconds since power_on() returned. */
	double (*clock)(struct machine *m);
	/* Is it still running? Cheap; called often. */
	enum machine_state (*state)(struct machine *m);
	/* Power off / destroy now. Idempotent; 0 or -1 (reason set). */
	int (*stop)(struct machine *m);
	/* Free what prepare() made. Stops the machine first if it runs. */
	void (*release)(struct machine *m);
	/* Optional (may be NULL): a file where the backend's own side kept the
	 * raw console (libvirt's serial <log>), read after stop() and before
	 * release() to check that the live capture lost nothing. */
	const char *(*console_log_file)(struct machine *m);
	/* Async-signal-safe: kill every machine this backend started, by PID,
	 * whatever operation may be stuck in another thread (the runner calls
	 * it when SIGINT/SIGTERM finds the loop stuck in a backend call). */
	void (*emergency_stop)(struct backend *be);
	/* Optional (may be NULL): an operation on the machine named name (its
	 * spec->name) overran its deadline in another thread: kill that
	 * machine's processes by PID (its emulator, a launcher stuck before
	 * exec), so that the stuck call may return. Takes no lock that the
	 * stuck operation could hold. */
	void (*abandon)(struct backend *be, const char *name);
	/* Optional (may be NULL): the backend's own section of m's result.json
	 * (boards: method, attempts, firmware time, serial gaps), a new object
	 * that result.json takes under the backend's name ("board"); called
	 * once, after stop() and before the runner writes result.json. */
	struct json_object *(*result_section)(struct machine *m);
	/* Optional (may be NULL): called after the runner wrote the boot's
	 * files into dir; the backend may add to them (boards: the serial
	 * line's gaps into console.tlog). 0 or -1 (error printed). */
	int (*annotate)(struct machine *m, const char *dir);
	/* Optional (may be NULL): what boots of target t showed of KVM on host
	 * (struct machine .host): works (a boot under it printed kernel output)
	 * or not (why: one line; the same kernel printed under TCG), so that
	 * later boots choose by it. */
	void (*accel_learned)(struct backend *be, int host, const struct target *t, bool works,
			      const char *why);
	/* Optional (may be NULL): the host side failed m's boot on host (it
	 * could not start, or the host or its connection went away: why). The
	 * failure counts against the host (one that keeps failing is taken out
	 * of the run, with a message). Returns true when another host, not in
	 * spec->avoid_hosts, can still boot spec: the runner then boots it
	 * again with host added to avoid_hosts. */
	bool (*host_failed)(struct backend *be, int host, const struct machine_spec *spec,
			    const char *why);
	/* Disconnect and free be (and be->where, be->priv). */
	void (*close)(struct backend *be);
};

/* The three backends' constructors; each one's registry entry (registry.h)
 * calls its own. libvirt's is runner/libvirt/libvirt.c, in the virt module:
 * this name, in the executable, loads it (backend.c); when the module cannot
 * be loaded, the backend returned fails open() with the reason (INFRA_ERROR
 * for every boot, exit 125). The boards' is runner/board/board.c, linked in.
 * LAVA's, backend_lava_new() (lava.h), is runner/lava/lava.c in the lava
 * module, loaded the same way. Never NULL. */
struct backend *backend_libvirt_new(void);
struct backend *backend_board_new(void);

#endif
