/*
 * domain.c: the libvirt backend's domain XML (lv.h): a transient domain
 * with nothing but what a boot needs.
 */
#include "lv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends s to sb with XML's special characters escaped. */
void add_xml_text(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': strbuf_addstr(sb, "&lt;"); break;
		case '>': strbuf_addstr(sb, "&gt;"); break;
		case '&': strbuf_addstr(sb, "&amp;"); break;
		case '\'': strbuf_addstr(sb, "&apos;"); break;
		case '"': strbuf_addstr(sb, "&quot;"); break;
		default: strbuf_add(sb, s, 1);
		}
	}
}

static void add_element(struct strbuf *sb, const char *indent, const char *tag, const char *text)
{
	strbuf_addf(sb, "%s<%s>", indent, tag);
	add_xml_text(sb, text);
	strbuf_addf(sb, "</%s>\n", tag);
}

/*
 * The target's machine may carry QEMU-style options: "virt,gic-version=3".
 * The machine type goes to <type machine=>; gic-version becomes
 * <features><gic version=/>; other options are refused (returns -1).
 */
int split_machine(const char *spec, char **machine, int *gic, char *why, size_t len)
{
	char *copy = xstrdup(spec);
	char *opts = strchr(copy, ',');
	*gic = 0;
	if (opts)
		*opts++ = '\0';
	*machine = xstrdup(copy);
	char *save = NULL;   /* strtok_r: prepare() runs in several threads at once */
	for (char *opt = opts ? strtok_r(opts, ",", &save) : NULL; opt;
	     opt = strtok_r(NULL, ",", &save)) {
		if (!strncmp(opt, "gic-version=", 12) && atoi(opt + 12) > 0) {
			*gic = atoi(opt + 12);
			continue;
		}
		snprintf(why, len, "machine option '%s' is not supported (only gic-version=N)", opt);
		free(copy);
		return -1;
	}
	free(copy);
	return 0;
}

static void add_cpu(struct strbuf *sb, const char *cpu)
{
	if (!cpu || !*cpu)
		return;
	if (!strcmp(cpu, "max")) {
		strbuf_addstr(sb, "  <cpu mode='maximum' match='exact'/>\n");
	} else if (!strcmp(cpu, "host")) {
		strbuf_addstr(sb, "  <cpu mode='host-passthrough'/>\n");
	} else {
		strbuf_addstr(sb, "  <cpu mode='custom' match='exact'>\n");
		strbuf_addstr(sb, "    <model fallback='forbid'>");
		add_xml_text(sb, cpu);
		strbuf_addstr(sb, "</model>\n  </cpu>\n");
	}
}

static void add_os(struct strbuf *sb, const struct machine_spec *spec, const char *machine)
{
	strbuf_addstr(sb, "  <os>\n    <type arch='");
	add_xml_text(sb, spec->target->qemu_arch);
	strbuf_addstr(sb, "' machine='");
	add_xml_text(sb, machine);
	strbuf_addstr(sb, "'>hvm</type>\n");
	add_element(sb, "    ", "kernel", spec->kernel);
	if (spec->initrd)
		add_element(sb, "    ", "initrd", spec->initrd);
	add_element(sb, "    ", "cmdline", spec->cmdline);
	if (spec->dtb)
		add_element(sb, "    ", "dtb", spec->dtb);
	strbuf_addstr(sb, "  </os>\n");
}

/*
 * domain_xml: a transient domain with nothing but what a boot needs: the
 * kernel, its initramfs and command line (paths on the host that runs it),
 * one serial port (a pty for the live console, read over the console
 * stream; logged to serial_log if not NULL), no NIC, graphics, USB, balloon or
 * RNG; every way of ending (poweroff, reboot, crash) destroys it. A TCG
 * boot with spec->icount gets QEMU's instruction-counting clock, as
 * `-icount OPTIONS` through libvirt's QEMU namespace (libvirt has no
 * element for it), and what makes it deterministic (backend.h): -seed
 * and on x86 -smbios's UUID the same way, the RTC at a fixed date on
 * guest time as libvirt's <clock offset='absolute'> with an rtc timer
 * that tracks the guest.
 */
char *domain_xml(const struct machine_spec *spec, bool kvm, const char *emulator,
			const char *serial_log, char *why, size_t len)
{
	const struct target *t = spec->target;
	char *machine;
	int gic;
	if (split_machine(t->machine, &machine, &gic, why, len) < 0)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	const char *icount = kvm ? NULL : spec->icount;
	const char *seed = icount ? spec->seed : NULL;   /* deterministic (backend.h) */
	strbuf_addf(&sb, "<domain type='%s'%s>\n", kvm ? "kvm" : "qemu",
		    icount ? " xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'" : "");
	add_element(&sb, "  ", "name", spec->name);
	strbuf_addf(&sb, "  <memory unit='MiB'>%d</memory>\n", t->memory_mb > 0 ? t->memory_mb : 512);
	strbuf_addf(&sb, "  <vcpu>%d</vcpu>\n", t->vcpus > 0 ? t->vcpus : 1);
	add_os(&sb, spec, machine);
	bool x86 = !strcmp(t->qemu_arch, "x86_64") || !strcmp(t->qemu_arch, "i686");
	if (gic || x86) {
		strbuf_addstr(&sb, "  <features>\n");
		if (gic)
			strbuf_addf(&sb, "    <gic version='%d'/>\n", gic);
		if (x86)    /* ACPI is how an x86 guest powers itself off */
			strbuf_addstr(&sb, "    <acpi/>\n");
		strbuf_addstr(&sb, "  </features>\n");
	}
	add_cpu(&sb, t->cpu);
	if (seed)       /* a fixed date, on guest time (backend.h: deterministic) */
		strbuf_addf(&sb, "  <clock offset='absolute' start='%d'>\n"
			    "    <timer name='rtc' track='guest'/>\n  </clock>\n", ICOUNT_RTC_EPOCH);
	else
		strbuf_addstr(&sb, "  <clock offset='utc'/>\n");
	strbuf_addstr(&sb, "  <on_poweroff>destroy</on_poweroff>\n"
		      "  <on_reboot>destroy</on_reboot>\n"
		      "  <on_crash>destroy</on_crash>\n"
		      "  <devices>\n");
	add_element(&sb, "    ", "emulator", emulator);
	strbuf_addstr(&sb, "    <serial type='pty'>\n");
	if (serial_log) {
		strbuf_addstr(&sb, "      <log file='");
		add_xml_text(&sb, serial_log);
		strbuf_addstr(&sb, "' append='off'/>\n");
	}
	strbuf_addstr(&sb, "      <target port='0'/>\n    </serial>\n"
		      "    <console type='pty'>\n      <target type='serial' port='0'/>\n"
		      "    </console>\n");
	if (x86)
		strbuf_addstr(&sb, "    <controller type='usb' model='none'/>\n");
	strbuf_addstr(&sb, "    <memballoon model='none'/>\n  </devices>\n");
	if (icount) {   /* libvirt has no element for it: QEMU's own argument */
		strbuf_addstr(&sb, "  <qemu:commandline>\n    <qemu:arg value='-icount'/>\n"
			      "    <qemu:arg value='");
		add_xml_text(&sb, icount);
		strbuf_addstr(&sb, "'/>\n");
		if (seed) {
			strbuf_addstr(&sb, "    <qemu:arg value='-seed'/>\n    <qemu:arg value='");
			add_xml_text(&sb, seed);
			strbuf_addstr(&sb, "'/>\n");
		}
		if (seed && x86)   /* QEMU's own SMBIOS UUID, not the domain's (unique per boot) */
			strbuf_addstr(&sb, "    <qemu:arg value='-smbios'/>\n"
				      "    <qemu:arg value='type=1,uuid=" ICOUNT_SMBIOS_UUID "'/>\n");
		strbuf_addstr(&sb, "  </qemu:commandline>\n");
	}
	strbuf_addstr(&sb, "</domain>\n");
	free(machine);
	return sb.buf;
}
