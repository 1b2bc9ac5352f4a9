/*
 * kcidb.h: bootrig's results as KCIDB I/O data (KernelCI's common report
 * database), schema v4.5 as kcidb-io publishes it (vendored in
 * tests/kcidb/, the tests validate against it).
 *
 * The mapping:
 *   checkout  one per kernel (result.json kernel.id): comment the kernel's
 *             version, misc its id, path and arch;
 *   build     one per kernel, variant, initramfs and command line (what
 *             bootrig booted): architecture, config_name the variant, the
 *             kernel file as an output file, misc the initramfs sha256 and
 *             the command line;
 *   test      per boot, path "boot": status from the verdict (PASS PASS;
 *             FAIL, PANIC, HANG, BOOT_FAIL FAIL; INFRA_ERROR MISS: the
 *             harness failed, the kernel's state is unknown), log_url the
 *             file:// URL of its console.log, start_time and duration,
 *             environment {comment, misc: target, backend, host,
 *             accelerator, clock}, log_excerpt the first fatal event's
 *             excerpt, misc the verdict, reason, result directory and the
 *             kernel failure events;
 *             per ABI, path "bootrig.<abi>": ok PASS, unsupported SKIP,
 *             error FAIL;
 *             per ABI test, path "bootrig.<abi>.<test>": PASS, FAIL, SKIP,
 *             anything else ERROR;
 *             per metric, path "bootrig.<abi>.<test>.<name>", status DONE,
 *             "number" {value: the boot's median, unit}, misc the rest of
 *             the metric (n, min, max, mean, stddev, samples, ...).
 * Path components are the names with every byte outside [a-zA-Z0-9_-]
 * made '_'. IDs are "<origin>:" and the first 32 hex digits of the
 * SHA-256 of what identifies the object (the kernel id; the build's
 * parts; the boot's kernel, variant, image, command line, target, host,
 * boot number and start time; a sub-test's boot id and path): exporting
 * the same results again gives the same IDs.
 */
#ifndef BOOTRIG_KCIDB_H
#define BOOTRIG_KCIDB_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;

#define KCIDB_MAJOR 4
#define KCIDB_MINOR 5

/* Is origin a KCIDB origin name ([a-z0-9_]+)? */
bool kcidb_origin_valid(const char *origin);

/*
 * kcidb_export: the KCIDB document of every result.json at or below each
 * of paths[0..n), in order, from origin (kcidb_origin_valid). NULL after
 * an error message naming the file and what is wrong with it: unreadable,
 * not JSON (a truncated file), not a bootrig result, or a field missing
 * or of the wrong type (kernel.id, variant, boot, verdict, the entries of
 * abis, tests and metrics); also when no result.json is found. The
 * caller puts the document.
 */
struct json_object *kcidb_export(const char *const *paths, size_t n, const char *origin);

#endif
