/*
 * lava-def.c: LAVA's entry in run's registry (registry.h): its options
 * (--lava URL and the rest), its target keys, whether a run is LAVA's
 * (--lava, its kernels' targets saying backend = "lava", or a LAVA lab's
 * board), its planning (the server, the token, how the boot files reach the
 * dispatcher, every job.yaml before anything is submitted) and its
 * constructor. Built into the executable: the backend's operations are the
 * "lava" module's (lava.c, loaded by runner/backend.c).
 */
#include "backend.h"
#include "config.h"
#include "exitcodes.h"
#include "kernel.h"
#include "lava.h"
#include "matrix.h"
#include "registry.h"
#include "textsafe.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the command line gave (run's table: lava_options below). */
static struct {
	const char *lava;             /* --lava URL: boot as jobs of that LAVA server */
	const char *token_file, *url_prefix;
	const char *serve;            /* --lava-serve ADDR[:PORT]: serve the boot files */
	bool job_only;                /* --lava-job-only: write job.yaml files, submit none */
} A;

/* What planning made, for the backend (lava_plan() to lava_release()). */
static struct lava_options lava;
static char *token;

static const struct backend_option lava_options[] = {
	{ "provoke", OPT_STRING(0, "lava", &A.lava, "URL", "boot as jobs of this LAVA server (REST API v0.2), not through libvirt") },
	{ "lava", OPT_STRING(0, "lava-token-file", &A.token_file, "FILE", "the LAVA API token, read from FILE") },
	{ "lava-token-file", OPT_STRING(0, "lava-url-prefix", &A.url_prefix, "URL", "LAVA fetches each file at URL + its absolute path (default: file://, for a server on loopback)") },
	{ "lava-url-prefix", OPT_STRING(0, "lava-serve", &A.serve, "ADDR[:PORT]", "serve the run's boot files to LAVA over HTTP on ADDR (PORT 0 or none: any)") },
	{ "lava-serve", OPT_FLAG(0, "lava-job-only", &A.job_only, "write each boot's LAVA job.yaml and submit nothing") },
	{ NULL, OPT_END() },
};

/* A target's keys that are LAVA's (lib/config.h). */
static const char *const lava_target_keys[] = {
	"device_type", "lava_url", "lava_token_file", NULL,
};

static const struct config_extension lava_config = {
	.owner = "lava", .boots_targets = true, .target_keys = lava_target_keys,
};

static int lava_check(const struct run_request *rq)
{
	(void)rq;
	if (A.lava && registry_given("connect"))
		return error("run: --lava cannot be used with --connect"), EXIT_USAGE;
	return 0;
}

/*
 * plan_files: how the boot files reach the dispatcher: the user's
 * --lava-url-prefix, bootrig's own server (--lava-serve, started here and
 * stopped by lava_release()), or file:// when the LAVA server is on this
 * machine. 0 or EXIT_USAGE (also when the server cannot listen on the
 * address given) after a message.
 */
static int plan_files(void)
{
	if (A.serve && A.url_prefix)
		return error("run: --lava-serve and --lava-url-prefix are two ways to give LAVA the "
			     "files: give one"), EXIT_USAGE;
	if (A.serve && A.job_only)
		return error("run: --lava-serve serves the files for the run's duration, and "
			     "--lava-job-only runs nothing: use --lava-url-prefix"), EXIT_USAGE;
	if (!A.serve && !A.url_prefix && !lava_url_is_loopback(lava.url))
		return error("run: the LAVA server %s is not on this machine, so its dispatcher "
			     "cannot read file:// URLs: give --lava-serve ADDR[:PORT] (bootrig serves "
			     "the files over HTTP on an address the dispatcher reaches) or "
			     "--lava-url-prefix URL (your storage)", term_str(lava.url)), EXIT_USAGE;
	if (!A.serve)
		return 0;
	char err[300];
	lava.serve = lava_serve_start(A.serve, err, sizeof(err));
	if (!lava.serve)
		return error("run: %s", err), EXIT_USAGE;
	fprintf(stderr, "bootrig: serving the boot files to LAVA at %s/...\n",
		lava_serve_prefix(lava.serve));
	return 0;
}

/*
 * plan_server: the checks of a LAVA run's server URL (lava.url, set), its
 * token (read from token_file, or none) and how the files reach it
 * (plan_files()). 1 (the run is LAVA's) or EXIT_USAGE after a message.
 */
static int plan_server(const char *token_file)
{
	if (!lava.url || (strncmp(lava.url, "http://", 7) && strncmp(lava.url, "https://", 8)))
		return error("run: the LAVA server must be an http:// or https:// URL (--lava URL or the "
			     "target's lava_url): '%s'", lava.url ? term_str(lava.url) : ""),
		       EXIT_USAGE;
	if (token_file) {
		size_t len;
		if (read_file(token_file, &token, &len) < 0)
			return error("cannot read the LAVA token file %s: %s", term_str(token_file),
				     strerror(errno)), EXIT_USAGE;
		while (len && strchr(" \t\r\n", token[len - 1]))
			token[--len] = '\0';
		size_t bad = strcspn(token, " \t\r\n\\\"");
		if (!len || bad < len)
			return error("%s: a LAVA token is one word on one line", term_str(token_file)),
			       EXIT_USAGE;
		lava.token = token;
	}
	lava.url_prefix = A.url_prefix;
	int rc = plan_files();
	return rc ? rc : 1;
}

/*
 * plan_board: a run on a LAVA lab's board (rq->site, booted by us): its
 * jobs go to the LAVA server (--lava, else the board's lava_url) for the
 * board's device type, deploy to tftp with the board's DTB, boot u-boot
 * (lava-job.c). 1 or EXIT_USAGE after a message.
 */
static int plan_board(const struct run_request *rq)
{
	const struct run_site *b = &rq->site;
	lava.url = A.lava ? A.lava : b->url;
	if (!lava.url)
		return error("run: board '%s' is a LAVA lab's (%s): give --lava URL or its lava_url",
			     term_str(b->name), term_str(b->file)), EXIT_USAGE;
	for (size_t k = 0; k < rq->n_kernels; k++)
		if (b->arch && *b->arch && strcmp(b->arch, rq->targets[k]->arch))
			return error("run: board '%s' is %s, and %s is %s", term_str(b->name), b->arch,
				     term_str(rq->kernels[k].input),
				     rq->targets[k]->arch), EXIT_USAGE;
	lava.device_type = b->kind;
	lava.dtb = b->extra;
	return plan_server(A.token_file ? A.token_file : b->token_file);
}

/* Does target t say backend = "lava"? */
static bool lava_target(const struct target *t)
{
	const char *b = config_target_string(t, "backend");
	return b && !strcmp(b, "lava");
}

/* A target's LAVA key, or NULL. */
static const char *target_key(const struct target *t, const char *key)
{
	return config_target_string(t, key);
}

/*
 * lava_plan: whether the run goes to LAVA (--lava, or its kernels' targets
 * say backend = "lava": all of them or none, or the board named is a LAVA
 * lab's), and with what: the server, the token (read from --lava-token-file
 * or the target's lava_token_file), the device type. 1 (LAVA's), 0 (not
 * LAVA's), or EXIT_USAGE after a message.
 */
static int lava_plan(struct run_request *rq)
{
	size_t n_lava = 0;
	for (size_t k = 0; k < rq->n_kernels; k++)
		n_lava += lava_target(rq->targets[k]);
	if (n_lava && n_lava < rq->n_kernels && !A.lava)
		return error("run: some kernels' targets say backend = \"lava\" and others do not: "
			     "one run uses one backend"), EXIT_USAGE;
	const struct run_site *site = &rq->site;
	if (site->name && !n_lava) {
		bool lab = site->booted_by && !strcmp(site->booted_by, lava_config.owner);
		if (!lab && A.lava)
			return error("run: --lava with --board %s: that board is driven by bootrig; only a "
				     "board with backend = \"lava\" is a LAVA lab's", term_str(site->name)),
			       EXIT_USAGE;
		if (lab)
			return plan_board(rq);
	}
	if (!A.lava && !n_lava) {
		if (A.token_file || A.url_prefix || A.serve || A.job_only)
			return error("run: --lava-token-file, --lava-url-prefix, --lava-serve and "
				     "--lava-job-only need --lava URL (or a target with backend = "
				     "\"lava\")"), EXIT_USAGE;
		return 0;
	}
	if (site->name)
		return error("run: a LAVA run (backend = \"lava\") cannot use --board"), EXIT_USAGE;
	const struct target *t = rq->targets[0];
	const char *type = target_key(t, "device_type");
	lava.url = A.lava ? A.lava : target_key(t, "lava_url");
	lava.device_type = type && *type ? type : "qemu";
	return plan_server(A.token_file ? A.token_file : target_key(t, "lava_token_file"));
}

/*
 * lava_jobs_ready: every boot's job.yaml (lava_write_job_file()), before
 * anything is submitted: a boot LAVA could not be given (a path a URL
 * cannot carry, a command line the dispatcher cannot quote) is a usage
 * error of the whole run. With --lava-job-only, the files' paths go to
 * stdout and the run is done (RUN_DONE). 0, RUN_DONE, EXIT_USAGE or
 * EXIT_INFRA.
 */
static int lava_jobs_ready(struct run_request *rq)
{
	const struct run_plan *plan = rq->plan;
	for (size_t i = 0; i < plan->n_jobs; i++) {
		struct boot_job *job = &plan->jobs[i];
		struct machine_spec spec = {
			.name = job->dir, .kernel = job->kernel_image, .initrd = job->initrd,
			.cmdline = job->cmdline, .target = job->target, .cfg = rq->cfg,
			.dir = job->dir, .icount = job->icount, .limits = &job->limits,
			.dtb = lava.dtb,
		};
		const char *type = target_key(job->target, "device_type");
		char err[600];
		if (mkdir_p(job->dir, 0755) < 0)
			return error("cannot create %s: %s", term_str(job->dir), strerror(errno)), EXIT_INFRA;
		if (lava_write_job_file(&spec, type && *type ? type : lava.device_type, lava.url_prefix,
					lava.serve, NULL, err, sizeof(err)) < 0)
			return error("%s: %s", term_str(job->dir), err), EXIT_USAGE;
		job->machine = rq->site.name;    /* a LAVA lab's board: result.json's "target" */
		if (A.job_only)
			printf("%s/job.yaml\n", term_str(job->dir));
	}
	if (!A.job_only)
		return 0;
	fprintf(stderr, "bootrig: %zu LAVA job definition(s) written, none submitted "
		"(lavacli jobs submit FILE)\n", plan->n_jobs);
	return RUN_DONE;
}

static struct backend *lava_create(struct run_request *rq, const char **where)
{
	(void)rq;
	*where = lava.url;
	return backend_lava_new(&lava);
}

static void lava_release(void)
{
	lava_serve_stop(lava.serve);
	free(token);
	token = NULL;
	memset(&lava, 0, sizeof(lava));
}

const struct backend_def lava_backend_def = {
	.name = "lava",
	.options = lava_options,
	.config = &lava_config,
	.check = lava_check,
	.plan = lava_plan,
	.jobs_ready = lava_jobs_ready,
	.create = lava_create,
	.release = lava_release,
};
