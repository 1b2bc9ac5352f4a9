/*
 * profile-selftest.c: the profiler's pure parts (initramfs/bench/symtab.h
 * and fold.h), one binary per ABI (build/guest-selftest/<abi>/, never in
 * an image), run by tests/t-guest-profile.sh natively and under
 * qemu-user. Output as the runtime's self-test prints it: "ok NAME" or
 * "FAIL NAME: why" per check, then "done N checks, F failed"; exit
 * status 0 when nothing failed.
 *
 * Covered: the kallsyms parser (types kept, module part dropped, sorted,
 * zero addresses), lookup, the table file, the binary's own ELF symbols
 * (ELF32 or ELF64 as the ABI is), a ring record that wraps, the 64-bit
 * sample layout split by its context markers, and the aggregate: self and
 * children counts, the PROFILE/PFUNC/PSTACK lines, their bounds and the
 * cut of a stack too long for one record.
 */
#include "rt.h"
#include "selftest.h"
#include "symtab.h"
#include "fold.h"

int main(int argc, char **argv);


static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81a00000 D some_data\n"
	"ffffffff81002000 t do_syscall_64\n"
	"ffffffffc0001000 t memchr_inv\t[slub_test]\n"
	"ffffffff81001000 T entry_SYSCALL_64\n"
	"ffffffff81003000 W weak_fn\n"
	"ffffffff81004000 b bss_thing\n"
	"garbage line\n"
	"ffffffff81005000 T last_text";

static void check_kallsyms(void)
{
	static struct symtab_entry e[16];
	static char names[512];
	struct symtab t = { e, 0, names, 0 };
	uint32_t used;
	bool zero;
	long i;

	t.n = symtab_from_kallsyms(kallsyms, sizeof(kallsyms) - 1, e, 16, names, sizeof(names), &used, &zero);
	t.names_len = used;
	check(t.n == 6 && !zero, "kallsyms: the text symbols (t T w W) kept", "%u symbols", t.n);
	bool sorted = true;
	for (uint32_t k = 1; k < t.n; k++)
		sorted &= e[k - 1].addr <= e[k].addr;
	check(sorted, "kallsyms: sorted by address", "not sorted");
	i = symtab_lookup(&t, 0xffffffff81002010ull);
	check(i >= 0 && !rt_strcmp(symtab_name(&t, (uint32_t)i), "do_syscall_64"),
	      "kallsyms: an address inside a function", "got %ld %s", i, i >= 0 ? symtab_name(&t, (uint32_t)i) : "");
	i = symtab_lookup(&t, 0xffffffff81001000ull);
	check(i >= 0 && !rt_strcmp(symtab_name(&t, (uint32_t)i), "entry_SYSCALL_64"),
	      "kallsyms: a function's first byte", "got %ld", i);
	i = symtab_lookup(&t, 0xffffffffc0001234ull);
	check(i >= 0 && !rt_strcmp(symtab_name(&t, (uint32_t)i), "memchr_inv"),
	      "kallsyms: a module symbol without its [module]", "got %ld %s", i,
	      i >= 0 ? symtab_name(&t, (uint32_t)i) : "");
	check(symtab_lookup(&t, 0xffffffff80ffffffull) == -1, "kallsyms: below the first symbol: none",
	      "found one");

	/* Where init stops reading: past the line of _etext, not at a longer
	 * name that ends the same, and across the boundary of two reads. */
	static const char ks[] = "0000000000000000 A fixed_percpu_data\n"
				 "ffffffff81000000 T _text\n"
				 "ffffffff81e00000 T __noinstr_etext\n"
				 "ffffffff82000000 T _etext\n"
				 "ffffffff82000000 R __start_rodata\n";
	size_t want = (size_t)(rt_strstr(ks, "ffffffff82000000 R") - ks), len = sizeof(ks) - 1;
	check(symtab_kallsyms_text_end(ks, 0, len) == want, "kallsyms: the text ends past _etext's line",
	      "got %lu, want %lu", (unsigned long)symtab_kallsyms_text_end(ks, 0, len), (unsigned long)want);
	/* a read ending 3 bytes into the line, the next searched from 8 before */
	check(symtab_kallsyms_text_end(ks, 0, want - 3) == 0 && symtab_kallsyms_text_end(ks, want - 11, len) == want,
	      "kallsyms: _etext's line across two reads", "got %lu",
	      (unsigned long)symtab_kallsyms_text_end(ks, want - 11, len));
	check(symtab_kallsyms_text_end(kallsyms, 0, sizeof(kallsyms) - 1) == 0, "kallsyms: no _etext line: 0",
	      "found one");

	/* The table file init writes and every test maps. */
	char path[64];
	struct symtab m;
	rt_snprintf(path, sizeof(path), "/tmp/BR-profile-selftest.%ld", rt_getpid());
	long r = symtab_write(path, &t);
	long r2 = r < 0 ? r : symtab_map(path, &m);
	rt_unlink(path);
	check(r2 == 0 && m.n == t.n, "table file: written and mapped", "%s", rt_errname((int)-(r < 0 ? r : r2)));
	if (r2 == 0) {
		i = symtab_lookup(&m, 0xffffffff81003008ull);
		check(i >= 0 && !rt_strcmp(symtab_name(&m, (uint32_t)i), "weak_fn"),
		      "table file: lookup in the mapped table", "got %ld", i);
	}
	char bad[40] = "BRKSYMS1";
	check(symtab_parse_file(bad, sizeof(bad), &m) == -EINVAL, "table file: a bad size is refused",
	      "accepted");

	static const char hidden[] = "0000000000000000 T a\n0000000000000000 t b\n";
	symtab_from_kallsyms(hidden, sizeof(hidden) - 1, e, 16, names, sizeof(names), &used, &zero);
	check(zero, "kallsyms: addresses all 0 (kptr_restrict) are seen", "not seen");
}

/* A function of this binary, not inlined, for the ELF lookup. */
__attribute__((noinline)) int selftest_marker_function(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

static void check_elf(void)
{
	struct rt_stat st;
	struct symtab t;
	long fd = rt_open("/proc/self/exe", O_RDONLY, 0), r = fd;
	void *img = NULL;

	if (fd >= 0 && (r = rt_fstat((int)fd, &st)) >= 0) {
		img = rt_mmap(NULL, (size_t)st.size, PROT_READ, MAP_PRIVATE, (int)fd, 0);
		r = RT_IS_ERR(img) ? RT_PTR_ERR(img) : symtab_from_elf(img, (size_t)st.size, &t);
	}
	check(r == 0, "ELF: the binary's own symbol table read", "%s", rt_errname((int)-r));
	if (r)
		return;
	check(((const uint8_t *)img)[4] == (sizeof(void *) == 8 ? 2 : 1), "ELF: class as the ABI's",
	      "class %d", ((const uint8_t *)img)[4]);
	uintptr_t a = (uintptr_t)&selftest_marker_function;
	long i = symtab_lookup(&t, a + 4);
	check(i >= 0 && !rt_strcmp(symtab_name(&t, (uint32_t)i), "selftest_marker_function"),
	      "ELF: an address inside a function", "got %ld %s", i, i >= 0 ? symtab_name(&t, (uint32_t)i) : "");
	i = symtab_lookup(&t, (uintptr_t)&main);
	check(i >= 0 && !rt_strcmp(symtab_name(&t, (uint32_t)i), "main"), "ELF: main", "got %ld", i);
	i = symtab_lookup(&t, (uintptr_t)&selftest_checks);
	check(i < 0, "ELF: a data address is no function", "got %s", i >= 0 ? symtab_name(&t, (uint32_t)i) : "");
	check(symtab_from_elf("not an ELF file at all, not at all, no, not at all....", 56, &t) == -ENOEXEC,
	      "ELF: not ELF refused", "accepted");
}

/* A sample record in the kernel's layout: header, ip, pid/tid, nr, ips. */
static size_t make_sample(uint8_t *buf, unsigned misc, uint64_t ip, const uint64_t *chain, uint64_t nr)
{
	uint32_t type = PERF_RECORD_SAMPLE, pid = 42, tid = 43;
	uint16_t m = (uint16_t)misc, size = (uint16_t)(32 + 8 * nr);
	memcpy(buf, &type, 4);
	memcpy(buf + 4, &m, 2);
	memcpy(buf + 6, &size, 2);
	memcpy(buf + 8, &ip, 8);
	memcpy(buf + 16, &pid, 4);
	memcpy(buf + 20, &tid, 4);
	memcpy(buf + 24, &nr, 8);
	memcpy(buf + 32, chain, 8 * nr);
	return size;
}

static void check_records(void)
{
	static const uint64_t chain[] = { PERF_CONTEXT_KERNEL, 0xffffffc010801234ull, 0xffffffc010005679ull,
					  PERF_CONTEXT_USER, 0x401020, 0x400f31, 0x400a01 };
	uint8_t rec[256], ring[128], out[256];
	struct fold_sample s;
	size_t n = make_sample(rec, PERF_RECORD_MISC_KERNEL, 0xffffffc010801234ull, chain, 7);

	check(fold_parse_sample(rec, n, &s) && s.nk == 2 && s.nu == 3 && s.pid == 42 && s.tid == 43,
	      "sample: the callchain split by its markers", "nk %u nu %u pid %u", s.nk, s.nu, s.pid);
	check(s.kf[0] == 0xffffffc010801234ull && s.kf[1] == 0xffffffc010005678ull,
	      "sample: 64-bit kernel frames, return addresses less 1", "kf %llx %llx",
	      (unsigned long long)s.kf[0], (unsigned long long)s.kf[1]);
	check(s.uf[0] == 0x401020 && s.uf[1] == 0x400f30 && s.uf[2] == 0x400a00,
	      "sample: user frames, the pc as it is", "uf %llx %llx", (unsigned long long)s.uf[0],
	      (unsigned long long)s.uf[1]);
	n = make_sample(rec, PERF_RECORD_MISC_USER, 0x401234, chain, 0);
	check(fold_parse_sample(rec, n, &s) && s.nk == 0 && s.nu == 1 && s.uf[0] == 0x401234,
	      "sample: no callchain: the ip in its mode's context", "nk %u nu %u", s.nk, s.nu);
	check(!fold_parse_sample(rec, 24, &s), "sample: a short record refused", "accepted");

	/* A record that wraps past the ring's end (positions count up). */
	n = make_sample(rec, PERF_RECORD_MISC_KERNEL, 0xffffffc010801234ull, chain, 7);   /* 88 bytes */
	uint64_t tail = 128 * 3 + 100, head = tail + n;
	for (size_t k = 0; k < n; k++)
		ring[(tail + k) % 128] = rec[k];
	size_t got = fold_ring_record(ring, 128, tail, head, out, sizeof(out));
	check(got == n && memcmp(out, rec, n) == 0, "ring: a record wrapping the end read whole", "got %zu",
	      got);
	check(fold_ring_record(ring, 128, tail, head - 1, out, sizeof(out)) == 0,
	      "ring: a record past the head is not read", "read");
	check(fold_ring_record(ring, 128, tail, head, out, 64) == 0, "ring: a record too long is refused",
	      "read");
}

/* Lines fold_emit writes, kept for the checks. */
#define MAX_LINES (1 + FOLD_MAX_FUNCS + FOLD_MAX_STACKS)   /* a whole profile */
static char lines[MAX_LINES][RT_PRINTF_MAX];
static int nlines, nprofile, npfunc, npstack;
static void collect(void *ctx, const char *line, size_t n)
{
	(void)ctx;
	if (nlines < MAX_LINES) {
		memcpy(lines[nlines], line, n);
		lines[nlines++][n] = '\0';
	}
	nprofile += rt_starts_with(line, "PROFILE ");
	npfunc += rt_starts_with(line, "PFUNC ");
	npstack += rt_starts_with(line, "PSTACK ");
}
static void count_only(void *ctx, const char *line, size_t n)
{
	(void)ctx;
	(void)n;
	nprofile += rt_starts_with(line, "PROFILE ");
	npfunc += rt_starts_with(line, "PFUNC ");
	if (rt_starts_with(line, "PSTACK ")) {
		uint64_t v = 0;
		npstack++;
		rt_parse_u64(rt_strstr(line, " n=") + 3, &v);
		*(uint64_t *)ctx += v;
	}
}

static const char *names3(void *ctx, uint32_t id, char *buf, size_t size)
{
	static const char *const n[] = { "main_[u]", "entry", "do_syscall", "memchr_inv" };
	(void)ctx;
	if (id < 4)
		return n[id];
	rt_snprintf(buf, size, "function_with_a_rather_long_name_number_%u", id);
	return buf;
}

/* The value of " key=" in line, or -1. */
static long field(const char *line, const char *key)
{
	char k[32];
	uint64_t v;
	rt_snprintf(k, sizeof(k), " %s=", key);
	const char *p = rt_strstr(line, k);
	return p && rt_parse_u64(p + rt_strlen(k), &v) ? (long)v : -1;
}

static void check_fold(void)
{
	struct fold f;
	const struct fold_head h = { "x86_64", "lat_syscall", "null", "cpu-clock", 50000, 3, 0 };
	static const uint32_t s1[] = { 0, 1, 2, 3 }, s2[] = { 0, 1, 2 }, s3[] = { 0, 2, 1, 2 };

	check(fold_init(&f, 4, 64, 1024) == 0, "fold: init", "ENOMEM");
	fold_add(&f, s1, 4, 5);
	fold_add(&f, s2, 3, 3);
	fold_add(&f, s1, 4, 2);
	fold_add(&f, s3, 4, 1);           /* do_syscall twice: children once */
	check(f.samples == 11 && f.self[3] == 7 && f.self[2] == 4 && f.self[0] == 0,
	      "fold: self counts the leaf", "samples %u self %u %u", f.samples, f.self[3], f.self[2]);
	check(f.children[2] == 11 && f.children[0] == 11 && f.children[3] == 7,
	      "fold: children once per sample, recursion too", "children %u %u", f.children[2],
	      f.children[3]);
	nlines = nprofile = npfunc = npstack = 0;
	fold_emit(&f, &h, names3, NULL, collect, NULL);
	check(nprofile == 1 && npfunc == 4 && npstack == 3, "emit: one PROFILE, 4 PFUNC, 3 PSTACK",
	      "%d %d %d", nprofile, npfunc, npstack);
	check(!rt_strcmp(lines[0], "PROFILE abi=x86_64 test=lat_syscall name=null event=cpu-clock "
			 "period_ns=50000 samples=11 lost=3 functions=4 stacks=3 stacks_other=0 interrupt=0 "
			 "cut_self=0 cut_children=0\n"),
	      "emit: the PROFILE line", "%s", lines[0]);
	check(!rt_strcmp(lines[1], "PFUNC abi=x86_64 test=lat_syscall name=null fn=do_syscall self=4 "
			 "children=11\n"), "emit: PFUNC by children, then self", "%s", lines[1]);
	check(!rt_strcmp(lines[5], "PSTACK abi=x86_64 test=lat_syscall name=null n=7 "
			 "stack=main_[u];entry;do_syscall;memchr_inv\n"),
	      "emit: PSTACK folded root first, largest first", "%s", lines[5]);
	fold_free(&f);

	/* Bounds: 300 functions, 200 stacks. */
	check(fold_init(&f, 300, 256, 4096) == 0, "fold: init (bounds)", "ENOMEM");
	for (uint32_t k = 0; k < 200; k++) {
		uint32_t st[3] = { 0, 4 + k, 4 + 200 - 1 - (k % 96) };
		fold_add(&f, st, 3, 1 + k % 7);
	}
	uint64_t sum = 0;
	nprofile = npfunc = npstack = 0;
	fold_emit(&f, &h, names3, NULL, count_only, &sum);
	check(npfunc == FOLD_MAX_FUNCS && npstack == FOLD_MAX_STACKS, "emit: at most FOLD_MAX_FUNCS (80) PFUNC, FOLD_MAX_STACKS (100) PSTACK",
	      "%d %d", npfunc, npstack);
	nlines = 0;
	fold_emit(&f, &h, names3, NULL, collect, NULL);
	long other = field(lines[0], "stacks_other");
	check(other > 0 && sum + (uint64_t)other == f.samples, "emit: sum(n) + stacks_other == samples",
	      "sum %llu other %ld samples %u", (unsigned long long)sum, other, f.samples);
	/* The cut: no function printed is below it by both counts, none left
	 * out is above it by either, and one left out is at it. */
	{
		long cs = field(lines[0], "cut_self"), cc = field(lines[0], "cut_children");
		uint32_t printed[FOLD_MAX_FUNCS], np = 0;
		int above = 0, at = 0;
		for (int i = 1; i <= FOLD_MAX_FUNCS && i < nlines; i++) {
			const char *fn = rt_strstr(lines[i], "fn=function_with_a_rather_long_name_number_");
			uint64_t id = 0;
			if (fn && rt_parse_u64(fn + rt_strlen("fn=function_with_a_rather_long_name_number_"), &id))
				printed[np++] = (uint32_t)id;
			else if (rt_strstr(lines[i], "fn=main_[u] "))
				printed[np++] = 0;      /* the only one of names3's four used here */
		}
		for (uint32_t id = 0; id < 300; id++) {
			uint32_t k = 0;
			while (k < np && printed[k] != id)
				k++;
			if (k < np || !f.children[id])
				continue;
			above += f.self[id] > (uint32_t)cs || f.children[id] > (uint32_t)cc;
			at += f.self[id] == (uint32_t)cs || f.children[id] == (uint32_t)cc;
		}
		check(np == FOLD_MAX_FUNCS && cs > 0 && cc > 0 && !above && at,
		      "emit: cut_self and cut_children bound every function left out",
		      "printed %u cut %ld %ld above %d at %d", np, cs, cc, above, at);
	}
	fold_free(&f);

	/* A stack too long for one record loses root frames for one "...". */
	static uint32_t deep[300];
	for (uint32_t k = 0; k < 300; k++)
		deep[k] = 4 + k % 250;
	deep[299] = 3;
	check(fold_init(&f, 260, 16, 4096) == 0, "fold: init (deep)", "ENOMEM");
	fold_add(&f, deep, 300, 1);
	nlines = 0;
	fold_emit(&f, &h, names3, NULL, collect, NULL);
	const char *line = lines[nlines - 1], *stack = rt_strstr(line, " stack=");
	size_t len = rt_strlen(line);
	check(len <= FOLD_LINE_MAX && len > FOLD_LINE_MAX - 60, "emit: a deep stack fills one record",
	      "%zu bytes", len);
	check(stack && rt_starts_with(stack, " stack=...;function_"), "emit: its root frames become ...",
	      "%.60s", stack ? stack : line);
	check(len > 12 && !rt_strcmp(line + len - 12, ";memchr_inv\n"), "emit: its leaf kept", "%s",
	      line + len - 20);
	fold_free(&f);

	check(fold_escaped_len("a%b c") == 9, "escape: %% and space count 3", "%zu",
	      fold_escaped_len("a%b c"));
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	check_kallsyms();
	check_elf();
	check_records();
	check_fold();
	return selftest_done();
}
