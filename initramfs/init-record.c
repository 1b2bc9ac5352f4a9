/*
 * init-record.c: the records init prints (initramfs/PROTOCOL.md):
 * framing, CRC, escaping, and a child's lines framed as records or as LOG
 * (init.h).
 */
#include "init.h"

int out_fd;            /* main sets 1: no initialised datum (below) */
unsigned record_seq;

/* crc32: IEEE 802.3 (zlib's crc32()), bitwise: records are few. */
static uint32_t crc32(const char *p, size_t n)
{
	uint32_t crc = 0xffffffffu;

	while (n--) {
		crc ^= (unsigned char)*p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

void rec_raw(struct record *r, const char *s, size_t n)
{
	/* keep room for " *xxxxxxxx\n" */
	if (r->len + n > RECORD_MAX - 12) {
		n = r->len < RECORD_MAX - 12 ? RECORD_MAX - 12 - r->len : 0;
		r->full = true;
	}
	memcpy(r->buf + r->len, s, n);
	r->len += n;
}

void rec_begin(struct record *r, const char *kind)
{
	r->len = 0;
	r->full = false;
	r->len = (size_t)rt_snprintf(r->buf, sizeof(r->buf), "@@BR 1 %u %s", record_seq, kind);
}

/* rec_value: value escaped: bytes 0x21..0x7e except '%' as they are,
 * anything else as %XX. */
void rec_value(struct record *r, const char *v, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";

	for (size_t i = 0; i < n && !r->full; i++) {
		unsigned char c = (unsigned char)v[i];
		if (c >= 0x21 && c <= 0x7e && c != '%') {
			rec_raw(r, (const char *)&c, 1);
		} else {
			char e[3] = { '%', hex[c >> 4], hex[c & 15] };
			rec_raw(r, e, 3);
		}
	}
}

/* rec_field: " key=<escaped value>" */
void rec_field(struct record *r, const char *key, const char *value)
{
	rec_raw(r, " ", 1);
	rec_raw(r, key, rt_strlen(key));
	rec_raw(r, "=", 1);
	rec_value(r, value, rt_strlen(value));
}

void rec_fieldf(struct record *r, const char *key, const char *fmt, ...)
{
	char v[256];
	va_list ap;

	va_start(ap, fmt);
	rt_vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	rec_field(r, key, v);
}

/* rec_end: appends the CRC and writes the line with one write(2). */
void rec_end(struct record *r)
{
	uint32_t crc = crc32(r->buf, r->len);

	r->len += (size_t)rt_snprintf(r->buf + r->len, RECORD_MAX - r->len, " *%08x\n", crc);
	rt_write_all(out_fd, r->buf, r->len);
	record_seq++;
}

/* log_line: a LOG record for abi/test with text (split over records when
 * longer than one can hold). */
void log_line(const char *abi, const char *test, const char *text, size_t n)
{
	do {
		struct record r;
		size_t chunk = n < 1000 ? n : 1000;

		rec_begin(&r, "LOG");
		rec_field(&r, "abi", abi);
		rec_field(&r, "test", test);
		rec_raw(&r, " text=", 6);
		rec_value(&r, text, chunk);
		rec_end(&r);
		text += chunk;
		n -= chunk;
	} while (n > 0);
}

/* Kinds only init itself may print: a child printing them gets a LOG. */
static bool reserved_kind(const char *kind, size_t n)
{
	static const char *const mine[] = { "BEGIN", "SYSINFO", "ABI", "PLAN", "TEST",
					    "RESULT", "PROVOKE", "ERROR", "END" };

	for (size_t i = 0; i < sizeof(mine) / sizeof(mine[0]); i++)
		if (rt_strlen(mine[i]) == n && rt_strncmp(mine[i], kind, n) == 0)
			return true;
	return false;
}

/* valid_fields: "key=value key=value" with keys [a-z0-9_.]+, one space
 * between fields, values of printable bytes (escaped later if needed). */
static bool valid_fields(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t key = i;
		while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
				 s[i] == '_' || s[i] == '.'))
			i++;
		if (i == key || i >= n || s[i] != '=')
			return false;
		while (i < n && s[i] != ' ')
			i++;
		if (i < n && (++i >= n || s[i] == ' '))
			return false;       /* trailing or double space */
	}
	return true;
}

/* frame_child_line: one line a test printed (no newline) becomes its
 * record (a kind word, a space and valid fields) or a LOG record. */
void frame_child_line(const char *abi, const char *test, const char *line, size_t n)
{
	size_t k = 0;

	if (n && line[n - 1] == '\r')
		n--;
	while (k < n && line[k] >= 'A' && line[k] <= 'Z')
		k++;
	if (k > 0 && k < n && line[k] == ' ' && !reserved_kind(line, k) &&
	    valid_fields(line + k + 1, n - k - 1) && n < RECORD_MAX - 64) {
		struct record r;
		char kind[32];
		size_t i = k + 1;

		rt_strlcpy(kind, line, k + 1 < sizeof(kind) ? k + 1 : sizeof(kind));
		rec_begin(&r, kind);
		while (i < n) {          /* keys kept, values escaped */
			size_t start = i, eq;
			while (line[i] != '=')
				i++;
			eq = i;
			while (i < n && line[i] != ' ')
				i++;
			rec_raw(&r, " ", 1);
			rec_raw(&r, line + start, eq + 1 - start);
			rec_value(&r, line + eq + 1, i - eq - 1);
			i++;
		}
		if (!r.full) {
			rec_end(&r);
			return;
		}
	}
	log_line(abi, test, line, n);
}
