/*
 * build-bench.c: times the initramfs build in-process, for
 * scripts/bench.d/20-build.sh: kernel_open() + build_initramfs(), the
 * work of `bootrig build` without the process start-up (exec, dynamic
 * loading, configs), which `bootrig build` pays too.
 *
 *   build-bench KERNEL SUITE OUTPUT ITERATIONS cold|warm
 *
 * cold: the compressed-image cache (bootrig_cache_dir()/initramfs) is
 * emptied before each build (not timed), so every build deflates. Prints
 * one line: "median_ms min_ms size_bytes".
 *
 *   build-bench --time ITERATIONS [--fresh DIR] PROGRAM ARGS...
 *
 * times a program (spawned with run_argv, output to /dev/null, no time
 * limit) the same way, so the robot's packer and the bootrig command are
 * measured alike; --fresh removes DIR before each run (not timed).
 * Prints "median_ms min_ms".
 */
#include "build.h"
#include "config.h"
#include "kernel.h"
#include "spawn.h"
#include "util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Sorts the n samples; prints median and min. */
static void print_times(double *ms, int n)
{
	qsort(ms, (size_t)n, sizeof(*ms), compare_doubles);
	printf("%.2f %.2f", ms[n / 2], ms[0]);
}

/* rm -rf dir (when not NULL). */
static void remove_tree(const char *dir)
{
	char *rm[] = { "rm", "-rf", (char *)dir, NULL };
	if (dir)
		run_argv(rm, 60, -1, -1);
}

static int time_program(int n, const char *fresh, char **argv)
{
	double *ms = xcalloc((size_t)n, sizeof(*ms));
	int devnull = open("/dev/null", O_WRONLY);
	for (int i = 0; i < n; i++) {
		remove_tree(fresh);
		double t0 = now_monotonic();
		/* no time limit: run_argv then blocks in waitpid(); with one it
		 * polls every 10 ms, which would round each figure up to 10 ms */
		int rc = run_argv(argv, 0, devnull, devnull);
		ms[i] = (now_monotonic() - t0) * 1e3;
		if (rc != 0) {
			fprintf(stderr, "build-bench: %s exited %d\n", argv[0], rc);
			return 1;
		}
	}
	print_times(ms, n);
	putchar('\n');
	free(ms);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 5 && !strcmp(argv[1], "--time") && !strcmp(argv[3], "--fresh"))
		return atoi(argv[2]) > 0 ? time_program(atoi(argv[2]), argv[4], argv + 5) : 64;
	if (argc > 3 && !strcmp(argv[1], "--time"))
		return atoi(argv[2]) > 0 ? time_program(atoi(argv[2]), NULL, argv + 3) : 64;
	if (argc != 6) {
		fprintf(stderr, "usage: build-bench KERNEL SUITE OUTPUT ITERATIONS cold|warm\n");
		return 64;
	}
	int n = atoi(argv[4]);
	bool cold = !strcmp(argv[5], "cold");
	struct config cfg;
	if (n < 1 || config_load(NULL, &cfg))
		return 78;
	double *ms = xcalloc((size_t)n, sizeof(*ms));
	char *cache = xasprintf("%s/initramfs", bootrig_cache_dir());
	for (int i = 0; i < n; i++) {
		if (cold)
			remove_tree(cache);
		double t0 = now_monotonic();
		struct kernel k;
		if (kernel_open(argv[1], &k))
			return 65;
		struct build_options opt;
		build_options_init(&opt);
		opt.kernel = &k;
		opt.target = config_target_for_arch(&cfg, kernel_arch_name(k.arch));
		opt.suite = config_find_suite(&cfg, argv[2]);
		if (!opt.target || !opt.suite)
			return 78;
		int rc = build_initramfs(&opt, argv[3]);
		ms[i] = (now_monotonic() - t0) * 1e3;
		kernel_release(&k);
		if (rc)
			return rc;
	}
	struct stat st;
	stat(argv[3], &st);
	print_times(ms, n);
	printf(" %lld\n", (long long)st.st_size);
	free(ms);
	free(cache);
	config_release(&cfg);
	return 0;
}
