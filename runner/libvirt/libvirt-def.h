/*
 * libvirt-def.h: what libvirt's registry entry (libvirt-def.c, in the
 * executable) offers besides its struct backend_def: the config's hosts.
 */
#ifndef BOOTRIG_LIBVIRT_DEF_H
#define BOOTRIG_LIBVIRT_DEF_H

#include <stddef.h>

struct backend_host;
struct config;

/*
 * libvirt_config_hosts: the config's hosts = ( { name; uri; slots; pool;
 * pool_max_mb; } ) (a later file's list replaces an earlier one's; checked
 * by config_load(), errors at their line), in order: *out (malloc'd, or
 * NULL) of the returned number; slots default 1, pool NULL and pool_max_mb
 * 0 when not given (the backend's defaults). The strings are cfg's.
 */
size_t libvirt_config_hosts(const struct config *cfg, struct backend_host **out);

#endif
