/*
 * config.h: bootrig's configuration, in libconfig files.
 *
 * The defaults are configs/targets.cfg, configs/suites.cfg and
 * configs/boards/NAME.cfg (found through bootrig_configs_dir()); a user's file
 * (--config FILE) is read after them and overrides any target, suite or
 * board by name, field by field. Every error is printed as
 * "FILE:LINE: what is wrong" and config_load() returns EXIT_CONFIG (78).
 *
 * File shape (each file may hold any of the three lists):
 *
 *   targets = ( { name = "arm64-virt"; arch = "arm64";
 *                 abis = [ "aarch64", "aarch64_ilp32", "arm" ];
 *                 emulator = "/usr/bin/qemu-system-aarch64"; qemu_arch = "aarch64";
 *                 machine = "virt"; cpu = "cortex-a57"; console = "ttyAMA0";
 *                 memory_mb = 512; vcpus = 1; append = "";
 *                 icount = "shift=3,sleep=off"; accel = "auto";
 *                 known_issues = [ "WARNING in arch_setup_dma_ops" ];
 *                 timeouts = { firmware = 30.0; kernel = 60.0; init = 60.0;
 *                              results = 600.0; end = 10.0; poweroff = 10.0;
 *                              silence = 60.0; kvm_proof = 15.0; }; } );
 *   suites  = ( { name = "smoke"; tests = [ "lat_syscall" ]; samples = 11;
 *                 min_samples = 3; ci_target = 1.0;
 *                 repeat = 1; test_timeout = 120.0; } );
 *   boards  = ( { name = "sim-arm64-tftp"; ... } );   (runner/board*.c reads these)
 *   files   = ( "/path/on/host:/path/in/initramfs" );
 *
 * A board of the same name as an earlier one overrides it field by field
 * too (groups inside merge; inherited fields carry no line of their own).
 * Unknown keys of targets, suites and the top level are errors, at their
 * line; a board's keys are checked by runner/.
 */
#ifndef BOOTRIG_CONFIG_H
#define BOOTRIG_CONFIG_H

#include <stddef.h>
#include "judge.h"

struct config_setting_t;

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
	char *accel;           /* "auto" (default), "kvm" or "tcg": see runner/libvirt.c's
				* accelerator rule; --accel overrides */
	double kvm_proof;      /* timeouts.kvm_proof: how long a boot under a KVM not yet
				* proven on this host may print no kernel output before
				* it is rerun under TCG (DEFAULT_KVM_PROOF) */
	char **known_issues;   /* title patterns of non-fatal events to expect */
	size_t n_known_issues;
	struct judge_limits limits;    /* its known_issues point at the two above */
};

#define DEFAULT_KVM_PROOF 15.0

struct suite {
	char *name;
	char **tests;          /* test families, e.g. "lat_syscall", "hackbench" */
	size_t n_tests;
	int samples;           /* the most samples per metric */
	int min_samples;       /* the fewest (initramfs/bench/stop.h) */
	double ci_target;      /* stop once the 95 % interval of the mean is within
				* this many percent of it; 0: always `samples` */
	int repeat;            /* how many times init runs the plan */
	double test_timeout;   /* watchdog per test binary, seconds */
};

struct config {
	struct target *targets;
	size_t n_targets;
	struct suite *suites;
	size_t n_suites;
	/* Boards stay as libconfig settings; runner/ parses them. The file
	 * each came from is kept for error messages. */
	struct config_setting_t **boards;
	const char **board_files;
	size_t n_boards;
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
const struct suite *config_find_suite(const struct config *cfg, const char *name);
/* The board's setting and the file it came from, or NULL. */
struct config_setting_t *config_find_board(const struct config *cfg, const char *name,
					   const char **file);

#endif
