/*
 * db-read.c: reading the history database (see db.h) back: its kernels,
 * the one a selector names, and a side of a comparison. A side is built by
 * the one loader (results.h: boot records into side_add_boot()): the rows
 * of each boot become the boot record its result.json gives.
 */
#include "db.h"
#include "db-internal.h"
#include "exitcodes.h"
#include "textsafe.h"
#include "util.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

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

/* The WHERE clause of f over boot b (parameters ?2.. target, clock, variant). */
#define FILTER_SQL " AND (?2 IS NULL OR b.target = ?2) AND (?3 IS NULL OR b.clock = ?3)" \
		   " AND (?4 IS NULL OR b.variant = ?4)"

static void bind_filter(sqlite3_stmt *st, const struct db_filter *f)
{
	/* a NULL string binds NULL; f's strings outlive the statement */
	sqlite3_bind_text(st, 2, f ? f->target : NULL, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, f ? f->clock : NULL, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, f ? f->variant : NULL, -1, SQLITE_STATIC);
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

/*
 * filtered_rows: steps sql (?1 unused, the filter's ?2-?4: FILTER_SQL)
 * over f's boots, each row appended by row() to the array *out of *n
 * elements of size bytes (grown here). 0, or EXIT_DATAERR after a message.
 */
static int filtered_rows(struct history_db *db, const char *sql, const struct db_filter *f,
			 void (*row)(sqlite3_stmt *, void *), void **out, size_t *n, size_t size)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *st = db_prepare(db, sql);
	if (!st)
		return EXIT_DATAERR;
	bind_filter(st, f);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!(*n & (*n - 1)))
			*out = xrealloc(*out, (*n ? 2 * *n : 1) * size);
		row(st, (char *)*out + (*n)++ * size);
	}
	if (rc != SQLITE_DONE)
		error("%s: %s", db->path, sqlite3_errmsg(db->sql));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? EXIT_PASS : EXIT_DATAERR;
}

static void kernel_row(sqlite3_stmt *st, void *at)
{
	char *version = col_text(st, 3);
	*(struct db_kernel *)at = (struct db_kernel){
		.id = sqlite3_column_int64(st, 0), .sha256 = col_text(st, 1),
		.kernel_id = col_text(st, 2), .version = version_word(version),
		.first = col_text(st, 4),
	};
	free(version);
}

int db_kernels(struct history_db *db, const struct db_filter *f, struct db_kernel **out,
	       size_t *n)
{
	return filtered_rows(db,
		"SELECT k.id, k.sha256, k.kernel_id, k.version, min(coalesce(b.started, b.recorded)) AS first "
		"FROM kernel k JOIN boot b ON b.kernel = k.id WHERE ?1 IS NULL" FILTER_SQL
		" GROUP BY k.id ORDER BY first, k.id", f, kernel_row, (void **)out, n, sizeof(**out));
}

void db_kernels_free(struct db_kernel *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(k[i].sha256), free(k[i].kernel_id), free(k[i].version), free(k[i].first);
	free(k);
}

static void run_row(sqlite3_stmt *st, void *at)
{
	*(struct db_run *)at = (struct db_run){ .kernel = sqlite3_column_int64(st, 0),
		.variant = col_text(st, 1), .target = col_text(st, 2),
		.boots = sqlite3_column_int64(st, 3) };
}

int db_runs(struct history_db *db, const struct db_filter *f, struct db_run **out, size_t *n)
{
	return filtered_rows(db,
		"SELECT b.kernel, b.variant, b.target, count(*) FROM boot b WHERE ?1 IS NULL" FILTER_SQL
		" GROUP BY b.kernel, b.variant, b.target ORDER BY b.kernel, b.variant, b.target",
		f, run_row, (void **)out, n, sizeof(**out));
}

void db_runs_free(struct db_run *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(r[i].variant), free(r[i].target);
	free(r);
}

static void crash_row(sqlite3_stmt *st, void *at)
{
	*(struct db_crash_row *)at = (struct db_crash_row){ .kernel = sqlite3_column_int64(st, 0),
		.variant = col_text(st, 1), .target = col_text(st, 2), .kind = col_text(st, 3),
		.title = col_text(st, 4), .boots = sqlite3_column_int64(st, 5) };
}

int db_crash_rows(struct history_db *db, const struct db_filter *f, struct db_crash_row **out,
		  size_t *n)
{
	return filtered_rows(db,
		"SELECT b.kernel, b.variant, b.target, e.kind, e.title, count(DISTINCT b.id) "
		"FROM event e JOIN boot b ON e.boot = b.id WHERE ?1 IS NULL" FILTER_SQL
		" AND e.kind NOT IN ('protocol', 'infra')"
		" GROUP BY b.kernel, b.variant, b.target, e.kind, e.title"
		" ORDER BY min(b.id), e.kind, e.title", f, crash_row, (void **)out, n, sizeof(**out));
}

void db_crash_rows_free(struct db_crash_row *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(r[i].variant), free(r[i].target), free(r[i].kind), free(r[i].title);
	free(r);
}

/* Version order of two kernels; ties in time order (their order from db_kernels). */
static int cmp_version(const void *a, const void *b)
{
	const struct db_kernel *x = a, *y = b;
	int c = strverscmp(x->version, y->version);
	if (c)
		return c;
	return strcmp(x->first, y->first) ? strcmp(x->first, y->first) : (x->id > y->id) - (x->id < y->id);
}

void db_kernels_sort_version(struct db_kernel *k, size_t n)
{
	if (n)
		qsort(k, n, sizeof(*k), cmp_version);
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

/*
 * A side from the database: the boot rows that pass the filter become boot
 * records (results.h), the same records a result.json gives, and
 * side_add_boot() builds the side from them, so a side read from the
 * database is the side read from the directories the boots were recorded
 * from. The strings the records borrow are copies kept until then: the
 * boot rows' for the whole side, the rows a boot owns for that boot.
 */
struct kept {
	char **v;
	size_t n;
};

/* s (malloc'd), kept until kept_free(). */
static const char *kept_add(struct kept *k, char *s)
{
	if (!(k->n & (k->n - 1)))       /* 0, 1, 2, 4...: doubled */
		k->v = xrealloc(k->v, (k->n ? 2 * k->n : 1) * sizeof(*k->v));
	return k->v[k->n++] = s;
}

static void kept_free(struct kept *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i]);
	free(k->v);
}

/* Text column i of st, kept; NULL for SQL NULL (a field that may be unknown). */
static const char *keep_or_null(struct kept *k, sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NULL : kept_add(k, col_text(st, i));
}

/* Text column i of st, kept; "" for SQL NULL. */
static const char *keep(struct kept *k, sqlite3_stmt *st, int i)
{
	const char *s = keep_or_null(k, st, i);
	return s ? s : "";
}

/* A real column, NAN for SQL NULL and for what is not a number (text, a
 * blob: SQLite's affinity lets another program store them there). */
static double col_num(sqlite3_stmt *st, int i)
{
	int t = sqlite3_column_type(st, i);
	return t == SQLITE_INTEGER || t == SQLITE_FLOAT ? sqlite3_column_double(st, i) : NAN;
}

/* A boot row and the record made of it and of the rows it owns. */
struct db_boot {
	long long id;
	const char *path;       /* result.json's, when recorded: the order */
	struct boot_record rec;
};

/* Natural order of the paths (as results_list() orders a directory), then
 * the order recorded. */
static int cmp_db_boot(const void *a, const void *b)
{
	const struct db_boot *x = a, *y = b;
	int c = strverscmp(x->path, y->path);
	return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* A boot row: b.id, path, kernel_id, variant, verdict, reason, boot, append,
 * image, target, host, started, duration. */
static void boot_row(struct db_boot *d, sqlite3_stmt *st, struct kept *k)
{
	struct boot_record *r = &d->rec;
	boot_record_init(r);
	d->id = sqlite3_column_int64(st, 0);
	d->path = keep(k, st, 1);
	char *dir = col_text(st, 1), *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';     /* the directory result.json was in */
	r->dir = kept_add(k, dir);
	r->kernel_id = keep(k, st, 2), r->variant = keep(k, st, 3);
	r->verdict = keep(k, st, 4), r->reason = keep(k, st, 5);
	r->boot = sqlite3_column_int(st, 6);
	r->append = keep(k, st, 7), r->image = keep(k, st, 8), r->target = keep(k, st, 9);
	r->host = keep(k, st, 10), r->started = keep_or_null(k, st, 11);
	r->duration = col_num(st, 12);
	r->seed = keep_or_null(k, st, 13);
}

/* A metric row: abi, test, name, unit, better, obs, n, ci, ci_target, stop. */
static void metric_row(struct boot_record *r, sqlite3_stmt *st, struct kept *k)
{
	struct side_observation o = {
		.abi = keep(k, st, 0), .test = keep(k, st, 1), .name = keep(k, st, 2),
		.unit = keep(k, st, 3), .higher_better = !strcmp(col_str(st, 4), "higher"),
		.obs = sqlite3_column_double(st, 5),
		.samples = (size_t)sqlite3_column_int64(st, 6),
		.ci = col_num(st, 7), .ci_target = col_num(st, 8),
		.stop_max = !strcmp(col_str(st, 9), "max"),
	};
	boot_record_add_metric(r, &o);
}

/* A guest test row: abi, test, ms, status. */
static void test_row(struct boot_record *r, sqlite3_stmt *st, struct kept *k)
{
	boot_record_add_test(r, keep(k, st, 0), keep(k, st, 1), keep_or_null(k, st, 3),
			     col_num(st, 2));
}

/* An ABI row: name, status, reason. */
static void abi_row(struct boot_record *r, sqlite3_stmt *st, struct kept *k)
{
	boot_record_add_abi(r, keep(k, st, 0), keep(k, st, 1), keep_or_null(k, st, 2));
}

/* An event row: kind, title. */
static void event_row(struct boot_record *r, sqlite3_stmt *st, struct kept *k)
{
	boot_record_add_event(r, keep(k, st, 0), keep(k, st, 1));
}

/* A KTAP case row: suite, name, status. */
static void case_row(struct boot_record *r, sqlite3_stmt *st, struct kept *k)
{
	boot_record_add_case(r, keep(k, st, 0), keep(k, st, 1), keep(k, st, 2));
}

/* A stage row: name, t. */
static void stage_row(struct boot_record *r, sqlite3_stmt *st, struct kept *k)
{
	(void)k;
	const char *name = col_str(st, 0);
	for (int i = 0; i < RESULT_STAGES; i++)
		if (!strcmp(name, result_stage_names[i]))
			r->stages[i] = col_num(st, 1);
}

/* An uncounted perf stat event's row: abi, event, reason. */
static void uncounted_row(struct boot_record *r, sqlite3_stmt *st, struct kept *k)
{
	boot_record_add_uncounted(r, keep(k, st, 0), keep(k, st, 1), keep_or_null(k, st, 2));
}

/* What a boot owns, boot id bound as ?1, from the schema version that has it. */
static const struct {
	int version;
	const char *sql;
	void (*row)(struct boot_record *, sqlite3_stmt *, struct kept *);
} owned_rows[] = {
	{ 1, "SELECT abi, test, name, unit, better, obs, n, ci, ci_target, stop FROM metric "
	     "WHERE boot = ?1 ORDER BY seq", metric_row },
	{ 3, "SELECT abi, test, ms, status FROM test WHERE boot = ?1 ORDER BY seq", test_row },
	{ 1, "SELECT name, status, reason FROM abi WHERE boot = ?1 ORDER BY rowid", abi_row },
	{ 1, "SELECT kind, title FROM event WHERE boot = ?1 ORDER BY seq", event_row },
	{ 2, "SELECT suite, name, status FROM ktap_case WHERE boot = ?1 ORDER BY seq", case_row },
	{ 1, "SELECT name, t FROM stage WHERE boot = ?1", stage_row },
	{ 6, "SELECT abi, event, reason FROM uncounted WHERE boot = ?1 ORDER BY rowid",
	  uncounted_row },
};

/* Fills d's record with the rows it owns; 0 or -1 after a message. */
static int owned(struct history_db *db, sqlite3_stmt **st, struct db_boot *d, struct kept *k)
{
	for (size_t q = 0; q < ARRAY_SIZE(owned_rows); q++) {
		if (!st[q])
			continue;       /* an older schema's database: not kept there */
		sqlite3_bind_int64(st[q], 1, d->id);
		int rc;
		while ((rc = sqlite3_step(st[q])) == SQLITE_ROW)
			owned_rows[q].row(&d->rec, st[q], k);
		sqlite3_reset(st[q]);
		if (rc != SQLITE_DONE)
			return error("%s: %s", db->path, sqlite3_errmsg(db->sql));
	}
	return 0;
}

/*
 * A boot's profiles (schema 4): the profile rows in seq order, then their
 * functions' and stacks' rows in (seq, rank) order, stitched by seq. The
 * arrays are kept (k) until the record is added, as its strings are.
 */
enum { PROFILE_Q, PFUNC_Q, PSTACK_Q, PROFILE_QUERIES };
/* The profile header's query; its cut is version 5's (NULL before: see
 * boot_profile_cut()). */
#define PROFILE_HEAD_SQL(cut) \
	"SELECT seq, abi, test, metric, event, period_ns, samples, lost, stacks_other, " cut \
	" FROM profile WHERE boot = ?1 ORDER BY seq"
static const char *const profile_sql[PROFILE_QUERIES] = {
	PROFILE_HEAD_SQL("cut_self, cut_children"),
	"SELECT seq, fn, self, children FROM profile_function WHERE boot = ?1 ORDER BY seq, rank",
	"SELECT seq, stack, samples FROM profile_stack WHERE boot = ?1 ORDER BY seq, rank",
};

struct db_profile {
	long long seq;
	struct boot_profile p;
	struct boot_profile_fn *fns;
	struct boot_profile_stack *stacks;
};

/* The profile of seq among ps[0..n) (in seq order), or NULL. */
static struct db_profile *profile_of(struct db_profile *ps, size_t n, long long seq)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ps[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ps[lo].seq == seq ? &ps[lo] : NULL;
}

/* Steps st (boot id bound) through its rows, each into row(); 0 or -1. */
static int profile_rows(struct history_db *db, sqlite3_stmt *st, long long boot,
			void (*row)(sqlite3_stmt *, struct db_profile *, size_t, struct kept *),
			struct db_profile *ps, size_t n, struct kept *k)
{
	sqlite3_bind_int64(st, 1, boot);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		row(st, ps, n, k);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : error("%s: %s", db->path, sqlite3_errmsg(db->sql));
}

/* A profile_function row: seq, fn, self, children. */
static void pfunc_row(sqlite3_stmt *st, struct db_profile *ps, size_t n, struct kept *k)
{
	struct db_profile *d = profile_of(ps, n, sqlite3_column_int64(st, 0));
	if (!d)
		return;
	d->fns = xrealloc(d->fns, (d->p.nfns + 1) * sizeof(*d->fns));
	d->fns[d->p.nfns++] = (struct boot_profile_fn){ keep(k, st, 1), col_num(st, 2), col_num(st, 3) };
}

/* A profile_stack row: seq, stack, samples. */
static void pstack_row(sqlite3_stmt *st, struct db_profile *ps, size_t n, struct kept *k)
{
	struct db_profile *d = profile_of(ps, n, sqlite3_column_int64(st, 0));
	if (!d)
		return;
	d->stacks = xrealloc(d->stacks, (d->p.nstacks + 1) * sizeof(*d->stacks));
	d->stacks[d->p.nstacks++] = (struct boot_profile_stack){ keep(k, st, 1), col_num(st, 2) };
}

/* f's function share (db.h's struct db_share) in profile p, as a metric. */
static void add_share(struct boot_record *r, const struct db_share *sh, const struct boot_profile *p)
{
	double v = boot_profile_cut(p, sh->children) / 2;   /* not listed: below the cut */
	for (size_t i = 0; i < p->nfns; i++)
		if (!strcmp(p->fns[i].name, sh->fn)) {
			v = sh->children ? p->fns[i].children : p->fns[i].self;
			break;
		}
	struct side_observation o = { .abi = p->abi, .test = p->test, .name = sh->metric, .unit = "%",
				      .higher_better = false, .obs = v, .samples = 1, .ci = NAN,
				      .ci_target = NAN };
	boot_record_add_metric(r, &o);
}

/* Fills d's record with its profiles (and f's share); 0 or -1 after a message. */
static int profiles(struct history_db *db, sqlite3_stmt **st, struct db_boot *d,
		    const struct db_filter *f, struct kept *k)
{
	struct db_profile *ps = NULL;
	size_t n = 0;
	sqlite3_bind_int64(st[PROFILE_Q], 1, d->id);
	int rc;
	while ((rc = sqlite3_step(st[PROFILE_Q])) == SQLITE_ROW) {
		sqlite3_stmt *q = st[PROFILE_Q];
		ps = xrealloc(ps, (n + 1) * sizeof(*ps));
		ps[n++] = (struct db_profile){
			.seq = sqlite3_column_int64(q, 0),
			.p = { .abi = keep(k, q, 1), .test = keep(k, q, 2), .name = keep(k, q, 3),
			       .event = keep(k, q, 4), .period_ns = col_num(q, 5), .samples = col_num(q, 6),
			       .lost = col_num(q, 7), .stacks_other = col_num(q, 8),
			       .cut_self = col_num(q, 9), .cut_children = col_num(q, 10) },
		};
	}
	sqlite3_reset(st[PROFILE_Q]);
	int ret = rc == SQLITE_DONE ? 0 : error("%s: %s", db->path, sqlite3_errmsg(db->sql));
	if (ret == 0)
		ret = profile_rows(db, st[PFUNC_Q], d->id, pfunc_row, ps, n, k);
	if (ret == 0)
		ret = profile_rows(db, st[PSTACK_Q], d->id, pstack_row, ps, n, k);
	const struct db_share *sh = f ? f->share : NULL;
	bool shared = false;
	for (size_t i = 0; i < n; i++) {
		ps[i].p.fns = ps[i].fns;
		ps[i].p.stacks = ps[i].stacks;
		if (ps[i].fns)
			kept_add(k, (char *)ps[i].fns);
		if (ps[i].stacks)
			kept_add(k, (char *)ps[i].stacks);
		char *fault = ret == 0 ? boot_profile_fault(&ps[i].p) : NULL;
		if (fault)
			ret = error("%s: boot %lld: the profile of %s.%s.%s: %s", db->path, d->id,
				    term_str(ps[i].p.abi), term_str(ps[i].p.test), term_str(ps[i].p.name),
				    term_str(fault));
		free(fault);
		if (ret == 0)
			boot_record_add_profile(&d->rec, &ps[i].p);
		if (ret == 0 && sh && !shared && !strcmp(ps[i].p.abi, sh->abi) &&
		    !strcmp(ps[i].p.test, sh->test) && !strcmp(ps[i].p.name, sh->name)) {
			add_share(&d->rec, sh, &ps[i].p);
			shared = true;  /* one observation a boot, its first profile's */
		}
	}
	free(ps);
	return ret;
}

/* A side's boots: boot_row()'s columns; seed is version 5's (NULL before). */
#define BOOT_SQL(seed) \
	"SELECT b.id, b.path, (SELECT kernel_id FROM kernel WHERE id = b.kernel), b.variant, " \
	"b.verdict, b.reason, b.boot, b.append, b.image, b.target, b.host, b.started, " \
	"b.duration, " seed " FROM boot b WHERE b.kernel = ?1" FILTER_SQL " ORDER BY b.id"

int db_load_side(struct history_db *db, long long id, const struct db_filter *f,
		 struct side *side, const char *label)
{
	*side = (struct side){ .label = xstrdup(label), .include_fail = f->include_fail };
	struct kept k = { 0 };
	struct db_boot *boots = NULL;
	size_t n = 0;
	sqlite3_stmt *st[ARRAY_SIZE(owned_rows)] = { 0 }, *pst[PROFILE_QUERIES] = { 0 };
	sqlite3_stmt *b = db_prepare(db,
		db->version >= 5 ? BOOT_SQL("b.seed") : BOOT_SQL("NULL"));
	int ret = b ? 0 : -1;
	if (b) {
		sqlite3_bind_int64(b, 1, id);
		bind_filter(b, f);
		int rc;
		while ((rc = sqlite3_step(b)) == SQLITE_ROW) {
			if (!(n & (n - 1)))
				boots = xrealloc(boots, (n ? 2 * n : 1) * sizeof(*boots));
			boot_row(&boots[n++], b, &k);
		}
		if (rc != SQLITE_DONE)
			ret = error("%s: %s", db->path, sqlite3_errmsg(db->sql));
		sqlite3_finalize(b);
	}
	for (size_t q = 0; q < ARRAY_SIZE(owned_rows) && ret == 0; q++)
		if (db->version >= owned_rows[q].version && !(st[q] = db_prepare(db, owned_rows[q].sql)))
			ret = -1;
	for (size_t q = 0; q < PROFILE_QUERIES && ret == 0 && db->version >= 4; q++)
		if (!(pst[q] = db_prepare(db, q == PROFILE_Q && db->version < 5 ?
					  PROFILE_HEAD_SQL("NULL, NULL") : profile_sql[q])))
			ret = -1;
	if (n)
		qsort(boots, n, sizeof(*boots), cmp_db_boot);
	for (size_t i = 0; i < n; i++) {
		struct kept rows = { 0 };       /* one boot's at a time */
		if (ret == 0)
			ret = owned(db, st, &boots[i], &rows);
		if (ret == 0 && pst[0])
			ret = profiles(db, pst, &boots[i], f, &rows);
		if (ret == 0)
			side_add_boot(side, &boots[i].rec);
		boot_record_release(&boots[i].rec);
		kept_free(&rows);
	}
	for (size_t q = 0; q < ARRAY_SIZE(owned_rows); q++)
		sqlite3_finalize(st[q]);
	for (size_t q = 0; q < PROFILE_QUERIES; q++)
		sqlite3_finalize(pst[q]);
	kept_free(&k);
	free(boots);
	return ret < 0 ? EXIT_DATAERR : EXIT_PASS;
}

bool db_is_side_spec(const char *spec)
{
	return !strncmp(spec, "db:", 3);
}

int db_side_load(struct side *side, const char *spec, const struct side_how *how)
{
	*side = (struct side){ .label = xstrdup(spec) };
	const char *rest = spec + 3, *sel = strstr(rest, ":kernel=");
	if (!db_is_side_spec(spec) || !sel || sel == rest)
		return error("%s: a database side is db:FILE:kernel=VERSION-OR-SHA256"
			     "[:target=T][:clock=C][:variant=V]", spec);
	char *path = xasprintf("%.*s", (int)(sel - rest), rest);
	char *opts = xstrdup(sel + 1), *save = NULL, *kernel = NULL;
	struct db_filter f = { .include_fail = how->include_fail };
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
	if (ret == 0 && !how->mixed)
		ret = side_check_alike(side);
	free(path);
	free(opts);
	return ret;
}
