/*
 * db.c: the history database (see db.h): its schema and version, opening
 * and checking a file, recording result.json files (import, run --db).
 * Reading kernels and sides back is db-read.c's.
 *
 * Every statement goes through sqlite3_prepare_v2 with bound parameters:
 * no text from a result.json is ever part of SQL. Writers take the write
 * lock at BEGIN IMMEDIATE and wait up to BUSY_MS for it (WAL lets readers
 * go on meanwhile), so two writers serialize instead of failing. Its files
 * are written through db-vfs.h's VFS, where a test makes any write fail.
 */
#include "db.h"
#include "db-internal.h"
#include "db-vfs.h"
#include "exitcodes.h"
#include "sha256.h"
#include "textsafe.h"
#include "util.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { SCHEMA_VERSION = 6, BUSY_MS = 120000 };

/* Version 2's addition: each boot's KTAP (KUnit) cases, result.json's
 * ktap.cases, in their order (compare's new-case check reads them). */
#define KTAP_CASE_SQL \
	"CREATE TABLE ktap_case (\n" \
	"  boot INTEGER NOT NULL REFERENCES boot(id) ON DELETE CASCADE,\n" \
	"  seq INTEGER NOT NULL,\n" \
	"  suite TEXT NOT NULL,            -- \"\" for a case outside a suite\n" \
	"  name TEXT NOT NULL,\n" \
	"  status TEXT NOT NULL,           -- ok, fail or skip\n" \
	"  PRIMARY KEY (boot, seq)\n" \
	");\n"

/* Version 3's addition: each boot's guest tests, result.json's tests[], in
 * their order (compare's JUnit report reads how long each ran). */
#define TEST_SQL \
	"CREATE TABLE test (\n" \
	"  boot INTEGER NOT NULL REFERENCES boot(id) ON DELETE CASCADE,\n" \
	"  seq INTEGER NOT NULL,\n" \
	"  abi TEXT NOT NULL,\n" \
	"  test TEXT NOT NULL,\n" \
	"  status TEXT,                    -- PASS, FAIL, ...\n" \
	"  reason TEXT,\n" \
	"  ms REAL,                        -- how long it ran, NULL: not reported\n" \
	"  PRIMARY KEY (boot, seq)\n" \
	");\n"

/* Version 4's addition: each boot's metric profiles (result.json
 * metrics[].profile with status "ok", issue 31): the header, every function
 * it lists (the guest's top 40) and every folded stack, each in its order;
 * seq is the metric's index in metrics[] (the metric table's seq). IF NOT
 * EXISTS: a file whose user_version was set back with these tables left
 * in it migrates all the same. */
#define PROFILE_SQL \
	"CREATE TABLE IF NOT EXISTS profile (\n" \
	"  boot INTEGER NOT NULL REFERENCES boot(id) ON DELETE CASCADE,\n" \
	"  seq INTEGER NOT NULL,           -- its metric's index in metrics[]\n" \
	"  abi TEXT NOT NULL,\n" \
	"  test TEXT NOT NULL,\n" \
	"  metric TEXT NOT NULL,           -- the metric's name\n" \
	"  event TEXT,                     -- cpu-clock, cycles\n" \
	"  period_ns REAL,\n" \
	"  samples REAL,\n" \
	"  lost REAL,\n" \
	"  stacks_other REAL,\n" \
	"  PRIMARY KEY (boot, seq)\n" \
	");\n" \
	"CREATE TABLE IF NOT EXISTS profile_function (\n" \
	"  boot INTEGER NOT NULL REFERENCES boot(id) ON DELETE CASCADE,\n" \
	"  seq INTEGER NOT NULL,           -- the profile's\n" \
	"  rank INTEGER NOT NULL,          -- its place in functions[]\n" \
	"  abi TEXT NOT NULL,\n" \
	"  test TEXT NOT NULL,\n" \
	"  metric TEXT NOT NULL,\n" \
	"  fn TEXT NOT NULL,\n" \
	"  self REAL NOT NULL,             -- percent of the profile's samples\n" \
	"  children REAL NOT NULL,\n" \
	"  PRIMARY KEY (boot, seq, rank)\n" \
	");\n" \
	"CREATE INDEX IF NOT EXISTS profile_function_fn ON profile_function(abi, test, metric, fn);\n" \
	"CREATE TABLE IF NOT EXISTS profile_stack (\n" \
	"  boot INTEGER NOT NULL REFERENCES boot(id) ON DELETE CASCADE,\n" \
	"  seq INTEGER NOT NULL,\n" \
	"  rank INTEGER NOT NULL,          -- its place in stacks[]\n" \
	"  abi TEXT NOT NULL,\n" \
	"  test TEXT NOT NULL,\n" \
	"  metric TEXT NOT NULL,\n" \
	"  stack TEXT NOT NULL,            -- folded, root first\n" \
	"  samples REAL NOT NULL,\n" \
	"  PRIMARY KEY (boot, seq, rank)\n" \
	");\n"

/* Version 6's addition: the perf stat events each boot could not count,
 * by ABI (result.json metrics[].perf_stat.absent: the first reason of an
 * ABI's event), so compare db: names them as compare of the directories
 * does. */
#define UNCOUNTED_SQL \
	"CREATE TABLE IF NOT EXISTS uncounted (\n" \
	"  boot INTEGER NOT NULL REFERENCES boot(id) ON DELETE CASCADE,\n" \
	"  abi TEXT NOT NULL,\n" \
	"  event TEXT NOT NULL,            -- cycles, instructions, ...\n" \
	"  reason TEXT,                    -- ENOENT, off, ...\n" \
	"  PRIMARY KEY (boot, abi, event)\n" \
	");\n"

/* Version 5's addition, columns (add_columns()): an icount boot's seed
 * (result.json seed when its clock is icount, else NULL: the seed the boot's
 * randomness came from, so compare db: counts a side's seeds as compare of
 * the directories does), and each profile's cut (result.json cut_self,
 * cut_children; NULL: not said). */
static const struct { int version; const char *table, *column, *type; } added_columns[] = {
	{ 5, "boot", "seed", "TEXT" },
	{ 5, "profile", "cut_self", "REAL" },
	{ 5, "profile", "cut_children", "REAL" },
};

/*
 * The schema, version 4 (version 1 without ktap_case, test and the profile
 * tables, version 2 without test and them, version 3 without them;
 * check_schema() migrates them); a new file is made at version 4 and
 * migrated to 5 and 6 like any other (added_columns, UNCOUNTED_SQL). A kernel is keyed by its file's sha256 (or, for
 * results older than kernel.sha256, by its kernel id); a boot by the
 * sha256 of its result.json. Everything a boot owns goes with it (ON
 * DELETE CASCADE).
 */
static const char schema_sql[] =
	"CREATE TABLE kernel (\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  key TEXT NOT NULL UNIQUE,      -- sha256, else 'id:' kernel_id\n"
	"  sha256 TEXT,                   -- the kernel file's, NULL: unknown\n"
	"  kernel_id TEXT NOT NULL,\n"
	"  version TEXT,                  -- result.json kernel.version\n"
	"  arch TEXT\n"
	");\n"
	"CREATE TABLE boot (\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  kernel INTEGER NOT NULL REFERENCES kernel(id) ON DELETE CASCADE,\n"
	"  result_sha256 TEXT NOT NULL UNIQUE,  -- of result.json's bytes\n"
	"  path TEXT NOT NULL,            -- where result.json was when recorded\n"
	"  recorded TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),\n"
	"  variant TEXT NOT NULL,\n"
	"  boot INTEGER NOT NULL,\n"
	"  started TEXT,\n"
	"  duration REAL,\n"
	"  append TEXT NOT NULL,          -- the kernel command line\n"
	"  image TEXT NOT NULL,           -- the initramfs's sha256 (or path)\n"
	"  backend TEXT,\n"
	"  target TEXT NOT NULL,\n"
	"  host TEXT NOT NULL,\n"
	"  accelerator TEXT,\n"
	"  clock TEXT,                    -- icount or wall\n"
	"  verdict TEXT NOT NULL,\n"
	"  reason TEXT NOT NULL,\n"
	"  title TEXT                     -- the first kernel event's title\n"
	");\n"
	"CREATE INDEX boot_kernel ON boot(kernel);\n"
	"CREATE TABLE abi (\n"
	"  boot INTEGER NOT NULL REFERENCES boot(id) ON DELETE CASCADE,\n"
	"  name TEXT NOT NULL,\n"
	"  status TEXT NOT NULL,\n"
	"  reason TEXT,\n"
	"  PRIMARY KEY (boot, name)\n"
	");\n"
	"CREATE TABLE event (\n"
	"  boot INTEGER NOT NULL REFERENCES boot(id) ON DELETE CASCADE,\n"
	"  seq INTEGER NOT NULL,\n"
	"  kind TEXT NOT NULL,\n"
	"  title TEXT NOT NULL,\n"
	"  fatal INTEGER,\n"
	"  PRIMARY KEY (boot, seq)\n"
	");\n"
	"CREATE TABLE stage (\n"
	"  boot INTEGER NOT NULL REFERENCES boot(id) ON DELETE CASCADE,\n"
	"  name TEXT NOT NULL,\n"
	"  t REAL NOT NULL,\n"
	"  PRIMARY KEY (boot, name)\n"
	");\n"
	"CREATE TABLE metric (\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  boot INTEGER NOT NULL REFERENCES boot(id) ON DELETE CASCADE,\n"
	"  seq INTEGER NOT NULL,\n"
	"  abi TEXT NOT NULL,\n"
	"  test TEXT NOT NULL,\n"
	"  name TEXT NOT NULL,\n"
	"  unit TEXT NOT NULL,\n"
	"  better TEXT NOT NULL,          -- lower or higher\n"
	"  obs REAL NOT NULL,             -- the boot's observation (compare's)\n"
	"  n INTEGER NOT NULL,            -- samples behind it\n"
	"  ci REAL, ci_target REAL, stop TEXT,\n"
	"  UNIQUE (boot, seq)\n"
	");\n"
	"CREATE INDEX metric_id ON metric(abi, test, name);\n"
	"CREATE TABLE sample (\n"
	"  metric INTEGER NOT NULL REFERENCES metric(id) ON DELETE CASCADE,\n"
	"  seq INTEGER NOT NULL,\n"
	"  value REAL NOT NULL,\n"
	"  PRIMARY KEY (metric, seq)\n"
	");\n"
	KTAP_CASE_SQL TEST_SQL PROFILE_SQL;

/* Each version: what makes it from the version before (1: schema_sql less
 * the later tables), and the tables it has. */
static const struct {
	const char *migrate;
	const char *tables;     /* an SQL list */
	long long ntables;
} versions[SCHEMA_VERSION + 1] = {
	[1] = { NULL, "('kernel','boot','abi','event','stage','metric','sample')", 7 },
	[2] = { KTAP_CASE_SQL, "('kernel','boot','abi','event','stage','metric','sample',"
		"'ktap_case')", 8 },
	[3] = { TEST_SQL, "('kernel','boot','abi','event','stage','metric','sample',"
		"'ktap_case','test')", 9 },
	[4] = { PROFILE_SQL, "('kernel','boot','abi','event','stage','metric','sample',"
		"'ktap_case','test','profile','profile_function','profile_stack')", 12 },
	[5] = { NULL, "('kernel','boot','abi','event','stage','metric','sample',"
		"'ktap_case','test','profile','profile_function','profile_stack')", 12 },
	[6] = { UNCOUNTED_SQL, "('kernel','boot','abi','event','stage','metric','sample',"
		"'ktap_case','test','profile','profile_function','profile_stack','uncounted')", 13 },
};

/* Runs sql (no parameters, no rows); 0 or -1 after a message. */
static int exec(struct history_db *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db->sql, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	error("%s: %s", db->path, msg ? msg : sqlite3_errmsg(db->sql));
	sqlite3_free(msg);
	return -1;
}

/* Ends the open transaction, if SQLite has not already (it rolls back by
 * itself after SQLITE_FULL and some I/O errors): nothing of it is kept. */
static void rollback(struct history_db *db)
{
	if (!sqlite3_get_autocommit(db->sql))
		exec(db, "ROLLBACK");
}

/* A prepared statement, or NULL after a message (db-internal.h). */
sqlite3_stmt *db_prepare(struct history_db *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) != SQLITE_OK) {
		error("%s: %s", db->path, sqlite3_errmsg(db->sql));
		return NULL;
	}
	return st;
}

/* query_int: the one integer a query returns (PRAGMA user_version, a
 * count) in *v, which may be any value, -1 too. 0, or -1 after a message
 * (the query failed, or gave no row). */
static int query_int(struct history_db *db, const char *sql, long long *v)
{
	sqlite3_stmt *st = db_prepare(db, sql);
	int ret = -1;
	if (!st)
		return -1;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*v = sqlite3_column_int64(st, 0);
		ret = 0;
	} else if (rc == SQLITE_DONE)
		error("%s: no row from %s", db->path, sql);
	else
		error("%s: %s", db->path, sqlite3_errmsg(db->sql));
	sqlite3_finalize(st);
	return ret;
}

void db_close(struct history_db *db)
{
	if (db->sql)
		sqlite3_close(db->sql);
	free(db->path);
	*db = (struct history_db){ 0 };
}

/* Makes version v from v - 1: its tables (IF NOT EXISTS), then its columns,
 * each unless the table has it already (a file whose user_version was set
 * back keeps its columns). 0 or -1 after a message. */
static int migrate(struct history_db *db, int v)
{
	int ret = versions[v].migrate ? exec(db, versions[v].migrate) : 0;
	for (size_t i = 0; i < ARRAY_SIZE(added_columns) && ret == 0; i++) {
		if (added_columns[i].version != v)
			continue;
		char *sql = xasprintf("SELECT count(*) FROM pragma_table_info('%s') WHERE name = '%s'",
				      added_columns[i].table, added_columns[i].column);
		long long have = 0;
		int got = query_int(db, sql, &have);
		free(sql);
		if (got < 0)
			return -1;
		if (have)
			continue;
		sql = xasprintf("ALTER TABLE %s ADD COLUMN %s %s", added_columns[i].table,
				added_columns[i].column, added_columns[i].type);
		ret = exec(db, sql);
		free(sql);
	}
	return ret;
}

/*
 * check_schema: makes the schema in an empty database (create), or checks
 * the one there is ours and of a version we read. Writing, in a write
 * transaction, so two processes creating one file make it once; read-only
 * (!create), in a read transaction: nothing is written, no lock beyond a
 * reader's is taken, and an empty file is not a history database. 0 or -1
 * after a message.
 */
static int check_schema(struct history_db *db, bool create)
{
	if (exec(db, create ? "BEGIN IMMEDIATE" : "BEGIN") < 0)
		return -1;
	long long version = 0, tables = 0;
	char *set_version = xasprintf("PRAGMA user_version = %d", SCHEMA_VERSION);
	int ret = 0;
	if (query_int(db, "PRAGMA user_version", &version) < 0 ||
	    query_int(db, "SELECT count(*) FROM sqlite_master", &tables) < 0)
		ret = -1;
	else if (version == 0 && tables == 0 && !create)
		ret = error("%s: an empty file, not a bootrig history database (bootrig import "
			    "makes one)", db->path);
	else if (version == 0 && tables == 0) {
		ret = exec(db, schema_sql);
		for (int v = 5; v <= SCHEMA_VERSION && ret == 0; v++)
			ret = migrate(db, v);
		if (ret == 0)
			ret = exec(db, set_version);
		version = ret == 0 ? SCHEMA_VERSION : version;
	} else if (version >= 1 && version < SCHEMA_VERSION && create) {
		/* an older version, by a writer: the later versions' tables, empty
		 * (boots recorded before them keep none of it: import them into a
		 * new database to have it). A reader reads an older version as it
		 * is, without them. */
		for (long long v = version + 1; v <= SCHEMA_VERSION && ret == 0; v++)
			ret = migrate(db, (int)v);
		if (ret == 0)
			ret = exec(db, set_version);
		version = ret == 0 ? SCHEMA_VERSION : version;
	} else if (version == 0)
		ret = error("%s: an SQLite database, but not a bootrig history database "
			    "(user_version 0 and %lld tables of its own)", db->path, tables);
	else if (version < 0 || version > SCHEMA_VERSION)
		ret = error("%s: history database schema version %lld; this bootrig reads "
			    "versions 1 to %d (%s)", db->path, version, SCHEMA_VERSION,
			    version < 0 ? "no bootrig writes a negative one" :
			    "a newer bootrig wrote it");
	if (ret == 0 && version >= 1 && version <= SCHEMA_VERSION) {
		char *sql = xasprintf("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
				      "name IN %s", versions[version].tables);
		long long have = 0;
		if (query_int(db, sql, &have) < 0)
			ret = -1;
		else if (have != versions[version].ntables)
			ret = error("%s: history database schema version %lld without all of its "
				    "tables", db->path, version);
		free(sql);
	}
	free(set_version);
	if (ret == 0 && exec(db, "COMMIT") < 0)
		ret = -1;
	if (ret < 0)
		rollback(db);
	db->version = (int)version;
	return ret;
}

/* set_wal: the file in WAL mode, waiting up to BUSY_MS for its lock: SQLite
 * asks no busy handler when two processes make one new file at once (each
 * holds a reader's lock and asks for the writer's; one is told SQLITE_BUSY
 * at once), and one of two imports so failed 13 times in 60. */
static int set_wal(sqlite3 *sql)
{
	double deadline = now_monotonic() + BUSY_MS / 1000.0;
	for (;;) {
		int rc = sqlite3_exec(sql, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
		if ((rc & 0xff) != SQLITE_BUSY || now_monotonic() > deadline)
			return rc;
		sqlite3_sleep(20);
	}
}

int db_path_check(const char *path)
{
	if (!*path || !strcmp(path, ":memory:") || !strncmp(path, "file:", 5))
		return error("--db '%s': a history database is a file's path, not SQLite's "
			     "\"\", \":memory:\" or a file: URI (for a file named so, write ./%s)",
			     path, path), EXIT_USAGE;
	return EXIT_PASS;
}

int db_open(struct history_db *db, const char *path, enum db_mode mode)
{
	bool create = mode == DB_CREATE;
	*db = (struct history_db){ .path = xstrdup(path) };
	int rc = db_path_check(path);
	if (rc) {
		db_close(db);
		return rc;
	}
	struct stat st;
	if (stat(path, &st) < 0 && !(create && errno == ENOENT)) {
		error("cannot open the history database %s: %s", path, strerror(errno));
		db_close(db);
		return EXIT_DATAERR;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		error("%s: not a history database (not a regular file)", path);
		db_close(db);
		return EXIT_DATAERR;
	}
	int flags = create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
	if (sqlite3_open_v2(path, &db->sql, flags, db_vfs_name()) != SQLITE_OK) {
		error("cannot open the history database %s: %s", path,
		      db->sql ? sqlite3_errmsg(db->sql) : "out of memory");
		db_close(db);
		return EXIT_DATAERR;
	}
	sqlite3_extended_result_codes(db->sql, 1);
	sqlite3_busy_timeout(db->sql, BUSY_MS);
	/* journal_mode first: it reads the header, so a file that is not a
	 * database is told here ("file is not a database"); a reader leaves
	 * the file's mode as it is, and reads the header by a query. */
	if ((create ? set_wal(db->sql) : sqlite3_exec(db->sql, "SELECT count(*) FROM sqlite_master",
						       NULL, NULL, NULL)) != SQLITE_OK) {
		error("%s: not a bootrig history database: %s", path, sqlite3_errmsg(db->sql));
		db_close(db);
		return EXIT_DATAERR;
	}
	if (exec(db, "PRAGMA foreign_keys = ON") < 0 ||
	    (create && exec(db, "PRAGMA synchronous = NORMAL") < 0) || check_schema(db, create) < 0) {
		db_close(db);
		return EXIT_DATAERR;
	}
	return EXIT_PASS;
}

/* --- recording ---------------------------------------------------------- */

/* One result.json read for recording. */
struct pending {
	char *path;             /* absolute */
	char sha[65];
	struct json_object *root;
};

/* Binds a string, or NULL when s is NULL. */
static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

/* Binds a number, or NULL when it is not finite. */
static void bind_num(sqlite3_stmt *st, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

/* Steps a statement that returns no row, then resets it; 0 or -1 after a message. */
static int step_done(struct history_db *db, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc == SQLITE_DONE)
		return 0;
	return error("%s: %s", db->path, sqlite3_errmsg(db->sql));
}

/* The statements of one import, prepared once. */
struct writer {
	struct history_db *db;
	sqlite3_stmt *known, *kernel, *kernel_id, *boot, *abi, *event, *stage, *metric, *sample;
	sqlite3_stmt *kcase, *test, *profile, *pfunc, *pstack, *uncounted;
};

static const char *const writer_sql[] = {
	"SELECT 1 FROM boot WHERE result_sha256 = ?1",
	"INSERT INTO kernel (key, sha256, kernel_id, version, arch) VALUES (?1, ?2, ?3, ?4, ?5) "
	"ON CONFLICT (key) DO UPDATE SET version = coalesce(version, excluded.version)",
	"SELECT id FROM kernel WHERE key = ?1",
	"INSERT INTO boot (kernel, result_sha256, path, variant, boot, started, duration, append, "
	"image, backend, target, host, accelerator, clock, verdict, reason, title, seed) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
	"INSERT INTO abi (boot, name, status, reason) VALUES (?1, ?2, ?3, ?4)",
	"INSERT INTO event (boot, seq, kind, title, fatal) VALUES (?1, ?2, ?3, ?4, ?5)",
	"INSERT INTO stage (boot, name, t) VALUES (?1, ?2, ?3)",
	"INSERT INTO metric (boot, seq, abi, test, name, unit, better, obs, n, ci, ci_target, stop) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
	"INSERT INTO sample (metric, seq, value) VALUES (?1, ?2, ?3)",
	"INSERT INTO ktap_case (boot, seq, suite, name, status) VALUES (?1, ?2, ?3, ?4, ?5)",
	"INSERT INTO test (boot, seq, abi, test, status, reason, ms) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	"INSERT INTO profile (boot, seq, abi, test, metric, event, period_ns, samples, lost, "
	"stacks_other, cut_self, cut_children) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
	"?11, ?12)",
	"INSERT INTO profile_function (boot, seq, rank, abi, test, metric, fn, self, children) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	"INSERT INTO profile_stack (boot, seq, rank, abi, test, metric, stack, samples) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	"INSERT OR IGNORE INTO uncounted (boot, abi, event, reason) VALUES (?1, ?2, ?3, ?4)",
};

static sqlite3_stmt **writer_stmt(struct writer *w, size_t i)
{
	sqlite3_stmt **v[] = { &w->known, &w->kernel, &w->kernel_id, &w->boot, &w->abi,
			       &w->event, &w->stage, &w->metric, &w->sample, &w->kcase,
			       &w->test, &w->profile, &w->pfunc, &w->pstack, &w->uncounted };
	return v[i];
}

/* Finalizes every statement of w. */
static void writer_free(struct writer *w)
{
	for (size_t i = 0; i < ARRAY_SIZE(writer_sql); i++)
		sqlite3_finalize(*writer_stmt(w, i));
}

/* Prepares w's statements; 0 or -1 after a message. */
static int writer_init(struct writer *w, struct history_db *db)
{
	*w = (struct writer){ .db = db };
	for (size_t i = 0; i < ARRAY_SIZE(writer_sql); i++)
		if (!(*writer_stmt(w, i) = db_prepare(db, writer_sql[i])))
			return -1;
	return 0;
}

/* The kernel row of a result (made if new): its id, or -1 after a message. */
static long long record_kernel(struct writer *w, struct json_object *root)
{
	struct json_object *k = result_get_object(root, "kernel");
	const char *sha = result_get_str(k, "sha256", NULL);
	const char *kid = result_get_str(k, "id", "?");
	char *key = sha ? xstrdup(sha) : xasprintf("id:%s", kid);
	bind_text(w->kernel, 1, key);
	bind_text(w->kernel, 2, sha);
	bind_text(w->kernel, 3, kid);
	bind_text(w->kernel, 4, result_get_str(k, "version", NULL));
	bind_text(w->kernel, 5, result_get_str(k, "arch", NULL));
	long long id = -1;
	if (step_done(w->db, w->kernel) == 0) {
		bind_text(w->kernel_id, 1, key);
		if (sqlite3_step(w->kernel_id) == SQLITE_ROW)
			id = sqlite3_column_int64(w->kernel_id, 0);
		else
			error("%s: %s", w->db->path, sqlite3_errmsg(w->db->sql));
		sqlite3_reset(w->kernel_id);
	}
	free(key);
	return id;
}

/* The title of the first kernel failure event, or NULL. */
static const char *first_title(struct json_object *events)
{
	size_t n = events ? json_object_array_length(events) : 0;
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(events, i);
		if (event_is_kernel_failure(result_get_str(e, "kind", "unknown")))
			return result_get_str(e, "title", "");
	}
	return NULL;
}

/* The boot row of p; its id, or -1 after a message. */
static long long record_boot(struct writer *w, const struct pending *p, long long kernel)
{
	struct json_object *r = p->root, *host = result_get_object(r, "host");
	const char *verdict = result_get_str(r, "verdict", "");
	double boot = result_get_num(r, "boot");
	sqlite3_stmt *st = w->boot;
	sqlite3_bind_int64(st, 1, kernel);
	bind_text(st, 2, p->sha);
	bind_text(st, 3, p->path);
	bind_text(st, 4, result_get_str(r, "variant", "default"));
	sqlite3_bind_int(st, 5, isfinite(boot) && fabs(boot) < INT_MAX ? (int)boot : 0);
	bind_text(st, 6, result_get_str(r, "started", NULL));
	bind_num(st, 7, result_get_num(r, "duration"));
	bind_text(st, 8, result_get_str(r, "append", ""));
	bind_text(st, 9, result_image(r));
	bind_text(st, 10, result_get_str(r, "backend", NULL));
	bind_text(st, 11, result_get_str(r, "target", ""));
	bind_text(st, 12, result_get_str(host, "name", ""));
	bind_text(st, 13, result_get_str(r, "accelerator", NULL));
	bind_text(st, 14, result_get_str(r, "clock", NULL));
	bind_text(st, 15, verdict);
	bind_text(st, 16, result_get_str(r, "reason", ""));
	bind_text(st, 17, first_title(result_get_array(r, "events")));
	bind_text(st, 18, result_seed(r));
	if (step_done(w->db, st) < 0)
		return -1;
	return sqlite3_last_insert_rowid(w->db->sql);
}

/* The boot's KTAP cases (ktap.cases: suite, case, status); 0 or -1. */
static int record_cases(struct writer *w, struct json_object *r, long long boot)
{
	struct json_object *ktap = result_get_object(r, "ktap");
	struct json_object *cases = ktap ? result_get_array(ktap, "cases") : NULL;
	for (size_t i = 0, n = cases ? json_object_array_length(cases) : 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(cases, i);
		sqlite3_bind_int64(w->kcase, 1, boot);
		sqlite3_bind_int64(w->kcase, 2, (long long)i);
		bind_text(w->kcase, 3, result_get_str(e, "suite", ""));
		bind_text(w->kcase, 4, result_get_str(e, "case", ""));
		bind_text(w->kcase, 5, result_get_str(e, "status", ""));
		if (step_done(w->db, w->kcase) < 0)
			return -1;
	}
	return 0;
}

/* The boot's guest tests (tests[]: abi, test, status, reason, ms), those
 * that name their ABI and test; 0 or -1 after a message. */
static int record_tests(struct writer *w, struct json_object *r, long long boot)
{
	struct json_object *tests = result_get_array(r, "tests");
	for (size_t i = 0, n = tests ? json_object_array_length(tests) : 0; i < n; i++) {
		struct json_object *t = json_object_array_get_idx(tests, i);
		const char *abi = result_get_str(t, "abi", NULL), *test = result_get_str(t, "test", NULL);
		if (!abi || !test)
			continue;
		sqlite3_bind_int64(w->test, 1, boot);
		sqlite3_bind_int64(w->test, 2, (long long)i);
		bind_text(w->test, 3, abi);
		bind_text(w->test, 4, test);
		bind_text(w->test, 5, result_get_str(t, "status", NULL));
		bind_text(w->test, 6, result_get_str(t, "reason", NULL));
		bind_num(w->test, 7, result_get_num(t, "ms"));
		if (step_done(w->db, w->test) < 0)
			return -1;
	}
	return 0;
}

/* The boot's ABI table, events and stages; 0 or -1 after a message. */
static int record_tables(struct writer *w, struct json_object *r, long long boot)
{
	struct json_object *abis = result_get_object(r, "abis");
	if (abis) {
		json_object_object_foreach(abis, name, entry) {
			sqlite3_bind_int64(w->abi, 1, boot);
			bind_text(w->abi, 2, name);
			bind_text(w->abi, 3, result_get_str(entry, "status", "error"));
			bind_text(w->abi, 4, result_get_str(entry, "reason", NULL));
			if (step_done(w->db, w->abi) < 0)
				return -1;
		}
	}
	struct json_object *events = result_get_array(r, "events");
	for (size_t i = 0, n = events ? json_object_array_length(events) : 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(events, i), *fatal = NULL;
		sqlite3_bind_int64(w->event, 1, boot);
		sqlite3_bind_int64(w->event, 2, (long long)i);
		bind_text(w->event, 3, result_get_str(e, "kind", "unknown"));
		bind_text(w->event, 4, result_get_str(e, "title", ""));
		if (json_object_object_get_ex(e, "fatal", &fatal) &&
		    json_object_is_type(fatal, json_type_boolean))
			sqlite3_bind_int(w->event, 5, json_object_get_boolean(fatal));
		if (step_done(w->db, w->event) < 0)
			return -1;
	}
	struct json_object *stages = result_get_object(r, "stages");
	for (int i = 0; stages && i < RESULT_STAGES; i++) {
		double t = result_get_num(stages, result_stage_names[i]);
		if (isnan(t))
			continue;
		sqlite3_bind_int64(w->stage, 1, boot);
		bind_text(w->stage, 2, result_stage_names[i]);
		sqlite3_bind_double(w->stage, 3, t);
		if (step_done(w->db, w->stage) < 0)
			return -1;
	}
	return 0;
}

/* A metric row of boot at seq (stop: result.json's, or NULL): its id, or
 * -1 after a message. */
static long long insert_metric(struct writer *w, long long boot, size_t seq,
			       const struct side_observation *o, const char *stop)
{
	sqlite3_stmt *st = w->metric;
	sqlite3_bind_int64(st, 1, boot);
	sqlite3_bind_int64(st, 2, (long long)seq);
	bind_text(st, 3, o->abi);
	bind_text(st, 4, o->test);
	bind_text(st, 5, o->name);
	bind_text(st, 6, o->unit);
	bind_text(st, 7, o->higher_better ? "higher" : "lower");
	sqlite3_bind_double(st, 8, o->obs);
	sqlite3_bind_int64(st, 9, (long long)o->samples);
	bind_num(st, 10, o->ci);
	bind_num(st, 11, o->ci_target);
	bind_text(st, 12, stop);
	if (step_done(w->db, st) < 0)
		return -1;
	return sqlite3_last_insert_rowid(w->db->sql);
}

/* Where a metric's counters go: the boot, the next seq, the first error. */
struct counter_rows {
	struct writer *w;
	long long boot;
	size_t seq;
	int ret;
};

/* result_perf_stat()'s add: a counter is a metric row of its own (its
 * name "NAME:perf-stat.EVENT", one observation, no sample rows). */
static void insert_counter(void *ctx, const struct side_observation *c)
{
	struct counter_rows *cr = ctx;
	if (cr->ret == 0 && insert_metric(cr->w, cr->boot, cr->seq++, c, NULL) < 0)
		cr->ret = -1;
}

/* result_perf_stat_absent()'s add: an uncounted row of the boot (ctx, a
 * struct counter_rows); an (abi, event) the boot has already keeps its
 * first reason, as a boot record does (boot_record_add_uncounted()). */
static int insert_uncounted(void *ctx, const char *abi, const char *event, const char *reason)
{
	struct counter_rows *cr = ctx;
	sqlite3_bind_int64(cr->w->uncounted, 1, cr->boot);
	bind_text(cr->w->uncounted, 2, abi);
	bind_text(cr->w->uncounted, 3, event);
	bind_text(cr->w->uncounted, 4, reason);
	return step_done(cr->w->db, cr->w->uncounted);
}

/* Every metric of the boot, with its samples, each followed by its perf
 * stat counters (result_perf_stat()), seq in that order, the order a side
 * read from result.json has; 0 or -1 after a message. */
static int record_metrics(struct writer *w, struct json_object *r, long long boot)
{
	struct json_object *metrics = result_get_array(r, "metrics");
	struct counter_rows cr = { .w = w, .boot = boot };
	for (size_t i = 0, n = metrics ? json_object_array_length(metrics) : 0; i < n; i++) {
		struct json_object *m = json_object_array_get_idx(metrics, i);
		struct side_observation o;
		if (!result_metric_entry(m, &o))
			continue;
		long long metric = insert_metric(w, boot, cr.seq++, &o, result_get_str(m, "stop", NULL));
		if (metric < 0)
			return -1;
		struct json_object *samples = result_get_array(m, "samples");
		for (size_t k = 0, ns = samples ? json_object_array_length(samples) : 0; k < ns; k++) {
			struct json_object *v = json_object_array_get_idx(samples, k);
			if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
				continue;
			sqlite3_bind_int64(w->sample, 1, metric);
			sqlite3_bind_int64(w->sample, 2, (long long)k);
			sqlite3_bind_double(w->sample, 3, json_object_get_double(v));
			if (step_done(w->db, w->sample) < 0)
				return -1;
		}
		result_perf_stat(m, &o, insert_counter, &cr);
		if (cr.ret < 0 || result_perf_stat_absent(m, &o, insert_uncounted, &cr) < 0)
			return -1;
	}
	return 0;
}

/* Binds the first six columns of a profile table's row: boot, seq, rank
 * (profile_function, profile_stack) or the identity's first (profile). */
static void bind_profile_key(sqlite3_stmt *st, long long boot, size_t seq, const char *const id[3],
			     bool ranked, size_t rank)
{
	int c = 1;
	sqlite3_bind_int64(st, c++, boot);
	sqlite3_bind_int64(st, c++, (long long)seq);
	if (ranked)
		sqlite3_bind_int64(st, c++, (long long)rank);
	for (int i = 0; i < 3; i++)
		bind_text(st, c++, id[i]);
}

/* The entries of arr (a profile's functions or stacks) into st, each
 * ranked by its place: its text key, then its numbers (non-finite: 0);
 * entries without the text are skipped. 0 or -1 after a message. */
static int record_ranked(struct writer *w, sqlite3_stmt *st, struct json_object *arr,
			 const char *text, const char *const *nums, int nnums, long long boot,
			 size_t seq, const char *const id[3])
{
	for (size_t i = 0, n = arr ? json_object_array_length(arr) : 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(arr, i);
		if (!result_get_str(e, text, NULL))
			continue;
		bind_profile_key(st, boot, seq, id, true, i);
		bind_text(st, 7, result_get_str(e, text, NULL));
		for (int k = 0; k < nnums; k++) {
			double v = result_get_num(e, nums[k]);
			sqlite3_bind_double(st, 8 + k, isfinite(v) ? v : 0);
		}
		if (step_done(w->db, st) < 0)
			return -1;
	}
	return 0;
}

/* One metric's profile (metrics[seq].profile, status ok): its row, its
 * functions' and its stacks'. 0 or -1 after a message. */
static int record_profile(struct writer *w, struct json_object *prof, long long boot, size_t seq,
			  const char *const id[3])
{
	bind_profile_key(w->profile, boot, seq, id, false, 0);
	bind_text(w->profile, 6, result_get_str(prof, "event", NULL));
	static const char *const nums[] = { "period_ns", "samples", "lost", "stacks_other",
					    "cut_self", "cut_children" };
	for (int i = 0; i < 6; i++)
		bind_num(w->profile, 7 + i, result_get_num(prof, nums[i]));
	if (step_done(w->db, w->profile) < 0)
		return -1;
	static const char *const fn_nums[] = { "self", "children" }, *const stack_nums[] = { "samples" };
	if (record_ranked(w, w->pfunc, result_get_array(prof, "functions"), "name", fn_nums, 2, boot,
			  seq, id) < 0)
		return -1;
	return record_ranked(w, w->pstack, result_get_array(prof, "stacks"), "stack", stack_nums, 1,
			     boot, seq, id);
}

/* Every metric's profile with status ok (the ones a boot record takes,
 * results.h); 0 or -1 after a message. */
static int record_profiles(struct writer *w, struct json_object *r, long long boot)
{
	struct json_object *metrics = result_get_array(r, "metrics");
	for (size_t i = 0, n = metrics ? json_object_array_length(metrics) : 0; i < n; i++) {
		struct json_object *m = json_object_array_get_idx(metrics, i);
		struct json_object *prof = result_get_object(m, "profile");
		const char *id[3] = { result_get_str(m, "abi", NULL), result_get_str(m, "test", NULL),
				      result_get_str(m, "name", NULL) };
		if (!prof || strcmp(result_get_str(prof, "status", ""), "ok") || !id[0] || !id[1] ||
		    !id[2])
			continue;
		if (record_profile(w, prof, boot, i, id) < 0)
			return -1;
	}
	return 0;
}

/* Records p unless its boot is known: 1 added, 0 known, -1 after a message. */
static int record_one(struct writer *w, const struct pending *p)
{
	bind_text(w->known, 1, p->sha);
	int rc = sqlite3_step(w->known);
	sqlite3_reset(w->known);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc != SQLITE_DONE)
		return error("%s: %s", w->db->path, sqlite3_errmsg(w->db->sql));
	long long kernel = record_kernel(w, p->root);
	long long boot = kernel < 0 ? -1 : record_boot(w, p, kernel);
	if (boot < 0 || record_tables(w, p->root, boot) < 0 || record_cases(w, p->root, boot) < 0 ||
	    record_tests(w, p->root, boot) < 0 || record_metrics(w, p->root, boot) < 0 ||
	    record_profiles(w, p->root, boot) < 0)
		return -1;
	return 1;
}

/* Reads every result.json below paths into *out, each boot once (the
 * copies left out added to *copies); 0 or -1 after a message. */
static int read_pending(char *const *paths, size_t n, struct pending **out, size_t *nout,
			size_t *copies)
{
	int ret = 0;
	for (size_t i = 0; i < n && ret == 0; i++) {
		char **files;
		size_t nfiles, *ncopies;
		ret = results_list(paths[i], &files, &ncopies, &nfiles);
		if (ret == 0 && nfiles == 0)
			ret = error("%s: no result.json at or below it", paths[i]);
		for (size_t f = 0; f < nfiles; f++) {
			char *text;
			size_t len;
			if (ret == 0 && read_file_max(files[f], &text, &len, RESULT_JSON_MAX_BYTES) < 0)
				ret = error("cannot read %s: %s", files[f],
					    errno == EFBIG ? "larger than a result.json can be (64 MiB)"
							   : strerror(errno));
			else if (ret == 0) {
				struct pending p = { 0 };
				sha256_hex(text, len, p.sha);
				int parsed = result_json_parse(files[f], text, len, &p.root);
				free(text);
				if (parsed < 0) {
					ret = -1;
				} else {
					p.path = realpath(files[f], NULL);
					if (!p.path)
						p.path = xstrdup(files[f]);
					*out = xrealloc(*out, (*nout + 1) * sizeof(**out));
					(*out)[(*nout)++] = p;
				}
			}
			*copies += ncopies[f];
			free(files[f]);
		}
		free(files);
		free(ncopies);
	}
	return ret;
}

int db_import(const char *path, char *const *paths, size_t n, struct db_import_count *count)
{
	struct pending *p = NULL;
	size_t np = 0;
	*count = (struct db_import_count){ 0 };
	int ret = read_pending(paths, n, &p, &np, &count->copies);
	if (ret < 0) {          /* refused before the database is opened (or made) */
		for (size_t i = 0; i < np; i++)
			free(p[i].path), json_object_put(p[i].root);
		free(p);
		return EXIT_DATAERR;
	}
	struct history_db store, *db = &store;
	int rc = db_open(db, path, DB_CREATE);
	if (rc)
		ret = -1;
	struct writer w = { 0 };
	if (ret == 0)
		ret = writer_init(&w, db);
	if (ret == 0)
		ret = exec(db, "BEGIN IMMEDIATE");
	if (ret == 0) {
		for (size_t i = 0; i < np && ret == 0; i++) {
			int rc = record_one(&w, &p[i]);
			if (rc < 0)
				ret = -1;
			else
				*(rc ? &count->added : &count->known) += 1;
		}
		writer_free(&w);
		w = (struct writer){ 0 };
		if (ret == 0 && exec(db, "COMMIT") < 0)
			ret = -1;
		if (ret < 0) {
			rollback(db);
			count->added = 0;
		}
	}
	writer_free(&w);
	if (!rc)
		db_close(db);
	for (size_t i = 0; i < np; i++)
		free(p[i].path), json_object_put(p[i].root);
	free(p);
	return rc ? rc : ret < 0 ? EXIT_DATAERR : EXIT_PASS;
}

int db_check(const char *path)
{
	struct history_db db;
	int rc = db_open(&db, path, DB_CREATE);
	if (rc == EXIT_PASS)
		db_close(&db);
	return rc;
}

int db_record(const char *path, char *const *files, size_t n)
{
	struct db_import_count count;
	int rc = db_import(path, files, n, &count);
	if (rc == EXIT_PASS)
		fprintf(stderr, "bootrig: %zu boot%s recorded in %s\n", count.added,
			count.added == 1 ? "" : "s", term_str(path));
	else
		error("the boots were not recorded in %s (their results are kept)", term_str(path));
	return rc;
}
