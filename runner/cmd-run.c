/*
 * cmd-run.c: `bootrig run`: boot kernels (in QEMU through libvirt, or on a
 * board), judge every boot and write its results.
 *
 *   bootrig run --kernel K [--kernel K2 ...] [--initramfs IMG] [--target NAME]
 *       [--config FILE] [--suite NAME] [--append ARGS] [--variant NAME=ARGS ...]
 *       [--repeat N] [-j N] [--connect URI | --board NAME] [--timeout S]
 *       [--clock wall|icount] -o RESULTS_DIR
 *
 * This file reads the options (one table, which also prints --help), loads
 * the configuration and the kernels, builds each kernel's initramfs when
 * none is given, lays out the boots (kernels x variants x repeats, repeat
 * by repeat, so that every side of an A/B sees the same host conditions)
 * and hands them to runner/matrix.c.
 */
#include "backend.h"
#include "build.h"
#include "builtin.h"
#include "config.h"
#include "exitcodes.h"
#include "kernel.h"
#include "matrix.h"
#include "sha256.h"
#include "textsafe.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sys/file.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The options: parsed and printed by --help from this one table. */
static const struct run_option {
	const char *name;
	int short_name;
	const char *arg;
	const char *help;
} run_options[] = {
	{ "kernel", 'k', "KERNEL", "kernel to boot (Image, zImage, bzImage, .deb, build tree); repeatable" },
	{ "initramfs", 'i', "IMAGE", "boot this initramfs (default: build one per kernel)" },
	{ "target", 't', "NAME", "machine from the config (default: the kernel arch's first)" },
	{ "config", 'c', "FILE", "configuration file read after the defaults" },
	{ "suite", 's', "NAME", "test suite for a built initramfs (default: smoke)" },
	{ "append", 'a', "ARGS", "extra kernel command-line arguments" },
	{ "variant", 'V', "NAME=ARGS", "a variant: boots again with ARGS appended; repeatable" },
	{ "repeat", 'r', "N", "boot each kernel and variant N times (default 1)" },
	{ "jobs", 'j', "N", "run N boots at once (default 1)" },
	{ "connect", 'C', "URI", "libvirt URI (default: the config's hosts, else qemu:///embed, no daemon); repeatable: boots spread over the hosts" },
	{ "board", 'b', "NAME", "boot on this board from the config instead of libvirt" },
	{ "no-wait", 'W', NULL, "refuse a busy board or results directory at once (exit 125), do not wait" },
	{ "timeout", 'T', "S", "cap every stage and silence timeout at S seconds" },
	{ "clock", 'L', "wall|icount", "the guest's clock under TCG (default: the target's icount)" },
	{ "accel", 'A', "auto|kvm|tcg", "accelerator (default: the target's, auto: KVM once a real boot proved it)" },
	{ "output", 'o', "DIR", "results directory (required)" },
	{ "help", 'h', NULL, "show this help" },
};

static void run_usage(FILE *out)
{
	fputs("usage: bootrig run --kernel KERNEL [options] -o RESULTS_DIR\n\n"
	      "Boot each kernel, judge each boot, write RESULTS_DIR/<kernel-id>/<variant>/<n>/.\n"
	      "Exit status: the worst verdict's (0 PASS, 1 FAIL, 2 PANIC/HANG/BOOT_FAIL,\n"
	      "125 INFRA_ERROR), 130/143 when interrupted.\n\n", out);
	for (size_t i = 0; i < ARRAY_SIZE(run_options); i++) {
		const struct run_option *o = &run_options[i];
		char left[64];
		bool has_short = o->short_name == 'o' || o->short_name == 'j' || o->short_name == 'h';
		snprintf(left, sizeof(left), "%s%c%s--%s%s%s", has_short ? "-" : " ",
			 has_short ? o->short_name : ' ', has_short ? ", " : "  ", o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(out, "  %-28s %s\n", left, o->help);
	}
}

/* What the command line asked for. */
struct run_args {
	const char **kernels;
	size_t n_kernels;
	const char *initramfs, *target, *config, *suite, *append, *connect, *board, *output;
	char **variants;           /* "NAME=ARGS" */
	size_t n_variants;
	int repeat, jobs;
	double timeout;
	const char *clock;         /* --clock: "wall", "icount" or NULL (the target's) */
	const char *accel;         /* --accel: "auto", "kvm", "tcg" or NULL (the target's) */
	bool no_wait;              /* --no-wait: a busy board is refused at once */
	const char **connects;     /* every --connect URI, in order */
	size_t n_connects;
};

/* A positive integer option; -1 when it is not one. */
static int parse_count(const char *s)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	return errno || *end || v < 1 || v > 100000 ? -1 : (int)v;
}

static bool valid_variant(const char *v)
{
	const char *eq = strchr(v, '=');
	if (!eq || eq == v)
		return false;
	for (const char *p = v; p < eq; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", *p))
			return false;
	return strncmp(v, ".=", 2) && strncmp(v, "..=", 3);
}

/* Handles one parsed option; 0, or EXIT_USAGE with the error printed. */
static int take_option(struct run_args *a, int c, const char *arg)
{
	switch (c) {
	case 'k':
		a->kernels = xrealloc(a->kernels, (a->n_kernels + 1) * sizeof(*a->kernels));
		a->kernels[a->n_kernels++] = arg;
		return 0;
	case 'i': a->initramfs = arg; return 0;
	case 't': a->target = arg; return 0;
	case 'c': a->config = arg; return 0;
	case 's': a->suite = arg; return 0;
	case 'a': a->append = arg; return 0;
	case 'C':
		a->connect = arg;
		a->connects = xrealloc(a->connects, (a->n_connects + 1) * sizeof(*a->connects));
		a->connects[a->n_connects++] = arg;
		return 0;
	case 'b': a->board = arg; return 0;
	case 'W': a->no_wait = true; return 0;
	case 'o': a->output = arg; return 0;
	case 'V':
		if (!valid_variant(arg))
			return error("--variant wants NAME=ARGS with NAME in [A-Za-z0-9_.-]: '%s'", arg),
			       EXIT_USAGE;
		a->variants = xrealloc(a->variants, (a->n_variants + 1) * sizeof(*a->variants));
		a->variants[a->n_variants++] = (char *)arg;
		return 0;
	case 'r':
		if ((a->repeat = parse_count(arg)) < 0)
			return error("--repeat wants a positive number: '%s'", arg), EXIT_USAGE;
		return 0;
	case 'j':
		if ((a->jobs = parse_count(arg)) < 0)
			return error("-j wants a positive number: '%s'", arg), EXIT_USAGE;
		return 0;
	case 'L':
		if (strcmp(arg, "wall") && strcmp(arg, "icount"))
			return error("--clock wants wall or icount: '%s'", arg), EXIT_USAGE;
		a->clock = arg;
		return 0;
	case 'A':
		if (strcmp(arg, "auto") && strcmp(arg, "kvm") && strcmp(arg, "tcg"))
			return error("--accel wants auto, kvm or tcg: '%s'", arg), EXIT_USAGE;
		a->accel = arg;
		return 0;
	case 'T': {
		char *end;
		a->timeout = strtod(arg, &end);
		if (*end || !(a->timeout > 0))
			return error("--timeout wants seconds > 0: '%s'", arg), EXIT_USAGE;
		return 0;
	}
	}
	return EXIT_USAGE;
}

/* Parses argv into a; 0, -1 after --help, or EXIT_USAGE. */
static int parse_run_args(int argc, char **argv, struct run_args *a)
{
	struct option longopts[ARRAY_SIZE(run_options) + 1];
	char shortopts[3 * ARRAY_SIZE(run_options) + 2] = "+";
	for (size_t i = 0; i < ARRAY_SIZE(run_options); i++) {
		const struct run_option *o = &run_options[i];
		longopts[i] = (struct option){ o->name, o->arg ? required_argument : no_argument,
					       NULL, o->short_name };
		char s[3] = { (char)o->short_name, o->arg ? ':' : '\0', '\0' };
		strcat(shortopts, s);
	}
	memset(&longopts[ARRAY_SIZE(run_options)], 0, sizeof(struct option));
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == 'h') {
			run_usage(stdout);
			return -1;
		}
		if (c == '?' || c == ':') {
			error("run: bad option '%s' (see bootrig run --help)", argv[optind - 1]);
			return EXIT_USAGE;
		}
		int rc = take_option(a, c, optarg);
		if (rc)
			return rc;
	}
	if (optind < argc)
		return error("run: unexpected argument '%s'", argv[optind]), EXIT_USAGE;
	if (!a->n_kernels)
		return error("run: --kernel is required"), EXIT_USAGE;
	if (!a->output)
		return error("run: -o RESULTS_DIR is required"), EXIT_USAGE;
	if (a->connect && a->board)
		return error("run: --connect and --board cannot be used together"), EXIT_USAGE;
	if (a->board && a->target)
		return error("run: --target is for libvirt machines, not with --board"), EXIT_USAGE;
	return 0;
}

/* ---------------------------------------------------------------- the plan */

/* Everything a run holds, freed in one place. */
struct run_state {
	struct run_args args;
	struct config cfg;
	bool cfg_loaded;
	struct kernel *kernels;
	size_t n_kernels;
	const struct target **targets;    /* per kernel */
	char **initrds;                   /* per kernel */
	char (*initrd_sha)[65];           /* per kernel: the image's sha256 */
	char **variant_names;             /* per --variant */
	char **images;                    /* per kernel: absolute image paths */
	struct backend_host *hosts;       /* libvirt: the run's hosts, or NULL */
	size_t n_hosts;
	struct run_plan plan;
};

/* The kernel's machine: --target, else its arch's first target. */
static int pick_target(struct run_state *rs, const struct kernel *k, const struct target **out)
{
	const char *arch = kernel_arch_name(k->arch);
	if (rs->args.target) {
		*out = config_find_target(&rs->cfg, rs->args.target);
		if (!*out)
			return error("no target '%s' in the configuration", rs->args.target), EXIT_USAGE;
		if (strcmp((*out)->arch, arch))
			return error("target '%s' is for %s kernels; %s is %s", rs->args.target,
				     (*out)->arch, k->input, arch), EXIT_USAGE;
		return 0;
	}
	*out = config_target_for_arch(&rs->cfg, arch);
	if (!*out)
		return error("no target for %s kernels in the configuration (%s)", arch, k->input),
		       EXIT_CONFIG;
	return 0;
}

/*
 * keep_image: the image just built at tmp (with its manifest tmp.json)
 * becomes dir/initramfs.img; when an earlier run left a different image
 * there (its boots name it in their result.json), the new one is kept
 * beside it as dir/initramfs-<sha256:12>.img instead, and an identical
 * one is reused. Returns the image's path (malloc'd) or NULL.
 */
static char *keep_image(const char *dir, const char *tmp, const char *sha)
{
	char *path = xasprintf("%s/initramfs.img", dir);
	char old_sha[65];
	if (access(path, F_OK) == 0 && (sha256_file(path, old_sha) < 0 || strcmp(old_sha, sha))) {
		free(path);
		path = xasprintf("%s/initramfs-%.12s.img", dir, sha);
	}
	char *json = xasprintf("%s.json", path), *tmp_json = xasprintf("%s.json", tmp);
	if (rename(tmp, path) < 0 || (rename(tmp_json, json) < 0 && errno != ENOENT)) {
		error("cannot rename %s to %s: %s", tmp, path, strerror(errno));
		free(path);
		path = NULL;
	}
	free(json), free(tmp_json);
	return path;
}

/* Builds RESULTS_DIR/<kernel-id>/initramfs.img for kernel i (keep_image()). */
static int build_for_kernel(struct run_state *rs, size_t i)
{
	const char *suite_name = rs->args.suite ? rs->args.suite : "smoke";
	const struct suite *suite = config_find_suite(&rs->cfg, suite_name);
	if (!suite)
		return error("no suite '%s' in the configuration", suite_name), EXIT_USAGE;
	char *dir = xasprintf("%s/%s", rs->args.output, rs->kernels[i].id);
	if (mkdir_p(dir, 0755) < 0) {
		error("cannot create %s: %s", dir, strerror(errno));
		free(dir);
		return EXIT_INFRA;
	}
	char *tmp = xasprintf("%s/initramfs.img.new.%ld", dir, (long)getpid());
	struct build_options opt;
	build_options_init(&opt);
	opt.kernel = &rs->kernels[i];
	opt.target = rs->targets[i];
	opt.suite = suite;
	int rc = build_initramfs(&opt, tmp);
	if (!rc && sha256_file(tmp, rs->initrd_sha[i]) < 0)
		rc = (error("cannot read %s: %s", tmp, strerror(errno)), EXIT_INFRA);
	char *kept = rc ? NULL : keep_image(dir, tmp, rs->initrd_sha[i]);
	if (!rc && !kept)
		rc = EXIT_INFRA;
	free(tmp), free(dir);
	if (rc)
		return rc;
	rs->initrds[i] = realpath(kept, NULL);
	if (!rs->initrds[i])
		rc = (error("%s: %s", kept, strerror(errno)), EXIT_INFRA);
	free(kept);
	return rc;
}

/* Is p a path libvirt's XML can carry: UTF-8, no control characters
 * (textsafe.h's rule)? */
static bool xml_safe_path(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;
	for (size_t n = strlen(p), len; n; u += len, n -= len)
		if (text_control(u, n, &len))
			return false;
	return true;
}

/*
 * stage_path: the path QEMU is to open for kernel i's file abs: abs
 * itself, or, when abs is not XML-safe (a file name that is not UTF-8),
 * a symlink to it under a safe name, RESULTS_DIR/<kernel-id>/NAME.
 * Returns it (malloc'd) or NULL (error printed).
 */
static char *stage_path(struct run_state *rs, size_t i, char *abs, const char *name)
{
	if (xml_safe_path(abs))
		return abs;
	char *dir = xasprintf("%s/%s", rs->args.output, rs->kernels[i].id);
	char *link = xasprintf("%s/%s", dir, name);
	char *safe = NULL;
	if (mkdir_p(dir, 0755) == 0 && (unlink(link) == 0 || errno == ENOENT) &&
	    symlink(abs, link) == 0)
		safe = realpath(dir, NULL);
	char *staged = safe ? xasprintf("%s/%s", safe, name) : NULL;
	if (!staged)
		error("cannot stage %s under a UTF-8 name: %s", link, strerror(errno));
	free(safe), free(link), free(dir), free(abs);
	return staged;
}

/* Loads the config, the kernels, their targets and initramfs images. */
static int load_inputs(struct run_state *rs)
{
	int rc = config_load(rs->args.config, &rs->cfg);
	if (rc)
		return rc;
	rs->cfg_loaded = true;
	if (rs->args.board && !config_find_board(&rs->cfg, rs->args.board, NULL))
		return error("no board '%s' in the configuration", rs->args.board), EXIT_USAGE;
	if (rs->args.board && board_config_check &&
	    (rc = board_config_check(&rs->cfg, rs->args.board)))
		return rc;
	rs->n_kernels = rs->args.n_kernels;
	rs->kernels = xcalloc(rs->n_kernels, sizeof(*rs->kernels));
	rs->targets = xcalloc(rs->n_kernels, sizeof(*rs->targets));
	rs->initrds = xcalloc(rs->n_kernels, sizeof(*rs->initrds));
	rs->images = xcalloc(rs->n_kernels, sizeof(*rs->images));
	rs->initrd_sha = xcalloc(rs->n_kernels, sizeof(*rs->initrd_sha));
	for (size_t i = 0; i < rs->n_kernels; i++) {
		if ((rc = kernel_open(rs->args.kernels[i], &rs->kernels[i])))
			return rc;
		if ((rc = pick_target(rs, &rs->kernels[i], &rs->targets[i])))
			return rc;
		/* libvirt wants absolute paths: QEMU does not share our cwd */
		rs->images[i] = realpath(rs->kernels[i].image, NULL);
		if (!rs->images[i])
			return error("%s: %s", rs->kernels[i].image, strerror(errno)), EXIT_DATAERR;
		if (!(rs->images[i] = stage_path(rs, i, rs->images[i], "kernel")))
			return EXIT_DATAERR;
		if (rs->args.initramfs) {
			if (access(rs->args.initramfs, R_OK) < 0)
				return error("cannot read %s: %s", rs->args.initramfs, strerror(errno)),
				       EXIT_DATAERR;
			rs->initrds[i] = realpath(rs->args.initramfs, NULL);
			if (!rs->initrds[i] || !(rs->initrds[i] = stage_path(rs, i, rs->initrds[i], "initramfs")))
				return error("cannot use %s", rs->args.initramfs), EXIT_DATAERR;
			if (sha256_file(rs->args.initramfs, rs->initrd_sha[i]) < 0)
				return error("cannot read %s: %s", rs->args.initramfs, strerror(errno)),
				       EXIT_DATAERR;
		} else if ((rc = build_for_kernel(rs, i))) {
			return rc;
		}
	}
	return 0;
}

/* The whole command line: console, panic=-1 (a panic ends the boot at
 * once), the target's, the user's, then the variant's arguments. */
static char *make_cmdline(const struct target *t, const char *append, const char *variant_args)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "console=%s panic=-1", t->console);
	const char *parts[] = { t->append, append, variant_args };
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		if (parts[i] && *parts[i])
			strbuf_addf(&sb, " %s", parts[i]);
	return sb.buf;
}

/* The kernel's command-line limit with its NUL (COMMAND_LINE_SIZE of
 * arch/<arch>/include/uapi/asm/setup.h): longer, the kernel cuts it. */
static size_t cmdline_limit(const char *arch)
{
	return !strcmp(arch, "arm") ? 1024 : 2048;
}

/* Every boot's whole command line is text (no C0 control but tab: XML,
 * and so libvirt's domain, cannot carry them) and fits its kernel's limit;
 * else EXIT_USAGE naming the control byte or the limit (the kernel would
 * boot, silently cut). */
static int check_cmdlines(const struct run_state *rs)
{
	size_t n_var = rs->args.n_variants ? rs->args.n_variants : 1;
	for (size_t k = 0; k < rs->n_kernels; k++) {
		for (size_t v = 0; v < n_var; v++) {
			const char *spec = rs->args.n_variants ? rs->args.variants[v] : NULL;
			const char *eq = spec ? strchr(spec, '=') : NULL;
			char *line = make_cmdline(rs->targets[k], rs->args.append, eq ? eq + 1 : NULL);
			size_t len = strlen(line), max = cmdline_limit(rs->targets[k]->arch);
			size_t bad = strcspn(line, "\001\002\003\004\005\006\007\010\012\013\014\015"
					     "\016\017\020\021\022\023\024\025\026\027\030\031\032"
					     "\033\034\035\036\037");
			int byte = (unsigned char)line[bad];
			free(line);
			if (bad < len)
				return error("the kernel command line holds a control character (0x%02x at "
					     "byte %zu): a kernel command line is text, and libvirt's "
					     "domain XML cannot carry it", byte, bad), EXIT_USAGE;
			if (len >= max)
				return error("the kernel command line would be %zu bytes; %s kernels take "
					     "at most %zu (COMMAND_LINE_SIZE %zu): shorten --append or "
					     "--variant", len, rs->targets[k]->arch, max - 1, max),
				       EXIT_USAGE;
		}
	}
	return 0;
}

/* The stage limits: the target's, each capped by --timeout. */
static void job_limits(const struct run_state *rs, const struct target *t, struct judge_limits *l)
{
	*l = t->limits;
	double cap = rs->args.timeout;
	if (cap <= 0)
		return;
	for (int s = 0; s < STAGE_COUNT; s++)
		if (l->stage[s] <= 0 || l->stage[s] > cap)
			l->stage[s] = cap;
	if (l->silence <= 0 || l->silence > cap)
		l->silence = cap;
}

/* The default benchmark clock when the target has none (config.c's). */
#define FALLBACK_ICOUNT "shift=3,sleep=off"

/* The boot's clock: --clock wall: none; --clock icount: the target's
 * options (or the default when the target turned them off), TCG forced;
 * else the target's setting ("" = the wall clock). */
static void job_clock(const struct run_state *rs, const struct target *t, struct boot_job *job)
{
	const char *clock = rs->args.clock;
	bool has = t->icount && *t->icount;
	if (clock && !strcmp(clock, "wall"))
		job->icount = NULL;
	else if (clock)
		job->icount = has ? t->icount : FALLBACK_ICOUNT;
	else
		job->icount = has ? t->icount : NULL;
	job->icount_forced = clock && !strcmp(clock, "icount");
}

/* The highest boot number under dir (its all-digit entries), 0 if none. */
static int highest_boot(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int high = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *p = e->d_name;
		while (isdigit((unsigned char)*p))
			p++;
		if (*p || p == e->d_name || p - e->d_name > 6)
			continue;
		int n = atoi(e->d_name);
		if (n > high)
			high = n;
	}
	closedir(d);
	return high;
}

/*
 * make_jobs: lays out kernels x variants x repeats, repeat-major (k1/v1/1,
 * k1/v2/1, k2/v1/1, ..., then .../2): whatever the host's load does over
 * the run, every kernel and variant sees it alike. The summary keeps
 * kernel, variant, boot order (summary_rank). A finished boot is never
 * overwritten: each kernel and variant's boots are numbered after those
 * already in RESULTS_DIR (the directory is locked: lock_results()).
 */
static void make_jobs(struct run_state *rs)
{
	size_t n_var = rs->args.n_variants ? rs->args.n_variants : 1;
	int repeat = rs->args.repeat > 0 ? rs->args.repeat : 1;
	rs->plan.n_jobs = rs->n_kernels * n_var * (size_t)repeat;
	rs->plan.jobs = xcalloc(rs->plan.n_jobs, sizeof(*rs->plan.jobs));
	struct boot_job *job = rs->plan.jobs;
	rs->variant_names = xcalloc(n_var, sizeof(*rs->variant_names));
	for (size_t v = 0; v < rs->args.n_variants; v++) {
		char *spec = rs->args.variants[v];
		rs->variant_names[v] = xasprintf("%.*s", (int)(strchr(spec, '=') - spec), spec);
	}
	int *base = xcalloc(rs->n_kernels * n_var, sizeof(*base));
	for (size_t k = 0; k < rs->n_kernels; k++) {
		for (size_t v = 0; v < n_var; v++) {
			char *vdir = xasprintf("%s/%s/%s", rs->args.output, rs->kernels[k].id,
					       rs->args.n_variants ? rs->variant_names[v] : "default");
			base[k * n_var + v] = highest_boot(vdir);
			free(vdir);
		}
	}
	for (int n = 1; n <= repeat; n++) {
		for (size_t k = 0; k < rs->n_kernels; k++) {
			for (size_t v = 0; v < n_var; v++, job++) {
				char *spec = rs->args.n_variants ? rs->args.variants[v] : NULL;
				char *eq = spec ? strchr(spec, '=') : NULL;
				const char *name = spec ? rs->variant_names[v] : "default";
				const struct kernel *kern = &rs->kernels[k];
				job->kernel_path = kern->input;
				job->kernel_image = rs->images[k];
				job->kernel_id = kern->id;
				job->kernel_arch = kernel_arch_name(kern->arch);
				job->kernel_version = kern->version;
				job->target = rs->targets[k];
				job->board = rs->args.board;
				job->initrd = rs->initrds[k];
				job->initrd_sha256 = rs->initrd_sha[k];
				job->variant = name;
				job->cmdline = make_cmdline(rs->targets[k], rs->args.append, eq ? eq + 1 : NULL);
				job->boot = n + base[k * n_var + v];
				job->dir = xasprintf("%s/%s/%s/%d", rs->args.output, kern->id, job->variant,
						     job->boot);
				job_limits(rs, rs->targets[k], &job->limits);
				job_clock(rs, rs->targets[k], job);
				job->accel = rs->args.accel ? rs->args.accel : rs->targets[k]->accel;
				job->summary_rank = (k * n_var + v) * (size_t)repeat + (size_t)(n - 1);
			}
		}
	}
	free(base);
}

static void release_run_state(struct run_state *rs)
{
	free(rs->hosts);
	free(rs->args.connects);
	for (size_t i = 0; i < rs->plan.n_jobs; i++)
		boot_job_release(&rs->plan.jobs[i]);
	free(rs->plan.jobs);
	for (size_t i = 0; i < rs->n_kernels; i++) {
		if (rs->kernels[i].input)
			kernel_release(&rs->kernels[i]);
		free(rs->initrds ? rs->initrds[i] : NULL);
		free(rs->images ? rs->images[i] : NULL);
	}
	for (size_t v = 0; rs->variant_names && v < rs->args.n_variants; v++)
		free(rs->variant_names[v]);
	free(rs->variant_names);
	free(rs->kernels), free(rs->targets), free(rs->initrds), free(rs->images);
	free(rs->initrd_sha);
	if (rs->cfg_loaded)
		config_release(&rs->cfg);
	free(rs->args.kernels), free(rs->args.variants);
}

/*
 * lock_results: RESULTS_DIR is written by one run at a time: an flock on
 * RESULTS_DIR/.lock, held until bootrig exits. A second run waits for it
 * (saying so), or with --no-wait refuses at once. 0, or EXIT_INFRA.
 */
static int lock_results(const char *dir, bool no_wait)
{
	char *path = xasprintf("%s/.lock", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	int rc = 0;
	if (fd < 0) {
		rc = (error("cannot create %s: %s", path, strerror(errno)), EXIT_INFRA);
	} else if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK)
			rc = (error("cannot lock %s: %s", path, strerror(errno)), EXIT_INFRA);
		else if (no_wait)
			rc = (error("%s is being written by another bootrig run (--no-wait)", dir),
			      EXIT_INFRA);
		else {
			fprintf(stderr, "bootrig: waiting for %s: another bootrig run writes it\n", term_str(dir));
			while ((rc = flock(fd, LOCK_EX)) < 0 && errno == EINTR)
				;
			if (rc < 0)
				rc = (error("cannot lock %s: %s", path, strerror(errno)), EXIT_INFRA);
		}
	}
	if (rc && fd >= 0)
		close(fd);
	free(path);
	return rc;    /* on success fd stays open, and locked, until exit */
}

/*
 * plan_hosts: the libvirt hosts of the run: two or more --connect URIs
 * (each named by its URI, one slot), else the config's hosts = ( ... );
 * else none, and the run has one host: --connect's, or the embedded
 * driver. Sets rs->hosts; returns their slots' sum (0: no list).
 */
static int plan_hosts(struct run_state *rs)
{
	const struct run_args *a = &rs->args;
	size_t n = a->n_connects > 1 ? a->n_connects : a->n_connects ? 0 : rs->cfg.n_hosts;
	if (!n || a->board)
		return 0;
	rs->hosts = xcalloc(n, sizeof(*rs->hosts));
	rs->n_hosts = n;
	int slots = 0;
	for (size_t i = 0; i < n; i++) {
		struct backend_host *h = &rs->hosts[i];
		if (a->n_connects) {
			*h = (struct backend_host){ .name = a->connects[i], .uri = a->connects[i],
						    .slots = 1 };
		} else {
			const struct config_host *c = &rs->cfg.hosts[i];
			*h = (struct backend_host){ .name = c->name, .uri = c->uri, .slots = c->slots,
						    .pool_path = c->pool, .pool_max_mb = c->pool_max_mb };
		}
		slots += h->slots;
	}
	return slots;
}

/* The backend: a board's, or libvirt. NULL when --board has none built in. */
static struct backend *pick_backend(const struct run_args *a)
{
	if (!a->board)
		return backend_libvirt_new();
	if (!backend_board_new) {
		error("--board: this bootrig was built without the board backend");
		return NULL;
	}
	return backend_board_new();
}

/*
 * libvirt reads where its log goes (LIBVIRT_LOG_OUTPUTS) once, when it is
 * initialized, and libguestfs (linked in for SD images) initializes it
 * before main(). Without this, libvirt's own warnings and errors (a
 * "tainted" note, a lookup of a domain that just ended) land on stderr
 * between ours. So the first time, the variable is set and bootrig execs
 * itself again; every failure is still reported by us, and libvirt's log
 * is in the cache (libvirt.log). argv is cmd_run's: argv[-1] is the
 * program's own argv[0] (lib/bootrig.c passes argv + 1).
 */
static void route_libvirt_log(int argc, char **argv)
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

int cmd_run(int argc, char **argv)
{
	route_libvirt_log(argc, argv);
	struct run_state rs;
	memset(&rs, 0, sizeof(rs));
	int rc = parse_run_args(argc, argv, &rs.args);
	if (rc) {
		release_run_state(&rs);
		return rc < 0 ? EXIT_PASS : rc;
	}
	if (mkdir_p(rs.args.output, 0755) < 0) {
		error("cannot create %s: %s", rs.args.output, strerror(errno));
		release_run_state(&rs);
		return EXIT_INFRA;
	}
	char *out_abs = realpath(rs.args.output, NULL);
	if (!out_abs || !xml_safe_path(out_abs)) {
		error("the results directory's path must be UTF-8 without control characters");
		free(out_abs);
		release_run_state(&rs);
		return EXIT_DATAERR;
	}
	free(out_abs);
	if ((rc = lock_results(rs.args.output, rs.args.no_wait))) {
		release_run_state(&rs);
		return rc;
	}
	if (!(rc = load_inputs(&rs)) && !(rc = check_cmdlines(&rs))) {
		make_jobs(&rs);
		rs.plan.backend = pick_backend(&rs.args);
		rs.plan.where = rs.args.board ? rs.args.board : rs.args.connect;
		if (rs.plan.backend)
			rs.plan.backend->no_wait = rs.args.no_wait;
		rs.plan.cfg = &rs.cfg;
		int slots = plan_hosts(&rs);
		if (rs.plan.backend && slots) {
			rs.plan.backend->hosts = rs.hosts;
			rs.plan.backend->n_hosts = rs.n_hosts;
		}
		/* Many hosts and no -j: as many boots at once as they have slots. */
		rs.plan.parallel = rs.args.jobs > 0 ? rs.args.jobs : slots > 1 ? slots : 1;
		if (rs.args.board && rs.plan.parallel > 1) {
			warning("--board: a board boots one kernel at a time; -j %d ignored",
				rs.plan.parallel);
			rs.plan.parallel = 1;
		}
		rc = rs.plan.backend ? matrix_run(&rs.plan) : EXIT_USAGE;
	}
	release_run_state(&rs);
	return rc;
}
