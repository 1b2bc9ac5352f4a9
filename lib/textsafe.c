/*
 * textsafe.c: untrusted text for terminals, titles and JSON (the rules are
 * in textsafe.h). One classifier (how a character is shown) under the
 * terminal rendering, the title cleaning and the JSON repair.
 */
#include "textsafe.h"
#include "exitcodes.h"

#include <json-c/json.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

size_t utf8_char_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	unsigned lo = 0x80, hi = 0xbf;
	size_t len;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		lo = c == 0xe0 ? 0xa0 : lo;     /* overlong: below U+0800 */
		hi = c == 0xed ? 0x9f : hi;     /* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		lo = c == 0xf0 ? 0x90 : lo;     /* overlong: below U+10000 */
		hi = c == 0xf4 ? 0x8f : hi;     /* above U+10FFFF */
	} else {
		return 0;
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* ------------------------------------------------------------ terminal */

bool text_control(const unsigned char *s, size_t n, size_t *len)
{
	*len = 1;
	if (s[0] < 0x80)
		return s[0] < 0x20 || s[0] == 0x7f;
	size_t l = utf8_char_len(s, n);
	if (!l)
		return true;
	*len = l;
	return l == 2 && s[0] == 0xc2 && s[1] <= 0x9f;
}

/* The code point of the valid UTF-8 character s[0..len). */
static unsigned code_point(const unsigned char *s, size_t len)
{
	static const unsigned char lead_bits[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	unsigned c = s[0] & lead_bits[len];
	for (size_t i = 1; i < len; i++)
		c = c << 6 | (s[i] & 0x3f);
	return c;
}

unsigned text_invisible(const unsigned char *s, size_t n, size_t *len)
{
	*len = utf8_char_len(s, n);
	if (*len < 2)
		return 0;
	unsigned c = code_point(s, *len);
	bool format = c == 0x061c || c == 0x180e || (c >= 0x200b && c <= 0x200f) ||
		      (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x2064) ||
		      (c >= 0x2066 && c <= 0x206f) || c == 0xfeff || (c >= 0xfff9 && c <= 0xfffb);
	return format ? c : 0;
}

/* How many bytes of the character at s[0..n) the terminal rule escapes (0:
 * shown as it is); *len gets its length. */
static size_t escaped(const unsigned char *s, size_t n, unsigned keep, size_t *len)
{
	if (text_invisible(s, n, len))
		return *len;
	if (!text_control(s, n, len))
		return 0;
	if ((s[0] == '\n' && (keep & TEXT_KEEP_NEWLINE)) || (s[0] == '\t' && (keep & TEXT_KEEP_TAB)))
		return 0;
	return *len;
}

/* Is the backslash at s[i] doubled (what follows could make it an escape)? */
static bool doubled_backslash(const unsigned char *s, size_t i, size_t n, unsigned keep)
{
	size_t len;
	return i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == '\\' ||
			     escaped(s + i + 1, n - i - 1, keep, &len));
}

void strbuf_add_term(struct strbuf *sb, const char *text, size_t n, unsigned keep)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0;
	while (i < n) {
		size_t run = i, len, esc = 0;
		/* The clean run from i, added at once. */
		while (run < n && !(esc = escaped(s + run, n - run, keep, &len)) &&
		       !(s[run] == '\\' && doubled_backslash(s, run, n, keep)))
			run += len;
		strbuf_add(sb, s + i, run - i);
		i = run;
		if (i == n)
			break;
		if (!esc) {
			strbuf_add(sb, "\\\\", 2);
			i++;
			continue;
		}
		for (size_t k = 0; k < esc; k++)
			strbuf_addf(sb, "\\x%02x", s[i + k]);
		i += esc;
	}
}

bool term_clean(const char *text, size_t n, unsigned keep)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t len;
	for (size_t i = 0; i < n; i += len) {
		if (escaped(s + i, n - i, keep, &len))
			return false;
		if (s[i] == '\\' && doubled_backslash(s, i, n, keep))
			return false;
	}
	return true;
}

/* Each thread's last TERM_RING renderings. Every ring is on a list, so a
 * thread's is freed when it exits and none is ever unreachable. */
struct term_ring {
	struct strbuf buf[TERM_RING];
	unsigned next;
	struct term_ring *prev_ring, *next_ring;
};
static pthread_key_t ring_key;
static pthread_once_t ring_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t ring_lock = PTHREAD_MUTEX_INITIALIZER;
static struct term_ring *rings;

static void ring_free(void *p)
{
	struct term_ring *r = p;
	pthread_mutex_lock(&ring_lock);
	if (r->prev_ring)
		r->prev_ring->next_ring = r->next_ring;
	else
		rings = r->next_ring;
	if (r->next_ring)
		r->next_ring->prev_ring = r->prev_ring;
	pthread_mutex_unlock(&ring_lock);
	for (int i = 0; i < TERM_RING; i++)
		strbuf_release(&r->buf[i]);
	free(r);
}

static void ring_key_make(void)
{
	if (pthread_key_create(&ring_key, ring_free))
		die_status(EXIT_INFRA, "pthread_key_create failed");
}

/* This thread's next buffer, emptied. */
static struct strbuf *ring_next(void)
{
	pthread_once(&ring_once, ring_key_make);
	struct term_ring *r = pthread_getspecific(ring_key);
	if (!r) {
		r = xcalloc(1, sizeof(*r));
		pthread_mutex_lock(&ring_lock);
		r->next_ring = rings;
		if (rings)
			rings->prev_ring = r;
		rings = r;
		pthread_mutex_unlock(&ring_lock);
		pthread_setspecific(ring_key, r);
	}
	struct strbuf *sb = &r->buf[r->next++ % TERM_RING];
	sb->len = 0;
	strbuf_add(sb, "", 0);
	return sb;
}

const char *term_strn(const char *s, size_t n)
{
	struct strbuf *sb = ring_next();
	strbuf_add_term(sb, s ? s : "", s ? n : 0, 0);
	return sb->buf;
}

const char *term_str(const char *s)
{
	if (!s)
		return "";
	size_t n = strlen(s);
	return term_clean(s, n, 0) ? s : term_strn(s, n);
}

void text_clean_title(char *title)
{
	unsigned char *s = (unsigned char *)title, *w = s;
	size_t n = strlen(title), len;
	for (size_t i = 0; i < n; i += len) {
		if (s[i] == '\t') {
			*w++ = ' ';
			len = 1;
		} else if (!escaped(s + i, n - i, 0, &len)) {
			memmove(w, s + i, len);
			w += len;
		}               /* else dropped: len bytes, a control or an invalid byte */
	}
	*w = '\0';
}

/* ---------------------------------------------------------------- JSON */

static const char replacement[] = "\xef\xbf\xbd";   /* U+FFFD */

void strbuf_add_utf8(struct strbuf *sb, const char *text, size_t n)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0;
	while (i < n) {
		size_t run = i, len;
		while (run < n && (len = utf8_char_len(s + run, n - run)))
			run += len;
		strbuf_add(sb, s + i, run - i);
		if (run < n) {
			strbuf_add(sb, replacement, 3);
			run++;
		}
		i = run;
	}
}

/* Is s[0..n) valid UTF-8? */
static bool utf8_valid(const char *text, size_t n)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t len;
	for (size_t i = 0; i < n; i += len)
		if (!(len = utf8_char_len(s + i, n - i)))
			return false;
	return true;
}

struct json_object *json_string_utf8(const char *s, size_t n)
{
	if (utf8_valid(s, n))
		return json_object_new_string_len(s, (int)n);
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_utf8(&sb, s, n);
	struct json_object *o = json_object_new_string_len(sb.buf, (int)sb.len);
	strbuf_release(&sb);
	return o;
}

struct json_object *json_cstring_utf8(const char *s)
{
	return s ? json_string_utf8(s, strlen(s)) : NULL;
}

void json_object_add_utf8_key(struct json_object *o, const char *key, struct json_object *v)
{
	size_t n = strlen(key);
	if (utf8_valid(key, n)) {
		json_object_object_add(o, key, v);
		return;
	}
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_utf8(&sb, key, n);
	json_object_object_add(o, sb.buf, v);
	strbuf_release(&sb);
}

void strbuf_add_json(struct strbuf *sb, struct json_object *o, int flags)
{
	const unsigned char *s = (const unsigned char *)json_object_to_json_string_ext(o, flags);
	size_t n = strlen((const char *)s), i = 0;
	strbuf_grow(sb, n + 1);
	while (i < n) {
		size_t len, run;
		/* C0 bytes are JSON's own whitespace here: json-c escapes
		 * those of strings. */
		unsigned c = text_invisible(s + i, n - i, &len);
		if (c) {
			strbuf_addf(sb, "\\u%04x", c);
			i += len;
			continue;
		}
		if (text_control(s + i, n - i, &len) && s[i] >= 0x7f) {
			if (s[i] >= 0x80 && len == 1)
				strbuf_add(sb, replacement, 3);         /* not UTF-8 */
			else
				strbuf_addf(sb, "\\u00%02x", s[i + len - 1]);
			i += len;
			continue;
		}
		for (run = i + len; run < n && s[run] >= 0x20 && s[run] < 0x7f; run++)
			;
		strbuf_add(sb, s + i, run - i);
		i = run;
	}
}

void json_fputs(struct json_object *o, int flags, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_json(&sb, o, flags);
	strbuf_add(&sb, "\n", 1);
	fwrite(sb.buf, 1, sb.len, out);
	strbuf_release(&sb);
}
