/*
 * backend-impl.h: what a backend's own files use to make their table
 * (struct backend_ops, backend.h) and their instances, so that each
 * backend is its operations and a table of them, not code that fills a
 * table.
 *
 *   static const struct backend_ops my_ops = {
 *           .name = "mine", .accelerator = "mine",
 *           .caps = BACKEND_CAP_THREADED_OPS,
 *           BACKEND_OPS(my),              my_open ... my_close
 *           .release = my_release,        and the optional ones it has
 *   };
 *   struct backend *backend_mine_new(const struct my_options *o)
 *   { return backend_alloc(&my_ops, priv_made_from(o)); }
 */
#ifndef BOOTRIG_BACKEND_IMPL_H
#define BOOTRIG_BACKEND_IMPL_H

#include "backend.h"

/*
 * BACKEND_OPS(prefix): the operations every backend has, as designated
 * initializers of struct backend_ops naming prefix_open, prefix_prepare,
 * prefix_power_on, prefix_console_fd, prefix_console_read, prefix_state,
 * prefix_stop, prefix_emergency_stop and prefix_close. release (and the
 * optional operations) the table names itself.
 */
#define BACKEND_OPS(prefix) \
	.open = prefix##_open, .prepare = prefix##_prepare, .power_on = prefix##_power_on, \
	.console_fd = prefix##_console_fd, .console_read = prefix##_console_read, \
	.state = prefix##_state, .stop = prefix##_stop, \
	.emergency_stop = prefix##_emergency_stop, .close = prefix##_close

/*
 * backend_alloc: a new instance of the backend whose table is ops (static
 * const: it is not copied), with priv as be->priv, where NULL and no error.
 * malloc'd; its close() frees it. Never NULL.
 */
struct backend *backend_alloc(const struct backend_ops *ops, void *priv);

#endif
