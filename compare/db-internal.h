/*
 * db-internal.h: what the history database's writer (db.c) and reader
 * (db-read.c) share, and nothing outside them includes.
 */
#ifndef BOOTRIG_DB_INTERNAL_H
#define BOOTRIG_DB_INTERNAL_H

#include "db.h"

struct sqlite3_stmt;

/* db_prepare: sql prepared on db (bound parameters only, never text of a
 * result.json in sql), or NULL after a message naming db's file. */
struct sqlite3_stmt *db_prepare(struct history_db *db, const char *sql);

#endif
