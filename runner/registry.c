/*
 * registry.c: the table of backends (registry.h) and what run asks of all
 * of them at once: their options merged into run's table, their checks,
 * their config keys, the choice of the run's backend.
 *
 * The table is the one place outside a backend's folder that names it. A
 * test build (the Makefile's bootrig-fake) adds one more line, the test
 * backend BOOTRIG_TEST_BACKEND (a struct backend_def of tests/), first.
 */
#include "registry.h"
#include "config.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

extern const struct backend_def libvirt_backend_def, board_backend_def, lava_backend_def;
#ifdef BOOTRIG_TEST_BACKEND
extern const struct backend_def BOOTRIG_TEST_BACKEND;
#endif

/* plan() is asked in this order: the ones chosen by their options or a
 * target's `backend` first, the default (claims every run) last. */
const struct backend_def *const backend_registry[] = {
#ifdef BOOTRIG_TEST_BACKEND
	&BOOTRIG_TEST_BACKEND,
#endif
	&lava_backend_def,
	&board_backend_def,
	&libvirt_backend_def,
	NULL,
};

/* run's table as registry_options() made it, for registry_given(); a
 * callback entry's own function and whether it was called (take()). */
static struct opt *table;
static int (**table_cb)(const struct opt *o, const char *value);
static bool *table_called;

/* Every callback entry's: notes that it was given, then calls its own. */
static int take(const struct opt *o, const char *value)
{
	size_t i = (size_t)(o - table);
	table_called[i] = true;
	return table_cb[i](o, value);
}

void registry_early(int argc, char **argv)
{
	for (const struct backend_def *const *d = backend_registry; *d; d++)
		if ((*d)->early)
			(*d)->early(argc, argv);
}

/* Appends to t (*n entries) every backend option placed after name, each
 * followed by those placed after it. */
static void add_after(struct opt *t, size_t *n, const char *name)
{
	for (const struct backend_def *const *d = backend_registry; *d; d++)
		for (const struct backend_option *o = (*d)->options; o && o->opt.long_name; o++)
			if (o->after && !strcmp(o->after, name)) {
				t[(*n)++] = o->opt;
				add_after(t, n, o->opt.long_name);
			}
}

/* Is name a long name of core or of a backend's option? */
static bool placed(const struct opt *core, const char *name)
{
	for (const struct opt *c = core; c->long_name; c++)
		if (!strcmp(c->long_name, name))
			return true;
	for (const struct backend_def *const *d = backend_registry; *d; d++)
		for (const struct backend_option *o = (*d)->options; o && o->opt.long_name; o++)
			if (!strcmp(o->opt.long_name, name))
				return true;
	return false;
}

static void registry_release_table(void)
{
	free(table), free(table_cb), free(table_called);
	table = NULL;
	table_cb = NULL;
	table_called = NULL;
}

const struct opt *registry_options(const struct opt *core)
{
	size_t max = 1;
	for (const struct opt *c = core; c->long_name; c++)
		max++;
	for (const struct backend_def *const *d = backend_registry; *d; d++)
		for (const struct backend_option *o = (*d)->options; o && o->opt.long_name; o++)
			max++;
	registry_release_table();
	table = xcalloc(max, sizeof(*table));
	table_cb = xcalloc(max, sizeof(*table_cb));
	table_called = xcalloc(max, sizeof(*table_called));
	size_t n = 0;
	for (const struct opt *c = core; c->long_name; c++) {
		table[n++] = *c;
		add_after(table, &n, c->long_name);
	}
	for (const struct backend_def *const *d = backend_registry; *d; d++)
		for (const struct backend_option *o = (*d)->options; o && o->opt.long_name; o++)
			if (!o->after || !placed(core, o->after))
				table[n++] = o->opt;
	table[n] = (struct opt)OPT_END();
	for (size_t i = 0; i < n; i++)
		if (table[i].type == OPTION_CALLBACK) {
			table_cb[i] = table[i].cb;
			table[i].cb = take;
		}
	return table;
}

bool registry_given(const char *long_name)
{
	for (const struct opt *o = table; o && o->long_name; o++) {
		if (strcmp(o->long_name, long_name))
			continue;
		switch (o->type) {
		case OPTION_STRING:
			return *(const char **)o->value != NULL;
		case OPTION_FLAG:
			return *(bool *)o->value;
		case OPTION_REPEAT:
			return ((struct opt_list *)o->value)->n > 0;
		case OPTION_CALLBACK:
			return table_called[o - table];
		default:
			return false;
		}
	}
	return false;
}

int registry_check(const struct run_request *rq)
{
	int rc = 0;
	for (const struct backend_def *const *d = backend_registry; *d && !rc; d++)
		if ((*d)->check)
			rc = (*d)->check(rq);
	return rc;
}

void registry_config_keys(void)
{
	for (const struct backend_def *const *d = backend_registry; *d; d++)
		if ((*d)->config)
			config_extend((*d)->config);
}

/* Every command that reads the config (build, run) reads the backends'
 * keys too: they are registered when the program starts. */
__attribute__((constructor)) static void register_config_keys(void)
{
	registry_config_keys();
}

int registry_config_loaded(struct run_request *rq)
{
	int rc = 0;
	for (const struct backend_def *const *d = backend_registry; *d && !rc; d++)
		if ((*d)->config_loaded)
			rc = (*d)->config_loaded(rq);
	return rc;
}

const struct backend_def *registry_choose(struct run_request *rq, int *rc)
{
	*rc = 0;
	for (const struct backend_def *const *d = backend_registry; *d; d++) {
		int mine = (*d)->plan(rq);
		if (mine > 1) {
			*rc = mine;
			return NULL;
		}
		if (mine == 1 || !d[1])
			return *d;
	}
	return NULL;
}

void registry_release(void)
{
	for (const struct backend_def *const *d = backend_registry; *d; d++)
		if ((*d)->release)
			(*d)->release();
	registry_release_table();
}
