/*
 * libvirt-def.c: libvirt's entry in run's registry (registry.h): --connect
 * and --accel, the run's hosts (the --connect URIs or the config's hosts),
 * where libvirt's own log goes (early(): bootrig execs itself again before
 * libvirt initialises), and the constructor. libvirt is the default: it
 * boots every run no other backend claims. Built into the executable (the
 * operations are the "virt" module's, loaded by runner/backend.c).
 */
#include "backend.h"
#include "config.h"
#include "exitcodes.h"
#include "libvirt-def.h"
#include "matrix.h"
#include "registry.h"
#include "util.h"

#include <libconfig.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct opt_list connects;   /* every --connect URI, in order (the last: where) */
static const char *accel;          /* --accel: "auto", "kvm", "tcg" or NULL (the target's) */
static struct backend_host *hosts; /* the run's hosts, or NULL */

/* --accel auto|kvm|tcg */
static int take_accel(const struct opt *o, const char *v)
{
	if (strcmp(v, "auto") && strcmp(v, "kvm") && strcmp(v, "tcg"))
		return error("--accel wants auto, kvm or tcg: '%s'", v);
	*(const char **)o->value = v;
	return 0;
}

static const struct backend_option libvirt_options[] = {
	{ "jobs", OPT_REPEAT('C', "connect", &connects, "URI", "libvirt URI (default: the config's hosts, else qemu:///embed, no daemon); repeatable: boots spread over the hosts") },
	{ "clock", OPT_CALLBACK('A', "accel", &accel, "auto|kvm|tcg", "accelerator (default: the target's, auto: KVM once a real boot proved it)", take_accel) },
	{ NULL, OPT_END() },
};

/* Where this file's config messages are about: hosts = ( ... ). */
static const struct config_where here = { "(config)", NULL, NULL };

static const char *const host_keys[] = { "name", "uri", "slots", "pool", "pool_max_mb" };

/* One group of hosts = ( { name; uri; slots; pool; pool_max_mb; } ): its
 * keys and values, into h when h is not NULL (slots default 1; pool NULL
 * and pool_max_mb 0: the backend's defaults). 0 or EXIT_CONFIG. */
static int read_host(const config_setting_t *g, const char *name, struct backend_host *h)
{
	struct backend_host one = { .name = name, .slots = 1 };
	int max_mb = 0;
	int rc = config_check_keys(&here, g, host_keys, ARRAY_SIZE(host_keys), "a host");
	if (!rc && !config_setting_lookup_string(g, "uri", &one.uri) &&
	    config_setting_get_member(g, "uri"))
		rc = config_fail(&here, config_setting_get_member(g, "uri"), "'uri' must be a string");
	if (!rc && !config_setting_lookup_string(g, "pool", &one.pool_path) &&
	    config_setting_get_member(g, "pool"))
		rc = config_fail(&here, config_setting_get_member(g, "pool"), "'pool' must be a string");
	if (!rc)
		rc = config_get_int(&here, g, "slots", 1, 1024, &one.slots);
	if (!rc)
		rc = config_get_int(&here, g, "pool_max_mb", 1, 1 << 30, &max_mb);
	if (rc)
		return rc;
	if (!one.uri || !*one.uri)
		return config_fail(&here, g, "host '%s' has no 'uri'", name);
	if (one.pool_path && one.pool_path[0] != '/')
		return config_fail(&here, config_setting_get_member(g, "pool"),
				   "host '%s': 'pool' must be an absolute path", name);
	one.pool_max_mb = max_mb;
	if (h)
		*h = one;
	return 0;
}

static int check_host(const config_setting_t *g, const char *name)
{
	return read_host(g, name, NULL);
}

/* A target's keys that are libvirt's: accel = "auto" (the default) | "kvm" | "tcg",
 * the accelerator rule of runner/libvirt/hosts.c; --accel overrides it. */
static const char *const libvirt_target_keys[] = { "accel", NULL };
/* timeouts.kvm_proof (runner/libvirt/hosts.c's accelerator rule) */
static const char *const libvirt_timeout_keys[] = { "kvm_proof", NULL };

static int check_target(const config_setting_t *g)
{
	const char *v;
	if (!config_setting_lookup_string(g, "accel", &v) || !strcmp(v, "auto") ||
	    !strcmp(v, "kvm") || !strcmp(v, "tcg"))
		return 0;
	return config_fail(&here, config_setting_get_member(g, "accel"),
			   "'accel' is \"%s\": it must be \"auto\", \"kvm\" or \"tcg\"", v);
}

static const struct config_extension libvirt_config = {
	.owner = "libvirt", .boots_targets = true, .target_keys = libvirt_target_keys, .check_target = check_target,
	.timeout_keys = libvirt_timeout_keys,
	.list = "hosts", .replaces = true, .what = "host", .check = check_host,
};

size_t libvirt_config_hosts(const struct config *cfg, struct backend_host **out)
{
	size_t n;
	config_setting_t *const *groups = config_groups(cfg, libvirt_config.list, &n, NULL);
	*out = n ? xcalloc(n, sizeof(**out)) : NULL;
	for (size_t i = 0; i < n; i++) {
		const char *name = NULL;
		config_setting_lookup_string(groups[i], "name", &name);
		read_host(groups[i], name, &(*out)[i]);     /* checked by config_load() */
	}
	return n;
}

/*
 * libvirt_early: libvirt reads where its log goes (LIBVIRT_LOG_OUTPUTS)
 * once, when it is initialized, and libguestfs (linked in for SD images)
 * initializes it before main(). Without this, libvirt's own warnings and
 * errors (a "tainted" note, a lookup of a domain that just ended) land on
 * stderr between ours. So the first time, the variable is set (the cache's
 * libvirt.log) and bootrig execs itself again (argv[-1] being the
 * program's own argv[0], as lib/bootrig.c passes argv + 1); returns only
 * when that was done already (or is turned off by BOOTRIG_NO_REEXEC) or
 * the exec failed.
 */
static void libvirt_early(int argc, char **argv)
{
	if (getenv("LIBVIRT_LOG_OUTPUTS") || getenv("BOOTRIG_NO_REEXEC"))
		return;
	if (mkdir_p(bootrig_cache_dir(), 0755) < 0)
		return;
	char *log = xasprintf("3:file:%s/libvirt.log", bootrig_cache_dir());
	setenv("LIBVIRT_LOG_OUTPUTS", log, 1);
	free(log);
	char **again = xcalloc((size_t)argc + 2, sizeof(*again));
	again[0] = argv[-1];
	for (int i = 0; i < argc; i++)
		again[i + 1] = argv[i];
	execv("/proc/self/exe", again);
	free(again);    /* exec failed: go on with libvirt's default log */
}

/* libvirt boots what no other backend claimed. */
static int libvirt_plan(struct run_request *rq)
{
	(void)rq;
	return 1;
}

/* Each boot's accelerator: --accel, else its target's, else "auto". */
static int libvirt_jobs_ready(struct run_request *rq)
{
	for (size_t i = 0; i < rq->plan->n_jobs; i++) {
		struct boot_job *job = &rq->plan->jobs[i];
		const char *mine = config_target_string(job->target, "accel");
		job->accel = accel ? accel : mine ? mine : "auto";
	}
	return 0;
}

/*
 * plan_hosts: the hosts of the run: two or more --connect URIs (each named
 * by its URI, one slot), else the config's hosts = ( ... ); else none, and
 * the run has one host: --connect's, or the embedded driver. Sets hosts;
 * returns their number (their slots' sum into *slots).
 */
static size_t plan_hosts(const struct config *cfg, int *slots)
{
	size_t n = 0;
	*slots = 0;
	if (connects.n > 1) {
		n = connects.n;
		hosts = xcalloc(n, sizeof(*hosts));
		for (size_t i = 0; i < n; i++)
			hosts[i] = (struct backend_host){ .name = connects.v[i], .uri = connects.v[i],
							  .slots = 1 };
	} else if (!connects.n) {
		n = libvirt_config_hosts(cfg, &hosts);
	}
	for (size_t i = 0; i < n; i++)
		*slots += hosts[i].slots;
	return n;
}

static struct backend *libvirt_create(struct run_request *rq, const char **where)
{
	size_t n = plan_hosts(rq->cfg, &rq->slots);
	/* the hosts array outlives the backend: freed by libvirt_release() */
	struct libvirt_options o = { .hosts = n ? hosts : NULL, .n_hosts = n };
	struct backend *be = backend_libvirt_new(&o);
	*where = connects.n ? connects.v[connects.n - 1] : NULL;
	return be;
}

static void libvirt_release(void)
{
	free(hosts);
	hosts = NULL;
	free(connects.v);
	connects = (struct opt_list){ NULL, 0 };
}

const struct backend_def libvirt_backend_def = {
	.name = "libvirt",
	.options = libvirt_options,
	.config = &libvirt_config,
	.early = libvirt_early,
	.plan = libvirt_plan,
	.jobs_ready = libvirt_jobs_ready,
	.create = libvirt_create,
	.release = libvirt_release,
};
