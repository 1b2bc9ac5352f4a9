/*
 * kernel-size.c: a kernel's text, data and bss (kernel.h: kernel_size), as
 * size(1) counts them in its Berkeley format (binutils' berkeley_sum()):
 * of the sections the kernel allocates, code and read-only ones are text,
 * writable ones with contents data, the rest bss.
 *
 * They are read from the build tree's vmlinux where there is one (the tree
 * given, or the one an image at TREE/arch/ARCH/boot/ was built in), else
 * from the image: an x86 bzImage's payload is vmlinux itself, stripped of
 * symbols but not of its sections, compressed (gzip and xz are inflated
 * here); an arm64 Image and an arm zImage are flat binaries with no
 * sections, so they give only what their header says (arm64's image_size:
 * the kernel's size in memory, text to the end of bss). What an image
 * gives is kept under its sha256 in the kernel cache ("size").
 *
 * A vmlinux is read by its section headers alone (pread), never whole: a
 * build with debug info makes it hundreds of megabytes. Every offset and
 * count from a file is checked against the file before it is used.
 */
#include "kernel.h"
#include "kernel-internal.h"
#include "textsafe.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_SECTIONS = 1 << 20 };

/* Where an ELF's bytes are: a file (fd) or memory (mem[0..len)). */
struct elf_src {
	int fd;
	const unsigned char *mem;
	uint64_t len;
};

/* Reads n bytes at off; 0, or -1 past the end or on an error. */
static int src_read(const struct elf_src *s, uint64_t off, void *buf, size_t n)
{
	if (off > s->len || n > s->len - off)
		return -1;
	if (s->mem) {
		memcpy(buf, s->mem + off, n);
		return 0;
	}
	for (size_t done = 0; done < n;) {
		ssize_t r = pread(s->fd, (char *)buf + done, n - done, (off_t)(off + done));
		if (r <= 0 && errno != EINTR)
			return -1;
		done += r > 0 ? (size_t)r : 0;
	}
	return 0;
}

/* One section header's fields that size(1) reads. */
struct section {
	uint32_t type;
	uint64_t flags, size;
};

/* Section i of the table at shoff (entsize bytes each); 0 or -1. */
static int section_at(const struct elf_src *s, bool is64, uint64_t shoff, uint64_t entsize,
		      uint64_t i, struct section *out)
{
	if (is64) {
		Elf64_Shdr h;
		if (entsize < sizeof(h) || src_read(s, shoff + i * entsize, &h, sizeof(h)) < 0)
			return -1;
		*out = (struct section){ h.sh_type, h.sh_flags, h.sh_size };
	} else {
		Elf32_Shdr h;
		if (entsize < sizeof(h) || src_read(s, shoff + i * entsize, &h, sizeof(h)) < 0)
			return -1;
		*out = (struct section){ h.sh_type, h.sh_flags, h.sh_size };
	}
	return 0;
}

/* The sizes of the ELF at s into z; NULL, or why not (a static string). */
static const char *elf_sizes(const struct elf_src *s, struct kernel_size *z)
{
	unsigned char ident[EI_NIDENT];
	if (src_read(s, 0, ident, sizeof(ident)) < 0 || memcmp(ident, ELFMAG, SELFMAG))
		return "not an ELF file";
	if (ident[EI_DATA] != ELFDATA2LSB)
		return "a big-endian ELF (bootrig reads little-endian kernels)";
	bool is64 = ident[EI_CLASS] == ELFCLASS64;
	if (!is64 && ident[EI_CLASS] != ELFCLASS32)
		return "an ELF of no known class";
	uint64_t shoff, entsize, shnum;
	if (is64) {
		Elf64_Ehdr e;
		if (src_read(s, 0, &e, sizeof(e)) < 0)
			return "a truncated ELF header";
		shoff = e.e_shoff, entsize = e.e_shentsize, shnum = e.e_shnum;
	} else {
		Elf32_Ehdr e;
		if (src_read(s, 0, &e, sizeof(e)) < 0)
			return "a truncated ELF header";
		shoff = e.e_shoff, entsize = e.e_shentsize, shnum = e.e_shnum;
	}
	struct section sec;
	if (!shoff)
		return "an ELF without section headers";
	if (shnum == 0) {       /* extended numbering: the count is section 0's size */
		if (section_at(s, is64, shoff, entsize, 0, &sec) < 0)
			return "an ELF whose section headers are cut off";
		shnum = sec.size;
	}
	if (shnum > MAX_SECTIONS)
		return "an ELF with too many sections";
	z->text = z->data = z->bss = 0;
	for (uint64_t i = 0; i < shnum; i++) {
		if (section_at(s, is64, shoff, entsize, i, &sec) < 0)
			return "an ELF whose section headers are cut off";
		if (!(sec.flags & SHF_ALLOC))
			continue;
		long long *sum = (sec.flags & SHF_EXECINSTR) || !(sec.flags & SHF_WRITE) ? &z->text
				 : sec.type != SHT_NOBITS ? &z->data : &z->bss;
		if (sec.size > (uint64_t)INT64_MAX - (uint64_t)*sum)
			return "an ELF whose sections add up past 2^63 bytes";
		*sum += (long long)sec.size;
	}
	return NULL;
}

/* The sizes from the vmlinux at path into z; 0, or -1 when it is missing
 * or not what size(1) reads (z->reason then says why). */
static int vmlinux_sizes(const char *path, struct kernel_size *z)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	struct elf_src s = { .fd = fd, .len = (uint64_t)st.st_size };
	const char *why = elf_sizes(&s, z);
	close(fd);
	if (why) {
		free(z->reason);
		z->reason = xasprintf("%s: %s", path, why);
		z->text = z->data = z->bss = -1;
		return -1;
	}
	z->from = "vmlinux";
	return 0;
}

/* The build tree an image path is in (TREE/arch/ARCH/boot/FILE): TREE
 * (malloc'd), or NULL. */
static char *image_tree(const char *image)
{
	const char *a = NULL;
	for (const char *p = image; (p = strstr(p, "arch/")); p++)
		if (p == image || p[-1] == '/')
			a = p;
	const char *arch_end = a ? strchr(a + 5, '/') : NULL;
	if (!arch_end || arch_end == a + 5 || strncmp(arch_end, "/boot/", 6) || !arch_end[6] ||
	    strchr(arch_end + 6, '/'))
		return NULL;
	if (a == image)
		return xstrdup(".");
	return a == image + 1 ? xstrdup("/") : xasprintf("%.*s", (int)(a - image - 1), image);
}

/* The sizes an x86 bzImage's payload gives (data[0..len), inflated); NULL,
 * or why not. */
static const char *bzimage_sizes(const unsigned char *data, size_t len, struct kernel_size *z)
{
	static const unsigned char xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0x00 };
	if (len < 0x250 || (data[0x206] | data[0x207] << 8) < 0x0208)
		return "a bzImage older than boot protocol 2.08 (no payload fields)";
	size_t setup = data[0x1f1] ? data[0x1f1] : 4;
	uint32_t off = (uint32_t)data[0x248] | (uint32_t)data[0x249] << 8 |
		       (uint32_t)data[0x24a] << 16 | (uint32_t)data[0x24b] << 24;
	uint32_t plen = (uint32_t)data[0x24c] | (uint32_t)data[0x24d] << 8 |
			(uint32_t)data[0x24e] << 16 | (uint32_t)data[0x24f] << 24;
	size_t start = (setup + 1) * 512;
	if (start > len || off > len - start || plen > len - start - off || plen < 6)
		return "a bzImage whose payload is outside the file";
	const unsigned char *p = data + start + off;
	unsigned char *raw = NULL;
	size_t raw_len = 0;
	int rc = -1;
	if (p[0] == 0x1f && p[1] == 0x8b)
		rc = kernel_gunzip(p, plen, &raw, &raw_len);
	else if (!memcmp(p, xz, sizeof(xz)))
		rc = kernel_unxz(p, plen, &raw, &raw_len);
	else
		return "a bzImage payload compressed other than by gzip or xz (bootrig inflates "
		       "those two; the build tree's vmlinux has the sizes)";
	if (rc < 0)
		return "a bzImage payload that does not inflate";
	struct elf_src s = { .fd = -1, .mem = raw, .len = raw_len };
	const char *why = elf_sizes(&s, z);
	free(raw);
	if (!why)
		z->from = "bzImage payload";
	return why;
}

/* The sizes the image's own bytes give; sets z->from or z->reason. */
static void image_sizes(const struct kernel *k, struct kernel_size *z)
{
	char *data = NULL;
	size_t len = 0;
	if (read_file(k->image, &data, &len) < 0) {
		z->reason = xasprintf("%s: %s", k->image, strerror(errno));
		return;
	}
	const unsigned char *d = (const unsigned char *)data;
	unsigned char *raw = NULL;
	if (len >= 2 && d[0] == 0x1f && d[1] == 0x8b && kernel_gunzip(d, len, &raw, &len) == 0)
		d = raw;
	const char *why = NULL;
	if (k->arch == KARCH_X86_64) {
		why = bzimage_sizes(d, len, z);
	} else if (k->arch == KARCH_ARM64 && len >= 24) {
		uint64_t size = 0;
		for (int i = 7; i >= 0; i--)
			size = size << 8 | d[16 + i];
		z->image = size && size < (uint64_t)INT64_MAX ? (long long)size : -1;
		z->from = z->image >= 0 ? "Image header" : NULL;
		why = "an arm64 Image is a flat binary, without sections: the build tree's vmlinux "
		      "has text, data and bss";
	} else {
		why = "an arm zImage is a flat binary, without sections: the build tree's vmlinux "
		      "has text, data and bss";
	}
	if (why)
		z->reason = xstrdup(why);
	free(raw);
	free(data);
}

/* The names kernel_size's from points to (the cache gives one back). */
static const char *const froms[] = { "vmlinux", "bzImage payload", "Image header" };

/* z from the cache's text "TEXT DATA BSS IMAGE FROM-INDEX\nREASON"; 0 if
 * it was one. */
static int from_cache(const char *text, struct kernel_size *z)
{
	int from, used = 0;
	if (sscanf(text, "%lld %lld %lld %lld %d\n%n", &z->text, &z->data, &z->bss, &z->image,
		   &from, &used) != 5 || !used || from < -1 || from >= (int)ARRAY_SIZE(froms))
		return -1;
	z->from = from >= 0 ? froms[from] : NULL;
	const char *reason = text + used;
	size_t n = strcspn(reason, "\n");
	z->reason = n ? xasprintf("%.*s", (int)n, reason) : NULL;
	return 0;
}

void kernel_size_read(struct kernel *k, const char *tree)
{
	struct kernel_size *z = &k->size;
	free(z->reason);
	*z = (struct kernel_size){ -1, -1, -1, -1, NULL, NULL };
	char *from_image = tree ? NULL : image_tree(k->image);
	char *vmlinux = xasprintf("%s/vmlinux", tree ? tree : from_image ? from_image : "");
	bool have = (tree || from_image) && vmlinux_sizes(vmlinux, z) == 0;
	free(vmlinux), free(from_image);
	if (have || z->reason)
		return;
	char *cached = kernel_cache_get("size", k->sha256);
	int hit = cached ? from_cache(cached, z) : -1;
	free(cached);
	if (hit == 0)
		return;
	image_sizes(k, z);
	if (z->text >= 0) {     /* the payload's sections: what it said */
		free(z->reason);
		z->reason = NULL;
	}
	int from = -1;
	for (size_t i = 0; i < ARRAY_SIZE(froms); i++)
		if (z->from && !strcmp(z->from, froms[i]))
			from = (int)i;
	char *text = xasprintf("%lld %lld %lld %lld %d\n%s\n", z->text, z->data, z->bss, z->image,
			       from, z->reason ? z->reason : "");
	kernel_cache_put("size", k->sha256, text);
	free(text);
}

struct json_object *kernel_size_json(const struct kernel_size *z)
{
	json_object *s = json_object_new_object();
	const long long v[] = { z->text, z->data, z->bss, z->image };
	const char *const names[] = { "text", "data", "bss", "image" };
	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		json_object_object_add(s, names[i], v[i] >= 0 ? json_object_new_int64(v[i]) : NULL);
	json_object_object_add(s, "from", z->from ? json_object_new_string(z->from) : NULL);
	if (z->reason)
		json_object_object_add(s, "reason", json_cstring_utf8(z->reason));
	return s;
}
