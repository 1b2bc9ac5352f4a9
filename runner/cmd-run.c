/*
 * cmd-run.c: `bootrig run`: boot kernels through one backend, judge every
 * boot and write its results.
 *
 *   bootrig run --kernel K [--kernel K2 ...] [--initramfs IMG] [--target NAME]
 *       [--config FILE] [--suite NAME] [--append ARGS] [--variant NAME=ARGS ...]
 *       [--repeat N] [-j N] [--timeout S] [--clock wall|icount]
 *       [--seed N|A-B|LIST|boot|random]
 *       [--provoke KIND]
 *       [the backends' options] -o RESULTS_DIR
 *
 * This file reads the options (one table, which also prints --help: its
 * own entries and every backend's, registry.h), loads the configuration
 * and the kernels, builds each kernel's initramfs when none is given, lets
 * the registry choose and plan the run's backend, lays out the boots
 * (kernels x variants x repeats, repeat by repeat, so that every side of an
 * A/B sees the same host conditions) and hands them to runner/matrix.c. It
 * names no backend: each one's options, checks and planning are its own.
 */
#include "backend.h"
#include "build.h"
#include "builtin.h"
#include "config.h"
#include "db.h"
#include "exitcodes.h"
#include "kernel.h"
#include "matrix.h"
#include "options.h"
#include "provoke.h"
#include "registry.h"
#include "sha256.h"
#include "textsafe.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the command line asked for. */
struct run_args {
	struct opt_list kernels;
	const char *initramfs, *target, *config, *suite, *append, *output;
	struct opt_list variants;  /* "NAME=ARGS" */
	int repeat, jobs;
	double timeout;
	double op_timeout;
	const char *clock;         /* --clock: "wall", "icount" or NULL (the target's) */
	const char *seed;          /* --seed boot|random, or NULL: the seeds below */
	unsigned long long *seeds; /* --seed N, A-B or a list: the seeds (malloc'd), nseeds
				    * of them; none: repeat n boots seed n */
	size_t nseeds;
	bool seed_fixed;           /* --seed N: one seed for every repeat */
	struct opt_list provokes;  /* --provoke: "KIND=ARGS" (malloc'd), moved to variants */
	size_t n_provoke;          /* then the variants are these n_provoke, malloc'd */
	bool provoke_list;         /* --provoke list */
	const char *db;            /* --db: the history database the boots go to */
	const char *kernel_tree;   /* --kernel-tree: the git work tree the kernels were built in */
	bool profile;              /* --profile: bootrig.profile=1 on every boot's command line */
	bool boot_time;            /* --boot-time (or the suite's boot_time): BOOT_TIME_ARGS on it */
};

static const struct opt_usage usage = {
	"usage: bootrig run --kernel KERNEL [options] -o RESULTS_DIR\n",
	"Boot each kernel, judge each boot, write RESULTS_DIR/<kernel-id>/<variant>/<n>/.\n"
	"Exit status: the worst verdict's (0 PASS, 1 FAIL, 2 PANIC/HANG/BOOT_FAIL,\n"
	"125 INFRA_ERROR), 130/143 when interrupted.\n",
	NULL,
};

/* --provoke KIND (repeatable): each kind becomes a variant named KIND whose
 * arguments make init provoke it (provoke.h), kept in a->provokes
 * (malloc'd); "list" prints the kinds (parse_run_args()). */
static int take_provoke(const struct opt *o, const char *kind)
{
	struct run_args *a = o->value;
	if (!strcmp(kind, "list")) {
		a->provoke_list = true;
		return 0;
	}
	char *append = provoke_append(kind);
	if (!append) {
		error("--provoke: unknown kind '%s'", kind);
		fprintf(stderr, "--provoke kinds: %s\n", provoke_kinds());
		return -1;
	}
	opt_list_add(&a->provokes, xasprintf("%s=%s", kind, append));
	free(append);
	return 0;
}

/* --variant NAME=ARGS, NAME in [A-Za-z0-9_.-] and not . or .. */
static int take_variant(const struct opt *o, const char *v)
{
	const char *eq = strchr(v, '=');
	bool ok = eq && eq != v && strncmp(v, ".=", 2) && strncmp(v, "..=", 3);
	for (const char *p = v; ok && p < eq; p++)
		ok = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", *p);
	if (!ok)
		return error("--variant wants NAME=ARGS with NAME in [A-Za-z0-9_.-]: '%s'", v);
	opt_list_add(o->value, v);
	return 0;
}

/* --clock wall|icount */
static int take_clock(const struct opt *o, const char *v)
{
	if (strcmp(v, "wall") && strcmp(v, "icount"))
		return error("--clock wants wall or icount: '%s'", v);
	*(const char **)o->value = v;
	return 0;
}

/* One seed of --seed: d[0..n) decimal digits, at most 2^64-1, into *v;
 * false when it is not one. */
static bool seed_number(const char *d, size_t n, unsigned long long *v)
{
	unsigned long long x = 0;
	if (!n || strspn(d, "0123456789") < n)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned digit = (unsigned)(d[i] - '0');
		if (x > (ULLONG_MAX - digit) / 10)
			return false;
		x = x * 10 + digit;
	}
	*v = x;
	return true;
}

/* The most seeds a --seed list names: --repeat's own bound. */
#define SEEDS_MAX 100000

/*
 * --seed N|A-B|LIST|boot|random. N: one seed (0 to 2^64-1), every boot
 * (with --repeat: the same boot N times, on purpose); A-B (A <= B): the
 * seeds A to B, one boot each; LIST: seeds and ranges separated by commas
 * ("1,4,6-8"), each seed once. A seed is kept as decimal digits without
 * leading zeros (QEMU's -seed reads 010 as octal and refuses 09).
 * boot: boot n's seed is n; random: the host's.
 */
static int cmp_ull(const void *x, const void *y)
{
	unsigned long long a = *(const unsigned long long *)x, b = *(const unsigned long long *)y;
	return a < b ? -1 : a > b;
}

static int take_seed(const struct opt *o, const char *v)
{
	struct run_args *a = o->value;
	a->nseeds = 0;
	a->seed = NULL;
	if (!strcmp(v, "random") || !strcmp(v, "boot")) {
		a->seed = v;
		return 0;
	}
	const char *p = v;
	size_t alloc = 0;
	do {
		size_t item = strcspn(p, ","), dash = strcspn(p, "-,");
		unsigned long long lo, hi = 0;
		if (!seed_number(p, dash, &lo) ||
		    (dash < item && !seed_number(p + dash + 1, item - dash - 1, &hi)) ||
		    (dash == item && (hi = lo, false)) || hi < lo || hi - lo >= SEEDS_MAX - a->nseeds)
			return error("--seed wants a number (0 to 18446744073709551615), a range A-B, a list "
				     "of them (at most %d seeds), boot or random: '%s'", SEEDS_MAX, v);
		for (unsigned long long x = lo;; x++) {
			if (a->nseeds == alloc) {
				alloc = alloc ? 2 * alloc : 16;
				a->seeds = xrealloc(a->seeds, alloc * sizeof(*a->seeds));
			}
			a->seeds[a->nseeds++] = x;
			if (x == hi)
				break;
		}
		p += item;
	} while (*p++ == ',');
	unsigned long long *sorted = xmalloc(a->nseeds * sizeof(*sorted));
	memcpy(sorted, a->seeds, a->nseeds * sizeof(*sorted));
	qsort(sorted, a->nseeds, sizeof(*sorted), cmp_ull);
	for (size_t i = 1; i < a->nseeds; i++)
		if (sorted[i] == sorted[i - 1]) {
			unsigned long long twice = sorted[i];
			free(sorted);
			return error("--seed names seed %llu twice: '%s'", twice, v);
		}
	free(sorted);
	a->seed_fixed = a->nseeds == 1 && !strpbrk(v, "-,");
	return 0;
}

/* --timeout S: seconds > 0 */
static int take_timeout(const struct opt *o, const char *v)
{
	char *end;
	double *t = o->value;
	*t = strtod(v, &end);
	if (end == v || *end || !(*t > 0))
		return error("--%s wants seconds > 0: '%s'", o->long_name, v);
	return 0;
}

/* Parses argv into a (and the backends' options into theirs); 0, -1 after
 * --provoke list, or EXIT_USAGE (--help exits). rq->target and rq->jobs are
 * set for the backends' checks (registry_check()). */
static int parse_run_args(int argc, char **argv, struct run_args *a, struct run_request *rq)
{
	/* run's own options; the backends' are placed among them
	 * (registry_options()): parsed and printed by --help from one table. */
	const struct opt core[] = {
		OPT_REPEAT('k', "kernel", &a->kernels, "KERNEL", "kernel to boot (Image, zImage, bzImage, .deb, build tree); repeatable"),
		OPT_STRING(0, "kernel-tree", &a->kernel_tree, "DIR", "the git work tree the kernels were built in: its commit recorded as kernel.git (a build tree as --kernel needs none)"),
		OPT_STRING('i', "initramfs", &a->initramfs, "IMAGE", "boot this initramfs (default: build one per kernel)"),
		OPT_STRING('t', "target", &a->target, "NAME", "machine from the config (default: the kernel arch's first)"),
		OPT_STRING('c', "config", &a->config, "FILE", "configuration file read after the defaults"),
		OPT_STRING('s', "suite", &a->suite, "NAME", "test suite for a built initramfs (default: " CONFIG_DEFAULT_SUITE ")"),
		OPT_STRING('a', "append", &a->append, "ARGS", "extra kernel command-line arguments"),
		OPT_CALLBACK('V', "variant", &a->variants, "NAME=ARGS", "a variant: boots again with ARGS appended; repeatable", take_variant),
		OPT_INT('r', "repeat", &a->repeat, "N", "boot each kernel and variant N times (default 1)", 1, 100000),
		OPT_INT('j', "jobs", &a->jobs, "N", "run N boots at once (default 1)", 1, 100000),
		OPT_CALLBACK('T', "timeout", &a->timeout, "S", "cap every stage and silence timeout at S seconds", take_timeout),
		OPT_CALLBACK(0, "op-timeout", &a->op_timeout, "S", "end a boot as INFRA_ERROR when one backend operation (define, start, stop) takes over S seconds (default 120)", take_timeout),
		OPT_CALLBACK('L', "clock", &a->clock, "wall|icount", "the guest's clock under TCG (default: the target's icount)", take_clock),
		OPT_CALLBACK(0, "seed", a, "N|A-B|LIST|boot|random", "under icount, the guest's randomness (QEMU -seed): every boot with one seed is the same boot. Default: repeat n has seed n (1..N); N: every boot seed N; A-B or a list (1,4,6-8): one boot per seed (--repeat: their count); boot: boot n's seed is n; random: the host's, each boot its own", take_seed),
		OPT_CALLBACK('P', "provoke", a, "KIND", "a boot whose kernel prints a KIND report (--provoke list); repeatable", take_provoke),
		OPT_FLAG(0, "profile", &a->profile, "profile the kernel behind every metric (bootrig.profile=1 on each boot's command line)"),
		OPT_FLAG(0, "boot-time", &a->boot_time, "time the boot, initcall by initcall (initcall_debug, bootrig.boot_time=1)"),
		OPT_STRING('o', "output", &a->output, "DIR", "results directory (required)"),
		OPT_STRING(0, "db", &a->db, "FILE", "also record every boot that finished in the history database FILE (SQLite)"),
		OPT_END(),
	};
	int rc = options_parse(registry_options(core), argc, argv, NULL, &usage);
	if (!rc && a->provokes.n && a->variants.n)
		rc = (error("--provoke and --variant cannot be used together"), EXIT_USAGE);
	if (a->provokes.n) {       /* the variants are the kinds' (release_run_state()) */
		free(a->variants.v);
		a->variants = a->provokes;
		a->n_provoke = a->provokes.n;
		a->provokes = (struct opt_list){ NULL, 0 };
	}
	if (rc)
		return rc;
	if (a->provoke_list) {
		printf("--provoke kinds: %s\n", provoke_kinds());
		return -1;
	}
	if (!a->kernels.n)
		return error("run: --kernel is required"), EXIT_USAGE;
	if (!a->output)
		return error("run: -o RESULTS_DIR is required"), EXIT_USAGE;
	if (a->nseeds > 1 && a->repeat && (size_t)a->repeat != a->nseeds)
		return error("run: --seed names %zu seeds, one boot each, and --repeat asks for %d: "
			     "give one of them", a->nseeds, a->repeat), EXIT_USAGE;
	if (a->nseeds > 1)
		a->repeat = (int)a->nseeds;
	rq->target = a->target;
	rq->jobs = a->jobs;
	rq->no_wait = registry_given("no-wait");    /* a backend's, for RESULTS_DIR too */
	return registry_check(rq);
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
	struct run_request rq;            /* what the backends' hooks see */
	struct run_plan plan;
};

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
	const char *suite_name = rs->args.suite ? rs->args.suite : CONFIG_DEFAULT_SUITE;
	const struct suite *suite = config_find_suite(&rs->cfg, suite_name);
	if (!suite)
		return error("no suite '%s' in the configuration", suite_name), EXIT_USAGE;
	if (suite->boot_time)           /* its plan reads the initcalls: the kernel must log them */
		rs->args.boot_time = true;
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
	char *module = rs->args.n_provoke ? provoke_module(&rs->kernels[i]) : NULL;
	if (rs->args.n_provoke && !module) {
		free(tmp), free(dir);
		return EXIT_USAGE;
	}
	opt.extra_files = module ? &module : NULL;
	opt.n_extra_files = module ? 1 : 0;
	int rc = build_initramfs(&opt, tmp);
	free(module);
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
	rs->rq.cfg = &rs->cfg;
	if ((rc = registry_config_loaded(&rs->rq)))
		return rc;
	rs->n_kernels = rs->args.kernels.n;
	rs->kernels = xcalloc(rs->n_kernels, sizeof(*rs->kernels));
	rs->targets = xcalloc(rs->n_kernels, sizeof(*rs->targets));
	rs->initrds = xcalloc(rs->n_kernels, sizeof(*rs->initrds));
	rs->images = xcalloc(rs->n_kernels, sizeof(*rs->images));
	rs->initrd_sha = xcalloc(rs->n_kernels, sizeof(*rs->initrd_sha));
	for (size_t i = 0; i < rs->n_kernels; i++) {
		if ((rc = kernel_open(rs->args.kernels.v[i], &rs->kernels[i])))
			return rc;
		if (rs->args.kernel_tree &&
		    (rc = kernel_set_tree(&rs->kernels[i], rs->args.kernel_tree)))
			return rc;
		rs->targets[i] = config_pick_target(&rs->cfg, rs->args.target,
						    kernel_arch_name(rs->kernels[i].arch),
						    rs->kernels[i].input, &rc);
		if (rc)
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

/* A boot-time boot's arguments: the kernel logs every initcall (at debug
 * level: into its buffer, not onto the console), in a buffer that holds a
 * distribution kernel's thousand of them, its trace events name each
 * initcall's level (the log does not), and init reads both. */
#define BOOT_TIME_ARGS \
	"initcall_debug log_buf_len=8M trace_event=initcall:initcall_level,initcall:initcall_start " \
	"bootrig.boot_time=1"

/* The whole command line: console, panic=-1 (a panic ends the boot at
 * once), the target's, the user's, the variant's arguments, then
 * bootrig.profile=1 when profile (run --profile: every backend boots this
 * line, so each profiles alike) and BOOT_TIME_ARGS when boot_time. */
static char *make_cmdline(const struct target *t, const char *append, const char *variant_args,
			  const struct run_args *a)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "console=%s panic=-1", t->console);
	const char *parts[] = { t->append, append, variant_args, a->profile ? "bootrig.profile=1" : NULL,
				a->boot_time ? BOOT_TIME_ARGS : NULL };
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
	size_t n_var = rs->args.variants.n ? rs->args.variants.n : 1;
	for (size_t k = 0; k < rs->n_kernels; k++) {
		for (size_t v = 0; v < n_var; v++) {
			const char *spec = rs->args.variants.n ? rs->args.variants.v[v] : NULL;
			const char *eq = spec ? strchr(spec, '=') : NULL;
			char *line = make_cmdline(rs->targets[k], rs->args.append, eq ? eq + 1 : NULL,
						  &rs->args);
			size_t len = strlen(line), max = cmdline_limit(rs->targets[k]->arch);
			size_t bad = strcspn(line, "\001\002\003\004\005\006\007\010\012\013\014\015"
					     "\016\017\020\021\022\023\024\025\026\027\030\031\032"
					     "\033\034\035\036\037");
			int byte = (unsigned char)line[bad];
			free(line);
			if (bad < len)
				return error("the kernel command line holds a control character (0x%02x at "
					     "byte %zu): a kernel command line is text, and a machine's "
					     "XML definition cannot carry it", byte, bad), EXIT_USAGE;
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

/* The boot's clock: --clock wall: none; --clock icount: the target's
 * options (or the default when the target turned them off), TCG forced;
 * else the target's setting ("" = the wall clock). And its seed (take_seed()):
 * repeat n (1-based) of a kernel and variant boots the n-th seed, by
 * default seed n, so that --repeat N gives N seeds. */
static void job_clock(const struct run_state *rs, const struct target *t, struct boot_job *job, int n)
{
	const char *clock = rs->args.clock;
	bool has = t->icount && *t->icount;
	if (clock && !strcmp(clock, "wall"))
		job->icount = NULL;
	else if (clock)
		job->icount = has ? t->icount : CONFIG_DEFAULT_ICOUNT;
	else
		job->icount = has ? t->icount : NULL;
	job->icount_forced = clock && !strcmp(clock, "icount");
	const struct run_args *a = &rs->args;
	if (a->seed && !strcmp(a->seed, "random"))
		job->seed[0] = 0;
	else if (a->seed)                                       /* boot */
		snprintf(job->seed, sizeof(job->seed), "%d", job->boot);
	else if (a->nseeds)
		snprintf(job->seed, sizeof(job->seed), "%llu", a->seeds[a->seed_fixed ? 0 : n - 1]);
	else
		snprintf(job->seed, sizeof(job->seed), "%d", n);
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
	size_t n_var = rs->args.variants.n ? rs->args.variants.n : 1;
	int repeat = rs->args.repeat > 0 ? rs->args.repeat : 1;
	rs->plan.n_jobs = rs->n_kernels * n_var * (size_t)repeat;
	rs->plan.jobs = xcalloc(rs->plan.n_jobs, sizeof(*rs->plan.jobs));
	struct boot_job *job = rs->plan.jobs;
	rs->variant_names = xcalloc(n_var, sizeof(*rs->variant_names));
	for (size_t v = 0; v < rs->args.variants.n; v++) {
		char *spec = rs->args.variants.v[v];
		rs->variant_names[v] = xasprintf("%.*s", (int)(strchr(spec, '=') - spec), spec);
	}
	int *base = xcalloc(rs->n_kernels * n_var, sizeof(*base));
	for (size_t k = 0; k < rs->n_kernels; k++) {
		for (size_t v = 0; v < n_var; v++) {
			char *vdir = xasprintf("%s/%s/%s", rs->args.output, rs->kernels[k].id,
					       rs->args.variants.n ? rs->variant_names[v] : "default");
			base[k * n_var + v] = highest_boot(vdir);
			free(vdir);
		}
	}
	for (int n = 1; n <= repeat; n++) {
		for (size_t k = 0; k < rs->n_kernels; k++) {
			for (size_t v = 0; v < n_var; v++, job++) {
				char *spec = rs->args.variants.n ? rs->args.variants.v[v] : NULL;
				char *eq = spec ? strchr(spec, '=') : NULL;
				const char *name = spec ? rs->variant_names[v] : "default";
				const struct kernel *kern = &rs->kernels[k];
				job->kernel_path = kern->input;
				job->kernel_image = rs->images[k];
				job->kernel_id = kern->id;
				job->kernel_arch = kernel_arch_name(kern->arch);
				job->kernel_version = kern->version;
				job->kernel_sha256 = kern->sha256;
				job->kernel_git_commit = kern->git_commit;
				job->kernel_git_describe = kern->git_describe;
				job->kernel_git_url = kern->git_url;
				job->kernel_size = &kern->size;
				job->target = rs->targets[k];
				job->initrd = rs->initrds[k];
				job->initrd_sha256 = rs->initrd_sha[k];
				job->variant = name;
				job->cmdline = make_cmdline(rs->targets[k], rs->args.append, eq ? eq + 1 : NULL,
							    &rs->args);
				job->boot = n + base[k * n_var + v];
				job->dir = xasprintf("%s/%s/%s/%d", rs->args.output, kern->id, job->variant,
						     job->boot);
				job_limits(rs, rs->targets[k], &job->limits);
				job_clock(rs, rs->targets[k], job, n);
				if (rs->args.n_provoke && !rs->args.clock)
					job->icount = NULL;     /* no benchmark: the wall clock, so
								 * a lockup's seconds pass at host speed */
				job->summary_rank = (k * n_var + v) * (size_t)repeat + (size_t)(n - 1);
			}
		}
	}
	free(base);
}

static void release_run_state(struct run_state *rs)
{
	for (size_t i = 0; i < rs->plan.n_jobs; i++)
		boot_job_release(&rs->plan.jobs[i]);
	free(rs->plan.jobs);
	for (size_t i = 0; i < rs->n_kernels; i++) {
		if (rs->kernels[i].input)
			kernel_release(&rs->kernels[i]);
		free(rs->initrds ? rs->initrds[i] : NULL);
		free(rs->images ? rs->images[i] : NULL);
	}
	for (size_t v = 0; rs->variant_names && v < rs->args.variants.n; v++)
		free(rs->variant_names[v]);
	free(rs->variant_names);
	free(rs->kernels), free(rs->targets), free(rs->initrds), free(rs->images);
	free(rs->initrd_sha);
	registry_release();
	if (rs->cfg_loaded)
		config_release(&rs->cfg);
	for (size_t v = 0; v < rs->args.n_provoke; v++)
		free(rs->args.variants.v[v]);
	free(rs->args.kernels.v), free(rs->args.variants.v);
	free(rs->args.seeds);
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
 * record_boots: --db: every boot of the plan that finished (an interrupted
 * run's too) into the history database. Returns rc, or EXIT_DATAERR when
 * they could not be recorded and rc was not worse.
 */
static int record_boots(struct run_state *rs, int rc)
{
	char **files = xcalloc(rs->plan.n_jobs + 1, sizeof(*files));
	size_t n = 0;
	for (size_t i = 0; i < rs->plan.n_jobs; i++) {
		const struct boot_job *job = &rs->plan.jobs[i];
		char *path = xasprintf("%s/result.json", job->dir);
		if (job->done && access(path, F_OK) == 0)
			files[n++] = path;
		else
			free(path);
	}
	int status = n ? db_record(rs->args.db, files, n) : EXIT_PASS;
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	free(files);
	return status != EXIT_PASS && rc < EXIT_DATAERR ? status : rc;
}

/*
 * plan_backend: the registry chooses the run's backend and it plans the
 * run (rs->def); the jobs are laid out, the backend readies them, and the
 * backend is made, with the run's parallelism. 0, RUN_DONE (nothing to
 * boot: exit 0), or an exit status after a message.
 */
static int plan_backend(struct run_state *rs, const struct backend_def **def)
{
	struct run_request *rq = &rs->rq;
	rq->kernels = rs->kernels;
	rq->targets = rs->targets;
	rq->n_kernels = rs->n_kernels;
	rq->plan = &rs->plan;
	int rc;
	if (!(*def = registry_choose(rq, &rc)))
		return rc;
	make_jobs(rs);
	if ((*def)->jobs_ready && (rc = (*def)->jobs_ready(rq)))
		return rc;
	rs->plan.backend = (*def)->create(rq, &rs->plan.where);
	rs->plan.cfg = &rs->cfg;
	/* Many hosts and no -j: as many boots at once as they have slots. */
	rs->plan.parallel = rs->args.jobs > 0 ? rs->args.jobs : rq->slots > 1 ? rq->slots : 1;
	rs->plan.op_timeout = rs->args.op_timeout;
	int queue = rs->plan.backend->ops->max_parallel;    /* a queue: submit every boot at once */
	if (!rs->args.jobs && queue > 0)
		rs->plan.parallel = rs->plan.n_jobs < (size_t)queue ? (int)rs->plan.n_jobs : queue;
	if ((*def)->max_parallel && rs->plan.parallel > (*def)->max_parallel) {
		warning("%s; -j %d ignored", (*def)->max_parallel_why, rs->plan.parallel);
		rs->plan.parallel = (*def)->max_parallel;
	}
	return 0;
}

int cmd_run(int argc, char **argv)
{
	registry_early(argc, argv);
	struct run_state rs;
	memset(&rs, 0, sizeof(rs));
	int rc = parse_run_args(argc, argv, &rs.args, &rs.rq);
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
	if ((rc = lock_results(rs.args.output, rs.rq.no_wait))) {
		release_run_state(&rs);
		return rc;
	}
	if (rs.args.db && (rc = db_check(rs.args.db))) {   /* before any boot */
		release_run_state(&rs);
		return rc;
	}
	const struct backend_def *def;
	if (!(rc = load_inputs(&rs)) && !(rc = check_cmdlines(&rs)) &&
	    !(rc = plan_backend(&rs, &def))) {
		rc = matrix_run(&rs.plan);
		if (rs.args.db)
			rc = record_boots(&rs, rc);
	}
	release_run_state(&rs);
	return rc == RUN_DONE ? EXIT_PASS : rc;
}
