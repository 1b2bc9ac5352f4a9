/*
 * result.h: result.json for one boot (runner/RESULTS.md), written whole or
 * not at all. The runner says what was booted and how (struct
 * result_info); the judge adds what the console showed (judge_to_json).
 */
#ifndef BOOTRIG_RESULT_H
#define BOOTRIG_RESULT_H

#include <stddef.h>
#include <time.h>

struct kernel_size;

struct judge;
struct json_object;
struct machine_fact;

/* One attempt of a boot on a libvirt host (result.json "attempts"). */
struct result_attempt {
	char *host, *uri;
	char *error;                 /* why the host failed it, or NULL (the last one) */
};

struct result_info {
	const char *kernel_path;     /* what the user gave */
	const char *kernel_id;
	const char *kernel_arch;
	const char *kernel_version;  /* or NULL */
	const char *kernel_sha256;   /* the kernel file's sha256 (hex), or NULL */
	/* a git tree's HEAD commit, describe and remote (builder/kernel.h), or NULL */
	const char *kernel_git_commit, *kernel_git_describe, *kernel_git_url;
	const struct kernel_size *kernel_size;   /* kernel.size, or NULL: none written */
	const char *variant;
	int boot;                    /* from 1 */
	const char *append;          /* the whole kernel command line */
	const char *initramfs;       /* the image booted, or NULL */
	const char *initramfs_sha256;    /* its sha256, or NULL */
	const char *backend;         /* "libvirt", "board" */
	const char *target;          /* target or board name */
	const char *uri;             /* libvirt only, else NULL */
	const char *accelerator;     /* "kvm", "tcg", "board" */
	const char *accelerator_reason;   /* why that one, or NULL */
	const char *accelerator_fallback; /* why KVM was left for TCG, or NULL */
	const char *clock;           /* "icount" or "wall" */
	const char *seed;            /* icount: QEMU's -seed (backend.h), or NULL */
	time_t started;              /* wall clock at power-on */
	double duration;             /* seconds, power-on to end */
	size_t console_recovered;    /* console bytes taken from the backend's log */
	/* The place (libvirt: the host) that ran the boot, or NULL: no "host"
	 * object; its facts (backend.h, struct machine_place): the object's
	 * keys after "name" and "uri", up to MACHINE_MAX_FACTS or a NULL key */
	const char *host_name;
	const struct machine_fact *host_facts;
	const struct result_attempt *attempts;   /* every attempt, in order (n >= 2
						  * only when a host failed it) */
	size_t n_attempts;
	struct json_object *backend_section;    /* the backend's own section, or NULL:
						 * result_write() takes it, under the
						 * backend's name, last (backend.h) */
};

/* result.json's most bytes, counted on the JSON text as written (a control
 * byte of a record is six there): below what its readers accept
 * (RESULT_JSON_MAX_BYTES, compare/results.h), so a boot bootrig wrote is
 * always one it can read. */
#define RESULT_JSON_WRITE_MAX (RESULT_JSON_MAX_BYTES / 8 * 7)

/* Writes DIR/result.json, the one time a boot's is written (it takes
 * info->backend_section). 0, or -1 (error printed, errno set). Past
 * RESULT_JSON_WRITE_MAX the metrics' profiles are left out first, each
 * replaced by status "incomplete" with the reason; then the metrics from
 * the last, counted in "metrics_not_written", with a warning. */
int result_write(const char *dir, const struct result_info *info, const struct judge *j);

/* The ISO 8601 UTC form of t ("2026-11-29T23:30:00Z") into buf[21]. */
void result_format_time(time_t t, char buf[21]);

#endif
