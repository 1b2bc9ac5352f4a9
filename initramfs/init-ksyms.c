/*
 * init-ksyms.c: the kernel's symbol table for the profile pass, built
 * once per boot (init.h: ksyms_build). Reading /proc/kallsyms is slow
 * under TCG (the kernel expands every name), so init reads it once and
 * writes the text symbols as a sorted table (initramfs/bench/symtab.h)
 * that every test binary maps.
 */
#include "init.h"
#include "symtab.h"

#define KALLSYMS_MAX (64u << 20)       /* text read, reserved (not touched) */
#define KSYMS_MAX_ENTRIES (1u << 20)
#define KSYMS_NAMES_MAX (32u << 20)

/* Reads all of /proc/kallsyms into buf (max bytes); its length or -errno. */
static long read_kallsyms(char *buf, size_t max)
{
	long fd = rt_open("/proc/kallsyms", O_RDONLY | O_CLOEXEC, 0), len = 0, r;

	if (fd < 0)
		return fd;
	while ((size_t)len < max && (r = rt_read((int)fd, buf + len, max - (size_t)len)) > 0)
		len += r;
	rt_close((int)fd);
	return len;
}

const char *ksyms_build(const char *root, const char *path)
{
	static char msg[160];
	struct symtab_entry *e = rt_alloc_pages(KSYMS_MAX_ENTRIES * sizeof(*e));
	char *names = rt_alloc_pages(KSYMS_NAMES_MAX), *text = rt_alloc_pages(KALLSYMS_MAX);
	uint64_t t0 = rt_now_ns();
	struct symtab t;
	bool zero = false;
	long len, r;

	if (root[0])
		return "profile: no kernel symbol table in test mode";
	if (!e || !names || !text)
		return "profile: no memory for the kernel symbol table";
	for (int attempt = 0; attempt < 2; attempt++) {
		len = read_kallsyms(text, KALLSYMS_MAX);
		if (len < 0) {
			rt_snprintf(msg, sizeof(msg), "profile: /proc/kallsyms: %s", rt_errname((int)-len));
			return msg;
		}
		memset(&t, 0, sizeof(t));
		t.e = e;
		t.names = names;
		t.n = symtab_from_kallsyms(text, (size_t)len, e, KSYMS_MAX_ENTRIES, names, KSYMS_NAMES_MAX,
					   &t.names_len, &zero);
		if (!zero || attempt)
			break;
		/* kptr_restrict hides the addresses: init is root, lift it. */
		long fd = rt_open("/proc/sys/kernel/kptr_restrict", O_WRONLY | O_CLOEXEC, 0);
		if (fd >= 0) {
			rt_write((int)fd, "0\n", 2);
			rt_close((int)fd);
		}
	}
	if (zero || t.n == 0) {
		rt_snprintf(msg, sizeof(msg), "profile: /proc/kallsyms has %s", zero ? "only zero addresses" :
			    "no text symbol");
		return msg;
	}
	r = symtab_write(path, &t);
	rt_munmap(text, KALLSYMS_MAX);
	rt_munmap(names, KSYMS_NAMES_MAX);
	rt_munmap(e, KSYMS_MAX_ENTRIES * sizeof(*e));
	if (r < 0) {
		rt_snprintf(msg, sizeof(msg), "profile: %s: %s", path, rt_errname((int)-r));
		return msg;
	}
	rt_snprintf(msg, sizeof(msg), "profile: %u kernel text symbols from /proc/kallsyms (%ld bytes) in %lu ms",
		    t.n, len, (unsigned long)((rt_now_ns() - t0) / 1000000));
	log_line(RT_ABI_NAME, "init", msg, rt_strlen(msg));
	return NULL;
}
