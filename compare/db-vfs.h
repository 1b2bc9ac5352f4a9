/*
 * db-vfs.h: the history database's SQLite VFS, "bootrig": the default VFS
 * with every write, sync, truncate, open and delete of its files first
 * asking lib/oscall.h whether a test made that call fail (oscall_fault()).
 * A failure is handed to SQLite as its own VFS hands one (ENOSPC:
 * SQLITE_FULL; otherwise SQLITE_IOERR_WRITE, _FSYNC, _TRUNCATE, _DELETE,
 * SQLITE_CANTOPEN), so SQLite rolls the transaction back whole; EINTR is
 * retried, as the default VFS retries it. In a normal run it only forwards.
 */
#ifndef BOOTRIG_DB_VFS_H
#define BOOTRIG_DB_VFS_H

/* Registers the VFS (once; not as the default) and returns its name, for
 * sqlite3_open_v2(). NULL (SQLite's default VFS) if it cannot be made. */
const char *db_vfs_name(void);

#endif
