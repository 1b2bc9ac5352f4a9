/*
 * provoke.c: the kinds `bootrig run --provoke` knows and where their
 * module is (see provoke.h).
 */
#include "provoke.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Each kind and the kernel arguments it needs beyond bootrig.provoke=KIND
 * (init sets the detectors' thresholds through /proc and /sys). */
static const struct {
	const char *name, *append;
} kinds[] = {
	{ "bug", NULL },          { "warning", NULL },        { "null", NULL },
	{ "bad-paging", NULL },   { "gpf", NULL },            { "undef", NULL },
	{ "divide", NULL },       { "soft-lockup", NULL },    { "hard-lockup", NULL },
	{ "hung-task", NULL },    { "rcu-stall", NULL },      { "sleep-atomic", NULL },
	{ "sched-atomic", NULL }, { "stack-overflow", NULL }, { "refcount", NULL },
	{ "list-corruption", NULL }, { "usercopy", NULL },
	{ "double-free", "slub_debug=F" },
	{ "panic", NULL },        { "sysrq-c", NULL },
	{ "flaky-panic", NULL },  /* panics in the boots whose random draw is odd */
};

const char *provoke_kinds(void)
{
	static char *list;
	if (!list) {
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
			strbuf_addf(&sb, "%s%s", i ? ", " : "", kinds[i].name);
		list = sb.buf;
	}
	return list;
}

char *provoke_append(const char *kind)
{
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (!strcmp(kinds[i].name, kind))
			return kinds[i].append ? xasprintf("bootrig.provoke=%s %s", kind, kinds[i].append)
					       : xasprintf("bootrig.provoke=%s", kind);
	return NULL;
}

char *provoke_module(const struct kernel *k)
{
	if (!k->version || !*k->version)
		return error("--provoke: %s names no kernel release, so no module can match it",
			     k->input), NULL;
	char *release = xasprintf("%.*s", (int)strcspn(k->version, " "), k->version);
	const char *dir = getenv("BOOTRIG_PROVOKE_DIR");
	char *path = dir && *dir ? xasprintf("%s/%s/provoke.ko", dir, release)
				 : xasprintf("%s/provoke/%s/provoke.ko", bootrig_cache_dir(), release);
	char *spec = NULL;
	if (access(path, R_OK) == 0)
		spec = xasprintf("%s:lib/provoke.ko", path);
	else
		error("--provoke: no module for kernel %s (%s): build it with "
		      "scripts/build-provoke.sh, or set BOOTRIG_PROVOKE_DIR", release, path);
	free(release), free(path);
	return spec;
}
