/*
 * symtab.c: address -> function name tables (symtab.h has the contract):
 * lookup, sorting, the kallsyms parser, the ELF symbol reader and the
 * table file init writes and the test binaries map.
 */
#include "symtab.h"

long symtab_lookup(const struct symtab *t, uint64_t addr)
{
	uint32_t lo = 0, hi = t->n;

	if (!t->n || addr < t->e[0].addr)
		return -1;
	while (hi - lo > 1) {            /* e[lo].addr <= addr < e[hi].addr */
		uint32_t mid = lo + (hi - lo) / 2;
		if (t->e[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (t->e[lo].size && addr - t->e[lo].addr >= t->e[lo].size)
		return -1;
	return (long)lo;
}

/* Heap sort by address: sift e[i] down within e[0..n-1]. */
static void sift(struct symtab_entry *e, uint32_t i, uint32_t n)
{
	for (;;) {
		uint32_t big = i, l = 2 * i + 1, r = l + 1;
		if (l < n && e[l].addr > e[big].addr)
			big = l;
		if (r < n && e[r].addr > e[big].addr)
			big = r;
		if (big == i)
			return;
		struct symtab_entry tmp = e[i];
		e[i] = e[big];
		e[big] = tmp;
		i = big;
	}
}

void symtab_sort(struct symtab_entry *e, uint32_t n)
{
	for (uint32_t i = n / 2; i-- > 0;)
		sift(e, i, n);
	for (uint32_t end = n; end-- > 1;) {
		struct symtab_entry tmp = e[0];
		e[0] = e[end];
		e[end] = tmp;
		sift(e, 0, end);
	}
}

/* A hexadecimal number at *s (no 0x), advancing *s; false when none. */
static bool parse_hex(const char **s, const char *end, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;

	while (p < end) {
		char c = *p;
		unsigned d;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			break;
		v = v << 4 | d;
		p++;
	}
	if (p == *s)
		return false;
	*s = p;
	*out = v;
	return true;
}

size_t symtab_kallsyms_text_end(const char *buf, size_t from, size_t len)
{
	static const char end[] = " _etext\n";
	const size_t n = sizeof(end) - 1;

	for (size_t i = from; i + n <= len; i++)
		if (buf[i] == ' ' && !memcmp(buf + i, end, n))
			return i + n;
	return 0;
}

uint32_t symtab_from_kallsyms(const char *text, size_t len, struct symtab_entry *e, uint32_t max,
			      char *names, uint32_t names_max, uint32_t *names_len, bool *zero_addrs)
{
	const char *s = text, *end = text + len;
	uint32_t n = 0, used = 0;
	bool any = false, nonzero = false;

	while (s < end) {
		const char *eol = rt_memchr(s, '\n', (size_t)(end - s));
		const char *line_end = eol ? eol : end, *p = s, *name;
		uint64_t addr;
		size_t nlen;
		s = eol ? eol + 1 : end;
		if (!parse_hex(&p, line_end, &addr) || line_end - p < 4 || p[0] != ' ' || p[2] != ' ')
			continue;
		char type = p[1];
		any = true;
		nonzero |= addr != 0;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		name = p + 3;
		nlen = 0;
		while (name + nlen < line_end && name[nlen] != ' ' && name[nlen] != '\t')
			nlen++;       /* the name, without " [module]" */
		if (!nlen || n == max || used + nlen + 1 > names_max)
			continue;
		e[n].addr = addr;
		e[n].name = used;
		e[n].size = 0;
		memcpy(names + used, name, nlen);
		names[used + nlen] = '\0';
		used += (uint32_t)nlen + 1;
		n++;
	}
	symtab_sort(e, n);
	*names_len = used;
	*zero_addrs = any && !nonzero;
	return n;
}

/* Little-endian fields of an ELF image, read without alignment. */
static uint64_t get(const uint8_t *p, unsigned size)
{
	uint64_t v = 0;
	for (unsigned i = size; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

long symtab_from_elf(const void *img, size_t len, struct symtab *t)
{
	const uint8_t *b = img;
	bool wide;
	uint64_t shoff;
	unsigned shentsize, shnum, machine;

	memset(t, 0, sizeof(*t));
	if (len < 52 || memcmp(b, "\177ELF", 4) != 0 || b[5] != 1)
		return -ENOEXEC;
	wide = b[4] == 2;
	machine = (unsigned)get(b + 18, 2);
	if (wide && len < 64)
		return -ENOEXEC;
	shoff = wide ? get(b + 0x28, 8) : get(b + 0x20, 4);
	shentsize = (unsigned)get(b + (wide ? 0x3a : 0x2e), 2);
	shnum = (unsigned)get(b + (wide ? 0x3c : 0x30), 2);
	if (shentsize < (wide ? 64u : 40u) || shoff > len || (uint64_t)shnum * shentsize > len - shoff)
		return -ENOEXEC;
	for (unsigned want = 2; want <= 11; want += 9) {        /* SHT_SYMTAB, then SHT_DYNSYM */
		for (unsigned i = 0; i < shnum; i++) {
			const uint8_t *sh = b + shoff + (uint64_t)i * shentsize;
			if (get(sh + 4, 4) != want)
				continue;
			uint64_t off = wide ? get(sh + 24, 8) : get(sh + 16, 4);
			uint64_t size = wide ? get(sh + 32, 8) : get(sh + 20, 4);
			unsigned link = (unsigned)get(sh + (wide ? 40 : 24), 4);
			unsigned entsize = wide ? 24 : 16;
			if (link >= shnum || off > len || size > len - off)
				continue;
			const uint8_t *str_sh = b + shoff + (uint64_t)link * shentsize;
			uint64_t str_off = wide ? get(str_sh + 24, 8) : get(str_sh + 16, 4);
			uint64_t str_size = wide ? get(str_sh + 32, 8) : get(str_sh + 20, 4);
			if (str_off > len || str_size > len - str_off || !str_size)
				continue;
			uint32_t count = (uint32_t)(size / entsize), n = 0;
			struct symtab_entry *e = rt_alloc((count ? count : 1) * sizeof(*e));
			if (!e)
				return -ENOMEM;
			for (uint32_t k = 0; k < count; k++) {
				const uint8_t *sym = b + off + (uint64_t)k * entsize;
				uint32_t name = (uint32_t)get(sym, 4);
				unsigned info = wide ? sym[4] : sym[12];
				uint64_t value = wide ? get(sym + 8, 8) : get(sym + 4, 4);
				uint64_t ssize = wide ? get(sym + 16, 8) : get(sym + 8, 4);
				if ((info & 0xf) != 2 || !value || name >= str_size)   /* STT_FUNC */
					continue;
				if (machine == 40)      /* EM_ARM: the Thumb bit is not an address */
					value &= ~(uint64_t)1;
				e[n].addr = value;
				e[n].name = name;
				e[n].size = ssize > 0xffffffffu ? 0xffffffffu : (uint32_t)ssize;
				n++;
			}
			symtab_sort(e, n);
			t->e = e;
			t->n = n;
			t->names = (const char *)b + str_off;
			t->names_len = (uint32_t)str_size;
			return 0;
		}
	}
	return -ENOEXEC;
}

#define SYMTAB_MAGIC "BRKSYMS1"

long symtab_parse_file(const void *buf, size_t len, struct symtab *t)
{
	const uint8_t *b = buf;
	uint64_t n, names_len;

	memset(t, 0, sizeof(*t));
	if (len < 16 || memcmp(b, SYMTAB_MAGIC, 8) != 0)
		return -EINVAL;
	n = get(b + 8, 4);
	names_len = get(b + 12, 4);
	if (n * sizeof(struct symtab_entry) + names_len != len - 16 || !names_len ||
	    b[len - 1] != '\0')
		return -EINVAL;
	t->e = (const struct symtab_entry *)(b + 16);
	t->n = (uint32_t)n;
	t->names = (const char *)(b + 16 + n * sizeof(struct symtab_entry));
	t->names_len = (uint32_t)names_len;
	for (uint32_t i = 0; i < t->n; i++)
		if (t->e[i].name >= names_len)
			return -EINVAL;
	return 0;
}

long symtab_write(const char *path, const struct symtab *t)
{
	uint32_t head[4];
	long fd = rt_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), r;

	if (fd < 0)
		return fd;
	memcpy(head, SYMTAB_MAGIC, 8);
	head[2] = t->n;
	head[3] = t->names_len;
	r = rt_write_all((int)fd, head, sizeof(head));
	if (r >= 0)
		r = rt_write_all((int)fd, t->e, (size_t)t->n * sizeof(*t->e));
	if (r >= 0)
		r = rt_write_all((int)fd, t->names, t->names_len);
	rt_close((int)fd);
	return r < 0 ? r : 0;
}

long symtab_map(const char *path, struct symtab *t)
{
	struct rt_stat st;
	long fd = rt_open(path, O_RDONLY | O_CLOEXEC, 0), r;
	void *p;

	memset(t, 0, sizeof(*t));
	if (fd < 0)
		return fd;
	r = rt_fstat((int)fd, &st);
	if (r < 0 || st.size < 16) {
		rt_close((int)fd);
		return r < 0 ? r : -EINVAL;
	}
	p = rt_mmap(NULL, (size_t)st.size, PROT_READ, MAP_PRIVATE, (int)fd, 0);
	rt_close((int)fd);
	if (RT_IS_ERR(p))
		return RT_PTR_ERR(p);
	r = symtab_parse_file(p, (size_t)st.size, t);
	if (r < 0)
		rt_munmap(p, (size_t)st.size);
	return r;
}
