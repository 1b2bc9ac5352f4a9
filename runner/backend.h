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
 * Three parts (the split): struct backend_ops, one static const table per
 * backend (its name, result.json defaults, capability flags BACKEND_CAP_*,
 * the operations); struct backend, one live instance: the table (ops), what
 * the runner reads of it (where, error) and the backend's opaque priv; and
 * struct machine, one boot's machine. A backend's options (libvirt's
 * hosts, a board's --no-wait) are its constructor's argument: the runner
 * never writes into a backend.
 *
 * Life of a backend and its machines (all calls from the runner's thread,
 * except that with BACKEND_CAP_THREADED_OPS, prepare + power_on and stop of
 * a machine may run in a worker thread, while the runner's thread calls
 * the other operations on other machines):
 *
 *   be = def->create(...)              the run's backend (registry.h)
 *   ops->open(be, where)               once: connect (URI / board name)
 *     m = xcalloc(1, sizeof *m) ... ops->prepare(be, m, spec)
 *     ops->power_on(m)                 console bytes flow from here; t = 0
 *     loop: poll(ops->console_fd(m)) -> ops->console_read(m, ...) -> judge
 *           ops->state(m)              after each wake-up and on a timer
 *           ops->retry(be, m, ...)     while m->unproven, or a start failed
 *     ops->stop(m)                     when the judge says so (idempotent)
 *     ops->release(m)                  frees m->priv; m itself is the caller's
 *   ops->close(be)                     stops whatever still runs, frees be
 *
 * The retry policy (ops->retry, struct backend_retry): the runner keeps the
 * mechanics, the backend decides. The runner restarts a boot when told to
 * ("boot again, with this reason": the earlier attempt's console and the
 * ops' attempt_files kept in the folder the backend names), never blames
 * the kernel while the machine's accelerator is unproven (m->unproven), and
 * writes the reason into result.json; the backend says when to retry, when
 * to give up (INFRA_ERROR) and when an emulator's refusal is the kernel's
 * fault, and learns from what it is told (libvirt: the KVM-to-TCG fallback,
 * runner/libvirt/hosts.c). A place that failed a boot is host_failed()'s:
 * the runner boots it again elsewhere, avoiding that place.
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

/* The most places (libvirt hosts) one run may use. */
#define BACKEND_MAX_HOSTS 128

/* One libvirt host of a run (--connect URI, repeatable, or the config's
 * hosts = ( ... )): libvirt's options (struct libvirt_options). */
struct backend_host {
	const char *name;            /* short name for messages and result.json */
	const char *uri;             /* "qemu:///embed": the embedded driver */
	int slots;                   /* boots at once on it (>= 1) */
	const char *pool_path;       /* its storage pool's directory, or NULL:
				      * /var/lib/bootrig/pool */
	long long pool_max_mb;       /* the pool's size cap, or 0: 4096 MiB */
};

/*
 * An icount boot is deterministic: the same kernel, initramfs and command
 * line give the same console, byte for byte, boot after boot and host
 * after host (the same QEMU), and so the same profile. Instruction time
 * alone is not enough: a guest reads the host through QEMU's randomness
 * (x86 RDRAND, arm64 RNDR, the device tree's rng-seed and kaslr-seed,
 * x86's setup_data seed), the RTC's date, and x86's SMBIOS UUID (the
 * kernel mixes both into its entropy), and without these three fixed two
 * boots part within the first 50 ms (amd64) or 1.7 s (the RTC alone). So
 * every backend that boots QEMU under icount gives it spec->seed (-seed:
 * a run's n-th repeat seed n, unless `run --seed`), an RTC that starts at ICOUNT_RTC_BASE
 * and runs on guest time, and on x86 the SMBIOS UUID ICOUNT_SMBIOS_UUID.
 * `run --seed random` (spec->seed NULL) leaves a boot to the host's
 * randomness and clock, as a boot on the wall clock, under KVM or on a
 * board always is: nothing makes those repeatable.
 */
#define ICOUNT_RTC_BASE "2026-01-01T00:00:00"
#define ICOUNT_RTC_EPOCH 1767225600      /* ICOUNT_RTC_BASE, UTC, in seconds */
#define ICOUNT_SMBIOS_UUID "b0071600-0000-4000-8000-000000000001"

/* What to boot: filled by the runner, read by the backend. */
struct machine_spec {
	const char *name;            /* unique: "bootrig-<pid>-<n>" */
	const char *kernel;          /* bootable image file (struct kernel .image) */
	const char *initrd;          /* initramfs file, or NULL */
	const char *dtb;             /* device tree file, or NULL */
	const char *cmdline;         /* the whole kernel command line */
	const struct target *target; /* the target of the kernel's arch (config.h): the
				      * emulated machine, its limits */
	const char *machine;         /* a named machine of the config to boot on (boards:
				      * the board's name), or NULL */
	const struct config *cfg;    /* the loaded configuration */
	const char *dir;             /* the boot's results directory: the backend may
				      * write its own files there (domain.xml) */
	const char *icount;          /* QEMU -icount options for a TCG boot
				      * ("shift=3,sleep=off"), or NULL: the wall clock */
	bool icount_forced;          /* --clock icount: use TCG even where KVM works */
	const char *seed;            /* with icount: QEMU's -seed (--seed; repeat n's
				      * seed n by default), or NULL (--seed random): the boot
				      * is left to the host's randomness and clock */
	const char *accel;           /* "auto", "kvm" or "tcg" (--accel, the target's),
				      * or what the backend's retry() asked for the next
				      * attempt; see runner/libvirt/hosts.c's accelerator rule */
	const bool *avoid_hosts;     /* [i] true: do not use place i (it failed this
				      * boot before: host_failed()), or NULL */
	const struct judge_limits *limits;  /* the boot's stage limits (LAVA: the job's
				      * timeouts), or NULL: the target's */
};

/* One fact about a place for result.json's "host" object, after its
 * "name" and "uri": a key and a string value (NULL: JSON null). */
struct machine_fact {
	const char *key;
	const char *value;
};

#define MACHINE_MAX_FACTS 4

/* Where a machine runs, when the backend has more than one place for it
 * (libvirt: its hosts). prepare() fills it; the strings are the backend's,
 * valid until close(). The runner writes result.json's "host" object (name,
 * uri, then facts in order), "uri" and each attempt's "host" and "uri"
 * from it, and names index in spec->avoid_hosts and host_failed(). */
struct machine_place {
	int index;                   /* among the backend's places; -1: none could
				      * take the boot, or it failed before choosing
				      * (the runner zeroes m: prepare() sets -1) */
	const char *name;            /* short name (NULL: no "host" object) */
	const char *uri;             /* with BACKEND_CAP_WHERE_IS_URI: result.json
				      * "uri" (NULL: be->where) */
	struct machine_fact facts[MACHINE_MAX_FACTS];   /* key NULL: the end */
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
	 * chosen (result.json "accelerator_reason"). unproven: the accelerator
	 * chosen has not yet been seen to work where the machine runs: the
	 * runner must not blame the kernel for what this boot shows before
	 * kernel output, and asks the backend's retry() what to do at each
	 * step until kernel output proves it (then it clears unproven). */
	char accel_reason[200];
	bool unproven;
	struct machine_place place;
};

enum machine_state {
	MACHINE_RUNNING,             /* powered on (or not yet started) */
	MACHINE_STOPPED,             /* it stopped by itself: powered off, reset, crashed */
	MACHINE_FAILED,              /* the host side failed: infra_reason says how */
};

/*
 * The retry policy: what the runner tells a backend's retry() (struct
 * backend_event) and what the backend answers (struct backend_retry).
 * The runner asks only for a machine whose prepare() set m->unproven, or
 * whose start failed (BACKEND_START_FAILED), and then when the boot is
 * written after a retry (BACKEND_WRITING).
 */
enum backend_event_kind {
	BACKEND_START_FAILED,        /* prepare() or power_on() failed: why is
				      * m->infra_reason */
	BACKEND_UNPROVEN_TICK,       /* m->unproven, running, no kernel output yet;
				      * t: the boot's time (called on every tick) */
	BACKEND_PROVEN,              /* m->unproven and the kernel printed: it works
				      * there (the runner clears m->unproven) */
	BACKEND_UNPROVEN_ENDED,      /* m->unproven and the boot ended (stopped,
				      * failed, timed out) before kernel output; why:
				      * the judge's reason (may be "") */
	BACKEND_WRITING,             /* the boot is about to be written and an earlier
				      * attempt was retried (earlier set): the backend
				      * learns how the retry went (kernel_printed); m
				      * may be a machine that never started (m->priv
				      * NULL); no answer is read */
};

struct backend_event {
	enum backend_event_kind kind;
	double t;                    /* the boot's time (seconds since power-on) */
	const char *why;             /* see the kinds; never NULL */
	bool kernel_printed;         /* the judge has seen kernel output */
	/* This boot's retry reason so far (an earlier BACKEND_BOOT_AGAIN or
	 * BACKEND_END answer's reason), or NULL; and the place (index) where the
	 * attempt that was retried ran (-1: none). */
	const char *earlier;
	int earlier_place;
};

enum backend_answer {
	BACKEND_GO_ON = 0,           /* the runner's own handling: a failed start or
				      * place is host_failed()'s, then INFRA_ERROR; a
				      * boot that ended is judged from its console */
	BACKEND_BOOT_AGAIN,          /* no result: keep this attempt's files in the
				      * boot's dir under keep/ (its console, and the
				      * ops' attempt_files), stop and release the
				      * machine, start the boot again with spec->accel
				      * = accel (if set) and the machine's name + "-"
				      * suffix; reason is kept as the boot's retry
				      * reason (result.json "accelerator_fallback"),
				      * event printed as the boot's event line */
	BACKEND_END,                 /* UNPROVEN_TICK: end the boot now (the runner
				      * stops it, then asks UNPROVEN_ENDED); reason
				      * becomes the boot's retry reason */
	BACKEND_BLAME_KERNEL,        /* START_FAILED: the kernel is to blame (the
				      * emulator refused the image): judged as a
				      * machine that stopped at once, with a warning */
	BACKEND_INFRA_ERROR,         /* UNPROVEN_ENDED: INFRA_ERROR with reason, the
				      * kernel not blamed; the retry reason is dropped */
};

/* retry()'s answer; the runner zeroes it before the call. */
struct backend_retry {
	enum backend_answer answer;
	char reason[512];
	char event[600];             /* BOOT_AGAIN: the event line ("" : reason) */
	const char *keep;            /* BOOT_AGAIN: "attempt-kvm" (static) */
	const char *suffix;          /* BOOT_AGAIN: "tcg" (static) */
	const char *accel;           /* BOOT_AGAIN: the next attempt's spec->accel
				      * (static), or NULL: unchanged */
	char accel_reason[200];      /* BOOT_AGAIN: result.json "accelerator_reason"
				      * of the boot's result, in place of the next
				      * machine's, or "" */
};

/* Capabilities: bits of struct backend_ops .caps. */
enum {
	/* prepare + power_on and stop of different machines may run at once,
	 * each in a worker thread of the runner's (libvirt, LAVA) */
	BACKEND_CAP_THREADED_OPS = 1 << 0,
	/* a machine that fails (MACHINE_FAILED) after the kernel printed is
	 * judged from its console, not INFRA_ERROR (LAVA: a job Incomplete
	 * after the kernel started) */
	BACKEND_CAP_JUDGE_FAILURE_AFTER_KERNEL = 1 << 1,
	/* be->where (or the machine's place.uri) is a URI, for result.json
	 * "uri" (libvirt, LAVA); a board's name is not */
	BACKEND_CAP_WHERE_IS_URI = 1 << 2,
};

/*
 * struct backend_ops: one backend's table, static const, shared by every
 * instance (backend-impl.h makes it). Operations marked optional may be
 * NULL.
 */
struct backend_ops {
	const char *name;            /* result.json "backend": "libvirt", "board" */
	const char *accelerator;     /* result.json "accelerator" of a boot whose
				      * machine has none (it failed before prepare()
				      * chose one): "tcg" (libvirt), "board" */
	unsigned caps;               /* BACKEND_CAP_* */
	int max_parallel;            /* boots at once when -j is not given (LAVA: it
				      * queues every boot, up to this many); 0: the
				      * runner's rule */
	/* The backend's own files in a boot's dir that belong to one attempt
	 * (libvirt: "domain.xml"): moved with the attempt's console when the
	 * boot is booted again; NULL-terminated, or NULL. */
	const char *const *attempt_files;

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
	/* Optional: the time, in seconds since power-on, of the bytes the
	 * last console_read() returned (LAVA: their log line's dt); NULL: the
	 * host's time when they were read. */
	double (*console_stamp)(struct machine *m);
	/* Optional: the boot's time now, in the same timeline (never before a
	 * stamp given), for the judge's timers; NULL: host seconds since
	 * power_on() returned. */
	double (*clock)(struct machine *m);
	/* Is it still running? Cheap; called often. */
	enum machine_state (*state)(struct machine *m);
	/* Power off / destroy now. Idempotent; 0 or -1 (reason set). */
	int (*stop)(struct machine *m);
	/* Free what prepare() made. Stops the machine first if it runs. */
	void (*release)(struct machine *m);
	/* Optional: a file where the backend's own side kept the raw console
	 * (libvirt's serial <log>), read after stop() and before release()
	 * to check that the live capture lost nothing. */
	const char *(*console_log_file)(struct machine *m);
	/* Async-signal-safe: kill every machine this backend started, by PID,
	 * whatever operation may be stuck in another thread (the runner calls
	 * it when SIGINT/SIGTERM finds the loop stuck in a backend call). */
	void (*emergency_stop)(struct backend *be);
	/* Optional: an operation on the machine named name (its spec->name)
	 * overran its deadline in another thread: kill that machine's
	 * processes by PID (its emulator, a launcher stuck before exec), so
	 * that the stuck call may return. Takes no lock that the stuck
	 * operation could hold. */
	void (*abandon)(struct backend *be, const char *name);
	/* Optional: the backend's own section of m's result.json (boards:
	 * method, attempts, firmware time, serial gaps), a new object that
	 * result.json takes under the backend's name ("board"); called once,
	 * after stop() and before the runner writes result.json. */
	struct json_object *(*result_section)(struct machine *m);
	/* Optional: called after the runner wrote the boot's files into dir;
	 * the backend may add to them (boards: the serial line's gaps into
	 * console.tlog). 0 or -1 (error printed). */
	int (*annotate)(struct machine *m, const char *dir);
	/* Optional: the retry policy. What happened to m's boot (ev); the
	 * answer in r (zeroed by the runner; see enum backend_answer). The
	 * backend may learn from it (libvirt: whether KVM works on a host).
	 * NULL: always BACKEND_GO_ON. Called from the runner's thread. */
	void (*retry)(struct backend *be, struct machine *m, const struct machine_spec *spec,
		      const struct backend_event *ev, struct backend_retry *r);
	/* Optional: the host side failed m's boot on place host (it could not
	 * start, or the host or its connection went away: why). The failure
	 * counts against the place (one that keeps failing is taken out of
	 * the run, with a message). Returns true when another place, not in
	 * spec->avoid_hosts, can still boot spec: the runner then boots it
	 * again with host added to avoid_hosts. */
	bool (*host_failed)(struct backend *be, int host, const struct machine_spec *spec,
			    const char *why);
	/* Disconnect and free be (and be->where, be->priv). */
	void (*close)(struct backend *be);
};

/*
 * struct backend: one live instance, made by its constructor
 * (backend_alloc()). The runner reads ops, where and error; priv is the
 * backend's alone. The backend's options (libvirt's hosts, a board's
 * --no-wait) are its constructor's argument, kept in priv: the runner
 * writes nothing here.
 */
struct backend {
	const struct backend_ops *ops;
	char *where;                 /* result.json "uri" (libvirt) or the board name;
				      * set by open() (or the constructor) */
	char error[512];             /* why open() failed (also printed) */
	void *priv;                  /* the backend's own state, opaque */
};

/* Does be have capability cap (BACKEND_CAP_*)? */
static inline bool backend_can(const struct backend *be, unsigned cap)
{
	return (be->ops->caps & cap) != 0;
}

/* libvirt's options (backend_libvirt_new()): the run's hosts; n_hosts 0:
 * open()'s where is the only one. The array must outlive the backend. */
struct libvirt_options {
	const struct backend_host *hosts;
	size_t n_hosts;
};

/* The boards' options (backend_board_new()). */
struct board_options {
	bool no_wait;                /* refuse a busy board at once (--no-wait)
				      * instead of waiting for its lock */
};

/* The three backends' constructors, each with its own options (NULL: the
 * defaults); each one's registry entry (registry.h) calls its own.
 * libvirt's is runner/libvirt/libvirt.c, in the virt module: this name, in
 * the executable, loads it (backend.c); when the module cannot be loaded,
 * the backend returned fails open() with the reason (INFRA_ERROR for every
 * boot, exit 125). The boards' is runner/board/board.c, linked in. LAVA's,
 * backend_lava_new() (lava.h), is runner/lava/lava.c in the lava module,
 * loaded the same way. Never NULL. */
struct backend *backend_libvirt_new(const struct libvirt_options *o);
struct backend *backend_board_new(const struct board_options *o);

#endif
