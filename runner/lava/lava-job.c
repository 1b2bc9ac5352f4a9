/*
 * lava-job.c: the LAVA job definition of one boot (lava.h), YAML text
 * written by hand: the shape is fixed and small, and every string in it
 * is written as a YAML double-quoted scalar (yaml_str()), so nothing from
 * the config or the command line can change the document's structure.
 */
#include "lava.h"
#include "backend.h"
#include "config.h"
#include "textsafe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A stage limit of 0 is "no limit": in LAVA's timeouts, as in the
 * runner's safety net (matrix.c), it counts as 600 s. */
static double limit_of(double s)
{
	return s > 0 ? s : 600.0;
}

/*
 * yaml_str: s as a YAML double-quoted scalar: '"' and '\' escaped, every
 * C0 control, DEL and C1 control as \xNN / \uNNNN, the rest (valid UTF-8)
 * as it is. false when s is not valid UTF-8 (nothing useful could be
 * written: LAVA reads its jobs as UTF-8).
 */
static bool yaml_str(struct strbuf *sb, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s);
	strbuf_addstr(sb, "\"");
	while (n) {
		size_t len = utf8_char_len(u, n);
		if (!len)
			return false;
		if (len == 1 && (*u == '"' || *u == '\\'))
			strbuf_addf(sb, "\\%c", *u);
		else if (len == 1 && (*u < 0x20 || *u == 0x7f))
			strbuf_addf(sb, "\\x%02x", *u);
		else if (len == 2 && u[0] == 0xc2 && u[1] < 0xa0)
			strbuf_addf(sb, "\\x%02x", u[1]);    /* C1 controls */
		else
			strbuf_add(sb, u, len);
		u += len;
		n -= len;
	}
	strbuf_addstr(sb, "\"");
	return true;
}

/* "key: <quoted s>\n" at indent; false as yaml_str(). */
static bool yaml_kv(struct strbuf *sb, int indent, const char *key, const char *s)
{
	strbuf_addf(sb, "%*s%s: ", indent, "", key);
	bool ok = yaml_str(sb, s);
	strbuf_addstr(sb, "\n");
	return ok;
}

/* "- <quoted s>\n" at indent: a sequence's item; false as yaml_str(). */
static bool yaml_item(struct strbuf *sb, int indent, const char *s)
{
	strbuf_addf(sb, "%*s- ", indent, "");
	bool ok = yaml_str(sb, s);
	strbuf_addstr(sb, "\n");
	return ok;
}

/* "timeout:\n  seconds: N\n" at indent (whole seconds, at least 1). */
static void yaml_timeout(struct strbuf *sb, int indent, const char *key, double seconds)
{
	long s = (long)(seconds + 0.999);
	strbuf_addf(sb, "%*s%s:\n%*sseconds: %ld\n", indent, "", key, indent + 2, "", s < 1 ? 1 : s);
}

const char *lava_arch(const char *kernel_arch)
{
	static const char *const known[] = { "arm64", "x86_64", "arm" };
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (kernel_arch && !strcmp(kernel_arch, known[i]))
			return known[i];
	return NULL;
}

char *lava_file_url(const char *prefix, const char *path, char *err, size_t errlen)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "0123456789._~/+,=@:-";
	size_t bad = strspn(path, ok);
	if (path[bad] || path[0] != '/') {
		snprintf(err, errlen, "%s: a LAVA job names its files by URL, and this path %s",
		   term_str(path), path[0] != '/' ? "is not absolute"
		   : "holds a character a URL must escape (use paths in [A-Za-z0-9._~/+,=@:-])");
		return NULL;
	}
	if (!prefix)
		return xasprintf("file://%s", path);
	size_t pl = strlen(prefix);
	while (pl && prefix[pl - 1] == '/')
		pl--;
	return xasprintf("%.*s%s", (int)pl, prefix, path);
}

bool lava_url_is_loopback(const char *url)
{
	const char *h = strstr(url, "://");
	h = h ? h + 3 : url;
	const char *at = strpbrk(h, "@/");
	if (at && *at == '@')
		h = at + 1;
	char host[256];
	size_t n;
	if (*h == '[') {
		n = strcspn(h + 1, "]");
		snprintf(host, sizeof(host), "%.*s", (int)n, h + 1);
	} else {
		n = strcspn(h, ":/?#");
		snprintf(host, sizeof(host), "%.*s", (int)n, h);
	}
	if (!strcasecmp(host, "localhost") || !strcmp(host, "::1"))
		return true;
	struct in_addr a;
	return inet_pton(AF_INET, host, &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
}

/* The monitors test action: the protocol's records (PROTOCOL.md) as LAVA
 * sees them: BEGIN at seq 0 starts, END (through its CRC) ends, each ABI
 * record is a test case named by its ABI (ok: pass, unsupported: skip,
 * error: fail). */
static void write_monitor(struct strbuf *sb, double seconds)
{
	strbuf_addstr(sb, "- test:\n");
	yaml_timeout(sb, 4, "timeout", seconds);
	strbuf_addstr(sb, "    monitors:\n");
	yaml_kv(sb, 4, "- name", "bootrig-abi");
	yaml_kv(sb, 6, "start", "@@BR 1 0 BEGIN ");
	/* Each pattern ends where the record can no longer be cut: LAVA acts on
	 * a match at once (the end ends the job, which stops QEMU), and a line
	 * may come in pieces: an end matched on "END " alone lost the rest of
	 * the record, its CRC, on a loaded host (the judge's END was missing). */
	yaml_kv(sb, 6, "end", "@@BR 1 [0-9]+ END [^\r\n]*[*][0-9a-f]{8}");
	yaml_kv(sb, 6, "pattern",
		"@@BR 1 [0-9]+ ABI abi=(?P<test_case_id>[a-z0-9_]+) status=(?P<result>[a-z]+) ");
	strbuf_addstr(sb, "      fixupdict:\n");
	yaml_kv(sb, 8, "ok", "pass");
	yaml_kv(sb, 8, "unsupported", "skip");
	yaml_kv(sb, 8, "error", "fail");
}

/* The qemu device type's context: our target's machine, with the command
 * line as QEMU's -append (the dispatcher joins the options into one
 * command that pexpect splits: the line is in double quotes, and so may
 * hold neither a quote nor a backslash). */
static bool write_qemu_context(struct strbuf *sb, const struct lava_job_params *p)
{
	bool ok = true;
	strbuf_addstr(sb, "context:\n");
	ok &= yaml_kv(sb, 2, "arch", p->arch);
	if (strcmp(p->arch, "x86_64")) {   /* the template's -machine/-cpu are arm's */
		ok &= yaml_kv(sb, 2, "machine", p->machine);
		ok &= yaml_kv(sb, 2, "cpu", p->cpu);
	}
	strbuf_addf(sb, "  memory: %d\n", p->memory_mb > 0 ? p->memory_mb : 512);
	strbuf_addstr(sb, "  no_kvm: true\n");
	strbuf_addstr(sb, "  extra_options:\n");
	if (!strcmp(p->arch, "x86_64")) {
		char *m = xasprintf("-machine %s", p->machine), *c = xasprintf("-cpu %s", p->cpu);
		ok &= yaml_item(sb, 2, m);
		ok &= yaml_item(sb, 2, c);
		free(m), free(c);
	}
	strbuf_addf(sb, "  - \"-smp %d\"\n", p->vcpus > 0 ? p->vcpus : 1);
	strbuf_addstr(sb, "  - \"-no-reboot\"\n");
	if (p->icount && *p->icount) {
		char *ic = xasprintf("-icount %s", p->icount);
		ok &= yaml_item(sb, 2, ic);
		free(ic);
	}
	if (p->icount && *p->icount && p->seed) {   /* deterministic (backend.h) */
		char *seed = xasprintf("-seed %s", p->seed);
		ok &= yaml_item(sb, 2, seed);
		free(seed);
		ok &= yaml_item(sb, 2, "-rtc base=" ICOUNT_RTC_BASE ",clock=vm");
		if (!strcmp(p->arch, "x86_64"))
			ok &= yaml_item(sb, 2, "-smbios type=1,uuid=" ICOUNT_SMBIOS_UUID);
	}
	char *append = xasprintf("-append \"%s\"", p->cmdline);
	ok &= yaml_item(sb, 2, append);
	free(append);
	return ok;
}

/* deploy to tmpfs (qemu): -kernel, -initrd, -dtb image arguments. */
static bool write_tmpfs_deploy(struct strbuf *sb, const struct lava_job_params *p)
{
	bool ok = true;
	strbuf_addstr(sb, "- deploy:\n");
	yaml_timeout(sb, 4, "timeout", 300);
	strbuf_addstr(sb, "    to: \"tmpfs\"\n    images:\n");
	const char *names[] = { "kernel", "initrd", "dtb" };
	const char *urls[] = { p->kernel_url, p->initrd_url, p->dtb_url };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (!urls[i])
			continue;
		char *arg = xasprintf("-%s {%s}", names[i], names[i]);
		strbuf_addf(sb, "      %s:\n", names[i]);
		ok &= yaml_kv(sb, 8, "image_arg", arg);
		ok &= yaml_kv(sb, 8, "url", urls[i]);
		free(arg);
	}
	return ok;
}

/* deploy to tftp and boot u-boot (a board of the lab). */
static bool write_tftp_deploy_boot(struct strbuf *sb, const struct lava_job_params *p,
				   double boot_s)
{
	bool ok = true;
	strbuf_addstr(sb, "- deploy:\n");
	yaml_timeout(sb, 4, "timeout", 300);
	strbuf_addstr(sb, "    to: \"tftp\"\n    kernel:\n");
	ok &= yaml_kv(sb, 6, "url", p->kernel_url);
	/* LAVA's tftp schema knows image, uimage and zimage: a bzImage goes
	 * without a type (U-Boot's zboot is the device's own command) */
	const char *type = p->kernel_type ? p->kernel_type : "image";
	if (strcmp(type, "bzimage"))
		ok &= yaml_kv(sb, 6, "type", type);
	if (p->initrd_url) {
		/* our initramfs as it is: no compression key (tftp's schema has no
		 * "none"; absent is uncompressed), and LAVA adds nothing to it (its
		 * overlay and modules would need a shell our init does not have) */
		strbuf_addstr(sb, "    ramdisk:\n");
		ok &= yaml_kv(sb, 6, "url", p->initrd_url);
		strbuf_addstr(sb, "      install_modules: false\n      install_overlay: false\n");
	}
	if (p->dtb_url) {
		strbuf_addstr(sb, "    dtb:\n");
		ok &= yaml_kv(sb, 6, "url", p->dtb_url);
	}
	strbuf_addstr(sb, "- boot:\n");
	yaml_timeout(sb, 4, "timeout", boot_s);
	strbuf_addstr(sb, "    method: \"u-boot\"\n");
	strbuf_addf(sb, "    commands: \"%s\"\n", p->initrd_url ? "ramdisk" : "nfs");
	return ok;
}

/* A board's context: the run's command line as extra_kernel_args, which
 * LAVA's base-uboot.jinja2 puts in its bootargs after the device's own
 * console= (so bootrig's leading "console=..." word, the target's console,
 * is left out: the lab's device dictionary knows the board's UART). */
static bool write_uboot_context(struct strbuf *sb, const struct lava_job_params *p)
{
	const char *args = p->cmdline;
	if (!strncmp(args, "console=", 8)) {
		args += strcspn(args, " ");
		args += strspn(args, " ");
	}
	if (!*args)
		return true;
	strbuf_addstr(sb, "context:\n");
	return yaml_kv(sb, 2, "extra_kernel_args", args);
}

int lava_job_write(const struct lava_job_params *p, struct strbuf *out, char *err, size_t errlen)
{
	/* base-uboot.jinja2 sets bootargs in single quotes: a board's line
	 * may not hold one */
	if (p->tftp && strchr(p->cmdline, '\'')) {
		snprintf(err, errlen, "the kernel command line holds a single quote, which LAVA's "
			 "u-boot bootargs (in single quotes) cannot carry");
		return -1;
	}
	if (!p->tftp && strpbrk(p->cmdline, "\"'\\")) {
		snprintf(err, errlen, "the kernel command line holds a quote or a backslash, which the "
			 "LAVA dispatcher's QEMU command line cannot carry");
		return -1;
	}
	if (!p->tftp && !lava_arch(p->arch)) {
		snprintf(err, errlen, "no LAVA qemu arch for kernel arch '%s'", term_str(p->arch));
		return -1;
	}
	const double *st = p->limits->stage;
	double boot_s = limit_of(st[STAGE_FIRMWARE]) + limit_of(st[STAGE_KERNEL]);
	double test_s = limit_of(st[STAGE_INIT]) + limit_of(st[STAGE_RESULTS]) +
			limit_of(st[STAGE_END]) + limit_of(st[STAGE_POWEROFF]);
	struct strbuf sb = STRBUF_INIT;
	bool ok = true;
	strbuf_addstr(&sb, "# written by bootrig: one boot, judged by bootrig from this job's log\n");
	ok &= yaml_kv(&sb, 0, "device_type", p->device_type);
	ok &= yaml_kv(&sb, 0, "job_name", p->job_name);
	strbuf_addstr(&sb, "priority: \"medium\"\nvisibility: \"public\"\ntimeouts:\n");
	yaml_timeout(&sb, 2, "job", 300 + boot_s + test_s + 120);
	yaml_timeout(&sb, 2, "action", boot_s > test_s ? boot_s : test_s);
	/* the monitor waits for its next match this long: the whole test */
	yaml_timeout(&sb, 2, "connection", test_s);
	ok &= p->tftp ? write_uboot_context(&sb, p) : write_qemu_context(&sb, p);
	strbuf_addstr(&sb, "actions:\n");
	if (p->tftp) {
		ok &= write_tftp_deploy_boot(&sb, p, boot_s);
	} else {
		ok &= write_tmpfs_deploy(&sb, p);
		strbuf_addstr(&sb, "- boot:\n");
		yaml_timeout(&sb, 4, "timeout", boot_s);
		strbuf_addstr(&sb, "    method: \"qemu\"\n    media: \"tmpfs\"\n");
	}
	write_monitor(&sb, test_s);
	if (!ok) {
		snprintf(err, errlen, "a string of the job (device type, name, URL or command line) "
			 "is not valid UTF-8");
		strbuf_release(&sb);
		return -1;
	}
	strbuf_add(out, sb.buf, sb.len);
	strbuf_release(&sb);
	return 0;
}

static char *job_name_whole(const char *dir);

/* LAVA's schema: a job_name is at most this many characters. */
#define JOB_NAME_MAX 200

/* name cut to JOB_NAME_MAX bytes (so to as many characters or fewer):
 * "..." and the end of the name, which is what tells boots apart (the
 * variant and the boot's number), starting on a UTF-8 character. Frees
 * name when it cuts it. */
static char *job_name_cut(char *name)
{
	size_t n = strlen(name);
	if (n <= JOB_NAME_MAX)
		return name;
	const char *end = name + n - (JOB_NAME_MAX - 3);
	while ((*end & 0xc0) == 0x80)
		end++;
	char *cut = xasprintf("...%s", end);
	free(name);
	return cut;
}

/* "bootrig kernel-id variant #n" from a boot directory
 * .../<kernel-id>/<variant>/<n>, cut to LAVA's limit (job_name_cut()). */
static char *job_name_of(const char *dir)
{
	return job_name_cut(job_name_whole(dir));
}

/* "bootrig kernel-id variant #n", whole. */
static char *job_name_whole(const char *dir)
{
	const char *p = dir + strlen(dir), *cut[3] = { NULL, NULL, NULL };
	for (int k = 0; k < 3 && p > dir; ) {
		p--;
		if (*p == '/')
			cut[k++] = p;
	}
	if (!cut[2] || !cut[1] || !cut[0])
		return xasprintf("bootrig %s", dir);
	return xasprintf("bootrig %.*s %.*s #%s", (int)(cut[1] - cut[2] - 1), cut[2] + 1,
			 (int)(cut[0] - cut[1] - 1), cut[1] + 1, cut[0] + 1);
}

/* path's URL in a job: served (serve not NULL) or lava_file_url()'s. */
static char *file_url(const char *prefix, struct lava_serve *serve, const char *path, char *err,
		      size_t errlen)
{
	return serve ? lava_serve_url(serve, path, err, errlen) : lava_file_url(prefix, path, err, errlen);
}

int lava_write_job_file(const struct machine_spec *spec, const char *device_type,
			const char *url_prefix, struct lava_serve *serve, char **yaml, char *err,
			size_t errlen)
{
	const struct target *t = spec->target;
	char *kernel = file_url(url_prefix, serve, spec->kernel, err, errlen);
	char *initrd = kernel && spec->initrd ? file_url(url_prefix, serve, spec->initrd, err, errlen)
		       : NULL;
	char *dtb = kernel && spec->dtb ? file_url(url_prefix, serve, spec->dtb, err, errlen) : NULL;
	int rc = -1;
	if (kernel && (initrd || !spec->initrd) && (dtb || !spec->dtb)) {
		char *name = job_name_of(spec->dir);
		struct lava_job_params p = {
			.job_name = name, .device_type = device_type, .arch = t->arch,
			.machine = t->machine, .cpu = t->cpu, .memory_mb = t->memory_mb,
			.vcpus = t->vcpus, .icount = spec->icount, .seed = spec->seed, .kernel_url = kernel,
			.initrd_url = initrd, .dtb_url = dtb, .cmdline = spec->cmdline,
			.tftp = strcmp(device_type, "qemu") != 0,
			.kernel_type = !strcmp(t->arch, "arm") ? "zimage"
				       : !strcmp(t->arch, "x86_64") ? "bzimage" : "image",
			.limits = spec->limits ? spec->limits : &t->limits,
		};
		struct strbuf sb = STRBUF_INIT;
		rc = lava_job_write(&p, &sb, err, errlen);
		char *path = xasprintf("%s/job.yaml", spec->dir);
		if (!rc && write_file_atomic(path, sb.buf, sb.len) < 0) {
			snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
			rc = -1;
		}
		free(path), free(name);
		if (!rc && yaml)
			*yaml = sb.buf;
		else
			strbuf_release(&sb);
	}
	free(kernel), free(initrd), free(dtb);
	return rc;
}
