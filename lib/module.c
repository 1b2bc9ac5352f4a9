/*
 * module.c: the plugin module loader (module.h). It knows modules only by
 * name; the forwarders that give their functions the usual names live
 * with their callers (runner/backend.c, builder/sdimage-load.c).
 */
#include "module.h"

#include "util.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The modules' directory under each candidate place: the AddressSanitizer
 * build has its own (Makefile: build/asan-modules). */
#ifndef BOOTRIG_MODULE_DIR
#define BOOTRIG_MODULE_DIR "modules"
#endif

/* One module, loaded or known not to load: handle or failure is set. */
struct module {
	char *name;
	void *handle;
	char *failure;
	struct module *next;
};

static struct module *modules;
static pthread_mutex_t modules_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local char last_error[1024];

/* Keeps why the current call fails, for module_error(). Returns NULL. */
static void *fail(const char *reason)
{
	snprintf(last_error, sizeof(last_error), "%s", reason);
	return NULL;
}

/*
 * The path of <module>.so: the first readable candidate of module.h's
 * list, or NULL with the places looked at appended to tried.
 */
static char *find_module_file(const char *module, struct strbuf *tried)
{
	const char *datadir = getenv("BOOTRIG_DATADIR");
	char *exe = bootrig_exe_dir();
	char *cands[] = {
		datadir && *datadir ? xasprintf("%s/%s", datadir, BOOTRIG_MODULE_DIR) : NULL,
		xasprintf("%s/%s", exe, BOOTRIG_MODULE_DIR),
		xasprintf("%s/../%s", exe, BOOTRIG_MODULE_DIR),
		xasprintf("%s/../lib/bootrig/%s", exe, BOOTRIG_MODULE_DIR),
	};
	char *found = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(cands); i++) {
		if (!cands[i])
			continue;
		char *path = xasprintf("%s/%s.so", cands[i], module);
		if (!found && access(path, R_OK) == 0)
			found = path;
		else
			free(path);
		if (!found)
			strbuf_addf(tried, "%s%s", tried->len ? ", " : "", cands[i]);
		free(cands[i]);
	}
	free(exe);
	return found;
}

/* Loads <module>.so: a new entry with its handle, or with why it failed. */
static struct module *load_module(const char *name)
{
	struct module *m = xcalloc(1, sizeof(*m));
	m->name = xstrdup(name);
	struct strbuf tried = STRBUF_INIT;
	char *path = find_module_file(name, &tried);
	if (!path) {
		m->failure = xasprintf("cannot load module %s: no %s.so in %s (run make, or set "
				       "BOOTRIG_DATADIR)", name, name, tried.buf);
	} else if (!(m->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
		const char *why = dlerror();
		m->failure = xasprintf("cannot load module %s: %s", path, why ? why : "dlopen failed");
	}
	strbuf_release(&tried);
	free(path);
	return m;
}

/* The entry of module name, loading it the first time. Caller holds the lock. */
static struct module *get_module(const char *name)
{
	for (struct module *m = modules; m; m = m->next)
		if (!strcmp(m->name, name))
			return m;
	struct module *m = load_module(name);
	m->next = modules;
	modules = m;
	return m;
}

void *module_symbol(const char *module, const char *symbol)
{
	last_error[0] = '\0';
	pthread_mutex_lock(&modules_lock);
	struct module *m = get_module(module);
	pthread_mutex_unlock(&modules_lock);
	if (!m->handle)
		return fail(m->failure);
	dlerror();
	void *sym = dlsym(m->handle, symbol);
	if (!sym) {
		const char *why = dlerror();
		char *reason = xasprintf("module %s: no symbol %s: %s", module, symbol,
					 why ? why : "NULL");
		fail(reason);
		free(reason);
	}
	return sym;
}

const char *module_error(void)
{
	return last_error;
}
