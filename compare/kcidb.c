/*
 * kcidb.c: results as KCIDB I/O data (see kcidb.h for the mapping).
 *
 * Layout: strict field readers (a missing or mistyped field is an error
 * naming the file); IDs and URLs; the objects (checkout, build, the boot's
 * test and its sub-tests); the walk over the results.
 */
#include "kcidb.h"
#include "results.h"
#include "sha256.h"
#include "textsafe.h"
#include "util.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { EXCERPT_MAX = 16000 };   /* bytes: under the schema's 16384 characters */

/* What is being read, for messages. */
struct reader {
	const char *path;       /* the result.json */
	bool failed;
};

/* ---- strict field readers --------------------------------------------- */

/* "a string", "an integer", ... for messages. */
static const char *type_name(json_type t)
{
	switch (t) {
	case json_type_boolean: return "a boolean";
	case json_type_double: return "a number";
	case json_type_int: return "an integer";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	case json_type_string: return "a string";
	case json_type_null: break;
	}
	return "null";
}

/* A member of obj of type t, or NULL (absent); a member of another type is
 * an error, and so is an absent one when required. */
static struct json_object *member(struct reader *r, struct json_object *obj, const char *where,
				  const char *key, json_type t, bool required)
{
	struct json_object *v = NULL;
	if (!json_object_object_get_ex(obj, key, &v) || json_object_is_type(v, json_type_null)) {
		if (required && !r->failed)
			error("%s: %s\"%s\" is missing", r->path, where, key), r->failed = true;
		return NULL;
	}
	bool num = t == json_type_double && json_object_is_type(v, json_type_int);
	if (!json_object_is_type(v, t) && !num) {
		if (!r->failed)
			error("%s: %s\"%s\" is %s, not %s", r->path, where, key,
			      type_name(json_object_get_type(v)), type_name(t));
		r->failed = true;
		return NULL;
	}
	return v;
}

/* A string member, or dflt when absent and not required. */
static const char *string(struct reader *r, struct json_object *obj, const char *where,
			  const char *key, bool required, const char *dflt)
{
	struct json_object *v = member(r, obj, where, key, json_type_string, required);
	return v ? json_object_get_string(v) : dflt;
}

/* ---- IDs and URLs ------------------------------------------------------ */

bool kcidb_origin_valid(const char *origin)
{
	if (!*origin)
		return false;
	for (const char *p = origin; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

/* "<origin>:<32 hex digits of the SHA-256 of parts, each ended by '\n'>". */
static struct json_object *make_id(const char *origin, const char *const *parts, size_t n)
{
	struct sha256 s;
	char hex[65];
	sha256_init(&s);
	for (size_t i = 0; i < n; i++) {
		sha256_update(&s, parts[i], strlen(parts[i]));
		sha256_update(&s, "\n", 1);
	}
	sha256_final_hex(&s, hex);
	char *id = xasprintf("%s:%.32s", origin, hex);
	struct json_object *o = json_object_new_string(id);
	free(id);
	return o;
}

/* The root of the sub-tests' paths: under "boot", the catalogue's (kcidb's
 * tests.yaml) test of a machine booted with the kernel; "bootrig" is not in
 * the catalogue (README: how it would be registered). */
#define KCIDB_ROOT "boot.bootrig"

/* The root of the KUnit cases' paths: "kunit", the catalogue's test of
 * the kernel's KUnit suites (tests.yaml, kernelci/kcidb#459), a case
 * under it as kunit.<suite>.<case>. Names come from the guest: a path
 * component holds at most KUNIT_NAME_MAX bytes (KUnit's own limit of a
 * suite's name), a case's path at most KUNIT_PATH_MAX. */
#define KCIDB_KUNIT "kunit"
enum { KUNIT_NAME_MAX = 256, KUNIT_PATH_MAX = 1024 };

bool kcidb_git_commit_valid(const char *sha)
{
	return strlen(sha) == 40 && strspn(sha, "0123456789abcdef") == 40;
}

bool kcidb_git_url_valid(const char *url)
{
	return !strncmp(url, "https://", 8) && url[8] && !strpbrk(url, " \t\n\r");
}

/* Is c a letter or a digit (ASCII, whatever the locale)? */
static bool alnum_ascii(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Is c a byte the schema's path pattern allows in a component? */
static bool path_byte(char c)
{
	return alnum_ascii(c) || c == '_' || c == '-';
}

/* A path component: every byte outside [a-zA-Z0-9_-] made '_'. */
static char *path_part(const char *s)
{
	char *p = xstrdup(*s ? s : "_");
	for (char *c = p; *c; c++)
		if (!path_byte(*c))
			*c = '_';
	return p;
}

/* Appends '.' and s[0..n) to sb as a path component (every byte outside
 * [a-zA-Z0-9_-] made '_'); false when s cannot be one: empty, longer than
 * KUNIT_NAME_MAX bytes, or without a letter or digit (nothing of it left). */
static bool kunit_part(struct strbuf *sb, const char *s, size_t n)
{
	if (!n || n > KUNIT_NAME_MAX)
		return false;
	bool named = false;
	strbuf_add(sb, ".", 1);
	for (size_t i = 0; i < n; i++) {
		named = named || alnum_ascii(s[i]);
		strbuf_add(sb, path_byte(s[i]) ? &s[i] : "_", 1);
	}
	return named;
}

/* The path of a KUnit case, kunit.<suite>.<case> (each of the suite's
 * '.'-separated names a component, none for the empty suite of a case at
 * the top level; a '.' in the case's name made '_'), or NULL when a name
 * cannot be a component (kunit_part) or the path is longer than
 * KUNIT_PATH_MAX. The caller frees it. */
static char *kunit_path(const char *suite, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, KCIDB_KUNIT);
	bool ok = true;
	for (const char *p = suite; *suite && ok; p++) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		ok = kunit_part(&sb, p, n);
		if (!dot)
			break;
		p = dot;
	}
	ok = ok && kunit_part(&sb, name, strlen(name)) && sb.len <= KUNIT_PATH_MAX;
	if (!ok) {
		strbuf_release(&sb);
		return NULL;
	}
	return sb.buf;
}

/* The file:// URL of an absolute path, percent-encoding what RFC 3986
 * does not allow in a path; NULL when file does not exist. */
static char *file_url(const char *path)
{
	char real[PATH_MAX];
	if (!realpath(path, real))
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "file://");
	for (const unsigned char *p = (const unsigned char *)real; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/-._~", *p))
			strbuf_add(&sb, p, 1);
		else
			strbuf_addf(&sb, "%%%02X", *p);
	}
	return sb.buf;
}

/* path made absolute (realpath), or NULL when it does not exist: nothing
 * exported is relative to the directory export ran in. */
static char *absolute(const char *path)
{
	char real[PATH_MAX];
	return realpath(path, real) ? xstrdup(real) : NULL;
}

/* Is s an RFC 3339 date-time (what the schema's "date-time" means)? */
static bool rfc3339(const char *s)
{
	static regex_t re;
	static bool compiled;
	if (!compiled) {
		if (regcomp(&re, "^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?"
			    "([Zz]|[+-][0-9]{2}:[0-9]{2})$", REG_EXTENDED | REG_NOSUB))
			return false;
		compiled = true;
	}
	return regexec(&re, s, 0, NULL, 0) == 0;
}

/* ---- the document ------------------------------------------------------ */

struct export {
	const char *origin;
	const struct kcidb_git *git;    /* --git-commit/--git-url, or NULLs */
	struct json_object *checkouts, *builds, *tests;
	struct json_object *seen;       /* checkout and build IDs already added */
	size_t kunit_skipped;           /* KUnit cases no path can name, every boot's */
};

/* Adds obj to list unless its "id" was added before (then puts obj). */
static void add_once(struct export *x, struct json_object *list, struct json_object *obj)
{
	struct json_object *id;
	json_object_object_get_ex(obj, "id", &id);
	const char *s = json_object_get_string(id);
	if (json_object_object_get_ex(x->seen, s, NULL)) {
		json_object_put(obj);
		return;
	}
	json_object_object_add(x->seen, s, NULL);
	json_object_array_add(list, obj);
}

/* o[key] = a reference to v, if v exists. */
static void add_ref(struct json_object *o, const char *key, struct json_object *v)
{
	if (v)
		json_object_object_add(o, key, json_object_get(v));
}

/* The boot's identity, read once for its objects. */
struct boot {
	const char *kernel_id, *variant, *verdict, *reason, *image, *append, *target, *host;
	const char *started, *dir;
	char *log_url;                  /* file:// of its console.log, or NULL: none */
	char number[24];
	struct json_object *root, *kernel, *id;
	struct json_object *misc;       /* the boot test's misc (borrowed) */
};

/* The kernel's checkout; its ID into *id (a new reference). */
static void add_checkout(struct export *x, struct reader *r, struct boot *b, struct json_object **id)
{
	const char *parts[] = { "checkout", b->kernel_id };
	*id = make_id(x->origin, parts, ARRAY_SIZE(parts));
	struct json_object *c = json_object_new_object(), *misc = json_object_new_object();
	json_object_object_add(c, "id", json_object_get(*id));
	json_object_object_add(c, "origin", json_object_new_string(x->origin));
	const char *version = string(r, b->kernel, "kernel.", "version", false, NULL);
	json_object_object_add(c, "comment", json_cstring_utf8(version ? version : b->kernel_id));
	json_object_object_add(c, "valid", json_object_new_boolean(1));
	struct json_object *git = member(r, b->kernel, "kernel.", "git", json_type_object, false);
	const char *commit = x->git->commit ? x->git->commit
			     : git ? string(r, git, "kernel.git.", "commit", false, NULL) : NULL;
	const char *name = x->git->commit ? NULL
			   : git ? string(r, git, "kernel.git.", "describe", false, NULL) : NULL;
	const char *url = x->git->url ? x->git->url
			  : git ? string(r, git, "kernel.git.", "url", false, NULL) : NULL;
	if (commit && kcidb_git_commit_valid(commit)) {
		json_object_object_add(c, "git_commit_hash", json_object_new_string(commit));
		if (name)
			json_object_object_add(c, "git_commit_name", json_cstring_utf8(name));
	}
	if (url && kcidb_git_url_valid(url))    /* v5: https:// only */
		json_object_object_add(c, "git_repository_url", json_cstring_utf8(url));
	json_object_object_add(misc, "kernel_id", json_cstring_utf8(b->kernel_id));
	const char *kpath = string(r, b->kernel, "kernel.", "path", false, NULL);
	if (kpath && *kpath == '/')   /* a relative one was the run's directory's */
		json_object_object_add(misc, "kernel_path", json_cstring_utf8(kpath));
	add_ref(misc, "kernel_version", member(r, b->kernel, "kernel.", "version", json_type_string, false));
	json_object_object_add(c, "misc", misc);
	add_once(x, x->checkouts, c);
}

/* The build (the kernel and the initramfs booted with it: a variant, a
 * command line, is the test's environment); its ID into *id. */
static void add_build(struct export *x, struct reader *r, struct boot *b,
		      struct json_object *checkout_id, struct json_object **id)
{
	const char *parts[] = { "build", b->kernel_id, b->image };
	*id = make_id(x->origin, parts, ARRAY_SIZE(parts));
	struct json_object *o = json_object_new_object(), *misc = json_object_new_object();
	json_object_object_add(o, "id", json_object_get(*id));
	json_object_object_add(o, "checkout_id", json_object_get(checkout_id));
	json_object_object_add(o, "origin", json_object_new_string(x->origin));
	const char *arch = string(r, b->kernel, "kernel.", "arch", false, NULL);
	if (arch) {
		char *a = path_part(arch);
		for (char *c = a; *c; c++)
			*c = *c == '-' ? '_' : *c >= 'A' && *c <= 'Z' ? (char)(*c - 'A' + 'a') : *c;
		json_object_object_add(o, "architecture", json_object_new_string(a));
		free(a);
	}
	char *comment = xasprintf("%s with bootrig's initramfs", b->kernel_id);
	json_object_object_add(o, "comment", json_cstring_utf8(comment));
	free(comment);
	const char *kpath = string(r, b->kernel, "kernel.", "path", false, NULL);
	char *url = kpath && *kpath == '/' ? file_url(kpath) : NULL;
	if (url) {
		struct json_object *files = json_object_new_array(), *f = json_object_new_object();
		const char *slash = strrchr(url, '/');    /* the real file's name, never empty */
		json_object_object_add(f, "name", json_cstring_utf8(slash + 1));
		json_object_object_add(f, "url", json_object_new_string(url));
		json_object_array_add(files, f);
		json_object_object_add(o, "output_files", files);
		free(url);
	}
	json_object_object_add(o, "status", json_object_new_string("PASS"));   /* v5: was valid */
	json_object_object_add(misc, "initramfs", json_cstring_utf8(b->image));
	add_ref(misc, "bootrig_version", member(r, b->root, "", "bootrig_version", json_type_string, false));
	json_object_object_add(o, "misc", misc);
	add_once(x, x->builds, o);
}

/* A shallow copy of object o without its null members (KCIDB has no nulls). */
static struct json_object *without_nulls(struct json_object *o)
{
	struct json_object *c = json_object_new_object();
	json_object_object_foreach(o, key, v) {
		if (v)
			json_object_object_add(c, key, json_object_get(v));
	}
	return c;
}

/* The environment every test of the boot ran in. */
static struct json_object *environment(struct reader *r, struct boot *b)
{
	struct json_object *env = json_object_new_object(), *misc = json_object_new_object();
	const char *backend = string(r, b->root, "", "backend", false, "");
	const char *accel = string(r, b->root, "", "accelerator", false, "");
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "variant %s, command line '%s'", b->variant, b->append);
	if (*b->target)
		strbuf_addf(&sb, ", target %s", b->target);
	if (*backend)
		strbuf_addf(&sb, "%svia %s", sb.len ? " " : "", backend);
	if (*b->host)
		strbuf_addf(&sb, "%son host %s", sb.len ? " " : "", b->host);
	if (*accel)
		strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", accel);
	json_object_object_add(env, "comment", json_cstring_utf8(sb.buf));
	strbuf_release(&sb);
	json_object_object_add(misc, "variant", json_cstring_utf8(b->variant));
	json_object_object_add(misc, "append", json_cstring_utf8(b->append));
	static const char *const keys[] = { "target", "backend", "accelerator", "clock", "uri" };
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		add_ref(misc, keys[i], member(r, b->root, "", keys[i], json_type_string, false));
	struct json_object *host = member(r, b->root, "", "host", json_type_object, false);
	if (host)
		json_object_object_add(misc, "host", without_nulls(host));
	json_object_object_add(env, "misc", misc);
	return env;
}

/* A test of the boot: its common fields (id from the boot's and path). */
static struct json_object *new_test(struct export *x, struct boot *b, struct json_object *build_id,
				    struct json_object *env, const char *path, const char *status)
{
	struct json_object *t = json_object_new_object();
	if (!strcmp(path, "boot")) {
		json_object_object_add(t, "id", json_object_get(b->id));
	} else {
		const char *parts[] = { "test", json_object_get_string(b->id), path };
		json_object_object_add(t, "id", make_id(x->origin, parts, ARRAY_SIZE(parts)));
	}
	json_object_object_add(t, "build_id", json_object_get(build_id));
	json_object_object_add(t, "origin", json_object_new_string(x->origin));
	json_object_object_add(t, "path", json_object_new_string(path));
	json_object_object_add(t, "status", json_object_new_string(status));
	json_object_object_add(t, "environment", json_object_get(env));
	if (b->started)
		json_object_object_add(t, "start_time", json_object_new_string(b->started));
	return t;
}

/* KCIDB's status of a bootrig verdict, or NULL for an unknown one. */
static const char *verdict_status(const char *v)
{
	if (!strcmp(v, "PASS"))
		return "PASS";
	if (!strcmp(v, "FAIL") || !strcmp(v, "PANIC") || !strcmp(v, "HANG") || !strcmp(v, "BOOT_FAIL"))
		return "FAIL";
	if (!strcmp(v, "INFRA_ERROR"))
		return "MISS";
	return NULL;
}

/* The boot's own test ("boot"), with its log, events and excerpt. */
static void boot_test(struct export *x, struct reader *r, struct boot *b, struct json_object *build_id,
		      struct json_object *env)
{
	const char *status = verdict_status(b->verdict);
	if (!status) {
		error("%s: \"verdict\" is '%s', not a bootrig verdict", r->path, b->verdict);
		r->failed = true;
		return;
	}
	struct json_object *t = new_test(x, b, build_id, env, "boot", status);
	if (b->log_url)
		json_object_object_add(t, "log_url", json_object_new_string(b->log_url));
	struct json_object *duration = member(r, b->root, "", "duration", json_type_double, false);
	if (duration)
		json_object_object_add(t, "duration", json_object_new_double(json_object_get_double(duration)));
	if (*b->reason)
		json_object_object_add(t, "comment", json_cstring_utf8(b->reason));
	struct json_object *misc = json_object_new_object(), *events = member(r, b->root, "", "events",
									     json_type_array, false);
	json_object_object_add(misc, "verdict", json_object_new_string(b->verdict));
	json_object_object_add(misc, "reason", json_cstring_utf8(b->reason));
	char *dir = absolute(b->dir);
	if (dir)
		json_object_object_add(misc, "result_dir", json_cstring_utf8(dir));
	free(dir);
	json_object_object_add(misc, "boot", json_object_new_int(atoi(b->number)));
	struct json_object *titles = json_object_new_array();
	const char *excerpt = NULL;
	for (size_t i = 0; events && i < json_object_array_length(events); i++) {
		struct json_object *e = json_object_array_get_idx(events, i);
		if (!json_object_is_type(e, json_type_object))
			continue;
		struct json_object *ev = json_object_new_object();
		add_ref(ev, "kind", member(r, e, "events[].", "kind", json_type_string, false));
		add_ref(ev, "title", member(r, e, "events[].", "title", json_type_string, false));
		json_object_array_add(titles, ev);
		struct json_object *fatal = NULL;
		json_object_object_get_ex(e, "fatal", &fatal);
		const char *ex = string(r, e, "events[].", "excerpt", false, NULL);
		if (ex && !excerpt && (!fatal || json_object_get_boolean(fatal)))
			excerpt = ex;
	}
	json_object_object_add(misc, "events", titles);
	if (excerpt)
		json_object_object_add(t, "log_excerpt", json_string_utf8(excerpt, strnlen(excerpt, EXCERPT_MAX)));
	json_object_object_add(t, "misc", misc);
	b->misc = misc;
	json_object_array_add(x->tests, t);
}

/* KCIDB's status of an ABI's status, or NULL for an unknown one. */
static const char *abi_status_kcidb(const char *s)
{
	return !strcmp(s, "ok") ? "PASS" : !strcmp(s, "unsupported") ? "SKIP" : !strcmp(s, "error") ? "FAIL"
											   : NULL;
}

/* Element i of the array a (the member key), which must be an object;
 * NULL after a message. */
static struct json_object *array_object(struct reader *r, struct json_object *a, const char *key, size_t i)
{
	struct json_object *e = json_object_array_get_idx(a, i);
	if (!json_object_is_type(e, json_type_object)) {
		error("%s: %s[%zu] is not an object", r->path, key, i);
		r->failed = true;
		return NULL;
	}
	return e;
}

/* t's comment: the string member "reason" of obj, when not empty. */
static void reason_comment(struct reader *r, struct json_object *t, struct json_object *obj,
			   const char *where)
{
	const char *reason = string(r, obj, where, "reason", false, NULL);
	if (reason && *reason)
		json_object_object_add(t, "comment", json_cstring_utf8(reason));
}

/* A test per ABI ("bootrig.<abi>"). */
static void abi_tests(struct export *x, struct reader *r, struct boot *b, struct json_object *build_id,
		      struct json_object *env)
{
	struct json_object *abis = member(r, b->root, "", "abis", json_type_object, false);
	if (!abis)
		return;
	json_object_object_foreach(abis, name, v) {
		if (!json_object_is_type(v, json_type_object)) {
			error("%s: abis.%s is not an object", r->path, name);
			r->failed = true;
			return;
		}
		const char *st = string(r, v, "abis.*.", "status", true, NULL);
		if (!st)
			return;
		const char *status = abi_status_kcidb(st);
		if (!status) {
			error("%s: abis.%s.status is '%s', not ok, unsupported or error", r->path, name, st);
			r->failed = true;
			return;
		}
		char *abi = path_part(name), *path = xasprintf(KCIDB_ROOT ".%s", abi);
		struct json_object *t = new_test(x, b, build_id, env, path, status);
		reason_comment(r, t, v, "abis.*.");
		json_object_array_add(x->tests, t);
		free(abi), free(path);
	}
}

/* A test per ABI test ("bootrig.<abi>.<test>"). */
static void abi_test_tests(struct export *x, struct reader *r, struct boot *b,
			   struct json_object *build_id, struct json_object *env)
{
	struct json_object *tests = member(r, b->root, "", "tests", json_type_array, false);
	for (size_t i = 0; tests && !r->failed && i < json_object_array_length(tests); i++) {
		struct json_object *e = array_object(r, tests, "tests", i);
		if (!e)
			return;
		const char *abi = string(r, e, "tests[].", "abi", true, NULL);
		const char *test = string(r, e, "tests[].", "test", true, NULL);
		const char *st = string(r, e, "tests[].", "status", true, NULL);
		if (r->failed)
			return;
		const char *status = !strcmp(st, "PASS") ? "PASS" : !strcmp(st, "FAIL") ? "FAIL" :
			!strcmp(st, "SKIP") ? "SKIP" : "ERROR";
		char *a = path_part(abi), *te = path_part(test), *path = xasprintf(KCIDB_ROOT ".%s.%s", a, te);
		struct json_object *t = new_test(x, b, build_id, env, path, status);
		reason_comment(r, t, e, "tests[].");
		struct json_object *ms = member(r, e, "tests[].", "ms", json_type_double, false);
		if (ms)
			json_object_object_add(t, "duration", json_object_new_double(json_object_get_double(ms) / 1000));
		if (strcmp(st, status)) {
			struct json_object *misc = json_object_new_object();
			json_object_object_add(misc, "status", json_cstring_utf8(st));
			json_object_object_add(t, "misc", misc);
		}
		json_object_array_add(x->tests, t);
		free(a), free(te), free(path);
	}
}

/* A test per metric ("bootrig.<abi>.<test>.<name>", DONE, its number). */
static void metric_tests(struct export *x, struct reader *r, struct boot *b,
			 struct json_object *build_id, struct json_object *env)
{
	struct json_object *metrics = member(r, b->root, "", "metrics", json_type_array, false);
	for (size_t i = 0; metrics && !r->failed && i < json_object_array_length(metrics); i++) {
		struct json_object *m = array_object(r, metrics, "metrics", i);
		if (!m)
			return;
		const char *abi = string(r, m, "metrics[].", "abi", true, NULL);
		const char *test = string(r, m, "metrics[].", "test", true, NULL);
		const char *name = string(r, m, "metrics[].", "name", true, NULL);
		struct json_object *median = member(r, m, "metrics[].", "median", json_type_double, false);
		const char *unit = string(r, m, "metrics[].", "unit", false, NULL);
		if (r->failed)
			return;
		char *a = path_part(abi), *te = path_part(test), *n = path_part(name);
		char *path = xasprintf(KCIDB_ROOT ".%s.%s.%s", a, te, n);
		/* a metric without a median was not measured: MISS, no number */
		struct json_object *t = new_test(x, b, build_id, env, path, median ? "DONE" : "MISS");
		if (median) {
			struct json_object *num = json_object_new_object();
			json_object_object_add(num, "value", json_object_new_double(json_object_get_double(median)));
			if (unit && *unit)
				json_object_object_add(num, "unit", json_cstring_utf8(unit));
			json_object_object_add(t, "number", num);
		}
		struct json_object *misc = without_nulls(m);
		json_object_object_del(misc, "abi");
		json_object_object_del(misc, "test");
		json_object_object_del(misc, "name");
		json_object_object_add(t, "misc", misc);
		json_object_array_add(x->tests, t);
		free(a), free(te), free(n), free(path);
	}
}

/* KCIDB's status of a KTAP case's status: ok PASS, fail FAIL, skip SKIP,
 * anything else ERROR. */
static const char *ktap_status_kcidb(const char *s)
{
	return !strcmp(s, "ok") ? "PASS" : !strcmp(s, "fail") ? "FAIL" : !strcmp(s, "skip") ? "SKIP"
											  : "ERROR";
}

/* The ID of a KUnit case's test: from the boot's test ID, the suite, the
 * case and its occurrence in the boot (1, then 2, 3, ... for the same
 * suite and case again; seen counts them): stable, and unique, as two
 * cases whose parts join to the same text have the same key in seen. */
static struct json_object *kunit_id(struct export *x, struct boot *b, struct json_object *seen,
				    const char *suite, const char *name)
{
	char *key = xasprintf("%s\n%s", suite, name), nth[24];
	struct json_object *count = NULL;
	json_object_object_get_ex(seen, key, &count);
	int n = count ? json_object_get_int(count) + 1 : 1;
	json_object_object_add(seen, key, json_object_new_int(n));
	free(key);
	snprintf(nth, sizeof(nth), "%d", n);
	const char *parts[] = { "kunit", json_object_get_string(b->id), suite, name, nth };
	return make_id(x->origin, parts, ARRAY_SIZE(parts));
}

/* A test per KUnit case (result.json ktap.cases, path kunit_path): its
 * boot's build, environment, start time and console.log; misc the case's
 * names and KTAP status. A case no path can name is counted in the boot
 * test's misc.kunit_not_exported and x->kunit_skipped, not exported. */
static void kunit_tests(struct export *x, struct reader *r, struct boot *b,
			struct json_object *build_id, struct json_object *env)
{
	struct json_object *ktap = member(r, b->root, "", "ktap", json_type_object, false);
	struct json_object *cases = ktap ? member(r, ktap, "ktap.", "cases", json_type_array, false) : NULL;
	struct json_object *seen = json_object_new_object();
	int skipped = 0;
	for (size_t i = 0; cases && !r->failed && i < json_object_array_length(cases); i++) {
		struct json_object *e = array_object(r, cases, "ktap.cases", i);
		if (!e)
			break;
		const char *suite = string(r, e, "ktap.cases[].", "suite", true, NULL);
		const char *name = string(r, e, "ktap.cases[].", "case", true, NULL);
		const char *st = string(r, e, "ktap.cases[].", "status", true, NULL);
		if (r->failed)
			break;
		char *path = kunit_path(suite, name);
		if (!path) {
			skipped++;
			continue;
		}
		struct json_object *t = new_test(x, b, build_id, env, path, ktap_status_kcidb(st));
		json_object_object_add(t, "id", kunit_id(x, b, seen, suite, name));   /* replaces */
		if (b->log_url)
			json_object_object_add(t, "log_url", json_object_new_string(b->log_url));
		reason_comment(r, t, e, "ktap.cases[].");
		struct json_object *misc = json_object_new_object();
		json_object_object_add(misc, "suite", json_cstring_utf8(suite));
		json_object_object_add(misc, "case", json_cstring_utf8(name));
		json_object_object_add(misc, "status", json_cstring_utf8(st));
		json_object_object_add(t, "misc", misc);
		json_object_array_add(x->tests, t);
		free(path);
	}
	json_object_put(seen);
	if (skipped && b->misc)
		json_object_object_add(b->misc, "kunit_not_exported", json_object_new_int(skipped));
	x->kunit_skipped += (size_t)skipped;
}

/* One result.json into the document; false after a message. */
static bool export_boot(struct export *x, const char *path)
{
	struct reader r = { path, false };
	struct json_object *root;
	if (result_json_read(path, &root) < 0)
		return false;
	struct boot b = { .root = root };
	b.kernel = member(&r, root, "", "kernel", json_type_object, true);
	b.kernel_id = b.kernel ? string(&r, b.kernel, "kernel.", "id", true, NULL) : NULL;
	b.variant = string(&r, root, "", "variant", true, NULL);
	b.verdict = string(&r, root, "", "verdict", true, NULL);
	struct json_object *boot = member(&r, root, "", "boot", json_type_int, true);
	b.reason = string(&r, root, "", "reason", false, "");
	b.append = string(&r, root, "", "append", false, "");
	b.target = string(&r, root, "", "target", false, "");
	b.started = string(&r, root, "", "started", false, NULL);
	struct json_object *img = member(&r, root, "", "initramfs", json_type_object, false);
	b.image = img ? string(&r, img, "initramfs.", "sha256", false, "") : "";
	struct json_object *host = member(&r, root, "", "host", json_type_object, false);
	b.host = host ? string(&r, host, "host.", "name", false, "") : "";
	if (!r.failed && b.started && !rfc3339(b.started)) {
		error("%s: \"started\" is '%s', not an RFC 3339 time", path, b.started);
		r.failed = true;
	}
	if (r.failed) {
		json_object_put(root);
		return false;
	}
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	b.dir = dir;
	char *log = xasprintf("%s/console.log", dir);
	b.log_url = file_url(log);
	free(log);
	snprintf(b.number, sizeof(b.number), "%d", json_object_get_int(boot));
	const char *parts[] = { "boot", b.kernel_id, b.variant, b.image, b.append, b.target, b.host,
				b.number, b.started ? b.started : "" };
	b.id = make_id(x->origin, parts, ARRAY_SIZE(parts));
	struct json_object *checkout_id, *build_id, *env = environment(&r, &b);
	add_checkout(x, &r, &b, &checkout_id);
	add_build(x, &r, &b, checkout_id, &build_id);
	boot_test(x, &r, &b, build_id, env);
	if (!r.failed)
		abi_tests(x, &r, &b, build_id, env);
	if (!r.failed)
		abi_test_tests(x, &r, &b, build_id, env);
	if (!r.failed)
		metric_tests(x, &r, &b, build_id, env);
	if (!r.failed)
		kunit_tests(x, &r, &b, build_id, env);
	json_object_put(checkout_id), json_object_put(build_id), json_object_put(env);
	json_object_put(b.id);
	free(b.log_url);
	free(dir);
	json_object_put(root);
	return !r.failed;
}

struct json_object *kcidb_export(const char *const *paths, size_t n, const char *origin,
				 const struct kcidb_git *git)
{
	static const struct kcidb_git none;
	struct export x = { origin, git ? git : &none, json_object_new_array(), json_object_new_array(),
			    json_object_new_array(), json_object_new_object(), 0 };
	bool ok = true;
	for (size_t i = 0; i < n && ok; i++) {
		char **files;
		size_t nfiles;
		ok = results_list(paths[i], &files, NULL, &nfiles) == 0;
		for (size_t k = 0; k < nfiles; k++) {
			ok = ok && export_boot(&x, files[k]);
			free(files[k]);
		}
		free(files);
		if (ok && !nfiles) {
			error("%s: no result.json at or below it", paths[i]);
			ok = false;
		}
	}
	json_object_put(x.seen);
	if (ok && x.kunit_skipped)
		warning("export: %zu KUnit cases not exported: no KCIDB path can hold their names (a "
			"name empty, over %d bytes or without a letter or digit, or a path over %d; "
			"counted in each boot test's misc.kunit_not_exported)", x.kunit_skipped,
			KUNIT_NAME_MAX, KUNIT_PATH_MAX);
	if (!ok) {
		json_object_put(x.checkouts), json_object_put(x.builds), json_object_put(x.tests);
		return NULL;
	}
	struct json_object *doc = json_object_new_object(), *version = json_object_new_object();
	json_object_object_add(version, "major", json_object_new_int(KCIDB_MAJOR));
	json_object_object_add(version, "minor", json_object_new_int(KCIDB_MINOR));
	json_object_object_add(doc, "version", version);
	json_object_object_add(doc, "checkouts", x.checkouts);
	json_object_object_add(doc, "builds", x.builds);
	json_object_object_add(doc, "tests", x.tests);
	return doc;
}
