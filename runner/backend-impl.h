/*
 * backend-impl.h: what a backend's own files use to make their struct
 * backend (backend.h), so that each backend is its operations and a table
 * of them, not code that fills the table.
 *
 *   static const struct backend my_ops = {
 *           .name = "mine", .accelerator = "mine",
 *           BACKEND_OPS(my),              my_open ... my_close
 *           .release = my_release,        and the optional ones it has
 *   };
 *   struct backend *backend_mine_new(void) { return backend_alloc(&my_ops, priv); }
 */
#ifndef BOOTRIG_BACKEND_IMPL_H
#define BOOTRIG_BACKEND_IMPL_H

#include "backend.h"

/*
 * BACKEND_OPS(prefix): the operations every backend has, as designated
 * initializers of struct backend naming prefix_open, prefix_prepare,
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
 * backend_alloc: a new backend (malloc'd; its close() frees it) that is a
 * copy of ops, with priv as be->priv. Never NULL.
 */
struct backend *backend_alloc(const struct backend *ops, void *priv);

#endif
