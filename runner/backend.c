/*
 * backend.c: making a backend (backend.h): backend_alloc() makes one from
 * its table (backend-impl.h), and this file is the one place that knows
 * libvirt lives in the "virt" module and LAVA in the "lava" one
 * (lib/module.h). Which backend a run uses is the registry's (registry.h).
 */
#include "backend.h"
#include "backend-impl.h"
#include "lava.h"
#include "module.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/*
 * The libvirt backend when its module cannot be loaded: open() fails with
 * the reason, so that the runner records INFRA_ERROR for every boot, as
 * for a libvirt it cannot reach.
 */
static int unloadable_open(struct backend *be, const char *where)
{
	(void)where;
	return error("%s", be->error);
}

static void unloadable_emergency_stop(struct backend *be)
{
	(void)be;       /* it never started anything */
}

static void unloadable_close(struct backend *be)
{
	free(be->where);
	free(be);
}

/* A backend named name (its result.json "accelerator" accelerator, where
 * a URI or not) whose open() fails with reason; the runner calls nothing
 * but open(), emergency_stop() and close() on it. */
static struct backend *unloadable_backend(const char *name, const char *accelerator,
					  bool where_is_uri, const char *reason)
{
	struct backend *be = xcalloc(1, sizeof(*be));
	be->name = name;
	be->accelerator = accelerator;
	be->where_is_uri = where_is_uri;
	memcpy(be->error, reason, strnlen(reason, sizeof(be->error) - 1));
	be->open = unloadable_open;
	be->emergency_stop = unloadable_emergency_stop;
	be->close = unloadable_close;
	return be;
}

/* The executable's backend_libvirt_new(): the virt module's
 * (runner/libvirt/libvirt.c, built as module_backend_libvirt_new), loaded
 * the first time. */
struct backend *backend_libvirt_new(void)
{
	struct backend *(*new_backend)(void) =
		(struct backend *(*)(void))module_symbol("virt", "module_backend_libvirt_new");
	if (!new_backend)
		return unloadable_backend("libvirt", "tcg", true, module_error());
	return new_backend();
}

struct backend *backend_alloc(const struct backend *ops, void *priv)
{
	struct backend *be = xmalloc(sizeof(*be));
	*be = *ops;
	be->priv = priv;
	return be;
}

/* The executable's backend_lava_new(): the lava module's (runner/lava/lava.c,
 * linked with libcurl), loaded the first time. */
struct backend *backend_lava_new(const struct lava_options *o)
{
	struct backend *(*new_backend)(const struct lava_options *) =
		(struct backend *(*)(const struct lava_options *))module_symbol("lava",
									 "module_backend_lava_new");
	if (!new_backend)
		return unloadable_backend("lava", "tcg", true, module_error());
	return new_backend(o);
}
