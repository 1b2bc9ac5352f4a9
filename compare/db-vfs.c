/*
 * db-vfs.c: the history database's VFS (db-vfs.h), a shim over SQLite's
 * default one (SQLite's test_vfstrace.c and its fault tests have the same
 * shape).
 *
 * The VFS object is the default's, copied, with xOpen and xDelete of its
 * own and room for a shim file in front of the default's file; a shim
 * file's methods forward to the default's file, xWrite, xSync and
 * xTruncate after asking oscall_fault().
 */
#include "db-vfs.h"
#include "oscall.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <string.h>

/* A file of ours: the default VFS's file follows it in the same block. */
struct shim_file {
	sqlite3_file base;
	sqlite3_file *real;
};

static sqlite3_vfs *real_vfs;
static sqlite3_vfs shim_vfs;
static const sqlite3_io_methods shim_io;

static sqlite3_file *real_of(sqlite3_file *f)
{
	return ((struct shim_file *)f)->real;
}

/* Asks oscall_fault() for kind, EINTR retried: SQLITE_OK, or the code
 * SQLite's own VFS gives for that errno (ENOSPC: SQLITE_FULL, else ioerr). */
static int fault(enum oscall_kind kind, int ioerr)
{
	int err;
	while ((err = oscall_fault(kind)) == EINTR)
		;
	if (!err)
		return SQLITE_OK;
	return err == ENOSPC ? SQLITE_FULL : ioerr;
}

/* --- the file's methods: forwarders ------------------------------------- */

static int shim_close(sqlite3_file *f)
{
	sqlite3_file *r = real_of(f);
	return r->pMethods ? r->pMethods->xClose(r) : SQLITE_OK;
}

static int shim_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
	return real_of(f)->pMethods->xRead(real_of(f), buf, n, off);
}

static int shim_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off)
{
	int rc = fault(OSCALL_WRITE, SQLITE_IOERR_WRITE);
	return rc ? rc : real_of(f)->pMethods->xWrite(real_of(f), buf, n, off);
}

static int shim_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	int rc = fault(OSCALL_TRUNCATE, SQLITE_IOERR_TRUNCATE);
	return rc ? rc : real_of(f)->pMethods->xTruncate(real_of(f), size);
}

static int shim_sync(sqlite3_file *f, int flags)
{
	int rc = fault(OSCALL_FSYNC, SQLITE_IOERR_FSYNC);
	return rc ? rc : real_of(f)->pMethods->xSync(real_of(f), flags);
}

static int shim_size(sqlite3_file *f, sqlite3_int64 *size)
{
	return real_of(f)->pMethods->xFileSize(real_of(f), size);
}

static int shim_lock(sqlite3_file *f, int level)
{
	return real_of(f)->pMethods->xLock(real_of(f), level);
}

static int shim_unlock(sqlite3_file *f, int level)
{
	return real_of(f)->pMethods->xUnlock(real_of(f), level);
}

static int shim_check_lock(sqlite3_file *f, int *out)
{
	return real_of(f)->pMethods->xCheckReservedLock(real_of(f), out);
}

static int shim_control(sqlite3_file *f, int op, void *arg)
{
	return real_of(f)->pMethods->xFileControl(real_of(f), op, arg);
}

static int shim_sector(sqlite3_file *f)
{
	return real_of(f)->pMethods->xSectorSize(real_of(f));
}

static int shim_device(sqlite3_file *f)
{
	return real_of(f)->pMethods->xDeviceCharacteristics(real_of(f));
}

/* The methods below exist from the default file's iVersion 2 (WAL's shared
 * memory) and 3 (mmap); shim_open() hands out shim_io only to files whose
 * methods have them. */
static int shim_shm_map(sqlite3_file *f, int pg, int pgsz, int extend, void volatile **p)
{
	return real_of(f)->pMethods->xShmMap(real_of(f), pg, pgsz, extend, p);
}

static int shim_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
	return real_of(f)->pMethods->xShmLock(real_of(f), offset, n, flags);
}

static void shim_shm_barrier(sqlite3_file *f)
{
	real_of(f)->pMethods->xShmBarrier(real_of(f));
}

static int shim_shm_unmap(sqlite3_file *f, int del)
{
	return real_of(f)->pMethods->xShmUnmap(real_of(f), del);
}

static int shim_fetch(sqlite3_file *f, sqlite3_int64 off, int n, void **p)
{
	return real_of(f)->pMethods->xFetch(real_of(f), off, n, p);
}

static int shim_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
	return real_of(f)->pMethods->xUnfetch(real_of(f), off, p);
}

static const sqlite3_io_methods shim_io = {
	.iVersion = 3,
	.xClose = shim_close, .xRead = shim_read, .xWrite = shim_write,
	.xTruncate = shim_truncate, .xSync = shim_sync, .xFileSize = shim_size,
	.xLock = shim_lock, .xUnlock = shim_unlock, .xCheckReservedLock = shim_check_lock,
	.xFileControl = shim_control, .xSectorSize = shim_sector,
	.xDeviceCharacteristics = shim_device,
	.xShmMap = shim_shm_map, .xShmLock = shim_shm_lock, .xShmBarrier = shim_shm_barrier,
	.xShmUnmap = shim_shm_unmap, .xFetch = shim_fetch, .xUnfetch = shim_unfetch,
};

/* --- the VFS's own methods ---------------------------------------------- */

/* Opens the default's file behind ours. A file whose methods lack what
 * shim_io forwards (an older VFS) is handed out as the default's. */
static int shim_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
	(void)vfs;
	struct shim_file *p = (struct shim_file *)f;
	p->base.pMethods = NULL;
	p->real = (sqlite3_file *)(p + 1);
	int rc = fault(OSCALL_OPEN, SQLITE_CANTOPEN);
	if (rc)
		return rc;
	rc = real_vfs->xOpen(real_vfs, name, p->real, flags, out);
	if (p->real->pMethods)          /* set even when the open failed: closed by xClose */
		p->base.pMethods = p->real->pMethods->iVersion >= 3 ? &shim_io : NULL;
	if (p->real->pMethods && !p->base.pMethods) {
		p->real->pMethods->xClose(p->real);
		return rc ? rc : SQLITE_CANTOPEN;
	}
	return rc;
}

static int shim_delete(sqlite3_vfs *vfs, const char *name, int sync_dir)
{
	(void)vfs;
	int rc = fault(OSCALL_UNLINK, SQLITE_IOERR_DELETE);
	return rc ? rc : real_vfs->xDelete(real_vfs, name, sync_dir);
}

/* Makes shim_vfs from the default VFS and registers it. */
static void make_vfs(void)
{
	sqlite3_initialize();
	sqlite3_vfs *d = sqlite3_vfs_find(NULL);
	if (!d || d->iVersion < 1)
		return;
	shim_vfs = *d;
	shim_vfs.pNext = NULL;
	shim_vfs.zName = "bootrig";
	shim_vfs.szOsFile = (int)sizeof(struct shim_file) + d->szOsFile;
	shim_vfs.xOpen = shim_open;
	shim_vfs.xDelete = shim_delete;
	real_vfs = d;
	if (sqlite3_vfs_register(&shim_vfs, 0) != SQLITE_OK)
		real_vfs = NULL;
}

const char *db_vfs_name(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, make_vfs);
	return real_vfs ? shim_vfs.zName : NULL;
}
