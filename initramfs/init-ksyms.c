/*
 * init-ksyms.c: the kernel's symbol table for the profile pass, built
 * once per boot (init.h: ksyms_build). Reading /proc/kallsyms is slow
 * under TCG (the kernel expands every name), so init reads it once, up to
 * the end of the kernel's text, and writes the text symbols as a sorted
 * table (initramfs/bench/symtab.h) that every test binary maps.
 */
#include "init.h"
#include "symtab.h"

#define KALLSYMS_MAX (64u << 20)       /* text read, reserved (not touched) */
#define KSYMS_MAX_ENTRIES (1u << 20)
#define KSYMS_NAMES_MAX (32u << 20)

#define KALLSYMS_CHUNK (256u << 10)

/* Reads /proc/kallsyms into buf (max bytes), up to the line of _etext:
 * the symbols are in address order, and what follows the kernel's text is
 * its data, init code and modules' symbols, where no sample of a test
 * lands; with CONFIG_KALLSYMS_ALL (Debian's amd64) that is half the file,
 * and every line costs the kernel thousands of instructions under TCG (the
 * whole file: 2.4 s of amd64's guest time). All of it when no _etext is
 * there. Its length or -errno. */
static long read_kallsyms(char *buf, size_t max)
{
	long fd = rt_open("/proc/kallsyms", O_RDONLY | O_CLOEXEC, 0), len = 0, r;
	size_t end = 0;

	if (fd < 0)
		return fd;
	while (!end && (size_t)len < max) {
		size_t want = max - (size_t)len < KALLSYMS_CHUNK ? max - (size_t)len : KALLSYMS_CHUNK;
		if ((r = rt_read((int)fd, buf + len, want)) <= 0)
			break;
		size_t from = (size_t)len > 8 ? (size_t)len - 8 : 0;   /* a line across reads */
		len += r;
		end = symtab_kallsyms_text_end(buf, from, (size_t)len);
	}
	rt_close((int)fd);
	return end ? (long)end : len;
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
