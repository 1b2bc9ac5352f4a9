/*
 * config.c: bootrig's configuration, read from libconfig files (the file
 * shape is in config.h).
 *
 * The file is divided as:
 *   - error reporting: every message is "FILE:LINE: what is wrong";
 *   - typed field readers (strings, numbers, string arrays), which refuse a
 *     wrong type with the setting's own line;
 *   - targets, suites and the backends' lists (config_extend()): each
 *     group overrides an earlier one of the same name field by field, or
 *     adds a new one (a target or a suite must then be complete);
 *   - loading: the defaults in bootrig_configs_dir(), then the user's file.
 *
 * Unknown keys are errors too (a typo must not be silently ignored).
 */
#include "config.h"
#include "exitcodes.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <libconfig.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The test families the guest has (initramfs/tests/<name>.c). */
static const char *const known_tests[] = {
	"lat_syscall", "lat_pipe", "lat_ctx", "lat_proc", "lat_sig", "lat_pagefault",
	"hackbench", "lat_mem_rd", "bw_mem", "cpu", "tcp",
};

/* Which ABIs each kernel arch may run. */
static const struct { const char *arch; const char *abis[3]; } arch_abis[] = {
	{ "arm64", { "aarch64", "aarch64_ilp32", "arm" } },
	{ "x86_64", { "x86_64", "x32", "i386" } },
	{ "arm", { "arm", NULL, NULL } },
};

static const char *const target_keys[] = {
	"name", "arch", "abis", "emulator", "qemu_arch", "machine", "cpu", "console",
	"memory_mb", "vcpus", "append", "icount", "known_issues", "timeouts",
	"backend",
};
static const char *const timeout_keys[] = {   /* in enum stage order, then silence */
	"firmware", "kernel", "init", "results", "end", "poweroff", "silence",
};
static const char *const suite_keys[] = {
	"name", "tests", "samples", "min_samples", "ci_target", "repeat", "test_timeout",
	"profile", "boot_time", "perf_stat",
};
static const char *const top_keys[] = { "targets", "suites", "files" };

/* The loaded documents, kept so that the lists' settings stay valid. */
struct config_docs {
	config_t **docs;
	size_t n;
};

/* The backends' keys (config_extend()). */
static const struct config_extension *extensions[CONFIG_MAX_EXTENSIONS];
static size_t n_extensions;

/* ---- errors ---------------------------------------------------------- */

/* Where this file's own messages are about: targets, suites, files. */
static const struct config_where here = { "(config)", NULL, NULL };

int config_fail(const struct config_where *w, const config_setting_t *s, const char *fmt, ...)
{
	const char *file = config_setting_source_file(s);
	char *msg;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (w->what)
		error("%s:%u: %s '%s': %s", file ? file : w->file, config_setting_source_line(s),
		      w->what, w->name, msg ? msg : fmt);
	else
		error("%s:%u: %s", file ? file : w->file, config_setting_source_line(s),
		      msg ? msg : fmt);
	free(msg);
	return EXIT_CONFIG;
}

/* Is name one of the n strings of list (NULL entries skipped)? */
static bool in_list(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] && !strcmp(list[i], name))
			return true;
	return false;
}

int config_check_keys(const struct config_where *w, const config_setting_t *g,
		      const char *const *keys, size_t n, const char *what)
{
	for (int i = 0; i < config_setting_length(g); i++) {
		config_setting_t *m = config_setting_get_elem(g, (unsigned)i);
		const char *name = config_setting_name(m);
		if (name && !in_list(name, keys, n))
			return config_fail(w, m, "unknown key '%s' in %s", name, what);
	}
	return 0;
}

/* ---- typed readers ---------------------------------------------------- */

int config_get_string(const struct config_where *w, const config_setting_t *g,
		       const char *key, char **out)
{
	config_setting_t *s = config_setting_get_member(g, key);
	if (!s)
		return 0;
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return config_fail(w, s, "'%s' must be a string", key);
	free(*out);
	*out = xstrdup(config_setting_get_string(s));
	return 0;
}

int config_get_int(const struct config_where *w, const config_setting_t *g, const char *key,
		    int min, int max, int *out)
{
	config_setting_t *s = config_setting_get_member(g, key);
	if (!s)
		return 0;
	int t = config_setting_type(s);
	if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64)
		return config_fail(w, s, "'%s' must be an integer", key);
	long long v = config_setting_get_int64(s);
	if (v < min || v > max)
		return config_fail(w, s, "'%s' is %lld; it must be from %d to %d", key, v, min, max);
	*out = (int)v;
	return 0;
}

/* A number (an int or a float) of g in [min, max], `what` naming it in
 * messages ("a number of seconds"); *out is left alone when absent. */
static int get_number(const struct config_where *w, const config_setting_t *g, const char *key,
		      const char *what, double min, double max, double *out)
{
	config_setting_t *s = config_setting_get_member(g, key);
	if (!s)
		return 0;
	int t = config_setting_type(s);
	double v;
	if (t == CONFIG_TYPE_FLOAT)
		v = config_setting_get_float(s);
	else if (t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64)
		v = (double)config_setting_get_int64(s);
	else
		return config_fail(w, s, "'%s' must be %s", key, what);
	if (!(v >= min))
		return config_fail(w, s, "'%s' must not be negative", key);
	if (!(v <= max))
		return config_fail(w, s, "'%s' must be at most %g", key, max);
	*out = v;
	return 0;
}

int config_get_seconds(const struct config_where *w, const config_setting_t *g,
			const char *key, double *out)
{
	return get_number(w, g, key, "a number of seconds", 0, INFINITY, out);
}

int config_get_bool(const struct config_where *w, const config_setting_t *g, const char *key,
		     bool *out)
{
	config_setting_t *s = config_setting_get_member(g, key);
	if (!s)
		return 0;
	if (config_setting_type(s) != CONFIG_TYPE_BOOL)
		return config_fail(w, s, "'%s' must be true or false", key);
	*out = config_setting_get_bool(s);
	return 0;
}

/* ci_target: a percentage from 0 to 100 (integers accepted). */
static int read_percent(const config_setting_t *g, const char *key, double *out)
{
	return get_number(&here, g, key, "a percentage", 0, 100, out);
}

/* Frees n strings and the array. */
static void free_strings(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * If g has `key` as an array or list of strings, replaces (*out, *n) with
 * copies. Each element is checked with allowed (NULL: anything) so a
 * wrong name is reported at its own line.
 */
static int read_strings(const config_setting_t *g, const char *key, char ***out, size_t *n,
			const char *const *allowed, size_t n_allowed, const char *what)
{
	config_setting_t *s = config_setting_get_member(g, key);
	if (!s)
		return 0;
	int t = config_setting_type(s);
	if (t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
		return config_fail(&here, s, "'%s' must be a list of strings, like [ \"a\", \"b\" ]", key);
	int len = config_setting_length(s);
	if (len == 0)
		return config_fail(&here, s, "'%s' must not be empty", key);
	char **v = xcalloc((size_t)len, sizeof(*v));
	for (int i = 0; i < len; i++) {
		config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		if (config_setting_type(e) != CONFIG_TYPE_STRING) {
			free_strings(v, (size_t)i);
			return config_fail(&here, s, "'%s' must be a list of strings", key);
		}
		const char *str = config_setting_get_string(e);
		if (allowed && !in_list(str, allowed, n_allowed)) {
			free_strings(v, (size_t)i);
			return config_fail(&here, e, "unknown %s '%s' in '%s'", what, str, key);
		}
		v[i] = xstrdup(str);
	}
	free_strings(*out, *n);
	*out = v;
	*n = (size_t)len;
	return 0;
}

/* The group's name, or EXIT_CONFIG when it has none. */
static int group_name(const config_setting_t *g, const char *what, const char **name)
{
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return config_fail(&here, g, "each of %s must be a group { name = \"...\"; ... }", what);
	config_setting_t *s = config_setting_get_member(g, "name");
	if (!s)
		return config_fail(&here, g, "this entry of %s has no name", what);
	if (config_setting_type(s) != CONFIG_TYPE_STRING || !*config_setting_get_string(s))
		return config_fail(&here, s, "'name' must be a non-empty string");
	*name = config_setting_get_string(s);
	return 0;
}

/* group_open: the name of group g of what (group_name), then its keys
 * checked against keys[0..n) (config_check_keys; kind: "a target"). 0, or
 * EXIT_CONFIG with the first of those errors. */
static int group_open(const config_setting_t *g, const char *what, const char *const *keys,
		      size_t n, const char *kind, const char **name)
{
	int rc = group_name(g, what, name);
	return rc ? rc : config_check_keys(&here, g, keys, n, kind);
}

/* ---- targets ---------------------------------------------------------- */

static int arch_index(const char *arch)
{
	for (size_t i = 0; i < ARRAY_SIZE(arch_abis); i++)
		if (!strcmp(arch_abis[i].arch, arch))
			return (int)i;
	return -1;
}

/* Is key one of a registered backend's keys: of a target's timeouts group
 * (timeouts true), else of a target? */
static bool extension_key(const char *key, bool timeouts)
{
	for (size_t i = 0; i < n_extensions; i++)
		for (const char *const *k = timeouts ? extensions[i]->timeout_keys
					     : extensions[i]->target_keys; k && *k; k++)
			if (!strcmp(*k, key))
				return true;
	return false;
}

/* timeouts = { stage = seconds; ... silence = seconds; } into t; a
 * backend's own keys (config_extension .timeout_keys) are checked to be
 * seconds and read by the backend (config_target_timeout()). */
static int read_timeouts(const config_setting_t *g, struct target *tg)
{
	struct judge_limits *l = &tg->limits;
	config_setting_t *t = config_setting_get_member(g, "timeouts");
	if (!t)
		return 0;
	if (config_setting_type(t) != CONFIG_TYPE_GROUP)
		return config_fail(&here, t, "'timeouts' must be a group { kernel = 60.0; ... }");
	int rc = 0;
	for (int i = 0; !rc && i < config_setting_length(t); i++) {
		config_setting_t *m = config_setting_get_elem(t, (unsigned)i);
		const char *name = config_setting_name(m);
		double ignored;
		if (!name || in_list(name, timeout_keys, ARRAY_SIZE(timeout_keys)))
			continue;
		if (!extension_key(name, true))
			rc = config_fail(&here, m, "unknown key '%s' in %s", name, "timeouts");
		else
			rc = config_get_seconds(&here, t, name, &ignored);
	}
	for (int s = 0; !rc && s < STAGE_COUNT; s++)
		rc = config_get_seconds(&here, t, timeout_keys[s], &l->stage[s]);
	if (!rc)
		rc = config_get_seconds(&here, t, "silence", &l->silence);
	return rc;
}

/* backend = one of the owners registered with boots_targets (lib/config.h).
 * 0 or EXIT_CONFIG. */
static int read_backend(const config_setting_t *g, char **out)
{
	int rc = config_get_string(&here, g, "backend", out);
	config_setting_t *s = config_setting_get_member(g, "backend");
	if (rc || !s)
		return rc;
	struct strbuf names = STRBUF_INIT;
	strbuf_add(&names, "", 0);
	size_t n = 0, left = 0;
	for (size_t i = 0; i < n_extensions; i++)
		left += extensions[i]->boots_targets;
	for (size_t i = 0; i < n_extensions; i++) {
		if (!extensions[i]->boots_targets)
			continue;
		if (!strcmp(*out, extensions[i]->owner)) {
			strbuf_release(&names);
			return 0;
		}
		n++;
		strbuf_addf(&names, "%s\"%s\"", n == 1 ? "" : n < left ? ", " : " or ",
			    extensions[i]->owner);
	}
	rc = config_fail(&here, s, "'backend' is \"%s\": a target's must be %s", *out,
			 n ? names.buf : "a backend's name (none is known)");
	strbuf_release(&names);
	return rc;
}

/* A target's keys: config's own (target_keys) and the backends' (strings). */
static int check_target_keys(const config_setting_t *g)
{
	for (int i = 0; i < config_setting_length(g); i++) {
		config_setting_t *m = config_setting_get_elem(g, (unsigned)i);
		const char *name = config_setting_name(m);
		if (!name || in_list(name, target_keys, ARRAY_SIZE(target_keys)))
			continue;
		if (!extension_key(name, false))
			return config_fail(&here, m, "unknown key '%s' in %s", name, "a target");
		if (config_setting_type(m) != CONFIG_TYPE_STRING)
			return config_fail(&here, m, "'%s' must be a string", name);
	}
	return 0;
}

/*
 * If g has `icount`, reads it: "" (off) or QEMU's -icount options, a
 * comma-separated list of key=value words ("shift=3,sleep=off", "shift=auto").
 * 0 or EXIT_CONFIG.
 */
static int read_icount(const config_setting_t *g, char **out)
{
	int rc = config_get_string(&here, g, "icount", out);
	config_setting_t *s = config_setting_get_member(g, "icount");
	if (rc || !s)
		return rc;
	const char *v = *out;
	bool word_start = true;
	for (const char *p = v; *p; p++) {
		bool ok = strchr("abcdefghijklmnopqrstuvwxyz0123456789_-=", *p) ||
			  (*p == ',' && !word_start);
		if (!ok || (*p == '=' && word_start))
			return config_fail(&here, s, "'icount' is \"%s\": it must be \"\" (off) or QEMU's "
					   "-icount options, like \"" CONFIG_DEFAULT_ICOUNT "\"", v);
		word_start = *p == ',';
	}
	if (*v && word_start)
		return config_fail(&here, s, "'icount' must not end with ','");
	return 0;
}

/* Checks what the whole target must satisfy, after every field is read. */
static int check_target(const config_setting_t *g, const struct target *t)
{
	static const char *const required[] = { "arch", "emulator", "qemu_arch", "machine",
						"console" };
	const char *const values[] = { t->arch, t->emulator, t->qemu_arch, t->machine,
				       t->console };
	for (size_t i = 0; i < ARRAY_SIZE(required); i++)
		if (!values[i] || !*values[i])
			return config_fail(&here, g, "target '%s' has no '%s'", t->name, required[i]);
	int a = arch_index(t->arch);
	if (a < 0)
		return config_fail(&here, g, "target '%s': unknown arch '%s' (arm64, x86_64 or arm)",
				   t->name, t->arch);
	if (!t->n_abis)
		return config_fail(&here, g, "target '%s' has no 'abis'", t->name);
	/* A wrong ABI is reported at its own line when this group set it. */
	config_setting_t *abis = config_setting_get_member(g, "abis");
	for (size_t i = 0; i < t->n_abis; i++) {
		if (in_list(t->abis[i], arch_abis[a].abis, 3))
			continue;
		const config_setting_t *at = abis ? config_setting_get_elem(abis, (unsigned)i) : NULL;
		return config_fail(&here, at ? at : g, "target '%s': ABI '%s' is not one of arch %s",
				   t->name, t->abis[i], t->arch);
	}
	return 0;
}

/* Defaults for a new target: 512 MiB, 1 vCPU, cpu max, generous timeouts. */
static void target_defaults(struct target *t, const char *name)
{
	memset(t, 0, sizeof(*t));
	t->name = xstrdup(name);
	t->cpu = xstrdup("max");
	t->append = xstrdup("");
	t->icount = xstrdup(CONFIG_DEFAULT_ICOUNT);
	t->memory_mb = 512;
	t->vcpus = 1;
	judge_default_limits(&t->limits);
}

/* One group of targets: overrides the target of that name or adds one. */
static int read_target(const config_setting_t *g, struct config *cfg)
{
	const char *name;
	int rc = group_name(g, "targets", &name);
	if (!rc)
		rc = check_target_keys(g);
	for (size_t i = 0; !rc && i < n_extensions; i++)
		if (extensions[i]->check_target)
			rc = extensions[i]->check_target(g);
	if (rc)
		return rc;
	struct target *t = (struct target *)config_find_target(cfg, name);
	if (!t) {
		cfg->targets = xrealloc(cfg->targets, (cfg->n_targets + 1) * sizeof(*t));
		t = &cfg->targets[cfg->n_targets++];
		target_defaults(t, name);
	}
	t->groups = xrealloc(t->groups, (t->n_groups + 1) * sizeof(*t->groups));
	t->groups[t->n_groups++] = (config_setting_t *)g;
	if ((rc = config_get_string(&here, g, "arch", &t->arch)) ||
	    (rc = config_get_string(&here, g, "emulator", &t->emulator)) ||
	    (rc = config_get_string(&here, g, "qemu_arch", &t->qemu_arch)) ||
	    (rc = config_get_string(&here, g, "machine", &t->machine)) ||
	    (rc = config_get_string(&here, g, "cpu", &t->cpu)) ||
	    (rc = config_get_string(&here, g, "console", &t->console)) ||
	    (rc = config_get_string(&here, g, "append", &t->append)) ||
	    (rc = read_icount(g, &t->icount)) ||
	    (rc = read_backend(g, &t->backend)) ||
	    (rc = config_get_int(&here, g, "memory_mb", 16, 1 << 20, &t->memory_mb)) ||
	    (rc = config_get_int(&here, g, "vcpus", 1, 512, &t->vcpus)) ||
	    (rc = read_strings(g, "abis", &t->abis, &t->n_abis, NULL, 0, "ABI")) ||
	    (rc = read_strings(g, "known_issues", &t->known_issues, &t->n_known_issues, NULL, 0,
			       "known issue")) ||
	    (rc = read_timeouts(g, t)))
		return rc;
	t->limits.known_issues = t->known_issues;
	t->limits.n_known_issues = t->n_known_issues;
	return check_target(g, t);
}

/* ---- suites ----------------------------------------------------------- */

/* One group of suites: overrides the suite of that name or adds one. */
static int read_suite(const config_setting_t *g, struct config *cfg)
{
	const char *name;
	int rc = group_open(g, "suites", suite_keys, ARRAY_SIZE(suite_keys), "a suite", &name);
	if (rc)
		return rc;
	struct suite *s = (struct suite *)config_find_suite(cfg, name);
	if (!s) {
		cfg->suites = xrealloc(cfg->suites, (cfg->n_suites + 1) * sizeof(*s));
		s = &cfg->suites[cfg->n_suites++];
		*s = (struct suite){ .name = xstrdup(name), .samples = 11, .min_samples = 3,
				     .ci_target = 1.0, .repeat = 1, .test_timeout = 120.0,
				     .perf_stat = true };
	}
	if ((rc = read_strings(g, "tests", &s->tests, &s->n_tests, known_tests,
			       ARRAY_SIZE(known_tests), "test")) ||
	    (rc = config_get_int(&here, g, "samples", 1, 1000, &s->samples)) ||
	    (rc = config_get_int(&here, g, "min_samples", 1, 1000, &s->min_samples)) ||
	    (rc = read_percent(g, "ci_target", &s->ci_target)) ||
	    (rc = config_get_int(&here, g, "repeat", 1, 1000, &s->repeat)) ||
	    (rc = config_get_seconds(&here, g, "test_timeout", &s->test_timeout)) ||
	    (rc = config_get_bool(&here, g, "profile", &s->profile)) ||
	    (rc = config_get_bool(&here, g, "boot_time", &s->boot_time)) ||
	    (rc = config_get_bool(&here, g, "perf_stat", &s->perf_stat)))
		return rc;
	if (!s->n_tests)
		return config_fail(&here, g, "suite '%s' has no 'tests'", s->name);
	if (s->test_timeout <= 0 || s->test_timeout > 86400)
		return config_fail(&here, g, "suite '%s': 'test_timeout' must be more than 0 and at most "
				   "86400 seconds", s->name);
	return 0;
}

/* ---- the backends' lists ---------------------------------------------- */

/* Adds a deep copy of src (a scalar, group, array or list) to parent. */
static void copy_setting(const config_setting_t *src, config_setting_t *parent)
{
	int type = config_setting_type(src);
	config_setting_t *dst = config_setting_add(parent, config_setting_name(src), type);
	if (!dst)
		return;
	switch (type) {
	case CONFIG_TYPE_INT:
		config_setting_set_int(dst, config_setting_get_int(src));
		break;
	case CONFIG_TYPE_INT64:
		config_setting_set_int64(dst, config_setting_get_int64(src));
		break;
	case CONFIG_TYPE_FLOAT:
		config_setting_set_float(dst, config_setting_get_float(src));
		break;
	case CONFIG_TYPE_STRING:
		config_setting_set_string(dst, config_setting_get_string(src));
		break;
	case CONFIG_TYPE_BOOL:
		config_setting_set_bool(dst, config_setting_get_bool(src));
		break;
	default:   /* group, array, list */
		for (int i = 0; i < config_setting_length(src); i++)
			copy_setting(config_setting_get_elem(src, (unsigned)i), dst);
	}
}

/*
 * Field by field: copies into g each member of prev that g does not set,
 * merging groups both have (power = { off = ...; } keeps power.on). The
 * copies carry no file or line of their own.
 */
static void inherit_fields(config_setting_t *g, const config_setting_t *prev)
{
	for (int i = 0; i < config_setting_length(prev); i++) {
		config_setting_t *m = config_setting_get_elem(prev, (unsigned)i);
		config_setting_t *mine = config_setting_get_member(g, config_setting_name(m));
		if (!mine)
			copy_setting(m, g);
		else if (config_setting_type(mine) == CONFIG_TYPE_GROUP &&
			 config_setting_type(m) == CONFIG_TYPE_GROUP)
			inherit_fields(mine, m);
	}
}

/* The list key of cfg (config_extend()'s), made when first asked for. */
static struct config_list *list_of(struct config *cfg, const char *key)
{
	for (size_t i = 0; i < cfg->n_lists; i++)
		if (!strcmp(cfg->lists[i].key, key))
			return &cfg->lists[i];
	if (cfg->n_lists == CONFIG_MAX_EXTENSIONS)
		die("config: more than %d lists", CONFIG_MAX_EXTENSIONS);
	cfg->lists[cfg->n_lists] = (struct config_list){ .key = key };
	return &cfg->lists[cfg->n_lists++];
}

/* A group of a registered list (x's) named as an earlier one overrides it
 * field by field: the later group gets the fields it lacks and takes the
 * earlier's place; in a list that replaces (x->replaces), a name twice is
 * an error. Then x->check(). */
static int read_group(config_setting_t *g, struct config_list *l,
		      const struct config_extension *x)
{
	const char *name;
	int rc = group_name(g, l->key, &name);
	if (!rc && x->check)
		rc = x->check(g, name);
	if (rc)
		return rc;
	const char *file = config_setting_source_file(g);
	for (size_t i = 0; i < l->n; i++) {
		const char *other;
		config_setting_lookup_string(l->groups[i], "name", &other);
		if (!strcmp(other, name) && x->replaces)
			return config_fail(&here, g, "%s '%s' is listed twice", x->what, name);
		if (!strcmp(other, name)) {
			inherit_fields(g, l->groups[i]);
			l->groups[i] = g;
			l->files[i] = file;
			return 0;
		}
	}
	l->groups = xrealloc(l->groups, (l->n + 1) * sizeof(*l->groups));
	l->files = xrealloc(l->files, (l->n + 1) * sizeof(*l->files));
	l->groups[l->n] = g;
	l->files[l->n++] = file;
	return 0;
}

/* ---- files ------------------------------------------------------------ */

static int read_files(const config_setting_t *root, struct config *cfg)
{
	config_setting_t *s = config_setting_get_member(root, "files");
	if (!s)
		return 0;
	char **v = NULL;
	size_t n = 0;
	int rc = read_strings(root, "files", &v, &n, NULL, 0, "file");
	for (size_t i = 0; !rc && i < n; i++) {
		const char *colon = strchr(v[i], ':');
		if (!colon || colon == v[i] || colon[1] != '/')
			rc = config_fail(&here, config_setting_get_elem(s, (unsigned)i),
					 "'%s' must be \"SRC:/DEST\"", v[i]);
	}
	if (rc) {
		free_strings(v, n);
		return rc;
	}
	cfg->files = xrealloc(cfg->files, (cfg->n_files + n) * sizeof(*cfg->files));
	memcpy(cfg->files + cfg->n_files, v, n * sizeof(*v));
	cfg->n_files += n;
	free(v);
	return 0;
}

/* ---- loading ---------------------------------------------------------- */

typedef int (*entry_reader)(config_setting_t *g, struct config *cfg);

/* The list readers, with the signature read_list() takes. */
static int read_suite_entry(config_setting_t *g, struct config *cfg) { return read_suite(g, cfg); }
static int read_target_entry(config_setting_t *g, struct config *cfg) { return read_target(g, cfg); }

/* Reads each group of the list `key` of root with fn. */
static int read_list(config_setting_t *root, const char *key, entry_reader fn,
		     struct config *cfg)
{
	config_setting_t *l = config_setting_get_member(root, key);
	if (!l)
		return 0;
	if (config_setting_type(l) != CONFIG_TYPE_LIST)
		return config_fail(&here, l, "'%s' must be a list: %s = ( { ... }, { ... } );", key, key);
	int rc = 0;
	for (int i = 0; !rc && i < config_setting_length(l); i++)
		rc = fn(config_setting_get_elem(l, (unsigned)i), cfg);
	return rc;
}

/* Parses one file into a kept document and applies it to cfg. */
static int load_file(const char *path, struct config *cfg)
{
	struct config_docs *docs = cfg->priv;
	if (access(path, R_OK) < 0) {
		error("%s:0: cannot read the config file: %s", path, strerror(errno));
		return EXIT_CONFIG;
	}
	config_t *doc = xmalloc(sizeof(*doc));
	config_init(doc);
	docs->docs = xrealloc(docs->docs, (docs->n + 1) * sizeof(*docs->docs));
	docs->docs[docs->n++] = doc;
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		config_set_include_dir(doc, dir);
	}
	free(dir);
	if (config_read_file(doc, path) != CONFIG_TRUE) {
		const char *file = config_error_file(doc);
		error("%s:%d: %s", file ? file : path, config_error_line(doc),
		      config_error_text(doc));
		return EXIT_CONFIG;
	}
	config_setting_t *root = config_root_setting(doc);
	const char *keys[ARRAY_SIZE(top_keys) + CONFIG_MAX_EXTENSIONS];
	size_t n_keys = 0;
	for (size_t i = 0; i < ARRAY_SIZE(top_keys); i++)
		keys[n_keys++] = top_keys[i];
	for (size_t i = 0; i < n_extensions; i++)
		keys[n_keys++] = extensions[i]->list;       /* NULL entries are skipped */
	int rc = config_check_keys(&here, root, keys, n_keys, "the file");
	if (!rc)
		rc = read_list(root, "targets", read_target_entry, cfg);
	if (!rc)
		rc = read_list(root, "suites", read_suite_entry, cfg);
	for (size_t i = 0; !rc && i < n_extensions; i++) {
		const char *key = extensions[i]->list;
		config_setting_t *l = key ? config_setting_get_member(root, key) : NULL;
		if (l && config_setting_type(l) != CONFIG_TYPE_LIST)
			rc = config_fail(&here, l, "'%s' must be a list: %s = ( { ... }, { ... } );", key, key);
		if (l && !rc && extensions[i]->replaces)
			list_of(cfg, key)->n = 0;       /* this file's list replaces it */
		for (int j = 0; l && !rc && j < config_setting_length(l); j++)
			rc = read_group(config_setting_get_elem(l, (unsigned)j), list_of(cfg, key),
					extensions[i]);
	}
	if (!rc)
		rc = read_files(root, cfg);
	return rc;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .cfg files of a folder (an extension's dir), in name order. */
static int load_dir(const char *dir, struct config *cfg)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len > 4 && !strcmp(e->d_name + len - 4, ".cfg")) {
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = xasprintf("%s/%s", dir, e->d_name);
		}
	}
	closedir(d);
	qsort(names, n, sizeof(*names), compare_names);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (!rc)
			rc = load_file(names[i], cfg);
		free(names[i]);
	}
	free(names);
	return rc;
}

int config_load(const char *user_file, struct config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->priv = xcalloc(1, sizeof(struct config_docs));
	const char *dir = bootrig_configs_dir();
	const char *defaults[] = { "targets.cfg", "suites.cfg" };
	int rc = 0;
	for (size_t i = 0; !rc && i < ARRAY_SIZE(defaults); i++) {
		char *path = xasprintf("%s/%s", dir, defaults[i]);
		if (access(path, F_OK) == 0)
			rc = load_file(path, cfg);
		free(path);
	}
	for (size_t i = 0; !rc && i < n_extensions; i++) {
		if (!extensions[i]->dir)
			continue;
		char *sub = xasprintf("%s/%s", dir, extensions[i]->dir);
		rc = load_dir(sub, cfg);
		free(sub);
	}
	if (!rc && user_file)
		rc = load_file(user_file, cfg);
	if (rc)
		config_release(cfg);
	return rc;
}

static void release_target(struct target *t)
{
	free(t->name);
	free(t->arch);
	free_strings(t->abis, t->n_abis);
	free(t->emulator);
	free(t->qemu_arch);
	free(t->machine);
	free(t->cpu);
	free(t->console);
	free(t->append);
	free(t->icount);
	free(t->backend);
	free(t->groups);
	free_strings(t->known_issues, t->n_known_issues);
}

void config_release(struct config *cfg)
{
	for (size_t i = 0; i < cfg->n_targets; i++)
		release_target(&cfg->targets[i]);
	free(cfg->targets);
	for (size_t i = 0; i < cfg->n_suites; i++) {
		free(cfg->suites[i].name);
		free_strings(cfg->suites[i].tests, cfg->suites[i].n_tests);
	}
	free(cfg->suites);
	for (size_t i = 0; i < cfg->n_lists; i++)
		free(cfg->lists[i].groups), free(cfg->lists[i].files);
	free_strings(cfg->files, cfg->n_files);
	struct config_docs *docs = cfg->priv;
	for (size_t i = 0; docs && i < docs->n; i++) {
		config_destroy(docs->docs[i]);
		free(docs->docs[i]);
	}
	if (docs)
		free(docs->docs);
	free(docs);
	memset(cfg, 0, sizeof(*cfg));
}

const struct target *config_find_target(const struct config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->n_targets; i++)
		if (!strcmp(cfg->targets[i].name, name))
			return &cfg->targets[i];
	return NULL;
}

const struct target *config_target_for_arch(const struct config *cfg, const char *arch)
{
	for (size_t i = 0; i < cfg->n_targets; i++)
		if (cfg->targets[i].arch && !strcmp(cfg->targets[i].arch, arch))
			return &cfg->targets[i];
	return NULL;
}

const struct target *config_pick_target(const struct config *cfg, const char *name,
					const char *arch, const char *kernel, int *rc)
{
	const struct target *t = name ? config_find_target(cfg, name)
				      : config_target_for_arch(cfg, arch);
	*rc = 0;
	if (!t && name)
		*rc = (error("no target '%s' in the configuration", name), EXIT_USAGE);
	else if (!t)
		*rc = (error("no target for %s kernels (%s) in %s/targets.cfg or --config", arch,
			     kernel, bootrig_configs_dir()), EXIT_CONFIG);
	else if (strcmp(t->arch, arch))
		*rc = (error("target '%s' is for %s kernels; %s is %s", t->name, t->arch, kernel,
			     arch), EXIT_USAGE);
	return *rc ? NULL : t;
}

const struct suite *config_find_suite(const struct config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->n_suites; i++)
		if (!strcmp(cfg->suites[i].name, name))
			return &cfg->suites[i];
	return NULL;
}

struct config_setting_t *const *config_groups(const struct config *cfg, const char *key,
					      size_t *n, const char *const **files)
{
	for (size_t i = 0; i < cfg->n_lists; i++)
		if (!strcmp(cfg->lists[i].key, key)) {
			*n = cfg->lists[i].n;
			if (files)
				*files = cfg->lists[i].files;
			return cfg->lists[i].groups;
		}
	*n = 0;
	return NULL;
}

struct config_setting_t *config_find_group(const struct config *cfg, const char *key,
					   const char *name, const char **file)
{
	size_t n;
	const char *const *files;
	struct config_setting_t *const *groups = config_groups(cfg, key, &n, &files);
	for (size_t i = 0; i < n; i++) {
		const char *other = NULL;
		config_setting_lookup_string(groups[i], "name", &other);
		if (other && !strcmp(other, name)) {
			if (file)
				*file = files[i];
			return groups[i];
		}
	}
	return NULL;
}

void config_extend(const struct config_extension *x)
{
	for (size_t i = 0; i < n_extensions; i++)
		if (extensions[i] == x)
			return;
	if (n_extensions == CONFIG_MAX_EXTENSIONS)
		die("config: more than %d extensions", CONFIG_MAX_EXTENSIONS);
	extensions[n_extensions++] = x;
}

double config_target_timeout(const struct target *t, const char *key, double dflt)
{
	for (size_t i = t->n_groups; i-- > 0;) {
		config_setting_t *g = config_setting_get_member(t->groups[i], "timeouts");
		config_setting_t *s = g ? config_setting_get_member(g, key) : NULL;
		if (s && config_setting_type(s) == CONFIG_TYPE_FLOAT)
			return config_setting_get_float(s);
		if (s && (config_setting_type(s) == CONFIG_TYPE_INT ||
			  config_setting_type(s) == CONFIG_TYPE_INT64))
			return (double)config_setting_get_int64(s);
	}
	return dflt;
}

const char *config_target_string(const struct target *t, const char *key)
{
	for (size_t i = t->n_groups; i-- > 0;) {
		config_setting_t *s = config_setting_get_member(t->groups[i], key);
		if (s && config_setting_type(s) == CONFIG_TYPE_STRING)
			return config_setting_get_string(s);
	}
	return NULL;
}
