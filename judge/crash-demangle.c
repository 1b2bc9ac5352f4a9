/*
 * crash-demangle.c: Rust's symbol names (the v0 mangling, "_R...") as the
 * kernel's stack frames print them, demangled as syzkaller reads a frame
 * (its demangle.Filter): "_RNvMs3_NtCs1_11rust_binder7processNtB5_7Process10update_ref"
 * -> "<rust_binder::process::Process>::update_ref". Paths, inherent and
 * trait impls, closures and shims, back-references, generic arguments and
 * the common types; a name of any other form (punycode, constants, function
 * types) is left as it is.
 */
#include "crash-internal.h"

#include <ctype.h>
#include <stdio.h>

struct demangler {
	const char *sym;        /* after "_R" (back-references count from here) */
	size_t n, pos;
	char *out;
	size_t size, len;
	int depth;
	bool ok;
};

#define DEMANGLE_DEPTH 32

static void put(struct demangler *d, const char *s, size_t n)
{
	if (d->len + n >= d->size) {
		d->ok = false;
		return;
	}
	memcpy(d->out + d->len, s, n);
	d->len += n;
	d->out[d->len] = '\0';
}

static void puts_(struct demangler *d, const char *s)
{
	put(d, s, strlen(s));
}

static bool eat(struct demangler *d, char c)
{
	if (d->pos < d->n && d->sym[d->pos] == c) {
		d->pos++;
		return true;
	}
	return false;
}

static char peek(const struct demangler *d)
{
	return d->pos < d->n ? d->sym[d->pos] : '\0';
}

/* base-62-number: "_" is 0, digits then "_" their value plus one. */
static uint64_t base62(struct demangler *d)
{
	uint64_t v = 0;
	if (eat(d, '_'))
		return 0;
	while (d->ok && d->pos < d->n && d->sym[d->pos] != '_') {
		char c = d->sym[d->pos++];
		int digit = isdigit((unsigned char)c) ? c - '0' : islower((unsigned char)c) ? c - 'a' + 10
			  : isupper((unsigned char)c) ? c - 'A' + 36 : -1;
		if (digit < 0 || v > UINT64_MAX / 62 - 1) {
			d->ok = false;
			return 0;
		}
		v = v * 62 + (uint64_t)digit;
	}
	if (!eat(d, '_'))
		d->ok = false;
	return v + 1;
}

/* An optional disambiguator "s<base-62>": its index (0 when absent). */
static uint64_t disambiguator(struct demangler *d)
{
	return eat(d, 's') ? base62(d) + 1 : 0;
}

/* identifier = [disambiguator] decimal ["_"] bytes; into *id, *idn. */
static void identifier(struct demangler *d, const char **id, size_t *idn)
{
	size_t len = 0;
	*id = "";
	*idn = 0;
	if (peek(d) == 'u' || !isdigit((unsigned char)peek(d))) {
		d->ok = false;  /* punycode names are not read */
		return;
	}
	while (isdigit((unsigned char)peek(d)) && len < 4096)
		len = len * 10 + (size_t)(d->sym[d->pos++] - '0');
	eat(d, '_');
	if (len > d->n - d->pos) {
		d->ok = false;
		return;
	}
	*id = d->sym + d->pos;
	*idn = len;
	d->pos += len;
}

static void path(struct demangler *d, bool in_value);
static void type(struct demangler *d);

/* A back-reference: what is at that earlier position, read again. */
static void backref(struct demangler *d, void (*read)(struct demangler *, bool), bool arg)
{
	size_t at = d->pos - 1;
	uint64_t target = base62(d);
	if (!d->ok || target >= at) {
		d->ok = false;
		return;
	}
	size_t saved = d->pos;
	d->pos = (size_t)target;
	read(d, arg);
	d->pos = saved;
}

static void type_as_path(struct demangler *d, bool unused)
{
	(void)unused;
	type(d);
}

/* Items up to "E", comma-separated between open and close: types, and in
 * generic arguments (generic) lifetimes too. */
static void type_list(struct demangler *d, const char *open, const char *close, bool generic)
{
	bool first = true;
	puts_(d, open);
	while (d->ok && !eat(d, 'E')) {
		if (!first)
			puts_(d, ", ");
		first = false;
		if (generic && eat(d, 'L')) {
			base62(d);
			puts_(d, "'_");
		} else if (generic && peek(d) == 'K') {
			d->ok = false;  /* constants are not read */
		} else {
			type(d);
		}
		if (d->pos >= d->n)
			d->ok = false;
	}
	puts_(d, close);
}

static void type(struct demangler *d)
{
	static const char *const basic[26] = {
		['a' - 'a'] = "i8", ['b' - 'a'] = "bool", ['c' - 'a'] = "char", ['d' - 'a'] = "f64",
		['e' - 'a'] = "str", ['f' - 'a'] = "f32", ['h' - 'a'] = "u8", ['i' - 'a'] = "isize",
		['j' - 'a'] = "usize", ['l' - 'a'] = "i32", ['m' - 'a'] = "u32", ['n' - 'a'] = "i128",
		['o' - 'a'] = "u128", ['p' - 'a'] = "_", ['s' - 'a'] = "i16", ['t' - 'a'] = "u16",
		['u' - 'a'] = "()", ['v' - 'a'] = "...", ['x' - 'a'] = "i64", ['y' - 'a'] = "u64",
		['z' - 'a'] = "!",
	};
	char c = peek(d);
	if (!d->ok || ++d->depth > DEMANGLE_DEPTH) {
		d->ok = false;
		return;
	}
	if (c >= 'a' && c <= 'z' && basic[c - 'a']) {
		d->pos++;
		puts_(d, basic[c - 'a']);
	} else if (eat(d, 'R') || eat(d, 'Q')) {
		bool mut = d->sym[d->pos - 1] == 'Q';
		if (eat(d, 'L'))
			base62(d);
		puts_(d, mut ? "&mut " : "&");
		type(d);
	} else if (eat(d, 'P') || eat(d, 'O')) {
		puts_(d, d->sym[d->pos - 1] == 'P' ? "*const " : "*mut ");
		type(d);
	} else if (eat(d, 'S')) {
		puts_(d, "[");
		type(d);
		puts_(d, "]");
	} else if (eat(d, 'T')) {
		type_list(d, "(", ")", false);
	} else if (eat(d, 'B')) {
		backref(d, type_as_path, false);
	} else if (c == 'C' || c == 'M' || c == 'X' || c == 'Y' || c == 'N' || c == 'I') {
		path(d, false);
	} else {
		d->ok = false;  /* arrays, function types, dyn traits are not read */
	}
	d->depth--;
}

/* path: crate root, impls, a namespace's member, generics, back-reference. */
static void path(struct demangler *d, bool in_value)
{
	const char *id;
	size_t idn;
	if (!d->ok || ++d->depth > DEMANGLE_DEPTH) {
		d->ok = false;
		return;
	}
	if (eat(d, 'C')) {
		disambiguator(d);
		identifier(d, &id, &idn);
		put(d, id, idn);
	} else if (eat(d, 'M') || eat(d, 'X') || eat(d, 'Y')) {
		/* an inherent impl "<T>", a trait's impl or definition "<T as Trait>";
		 * an impl's own path (its module) is not printed */
		char kind = d->sym[d->pos - 1];
		if (kind != 'Y') {
			disambiguator(d);
			size_t saved = d->len;
			path(d, false);
			d->len = saved;
			d->out[d->len] = '\0';
		}
		puts_(d, "<");
		type(d);
		if (kind != 'M') {
			puts_(d, " as ");
			path(d, false);
		}
		puts_(d, ">");
	} else if (eat(d, 'N')) {
		char ns = peek(d);
		if (!isalpha((unsigned char)ns)) {
			d->ok = false;
			d->depth--;
			return;
		}
		d->pos++;
		path(d, in_value);
		uint64_t dis = disambiguator(d);
		identifier(d, &id, &idn);
		puts_(d, "::");
		if (isupper((unsigned char)ns)) {
			char num[32];
			puts_(d, "{");
			puts_(d, ns == 'C' ? "closure" : ns == 'S' ? "shim" : "");
			if (idn) {
				puts_(d, ":");
				put(d, id, idn);
			}
			snprintf(num, sizeof(num), "#%llu}", (unsigned long long)dis);
			puts_(d, num);
		} else {
			put(d, id, idn);
		}
	} else if (eat(d, 'I')) {
		path(d, in_value);
		if (in_value)
			puts_(d, "::");
		type_list(d, "<", ">", true);
	} else if (eat(d, 'B')) {
		backref(d, path, in_value);
	} else {
		d->ok = false;
	}
	d->depth--;
}

bool crash_demangle_rust(const char *s, size_t n, char *out, size_t size)
{
	if (n < 4 || s[0] != '_' || s[1] != 'R' || !size)
		return false;
	struct demangler d = { .sym = s + 2, .n = n - 2, .out = out, .size = size, .ok = true };
	out[0] = '\0';
	while (isdigit((unsigned char)peek(&d)))
		d.pos++;        /* the encoding version */
	if (!isupper((unsigned char)peek(&d)))
		return false;
	path(&d, true);
	/* an instantiating crate may follow; anything else is no v0 name */
	if (d.ok && d.pos < d.n) {
		size_t saved = d.len;
		path(&d, false);
		d.len = saved;
		out[d.len] = '\0';
	}
	return d.ok && d.pos == d.n && d.len;
}
