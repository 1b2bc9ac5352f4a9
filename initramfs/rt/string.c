/*
 * string.c: memory and string helpers. memcpy, memmove, memset and memcmp
 * keep their C names: the compiler emits calls to them. The loops are
 * plain byte loops (-fno-builtin keeps gcc from turning them back into
 * calls to themselves); none of this is on a measured path.
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

long rt_read_file(const char *path, char *buf, size_t size)
{
	long fd = rt_open(path, O_RDONLY | O_CLOEXEC, 0);
	size_t len = 0;

	if (fd < 0)
		return fd;
	while (len + 1 < size) {
		long r = rt_read((int)fd, buf + len, size - 1 - len);
		if (r == -EINTR)
			continue;
		if (r < 0) {
			rt_close((int)fd);
			return r;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	rt_close((int)fd);
	return (long)len;
}

/* Error numbers and their names, in the same order; the names are
 * NUL-separated so that rt_errname() returns constant strings. */
static const unsigned char rt_errnums[] = {
	EPERM, ENOENT, ESRCH, EINTR, EIO, ENXIO, E2BIG, ENOEXEC, EBADF, ECHILD, EAGAIN,
	ENOMEM, EACCES, EFAULT, EBUSY, EEXIST, ENODEV, ENOTDIR, EISDIR, EINVAL, ENFILE,
	EMFILE, ENOTTY, ETXTBSY, ENOSPC, ESPIPE, EROFS, EPIPE, ERANGE, ENOSYS, EOPNOTSUPP,
	EAFNOSUPPORT, EADDRINUSE, ETIMEDOUT, ECONNREFUSED,
};
static const char rt_errnames[] =
	"EPERM\0ENOENT\0ESRCH\0EINTR\0EIO\0ENXIO\0E2BIG\0ENOEXEC\0EBADF\0ECHILD\0EAGAIN\0"
	"ENOMEM\0EACCES\0EFAULT\0EBUSY\0EEXIST\0ENODEV\0ENOTDIR\0EISDIR\0EINVAL\0ENFILE\0"
	"EMFILE\0ENOTTY\0ETXTBSY\0ENOSPC\0ESPIPE\0EROFS\0EPIPE\0ERANGE\0ENOSYS\0EOPNOTSUPP\0"
	"EAFNOSUPPORT\0EADDRINUSE\0ETIMEDOUT\0ECONNREFUSED";

const char *rt_errname(int err)
{
	static char unknown[16];
	const char *name = rt_errnames;

	for (size_t i = 0; i < sizeof(rt_errnums); i++) {
		if (rt_errnums[i] == err)
			return name;
		name += rt_strlen(name) + 1;
	}
	rt_snprintf(unknown, sizeof(unknown), "E%d", err);
	return unknown;
}
