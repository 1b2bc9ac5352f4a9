/*
 * results.c: the results files' source of a side (see results.h): finding
 * every result.json below a directory in a stable order, reading and
 * checking each one (the one reader of result.json), and turning it into a
 * boot record, which side.c adds to the side.
 */
#include "results.h"
#include "sha256.h"
#include "stats.h"
#include "textsafe.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *const result_stage_names[RESULT_STAGES] = {
	"firmware", "kernel", "init", "results", "end", "poweroff",
};

struct path_list {
	char **v;
	size_t n, alloc;
};

static void path_list_add(struct path_list *l, char *path)
{
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 64;
		l->v = xrealloc(l->v, l->alloc * sizeof(*l->v));
	}
	l->v[l->n++] = path;
}

/* Natural order of paths, so boot 10 sorts after boot 9. */
static int cmp_path(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* The directories being walked, outermost first: a symlink back to one of
 * them (`ln -s .. R/k/x`) is a loop, not more boots. */
struct walk {
	dev_t dev;
	ino_t ino;
	const struct walk *up;
};

/*
 * Adds to list every result.json at or below dir (up: the directories
 * above it). Returns 0, or -1 with a message when a directory cannot be
 * read.
 */
static int find_results(const char *dir, struct path_list *list, const struct walk *up)
{
	DIR *d = opendir(dir);
	if (!d)
		return error("cannot read %s: %s", dir, strerror(errno));
	struct stat self;
	struct walk here = { 0, 0, up };
	if (fstat(dirfd(d), &self) == 0)
		here.dev = self.st_dev, here.ino = self.st_ino;
	struct dirent *e;
	int ret = 0;
	while (ret == 0 && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *path = xasprintf("%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(path, &st) < 0) {
			free(path);
			continue;       /* a dangling link or a file being renamed */
		}
		bool loop = false;
		for (const struct walk *w = &here; S_ISDIR(st.st_mode) && w && !loop; w = w->up)
			loop = w->dev == st.st_dev && w->ino == st.st_ino;
		if (S_ISDIR(st.st_mode) && !loop) {
			ret = find_results(path, list, &here);
			free(path);
		} else if (S_ISREG(st.st_mode) && !strcmp(e->d_name, "result.json")) {
			path_list_add(list, path);
		} else {
			free(path);
		}
	}
	closedir(d);
	return ret;
}

/* A path and the file it names, for dropping a boot reached twice. */
struct named_file {
	char *path;
	dev_t dev;
	ino_t ino;
	long long size;         /* -1: gone, or too large to be a result.json */
	char sha[65];           /* of its bytes; "" when not hashed */
	size_t order;           /* its place in natural order */
	size_t copies;          /* byte-identical files left out for it */
};

/* By file (device, inode), then natural order. */
static int cmp_file(const void *a, const void *b)
{
	const struct named_file *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* By size, then digest, then natural order. */
static int cmp_bytes(const void *a, const void *b)
{
	const struct named_file *x = a, *y = b;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	int c = strcmp(x->sha, y->sha);
	return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* By natural order. */
static int cmp_order(const void *a, const void *b)
{
	const struct named_file *x = a, *y = b;
	return (x->order > y->order) - (x->order < y->order);
}

/* Is f a copy of kept, the file kept before it in cmp_bytes order: the
 * same bytes (sizes and digests equal, both hashed)? */
static bool same_bytes(const struct named_file *kept, const struct named_file *f)
{
	return f->sha[0] && kept->size == f->size && !strcmp(kept->sha, f->sha);
}

/* Digests f[0..n) (n files of one size) when more than one could be the
 * same boot: a file of a size no other has is no copy, and is not read. A
 * file that cannot be read stays unhashed (its reader says why). */
static void hash_alike(struct named_file *f, size_t n)
{
	if (n < 2 || f[0].size < 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (sha256_file(f[i].path, f[i].sha) < 0)
			f[i].sha[0] = '\0';
}

/*
 * Keeps each boot of list (in natural order) once, by the one identity a
 * boot has (its result.json's bytes, as the history database keys it): a
 * file reached by two paths (`R/latest -> run1`), and a byte-identical
 * copy (`cp -r 1 9`), are one boot, listed by its first path in natural
 * order. Sort by (device, inode) and keep the first of each; hash the
 * files that share a size, sort by (size, digest) and keep the first of
 * each; put them back in order: n log n, for any number of boots. Into
 * copies[i] (when copies), how many copies of the boot kept at i were left
 * out (a second path to one file is no copy).
 */
static void drop_same_boots(struct path_list *list, size_t **copies)
{
	struct named_file *f = xcalloc(list->n ? list->n : 1, sizeof(*f));
	size_t n = list->n;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		f[i] = (struct named_file){ .path = list->v[i], .order = i, .size = -1 };
		if (stat(list->v[i], &st) == 0) {
			f[i].dev = st.st_dev, f[i].ino = st.st_ino;
			if (st.st_size <= (off_t)RESULT_JSON_MAX_BYTES)
				f[i].size = (long long)st.st_size;
		} else {
			f[i].ino = (ino_t)-1 - i;       /* gone: kept, as unique */
		}
	}
	qsort(f, n, sizeof(*f), cmp_file);
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		if (kept && f[kept - 1].dev == f[i].dev && f[kept - 1].ino == f[i].ino)
			free(f[i].path);
		else
			f[kept++] = f[i];
	}
	n = kept;
	qsort(f, n, sizeof(*f), cmp_bytes);     /* by size: no digest yet */
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && f[j].size == f[i].size; j++)
			;
		hash_alike(f + i, j - i);
	}
	qsort(f, n, sizeof(*f), cmp_bytes);
	kept = 0;
	for (size_t i = 0; i < n; i++) {
		if (kept && same_bytes(&f[kept - 1], &f[i])) {
			f[kept - 1].copies++;
			free(f[i].path);
		} else {
			f[kept++] = f[i];
		}
	}
	qsort(f, kept, sizeof(*f), cmp_order);
	if (copies)
		*copies = xcalloc(kept ? kept : 1, sizeof(**copies));
	for (size_t i = 0; i < kept; i++) {
		list->v[i] = f[i].path;
		if (copies)
			(*copies)[i] = f[i].copies;
	}
	list->n = kept;
	free(f);
}

/* A string member of obj, or dflt when absent or not a string. */
static const char *get_str(struct json_object *obj, const char *key, const char *dflt)
{
	struct json_object *v;
	if (json_object_object_get_ex(obj, key, &v) && json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return dflt;
}

/* A number member of obj (int or double), or NAN. */
static double get_num(struct json_object *obj, const char *key)
{
	struct json_object *v;
	if (!json_object_object_get_ex(obj, key, &v))
		return NAN;
	if (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))
		return json_object_get_double(v);
	return NAN;
}

/* An array member of obj, or NULL. */
static struct json_object *get_array(struct json_object *obj, const char *key)
{
	struct json_object *v;
	if (json_object_object_get_ex(obj, key, &v) && json_object_is_type(v, json_type_array))
		return v;
	return NULL;
}

double result_metric_observation(struct json_object *m)
{
	double median = get_num(m, "median");
	if (!isnan(median))
		return median;
	struct json_object *samples = get_array(m, "samples");
	size_t n = samples ? json_object_array_length(samples) : 0;
	if (n == 0)
		return NAN;
	double *v = xmalloc(n * sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = json_object_get_double(json_object_array_get_idx(samples, i));
	median = stats_median(v, n);
	free(v);
	return median;
}

bool result_metric_entry(struct json_object *m, struct side_observation *o)
{
	const char *abi = get_str(m, "abi", NULL), *test = get_str(m, "test", NULL);
	const char *name = get_str(m, "name", NULL);
	double obs = result_metric_observation(m);
	if (!abi || !test || !name || !isfinite(obs))
		return false;
	double count = get_num(m, "n");
	struct json_object *samples = get_array(m, "samples");
	*o = (struct side_observation){
		.abi = abi, .test = test, .name = name, .unit = get_str(m, "unit", ""),
		.higher_better = !strcmp(get_str(m, "better", "lower"), "higher"),
		.obs = obs,
		.samples = isfinite(count) && count >= 1 && count < 1e15 ? (size_t)count
			   : samples ? json_object_array_length(samples) : 0,
		.ci = get_num(m, "ci"), .ci_target = get_num(m, "ci_target"),
		.stop_max = !strcmp(get_str(m, "stop", ""), "max"),
	};
	return true;
}

/* The first number below v that is not finite (NaN, Infinity): its
 * field's name into sb ("metrics[2].median"); false when there is none. */
static bool find_nonfinite(struct json_object *v, struct strbuf *sb)
{
	size_t mark = sb->len;
	switch (json_object_get_type(v)) {
	case json_type_double:
		return !isfinite(json_object_get_double(v));
	case json_type_object: {
		json_object_object_foreach(v, key, val) {
			strbuf_addf(sb, "%s%s", mark ? "." : "", key);
			if (find_nonfinite(val, sb))
				return true;
			sb->len = mark;
		}
		return false;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			strbuf_addf(sb, "[%zu]", i);
			if (find_nonfinite(json_object_array_get_idx(v, i), sb))
				return true;
			sb->len = mark;
		}
		return false;
	default:
		return false;
	}
}

/* Is member key of obj absent or of type t (for numbers: int or double)? */
static bool member_is(struct json_object *obj, const char *key, enum json_type t)
{
	struct json_object *v;
	if (!json_object_object_get_ex(obj, key, &v))
		return true;
	if (t == json_type_double)
		return json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int);
	return json_object_is_type(v, t);
}

/* The first member of obj among keys that is not of type t: its name, or NULL. */
static const char *wrong_member(struct json_object *obj, const char *const *keys, enum json_type t)
{
	for (; *keys; keys++)
		if (!member_is(obj, *keys, t))
			return *keys;
	return NULL;
}

/* The first member of obj among keys whose number fault() refuses: its
 * name, with the reason in *why; or NULL. */
static const char *faulty_member(struct json_object *obj, const char *const *keys,
				 const char *(*fault)(double), const char **why)
{
	for (; *keys; keys++) {
		struct json_object *v;
		if (json_object_object_get_ex(obj, *keys, &v) && (*why = fault(json_object_get_double(v))))
			return *keys;
	}
	return NULL;
}

#define WRONG_TYPE "is of the wrong type (a profile holds strings, numbers and arrays of objects)"

/*
 * Checks metrics[i].profile (results.h, result_json_parse): its types, and
 * its numbers as results.h's profile_*_fault() accept them, a function
 * listed once. 0, or -1 with the wrong field's name in sb
 * ("metrics[2].profile.functions[3].self") and why in *why.
 */
static int check_profile(struct json_object *prof, struct strbuf *sb, const char **why)
{
	static const char *const strs[] = { "status", "event", "reason", NULL };
	static const char *const nums[] = { "period_ns", "samples", "lost", "stacks_other", NULL };
	static const char *const fn_nums[] = { "self", "children", "self_samples", "children_samples",
					       NULL };
	static const char *const fn_shares[] = { "self", "children", NULL };
	static const char *const fn_counts[] = { "self_samples", "children_samples", NULL };
	static const char *const st_nums[] = { "samples", NULL };
	static const char *const none[] = { NULL }, *const cuts[] = { "cut_self", "cut_children", NULL };
	static const struct {
		const char *array, *str;
		const char *const *nums, *const *shares, *const *counts;
	} lists[] = {
		{ "functions", "name", fn_nums, fn_shares, fn_counts },
		{ "stacks", "stack", st_nums, none, st_nums },
	};
	const char *bad;
	*why = WRONG_TYPE;
	if (!json_object_is_type(prof, json_type_object))
		return -1;
	if ((bad = wrong_member(prof, strs, json_type_string)) ||
	    (bad = wrong_member(prof, nums, json_type_double)) ||
	    (bad = faulty_member(prof, nums, profile_count_fault, why)) ||
	    (bad = wrong_member(prof, cuts, json_type_double)) ||
	    (bad = faulty_member(prof, cuts, profile_share_fault, why)))
		return strbuf_addf(sb, ".%s", bad), -1;
	for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
		if (!member_is(prof, lists[l].array, json_type_array))
			return strbuf_addf(sb, ".%s", lists[l].array), -1;
		struct json_object *a = get_array(prof, lists[l].array);
		size_t n = a ? json_object_array_length(a) : 0;
		for (size_t i = 0; i < n; i++) {
			struct json_object *e = json_object_array_get_idx(a, i);
			size_t mark = sb->len;
			strbuf_addf(sb, ".%s[%zu]", lists[l].array, i);
			if (!json_object_is_type(e, json_type_object))
				return -1;
			bad = !get_str(e, lists[l].str, NULL) ? lists[l].str
			      : wrong_member(e, lists[l].nums, json_type_double);
			if (!bad && !(bad = faulty_member(e, lists[l].shares, profile_share_fault, why)))
				bad = faulty_member(e, lists[l].counts, profile_count_fault, why);
			if (bad)
				return strbuf_addf(sb, ".%s", bad), -1;
			sb->len = mark;
			sb->buf[mark] = '\0';
		}
		if (l == 0 && n) {      /* each function once */
			const char **names = xcalloc(n, sizeof(*names));
			for (size_t i = 0; i < n; i++)
				names[i] = get_str(json_object_array_get_idx(a, i), "name", "");
			const char *twice = profile_twice(names, n);
			free(names);
			if (twice) {
				*why = "names a function listed twice";
				return strbuf_addf(sb, ".functions (\"%s\")", twice), -1;
			}
		}
	}
	return 0;
}

/* Every metric's profile of root is of the right types and ranges: 0, or
 * -1 after a message naming path and the field. */
static int check_profiles(const char *path, struct json_object *root)
{
	struct json_object *a = get_array(root, "metrics");
	for (size_t i = 0, n = a ? json_object_array_length(a) : 0; i < n; i++) {
		struct json_object *prof;
		if (!json_object_object_get_ex(json_object_array_get_idx(a, i), "profile", &prof))
			continue;
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "metrics[%zu].profile", i);
		const char *why;
		int rc = check_profile(prof, &sb, &why);
		if (rc < 0)
			error("%s: \"%s\" %s", path, term_str(sb.buf), why);
		strbuf_release(&sb);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int result_json_parse(const char *path, const char *text, size_t len, struct json_object **out)
{
	if (len > RESULT_JSON_MAX_BYTES)
		return error("%s: larger than %u bytes: not a result.json", path,
			     RESULT_JSON_MAX_BYTES);
	enum json_tokener_error jerr;
	struct json_tokener *tok = json_tokener_new();
	struct json_object *root = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	size_t end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!root || jerr != json_tokener_success) {
		json_object_put(root);
		return error("%s: not valid JSON: %s", path,
			     json_tokener_error_desc(jerr == json_tokener_continue
						     ? json_tokener_error_parse_eof : jerr));
	}
	while (end < len && strchr(" \t\r\n", text[end]) && text[end])
		end++;
	if (end < len) {
		json_object_put(root);
		return error("%s: not valid JSON: more after the document (byte %zu)", path,
			     end);
	}
	struct strbuf field = STRBUF_INIT;
	strbuf_add(&field, "", 0);
	if (find_nonfinite(root, &field)) {
		error("%s: \"%s\" is not a finite number (NaN or Infinity is not JSON)",
		      path, field.buf);
		strbuf_release(&field);
		json_object_put(root);
		return -1;
	}
	strbuf_release(&field);
	const char *format = get_str(root, "format", NULL);
	const char *verdict = get_str(root, "verdict", NULL);
	if (!format || strcmp(format, "bootrig-result-1") || !verdict) {
		json_object_put(root);
		return error("%s: not a bootrig result (\"format\": \"bootrig-result-1\" and "
			     "\"verdict\" are required)", path);
	}
	if (check_profiles(path, root) < 0) {
		json_object_put(root);
		return -1;
	}
	*out = root;
	return 0;
}

int result_json_read(const char *path, struct json_object **out)
{
	char *text;
	size_t len;
	if (read_file_max(path, &text, &len, RESULT_JSON_MAX_BYTES) < 0)
		return error("cannot read %s: %s", path,
			     errno == EFBIG ? "larger than a result.json can be (64 MiB)"
					    : strerror(errno));
	int rc = result_json_parse(path, text, len, out);
	free(text);
	return rc;
}

const char *result_get_str(struct json_object *obj, const char *key, const char *dflt)
{
	return get_str(obj, key, dflt);
}

double result_get_num(struct json_object *obj, const char *key)
{
	return get_num(obj, key);
}

struct json_object *result_get_array(struct json_object *obj, const char *key)
{
	return get_array(obj, key);
}

struct json_object *result_get_object(struct json_object *obj, const char *key)
{
	struct json_object *v = NULL;
	if (obj && json_object_object_get_ex(obj, key, &v) && json_object_is_type(v, json_type_object))
		return v;
	return NULL;
}

const char *result_image(struct json_object *root)
{
	struct json_object *img = result_get_object(root, "initramfs");
	const char *sha = img ? get_str(img, "sha256", NULL) : NULL;
	return sha ? sha : img ? get_str(img, "path", "") : "";
}

const char *result_seed(struct json_object *root)
{
	return !strcmp(get_str(root, "clock", ""), "icount") ? get_str(root, "seed", NULL) : NULL;
}

/* Metric entry m's profile (status ok) into r, its arrays allocated (freed
 * by result_boot_record_release()); types checked by check_profile(). */
static void record_profile(struct boot_record *r, struct json_object *m)
{
	struct json_object *p = result_get_object(m, "profile");
	const char *abi = get_str(m, "abi", NULL), *test = get_str(m, "test", NULL);
	const char *name = get_str(m, "name", NULL);
	if (!p || !abi || !test || !name || strcmp(get_str(p, "status", "ok"), "ok"))
		return;
	struct json_object *fa = get_array(p, "functions"), *sa = get_array(p, "stacks");
	size_t nf = fa ? json_object_array_length(fa) : 0, ns = sa ? json_object_array_length(sa) : 0;
	struct boot_profile_fn *fns = xcalloc(nf + 1, sizeof(*fns));
	struct boot_profile_stack *stacks = xcalloc(ns + 1, sizeof(*stacks));
	struct boot_profile bp = {
		.abi = abi, .test = test, .name = name, .event = get_str(p, "event", ""),
		.period_ns = get_num(p, "period_ns"), .samples = get_num(p, "samples"),
		.lost = get_num(p, "lost"), .stacks_other = get_num(p, "stacks_other"),
		.cut_self = get_num(p, "cut_self"), .cut_children = get_num(p, "cut_children"),
		.fns = fns, .stacks = stacks,
	};
	for (size_t i = 0; i < nf; i++) {
		struct json_object *e = json_object_array_get_idx(fa, i);
		double self = get_num(e, "self"), children = get_num(e, "children");
		fns[bp.nfns++] = (struct boot_profile_fn){ get_str(e, "name", ""),
			isnan(self) ? 0 : self, isnan(children) ? 0 : children };
	}
	for (size_t i = 0; i < ns; i++) {
		struct json_object *e = json_object_array_get_idx(sa, i);
		double n = get_num(e, "samples");
		stacks[bp.nstacks++] = (struct boot_profile_stack){ get_str(e, "stack", ""),
								    isnan(n) ? 0 : n };
	}
	boot_record_add_profile(r, &bp);
}

size_t result_perf_stat(struct json_object *m, const struct side_observation *o,
			void (*add)(void *ctx, const struct side_observation *c), void *ctx)
{
	struct json_object *ps = result_get_object(m, "perf_stat");
	struct json_object *events = ps ? result_get_object(ps, "events") : NULL;
	size_t n = 0;
	if (!events)
		return 0;
	json_object_object_foreach(events, event, v) {
		double x = json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)
			   ? json_object_get_double(v) : NAN;
		if (!isfinite(x) || x < 0)
			continue;
		bool clock = !strcmp(event, "cpu-clock") || !strcmp(event, "task-clock");
		char *name = xasprintf("%s" PERF_STAT_MARK "%s", o->name, event);
		add(ctx, &(struct side_observation){
			.abi = o->abi, .test = o->test, .name = name,
			.unit = clock ? "ns" : "/op", .obs = x, .samples = 1, .ci = NAN, .ci_target = NAN });
		free(name);
		n++;
	}
	double cycles = get_num(events, "cycles"), instructions = get_num(events, "instructions");
	if (isfinite(cycles) && cycles > 0 && isfinite(instructions)) {
		char *name = xasprintf("%s" PERF_STAT_MARK "ipc", o->name);
		add(ctx, &(struct side_observation){
			.abi = o->abi, .test = o->test, .name = name,
			.unit = "", .higher_better = true, .obs = instructions / cycles, .samples = 1,
			.ci = NAN, .ci_target = NAN });
		free(name);
		n++;
	}
	return n;
}

int result_perf_stat_absent(struct json_object *m, const struct side_observation *o,
			    int (*add)(void *ctx, const char *abi, const char *event,
				       const char *reason), void *ctx)
{
	struct json_object *ps = result_get_object(m, "perf_stat");
	struct json_object *absent = ps ? result_get_object(ps, "absent") : NULL;
	if (!absent)
		return 0;
	json_object_object_foreach(absent, event, why) {
		if (add(ctx, o->abi, event, json_object_is_type(why, json_type_string)
					    ? json_object_get_string(why) : NULL) < 0)
			return -1;
	}
	return 0;
}

/* result_perf_stat_absent()'s add for a boot record. */
static int add_uncounted(void *ctx, const char *abi, const char *event, const char *reason)
{
	boot_record_add_uncounted(ctx, abi, event, reason);
	return 0;
}

/* result_perf_stat()'s add for a boot record: the name is the record's. */
static void add_counter(void *ctx, const struct side_observation *c)
{
	struct boot_record *r = ctx;
	struct side_observation o = *c;
	o.name = boot_record_own(r, xstrdup(c->name));
	boot_record_add_metric(r, &o);
}

void result_boot_record_release(struct boot_record *r)
{
	for (size_t i = 0; i < r->nprofiles; i++)
		free((void *)r->profiles[i].fns), free((void *)r->profiles[i].stacks);
	boot_record_release(r);
}

void result_boot_record(struct json_object *root, const char *dir, struct boot_record *r)
{
	struct json_object *kernel = result_get_object(root, "kernel");
	struct json_object *host = result_get_object(root, "host");
	double boot = get_num(root, "boot");
	boot_record_init(r);
	r->dir = dir;
	r->kernel_id = kernel ? get_str(kernel, "id", "?") : "?";
	r->variant = get_str(root, "variant", "default");
	r->verdict = get_str(root, "verdict", "");
	r->reason = get_str(root, "reason", "");
	r->append = get_str(root, "append", "");
	r->image = result_image(root);
	r->target = get_str(root, "target", "");
	r->host = host ? get_str(host, "name", "") : "";
	r->started = get_str(root, "started", NULL);
	r->seed = result_seed(root);
	r->duration = get_num(root, "duration");
	r->boot = isfinite(boot) && fabs(boot) < INT_MAX ? (int)boot : 0;

	struct json_object *a = get_array(root, "metrics");
	for (size_t i = 0, n = a ? json_object_array_length(a) : 0; i < n; i++) {
		struct side_observation o;
		struct json_object *m = json_object_array_get_idx(a, i);
		if (result_metric_entry(m, &o)) {
			boot_record_add_metric(r, &o);
			result_perf_stat(m, &o, add_counter, r);
			result_perf_stat_absent(m, &o, add_uncounted, r);
		}
		record_profile(r, json_object_array_get_idx(a, i));
	}
	a = get_array(root, "tests");
	for (size_t i = 0, n = a ? json_object_array_length(a) : 0; i < n; i++) {
		struct json_object *t = json_object_array_get_idx(a, i);
		const char *abi = get_str(t, "abi", NULL), *test = get_str(t, "test", NULL);
		if (abi && test)
			boot_record_add_test(r, abi, test, get_str(t, "status", NULL),
					     get_num(t, "ms"));
	}
	struct json_object *abis = result_get_object(root, "abis");
	if (abis) {
		json_object_object_foreach(abis, name, entry)
			boot_record_add_abi(r, name, get_str(entry, "status", "error"),
					    get_str(entry, "reason", NULL));
	}
	a = get_array(root, "events");
	for (size_t i = 0, n = a ? json_object_array_length(a) : 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(a, i);
		boot_record_add_event(r, get_str(e, "kind", "unknown"), get_str(e, "title", ""));
	}
	struct json_object *ktap = result_get_object(root, "ktap");
	a = ktap ? get_array(ktap, "cases") : NULL;
	for (size_t i = 0, n = a ? json_object_array_length(a) : 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(a, i);
		boot_record_add_case(r, get_str(e, "suite", ""), get_str(e, "case", ""),
				     get_str(e, "status", ""));
	}
	struct json_object *stages = result_get_object(root, "stages");
	for (int i = 0; stages && i < RESULT_STAGES; i++)
		r->stages[i] = get_num(stages, result_stage_names[i]);
}

/* Reads one result.json into the side. Returns 0 or -1 (message printed). */
static int load_result(struct side *s, const char *path)
{
	struct json_object *root;
	if (result_json_read(path, &root) < 0)
		return -1;
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	struct boot_record r;
	result_boot_record(root, dir, &r);
	side_add_boot(s, &r);
	result_boot_record_release(&r);
	free(dir);
	json_object_put(root);
	return 0;
}

int side_load(struct side *side, const char *path, bool mixed)
{
	return side_load_how(side, path, &(struct side_how){ .mixed = mixed });
}

int results_list(const char *path, char ***files, size_t **copies, size_t *n)
{
	struct path_list list = { 0 };
	struct stat st;
	int ret = 0;
	if (stat(path, &st) < 0)
		ret = error("cannot read %s: %s", path, strerror(errno));
	else if (S_ISDIR(st.st_mode))
		ret = find_results(path, &list, NULL);
	else
		path_list_add(&list, xstrdup(path));
	if (copies)
		*copies = NULL;
	if (list.n) {
		qsort(list.v, list.n, sizeof(*list.v), cmp_path);
		drop_same_boots(&list, copies);
	}
	*files = list.v;
	*n = list.n;
	return ret;
}

int side_load_how(struct side *side, const char *path, const struct side_how *how)
{
	*side = (struct side){ .label = xstrdup(path), .only_host = how->host,
			       .include_fail = how->include_fail };
	struct path_list list = { 0 };
	size_t *copies;
	int ret = results_list(path, &list.v, &copies, &list.n);
	for (size_t i = 0; i < list.n; i++) {
		size_t had = side->nboots;
		if (ret == 0)
			ret = load_result(side, list.v[i]);
		if (ret == 0 && side->nboots > had)     /* not another host's */
			side->ncopies += copies[i];
		free(list.v[i]);
	}
	free(list.v);
	free(copies);
	if (ret == 0 && !how->mixed)
		ret = side_check_alike(side);
	return ret;
}
