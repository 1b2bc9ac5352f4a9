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

/* The two tables of a backend that cannot be loaded (its name, its
 * result.json "accelerator", where a URI): the runner calls nothing but
 * open(), emergency_stop() and close() on it. */
static const struct backend_ops unloadable_libvirt_ops = {
	.name = "libvirt", .accelerator = "tcg", .caps = BACKEND_CAP_WHERE_IS_URI,
	.open = unloadable_open, .emergency_stop = unloadable_emergency_stop,
	.close = unloadable_close,
};
static const struct backend_ops unloadable_lava_ops = {
	.name = "lava", .accelerator = "tcg", .caps = BACKEND_CAP_WHERE_IS_URI,
	.open = unloadable_open, .emergency_stop = unloadable_emergency_stop,
	.close = unloadable_close,
};

/* A backend of table ops whose open() fails with reason. */
static struct backend *unloadable_backend(const struct backend_ops *ops, const char *reason)
{
	struct backend *be = backend_alloc(ops, NULL);
	memcpy(be->error, reason, strnlen(reason, sizeof(be->error) - 1));
	return be;
}

/* The executable's backend_libvirt_new(): the virt module's
 * (runner/libvirt/libvirt.c, built as module_backend_libvirt_new), loaded
 * the first time. */
struct backend *backend_libvirt_new(const struct libvirt_options *o)
{
	struct backend *(*new_backend)(const struct libvirt_options *) =
		(struct backend *(*)(const struct libvirt_options *))module_symbol(
			"virt", "module_backend_libvirt_new");
	if (!new_backend)
		return unloadable_backend(&unloadable_libvirt_ops, module_error());
	return new_backend(o);
}

struct backend *backend_alloc(const struct backend_ops *ops, void *priv)
{
	struct backend *be = xcalloc(1, sizeof(*be));
	be->ops = ops;
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
		return unloadable_backend(&unloadable_lava_ops, module_error());
	return new_backend(o);
}
