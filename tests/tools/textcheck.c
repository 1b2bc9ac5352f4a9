/*
 * textcheck.c: the checks of the tests of untrusted text (tests/t-untrusted*.sh).
 *
 *   textcheck term FILE...   each FILE is safe to show on a terminal: no
 *                            byte a terminal acts on but newline and tab
 *   textcheck json FILE...   each FILE is one JSON document in strict UTF-8
 *
 * term refuses C0 controls (0x00-0x08, 0x0b-0x1f: ESC, BEL, backspace, CR...),
 * DEL (0x7f), bytes that are not part of valid UTF-8 (a raw 0x9b is a CSI
 * to an 8-bit terminal), the UTF-8 encoded C1 controls U+0080..U+009F, and
 * the bidirectional controls (U+202A-202E, U+2066-2069, U+200E, U+200F,
 * U+061C: they reorder what a line shows).
 * json refuses any byte that is not part of valid UTF-8, then what json-c
 * cannot parse as one document (as Python's json.loads of the file decoded
 * with errors="strict" would). The UTF-8 check is written here on its own (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF), not taken from lib/, so the test
 * does not trust the code it tests. Exits 0 when every file is clean, else
 * 1 after naming the first bad byte of each bad file ("FILE: offset N: byte
 * 0xNN (why)"); 2 for usage or a file that cannot be read.
 */
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s[0..n) (2..4), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	unsigned lo = 0x80, hi = 0xbf;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;              /* overlong below U+0800 */
		if (c == 0xed)
			hi = 0x9f;              /* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;              /* overlong below U+10000 */
		if (c == 0xf4)
			hi = 0x8f;              /* above U+10FFFF */
	} else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* 0 when s is clean (term: for a terminal; else: valid UTF-8), else 1
 * after naming the first bad byte. */
static int check_bytes(const char *path, const unsigned char *s, size_t n, bool term)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		const char *why = NULL;
		size_t len = 1;
		if (c < 0x80) {
			if (term && ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f))
				why = c == 0x1b ? "ESC" : "a C0 control or DEL";
		} else if (!(len = utf8_seq(s + i, n - i))) {
			why = "not valid UTF-8";
			len = 1;
		} else if (term && c == 0xc2 && s[i + 1] <= 0x9f) {
			why = "a C1 control in UTF-8";
		} else if (term && ((c == 0xe2 && s[i + 1] == 0x80 &&
				     ((s[i + 2] >= 0xaa && s[i + 2] <= 0xae) || s[i + 2] == 0x8e || s[i + 2] == 0x8f)) ||
				    (c == 0xe2 && s[i + 1] == 0x81 && s[i + 2] >= 0xa6 && s[i + 2] <= 0xa9) ||
				    (c == 0xd8 && s[i + 1] == 0x9c))) {
			why = "a bidirectional control";
		}
		if (why) {
			printf("%s: offset %zu: byte 0x%02x (%s)\n", path, i, c, why);
			return 1;
		}
		i += len;
	}
	return 0;
}

/* 0 when s[0..n) is one JSON document and nothing else, else 1. */
static int check_json(const char *path, const unsigned char *s, size_t n)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o = json_tokener_parse_ex(tok, (const char *)s, (int)n);
	enum json_tokener_error e = json_tokener_get_error(tok);
	size_t used = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	json_object_put(o);
	while (used < n && s[used] && strchr(" \t\r\n", s[used]))
		used++;
	if (!o || e != json_tokener_success || used != n) {
		printf("%s: not one JSON document: %s\n", path, json_tokener_error_desc(e));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 0;
	bool term = argc > 1 && !strcmp(argv[1], "term");
	if (argc < 2 || (!term && strcmp(argv[1], "json"))) {
		fputs("usage: textcheck term|json FILE...\n", stderr);
		return 2;
	}
	for (int a = 2; a < argc; a++) {
		FILE *f = fopen(argv[a], "rb");
		if (!f) {
			perror(argv[a]);
			return 2;
		}
		unsigned char *buf = NULL;
		size_t n = 0, alloc = 0, got;
		do {
			if (n == alloc) {
				alloc = alloc ? 2 * alloc : 65536;
				buf = realloc(buf, alloc);
				if (!buf)
					return 2;
			}
			got = fread(buf + n, 1, alloc - n, f);
			n += got;
		} while (got);
		fclose(f);
		int bad = check_bytes(argv[a], buf, n, term);
		if (!bad && !term)
			bad = check_json(argv[a], buf, n);
		rc |= bad;
		free(buf);
	}
	return rc;
}
