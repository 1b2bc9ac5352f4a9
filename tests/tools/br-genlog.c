/*
 * br-genlog.c: writes console logs made of real kernel lines and protocol
 * records, for fuzz seeds and for the parsing benchmark.
 *
 *   br-genlog [--kernel-log FILE] [--size BYTES] [--seed N] [--damage]
 *             [--truth FILE] -o OUT
 *
 * Each "boot" is the kernel lines of FILE up to the point where the init
 * would start (the whole file when it has no such point; a few built-in
 * lines without FILE), then a full run of records as the guest prints them
 * (BEGIN, SYSINFO, three ABIs, PLAN, and per ABI a TEST, six METRICs with 11
 * samples, a LOG and a RESULT, then END) with a kernel line now and then,
 * then "reboot: Power down". Boots repeat until OUT holds BYTES (default: one
 * boot). --damage adds what a serial console does to records: cuts by
 * kernel messages (repairable), flipped bytes, lost and duplicated lines,
 * CRLF, ANSI colours and NUL bytes. Same seed, same file. --truth FILE gets
 * every record line as it was meant, undamaged, so a test can check that
 * nothing decoded from OUT differs from what was sent.
 *
 * Prints one line: "<bytes> bytes, <lines> lines, <records> records, <boots> boots".
 */
#include "protocol.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const builtin_kernel[] = {
	"[    0.000000] Booting Linux on physical CPU 0x0000000000 [0x411fd070]",
	"[    0.000000] Linux version 6.1.0-57-cloud-arm64 (debian-kernel@lists.debian.org) #1 SMP Debian 6.1.192-3",
	"[    0.000000] Machine model: linux,dummy-virt",
	"[    0.000000] Kernel command line: console=ttyAMA0 panic=-1",
	"[    0.256765] VFS: Disk quotas dquot_6.6.0",
	"[    0.877000] Freeing unused kernel memory: 6464K",
	"[    0.878000] Run /init as init process",
};

static const char *const interjections[] = {
	"[    3.141592] random: crng init done",
	"[    3.200111] virtio_blk virtio1: [vda] 20480 512-byte logical blocks (10.5 MB/10.0 MiB)",
	"[    4.000001] clocksource: timekeeping watchdog on CPU0: Marking clocksource 'tsc' as unstable",
	"[    5.123456] audit: type=1400 audit(1.2:3): apparmor=\"STATUS\" operation=\"profile_load\"",
};

struct gen {
	FILE *out, *truth;
	char **kernel;
	size_t nkernel;
	uint64_t rng;
	bool damage;
	uint64_t seq, bytes, lines, records;
};

/* xorshift64*: deterministic for a seed. */
static uint32_t rnd(struct gen *g, uint32_t below)
{
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return (uint32_t)((g->rng * 2685821657736338717ULL) >> 33) % below;
}

/* Writes n bytes and a newline (CRLF now and then when damaging). */
static void put_line(struct gen *g, const char *s, size_t n)
{
	fwrite(s, 1, n, g->out);
	if (g->damage && rnd(g, 4) == 0)
		fputc('\r', g->out);
	fputc('\n', g->out);
	g->bytes += n + 1;
	g->lines++;
}

static void put_str(struct gen *g, const char *s)
{
	put_line(g, s, strlen(s));
}

/* Writes one record line, damaged as --damage asks. */
static void put_record(struct gen *g, const char *kind, const char *const *fields)
{
	char line[PROTO_MAX_LINE + 1], tmp[2 * PROTO_MAX_LINE];
	size_t n = proto_encode(line, sizeof(line), g->seq++, kind, fields);
	uint32_t dice = g->damage ? rnd(g, 100) : 100;

	if (n == 0)
		die("br-genlog: a record does not fit in %d bytes", PROTO_MAX_LINE);
	if (g->truth)
		fwrite(line, 1, n, g->truth);
	n--;    /* the '\n' */
	g->records++;
	if (dice < 2)                   /* lost */
		return;
	if (dice < 4) {                 /* duplicated */
		put_line(g, line, n);
	} else if (dice < 6) {          /* a flipped byte */
		line[7 + rnd(g, (uint32_t)(n - 7))] ^= (char)(1 << rnd(g, 8));
	} else if (dice < 12) {         /* cut by a kernel message */
		size_t cut = 6 + rnd(g, (uint32_t)(n - 6));
		const char *k = interjections[rnd(g, ARRAY_SIZE(interjections))];
		if (rnd(g, 2)) {
			put_line(g, line, cut);
			put_str(g, k);
		} else {
			size_t m = (size_t)snprintf(tmp, sizeof(tmp), "%.*s%s", (int)cut, line, k);
			put_line(g, tmp, m);
		}
		put_line(g, line + cut, n - cut);
		return;
	} else if (dice < 15) {         /* ANSI colour around it */
		size_t m = (size_t)snprintf(tmp, sizeof(tmp), "\x1b[1;32m%.*s\x1b[0m", (int)n, line);
		put_line(g, tmp, m);
		return;
	} else if (dice < 17) {         /* a NUL byte inside */
		size_t at = rnd(g, (uint32_t)n);
		memcpy(tmp, line, at);
		tmp[at] = '\0';
		memcpy(tmp + at + 1, line + at, n - at);
		put_line(g, tmp, n + 1);
		return;
	}
	put_line(g, line, n);
}

/* A metric's 11 samples around base, and their summary, as the guest
 * prints them. */
static void put_metric(struct gen *g, const char *abi, const char *name, double base)
{
	char samples[512], med[32], min[32], max[32], mean[32];
	size_t o = 0;
	double lo = 1e300, hi = 0, sum = 0;

	for (int i = 0; i < 11; i++) {
		double v = base * (1.0 + ((int)rnd(g, 2001) - 1000) / 20000.0);
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
		sum += v;
		o += (size_t)snprintf(samples + o, sizeof(samples) - o, "%s%.4f", i ? "," : "", v);
	}
	snprintf(med, sizeof(med), "%.4f", base);
	snprintf(min, sizeof(min), "%.4f", lo);
	snprintf(max, sizeof(max), "%.4f", hi);
	snprintf(mean, sizeof(mean), "%.4f", sum / 11);
	const char *f[] = {
		"abi", abi, "test", "lat_syscall", "name", name, "unit", "us", "better", "lower",
		"n", "11", "median", med, "min", min, "max", max, "mean", mean, "stddev", "0.0812",
		"samples", samples, "counters", "unavailable", NULL
	};
	put_record(g, "METRIC", f);
}

/* One boot's worth of lines. */
static void put_boot(struct gen *g)
{
	static const char *const abis[] = { "aarch64", "aarch64_ilp32", "arm" };
	static const char *const metrics[] = { "null", "read", "write", "stat", "fstat", "open_close" };

	g->seq = 0;
	for (size_t i = 0; i < g->nkernel; i++)
		put_str(g, g->kernel[i]);
	put_record(g, "BEGIN", (const char *const[]){ "proto", "1", "init", "0.1.0", "arch",
			       "aarch64", "plan", "file", NULL });
	put_record(g, "SYSINFO", (const char *const[]){ "release", "6.1.0-57-cloud-arm64",
			       "version", "#1 SMP Debian 6.1.192-3", "machine", "aarch64", "cpus", "1",
			       "memtotal_kb", "499820", "uptime", "1.52",
			       "cmdline", "console=ttyAMA0 panic=-1", NULL });
	for (size_t a = 0; a < ARRAY_SIZE(abis); a++)
		put_record(g, "ABI", (const char *const[]){ "abi", abis[a], "status",
				       a == 1 ? "unsupported" : "ok", a == 1 ? "reason" : NULL,
				       "ENOEXEC", NULL });
	put_record(g, "PLAN", (const char *const[]){ "suite", "smoke", "repeat", "1", "samples",
			       "11", "abis", "aarch64,arm", "tests", "lat_syscall", NULL });
	for (size_t a = 0; a < ARRAY_SIZE(abis); a += 2) {
		put_record(g, "TEST", (const char *const[]){ "abi", abis[a], "test", "lat_syscall",
				       "status", "start", NULL });
		for (size_t m = 0; m < ARRAY_SIZE(metrics); m++) {
			put_metric(g, abis[a], metrics[m], 14.1 * (double)(m + 1) / (double)(a + 1));
			if (rnd(g, 4) == 0)
				put_str(g, interjections[rnd(g, ARRAY_SIZE(interjections))]);
		}
		put_record(g, "LOG", (const char *const[]){ "abi", abis[a], "test", "lat_syscall",
				       "text", "calibrated 8192 iterations in 0.112 s", NULL });
		put_record(g, "RESULT", (const char *const[]){ "abi", abis[a], "test", "lat_syscall",
				       "status", "PASS", "ms", "812", NULL });
	}
	char records[24];
	snprintf(records, sizeof(records), "%llu", (unsigned long long)g->seq);
	put_record(g, "END", (const char *const[]){ "tests", "2", "passed", "2", "failed", "0",
			       "timeout", "0", "records", records, NULL });
	put_str(g, "[    9.951234] reboot: Power down");
}

/* The kernel lines of a real log, up to where the init would start. */
static void load_kernel_log(struct gen *g, const char *path)
{
	char *text, *p, *nl;
	size_t len;

	if (read_file(path, &text, &len) < 0)
		die("br-genlog: cannot read %s", path);
	for (p = text; p < text + len; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(text + len - p));
		if (!nl)
			nl = text + len;
		*nl = '\0';
		if (strstr(p, "Cannot open root device") || strstr(p, "@@BR "))
			break;
		g->kernel = xrealloc(g->kernel, (g->nkernel + 1) * sizeof(*g->kernel));
		g->kernel[g->nkernel++] = xstrdup(p);
		if (strstr(p, "Run /init as init process"))
			break;
	}
	free(text);
}

int main(int argc, char **argv)
{
	struct gen g = { .rng = 88172645463325252ULL };
	bool loaded = false;
	const char *out = NULL, *truth = NULL;
	uint64_t size = 0, seed = 1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--damage"))
			g.damage = true;
		else if (!strcmp(argv[i], "--kernel-log") && i + 1 < argc && !loaded)
			load_kernel_log(&g, argv[++i]), loaded = true;
		else if (!strcmp(argv[i], "--size") && i + 1 < argc && proto_parse_u64(argv[i + 1], &size))
			i++;
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc && proto_parse_u64(argv[i + 1], &seed))
			i++;
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--truth") && i + 1 < argc)
			truth = argv[++i];
		else
			die_status(64, "usage: br-genlog [--kernel-log FILE] [--size BYTES] [--seed N] [--damage] [--truth FILE] -o OUT");
	}
	if (!out)
		die_status(64, "br-genlog: -o OUT is required");
	if (!g.nkernel) {
		g.kernel = (char **)builtin_kernel;
		g.nkernel = ARRAY_SIZE(builtin_kernel);
	}
	g.rng ^= seed * 0x9e3779b97f4a7c15ULL;
	if (!(g.out = fopen(out, "wb")))
		die("br-genlog: cannot write %s", out);
	if (truth && !(g.truth = fopen(truth, "wb")))
		die("br-genlog: cannot write %s", truth);
	uint64_t boots = 0;
	do {
		put_boot(&g);
		boots++;
	} while (g.bytes < size);
	if (fclose(g.out) || (g.truth && fclose(g.truth)))
		die("br-genlog: cannot write %s", out);
	if (loaded) {
		for (size_t i = 0; i < g.nkernel; i++)
			free(g.kernel[i]);
		free(g.kernel);
	}
	printf("%llu bytes, %llu lines, %llu records, %llu boots\n",
	       (unsigned long long)g.bytes, (unsigned long long)g.lines,
	       (unsigned long long)g.records, (unsigned long long)boots);
	return 0;
}
