/*
 * cmd-build.c: `bootrig build`, the initramfs (and SD image) for a kernel,
 * and `bootrig build --list IMAGE`.
 *
 * One option table (in git's parse-options spirit) is both parsed and
 * printed by --help. The work itself is in build.c, kernel.c, sdimage.c.
 */
#include "build.h"
#include "builtin.h"
#include "config.h"
#include "exitcodes.h"
#include "kernel.h"
#include "options.h"
#include "textsafe.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct build_args {
	const char *kernel, *config, *suite, *target, *abi, *append_to, *output, *list;
	const char *dtb, *append;
	struct opt_list add;
	bool no_compress, sd_image;
};

static const struct opt_usage usage = {
	"usage: bootrig build --kernel KERNEL [--config FILE] [--suite NAME] [--abi LIST]\n"
	"                     [--add SRC:DEST]... [--append-to INITRAMFS] [--no-compress]\n"
	"                     [--sd-image [--dtb FILE]] -o IMAGE\n"
	"   or: bootrig build --list IMAGE\n",
	"Builds the initramfs a boot runs: bootrig's init, a probe and the suite's\n"
	"test binaries for every ABI the kernel's arch can run, and the plan.\n"
	"The image is reproducible (sorted, uid 0, mtime $SOURCE_DATE_EPOCH or 0).\n"
	"The manifest is written next to it as IMAGE.json (IMAGE with \".json\" added).\n",
	"KERNEL: an arm64 Image, arm zImage or x86 bzImage (maybe gzip'd), a Debian\n"
	"linux-image-*.deb, or a kernel build tree; the arch is read from the image.\n"
	"Exit status: 0 done, 64 usage, 65 bad input, 78 config error, 125 host failure.\n",
};

/* Conflicting and missing options, checked before any work. */
static int check_args(const struct build_args *a)
{
	if (a->list) {
		if (a->kernel || a->output || a->sd_image || a->add.n || a->append_to)
			return error("build: --list takes only the image"), EXIT_USAGE;
		return 0;
	}
	if (!a->kernel)
		return error("build: --kernel KERNEL is required"), EXIT_USAGE;
	if (!a->output)
		return error("build: -o IMAGE is required"), EXIT_USAGE;
	if (a->dtb && !a->sd_image)
		return error("build: --dtb goes with --sd-image"), EXIT_USAGE;
	return 0;
}

/* Splits "a,b,c" into a fresh list. */
static void split_list(const char *s, struct opt_list *out)
{
	char *copy = xstrdup(s), *save = NULL;
	for (char *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
		out->v[out->n++] = xstrdup(tok);
	}
	free(copy);
}

/* The "image cache:" line: where the gzip'd archive came from. */
static const char *cache_words(enum image_cache cache)
{
	switch (cache) {
	case IMAGE_CACHE_HIT: return "hit";
	case IMAGE_CACHE_MADE: return "made and kept";
	case IMAGE_CACHE_UNSETTLED: return "made, not kept (a file changed in the last seconds)";
	case IMAGE_CACHE_OFF: break;
	}
	return "off (not compressed)";
}

/* Prints what was built: the lines tests and users read. */
static void report(const char *output, const struct kernel *k, const struct target *t,
		   const struct suite *s, const struct build_options *opt)
{
	printf("kernel: %s (%s, %s)\n", term_str(k->input), kernel_arch_name(k->arch),
	       k->version ? term_str(k->version) : "version unknown");
	printf("target: %s\nsuite: %s\nabis:", t->name, s->name);
	char **abis = opt->abis ? opt->abis : t->abis;
	size_t n = opt->abis ? opt->n_abis : t->n_abis;
	for (size_t i = 0; i < n; i++)
		printf(" %s", abis[i]);
	printf("\nimage: %s\n", term_str(output));
	printf("image cache: %s\n", cache_words(*opt->cache_outcome));
	if (opt->write_manifest)
		printf("manifest: %s.json\n", term_str(output));
}

/* The build itself, with the config loaded and the kernel open. */
static int build_with(const struct build_args *a, const struct config *cfg,
		      const struct kernel *k)
{
	int rc = 0;
	const struct target *t = config_pick_target(cfg, a->target, kernel_arch_name(k->arch),
						    k->input, &rc);
	if (!t)
		return rc;
	const char *suite_name = a->suite ? a->suite : CONFIG_DEFAULT_SUITE;
	const struct suite *s = config_find_suite(cfg, suite_name);
	if (!s)
		return error("build: no suite named '%s'", suite_name), EXIT_USAGE;
	struct build_options opt;
	build_options_init(&opt);
	opt.kernel = k;
	opt.target = t;
	opt.suite = s;
	opt.compress = !a->no_compress;
	opt.append_to = a->append_to;
	enum image_cache cache = IMAGE_CACHE_OFF;
	opt.cache_outcome = &cache;
	struct opt_list abis = { NULL, 0 }, files = { NULL, 0 };
	if (a->abi) {
		split_list(a->abi, &abis);
		opt.abis = abis.v;
		opt.n_abis = abis.n;
	}
	for (size_t i = 0; i < cfg->n_files + a->add.n; i++) {
		files.v = xrealloc(files.v, (files.n + 1) * sizeof(*files.v));
		files.v[files.n++] = i < cfg->n_files ? cfg->files[i] : a->add.v[i - cfg->n_files];
	}
	opt.extra_files = files.v;
	opt.n_extra_files = files.n;
	char *initramfs = a->sd_image ? xasprintf("%s.initrd", a->output) : xstrdup(a->output);
	rc = build_initramfs(&opt, initramfs);
	if (!rc && a->sd_image)
		rc = build_sd_image(k, initramfs, a->dtb, t->console, a->append ? a->append : t->append,
				    a->output);
	if (!rc) {
		report(initramfs, k, t, s, &opt);
		if (a->sd_image)
			printf("sd-image: %s\n", term_str(a->output));
	}
	free(initramfs);
	for (size_t i = 0; i < abis.n; i++)
		free(abis.v[i]);
	free(abis.v);
	free(files.v);
	return rc;
}

/* bootrig build: parse, check, then --list or a build. Returns the exit status. */
int cmd_build(int argc, char **argv)
{
	struct build_args a = { 0 };
	const struct opt opts[] = {
		OPT_STRING('k', "kernel", &a.kernel, "KERNEL", "the kernel: image, .deb or build tree"),
		OPT_STRING('c', "config", &a.config, "FILE", "a libconfig file over configs/*.cfg"),
		OPT_STRING('s', "suite", &a.suite, "NAME", "the suite to plan (default " CONFIG_DEFAULT_SUITE ")"),
		OPT_STRING('t', "target", &a.target, "NAME", "the target (default: the first of the kernel's arch)"),
		OPT_STRING(0, "abi", &a.abi, "LIST", "only these ABIs, comma-separated (default all)"),
		OPT_REPEAT(0, "add", &a.add, "SRC:DEST", "put host file SRC at DEST in the image (repeatable)"),
		OPT_STRING(0, "append-to", &a.append_to, "INITRAMFS", "copy INITRAMFS first, append ours"),
		OPT_FLAG(0, "no-compress", &a.no_compress, "write plain cpio, not gzip"),
		OPT_FLAG(0, "sd-image", &a.sd_image, "-o is a disk image (MBR, FAT, extlinux); the initramfs is IMAGE.initrd"),
		OPT_STRING(0, "dtb", &a.dtb, "FILE", "a device tree for the SD image (FDT line)"),
		OPT_STRING(0, "append", &a.append, "ARGS", "more kernel arguments in extlinux.conf"),
		OPT_STRING('o', "output", &a.output, "IMAGE", "where to write the image"),
		OPT_STRING('l', "list", &a.list, "IMAGE", "list an initramfs: mode, size, name"),
		OPT_END(),
	};
	int rc = options_parse(opts, argc, argv, NULL, &usage);
	if (!rc)
		rc = check_args(&a);
	if (!rc && a.list)
		rc = build_list(a.list, stdout);
	else if (!rc) {
		struct config cfg;
		struct kernel k;
		rc = config_load(a.config, &cfg);
		if (!rc) {
			rc = kernel_open(a.kernel, &k);
			if (!rc) {
				rc = build_with(&a, &cfg, &k);
				kernel_release(&k);
			}
			config_release(&cfg);
		}
	}
	free(a.add.v);
	return rc;
}
