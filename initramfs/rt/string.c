/*
 * string.c: memory and string helpers. memcpy, memmove, memset and memcmp
 * keep their C names: the compiler emits calls to them. The loops are
 * plain byte loops (-fno-builtin keeps gcc from turning them back into
 * calls to themselves); none of this is on a measured path. Nothing here
 * calls another part of the runtime: rt_errname() is in format.c (it
 * prints), rt_read_file() in sys.c.
 */
#include "rt.h"

void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n--)
		*d++ = *s++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d == s || n == 0)
		return dst;
	if (d < s) {
		while (n--)
			*d++ = *s++;
	} else {
		while (n--)
			d[n] = s[n];
	}
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;

	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

void *rt_memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	for (; n; n--, p++)
		if (*p == (unsigned char)c)
			return (void *)p;
	return NULL;
}

size_t rt_strlen(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return (size_t)(p - s);
}

size_t rt_strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int rt_strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int rt_strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

char *rt_strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

char *rt_strrchr(const char *s, int c)
{
	const char *found = NULL;

	for (;; s++) {
		if (*s == (char)c)
			found = s;
		if (!*s)
			return (char *)found;
	}
}

char *rt_strstr(const char *hay, const char *needle)
{
	size_t n = rt_strlen(needle);

	for (; *hay; hay++)
		if (rt_strncmp(hay, needle, n) == 0)
			return (char *)hay;
	return n == 0 ? (char *)hay : NULL;
}

size_t rt_strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = rt_strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;
		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

bool rt_starts_with(const char *s, const char *prefix)
{
	return rt_strncmp(s, prefix, rt_strlen(prefix)) == 0;
}

const char *rt_parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0, base = 10;
	const char *start;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, s += 2;
	start = s;
	for (;; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			break;
		if (v > (UINT64_MAX - d) / base)
			return NULL;
		v = v * base + d;
	}
	if (s == start)
		return NULL;
	*out = v;
	return s;
}

long rt_atol_default(const char *s, long def)
{
	uint64_t v;
	const char *end;

	if (!s || !*s)
		return def;
	end = rt_parse_u64(s, &v);
	if (!end || *end || v > (uint64_t)(~0ul >> 1))
		return def;
	return (long)v;
}

const char *rt_argval(int argc, char **argv, const char *key)
{
	size_t n = rt_strlen(key);

	for (int i = 1; i < argc; i++)
		if (rt_strncmp(argv[i], key, n) == 0 && argv[i][n] == '=')
			return argv[i] + n + 1;
	return NULL;
}

const char *rt_getenv(const char *name)
{
	size_t n = rt_strlen(name);

	for (char **e = rt_environ; e && *e; e++)
		if (rt_strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}
