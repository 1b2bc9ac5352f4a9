/*
 * db.h: the history database: every boot bootrig ran (run --db) or was
 * given (import), in one SQLite file, read back as a side of a comparison
 * (compare db:FILE:kernel=...) and as the kernels of a history.
 *
 * The schema (db.c) is versioned by PRAGMA user_version (6: version 1 plus
 * the KTAP case table (2), the guest test table (3), the metric profile
 * tables profile, profile_function, profile_stack (4), the columns
 * boot.seed, profile.cut_self, profile.cut_children (5) and the table of
 * perf stat events not counted, uncounted (6); an older file is
 * migrated when a writer opens it, read as it is by a reader), with foreign
 * keys on; the file is in WAL mode with a busy timeout, so several writers
 * at once (two runs, two imports) wait for each other and lose nothing.
 * A boot is recorded whole or not at all, once: its key is the sha256 of
 * its result.json's bytes (the same boot imported twice, or copied
 * elsewhere and imported again, keeps one row).
 */
#ifndef BOOTRIG_DB_H
#define BOOTRIG_DB_H

#include "results.h"

#include <stdbool.h>
#include <stddef.h>

struct sqlite3;

struct history_db {
	struct sqlite3 *sql;
	char *path;
	int version;            /* the schema's: 1 (no KTAP cases), 2 (no guest
				 * tests), 3 (no profiles), 4 (no seeds, no
				 * profile cuts): read as is by a reader,
				 * migrated by a writer; or 5 */
};

/*
 * db_path_check: is path a file's path SQLite takes as given? "" (a
 * temporary database), ":memory:" and "file:..." URIs are not: what is
 * recorded there would be lost, or kept somewhere else. EXIT_PASS, or
 * EXIT_USAGE after a message.
 */
int db_path_check(const char *path);

enum db_mode {
	DB_READ,        /* history, compare db:: SQLITE_OPEN_READONLY, the file
			 * never changed (no WAL switch, no schema), no write lock */
	DB_CREATE,      /* import, run --db: read-write, the file and schema
			 * made when missing, WAL mode */
};

/*
 * db_open: opens the database at path (db_path_check() first) as mode
 * says; with DB_READ a missing or empty file is an error. The file must be
 * a bootrig history database of a schema version this build reads.
 * Returns 0, EXIT_USAGE for a path db_path_check() refuses, or
 * EXIT_DATAERR after a message naming path and what is wrong (db is then
 * closed). A database another program wrote may break our NOT NULLs: what
 * is read from it never assumes them.
 */
int db_open(struct history_db *db, const char *path, enum db_mode mode);
void db_close(struct history_db *db);

/* What an import did with the boots it was given (db_import()). */
struct db_import_count {
	size_t added;           /* recorded */
	size_t known;           /* already recorded: not written again */
	size_t copies;          /* result.json files left out as byte-identical
				 * copies of a boot listed (results_list()) */
};

/*
 * db_import: records every result.json at or below each of paths[0..n)
 * (results_list(): each boot once) in the database at path. All or
 * nothing: every file is read and checked first, before the database is
 * opened (so refused input makes no database), then it is opened
 * (DB_CREATE) and all are written in one transaction; a boot already
 * recorded is counted in count->known and not written again. Returns 0, or
 * db_open()'s status or EXIT_DATAERR after a message (nothing written;
 * count->added 0).
 */
int db_import(const char *path, char *const *paths, size_t n, struct db_import_count *count);

/*
 * For bootrig run --db: db_check() opens (making it) and closes the
 * database, so a bad one is told before any boot; db_record() records
 * files (result.json paths) and says how many on stderr. Both return 0 or
 * EXIT_DATAERR after a message.
 */
int db_check(const char *path);
int db_record(const char *path, char *const *files, size_t n);

/*
 * A function's share in a metric's profile read as a metric of its own (a
 * metric id "abi.test.name:self.FUNC" or ":children.FUNC"): each boot that
 * has an "ok" profile of metric (abi, test, name) gives one observation,
 * FUNC's self (or children) percentage, 0 when FUNC is not among the
 * boot's listed functions; the series is (abi, test, metric), unit "%",
 * lower is better.
 */
struct db_share {
	const char *abi, *test, *name;  /* the profiled metric */
	const char *fn;
	bool children;                  /* the children share, else self */
	const char *metric;             /* the share's metric name: "name:self.FUNC" */
};

/* Which boots a history or a side takes: NULL fields take any; share, when
 * set, adds that function share to each boot's metrics (db_load_side());
 * include_fail: the side's FAIL boots whose cause is not their metrics
 * count too (struct side .include_fail; compare --include-fail). */
struct db_filter {
	const char *target, *clock, *variant;
	const struct db_share *share;
	bool include_fail;
};

struct db_kernel {
	long long id;
	char *sha256;           /* "" when the results did not say */
	char *kernel_id;        /* the results directory's name for it */
	char *version;          /* its first word: "6.1.0-57-cloud-arm64" ("" if unknown) */
	char *first;            /* its first boot's start (ISO 8601) */
};

/*
 * db_kernels: the kernels that have boots passing f, in time order: by
 * their first boot's start ("started" in result.json), ties by the order
 * they were first recorded. 0 with *out (db_kernels_free()), or
 * EXIT_DATAERR after a message.
 */
int db_kernels(struct history_db *db, const struct db_filter *f, struct db_kernel **out,
	       size_t *n);
void db_kernels_free(struct db_kernel *k, size_t n);
/* Sorts k[0..n) (db_kernels()' time order) by version (strverscmp), ties
 * kept in time order: history's --order version. */
void db_kernels_sort_version(struct db_kernel *k, size_t n);

/*
 * The kernel events of the history database, for `history --crashes`
 * (compare/crashes.h). A run is one kernel's boots of one variant on one
 * target that pass f ("the same tests"); db_runs() lists every run, with
 * its boot count; db_crash_rows() every (run, kind, title) of a kernel
 * event (the judge's kinds; not "protocol" or "infra") with how many of
 * the run's boots showed it. Both 0 with malloc'd arrays (db_runs_free(),
 * db_crash_rows_free()), or EXIT_DATAERR after a message.
 */
struct db_run {
	long long kernel;               /* db_kernel .id */
	char *variant, *target;
	long long boots;
};
struct db_crash_row {
	long long kernel;
	char *variant, *target, *kind, *title;
	long long boots;                /* of the run's boots, those that showed it */
};
int db_runs(struct history_db *db, const struct db_filter *f, struct db_run **out, size_t *n);
void db_runs_free(struct db_run *r, size_t n);
int db_crash_rows(struct history_db *db, const struct db_filter *f, struct db_crash_row **out,
		  size_t *n);
void db_crash_rows_free(struct db_crash_row *r, size_t n);

/*
 * db_find_kernel: the one kernel sel names: its version's first word
 * (6.1.0-57-cloud-arm64) or its whole version string, its kernel id, or
 * a prefix of its sha256 (at least 8 hex digits). 0 with *id, or
 * EXIT_DATAERR after a message (none, or several: they are listed).
 */
int db_find_kernel(struct history_db *db, const char *sel, long long *id);

/*
 * db_load_side: the boots of kernel id that pass f, as side_load() would
 * read them from their results directories: each boot's rows become the
 * boot record (results.h) its result.json gives, added by side_add_boot()
 * in the natural order of the paths they were recorded from (boot_info.dir
 * is where each result.json was then), labelled label. Each boot's
 * profiles (status ok: functions and stacks in their order) fill its
 * record's profiles (boot_record_add_profile()); f->share adds a function
 * share as a metric (struct db_share). What an older schema did not keep
 * (KTAP cases before 2, guest test times before 3, profiles before 4) is
 * absent. 0, or EXIT_DATAERR after a message.
 */
int db_load_side(struct history_db *db, long long id, const struct db_filter *f,
		 struct side *side, const char *label);

/* Is spec a database side, "db:FILE:kernel=SEL"? */
bool db_is_side_spec(const char *spec);

/*
 * db_side_load: side_load_how() for a spec "db:FILE:kernel=SEL[:target=T]
 * [:clock=C][:variant=V]": the boots of the kernel SEL names
 * (db_find_kernel()) in FILE, checked alike unless how->mixed, FAIL boots
 * counted as how->include_fail says (how->host: not for a database side,
 * ignored). 0, or -1 after a message.
 */
int db_side_load(struct side *side, const char *spec, const struct side_how *how);

#endif
