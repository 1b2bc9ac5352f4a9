/*
 * test_osfault.c: fault injection (lib/oscall.h) at every OS call that
 * writes a boot's record: result.json (result_write()), console.log and
 * console.tlog (capture_write()), the history database (db_record(), what
 * run --db and import write with), and a whole boot through matrix_run()
 * and the fake backend (fake-backend.h).
 *
 * Each scenario runs once with counting, which enumerates its call sites:
 * then, for every kind of call and every N up to its count, it runs again
 * with the Nth call failing with EINTR, ENOSPC and EIO in turn, and checks:
 *   - EINTR: retried, the same files (or rows) as with no fault, no error;
 *   - ENOSPC, EIO: each file (the database as a whole) is the earlier
 *     version or the whole new one, never a part; no temporary file left;
 *     a writer that reports success wrote everything; a file writer
 *     reports every fault; and no boot whose record failed says PASS.
 * SQLite may absorb a fault where its data are safe (a checkpoint's sync
 * after the commit): the database is then whole and the import succeeds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake-backend.h"
#include "backend.h"
#include "capture.h"
#include "config.h"
#include "db.h"
#include "exitcodes.h"
#include "judge.h"
#include "matrix.h"
#include "oscall.h"
#include "result.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <json-c/json.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The fake backend is compiled into this test only (as test_matrix_fake). */
#include "fake-backend.c"

#define PASS_LOG "tests/fixtures/judge/pass-cloud-arm64.log"
#define BASE "tests/fixtures/compare/aarch64-base/vmlinuz-6.1.0-57-cloud-arm64-1a2b3c4d/default/"
#define CAND "tests/fixtures/compare/aarch64-cand/vmlinuz-6.1.0-58-cloud-arm64-5e6f7a8b/default/"
#define MAX_PARTS 4

static const int faults[] = { EINTR, ENOSPC, EIO };

static char top[64];              /* this run's directory under /tmp */

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Removes path's tree (only under top, which is under /tmp). */
static void remove_tree(const char *path)
{
	assert_true(top[0] && !strncmp(path, top, strlen(top)));
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int make_top(void **state)
{
	(void)state;
	strcpy(top, "/tmp/test_osfault.XXXXXX");
	return mkdtemp(top) ? 0 : -1;
}

static int remove_top(void **state)
{
	(void)state;
	oscall_reset();
	if (!strncmp(top, "/tmp/test_osfault.", 18))
		nftw(top, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* dir/name's bytes, or "(absent)". */
static char *file_or_absent(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name), *text = NULL;
	size_t len;
	if (read_file(path, &text, &len) < 0)
		text = xstrdup("(absent)");
	free(path);
	return text;
}

/* The names in dir, sorted, one a line: a temporary file left shows. */
static char *listing(const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	struct strbuf sb = STRBUF_INIT;
	strbuf_add(&sb, "", 0);
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.')
			strbuf_addf(&sb, "%s\n", names[i]->d_name);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return sb.buf;
}

/* ---------------------------------------------------------------- the sweep */

/*
 * A writer under test. prepare() makes the state before (not counted),
 * act() writes (0: it says it wrote), snapshot() describes the state in
 * parts, each of which must be as before or as after a clean act().
 */
struct scenario {
	const char *name;
	bool whole;             /* a failed act() leaves every part as before */
	bool must_report;       /* every fault that fired makes act() fail */
	void (*prepare)(void);
	int (*act)(void);
	size_t (*snapshot)(char **parts);
};

static void free_parts(char **parts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(parts[i]);
}

/* "NAME: N faults at its calls (open 1 write 2 ...)", for the log. */
static void print_counts(const char *name, int tried, const unsigned long *counts)
{
	print_message("%s: %d faults at its calls (", name, tried);
	for (int k = 0; k < OSCALL_KINDS; k++)
		if (counts[k])
			print_message(" %s %lu", oscall_name(k), counts[k]);
	print_message(" )\n");
}

/* Runs sc once per (kind, N, fault) over the calls a clean run makes. */
static void sweep(const struct scenario *sc)
{
	char *before[MAX_PARTS], *after[MAX_PARTS], *now[MAX_PARTS];
	sc->prepare();
	size_t n = sc->snapshot(before);
	oscall_reset();
	assert_int_equal(sc->act(), 0);
	unsigned long counts[OSCALL_KINDS];
	for (int k = 0; k < OSCALL_KINDS; k++)
		counts[k] = oscall_count(k);
	assert_int_equal(sc->snapshot(after), n);
	assert_true(counts[OSCALL_WRITE] > 0);
	int tried = 0;
	for (int k = 0; k < OSCALL_KINDS; k++)
		for (unsigned long nth = 1; nth <= counts[k]; nth++)
			for (size_t f = 0; f < ARRAY_SIZE(faults); f++) {
				int err = faults[f];
				sc->prepare();
				oscall_reset();
				oscall_inject(k, nth, err);
				int rc = sc->act();
				bool fired = oscall_fired();
				oscall_reset();
				sc->snapshot(now);
				const char *what = oscall_name(k);
				if (!fired)
					fail_msg("%s: %s call %lu of %lu was not made again", sc->name,
						 what, nth, counts[k]);
				bool all_after = true, all_before = true;
				for (size_t p = 0; p < n; p++) {
					bool b = !strcmp(now[p], before[p]), a = !strcmp(now[p], after[p]);
					if (!a && !b)
						fail_msg("%s: %s call %lu failing with %s: part %zu is "
							 "neither the earlier nor the new one:\n%s", sc->name,
							 what, nth, strerror(err), p, now[p]);
					all_after &= a;
					all_before &= b;
				}
				if (err == EINTR && (rc || !all_after))
					fail_msg("%s: %s call %lu interrupted (EINTR): %s", sc->name,
						 what, nth, rc ? "reported as an error" : "not all written");
				if (rc == 0 && !all_after)
					fail_msg("%s: %s call %lu failing with %s: success reported, "
						 "not all written", sc->name, what, nth, strerror(err));
				if (err != EINTR && sc->must_report && rc == 0)
					fail_msg("%s: %s call %lu failing with %s: not reported",
						 sc->name, what, nth, strerror(err));
				if (rc && sc->whole && !all_before)
					fail_msg("%s: %s call %lu failing with %s: failed, yet changed",
						 sc->name, what, nth, strerror(err));
				free_parts(now, n);
				tried++;
			}
	print_counts(sc->name, tried, counts);
	free_parts(before, n);
	free_parts(after, n);
}

/* ---------------------------------------------------------------- result.json */

static char *result_dir;
static struct judge *result_judge;

static struct result_info result_info_for(const char *variant)
{
	return (struct result_info){
		.kernel_path = "/boot/vmlinuz", .kernel_id = "vmlinuz-0123abcd", .kernel_arch = "arm64",
		.variant = variant, .boot = 1, .append = "console=ttyAMA0",
		.backend = "fake", .target = "fake-virt", .accelerator = "tcg", .clock = "wall",
		.started = 0, .duration = 1.5,
	};
}

/* An earlier whole result.json in the directory. */
static void result_prepare(void)
{
	remove_tree(result_dir);
	assert_int_equal(mkdir(result_dir, 0755), 0);
	struct result_info info = result_info_for("earlier");
	assert_int_equal(result_write(result_dir, &info, result_judge), 0);
}

static int result_act(void)
{
	struct result_info info = result_info_for("default");
	return result_write(result_dir, &info, result_judge);
}

static size_t result_snapshot(char **parts)
{
	parts[0] = file_or_absent(result_dir, "result.json");
	parts[1] = listing(result_dir);
	return 2;
}

static void result_json_whole_or_earlier(void **state)
{
	(void)state;
	struct judge_limits none = { .silence = 0 };
	result_judge = judge_new(&none);
	const char *log = "[    0.000000] Linux version 6.1.0 (x@y) #1 SMP\n";
	judge_feed(result_judge, log, strlen(log), 0.5);
	judge_console_ended(result_judge, 1.0);
	judge_finish(result_judge, 1.0);
	result_dir = xasprintf("%s/result", top);
	const struct scenario sc = { "result_write", true, true, result_prepare, result_act,
				     result_snapshot };
	sweep(&sc);
	judge_free(result_judge);
	free(result_dir);
}

/* ---------------------------------------------------------------- console.log */

static char *console_dir;

static void feed(struct capture *c, const char *text, double t)
{
	capture_feed(c, text, strlen(text), t);
}

/* Earlier whole console.log and console.tlog. */
static void console_prepare(void)
{
	remove_tree(console_dir);
	assert_int_equal(mkdir(console_dir, 0755), 0);
	struct capture c;
	capture_init(&c);
	feed(&c, "earlier\n", 0.25);
	assert_int_equal(capture_write(&c, console_dir), 0);
	capture_release(&c);
}

static int console_act(void)
{
	struct capture c;
	capture_init(&c);
	feed(&c, "[    0.000000] Linux version 6.1.0\r\n", 0.5);
	feed(&c, "[    1.000000] Run /init as init process\n[    1.1", 1.25);
	feed(&c, "00000] reboot: Power down", 2.0);
	int rc = capture_write(&c, console_dir);
	capture_release(&c);
	return rc;
}

static size_t console_snapshot(char **parts)
{
	parts[0] = file_or_absent(console_dir, "console.log");
	parts[1] = file_or_absent(console_dir, "console.tlog");
	parts[2] = listing(console_dir);
	return 3;
}

/* Not whole: console.log may be new and console.tlog the earlier one when
 * the second fails; capture_write() then fails and the runner's verdict is
 * INFRA_ERROR (matrix_boot_never_passes_a_failed_write). */
static void console_files_whole_or_earlier(void **state)
{
	(void)state;
	console_dir = xasprintf("%s/console", top);
	const struct scenario sc = { "capture_write", false, true, console_prepare, console_act,
				     console_snapshot };
	sweep(&sc);
	free(console_dir);
}

/* ---------------------------------------------------------------- the database */

static char *db_path;

static void remove_db(void)
{
	const char *suffix[] = { "", "-wal", "-shm", "-journal" };
	for (size_t i = 0; i < ARRAY_SIZE(suffix); i++) {
		char *p = xasprintf("%s%s", db_path, suffix[i]);
		unlink(p);
		free(p);
	}
}

static char *db_template;
static size_t db_template_len;

/* A database with one boot recorded: made once, then copied (its WAL
 * checkpointed into it when it was closed). */
static void db_prepare(void)
{
	remove_db();
	if (!db_template) {
		char *first[] = { BASE "1/result.json" };
		assert_int_equal(db_record(db_path, first, 1), 0);
		char *wal = xasprintf("%s-wal", db_path);
		assert_int_equal(access(wal, F_OK), -1);
		free(wal);
		assert_int_equal(read_file(db_path, &db_template, &db_template_len), 0);
		return;
	}
	FILE *f = fopen(db_path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(db_template, 1, db_template_len, f), db_template_len);
	assert_int_equal(fclose(f), 0);
}

/* Two boots more, one of another kernel (run --db's call). */
static int db_act(void)
{
	char *files[] = { BASE "2/result.json", CAND "1/result.json" };
	return db_record(db_path, files, 2);
}

/* The rows of table (which must exist). */
static long long count_rows(sqlite3 *sql, const char *table)
{
	char *q = xasprintf("SELECT count(*) FROM %s", table);
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(sql, q, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", q, sqlite3_errmsg(sql));
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	long long rows = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	free(q);
	return rows;
}

/* Every table's rows (opened with SQLite's own VFS, no fault armed); a
 * database without the schema (none, or an empty file a failed creation
 * left, which the next writer makes) has none. */
static size_t db_snapshot(char **parts)
{
	static const char *const tables[] = { "kernel", "boot", "abi", "event", "stage",
					      "metric", "sample", "ktap_case" };
	sqlite3 *sql = NULL;
	struct strbuf sb = STRBUF_INIT;
	if (access(db_path, F_OK) == 0)
		assert_int_equal(sqlite3_open_v2(db_path, &sql, SQLITE_OPEN_READWRITE, NULL),
				 SQLITE_OK);
	bool schema = sql && count_rows(sql, "sqlite_master") > 0;
	for (size_t i = 0; i < ARRAY_SIZE(tables); i++)
		strbuf_addf(&sb, "%s %lld\n", tables[i], schema ? count_rows(sql, tables[i]) : 0);
	sqlite3_close(sql);
	parts[0] = sb.buf;
	return 1;
}

/* No database yet: import's first call makes it. */
static void db_prepare_none(void)
{
	remove_db();
}

static void database_whole_boots_or_none(void **state)
{
	(void)state;
	db_path = xasprintf("%s/history.db", top);
	const struct scenario sc = { "db_record", true, false, db_prepare, db_act, db_snapshot };
	sweep(&sc);
	const struct scenario made = { "db_record into a new database", true, false,
				       db_prepare_none, db_act, db_snapshot };
	sweep(&made);
	remove_db();
	free(db_path);
	free(db_template);
}

/* ---------------------------------------------------------------- a whole boot */

static struct target target = { .name = "fake-virt", .arch = "arm64" };
static struct fake_step good_steps[2];
static struct boot_job job;
static char *run_dir;

/* One fake boot that passes: the whole console at once, then power off.
 * Returns matrix_run()'s status; job holds the boot. */
static int boot_once(void)
{
	const struct fake_script s[] = { { .steps = good_steps } };
	boot_job_release(&job);
	remove_tree(run_dir);
	fake_reset(s, 1);
	job = (struct boot_job){
		.kernel_path = "fake:0", .kernel_image = "fake:0", .kernel_id = "fake:0",
		.kernel_arch = "arm64", .kernel_version = "6.1.0", .target = &target,
		.variant = "default", .cmdline = xstrdup("console=ttyAMA0"), .boot = 1,
		.dir = xasprintf("%s/0", run_dir), .accel = "tcg",
	};
	judge_default_limits(&job.limits);
	struct run_plan plan = { .backend = fake_backend_new(), .jobs = &job, .n_jobs = 1,
				 .parallel = 1 };
	return matrix_run(&plan);
}

/* result.json's verdict, "(absent)", or "(not JSON)" (a partial file). */
static char *verdict_on_disk(void)
{
	char *text = file_or_absent(job.dir, "result.json");
	if (!strcmp(text, "(absent)"))
		return text;
	json_object *o = json_tokener_parse(text), *v;
	free(text);
	char *got = xstrdup(o && json_object_object_get_ex(o, "verdict", &v)
			    ? json_object_get_string(v) : "(not JSON)");
	json_object_put(o);
	return got;
}

/* No "*.tmp.*" left in the boot's directory. */
static void assert_no_temporary(const char *why)
{
	char *names = listing(job.dir);
	if (strstr(names, ".tmp."))
		fail_msg("%s: a temporary file is left:\n%s", why, names);
	free(names);
}

static void matrix_boot_never_passes_a_failed_write(void **state)
{
	(void)state;
	char *log = NULL;
	size_t len;
	assert_int_equal(read_file(PASS_LOG, &log, &len), 0);
	good_steps[0] = (struct fake_step){ FAKE_PRINT, log, len, 0 };
	good_steps[1] = (struct fake_step){ FAKE_OFF, NULL, 0, 0 };
	run_dir = xasprintf("%s/run", top);

	oscall_reset();
	assert_int_equal(boot_once(), EXIT_PASS);
	assert_int_equal(job.verdict, VERDICT_PASS);
	unsigned long counts[OSCALL_KINDS];
	for (int k = 0; k < OSCALL_KINDS; k++)
		counts[k] = oscall_count(k);
	char *clean_log = file_or_absent(job.dir, "console.log");
	assert_string_equal(clean_log, log);
	int tried = 0;
	for (int k = 0; k < OSCALL_KINDS; k++)
		for (unsigned long nth = 1; nth <= counts[k]; nth++)
			for (size_t f = 0; f < ARRAY_SIZE(faults); f++) {
				int err = faults[f];
				char *why = xasprintf("matrix_run: %s call %lu failing with %s",
						      oscall_name(k), nth, strerror(err));
				oscall_reset();
				/* boot_once() clears the directory by plain calls, not counted */
				oscall_inject(k, nth, err);
				int rc = boot_once();
				bool fired = oscall_fired();
				oscall_reset();
				char *verdict = verdict_on_disk();
				char *console = file_or_absent(job.dir, "console.log");
				if (!fired)
					fail_msg("%s: not made again", why);
				if (err == EINTR && (rc != EXIT_PASS || strcmp(verdict, "PASS") ||
						     strcmp(console, clean_log)))
					fail_msg("%s: exit %d, result.json's verdict %s, console.log %s",
						 why, rc, verdict,
						 strcmp(console, clean_log) ? "changed" : "whole");
				if (err != EINTR && (rc != EXIT_INFRA ||
						     job.verdict != VERDICT_INFRA_ERROR ||
						     !strcmp(verdict, "PASS") ||
						     !strcmp(verdict, "(not JSON)")))
					fail_msg("%s: exit %d, verdict %s, on disk %s", why, rc,
						 verdict_name(job.verdict), verdict);
				if (strcmp(console, "(absent)") && strcmp(console, clean_log))
					fail_msg("%s: a partial console.log", why);
				assert_no_temporary(why);
				free(console), free(verdict), free(why);
				tried++;
			}
	print_counts("matrix_run", tried, counts);
	boot_job_release(&job);
	free(clean_log);
	free(run_dir);
	free(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(result_json_whole_or_earlier),
		cmocka_unit_test(console_files_whole_or_earlier),
		cmocka_unit_test(database_whole_boots_or_none),
		cmocka_unit_test(matrix_boot_never_passes_a_failed_write),
	};
	return cmocka_run_group_tests(tests, make_top, remove_top);
}
