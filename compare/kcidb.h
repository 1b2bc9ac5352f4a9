/*
 * kcidb.h: bootrig's results as KCIDB I/O data (KernelCI's common report
 * database), schema v5.3, the latest kcidb-io publishes (vendored in
 * tests/kcidb/, the tests validate against it).
 *
 * The mapping:
 *   checkout  one per kernel (result.json kernel.id): comment the kernel's
 *             version; git_commit_hash, git_commit_name and
 *             git_repository_url from export's --git-commit/--git-url, else
 *             from kernel.git (a kernel `run` took from a git tree: commit,
 *             describe, url), the URL only when https:// (v5 allows no
 *             other); misc its id and, when absolute, its path;
 *   build     one per kernel and initramfs (what bootrig booted; a variant
 *             or command line is not a build, it is the test's
 *             environment): architecture, status PASS, the kernel file as
 *             an output file (when its path is absolute), misc the
 *             initramfs sha256 and bootrig's version;
 *   test      per boot, path "boot" (kcidb's tests.yaml: "Machine booted
 *             with the tested kernel"): status from the verdict (PASS PASS;
 *             FAIL, PANIC, HANG, BOOT_FAIL FAIL; INFRA_ERROR MISS: the
 *             harness failed, the kernel's state is unknown), log_url the
 *             file:// URL of its console.log, start_time and duration,
 *             environment {comment: the variant, its command line, target,
 *             backend, host, accelerator; misc: variant, append, target,
 *             backend, host, accelerator, clock, uri}, log_excerpt the
 *             first fatal event's excerpt, misc the verdict, reason, the
 *             absolute result directory and the kernel failure events;
 *             per ABI, path "boot.bootrig.<abi>": ok PASS, unsupported SKIP,
 *             error FAIL;
 *             per ABI test, path "boot.bootrig.<abi>.<test>": PASS, FAIL,
 *             SKIP, anything else ERROR;
 *             per metric, path "boot.bootrig.<abi>.<test>.<name>", status
 *             DONE, "number" {value: the boot's median, unit}, misc the
 *             rest of the metric (n, min, max, mean, stddev, samples, ...);
 *             per KUnit case (result.json ktap.cases), path
 *             "kunit.<suite>.<case>" (tests.yaml's "kunit"; each of the
 *             suite's '.'-separated names a component, none for a case
 *             outside any suite): ok PASS, fail FAIL, skip SKIP, anything
 *             else ERROR; the boot's log_url and start_time, comment the
 *             directive's reason, misc the suite, case and KTAP status.
 *             The names are the guest's: a case whose suite or case name
 *             is empty, over 256 bytes or without a letter or digit, or
 *             whose path is over 1024 bytes, is not exported, counted in
 *             the boot test's misc.kunit_not_exported (when non-zero) and
 *             in a warning.
 * Every test of a boot shares its environment. Path components are the
 * names with every byte outside [a-zA-Z0-9_-] made '_'. IDs are "<origin>:"
 * and the first 32 hex digits of the SHA-256 of what identifies the object
 * (the kernel id; the kernel id and initramfs; the boot's kernel, variant,
 * image, command line, target, host, boot number and start time; a
 * sub-test's boot id and path; a KUnit case's boot id, suite, case and
 * occurrence, 2 for the same names again): exporting the same results again
 * gives the same IDs. Nothing exported is a path relative to where export ran.
 */
#ifndef BOOTRIG_KCIDB_H
#define BOOTRIG_KCIDB_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;

#define KCIDB_MAJOR 5
#define KCIDB_MINOR 3

/* Is origin a KCIDB origin name ([a-z0-9_]+)? */
bool kcidb_origin_valid(const char *origin);
/* Is sha a git_commit_hash (40 lowercase hex digits)? */
bool kcidb_git_commit_valid(const char *sha);
/* Is url a v5 git_repository_url (https://, no white space)? */
bool kcidb_git_url_valid(const char *url);

/* What export's options say of every checkout (NULL: not given). */
struct kcidb_git {
	const char *commit;     /* kcidb_git_commit_valid */
	const char *url;        /* kcidb_git_url_valid */
};

/*
 * kcidb_export: the KCIDB document of every result.json at or below each
 * of paths[0..n), in order, from origin (kcidb_origin_valid), git (may be
 * NULL) overriding every result's kernel.git. NULL after an error message
 * naming the file and what is wrong with it: unreadable, not JSON (a
 * truncated file), not a bootrig result, or a field missing or of the
 * wrong type (kernel.id, variant, boot, verdict, the entries of abis,
 * tests and metrics); also when no result.json is found. The caller puts
 * the document.
 */
struct json_object *kcidb_export(const char *const *paths, size_t n, const char *origin,
				 const struct kcidb_git *git);

#endif
