/*
 * lognorm.c: console line normalization, logs as arrays of lines, their
 * multiset difference, and the string count table both use (see lognorm.h).
 *
 * Layout: the count table; the scanners for each kind of noise (each one
 * looks at a word start and either appends a placeholder and returns how
 * many bytes it consumed, or returns 0); protocol records; the line
 * normalizer that strings them together; logs and their difference.
 */
#include "lognorm.h"
#include "console.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ---- The count table: open addressing, FNV-1a, insertion order --------- */

struct line_counts {
	char **keys;            /* insertion order */
	unsigned *values;
	size_t n;
	size_t *slots;          /* index + 1 into keys, 0 when empty */
	size_t nslots;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

struct line_counts *line_counts_new(void)
{
	struct line_counts *t = xcalloc(1, sizeof(*t));
	t->nslots = 64;
	t->slots = xcalloc(t->nslots, sizeof(*t->slots));
	return t;
}

void line_counts_free(struct line_counts *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->keys[i]);
	free(t->keys), free(t->values), free(t->slots), free(t);
}

/* The slot holding key, or the empty slot where it would go. */
static size_t *find_slot(const struct line_counts *t, const char *key)
{
	size_t i = hash_str(key) & (t->nslots - 1);
	while (t->slots[i] && strcmp(t->keys[t->slots[i] - 1], key))
		i = (i + 1) & (t->nslots - 1);
	return &t->slots[i];
}

static void grow(struct line_counts *t)
{
	free(t->slots);
	t->nslots *= 2;
	t->slots = xcalloc(t->nslots, sizeof(*t->slots));
	for (size_t i = 0; i < t->n; i++)
		*find_slot(t, t->keys[i]) = i + 1;
}

unsigned line_counts_add(struct line_counts *t, const char *key, unsigned delta)
{
	size_t *slot = find_slot(t, key);
	if (*slot)
		return t->values[*slot - 1] += delta;
	t->keys = xrealloc(t->keys, (t->n + 1) * sizeof(*t->keys));
	t->values = xrealloc(t->values, (t->n + 1) * sizeof(*t->values));
	t->keys[t->n] = xstrdup(key);
	t->values[t->n] = delta;
	*slot = ++t->n;
	if (2 * t->n > t->nslots)
		grow(t);
	return delta;
}

unsigned line_counts_get(const struct line_counts *t, const char *key)
{
	size_t *slot = find_slot(t, key);
	return *slot ? t->values[*slot - 1] : 0;
}

/* Takes one from key's count if it is positive; returns whether it did. */
static bool line_counts_take(struct line_counts *t, const char *key)
{
	size_t *slot = find_slot(t, key);
	if (!*slot || t->values[*slot - 1] == 0)
		return false;
	t->values[*slot - 1]--;
	return true;
}

size_t line_counts_size(const struct line_counts *t) { return t->n; }
const char *line_counts_key(const struct line_counts *t, size_t i) { return t->keys[i]; }
unsigned line_counts_value(const struct line_counts *t, size_t i) { return t->values[i]; }

/* ---- Scanners: each at a word start, returns the bytes consumed or 0 --- */

static bool is_word(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static size_t count_digits(const char *p, const char *end)
{
	size_t n = 0;
	while (p + n < end && isdigit((unsigned char)p[n]))
		n++;
	return n;
}

static size_t count_hex(const char *p, const char *end)
{
	size_t n = 0;
	while (p + n < end && isxdigit((unsigned char)p[n]))
		n++;
	return n;
}

/* Does [p, end) start with exactly `len` hex digits followed by `sep`? */
static bool hex_group(const char *p, const char *end, size_t len, char sep)
{
	if (count_hex(p, end) != len)
		return false;
	return sep ? p + len < end && p[len] == sep : p + len == end || !is_word(p[len]);
}

/* 8-4-4-4-12 UUIDs (random boot ids, filesystem ids). */
static size_t scan_uuid(const char *p, const char *end, struct strbuf *out)
{
	if (end - p < 36 || !hex_group(p, end, 8, '-') || !hex_group(p + 9, end, 4, '-') ||
	    !hex_group(p + 14, end, 4, '-') || !hex_group(p + 19, end, 4, '-') ||
	    !hex_group(p + 24, end, 12, 0))
		return 0;
	strbuf_addstr(out, "<uuid>");
	return 36;
}

/* Dates and times of day: 2026-11-29T23:30:00 or 23:30:00. */
static size_t scan_datetime(const char *p, const char *end, struct strbuf *out)
{
	size_t n = 0;
	if (end - p >= 11 && count_digits(p, end) == 4 && p[4] == '-' &&
	    count_digits(p + 5, end) == 2 && p[7] == '-' && count_digits(p + 8, end) == 2 &&
	    (p[10] == 'T' || p[10] == ' '))
		n = 11;
	const char *t = p + n;
	if (end - t < 8 || count_digits(t, end) != 2 || t[2] != ':' ||
	    count_digits(t + 3, end) != 2 || t[5] != ':' || count_digits(t + 6, end) != 2)
		return 0;
	n += 8;
	if (p + n < end && p[n] == '.')
		n += 1 + count_digits(p + n + 1, end);
	strbuf_addstr(out, "<time>");
	return n;
}

/* 0x-prefixed hex values, and bare hex words of 8 digits or more. */
static size_t scan_hex(const char *p, const char *end, struct strbuf *out)
{
	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
		strbuf_addstr(out, "0x#");
		return 2 + count_hex(p + 2, end);
	}
	size_t n = count_hex(p, end);
	if (n >= 8 && (p + n == end || !is_word(p[n]))) {
		strbuf_addstr(out, "#h");
		return n;
	}
	return 0;
}

/* Units after a number that make it a measurement, not an identity. */
static const char *const noisy_units[] = {
	"ns", "nsec", "nsecs", "us", "usec", "usecs", "\xc2\xb5s", "ms", "msec", "msecs",
	"s", "sec", "secs", "seconds", "jiffies", "MHz", "GHz", "kHz", "BogoMIPS", "MB/s",
	"cycles",
};

/*
 * A decimal number: with a noisy unit after it ("took 12 ms", "1.23 s",
 * "in 45us", "4991.99 BogoMIPS") it becomes "# unit"; a bare integer of 6
 * digits or more (counters, calibration values, epoch seconds) becomes "#";
 * else it is kept.
 */
static size_t scan_number(const char *p, const char *end, struct strbuf *out)
{
	size_t n = count_digits(p, end);
	if (n == 0)
		return 0;
	size_t intlen = n;
	if (p + n + 1 < end && p[n] == '.' && isdigit((unsigned char)p[n + 1]))
		n += 1 + count_digits(p + n + 1, end);
	size_t gap = p + n < end && p[n] == ' ' ? 1 : 0;
	for (size_t u = 0; u < ARRAY_SIZE(noisy_units); u++) {
		size_t ulen = strlen(noisy_units[u]);
		const char *q = p + n + gap;
		if (end - q >= (ptrdiff_t)ulen && !memcmp(q, noisy_units[u], ulen) &&
		    (q + ulen == end || !is_word(q[ulen]))) {
			strbuf_addf(out, "#%s%s", gap ? " " : "", noisy_units[u]);
			return n + gap + ulen;
		}
	}
	if (intlen >= 6 && n == intlen && (p + n == end || !is_word(p[n]))) {
		strbuf_addstr(out, "#");
		return n;
	}
	return 0;
}

/* "pid 123", "PID: 123", "pid=123": the word kept, the number replaced. */
static size_t scan_pid(const char *p, const char *end, struct strbuf *out)
{
	if (end - p < 4 || strncasecmp(p, "pid", 3) || is_word(p[3]))
		return 0;
	size_t n = 3;
	while (p + n < end && (p[n] == ':' || p[n] == '=' || p[n] == ' '))
		n++;
	size_t d = count_digits(p + n, end);
	if (d == 0 || (p + n + d < end && is_word(p[n + d])))
		return 0;
	strbuf_add(out, p, n);
	strbuf_addstr(out, "#");
	return n + d;
}

/* "lpj=123456", "audit(1732912345.123:1)", "Memory: 248572K/" (what is
 * left free depends on timing: early allocations vary). */
static size_t scan_keyed(const char *p, const char *end, struct strbuf *out)
{
	if (end - p > 8 && !memcmp(p, "Memory: ", 8) && count_digits(p + 8, end)) {
		size_t d = count_digits(p + 8, end);
		if (p + 8 + d < end && p[8 + d] == 'K') {
			strbuf_addstr(out, "Memory: #K");
			return 8 + d + 1;
		}
	}
	if (end - p > 4 && !memcmp(p, "lpj=", 4) && count_digits(p + 4, end)) {
		strbuf_addstr(out, "lpj=#");
		return 4 + count_digits(p + 4, end);
	}
	if (end - p > 6 && !memcmp(p, "audit(", 6)) {
		const char *close = memchr(p, ')', (size_t)(end - p));
		if (close) {
			strbuf_addstr(out, "audit(#)");
			return (size_t)(close - p) + 1;
		}
	}
	return 0;
}

/* A task's PID after its name: "systemd[1]", "init[1]:". */
static size_t scan_bracket_pid(const char *p, const char *end, struct strbuf *out)
{
	size_t d = count_digits(p + 1, end);
	if (p[0] != '[' || d == 0 || p + 1 + d >= end || p[1 + d] != ']')
		return 0;
	strbuf_addstr(out, "[#]");
	return d + 2;
}

typedef size_t (*scanner)(const char *p, const char *end, struct strbuf *out);

static const scanner word_scanners[] = {
	scan_uuid, scan_datetime, scan_keyed, scan_pid, scan_number, scan_hex,
};

/* ---- Protocol records ------------------------------------------------- */

/* Is the value a number or a list of numbers (a measurement)? */
static bool numeric_value(const char *v, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)v[i]) && !strchr("+-.,", v[i]))
			return false;
	return true;
}

/*
 * "@@BR 1 <seq> KIND k=v ... *crc": the sequence number, every numeric
 * value and the CRC vary with the numbers; the record's shape is kept.
 */
static void normalize_record(const char *p, const char *end, struct strbuf *out)
{
	int field = 0;
	while (p < end) {
		while (p < end && *p == ' ')
			p++;
		const char *tok = p;
		while (p < end && *p != ' ')
			p++;
		size_t len = (size_t)(p - tok);
		if (len == 0)
			break;
		if (tok[0] == '*' && p == end)
			break;          /* the CRC */
		if (field++)
			strbuf_addstr(out, " ");
		const char *eq = memchr(tok, '=', len);
		if (field == 3)
			strbuf_addstr(out, "#");
		else if (eq && numeric_value(eq + 1, (size_t)(p - eq - 1))) {
			strbuf_add(out, tok, (size_t)(eq - tok) + 1);
			strbuf_addstr(out, "#");
		} else
			strbuf_add(out, tok, len);
	}
}

/* ---- The line normalizer ---------------------------------------------- */

/* Appends line without \r, NUL, ANSI escape sequences or other controls
 * (console.h's rule, tabs kept). */
static void strip_controls(const char *line, size_t len, struct strbuf *clean)
{
	strbuf_grow(clean, len);
	clean->len += console_clean(line, len, clean->buf + clean->len, true);
	clean->buf[clean->len] = '\0';
}

/* Length of a leading "<6>[    1.234567] " (and "[    T1] ", and the
 * spaces after), console.h's printk prefix; 0 when it has no time. */
static size_t timestamp_prefix(const char *p, const char *end)
{
	size_t n = (size_t)(end - p);
	double ts;
	const char *q = console_strip_prefix(p, &n, &ts);
	if (ts < 0)
		return 0;
	while (q < end && *q == ' ')
		q++;
	return (size_t)(q - p);
}

/*
 * Normalizes [p, end) (no timestamp, no record) word by word: the scanners
 * run where a word starts (after a character that is neither a word
 * character nor a '.', so "6.1.192" is never cut in the middle).
 */
static void normalize_text(const char *start, const char *end, struct strbuf *out)
{
	for (const char *p = start; p < end;) {
		char prev = p > start ? p[-1] : ' ';
		size_t used = 0;
		if (!is_word(prev) && prev != '.')
			for (size_t s = 0; s < ARRAY_SIZE(word_scanners) && !used; s++)
				used = word_scanners[s](p, end, out);
		if (!used && *p == '[' && is_word(prev))
			used = scan_bracket_pid(p, end, out);
		if (!used) {
			/* a whole word at once, so scanners only see word starts */
			used = 1;
			if (is_word(*p))
				while (p + used < end && is_word(p[used]))
					used++;
			strbuf_add(out, p, used);
		}
		p += used;
	}
}

/* "(#, -#)" -> "(#, #)": a sign is noise once its number is gone. */
static void drop_signs(struct strbuf *sb)
{
	size_t w = 0;
	for (size_t r = 0; r < sb->len; r++) {
		if (sb->buf[r] == '-' && r + 1 < sb->len && sb->buf[r + 1] == '#' &&
		    (r == 0 || !is_word(sb->buf[r - 1])) &&
		    (r + 2 >= sb->len || !is_word(sb->buf[r + 2]) || sb->buf[r + 2] == 'h'))
			continue;
		sb->buf[w++] = sb->buf[r];
	}
	sb->len = w;
	sb->buf[w] = '\0';
}

void lognorm_clean(const char *line, size_t len, struct strbuf *out)
{
	out->len = 0;
	strbuf_add(out, "", 0);
	strip_controls(line, len, out);
}

/*
 * Messages whose presence or wording depends on how fast the (virtual)
 * machine happened to run, not on the kernel: clock calibration and the
 * x86 timer-IRQ probe, the clocksource watchdog, and real-mode output
 * that the kernel's first lines cut. A virtualized or loaded host changes them from boot to boot, so
 * they normalize to nothing.
 */
static const char *const timing_messages[] = {
	"tsc: ", "..MP-BIOS bug: 8254 timer", "...trying to set up timer", "..... (found apic",
	"....... works.", "....... failed", "APIC delta adjusted to PM-Timer", "hrtimer: interrupt took",
	"clocksource: timekeeping watchdog", "clocksource: '", "clocksource: Checking clocksource",
	"Probing EDD (edd=off to disable)", "sched_clock: Marking stable",
	/* the clocksource watchdog giving up on the TSC when the host stalls */
	"hpet: Lost ", "clocksource:  ", "TSC found unstable after boot", "sched_clock: Marking unstable",
	"clocksource: Not enough CPUs to check", "clocksource: Switched to clocksource",
	"Unstable clock detected, switching default tracing clock",
	"If you want to keep using the local clock", "\"trace_clock=local\"", "on the kernel command line",
};

static bool timing_message(const char *p, const char *end)
{
	for (size_t i = 0; i < ARRAY_SIZE(timing_messages); i++) {
		size_t n = strlen(timing_messages[i]);
		if ((size_t)(end - p) >= n && !memcmp(p, timing_messages[i], n))
			return true;
	}
	return false;
}

void lognorm_line(const char *line, size_t len, struct strbuf *out)
{
	struct strbuf clean = STRBUF_INIT;
	strip_controls(line, len, &clean);
	out->len = 0;
	strbuf_add(out, "", 0);
	const char *p = clean.buf ? clean.buf : "", *end = p + clean.len;
	p += timestamp_prefix(p, end);
	p += timestamp_prefix(p, end);  /* a console.tlog line: host time, then printk's */
	if (timing_message(p, end))
		p = end;
	const char *record = clean.len ? memmem(p, (size_t)(end - p), "@@BR ", 5) : NULL;
	normalize_text(p, record ? record : end, out);
	if (record)
		normalize_record(record, end, out);
	while (out->len && (out->buf[out->len - 1] == ' ' || out->buf[out->len - 1] == '\t'))
		out->buf[--out->len] = '\0';
	drop_signs(out);
	strbuf_release(&clean);
}

/* ---- Logs --------------------------------------------------------------- */

/* Offset of the first printk timestamp after the start of line, or len. */
static size_t embedded_timestamp(const char *line, size_t len)
{
	for (size_t i = 1; i < len; i++)
		if (line[i] == '[' && timestamp_prefix(line + i, line + len))
			return i;
	return len;
}

static void log_add(struct log *log, size_t *alloc, const char *line, size_t len,
		    size_t lineno, struct strbuf *norm)
{
	if (log->n == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 256;
		log->raw = xrealloc(log->raw, *alloc * sizeof(*log->raw));
		log->norm = xrealloc(log->norm, *alloc * sizeof(*log->norm));
		log->lineno = xrealloc(log->lineno, *alloc * sizeof(*log->lineno));
	}
	lognorm_line(line, len, norm);
	log->raw[log->n] = xasprintf("%.*s", (int)len, line);
	log->norm[log->n] = xstrdup(norm->buf);
	log->lineno[log->n++] = lineno;
}

/* Hands physical line lineno, s[0..n), to fn as its logical lines: cut
 * where a printk stamp stands in its middle (a message cut into another). */
static void split_line(const char *s, size_t n, size_t lineno, log_line_fn *fn, void *ctx)
{
	size_t start = 0;
	do {
		size_t cut = embedded_timestamp(s + start, n - start);
		fn(ctx, s + start, cut, lineno);
		start += cut;
	} while (start < n);
}

/* log_parse's line callback: one more line of the log. */
struct parse_ctx {
	struct log *log;
	size_t alloc;
	struct strbuf norm;
};

static void parse_one(void *ctx, const char *line, size_t len, size_t lineno)
{
	struct parse_ctx *c = ctx;
	log_add(c->log, &c->alloc, line, len, lineno, &c->norm);
}

void log_parse(struct log *log, const char *text, size_t len)
{
	*log = (struct log){ 0 };
	struct parse_ctx c = { log, 0, STRBUF_INIT };
	size_t lineno = 0;
	for (size_t start = 0; start < len;) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t stop = nl ? (size_t)(nl - text) : len;
		split_line(text + start, stop - start, ++lineno, parse_one, &c);
		start = stop + 1;
	}
	strbuf_release(&c.norm);
}

int log_each_line(const char *path, uint64_t max_bytes, log_line_fn *fn, void *ctx,
		  struct log_read *st)
{
	*st = (struct log_read){ 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char *buf = xmalloc(LOG_CHUNK);
	struct strbuf line = STRBUF_INIT;       /* a line that spans chunks: its head */
	bool long_line = false;                 /* the current line was cut */
	size_t lineno = 0;
	int rc = 0;
	for (;;) {
		size_t want = max_bytes - st->bytes < LOG_CHUNK ? (size_t)(max_bytes - st->bytes)
								: LOG_CHUNK;
		ssize_t r = want ? read(fd, buf, want) : 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -1;
			break;
		}
		if (r == 0) {
			if (want == 0) {
				char probe;
				st->cut = read(fd, &probe, 1) == 1;
			}
			break;
		}
		st->bytes += (uint64_t)r;
		for (const char *p = buf, *end = buf + r; p < end;) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
			if (nl && !line.len && !long_line && n <= LOG_LINE_MAX) {
				split_line(p, n, ++lineno, fn, ctx);    /* in place: most lines */
			} else {
				size_t room = LOG_LINE_MAX - line.len;
				strbuf_add(&line, p, n < room ? n : room);
				long_line = long_line || n > room;
				if (nl) {
					st->lines_cut += long_line;
					split_line(line.buf, line.len, ++lineno, fn, ctx);
					line.len = 0;
					long_line = false;
				}
			}
			p += n + (nl != NULL);
		}
	}
	if (rc == 0 && (line.len || long_line)) {
		st->lines_cut += long_line;
		split_line(line.buf, line.len, ++lineno, fn, ctx);
	}
	int saved = errno;
	strbuf_release(&line);
	free(buf);
	close(fd);
	errno = saved;
	return rc;
}

int log_load(struct log *log, const char *path)
{
	char *text;
	size_t len;
	if (read_file_max(path, &text, &len, LOG_MAX_BYTES) < 0)
		return -1;
	log_parse(log, text, len);
	free(text);
	return 0;
}

void log_free(struct log *log)
{
	for (size_t i = 0; i < log->n; i++)
		free(log->norm[i]), free(log->raw[i]);
	free(log->norm), free(log->raw), free(log->lineno);
	*log = (struct log){ 0 };
}

/* Marks the lines of a that find no partner among b's. */
static void unpaired(const struct log *a, const struct log *b, bool *only_a)
{
	struct line_counts *counts = line_counts_new();
	for (size_t i = 0; i < b->n; i++)
		if (b->norm[i][0])
			line_counts_add(counts, b->norm[i], 1);
	for (size_t i = 0; i < a->n; i++)
		only_a[i] = a->norm[i][0] && !line_counts_take(counts, a->norm[i]);
	line_counts_free(counts);
}

void log_diff(const struct log *a, const struct log *b, bool *only_a, bool *only_b)
{
	unpaired(a, b, only_a);
	unpaired(b, a, only_b);
}

/* ---- Pairs of line multisets in bounded memory ------------------------- */

/* One distinct normalized line: its hash, how many times each side has it,
 * and how many of those a listing pass has taken. */
struct pair_entry {
	uint64_t hash;                  /* 0: an empty slot */
	uint32_t count[2], seen[2];
};

struct line_pairs {
	struct pair_entry *slots;
	size_t nslots, n;
	int build;                      /* the side whose lines make the entries */
	size_t unpaired[2];             /* lines of a side that have no entry */
	bool full;                      /* LOG_MAX_DISTINCT reached */
};

/* The line's hash (FNV-1a, never 0). */
static uint64_t pair_hash(const char *norm)
{
	uint64_t h = hash_str(norm);
	return h ? h : 1;
}

/* The slot of hash h, or the empty one where it would go. */
static struct pair_entry *pair_slot(const struct line_pairs *p, uint64_t h)
{
	size_t i = (size_t)(h * 0x9e3779b97f4a7c15ull) & (p->nslots - 1);
	while (p->slots[i].hash && p->slots[i].hash != h)
		i = (i + 1) & (p->nslots - 1);
	return &p->slots[i];
}

struct line_pairs *line_pairs_new(int build_side)
{
	struct line_pairs *p = xcalloc(1, sizeof(*p));
	p->nslots = 1024;
	p->slots = xcalloc(p->nslots, sizeof(*p->slots));
	p->build = build_side;
	return p;
}

void line_pairs_free(struct line_pairs *p)
{
	if (!p)
		return;
	free(p->slots);
	free(p);
}

/* Doubles the table (at half load). */
static void pairs_grow(struct line_pairs *p)
{
	struct line_pairs bigger = *p;
	bigger.nslots = 2 * p->nslots;
	bigger.slots = xcalloc(bigger.nslots, sizeof(*bigger.slots));
	for (size_t i = 0; i < p->nslots; i++)
		if (p->slots[i].hash)
			*pair_slot(&bigger, p->slots[i].hash) = p->slots[i];
	free(p->slots);
	*p = bigger;
}

void line_pairs_count(struct line_pairs *p, int side, const char *norm)
{
	if (!norm[0])
		return;
	uint64_t h = pair_hash(norm);
	struct pair_entry *e = pair_slot(p, h);
	if (!e->hash) {
		if (side != p->build || p->n >= LOG_MAX_DISTINCT) {
			p->full = p->full || side == p->build;
			p->unpaired[side]++;
			return;
		}
		e->hash = h;
		p->n++;
		if (2 * p->n > p->nslots) {
			pairs_grow(p);
			e = pair_slot(p, h);
		}
	}
	e->count[side]++;
}

size_t line_pairs_only(const struct line_pairs *p, int side)
{
	size_t n = p->unpaired[side];
	for (size_t i = 0; i < p->nslots; i++) {
		const struct pair_entry *e = &p->slots[i];
		if (e->hash && e->count[side] > e->count[!side])
			n += e->count[side] - e->count[!side];
	}
	return n;
}

bool line_pairs_take(struct line_pairs *p, int side, const char *norm)
{
	if (!norm[0])
		return false;
	struct pair_entry *e = pair_slot(p, pair_hash(norm));
	if (!e->hash)
		return true;
	return ++e->seen[side] > e->count[!side];
}

bool line_pairs_full(const struct line_pairs *p)
{
	return p->full;
}
