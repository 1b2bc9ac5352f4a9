/*
 * judgelog.c: a saved console log fed to a judge in chunks (see judgelog.h).
 *
 * The reader holds one chunk; a line may span any number of chunks (the
 * judge assembles it, within its own bounds). Only the start of each line
 * is looked at here, for its time stamp, so a line start that falls within
 * STAMP_MAX bytes of a chunk's end waits for the next chunk.
 */
#include "judgelog.h"
#include "console.h"
#include "crash.h"
#include "judge.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STAMP_MAX 64            /* "<6>[01234.567890] [  T1] " and more */

/* Is path a console.tlog, by its name or by its first bytes' stamp? */
static bool is_tlog(const char *path, const char *buf, size_t len)
{
	size_t plen = strlen(path);
	double t;
	return (plen > 5 && !strcmp(path + plen - 5, ".tlog")) ||
	       (len && console_tlog_stamp(buf, len, &t) && buf[1] == '0');
}

/* Reads up to n bytes (fewer only at the end of the file); -1 on error. */
static ssize_t read_full(int fd, char *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* The reader's state between chunks. */
struct feeder {
	struct judge *j;
	struct judged_log *out;
	bool line_start;                /* the next byte starts a line */
	bool first;                     /* no chunk looked at yet */
};

/*
 * Feeds buf[0..len) line by line, each line at its time; returns how many
 * bytes it used: all of them, but a line start too close to the end of a
 * chunk that is not the last (its stamp may be cut).
 */
static size_t feed_chunk(struct feeder *f, const char *buf, size_t len, bool last)
{
	const char *p = buf, *end = buf + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		const char *text = p;
		size_t tn = n;
		if (f->line_start) {
			if (!nl && !last && n < STAMP_MAX)
				break;          /* wait for the rest of the stamp */
			if (f->out->times == TIMES_TLOG) {
				size_t k = console_tlog_stamp(p, n, &f->out->last_t);
				text += k;
				tn -= k;
			} else {
				size_t m = n;
				double ts;
				console_strip_prefix(p, &m, &ts);
				if (ts >= 0 && ts >= f->out->last_t) {
					f->out->last_t = ts;
					f->out->times = TIMES_PRINTK;
				}
			}
		}
		judge_feed(f->j, text, tn, f->out->last_t);
		f->line_start = nl != NULL;
		p += n;
	}
	return (size_t)(p - buf);
}

int judgelog_feed(struct judge *j, const char *path, uint64_t max_bytes, struct judged_log *out)
{
	*out = (struct judged_log){ TIMES_NONE, 0, 0, false };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char *buf = xmalloc(JUDGELOG_CHUNK + STAMP_MAX);
	struct feeder f = { j, out, true, true };
	size_t have = 0;
	for (;;) {
		size_t want = JUDGELOG_CHUNK;
		if (max_bytes - out->bytes < want)
			want = (size_t)(max_bytes - out->bytes);
		ssize_t r = want ? read_full(fd, buf + have, want) : 0;
		if (r < 0) {
			int saved = errno;
			free(buf);
			close(fd);
			errno = saved;
			return -1;
		}
		out->bytes += (uint64_t)r;
		have += (size_t)r;
		bool last = (size_t)r < want || out->bytes >= max_bytes;
		if (f.first && is_tlog(path, buf, have))
			out->times = TIMES_TLOG;
		f.first = false;
		size_t used = feed_chunk(&f, buf, have, last);
		memmove(buf, buf + used, have - used);
		have -= used;
		if (last)
			break;
	}
	if (out->bytes >= max_bytes) {
		char probe;
		out->cut = read_full(fd, &probe, 1) == 1;
	}
	free(buf);
	close(fd);
	if (out->cut) {
		char *why = xasprintf("stopped reading %s at %llu bytes (--max-bytes): the rest of "
				      "the log is not judged", path, (unsigned long long)out->bytes);
		warning("%s", why);
		judge_console_cut(j, out->last_t, why);
		free(why);
	} else {
		judge_console_ended(j, out->last_t);
	}
	return 0;
}

bool judgelog_parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMGT";
	uint64_t v = 0;
	size_t i = 0;
	if (!s || !isdigit((unsigned char)s[0]))
		return false;
	for (; isdigit((unsigned char)s[i]); i++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	const char *u = s[i] ? strchr(units, s[i]) : NULL;
	if (s[i] && (!u || s[i + 1]))
		return false;
	for (int shift = u ? 10 * (int)(u - units + 1) : 0; shift > 0; shift -= 10) {
		if (v > UINT64_MAX >> 10)
			return false;
		v <<= 10;
	}
	if (v == 0)
		return false;
	*out = v;
	return true;
}

struct judge *judgelog_judge(const char *path, uint64_t max_bytes, struct judged_log *out)
{
	struct judge_limits none = { .silence = 0 };
	struct judge *j = judge_new(&none);
	if (judgelog_feed(j, path, max_bytes, out) < 0) {
		int saved = errno;
		judge_free(j);
		errno = saved;
		return NULL;
	}
	judge_finish(j, out->last_t);
	return j;
}
