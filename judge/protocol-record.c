/*
 * protocol-record.c: the result protocol's record format on the host
 * (initramfs/PROTOCOL.md; contracts in protocol.h): the names of kinds and
 * problems, the strict number and list parsers, the encoder (the tests'
 * guest stand-in) and the field lookups. The decoder is protocol.c.
 *
 * The file reads top-down:
 *   1. names of kinds and problems;
 *   2. strict number parsers and the encoder (shared with tests);
 *   lookups of a record's fields.
 */
#include "protocol-internal.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---- 1. names ---------------------------------------------------------- */

static const char *const kind_names[] = {
	[PROTO_KIND_BEGIN] = "BEGIN",     [PROTO_KIND_SYSINFO] = "SYSINFO",
	[PROTO_KIND_ABI] = "ABI",         [PROTO_KIND_PLAN] = "PLAN",
	[PROTO_KIND_TEST] = "TEST",       [PROTO_KIND_METRIC] = "METRIC",
	[PROTO_KIND_LOG] = "LOG",         [PROTO_KIND_RESULT] = "RESULT",
	[PROTO_KIND_ERROR] = "ERROR",     [PROTO_KIND_END] = "END",
	[PROTO_KIND_PROVOKE] = "PROVOKE", [PROTO_KIND_PROFILE] = "PROFILE",
	[PROTO_KIND_PFUNC] = "PFUNC",     [PROTO_KIND_PSTACK] = "PSTACK",
	[PROTO_KIND_BOOTTIME] = "BOOTTIME", [PROTO_KIND_INITCALLS] = "INITCALLS",
	[PROTO_KIND_PERFSTAT] = "PERFSTAT",
	[PROTO_KIND_UNKNOWN] = "UNKNOWN",
};

static const char *const problem_names[] = {
	[PROTO_CORRUPT] = "corrupt",         [PROTO_REPAIRED] = "repaired",
	[PROTO_LOST] = "lost",               [PROTO_DUPLICATE] = "duplicate",
	[PROTO_REORDERED] = "reordered",     [PROTO_BAD_VERSION] = "version",
	[PROTO_UNKNOWN_KIND] = "unknown_kind",
	[PROTO_COUNT_MISMATCH] = "count_mismatch",
	[PROTO_TRUNCATED] = "truncated",     [PROTO_RESTART] = "restart",
	[PROTO_AFTER_END] = "after_end",     [PROTO_DUPLICATE_METRIC] = "duplicate_metric",
};

/* The name of kind k ("METRIC"); "UNKNOWN" for anything out of range. */
const char *proto_kind_name(enum proto_kind k)
{
	if ((unsigned)k > PROTO_KIND_UNKNOWN)
		k = PROTO_KIND_UNKNOWN;
	return kind_names[k];
}

/* The name of problem kind k ("corrupt"), "?" when out of range. */
const char *proto_problem_name(enum proto_problem_kind k)
{
	if ((unsigned)k >= PROTO_PROBLEM_COUNT)
		return "?";
	return problem_names[k];
}

/* The kind of the word w of length n (PROTO_KIND_UNKNOWN if none). */
enum proto_kind proto_kind_from_word(const char *w, size_t n)
{
	for (int k = 0; k < PROTO_KIND_UNKNOWN; k++)
		if (strlen(kind_names[k]) == n && !memcmp(kind_names[k], w, n))
			return (enum proto_kind)k;
	return PROTO_KIND_UNKNOWN;
}

/* ---- 2. numbers, lists, encoder ---------------------------------------- */


/* Decimal digits only into *out; false on "", a non-digit or overflow. */
bool proto_parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return false;
	for (const char *p = s; *p; p++) {
		if (!proto_is_digit(*p))
			return false;
		unsigned digit = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - digit) / 10)
			return false;
		v = v * 10 + digit;
	}
	*out = v;
	return true;
}

/* An optional '-' then digits, within int64_t. */
bool proto_parse_i64(const char *s, int64_t *out)
{
	uint64_t v;
	bool neg = s && *s == '-';

	if (!proto_parse_u64(neg ? s + 1 : s, &v))
		return false;
	if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)
		return false;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

/* Length of a [-]digits[.digits] number at the start of s (0: none). */
static size_t decimal_span(const char *s)
{
	size_t i = 0, digits;

	if (s[i] == '-')
		i++;
	digits = i;
	while (proto_is_digit(s[i]))
		i++;
	if (i == digits)
		return 0;
	if (s[i] == '.') {
		size_t frac = ++i;
		while (proto_is_digit(s[i]))
			i++;
		if (i == frac)
			return 0;
	}
	return i;
}

/* Parses the decimal number in s[0..n) (which decimal_span accepted). */
static bool span_to_double(const char *s, size_t n, double *out)
{
	char tmp[64];
	char *end;
	double v;

	if (n >= sizeof(tmp)) {
		/* Very long numbers are legal; copy them to the heap. */
		char *big = xmalloc(n + 1);
		memcpy(big, s, n);
		big[n] = '\0';
		v = strtod(big, &end);
		free(big);
	} else {
		memcpy(tmp, s, n);
		tmp[n] = '\0';
		v = strtod(tmp, &end);
	}
	if (!isfinite(v))
		return false;
	*out = v;
	return true;
}

/* [-]digits[.digits], finite; nothing else. */
bool proto_parse_double(const char *s, double *out)
{
	size_t n;

	if (!s)
		return false;
	n = decimal_span(s);
	if (n == 0 || s[n] != '\0')
		return false;
	return span_to_double(s, n, out);
}

/* A comma list of numbers into a malloc'd array (see protocol.h). */
bool proto_parse_list(const char *s, double **out, size_t *n)
{
	size_t count = 1, i = 0;
	double *v;

	*out = NULL;
	*n = 0;
	if (!s)
		return false;
	if (!*s)
		return true;
	for (const char *p = s; *p; p++)
		count += *p == ',';
	v = xmalloc(count * sizeof(*v));
	for (const char *p = s;; p++) {
		size_t len = decimal_span(p);
		if (len == 0 || (p[len] != ',' && p[len] != '\0') ||
		    !span_to_double(p, len, &v[i])) {
			free(v);
			return false;
		}
		i++;
		p += len;
		if (*p == '\0')
			break;
	}
	*out = v;
	*n = i;
	return true;
}

/* Comma-separated words into a NULL-ended array (see protocol.h). */
char **proto_split_words(const char *s, size_t *n)
{
	size_t count = 0, i = 0;
	char **words;

	if (s && *s) {
		count = 1;
		for (const char *p = s; *p; p++)
			count += *p == ',';
	}
	words = xcalloc(count + 1, sizeof(*words));
	for (const char *p = s; i < count; i++) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		words[i] = xmalloc(len + 1);
		memcpy(words[i], p, len);
		words[i][len] = '\0';
		p += len + 1;
	}
	if (n)
		*n = count;
	return words;
}

/* Frees what proto_split_words returned (NULL is fine). */
void proto_free_words(char **words)
{
	if (!words)
		return;
	for (char **w = words; *w; w++)
		free(*w);
	free(words);
}

static const char hex_upper[] = "0123456789ABCDEF";

/* A value byte the protocol writes as itself (not %XX). */
static bool is_plain_value_byte(unsigned char c)
{
	return c >= 0x21 && c <= 0x7e && c != '%';
}

/* One record line into buf (see protocol.h); 0 when it does not fit. */
size_t proto_encode(char *buf, size_t size, uint64_t seq, const char *kind,
		    const char *const *fields)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len = 0;

	if (size == 0)
		return 0;
	strbuf_addf(&sb, PROTO_PREFIX "%d %llu %s", PROTO_VERSION,
		    (unsigned long long)seq, kind);
	for (size_t i = 0; fields && fields[i] && fields[i + 1]; i += 2) {
		strbuf_addf(&sb, " %s=", fields[i]);
		for (const unsigned char *v = (const unsigned char *)fields[i + 1]; *v; v++) {
			if (is_plain_value_byte(*v)) {
				strbuf_add(&sb, v, 1);
			} else {
				char esc[3] = { '%', hex_upper[*v >> 4], hex_upper[*v & 15] };
				strbuf_add(&sb, esc, 3);
			}
		}
	}
	uLong crc = crc32(0L, (const Bytef *)sb.buf, (uInt)sb.len);
	strbuf_addf(&sb, " *%08lx\n", crc);
	if (sb.len <= PROTO_MAX_LINE && sb.len < size) {
		memcpy(buf, sb.buf, sb.len + 1);
		len = sb.len;
	}
	strbuf_release(&sb);
	return len;
}

/* ---- lookups ----------------------------------------------------------- */

/* The first field named key (a linear scan: records hold few fields), or NULL. */
static const struct proto_field *field_of(const struct proto_record *rec, const char *key)
{
	for (size_t i = 0; i < rec->nfields; i++)
		if (!strcmp(rec->fields[i].key, key))
			return &rec->fields[i];
	return NULL;
}

const char *proto_get(const struct proto_record *rec, const char *key)
{
	const struct proto_field *f = field_of(rec, key);
	return f ? f->value : NULL;
}

/* A field's value when it holds no NUL byte (see protocol.h). */
const char *proto_get_text(const struct proto_record *rec, const char *key)
{
	const struct proto_field *f = field_of(rec, key);
	return f && !memchr(f->value, '\0', f->value_len) ? f->value : NULL;
}

/* A field parsed with proto_parse_u64(). */
bool proto_get_u64(const struct proto_record *rec, const char *key, uint64_t *out)
{
	return proto_parse_u64(proto_get(rec, key), out);
}

/* A field parsed with proto_parse_double(). */
bool proto_get_double(const struct proto_record *rec, const char *key, double *out)
{
	return proto_parse_double(proto_get(rec, key), out);
}
