/*
 * textsafe.h: untrusted text (console bytes, what a result file or a cpio
 * archive says, file names) made safe to show: on a terminal, in a title,
 * and in JSON. The raw bytes stay in console.log only.
 *
 * UTF-8 here is strict (RFC 3629): no overlong forms, no surrogates
 * (U+D800..U+DFFF), nothing above U+10FFFF.
 *
 * The terminal rule (strbuf_add_term, the one function every command prints
 * untrusted text through). Shown as they are: printable ASCII and every
 * valid UTF-8 character but the C1 controls. Written as a visible escape
 * `\xNN` (two lower-case hex digits, one escape per byte):
 *   - the C0 controls 0x00-0x1f (ESC, BEL, backspace, CR...), but newline
 *     and tab where the caller keeps them (TEXT_KEEP_NEWLINE, _TAB);
 *   - DEL, 0x7f;
 *   - the C1 controls U+0080..U+009F in UTF-8, each of their two bytes
 *     ("\xc2\x9b" for CSI);
 *   - every byte that is not part of a valid UTF-8 sequence (a raw 0x9b,
 *     which an 8-bit terminal takes as CSI, is "\x9b");
 *   - the invisible format characters (text_invisible): the bidirectional
 *     controls (U+202A-202E, U+2066-2069, U+200E, U+200F, U+061C), which
 *     can make the figures on a line read otherwise, the zero-width ones,
 *     and the line and paragraph separators, each of their bytes
 *     ("\xe2\x80\xae" for RIGHT-TO-LEFT OVERRIDE).
 * A backslash that could be read as the start of an escape (one followed by
 * 'x', by another backslash, or by a byte that is escaped) is doubled, so
 * what a guest printed as the text "\x1b" can be told from an ESC byte;
 * any other backslash (ACPI's "\_SB_") is shown as is. Text that needs none
 * of this is shown byte for byte as before.
 *
 * The JSON rule (json_string_utf8, the one helper that makes JSON strings
 * from untrusted bytes): valid UTF-8 is kept as it is; each byte that is
 * not part of a valid UTF-8 sequence becomes U+FFFD, the Unicode
 * replacement character (one per byte, so "\xff\xfe" gives two). Why not
 * the text "\xNN": a JSON reader gets Unicode strings, and U+FFFD is
 * Unicode's own mark for bytes that were not text, which no guest can
 * forge by printing a backslash; the bytes themselves are in console.log.
 * json-c writes the C0 controls as \u00XX; strbuf_add_json() also writes
 * DEL and the C1 controls so (\u007f, \u0080..\u009f), the invisible format
 * characters as \uXXXX (\u202e: the same string to a reader), and repairs by the
 * same rule any string made without the helper: every JSON file bootrig
 * writes is valid UTF-8 and safe to print on a terminal.
 */
#ifndef BOOTRIG_TEXTSAFE_H
#define BOOTRIG_TEXTSAFE_H

#include "util.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct json_object;

/* Length of the character at s[0..n) (n > 0): 1 for ASCII, 2..4 for a
 * valid UTF-8 sequence, 0 when s[0] does not start one. */
size_t utf8_char_len(const unsigned char *s, size_t n);

/* Is the character at s[0..n) (n > 0) a control or no character: a C0
 * control (newline and tab too), DEL, a C1 control in UTF-8, or a byte
 * that does not start valid UTF-8? *len gets its length (1 for a bad byte). */
bool text_control(const unsigned char *s, size_t n, size_t *len);

/* The code point of the character at s[0..n) (n > 0) when it is an
 * invisible format character: U+061C, U+180E, U+200B-200F, U+2028-202E,
 * U+2060-2064, U+2066-206F, U+FEFF, U+FFF9-FFFB; else 0. *len gets its
 * length (0 for a byte that does not start valid UTF-8). */
unsigned text_invisible(const unsigned char *s, size_t n, size_t *len);

/* ------------------------------------------------------------ terminal */

#define TEXT_KEEP_NEWLINE 1u    /* '\n' shown as it is */
#define TEXT_KEEP_TAB     2u    /* '\t' shown as it is */

/* Appends s[0..n) to sb by the terminal rule above. */
void strbuf_add_term(struct strbuf *sb, const char *s, size_t n, unsigned keep);

/* Is s[0..n) shown as it is (strbuf_add_term would copy it unchanged)? */
bool term_clean(const char *s, size_t n, unsigned keep);

/*
 * term_str: s by the terminal rule (nothing kept), for a printf argument:
 * s itself when it is clean, else a rendering that stays valid until the
 * TERM_RING-th next term_str/term_strn call of this thread. NULL gives "".
 * term_strn: the same for s[0..n) (always a copy).
 */
#define TERM_RING 8
const char *term_str(const char *s);
const char *term_strn(const char *s, size_t n);

/* A crash title, cleaned in place: a tab becomes a space; every byte the
 * terminal rule would escape is dropped (a title is a summary, not the
 * record: the bytes are in console.log). */
void text_clean_title(char *title);

/* ---------------------------------------------------------------- JSON */

/* Appends s[0..n) to sb as valid UTF-8: each invalid byte becomes U+FFFD. */
void strbuf_add_utf8(struct strbuf *sb, const char *s, size_t n);

/* A JSON string of s[0..n) by the JSON rule above. */
struct json_object *json_string_utf8(const char *s, size_t n);
/* The same for a C string; NULL gives NULL (a JSON null). */
struct json_object *json_cstring_utf8(const char *s);
/* json_object_object_add with a key from untrusted bytes (the key made
 * valid UTF-8 by the same rule). */
void json_object_add_utf8_key(struct json_object *o, const char *key, struct json_object *v);

/*
 * strbuf_add_json: appends o as JSON text (json-c's flags, e.g.
 * JSON_C_TO_STRING_PRETTY), with DEL and the C1 controls
 * written \u00XX and any byte that is not valid UTF-8 replaced by U+FFFD:
 * the text every JSON file and JSON report of bootrig is written from.
 */
void strbuf_add_json(struct strbuf *sb, struct json_object *o, int flags);
/* o's JSON text by strbuf_add_json, then a newline, to out (a report). */
void json_fputs(struct json_object *o, int flags, FILE *out);

#endif
