/*
 * results.c: reading a side of a comparison (see results.h): finding every
 * result.json below a directory in a stable order, checking and reading
 * each one into the boot list, the metric series, the ABI counts, the
 * events and the stage times.
 */
#include "results.h"
#include "stats.h"
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
	size_t order;
};

static int cmp_file(const void *a, const void *b)
{
	const struct named_file *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

static int cmp_order(const void *a, const void *b)
{
	const struct named_file *x = a, *y = b;
	return (x->order > y->order) - (x->order < y->order);
}

/*
 * Keeps each file of list (in natural order) once: a boot reached by two
 * paths (`R/latest -> run1`) is one boot, listed by its first path in
 * natural order. Sort by (device, inode), keep the first of each, and put
 * them back in order: n log n, for any number of boots.
 */
static void drop_same_files(struct path_list *list)
{
	struct named_file *f = xcalloc(list->n ? list->n : 1, sizeof(*f));
	size_t n = 0;
	for (size_t i = 0; i < list->n; i++) {
		struct stat st;
		f[n] = (struct named_file){ .path = list->v[i], .order = i };
		if (stat(list->v[i], &st) == 0)
			f[n].dev = st.st_dev, f[n].ino = st.st_ino;
		else
			f[n].ino = (ino_t)-1 - i;       /* gone: kept, as unique */
		n++;
	}
	qsort(f, n, sizeof(*f), cmp_file);
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		if (kept && f[kept - 1].dev == f[i].dev && f[kept - 1].ino == f[i].ino) {
			free(f[i].path);
			continue;
		}
		f[kept++] = f[i];
	}
	qsort(f, kept, sizeof(*f), cmp_order);
	for (size_t i = 0; i < kept; i++)
		list->v[i] = f[i].path;
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

/* FNV-1a over the three strings, each with its NUL. */
static size_t triple_hash(const char *const key[3])
{
	uint64_t h = 14695981039346656037ull;
	for (int k = 0; k < 3; k++)
		for (const unsigned char *p = (const unsigned char *)key[k];; p++) {
			h = (h ^ *p) * 1099511628211ull;
			if (!*p)
				break;
		}
	return (size_t)h;
}

size_t triple_index_find(const struct triple_index *x, const char *const key[3], triple_get get,
			 const void *ctx)
{
	if (!x->cap)
		return SIZE_MAX;
	for (size_t at = triple_hash(key) & (x->cap - 1);; at = (at + 1) & (x->cap - 1)) {
		if (!x->slot[at])
			return SIZE_MAX;
		const char *have[3];
		get(ctx, x->slot[at] - 1, have);
		if (!strcmp(have[0], key[0]) && !strcmp(have[1], key[1]) && !strcmp(have[2], key[2]))
			return x->slot[at] - 1;
	}
}

/* Puts entry i in its slot (there is room). */
static void triple_place(struct triple_index *x, size_t i, triple_get get, const void *ctx)
{
	const char *key[3];
	get(ctx, i, key);
	size_t at = triple_hash(key) & (x->cap - 1);
	while (x->slot[at])
		at = (at + 1) & (x->cap - 1);
	x->slot[at] = i + 1;
}

void triple_index_add(struct triple_index *x, size_t i, triple_get get, const void *ctx)
{
	if (2 * (x->n + 1) > x->cap) {
		struct triple_index old = *x;
		x->cap = old.cap ? 2 * old.cap : 64;
		x->slot = xcalloc(x->cap, sizeof(*x->slot));
		for (size_t k = 0; k < old.cap; k++)
			if (old.slot[k])
				triple_place(x, old.slot[k] - 1, get, ctx);
		free(old.slot);
	}
	triple_place(x, i, get, ctx);
	x->n++;
}

void triple_index_free(struct triple_index *x)
{
	free(x->slot);
	*x = (struct triple_index){ 0 };
}

/* triple_get over a side's metrics. */
static void series_key(const void *ctx, size_t i, const char *key[3])
{
	const struct metric_series *m = &((const struct side *)ctx)->metrics[i];
	key[0] = m->abi, key[1] = m->test, key[2] = m->name;
}

/* The side's series for (abi, test, name), or NULL. */
static struct metric_series *find_series(struct side *s, const char *abi,
					 const char *test, const char *name)
{
	const char *key[3] = { abi, test, name };
	size_t i = triple_index_find(&s->metric_index, key, series_key, s);
	return i == SIZE_MAX ? NULL : &s->metrics[i];
}

const struct metric_series *side_metric(const struct side *side, const char *abi,
					const char *test, const char *name)
{
	return find_series((struct side *)side, abi, test, name);
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

void side_add_observation(struct side *s, const struct side_observation *o)
{
	struct metric_series *ser = find_series(s, o->abi, o->test, o->name);
	if (!ser) {
		if (!(s->nmetrics & (s->nmetrics - 1)))         /* 0, 1, 2, 4...: doubled */
			s->metrics = xrealloc(s->metrics, (s->nmetrics ? 2 * s->nmetrics : 1) *
					      sizeof(*s->metrics));
		ser = &s->metrics[s->nmetrics++];
		*ser = (struct metric_series){
			.abi = xstrdup(o->abi), .test = xstrdup(o->test), .name = xstrdup(o->name),
			.unit = xstrdup(o->unit), .higher_better = o->higher_better,
			.ci_max = NAN, .ci_target = NAN, .test_s = NAN,
		};
		triple_index_add(&s->metric_index, s->nmetrics - 1, series_key, s);
	}
	ser->samples += o->samples;
	if (isfinite(o->ci) && o->ci >= 0 && !(o->ci <= ser->ci_max))
		ser->ci_max = o->ci;
	if (isfinite(o->ci_target))
		ser->ci_target = o->ci_target;
	ser->unmet += o->stop_max;
	if (ser->n == ser->alloc) {
		ser->alloc = ser->alloc ? 2 * ser->alloc : 8;
		ser->obs = xrealloc(ser->obs, ser->alloc * sizeof(*ser->obs));
	}
	ser->obs[ser->n++] = o->obs;
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

/* Adds one PASS boot's metrics to the side's series. */
static void add_metrics(struct side *s, struct json_object *metrics)
{
	size_t n = metrics ? json_object_array_length(metrics) : 0;
	for (size_t i = 0; i < n; i++) {
		struct side_observation o;
		if (result_metric_entry(json_object_array_get_idx(metrics, i), &o))
			side_add_observation(s, &o);
	}
}

/* Adds one PASS boot's test times (tests[].ms) to the series its tests
 * measured. */
static void add_test_times(struct side *s, struct json_object *tests)
{
	size_t n = tests ? json_object_array_length(tests) : 0;
	for (size_t i = 0; i < n; i++) {
		struct json_object *t = json_object_array_get_idx(tests, i);
		const char *abi = get_str(t, "abi", NULL), *test = get_str(t, "test", NULL);
		double ms = get_num(t, "ms");
		if (!abi || !test || !isfinite(ms) || ms < 0)
			continue;
		for (size_t k = 0; k < s->nmetrics; k++) {
			struct metric_series *m = &s->metrics[k];
			if (!strcmp(m->abi, abi) && !strcmp(m->test, test))
				m->test_s = (isnan(m->test_s) ? 0 : m->test_s) + ms / 1000;
		}
	}
}

/* Counts one boot's ABI table into the side's. */
static void add_abis(struct side *s, struct json_object *abis)
{
	if (!abis || !json_object_is_type(abis, json_type_object))
		return;
	json_object_object_foreach(abis, name, entry)
		side_add_abi(s, name, get_str(entry, "status", "error"), get_str(entry, "reason", NULL));
}

void side_add_abi(struct side *s, const char *name, const char *status, const char *reason)
{
	struct abi_count *c = NULL;
	for (size_t i = 0; i < s->nabis && !c; i++)
		if (!strcmp(s->abis[i].abi, name))
			c = &s->abis[i];
	if (!c) {
		s->abis = xrealloc(s->abis, (s->nabis + 1) * sizeof(*s->abis));
		c = &s->abis[s->nabis++];
		*c = (struct abi_count){ .abi = xstrdup(name) };
	}
	if (!strcmp(status, "ok"))
		c->ok++;
	else if (!strcmp(status, "unsupported"))
		c->unsupported++;
	else
		c->error++;
	if (strcmp(status, "ok") && reason && *reason && !c->reason)
		c->reason = xstrdup(reason);
}

/* Keeps each event (kind, title) of boot number `boot`. */
static void add_events(struct side *s, struct json_object *events, size_t boot)
{
	size_t n = events ? json_object_array_length(events) : 0;
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(events, i);
		side_add_event(s, get_str(e, "kind", "unknown"), get_str(e, "title", ""), boot);
	}
}

void side_add_event(struct side *s, const char *kind, const char *title, size_t boot)
{
	s->events = xrealloc(s->events, (s->nevents + 1) * sizeof(*s->events));
	s->events[s->nevents++] = (struct event_info){
		.kind = xstrdup(kind), .title = xstrdup(title), .boot = boot,
	};
}

/* Keeps each KTAP case (suite, case, status) of boot number `boot`. */
static void add_cases(struct side *s, struct json_object *ktap, size_t boot)
{
	struct json_object *cases = ktap ? get_array(ktap, "cases") : NULL;
	size_t n = cases ? json_object_array_length(cases) : 0;
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(cases, i);
		side_add_case(s, get_str(e, "suite", ""), get_str(e, "case", ""), get_str(e, "status", ""),
			      boot);
	}
}

void side_add_case(struct side *s, const char *suite, const char *name, const char *status,
		   size_t boot)
{
	s->cases = xrealloc(s->cases, (s->ncases + 1) * sizeof(*s->cases));
	s->cases[s->ncases++] = (struct ktap_case_info){
		.suite = xstrdup(suite), .name = xstrdup(name), .status = xstrdup(status), .boot = boot,
	};
}

/* Adds the start time of every stage the boot reached. */
static void add_stages(struct side *s, struct json_object *stages)
{
	if (!stages || !json_object_is_type(stages, json_type_object))
		return;
	for (int i = 0; i < RESULT_STAGES; i++) {
		double t = get_num(stages, result_stage_names[i]);
		if (!isnan(t))
			side_add_stage(s, i, t);
	}
}

void side_add_stage(struct side *s, int stage, double t)
{
	s->stages[stage] = xrealloc(s->stages[stage], (s->nstages[stage] + 1) * sizeof(double));
	s->stages[stage][s->nstages[stage]++] = t;
}

/* The initramfs a boot ran: its sha256, else its path, else "". */
static const char *image_of(struct json_object *root)
{
	struct json_object *img = NULL;
	if (!json_object_object_get_ex(root, "initramfs", &img))
		return "";
	const char *sha = get_str(img, "sha256", NULL);
	return sha ? sha : get_str(img, "path", "");
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

/* Parses one result.json into the side. Returns 0 or -1 (message printed). */
static int load_result(struct side *s, const char *path)
{
	struct json_object *root;
	if (result_json_read(path, &root) < 0)
		return -1;
	const char *verdict = get_str(root, "verdict", NULL);
	struct json_object *kernel = NULL;
	json_object_object_get_ex(root, "kernel", &kernel);
	double boot = get_num(root, "boot");
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';

	s->boots = xrealloc(s->boots, (s->nboots + 1) * sizeof(*s->boots));
	struct boot_info *b = &s->boots[s->nboots];
	*b = (struct boot_info){
		.dir = dir,
		.kernel_id = xstrdup(kernel ? get_str(kernel, "id", "?") : "?"),
		.variant = xstrdup(get_str(root, "variant", "default")),
		.verdict = xstrdup(verdict),
		.reason = xstrdup(get_str(root, "reason", "")),
		.boot = isfinite(boot) && fabs(boot) < INT_MAX ? (int)boot : 0,
		.passed = !strcmp(verdict, "PASS"),
		.append = xstrdup(get_str(root, "append", "")),
		.target = xstrdup(get_str(root, "target", "")),
		.image = xstrdup(image_of(root)),
		.duration = get_num(root, "duration"),
	};
	const char *started = get_str(root, "started", NULL);
	b->started = started ? xstrdup(started) : NULL;
	struct json_object *host = NULL;
	json_object_object_get_ex(root, "host", &host);
	b->host = xstrdup(host ? get_str(host, "name", "") : "");
	if (s->only_host && strcmp(b->host, s->only_host)) {   /* another host's boot */
		free(b->dir), free(b->kernel_id), free(b->variant), free(b->verdict);
		free(b->reason), free(b->append), free(b->target), free(b->image), free(b->host);
		free(b->started);
		json_object_put(root);
		return 0;
	}
	if (b->passed) {
		s->npass++;
		add_metrics(s, get_array(root, "metrics"));
		add_test_times(s, get_array(root, "tests"));
		struct json_object *stages = NULL;
		json_object_object_get_ex(root, "stages", &stages);
		add_stages(s, stages);
	}
	if (!strcmp(verdict, "INFRA_ERROR"))
		s->ninfra++;
	struct json_object *abis = NULL;
	json_object_object_get_ex(root, "abis", &abis);
	add_abis(s, abis);
	add_events(s, get_array(root, "events"), s->nboots);
	struct json_object *ktap = NULL;
	json_object_object_get_ex(root, "ktap", &ktap);
	add_cases(s, ktap, s->nboots);
	s->nboots++;
	json_object_put(root);
	return 0;
}

int side_check_alike(const struct side *s)
{
	for (size_t i = 0; i < s->nboots; i++) {
		const struct boot_info *a = &s->boots[i];
		for (size_t j = i + 1; j < s->nboots; j++) {
			const struct boot_info *b = &s->boots[j];
			if (strcmp(a->kernel_id, b->kernel_id) || strcmp(a->variant, b->variant))
				continue;
			const char *what = strcmp(a->append, b->append) ? "kernel command lines"
					   : strcmp(a->image, b->image) ? "initramfs images"
					   : strcmp(a->target, b->target) ? "targets" : NULL;
			if (what)
				return error("%s: boots of %s/%s were run with different %s (%s and %s): "
					     "they are not one sample; compare them apart, or pool "
					     "them with --mixed", s->label, a->kernel_id, a->variant,
					     what, a->dir, b->dir);
		}
	}
	return 0;
}

int side_load(struct side *side, const char *path, bool mixed)
{
	return side_load_host(side, path, mixed, NULL);
}

size_t side_hosts(const struct side *side, const char **hosts, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < side->nboots; i++) {
		size_t k = 0;
		while (k < n && strcmp(hosts[k], side->boots[i].host))
			k++;
		if (k == n && n < max)
			hosts[n++] = side->boots[i].host;
	}
	return n;
}

int results_list(const char *path, char ***files, size_t *n)
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
	if (list.n) {
		qsort(list.v, list.n, sizeof(*list.v), cmp_path);
		drop_same_files(&list);
	}
	*files = list.v;
	*n = list.n;
	return ret;
}

int side_load_host(struct side *side, const char *path, bool mixed, const char *host)
{
	*side = (struct side){ .label = xstrdup(path), .only_host = host };
	struct path_list list = { 0 };
	int ret = results_list(path, &list.v, &list.n);
	for (size_t i = 0; i < list.n; i++) {
		if (ret == 0)
			ret = load_result(side, list.v[i]);
		free(list.v[i]);
	}
	free(list.v);
	if (ret == 0 && !mixed)
		ret = side_check_alike(side);
	return ret;
}

void side_free(struct side *s)
{
	for (size_t i = 0; i < s->nboots; i++) {
		struct boot_info *b = &s->boots[i];
		free(b->dir), free(b->kernel_id), free(b->variant);
		free(b->verdict), free(b->reason);
		free(b->append), free(b->image), free(b->target), free(b->host), free(b->started);
	}
	for (size_t i = 0; i < s->nmetrics; i++) {
		struct metric_series *m = &s->metrics[i];
		free(m->abi), free(m->test), free(m->name), free(m->unit), free(m->obs);
	}
	for (size_t i = 0; i < s->nabis; i++)
		free(s->abis[i].abi), free(s->abis[i].reason);
	for (size_t i = 0; i < s->ncases; i++)
		free(s->cases[i].suite), free(s->cases[i].name), free(s->cases[i].status);
	free(s->cases);
	for (size_t i = 0; i < s->nevents; i++)
		free(s->events[i].kind), free(s->events[i].title);
	for (int i = 0; i < RESULT_STAGES; i++)
		free(s->stages[i]);
	triple_index_free(&s->metric_index);
	free(s->boots), free(s->metrics), free(s->abis), free(s->events), free(s->label);
	*s = (struct side){ 0 };
}

const char *abi_status(const struct side *side, const char *abi)
{
	for (size_t i = 0; i < side->nabis; i++) {
		const struct abi_count *c = &side->abis[i];
		if (strcmp(c->abi, abi))
			continue;
		int kinds = !!c->ok + !!c->unsupported + !!c->error;
		if (kinds > 1)
			return "mixed";
		return c->ok ? "ok" : c->unsupported ? "unsupported" : "error";
	}
	return "-";
}

bool event_is_kernel_failure(const char *kind)
{
	return strcmp(kind, "protocol") && strcmp(kind, "infra") && strcmp(kind, "truncated");
}
