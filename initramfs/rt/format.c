/*
 * format.c: a small printf (rt_vsnprintf and the functions over it) and
 * rt_die(). Conversions and flags are listed in rt.h. Doubles are printed
 * in fixed point only, with at most 9 digits after the point, which is
 * what the protocol's numbers need (PROTOCOL.md "Numbers").
 */
#include "rt.h"

/* An output cursor that counts what it could not store. */
struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void put_padded(struct out *o, const char *s, size_t n, int width, bool left, char pad)
{
	int fill = width > (int)n ? width - (int)n : 0;

	if (!left && pad == '0' && n && (*s == '-')) {
		put(o, *s++);
		n--;
	}
	if (!left)
		while (fill-- > 0)
			put(o, pad);
	while (n--)
		put(o, *s++);
	if (left)
		while (fill-- > 0)
			put(o, ' ');
}

/* utoa: v in base into the end of buf (size >= 24); returns the start. */
static char *utoa(uint64_t v, unsigned base, bool upper, char *end)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char *p = end;

	*p = '\0';
	do {
		*--p = digits[v % base];
		v /= base;
	} while (v);
	return p;
}

/* format_fixed: v with prec digits after the point into buf (size >= 48). */
static size_t format_fixed(double v, int prec, char *buf)
{
	static const uint64_t pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000,
					  10000000, 100000000, 1000000000 };
	char digits[24], *p;
	size_t n = 0;
	uint64_t ip, frac, scale;

	if (v != v)
		return (size_t)rt_snprintf(buf, 48, "nan");
	if (v < 0) {
		buf[n++] = '-';
		v = -v;
	}
	if (v > 9.0e18)
		return n + (size_t)rt_snprintf(buf + n, 48 - n, "inf");
	if (prec > 9)
		prec = 9;
	scale = pow10[prec];
	ip = (uint64_t)(int64_t)v;
	frac = (uint64_t)(int64_t)((v - (double)(int64_t)ip) * (double)scale + 0.5);
	if (frac >= scale) {
		ip++;
		frac -= scale;
	}
	for (p = utoa(ip, 10, false, digits + 23); *p; p++)
		buf[n++] = *p;
	if (prec > 0) {
		buf[n++] = '.';
		p = utoa(frac, 10, false, digits + 23);
		for (int zeros = prec - (int)rt_strlen(p); zeros > 0; zeros--)
			buf[n++] = '0';
		for (; *p; p++)
			buf[n++] = *p;
	}
	buf[n] = '\0';
	return n;
}

int rt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };
	char tmp[64];

	for (; *fmt; fmt++) {
		bool left = false;
		char pad = ' ';
		int width = 0, prec = -1, lng = 0;
		const char *s;
		size_t n;

		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		fmt++;
		for (;; fmt++) {
			if (*fmt == '-')
				left = true;
			else if (*fmt == '0')
				pad = '0';
			else
				break;
		}
		if (*fmt == '*') {
			width = va_arg(ap, int);
			fmt++;
		}
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		if (*fmt == '.') {
			fmt++;
			prec = 0;
			if (*fmt == '*') {
				prec = va_arg(ap, int);
				fmt++;
			}
			while (*fmt >= '0' && *fmt <= '9')
				prec = prec * 10 + (*fmt++ - '0');
		}
		for (; *fmt == 'l' || *fmt == 'z'; fmt++)
			lng += *fmt == 'z' ? (sizeof(size_t) == sizeof(long long) ? 2 : 1) : 1;

		if (rt_strchr("diuxXop", *fmt)) {       /* every integer conversion */
			bool is_signed = *fmt == 'd' || *fmt == 'i';
			unsigned base = *fmt == 'o' ? 8 : (*fmt == 'x' || *fmt == 'X' || *fmt == 'p') ? 16 : 10;
			uint64_t u;
			bool neg = false;
			char *p;

			if (*fmt == 'p')
				u = (uintptr_t)va_arg(ap, void *);
			else if (lng >= 2)
				u = va_arg(ap, unsigned long long);
			else if (lng == 1)
				u = is_signed ? (uint64_t)(int64_t)va_arg(ap, long) : va_arg(ap, unsigned long);
			else
				u = is_signed ? (uint64_t)(int64_t)va_arg(ap, int) : va_arg(ap, unsigned);
			if (is_signed && (int64_t)u < 0) {
				neg = true;
				u = 0 - u;
			}
			p = utoa(u, base, *fmt == 'X', tmp + 40);
			if (*fmt == 'p') {
				*--p = 'x';
				*--p = '0';
			}
			if (neg)
				*--p = '-';
			put_padded(&o, p, rt_strlen(p), width, left, *fmt == 'p' ? ' ' : pad);
		} else if (*fmt == 'f') {
			n = format_fixed(va_arg(ap, double), prec < 0 ? 6 : prec, tmp);
			put_padded(&o, tmp, n, width, left, pad);
		} else if (*fmt == 's') {
			s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			n = prec >= 0 ? rt_strnlen(s, (size_t)prec) : rt_strlen(s);
			put_padded(&o, s, n, width, left, ' ');
		} else if (*fmt == 'c') {
			tmp[0] = (char)va_arg(ap, int);
			put_padded(&o, tmp, 1, width, left, ' ');
		} else if (*fmt == '%') {
			put(&o, '%');
		} else if (*fmt == '\0') {
			fmt--;
		} else {
			put(&o, '%');
			put(&o, *fmt);
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int rt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = rt_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* vdprintf: format into one buffer, write it with one write(2). */
static int rt_vdprintf(int fd, const char *fmt, va_list ap)
{
	char buf[RT_PRINTF_MAX];
	int n = rt_vsnprintf(buf, sizeof(buf), fmt, ap);
	size_t len = n < (int)sizeof(buf) ? (size_t)n : sizeof(buf) - 1;

	return rt_write_all(fd, buf, len) < 0 ? -1 : (int)len;
}

int rt_dprintf(int fd, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = rt_vdprintf(fd, fmt, ap);
	va_end(ap);
	return n;
}

int rt_printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = rt_vdprintf(1, fmt, ap);
	va_end(ap);
	return n;
}

int rt_eprintf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = rt_vdprintf(2, fmt, ap);
	va_end(ap);
	return n;
}

void rt_die(const char *fmt, ...)
{
	char buf[RT_PRINTF_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = rt_vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	rt_write_all(2, buf, (size_t)n);
	rt_exit(1);
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

void rt_append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = rt_vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n < size - *len ? (size_t)n : size - *len - 1;
}
