/*
 * oscall.h: the OS calls that write what a boot leaves behind, through one
 * table, so that a test can make any one of them fail (SQLite's habit: its
 * os_unix.c calls the system through aSyscall[]).
 *
 * Who goes through it: every file bootrig writes whole (util.h's
 * write_file_atomic() and kin: result.json, console.log, console.tlog, a
 * board's files, caches), mkdir_p(), and the history database, whose
 * SQLite VFS (compare/db-vfs.c) asks oscall_fault() before each write,
 * sync, truncate, open and delete of its files. Nothing else needs to.
 *
 * The contract, for a caller:
 *   1. os_<call>() is the system call of that name, with its return value
 *      and errno; in a normal run it is that call, reached through
 *      oscall_table (one indirect call and one counter, nothing printed).
 *   2. EINTR is the caller's to retry (open, write, fsync, fdatasync,
 *      ftruncate, rename, unlink, mkdir): a call a signal interrupted did
 *      nothing. close() is the exception: on Linux the descriptor is gone
 *      even then, so EINTR from os_close() is not an error and never retried.
 *   3. Any other errno (ENOSPC, EIO...) is a failure the caller reports:
 *      what it was writing is not there (util.h's atomic writes leave the
 *      earlier whole file, and no temporary file), and a boot whose record
 *      could not be written is INFRA_ERROR, never PASS.
 *
 * For a test (tests/unit/test_osfault.c):
 *   oscall_reset();                         counts to 0, no fault armed
 *   ... run the scenario ...; n = oscall_count(OSCALL_WRITE);
 *   oscall_inject(OSCALL_WRITE, 3, ENOSPC); the 3rd write from now fails
 *   ... run it again ...; oscall_fired() says whether it did.
 * An armed fault fires once (a later call of that kind is real again), in
 * whichever thread makes that call. A test may also replace an entry of
 * oscall_table (and must put it back).
 */
#ifndef BOOTRIG_OSCALL_H
#define BOOTRIG_OSCALL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum oscall_kind {
	OSCALL_OPEN,
	OSCALL_WRITE,
	OSCALL_FSYNC,
	OSCALL_FDATASYNC,
	OSCALL_TRUNCATE,        /* ftruncate */
	OSCALL_RENAME,
	OSCALL_UNLINK,
	OSCALL_MKDIR,
	OSCALL_CLOSE,
	OSCALL_KINDS
};

/* The table: one entry per kind, the system's own calls unless a test put
 * another there. */
struct oscall_table {
	int (*open)(const char *path, int flags, mode_t mode);
	ssize_t (*write)(int fd, const void *buf, size_t n);
	int (*fsync)(int fd);
	int (*fdatasync)(int fd);
	int (*ftruncate)(int fd, off_t len);
	int (*rename)(const char *from, const char *to);
	int (*unlink)(const char *path);
	int (*mkdir)(const char *path, mode_t mode);
	int (*close)(int fd);
};
extern struct oscall_table oscall_table;

int os_open(const char *path, int flags, mode_t mode);
ssize_t os_write(int fd, const void *buf, size_t n);
int os_fsync(int fd);
int os_fdatasync(int fd);
int os_ftruncate(int fd, off_t len);
int os_rename(const char *from, const char *to);
int os_unlink(const char *path);
int os_mkdir(const char *path, mode_t mode);
int os_close(int fd);

/* The kind's name ("open", "write", ...), for messages. */
const char *oscall_name(enum oscall_kind kind);

/*
 * oscall_fault: counts one call of kind and says whether it is to fail:
 * 0 (make the call), or the errno an armed fault gives. The os_*()
 * functions ask it first; a layer that makes its calls elsewhere (the
 * database's VFS) asks it itself and fails as that layer fails.
 */
int oscall_fault(enum oscall_kind kind);

/* Counts to zero, the fault disarmed. */
void oscall_reset(void);
/* Calls of kind since oscall_reset(). */
unsigned long oscall_count(enum oscall_kind kind);
/* Arms one fault: the nth call of kind from now (n >= 1) fails with err. */
void oscall_inject(enum oscall_kind kind, unsigned long nth, int err);
/* Has the armed fault fired since it was armed? */
bool oscall_fired(void);

#endif
