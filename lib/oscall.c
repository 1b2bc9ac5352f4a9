/*
 * oscall.c: the OS call table and its fault injection (oscall.h).
 *
 * The counters and the armed fault are atomics: run -j writes from the
 * main loop while workers may create directories, and a test's fault must
 * fire exactly once whoever reaches it.
 */
#include "oscall.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static int sys_open(const char *path, int flags, mode_t mode)
{
	return open(path, flags, mode);
}

struct oscall_table oscall_table = {
	.open = sys_open, .write = write, .fsync = fsync, .fdatasync = fdatasync,
	.ftruncate = ftruncate, .rename = rename, .unlink = unlink, .mkdir = mkdir,
	.close = close,
};

static const char *const names[OSCALL_KINDS] = {
	[OSCALL_OPEN] = "open",           [OSCALL_WRITE] = "write",
	[OSCALL_FSYNC] = "fsync",         [OSCALL_FDATASYNC] = "fdatasync",
	[OSCALL_TRUNCATE] = "ftruncate",  [OSCALL_RENAME] = "rename",
	[OSCALL_UNLINK] = "unlink",       [OSCALL_MKDIR] = "mkdir",
	[OSCALL_CLOSE] = "close",
};

static atomic_ulong counts[OSCALL_KINDS];
/* The armed fault: its kind (-1: none), the count at which it fires, its errno. */
static atomic_int armed_kind = -1;
static atomic_ulong armed_at;
static atomic_int armed_errno;
static atomic_bool fired;

const char *oscall_name(enum oscall_kind kind)
{
	return kind < OSCALL_KINDS ? names[kind] : "?";
}

int oscall_fault(enum oscall_kind kind)
{
	unsigned long n = atomic_fetch_add_explicit(&counts[kind], 1, memory_order_relaxed) + 1;
	if (atomic_load_explicit(&armed_kind, memory_order_relaxed) != (int)kind ||
	    n != atomic_load(&armed_at))
		return 0;
	int want = (int)kind;
	if (!atomic_compare_exchange_strong(&armed_kind, &want, -1))
		return 0;
	atomic_store(&fired, true);
	return atomic_load(&armed_errno);
}

/* Fails the call (errno set, -1) when a fault fires for kind. */
#define FAULT_OR_CALL(kind, call)                       \
	do {                                            \
		int err_ = oscall_fault(kind);          \
		if (err_) {                             \
			errno = err_;                   \
			return -1;                      \
		}                                       \
		return call;                            \
	} while (0)

int os_open(const char *path, int flags, mode_t mode)
{
	FAULT_OR_CALL(OSCALL_OPEN, oscall_table.open(path, flags, mode));
}

ssize_t os_write(int fd, const void *buf, size_t n)
{
	FAULT_OR_CALL(OSCALL_WRITE, oscall_table.write(fd, buf, n));
}

int os_fsync(int fd)
{
	FAULT_OR_CALL(OSCALL_FSYNC, oscall_table.fsync(fd));
}

int os_fdatasync(int fd)
{
	FAULT_OR_CALL(OSCALL_FDATASYNC, oscall_table.fdatasync(fd));
}

int os_ftruncate(int fd, off_t len)
{
	FAULT_OR_CALL(OSCALL_TRUNCATE, oscall_table.ftruncate(fd, len));
}

int os_rename(const char *from, const char *to)
{
	FAULT_OR_CALL(OSCALL_RENAME, oscall_table.rename(from, to));
}

int os_unlink(const char *path)
{
	FAULT_OR_CALL(OSCALL_UNLINK, oscall_table.unlink(path));
}

int os_mkdir(const char *path, mode_t mode)
{
	FAULT_OR_CALL(OSCALL_MKDIR, oscall_table.mkdir(path, mode));
}

/* An injected close() failure still closes: a descriptor is gone after
 * close() whatever it returned (oscall.h, 2.), and a test must not leak it. */
int os_close(int fd)
{
	int err = oscall_fault(OSCALL_CLOSE);
	int rc = oscall_table.close(fd);
	if (err) {
		errno = err;
		return -1;
	}
	return rc;
}

void oscall_reset(void)
{
	atomic_store(&armed_kind, -1);
	atomic_store(&fired, false);
	for (int k = 0; k < OSCALL_KINDS; k++)
		atomic_store(&counts[k], 0);
}

unsigned long oscall_count(enum oscall_kind kind)
{
	return atomic_load(&counts[kind]);
}

void oscall_inject(enum oscall_kind kind, unsigned long nth, int err)
{
	atomic_store(&armed_kind, -1);
	atomic_store(&fired, false);
	atomic_store(&armed_errno, err);
	atomic_store(&armed_at, atomic_load(&counts[kind]) + nth);
	atomic_store(&armed_kind, (int)kind);
}

bool oscall_fired(void)
{
	return atomic_load(&fired);
}
