/*
 * db.c: the history database (see db.h): its schema and version, opening
 * and checking a file, recording result.json files (import, run --db), and
 * reading kernels and sides back.
 *
 * Every statement goes through sqlite3_prepare_v2 with bound parameters:
 * no text from a result.json is ever part of SQL. Writers take the write
 * lock at BEGIN IMMEDIATE and wait up to BUSY_MS for it (WAL lets readers
 * go on meanwhile), so two writers serialize instead of failing. Its files
 * are written through db-vfs.h's VFS, where a test makes any write fail.
 */
#include "db.h"
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

enum { SCHEMA_VERSION = 2, BUSY_MS = 120000 };

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

/*
 * The schema, version 2 (version 1 without ktap_case; check_schema()
 * migrates it). A kernel is keyed by its file's sha256 (or, for
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
	KTAP_CASE_SQL;

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

/* A prepared statement, or NULL after a message. */
static sqlite3_stmt *prepare(struct history_db *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) != SQLITE_OK) {
		error("%s: %s", db->path, sqlite3_errmsg(db->sql));
		return NULL;
	}
	return st;
}

/* The one integer a query returns (PRAGMA user_version, a count): -1 on error. */
static long long query_int(struct history_db *db, const char *sql)
{
	sqlite3_stmt *st = prepare(db, sql);
	long long v = -1;
	if (!st)
		return -1;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_DONE)
		error("%s: %s", db->path, sqlite3_errmsg(db->sql));
	sqlite3_finalize(st);
	return v;
}

void db_close(struct history_db *db)
{
	if (db->sql)
		sqlite3_close(db->sql);
	free(db->path);
	*db = (struct history_db){ 0 };
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
	long long version = query_int(db, "PRAGMA user_version");
	long long tables = query_int(db, "SELECT count(*) FROM sqlite_master");
	int ret = 0;
	if (version < 0 || tables < 0)
		ret = -1;
	else if (version == 0 && tables == 0 && !create)
		ret = error("%s: an empty file, not a bootrig history database (bootrig import "
			    "makes one)", db->path);
	else if (version == 0 && tables == 0) {
		ret = exec(db, schema_sql);
		if (ret == 0)
			ret = exec(db, "PRAGMA user_version = 2");
		version = ret == 0 ? SCHEMA_VERSION : version;
	} else if (version == 1 && create) {
		/* version 1 -> 2, by a writer: the KTAP case table, empty (boots
		 * recorded before it keep no cases: import them into a new database
		 * to have them). A reader reads version 1 as it is, without cases. */
		ret = exec(db, KTAP_CASE_SQL "PRAGMA user_version = 2;");
		version = ret == 0 ? SCHEMA_VERSION : version;
	} else if (version == 1) {
		if (query_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
			      "('kernel','boot','abi','event','stage','metric','sample')") != 7)
			ret = error("%s: history database schema version 1 without all of its tables",
				    db->path);
	} else if (version == 0)
		ret = error("%s: an SQLite database, but not a bootrig history database "
			    "(user_version 0 and %lld tables of its own)", db->path, tables);
	else if (version > SCHEMA_VERSION)
		ret = error("%s: history database schema version %lld; this bootrig reads "
			    "version %d (a newer bootrig wrote it)", db->path, version,
			    SCHEMA_VERSION);
	if (ret == 0 && version == SCHEMA_VERSION &&
	    query_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
		      "('kernel','boot','abi','event','stage','metric','sample','ktap_case')") != 8)
		ret = error("%s: history database schema version %d without all of its tables",
			    db->path, SCHEMA_VERSION);
	if (ret == 0 && exec(db, "COMMIT") < 0)
		ret = -1;
	if (ret < 0)
		rollback(db);
	db->version = (int)version;
	return ret;
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
	if (sqlite3_exec(db->sql, create ? "PRAGMA journal_mode = WAL" : "SELECT count(*) FROM sqlite_master",
			 NULL, NULL, NULL) != SQLITE_OK) {
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
	sqlite3_stmt *kcase;
};

static const char *const writer_sql[] = {
	"SELECT 1 FROM boot WHERE result_sha256 = ?1",
	"INSERT INTO kernel (key, sha256, kernel_id, version, arch) VALUES (?1, ?2, ?3, ?4, ?5) "
	"ON CONFLICT (key) DO UPDATE SET version = coalesce(version, excluded.version)",
	"SELECT id FROM kernel WHERE key = ?1",
	"INSERT INTO boot (kernel, result_sha256, path, variant, boot, started, duration, append, "
	"image, backend, target, host, accelerator, clock, verdict, reason, title) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
	"INSERT INTO abi (boot, name, status, reason) VALUES (?1, ?2, ?3, ?4)",
	"INSERT INTO event (boot, seq, kind, title, fatal) VALUES (?1, ?2, ?3, ?4, ?5)",
	"INSERT INTO stage (boot, name, t) VALUES (?1, ?2, ?3)",
	"INSERT INTO metric (boot, seq, abi, test, name, unit, better, obs, n, ci, ci_target, stop) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
	"INSERT INTO sample (metric, seq, value) VALUES (?1, ?2, ?3)",
	"INSERT INTO ktap_case (boot, seq, suite, name, status) VALUES (?1, ?2, ?3, ?4, ?5)",
};

static sqlite3_stmt **writer_stmt(struct writer *w, size_t i)
{
	sqlite3_stmt **v[] = { &w->known, &w->kernel, &w->kernel_id, &w->boot, &w->abi,
			       &w->event, &w->stage, &w->metric, &w->sample, &w->kcase };
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
		if (!(*writer_stmt(w, i) = prepare(db, writer_sql[i])))
			return -1;
	return 0;
}

/* A member object of o, or NULL. */
static struct json_object *get_object(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;
	if (o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_object))
		return v;
	return NULL;
}

/* The first word of a kernel version string, malloc'd ("" for NULL). */
static char *version_word(const char *version)
{
	if (!version)
		return xstrdup("");
	size_t n = strcspn(version, " \t");
	char *w = xmalloc(n + 1);
	memcpy(w, version, n);
	w[n] = '\0';
	return w;
}

/* The kernel row of a result (made if new): its id, or -1 after a message. */
static long long record_kernel(struct writer *w, struct json_object *root)
{
	struct json_object *k = get_object(root, "kernel");
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

/* The boot's initramfs: sha256, else path, else "" (as results.c reads it). */
static const char *image_of(struct json_object *root)
{
	struct json_object *img = get_object(root, "initramfs");
	const char *sha = result_get_str(img, "sha256", NULL);
	return sha ? sha : result_get_str(img, "path", "");
}

/* The boot row of p; its id, or -1 after a message. */
static long long record_boot(struct writer *w, const struct pending *p, long long kernel)
{
	struct json_object *r = p->root, *host = get_object(r, "host");
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
	bind_text(st, 9, image_of(r));
	bind_text(st, 10, result_get_str(r, "backend", NULL));
	bind_text(st, 11, result_get_str(r, "target", ""));
	bind_text(st, 12, result_get_str(host, "name", ""));
	bind_text(st, 13, result_get_str(r, "accelerator", NULL));
	bind_text(st, 14, result_get_str(r, "clock", NULL));
	bind_text(st, 15, verdict);
	bind_text(st, 16, result_get_str(r, "reason", ""));
	bind_text(st, 17, first_title(result_get_array(r, "events")));
	if (step_done(w->db, st) < 0)
		return -1;
	return sqlite3_last_insert_rowid(w->db->sql);
}

/* The boot's KTAP cases (ktap.cases: suite, case, status); 0 or -1. */
static int record_cases(struct writer *w, struct json_object *r, long long boot)
{
	struct json_object *ktap = get_object(r, "ktap");
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

/* The boot's ABI table, events and stages; 0 or -1 after a message. */
static int record_tables(struct writer *w, struct json_object *r, long long boot)
{
	struct json_object *abis = get_object(r, "abis");
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
	struct json_object *stages = get_object(r, "stages");
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

/* Every metric of the boot, with its samples; 0 or -1 after a message. */
static int record_metrics(struct writer *w, struct json_object *r, long long boot)
{
	struct json_object *metrics = result_get_array(r, "metrics");
	for (size_t i = 0, n = metrics ? json_object_array_length(metrics) : 0; i < n; i++) {
		struct json_object *m = json_object_array_get_idx(metrics, i);
		struct side_observation o;
		if (!result_metric_entry(m, &o))
			continue;
		sqlite3_stmt *st = w->metric;
		sqlite3_bind_int64(st, 1, boot);
		sqlite3_bind_int64(st, 2, (long long)i);
		bind_text(st, 3, o.abi);
		bind_text(st, 4, o.test);
		bind_text(st, 5, o.name);
		bind_text(st, 6, o.unit);
		bind_text(st, 7, o.higher_better ? "higher" : "lower");
		sqlite3_bind_double(st, 8, o.obs);
		sqlite3_bind_int64(st, 9, (long long)o.samples);
		bind_num(st, 10, o.ci);
		bind_num(st, 11, o.ci_target);
		bind_text(st, 12, result_get_str(m, "stop", NULL));
		if (step_done(w->db, st) < 0)
			return -1;
		long long metric = sqlite3_last_insert_rowid(w->db->sql);
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
	    record_metrics(w, p->root, boot) < 0)
		return -1;
	return 1;
}

/* Reads every result.json below paths into *out; 0 or -1 after a message. */
static int read_pending(char *const *paths, size_t n, struct pending **out, size_t *nout)
{
	int ret = 0;
	for (size_t i = 0; i < n && ret == 0; i++) {
		char **files;
		size_t nfiles;
		ret = results_list(paths[i], &files, &nfiles);
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
			free(files[f]);
		}
		free(files);
	}
	return ret;
}

int db_import(const char *path, char *const *paths, size_t n, size_t *added, size_t *known)
{
	struct pending *p = NULL;
	size_t np = 0;
	*added = *known = 0;
	int ret = read_pending(paths, n, &p, &np);
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
				*(rc ? added : known) += 1;
		}
		writer_free(&w);
		w = (struct writer){ 0 };
		if (ret == 0 && exec(db, "COMMIT") < 0)
			ret = -1;
		if (ret < 0) {
			rollback(db);
			*added = 0;
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
	size_t added, known;
	int rc = db_import(path, files, n, &added, &known);
	if (rc == EXIT_PASS)
		fprintf(stderr, "bootrig: %zu boot%s recorded in %s\n", added, added == 1 ? "" : "s",
			term_str(path));
	else
		error("the boots were not recorded in %s (their results are kept)", term_str(path));
	return rc;
}

/* --- reading ------------------------------------------------------------ */

/* The WHERE clause of f over boot b (parameters ?2.. target, clock, variant). */
#define FILTER_SQL " AND (?2 IS NULL OR b.target = ?2) AND (?3 IS NULL OR b.clock = ?3)" \
		   " AND (?4 IS NULL OR b.variant = ?4)"

static void bind_filter(sqlite3_stmt *st, const struct db_filter *f)
{
	bind_text(st, 2, f ? f->target : NULL);
	bind_text(st, 3, f ? f->clock : NULL);
	bind_text(st, 4, f ? f->variant : NULL);
}

/* A text column, "" for NULL (a database another program wrote need not
 * keep our NOT NULLs): valid until the next step. */
static const char *col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	return s ? (const char *)s : "";
}

/* A text column, malloc'd ("" for NULL). */
static char *col_text(sqlite3_stmt *st, int i)
{
	return xstrdup(col_str(st, i));
}

int db_kernels(struct history_db *db, const struct db_filter *f, struct db_kernel **out,
	       size_t *n)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *st = prepare(db,
		"SELECT k.id, k.sha256, k.kernel_id, k.version, min(coalesce(b.started, b.recorded)) AS first "
		"FROM kernel k JOIN boot b ON b.kernel = k.id WHERE ?1 IS NULL" FILTER_SQL
		" GROUP BY k.id ORDER BY first, k.id");
	if (!st)
		return EXIT_DATAERR;
	bind_filter(st, f);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		char *version = col_text(st, 3);
		(*out)[(*n)++] = (struct db_kernel){
			.id = sqlite3_column_int64(st, 0), .sha256 = col_text(st, 1),
			.kernel_id = col_text(st, 2), .version = version_word(version),
			.first = col_text(st, 4),
		};
		free(version);
	}
	if (rc != SQLITE_DONE)
		error("%s: %s", db->path, sqlite3_errmsg(db->sql));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? EXIT_PASS : EXIT_DATAERR;
}

void db_kernels_free(struct db_kernel *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(k[i].sha256), free(k[i].kernel_id), free(k[i].version), free(k[i].first);
	free(k);
}

/* Is s at least 8 hex digits and no more than 64? */
static bool is_sha_prefix(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");
	return n >= 8 && n <= 64 && !s[n];
}

int db_find_kernel(struct history_db *db, const char *sel, long long *id)
{
	struct db_kernel *k;
	size_t n, found = 0;
	if (db_kernels(db, NULL, &k, &n))
		return EXIT_DATAERR;
	struct strbuf which = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		bool match = !strcmp(k[i].version, sel) || !strcmp(k[i].kernel_id, sel) ||
			(is_sha_prefix(sel) && !strncmp(k[i].sha256, sel, strlen(sel)));
		if (!match)
			continue;
		*id = k[i].id;
		strbuf_addf(&which, "%s%s (%.12s)", found++ ? ", " : "", k[i].kernel_id,
			    *k[i].sha256 ? k[i].sha256 : "no sha256");
	}
	int ret = EXIT_PASS;
	if (found == 0)
		error("%s: no kernel '%s' (a version such as 6.1.0-57-cloud-arm64, a kernel id "
		      "or 8 or more hex digits of a sha256)", db->path, sel);
	else if (found > 1)
		error("%s: '%s' names %zu kernels: %s", db->path, sel, found, which.buf);
	if (found != 1)
		ret = EXIT_DATAERR;
	strbuf_release(&which);
	db_kernels_free(k, n);
	return ret;
}

/* Runs st (kernel bound as ?1, f as ?2..) and hands each row to fn. 0 or -1. */
static int each_row(struct history_db *db, sqlite3_stmt *st, long long kernel,
		    const struct db_filter *f, void (*fn)(struct side *, sqlite3_stmt *, void *),
		    struct side *side, void *arg)
{
	sqlite3_bind_int64(st, 1, kernel);
	bind_filter(st, f);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		fn(side, st, arg);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return error("%s: %s", db->path, sqlite3_errmsg(db->sql));
	return 0;
}

/* The boots loaded so far, by database id: where each is in side.boots. */
struct boot_ids {
	long long *id;
	size_t n;
};

/* The index into side.boots of boot id, or SIZE_MAX. */
static size_t boot_index(const struct boot_ids *ids, long long id)
{
	for (size_t i = 0; i < ids->n; i++)
		if (ids->id[i] == id)
			return i;
	return SIZE_MAX;
}

/* A boot row: b.id, path, kernel_id, variant, verdict, reason, boot, append, image, target, host,
 * started, duration. */
static void add_boot_row(struct side *s, sqlite3_stmt *st, void *arg)
{
	struct boot_ids *ids = arg;
	char *dir = col_text(st, 1);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	s->boots = xrealloc(s->boots, (s->nboots + 1) * sizeof(*s->boots));
	struct boot_info *b = &s->boots[s->nboots++];
	*b = (struct boot_info){
		.dir = dir, .kernel_id = col_text(st, 2), .variant = col_text(st, 3),
		.verdict = col_text(st, 4), .reason = col_text(st, 5),
		.boot = sqlite3_column_int(st, 6), .append = col_text(st, 7),
		.image = col_text(st, 8), .target = col_text(st, 9), .host = col_text(st, 10),
		.started = sqlite3_column_type(st, 11) == SQLITE_NULL ? NULL : col_text(st, 11),
		.duration = sqlite3_column_type(st, 12) == SQLITE_NULL ? NAN
			    : sqlite3_column_double(st, 12),
	};
	b->passed = !strcmp(b->verdict, "PASS");
	s->npass += b->passed;
	s->ninfra += !strcmp(b->verdict, "INFRA_ERROR");
	ids->id = xrealloc(ids->id, (ids->n + 1) * sizeof(*ids->id));
	ids->id[ids->n++] = sqlite3_column_int64(st, 0);
}

/* A metric row of a PASS boot: abi, test, name, unit, better, obs, n, ci, ci_target, stop. */
static void add_metric_row(struct side *s, sqlite3_stmt *st, void *arg)
{
	(void)arg;
	struct side_observation o = {
		.abi = col_str(st, 0), .test = col_str(st, 1), .name = col_str(st, 2),
		.unit = col_str(st, 3), .higher_better = !strcmp(col_str(st, 4), "higher"),
		.obs = sqlite3_column_double(st, 5),
		.samples = (size_t)sqlite3_column_int64(st, 6),
		.ci = sqlite3_column_type(st, 7) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 7),
		.ci_target = sqlite3_column_type(st, 8) == SQLITE_NULL ? NAN
			     : sqlite3_column_double(st, 8),
		.stop_max = !strcmp(col_str(st, 9), "max"),
	};
	side_add_observation(s, &o);
}

/* A stage row of a PASS boot: name, t. */
static void add_stage_row(struct side *s, sqlite3_stmt *st, void *arg)
{
	(void)arg;
	const char *name = col_str(st, 0);
	for (int i = 0; i < RESULT_STAGES; i++)
		if (!strcmp(name, result_stage_names[i]))
			side_add_stage(s, i, sqlite3_column_double(st, 1));
}

/* An ABI row: name, status, reason. */
static void add_abi_row(struct side *s, sqlite3_stmt *st, void *arg)
{
	(void)arg;
	side_add_abi(s, col_str(st, 0), col_str(st, 1),
		     (const char *)sqlite3_column_text(st, 2));
}

/* An event row: boot id, kind, title. */
static void add_event_row(struct side *s, sqlite3_stmt *st, void *arg)
{
	size_t boot = boot_index(arg, sqlite3_column_int64(st, 0));
	if (boot != SIZE_MAX)
		side_add_event(s, col_str(st, 1), col_str(st, 2), boot);
}

/* A KTAP case row: boot id, suite, name, status. */
static void add_case_row(struct side *s, sqlite3_stmt *st, void *arg)
{
	size_t boot = boot_index(arg, sqlite3_column_int64(st, 0));
	if (boot != SIZE_MAX)
		side_add_case(s, (const char *)sqlite3_column_text(st, 1),
			      (const char *)sqlite3_column_text(st, 2),
			      (const char *)sqlite3_column_text(st, 3), boot);
}

/* The boots of a side, and what they own, in the boots' order. */
#define SIDE_BOOTS "FROM boot b WHERE b.kernel = ?1" FILTER_SQL

int db_load_side(struct history_db *db, long long id, const struct db_filter *f,
		 struct side *side, const char *label)
{
	*side = (struct side){ .label = xstrdup(label) };
	struct boot_ids ids = { 0 };
	static const char *const sql[] = {
		"SELECT b.id, b.path, (SELECT kernel_id FROM kernel WHERE id = b.kernel), b.variant, "
		"b.verdict, b.reason, b.boot, b.append, b.image, b.target, b.host, b.started, "
		"b.duration " SIDE_BOOTS
		" ORDER BY b.id",
		"SELECT m.abi, m.test, m.name, m.unit, m.better, m.obs, m.n, m.ci, m.ci_target, m.stop "
		"FROM metric m JOIN boot b ON m.boot = b.id WHERE b.kernel = ?1" FILTER_SQL
		" AND b.verdict = 'PASS' ORDER BY b.id, m.seq",
		"SELECT s.name, s.t FROM stage s JOIN boot b ON s.boot = b.id WHERE b.kernel = ?1"
		FILTER_SQL " AND b.verdict = 'PASS' ORDER BY b.id",
		"SELECT a.name, a.status, a.reason FROM abi a JOIN boot b ON a.boot = b.id "
		"WHERE b.kernel = ?1" FILTER_SQL " ORDER BY b.id, a.rowid",
		"SELECT e.boot, e.kind, e.title FROM event e JOIN boot b ON e.boot = b.id "
		"WHERE b.kernel = ?1" FILTER_SQL " ORDER BY b.id, e.seq",
		"SELECT c.boot, c.suite, c.name, c.status FROM ktap_case c JOIN boot b ON c.boot = b.id "
		"WHERE b.kernel = ?1" FILTER_SQL " ORDER BY b.id, c.seq",
	};
	void (*const fn[])(struct side *, sqlite3_stmt *, void *) = {
		add_boot_row, add_metric_row, add_stage_row, add_abi_row, add_event_row, add_case_row,
	};
	int ret = 0;
	/* a version 1 database (read as it is) has no KTAP cases: the last query */
	size_t queries = db->version >= 2 ? ARRAY_SIZE(sql) : ARRAY_SIZE(sql) - 1;
	for (size_t i = 0; i < queries && ret == 0; i++) {
		sqlite3_stmt *st = prepare(db, sql[i]);
		ret = st ? each_row(db, st, id, f, fn[i], side, &ids) : -1;
	}
	free(ids.id);
	return ret < 0 ? EXIT_DATAERR : EXIT_PASS;
}

bool db_is_side_spec(const char *spec)
{
	return !strncmp(spec, "db:", 3);
}

int db_side_load(struct side *side, const char *spec, bool mixed)
{
	*side = (struct side){ .label = xstrdup(spec) };
	const char *rest = spec + 3, *sel = strstr(rest, ":kernel=");
	if (!db_is_side_spec(spec) || !sel || sel == rest)
		return error("%s: a database side is db:FILE:kernel=VERSION-OR-SHA256"
			     "[:target=T][:clock=C][:variant=V]", spec);
	char *path = xasprintf("%.*s", (int)(sel - rest), rest);
	char *opts = xstrdup(sel + 1), *save = NULL, *kernel = NULL;
	struct db_filter f = { 0 };
	int ret = 0;
	for (char *kv = strtok_r(opts, ":", &save); kv && ret == 0; kv = strtok_r(NULL, ":", &save)) {
		char *eq = strchr(kv, '=');
		if (eq)
			*eq++ = '\0';
		if (eq && !strcmp(kv, "kernel"))
			kernel = eq;
		else if (eq && !strcmp(kv, "target"))
			f.target = eq;
		else if (eq && !strcmp(kv, "clock"))
			f.clock = eq;
		else if (eq && !strcmp(kv, "variant"))
			f.variant = eq;
		else
			ret = error("%s: '%s' is not kernel=, target=, clock= or variant=", spec, kv);
	}
	struct history_db db;
	long long id;
	if (ret == 0 && db_open(&db, path, DB_READ) == EXIT_PASS) {
		side_free(side);
		if (db_find_kernel(&db, kernel, &id) || db_load_side(&db, id, &f, side, spec))
			ret = -1;
		else if (!side->nboots)
			ret = error("%s: no boot of that kernel passes the filter", spec);
		db_close(&db);
	} else {
		ret = -1;
	}
	if (ret == 0 && !mixed)
		ret = side_check_alike(side);
	free(path);
	free(opts);
	return ret;
}
