/*
 * symtab.h: address -> function name tables for the guest's profiler
 * (profile.h): the kernel's text symbols and the test binary's own.
 *
 * A table is sorted by address; an entry covers [addr, addr + size), or,
 * when size is 0, up to the next entry's address (kallsyms gives no
 * sizes). Everything here is pure (no system call) but symtab_map and
 * symtab_write, so the self-test checks it on every ABI
 * (initramfs/profile-selftest.c).
 *
 * The kernel table is built once per boot by init from /proc/kallsyms
 * (reading kallsyms costs seconds under TCG) and written to a file in the
 * guest's tmpfs, which every test binary maps (knob profile_ksyms=):
 *   "BRKSYMS1", u32 count, u32 names_len, count x struct symtab_entry
 *   (16 bytes, sorted), names_len bytes of NUL-terminated names.
 * Addresses are 64-bit on every ABI (a 32-bit process sees the 64-bit
 * kernel's addresses in its samples).
 */
#ifndef BOOTRIG_SYMTAB_H
#define BOOTRIG_SYMTAB_H

#include "rt.h"

struct symtab_entry {
	uint64_t addr;
	uint32_t name;      /* offset into the names */
	uint32_t size;      /* 0: up to the next entry */
};

struct symtab {
	const struct symtab_entry *e;
	uint32_t n;
	const char *names;
	uint32_t names_len;
};

/* symtab_lookup: the index of the entry covering addr, or -1 (below the
 * first entry, past a sized entry's end, or an empty table). */
long symtab_lookup(const struct symtab *t, uint64_t addr);
/* symtab_name: entry i's name. */
static inline const char *symtab_name(const struct symtab *t, uint32_t i)
{
	return t->names + t->e[i].name;
}

/* symtab_sort: sorts e[0..n-1] by address (heap sort: no recursion, no
 * extra memory). */
void symtab_sort(struct symtab_entry *e, uint32_t n);

/* symtab_from_kallsyms: parses /proc/kallsyms text (text[0..len-1]:
 * "ADDR TYPE NAME [MODULE]" lines) into entries (at most max) and names
 * (at most names_max bytes), keeping text symbols (types t, T, w, W) and
 * dropping the module part; sorts them. *zero_addrs is set when every
 * address read as 0 (kptr_restrict). Returns the count; *names_len the
 * bytes of names used. Lines that do not fit are dropped. */
uint32_t symtab_from_kallsyms(const char *text, size_t len, struct symtab_entry *e, uint32_t max,
			      char *names, uint32_t names_max, uint32_t *names_len, bool *zero_addrs);

/* symtab_kallsyms_text_end: where the kernel's text ends in /proc/kallsyms
 * text buf[0..len-1], looking from `from` on: the offset just past the
 * line of the symbol _etext ("ADDR TYPE _etext\n"), or 0 when no such
 * line ends in buf[from..len-1]. The core kernel's symbols are listed in
 * address order, so what follows that line is data, init code and
 * modules' symbols. */
size_t symtab_kallsyms_text_end(const char *buf, size_t from, size_t len);

/* symtab_from_elf: the STT_FUNC symbols (with an address) of the ELF32 or
 * ELF64 little-endian image img[0..len-1] (its .symtab, else its
 * .dynsym), into t, sorted, allocated with rt_alloc. Returns 0 or
 * -ENOEXEC (not ELF, no symbol table), -ENOMEM. Names point into img,
 * which must stay. */
long symtab_from_elf(const void *img, size_t len, struct symtab *t);

/* symtab_parse_file: a table file's contents (the format above) as t
 * (pointing into buf); -EINVAL when it is not one. */
long symtab_parse_file(const void *buf, size_t len, struct symtab *t);
/* symtab_write: writes t in the file format to path (created, 0644). */
long symtab_write(const char *path, const struct symtab *t);
/* symtab_map: maps the table file at path read-only into t. */
long symtab_map(const char *path, struct symtab *t);

#endif
