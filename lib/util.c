/*
 * util.c: allocation, buffers and files for the host tool (running a
 * program is spawn.c). See util.h for the contracts. It is below
 * textsafe.c (which builds on its strbuf); the messages (usage.h), which print by textsafe's rule,
 * are in usage.c, above both.
 */
#include "util.h"
#include "oscall.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* rc = call (an os_*() of oscall.h), made again while a signal interrupts
 * it (oscall.h, 2.). */
#define EINTR_RETRY(rc, call)                                   \
	do {                                                    \
		(rc) = (call);                                  \
	} while ((rc) < 0 && errno == EINTR)

static void *check_alloc(void *p)
{
	if (!p) {
		fputs("bootrig: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *xmalloc(size_t n) { return check_alloc(malloc(n ? n : 1)); }
void *xcalloc(size_t n, size_t size) { return check_alloc(calloc(n ? n : 1, size ? size : 1)); }
void *xrealloc(void *p, size_t n) { return check_alloc(realloc(p, n ? n : 1)); }
char *xstrdup(const char *s) { return check_alloc(strdup(s)); }

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return check_alloc(s);
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->alloc)
		return;
	size_t want = sb->alloc ? sb->alloc : 64;
	while (want < sb->len + extra + 1)
		want *= 2;
	sb->buf = xrealloc(sb->buf, want);
	sb->alloc = want;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t n)
{
	strbuf_grow(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	strbuf_grow(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

int read_file_chunks(const char *path, void *buf, size_t size,
		     void (*sink)(void *ctx, const void *data, size_t n), void *ctx)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t n = read(fd, buf, size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
		if (n == 0)
			break;
		sink(ctx, buf, (size_t)n);
	}
	close(fd);
	return 0;
}

int read_file_max(const char *path, char **out, size_t *len, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct strbuf sb = STRBUF_INIT;
	char chunk[65536];
	int rc = 0;
	for (;;) {
		/* one byte past max, to tell a file of exactly max bytes */
		size_t want = max - sb.len < sizeof(chunk) ? max - sb.len + 1 : sizeof(chunk);
		ssize_t n = read(fd, chunk, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -1;
			break;
		}
		if (n == 0)
			break;
		if (sb.len + (size_t)n > max) {
			rc = -1;
			errno = EFBIG;
			break;
		}
		strbuf_add(&sb, chunk, (size_t)n);
	}
	int saved = errno;
	close(fd);
	if (rc) {
		strbuf_release(&sb);
		errno = saved;
		return -1;
	}
	if (!sb.buf)
		strbuf_add(&sb, "", 0);
	*out = sb.buf;
	if (len)
		*len = sb.len;
	return 0;
}

int read_file(const char *path, char **out, size_t *len)
{
	return read_file_max(path, out, len, SIZE_MAX);
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t n = os_write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

unsigned tmp_serial(void)
{
	static unsigned serial;
	return __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED);
}

int open_tmp_beside(const char *path, char **tmp)
{
	for (int tries = 0; tries < 100; tries++) {
		*tmp = xasprintf("%s.tmp.%ld.%u", path, (long)getpid(), tmp_serial());
		int fd;
		EINTR_RETRY(fd, os_open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
					0644));
		if (fd >= 0 || errno != EEXIST)
			return fd;
		free(*tmp);
	}
	*tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	errno = EEXIST;
	return -1;
}

enum replace_flags { REPLACE_SYNC = 1, REPLACE_QUIET = 2 };

/* Writes through a temporary file (open_tmp_beside: created here, never a
 * link followed) and renames it over path, which then is that new file
 * even when path was a symlink; with REPLACE_SYNC the data reach the disk
 * before the rename (see util.h). */
static int replace_file(const char *path, const void *data, size_t len, int flags)
{
	char *tmp;
	const char *failed = "create";
	int fd = open_tmp_beside(path, &tmp), rc = 0, saved_errno = errno;
	if (fd >= 0) {
		failed = "write";
		rc = write_all(fd, data, len);
		if (rc == 0 && (flags & REPLACE_SYNC))
			EINTR_RETRY(rc, os_fsync(fd));
		if (rc == 0)
			failed = NULL;
		saved_errno = errno;
		/* EINTR: closed all the same (oscall.h, 2.) */
		if (os_close(fd) < 0 && errno != EINTR && !failed)
			failed = "write", saved_errno = errno;
		if (!failed)
			EINTR_RETRY(rc, os_rename(tmp, path));
		if (!failed && rc < 0)
			failed = "rename", saved_errno = errno;
	}
	if (failed && fd >= 0)
		EINTR_RETRY(rc, os_unlink(tmp));
	if (failed && !(flags & REPLACE_QUIET))
		error("cannot %s %s: %s", failed, !strcmp(failed, "rename") ? path : tmp,
		      strerror(saved_errno));
	free(tmp);
	errno = saved_errno;
	return failed ? -1 : 0;
}

int write_file_atomic(const char *path, const void *data, size_t len)
{
	return replace_file(path, data, len, REPLACE_SYNC);
}

int write_file_atomic_nosync(const char *path, const void *data, size_t len)
{
	return replace_file(path, data, len, 0);
}

int write_cache_file(const char *path, const void *data, size_t len)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	int rc = slash && slash != dir && mkdir_p(dir, 0755) < 0 ? -1 : 0;
	free(dir);
	return rc ? rc : replace_file(path, data, len, REPLACE_QUIET);
}

char *stat_stamp(const struct stat *st)
{
	return xasprintf("%ju %ju %jd %ld.%09ld %ld.%09ld", (uintmax_t)st->st_dev,
			 (uintmax_t)st->st_ino, (intmax_t)st->st_size, (long)st->st_mtim.tv_sec,
			 st->st_mtim.tv_nsec, (long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

bool stat_changed_lately(const struct stat *st)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	return st->st_ctim.tv_sec >= now.tv_sec - STAT_SETTLE_SECONDS;
}

int mkdir_p(const char *path, mode_t mode)
{
	char *copy = xstrdup(path);
	for (char *p = copy + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		int rc;
		EINTR_RETRY(rc, os_mkdir(copy, mode));
		if (rc < 0 && errno != EEXIST) {
			free(copy);
			return -1;
		}
		*p = '/';
	}
	int rc;
	EINTR_RETRY(rc, os_mkdir(copy, mode));
	free(copy);
	return rc < 0 && errno != EEXIST ? -1 : 0;
}

double now_monotonic(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
