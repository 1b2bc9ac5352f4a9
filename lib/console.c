/*
 * console.c: console-line primitives (console.h): escapes and controls,
 * printk and tlog prefixes, the stop messages.
 */
#include "console.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const char *const console_stop_needles[] = {
	CONSOLE_POWER_DOWN, "reboot: System halted", "System halted.",
	"reboot: machine stopped", "Power down", CONSOLE_RESTART, NULL,
};

/* ---- controls ------------------------------------------------------------ */

size_t console_escape_length(const unsigned char *s, size_t n)
{
	size_t i = 1;

	if (n < 2)
		return 1;
	if (s[1] == '[') {
		for (i = 2; i < n && s[i] >= 0x30 && s[i] <= 0x3f; i++)
			;
		for (; i < n && s[i] >= 0x20 && s[i] <= 0x2f; i++)
			;
		if (i < n && s[i] >= 0x40 && s[i] <= 0x7e)
			i++;
		return i;
	}
	if (s[1] == ']' || s[1] == 'P' || s[1] == 'X' || s[1] == '^' || s[1] == '_') {
		for (i = 2; i < n; i++) {
			if (s[i] == 0x07)
				return i + 1;
			if (s[i] == 0x1b && i + 1 < n && s[i + 1] == '\\')
				return i + 2;
		}
		return n;
	}
	for (i = 1; i < n && s[i] >= 0x20 && s[i] <= 0x2f; i++)
		;
	if (i < n && s[i] >= 0x30 && s[i] <= 0x7e)
		i++;
	return i;
}

size_t console_clean(const char *in, size_t n, char *out, bool drop_controls)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0;

	for (size_t i = 0; i < n;) {
		const unsigned char *stop = s + i;
		/* Copy the plain run in one go. */
		while (stop < s + n && *stop != 0 && *stop != '\r' && *stop != 0x1b &&
		       !(drop_controls && *stop < 0x20 && *stop != '\t'))
			stop++;
		size_t run = (size_t)(stop - (s + i));
		memcpy(out + o, s + i, run);
		o += run;
		i += run;
		if (i >= n)
			break;
		if (s[i] == 0x1b)
			i += console_escape_length(s + i, n - i);
		else
			i++;
	}
	return o;
}

/* ---- prefixes ------------------------------------------------------------ */

/* After "[" and its padding spaces at s: the index of what follows, or 0
 * when s holds no bracket worth looking at. */
static size_t open_bracket(const char *s, size_t n)
{
	size_t i = 1;
	if (n < 3 || s[0] != '[')
		return 0;
	while (i < n && s[i] == ' ')
		i++;
	return i;
}

/* The index after the digits from s[i] on. */
static size_t skip_digits(const char *s, size_t i, size_t n)
{
	while (i < n && isdigit((unsigned char)s[i]))
		i++;
	return i;
}

/* Skips "[  12.345678]"-style brackets holding a time; *ts gets it. */
static size_t skip_time_bracket(const char *s, size_t n, double *ts)
{
	size_t digits = open_bracket(s, n);
	size_t i = digits ? skip_digits(s, digits, n) : 0;
	if (i == digits || i >= n || s[i] != '.')
		return 0;
	i = skip_digits(s, i + 1, n);
	if (i >= n || s[i] != ']')
		return 0;
	if (ts) {
		char buf[32];
		size_t len = i - 1 < sizeof(buf) - 1 ? i - 1 : sizeof(buf) - 1;
		memcpy(buf, s + 1, len);
		buf[len] = '\0';
		*ts = strtod(buf, NULL);
	}
	return i + 1;
}

/* Skips a printk caller id "[    T1]" or "[  C0]". */
static size_t skip_caller_bracket(const char *s, size_t n)
{
	size_t i = open_bracket(s, n);
	if (!i || i >= n || (s[i] != 'T' && s[i] != 'C'))
		return 0;
	size_t digits = i + 1;
	i = skip_digits(s, digits, n);
	if (i == digits || i >= n || s[i] != ']')
		return 0;
	return i + 1;
}

const char *console_strip_prefix(const char *line, size_t *len, double *ts)
{
	const char *s = line;
	size_t n = *len, k;
	if (ts)
		*ts = -1;
	if (n >= 3 && s[0] == '<' && isdigit((unsigned char)s[1])) {
		for (k = 1; k < n && isdigit((unsigned char)s[k]); k++)
			;
		if (k < n && s[k] == '>') {
			s += k + 1;
			n -= k + 1;
		}
	}
	k = skip_time_bracket(s, n, ts);
	if (k) {
		s += k;
		n -= k;
		k = skip_caller_bracket(s, n);
		s += k;
		n -= k;
		if (n && *s == ' ') {
			s++;
			n--;
		}
	}
	*len = n;
	return s;
}

size_t console_tlog_stamp(const char *s, size_t n, double *t)
{
	if (n < 4 || s[0] != '[' || !isdigit((unsigned char)s[1]))
		return 0;
	size_t i = skip_digits(s, 1, n);
	if (i >= n || s[i] != '.')
		return 0;
	i = skip_digits(s, i + 1, n);
	if (i + 1 >= n || s[i] != ']' || s[i + 1] != ' ')
		return 0;
	*t = strtod(s + 1, NULL);
	return i + 2;
}
