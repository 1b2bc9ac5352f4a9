/*
 * judge-boottime.c: the INITCALLS records of a boot timed initcall by
 * initcall (bootrig run --boot-time; initramfs/PROTOCOL.md). init packs
 * the kernel's initcall records into a few records, calls=F:US:RC,...,
 * because each one as a METRIC line would cost the boot being measured
 * its serial console's time; each item is read here as the METRIC of
 * (boot, initcall, F) that it stands for (unit us, lower better, n=1, its
 * usecs every statistic and its one sample) with its return code, and kept
 * like any other METRIC, so result.json, compare, history and bisect see
 * ordinary metrics.
 *
 * An item that does not parse (a name empty, longer than
 * INITCALL_NAME_MAX or holding a NUL byte, usecs not a
 * decimal below 2^63, a return code not a signed decimal of an int) is
 * dropped and counted (j->initcalls_malformed, added to result.json's
 * boot_time.malformed), and so is a name that came before (the guest names
 * a repeated function F#2: the same name twice is not the guest's; the
 * decoder drops a METRIC that comes twice the same way): the guest's own count of what it dropped is in its
 * BOOTTIME record, this is what the line lost on the way. A record's
 * level=NAME (1 to LEVEL_NAME_MAX of [a-z0-9_]: pure, core, ... late,
 * module) is each of its items' metric's level; another level is counted
 * as malformed and its items kept without one.
 */
#include "judge-internal.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

enum { INITCALL_NAME_MAX = 128, LEVEL_NAME_MAX = 15 };

/* The number [s, s+n) holds, read by the protocol's strict parsers
 * (proto_parse_i64 when neg: an optional '-', else proto_parse_u64), into
 * *v; false when it is not one or does not fit an int64. */
static bool span_number(const char *s, size_t n, bool neg, int64_t *v)
{
	char buf[24];
	uint64_t u;
	if (n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (neg)
		return proto_parse_i64(buf, v);
	if (!proto_parse_u64(buf, &u) || u > (uint64_t)INT64_MAX)
		return false;
	*v = (int64_t)u;
	return true;
}

/* Is [s, s+n) a name an item can carry: 1 to INITCALL_NAME_MAX bytes, no
 * NUL (it would cut the name short); any other byte is text like every
 * other guest text, escaped where it is shown. */
static bool initcall_name(const char *s, size_t n)
{
	return n && n <= INITCALL_NAME_MAX && !memchr(s, '\0', n);
}

/* FNV-1a of [s, s+n): a name's key in the seen set (never 0, the empty slot). */
static uint64_t name_key(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h ? h : 1;
}

/* Adds key to j's set of initcall names (open addressing, grown at half
 * full); false when it was there. */
static bool first_time(struct judge *j, uint64_t key)
{
	if (2 * (j->ninitcall_names + 1) > j->initcall_slots) {
		size_t slots = j->initcall_slots ? 2 * j->initcall_slots : 1024;
		uint64_t *t = xcalloc(slots, sizeof(*t));
		for (size_t i = 0; i < j->initcall_slots; i++)
			for (size_t k = j->initcall_names[i] & (slots - 1); j->initcall_names[i];
			     k = (k + 1) & (slots - 1))
				if (!t[k]) {
					t[k] = j->initcall_names[i];
					break;
				}
		free(j->initcall_names);
		j->initcall_names = t, j->initcall_slots = slots;
	}
	size_t k = key & (j->initcall_slots - 1);
	for (; j->initcall_names[k]; k = (k + 1) & (j->initcall_slots - 1))
		if (j->initcall_names[k] == key)
			return false;
	j->initcall_names[k] = key;
	j->ninitcall_names++;
	return true;
}

/* Is v a level's name as init sends it: 1 to LEVEL_NAME_MAX of [a-z0-9_]. */
static bool level_name(const char *v, size_t n)
{
	if (!n || n > LEVEL_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((v[i] >= 'a' && v[i] <= 'z') || (v[i] >= '0' && v[i] <= '9') || v[i] == '_'))
			return false;
	return true;
}

/* Keeps item "F:US:RC" of rec as its METRIC, with level (NULL: none);
 * false when it does not parse or F came before. */
static bool keep_item(struct judge *j, const struct proto_record *rec, const char *level,
		      const char *s, size_t n)
{
	const char *c1 = memchr(s, ':', n), *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(s + n - c1 - 1)) : NULL;
	int64_t us, rc;
	if (!c2 || !initcall_name(s, (size_t)(c1 - s)) ||
	    !span_number(c1 + 1, (size_t)(c2 - c1 - 1), false, &us) ||
	    !span_number(c2 + 1, (size_t)(s + n - c2 - 1), true, &rc) || rc < INT32_MIN ||
	    rc > INT32_MAX || !first_time(j, name_key(s, (size_t)(c1 - s))))
		return false;
	char name[INITCALL_NAME_MAX + 1], v[32], code[16];
	snprintf(name, sizeof(name), "%.*s", (int)(c1 - s), s);
	snprintf(v, sizeof(v), "%lld", (long long)us);
	snprintf(code, sizeof(code), "%lld", (long long)rc);
	const struct proto_field f[] = {
		{ "abi", "boot", 4 },      { "test", "initcall", 8 }, { "name", name, strlen(name) },
		{ "unit", "us", 2 },       { "better", "lower", 5 },  { "n", "1", 1 },
		{ "median", v, strlen(v) }, { "min", v, strlen(v) },  { "max", v, strlen(v) },
		{ "mean", v, strlen(v) },  { "stddev", "0", 1 },      { "samples", v, strlen(v) },
		{ "return_code", code, strlen(code) },
		{ "level", level ? level : "", level ? strlen(level) : 0 },
	};
	struct proto_record m = *rec;
	m.kind = PROTO_KIND_METRIC;
	m.kind_name = "METRIC";
	m.fields = f;
	m.nfields = sizeof(f) / sizeof(*f) - !level;
	m.text_len = n + 64;            /* what it holds, for the kept records' bound */
	judge_keep_record(j, &m);
	return true;
}

void judge_initcalls_record(struct judge *j, const struct proto_record *rec)
{
	const struct proto_field *f = NULL, *lv = NULL;
	for (size_t i = 0; i < rec->nfields; i++)
		if (!strcmp(rec->fields[i].key, "calls") && !f)
			f = &rec->fields[i];
		else if (!strcmp(rec->fields[i].key, "level") && !lv)
			lv = &rec->fields[i];
	if (!f) {
		j->initcalls_malformed++;
		return;
	}
	/* a level that is not a name: the items are kept without one, the
	 * level counted as malformed */
	const char *level = lv && level_name(lv->value, lv->value_len) ? lv->value : NULL;
	if (lv && !level)
		j->initcalls_malformed++;
	/* by its length: an item's NUL byte (%00) drops that item, not the rest */
	const char *s = f->value, *stop = f->value + f->value_len;
	while (s < stop) {
		const char *end = memchr(s, ',', (size_t)(stop - s));
		end = end ? end : stop;
		if (!keep_item(j, rec, level, s, (size_t)(end - s)))
			j->initcalls_malformed++;
		s = end + (end < stop);
	}
}
