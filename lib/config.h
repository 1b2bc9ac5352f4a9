/*
 * config.h: bootrig's configuration, in libconfig files.
 *
 * The defaults are configs/targets.cfg, configs/suites.cfg and
 * configs/boards/NAME.cfg (found through bootrig_configs_dir()); a user's file
 * (--config FILE) is read after them and overrides any target, suite or
 * board by name, field by field. Every error is printed as
 * "FILE:LINE: what is wrong" and config_load() returns EXIT_CONFIG (78).
 *
 * File shape (each file may hold any of the lists):
 *
 *   targets = ( { name = "arm64-virt"; arch = "arm64";
 *                 abis = [ "aarch64", "aarch64_ilp32", "arm" ];
 *                 emulator = "/usr/bin/qemu-system-aarch64"; qemu_arch = "aarch64";
 *                 machine = "virt"; cpu = "cortex-a57"; console = "ttyAMA0";
 *                 memory_mb = 512; vcpus = 1; append = "";
 *                 icount = "shift=3,sleep=off";
 *                 backend = "...";        (optional: the backend that boots it, one
 *                                          of those registered; the backends' own
 *                                          keys too: accel = "auto", device_type...)
 *                 known_issues = [ "WARNING in arch_setup_dma_ops" ];
 *                 timeouts = { firmware = 30.0; kernel = 60.0; init = 60.0;
 *                              results = 600.0; end = 10.0; poweroff = 10.0;
 *                              silence = 60.0; }; } );   (and the backends'
 *                                                          own timeouts keys)
 *   suites  = ( { name = "smoke"; tests = [ "lat_syscall" ]; samples = 11;
 *                 min_samples = 3; ci_target = 1.0;
 *                 repeat = 1; test_timeout = 120.0;
 *                 profile = false; } );     (true: the plan has profile=1)
 *   files   = ( "/path/on/host:/path/in/initramfs" );
 *
 * The backends' keys (config_extend(), registered by the runner before
 * config_load()): a target's extra keys, which the backend reads from the
 * target's own groups (config_target_string()), and top-level lists of
 * named groups (boards = ( ... ), hosts = ( ... ): runner/board/ and
 * runner/libvirt/ read their own), kept as libconfig settings. A group of
 * the same name as an earlier one in such a list overrides it field by
 * field (groups inside merge; inherited fields carry no line of their
 * own), or, in a list that replaces, a later file's list replaces an
 * earlier one's.
 *
 * Unknown keys of targets, suites and the top level are errors, at their
 * line; a list group's keys are checked by its owner.
 */
#ifndef BOOTRIG_CONFIG_H
#define BOOTRIG_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include "stages.h"

struct config_setting_t;

/* The most config_extend() registrations. */
#define CONFIG_MAX_EXTENSIONS 8

struct target {
	char *name;
	char *arch;            /* kernel arch: "arm64", "x86_64", "arm" */
	char **abis;           /* ABIs this arch can run, native first */
	size_t n_abis;
	char *emulator;        /* qemu-system-* path */
	char *qemu_arch;       /* libvirt <type arch=>: aarch64, x86_64, armv7l */
	char *machine;         /* virt, q35, ... */
	char *cpu;             /* cortex-a57, max, ... */
	char *console;         /* ttyAMA0, ttyS0 */
	int memory_mb;
	int vcpus;
	char *append;          /* extra kernel arguments */
	char *icount;          /* QEMU -icount options for TCG boots ("shift=3,sleep=off"),
				* "" = off: the guest's clock then counts instructions,
				* not host time (never with KVM) */
	char *backend;         /* the backend that boots it (a name config_extend()
				* registered), or NULL: the runner's default */
	/* Every group of targets that set this target, in the order read (a
	 * later one overrides an earlier one field by field): the backends
	 * read their own keys there (config_target_string()). */
	struct config_setting_t **groups;
	size_t n_groups;
	char **known_issues;   /* title patterns of non-fatal events to expect */
	size_t n_known_issues;
	struct judge_limits limits;    /* its known_issues point at the two above */
};

/* The suite run and build plan when no --suite is given. */
#define CONFIG_DEFAULT_SUITE "smoke"

/* A target's icount when its config sets none, and what --clock icount
 * uses for a target that turned it off (""). */
#define CONFIG_DEFAULT_ICOUNT "shift=3,sleep=off"

struct suite {
	char *name;
	char **tests;          /* test families, e.g. "lat_syscall", "hackbench" */
	size_t n_tests;
	int samples;           /* the most samples per metric */
	int min_samples;       /* the fewest (initramfs/bench/stop.h) */
	double ci_target;      /* stop once the 95 % interval of the median is within
				* this many percent of it; 0: always `samples` */
	int repeat;            /* how many times init runs the plan */
	double test_timeout;   /* watchdog per test binary, seconds */
	bool profile;          /* profile the kernel behind every metric (the plan's
				* profile=1, as run --profile's bootrig.profile=1) */
	bool boot_time;        /* time the boot's initcalls (the plan's boot_time=1;
				* run adds initcall_debug, as for --boot-time) */
	bool perf_stat;        /* perf stat's counters per metric (default true;
				* the plan's perf_stat=0 makes init pass the
				* tests counters=0: initramfs/bench/perfstat.h) */
};

struct config {
	struct target *targets;
	size_t n_targets;
	struct suite *suites;
	size_t n_suites;
	/* The registered lists (config_extend()), as libconfig settings, and
	 * the file each group came from: config_groups(). */
	struct config_list {
		const char *key;
		struct config_setting_t **groups;
		const char **files;
		size_t n;
	} lists[CONFIG_MAX_EXTENSIONS];
	size_t n_lists;
	/* Extra initramfs files, "SRC:/DEST", from `files = ( ... )` in
	 * any file, in the order read. */
	char **files;
	size_t n_files;
	void *priv;            /* the loaded libconfig documents */
};

/* Loads the defaults, then user_file if not NULL. 0, or EXIT_CONFIG. */
int config_load(const char *user_file, struct config *cfg);
void config_release(struct config *cfg);

const struct target *config_find_target(const struct config *cfg, const char *name);
/* The first target of that kernel arch ("arm64"...), or NULL. */
const struct target *config_target_for_arch(const struct config *cfg, const char *arch);
/*
 * config_pick_target: the machine for a kernel of arch ("arm64"...) named
 * kernel in the messages: the target called name (--target), or when name
 * is NULL the arch's first. NULL after a message when there is none
 * (*rc = EXIT_CONFIG, or EXIT_USAGE for a name not found) or the one named
 * is for another arch (*rc = EXIT_USAGE); else *rc = 0.
 */
const struct target *config_pick_target(const struct config *cfg, const char *name,
					const char *arch, const char *kernel, int *rc);
const struct suite *config_find_suite(const struct config *cfg, const char *name);

/*
 * config_extension: the keys one backend owns, registered with
 * config_extend() before config_load() (runner/registry.c does it for
 * every backend). owner is the backend's name: the values config accepts
 * for a target's `backend` are the owners registered with boots_targets. target_keys (NULL-
 * terminated, or NULL) are keys a target may hold besides config's own:
 * config checks that each is a string, the backend reads it
 * (config_target_string()). list (or NULL) is a top-level list of named
 * groups it owns: each group must have a name; a group named as an earlier
 * one overrides it field by field; the owner checks the groups' keys
 * (config_groups(), config_find_group()). dir (or NULL) is a folder of
 * default files for it.
 */
struct config_extension {
	const char *owner;
	bool boots_targets;    /* a target's `backend` may name it (a board's
				* backend, whose machines are its own, does not) */
	const char *const *target_keys;
	const char *const *timeout_keys;   /* NULL-terminated, or NULL: keys of a
				* target's timeouts group it owns; config checks each
				* is a number of seconds, the backend reads it
				* (config_target_timeout()) */
	const char *list;
	const char *dir;       /* or NULL: a folder of bootrig_configs_dir() whose
				* .cfg files, in name order, are read after the
				* defaults (configs/boards/) */
	bool replaces;         /* a later file's list replaces an earlier one's,
				* and a name twice in one list is an error ("WHAT
				* 'NAME' is listed twice") */
	const char *what;      /* a group of the list, for that message: "host" */
	/* Optional: checks one group of the list (named name) when it is read:
	 * its keys and values, errors at their line. 0 or EXIT_CONFIG. */
	int (*check)(const struct config_setting_t *g, const char *name);
	/* Optional: checks the values of its target_keys in one group of
	 * targets when it is read (each is a string already), errors at their
	 * line. 0 or EXIT_CONFIG. */
	int (*check_target)(const struct config_setting_t *g);
};

/* Registers x (kept: a static table); the same x twice counts once. At
 * most CONFIG_MAX_EXTENSIONS. */
void config_extend(const struct config_extension *x);

/* config_target_timeout: target t's timeouts.key (one of a backend's
 * timeout_keys) in seconds, from the last of its groups that sets it, or
 * dflt. */
double config_target_timeout(const struct target *t, const char *key, double dflt);

/*
 * config_target_string: the string of target t's key (one of a backend's
 * target_keys, or config's own "backend"), from the last of its groups that
 * sets it, or NULL. Its type was checked by config_load().
 */
const char *config_target_string(const struct target *t, const char *key);

/* The groups of the registered list key, in order (*n of them; the file
 * each came from into *files when files is not NULL), or NULL when none. */
struct config_setting_t *const *config_groups(const struct config *cfg, const char *key,
					      size_t *n, const char *const **files);
/* The group of list key named name and the file it came from, or NULL. */
struct config_setting_t *config_find_group(const struct config *cfg, const char *key,
					   const char *name, const char **file);

/*
 * The libconfig readers: config.c's own, and a backend's for its own groups
 * (runner/board/board-config.c's). Each reads g's member key when it is there (absent: 0 and *out
 * unchanged) and reports a wrong one at its line, as
 * "FILE:LINE: message", or "FILE:LINE: WHAT 'NAME': message" when where
 * names what the setting belongs to (a group of a list, its name); where->file is
 * the file named for settings libconfig knows no file of (inherited
 * ones). Each returns 0 or EXIT_CONFIG.
 */
struct config_where {
	const char *file;
	const char *what, *name;      /* what: NULL for none */
};

__attribute__((format(printf, 3, 4)))
int config_fail(const struct config_where *w, const struct config_setting_t *s,
		const char *fmt, ...);
/* Refuses a member of group g whose name is not one of keys[0..n) (NULL
 * entries skipped): a typo must not pass. what names g in the message. */
int config_check_keys(const struct config_where *w, const struct config_setting_t *g,
		      const char *const *keys, size_t n, const char *what);
/* A string: *out is replaced with a copy (the old one freed). */
int config_get_string(const struct config_where *w, const struct config_setting_t *g,
		       const char *key, char **out);
/* An integer in [min, max]. */
int config_get_int(const struct config_where *w, const struct config_setting_t *g,
		    const char *key, int min, int max, int *out);
/* A number of seconds >= 0 (integers accepted). */
int config_get_seconds(const struct config_where *w, const struct config_setting_t *g,
			const char *key, double *out);
/* true or false. */
int config_get_bool(const struct config_where *w, const struct config_setting_t *g,
		     const char *key, bool *out);

#endif
