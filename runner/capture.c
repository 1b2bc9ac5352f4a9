/*
 * capture.c: console bytes -> console.log and console.tlog (capture.h).
 *
 * The bytes are kept as they came, with a table of when each chunk came;
 * console.tlog is made from both when the files are written, so a line's
 * stamp is the time its first byte arrived.
 */
#include "capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void capture_init(struct capture *c)
{
	memset(c, 0, sizeof(*c));
	strbuf_add(&c->raw, "", 0);
}

void capture_release(struct capture *c)
{
	strbuf_release(&c->raw);
	free(c->chunk_off);
	free(c->chunk_t);
	memset(c, 0, sizeof(*c));
}

/* Appends one chunk stamp (offset, t) to the table. */
static void add_stamp(struct capture *c, size_t off, double t)
{
	if (c->n_chunks == c->alloc_chunks) {
		c->alloc_chunks = c->alloc_chunks ? 2 * c->alloc_chunks : 256;
		c->chunk_off = xrealloc(c->chunk_off, c->alloc_chunks * sizeof(*c->chunk_off));
		c->chunk_t = xrealloc(c->chunk_t, c->alloc_chunks * sizeof(*c->chunk_t));
	}
	c->chunk_off[c->n_chunks] = off;
	c->chunk_t[c->n_chunks] = t;
	c->n_chunks++;
}

void capture_feed(struct capture *c, const char *bytes, size_t n, double t)
{
	if (!n)
		return;
	add_stamp(c, c->raw.len, t);
	strbuf_add(&c->raw, bytes, n);
}

/*
 * capture_reconcile: the live stream is attached while the machine is
 * still paused, so it should see every byte; the backend's log file is
 * written by QEMU itself from the first byte on, whoever listens. When
 * the log file holds more and starts with exactly what the stream gave,
 * the stream lost the end (a daemon's console stream, under load, was
 * seen to end seconds before its domain did): the rest is appended, its
 * bytes stamped with the stream's last stamp (they came no earlier), and
 * recovered_tail says how many, for the judge to read too. When the log
 * ends with exactly what the stream gave, the stream missed the start:
 * console.log takes the log file (the authority for the raw bytes), and
 * the missed lines get the stream's first stamp, the earliest time we can
 * vouch for. When the two differ otherwise (the stream lost bytes in the
 * middle), the longer one is kept and stamps stay at their offsets, which
 * is approximate past the loss. A shorter or missing log file (QEMU
 * killed before flushing) changes nothing.
 */
size_t capture_reconcile(struct capture *c, const char *backend_log)
{
	char *log = NULL;
	size_t len = 0;
	if (!backend_log || read_file(backend_log, &log, &len) < 0 || len <= c->raw.len) {
		free(log);
		return 0;
	}
	size_t missed = len - c->raw.len;
	bool prefix = !memcmp(log, c->raw.buf, c->raw.len);
	bool suffix = !prefix && !memcmp(log + missed, c->raw.buf, c->raw.len);
	double first = c->n_chunks ? c->chunk_t[0] : 0.0;
	if (prefix) {
		c->recovered_tail = missed;
		if (!c->n_chunks)
			add_stamp(c, 0, 0.0);
	} else if (suffix) {
		for (size_t i = 0; i < c->n_chunks; i++)
			c->chunk_off[i] += missed;
		add_stamp(c, 0, first);
		/* keep the table sorted by offset: the new stamp goes first */
		memmove(c->chunk_off + 1, c->chunk_off, (c->n_chunks - 1) * sizeof(*c->chunk_off));
		memmove(c->chunk_t + 1, c->chunk_t, (c->n_chunks - 1) * sizeof(*c->chunk_t));
		c->chunk_off[0] = 0;
		c->chunk_t[0] = first;
	} else if (!c->n_chunks) {
		add_stamp(c, 0, 0.0);
	}
	strbuf_release(&c->raw);
	c->raw.buf = log;
	c->raw.len = len;
	c->raw.alloc = len + 1;
	c->recovered = missed;
	return missed;
}

/* The stamp of the byte at offset off: its chunk's time. *i walks the
 * table forward (offsets only grow while the tlog is made). */
static double stamp_at(const struct capture *c, size_t off, size_t *i)
{
	while (*i + 1 < c->n_chunks && c->chunk_off[*i + 1] <= off)
		(*i)++;
	return c->n_chunks ? c->chunk_t[*i] : 0.0;
}

/* Makes console.tlog's text from the bytes and the stamps. */
static void make_tlog(const struct capture *c, struct strbuf *out)
{
	size_t i = 0, pos = 0;
	while (pos < c->raw.len) {
		const char *start = c->raw.buf + pos;
		const char *nl = memchr(start, '\n', c->raw.len - pos);
		size_t n = nl ? (size_t)(nl - start) : c->raw.len - pos;
		double t = stamp_at(c, pos, &i);
		size_t shown = n && start[n - 1] == '\r' ? n - 1 : n;
		strbuf_addf(out, "[%011.6f] ", t);
		strbuf_add(out, start, shown);
		strbuf_addstr(out, "\n");
		pos += n + (nl ? 1 : 0);
	}
}

int capture_write(struct capture *c, const char *dir)
{
	char *log = xasprintf("%s/console.log", dir);
	char *tlog = xasprintf("%s/console.tlog", dir);
	struct strbuf text = STRBUF_INIT;
	make_tlog(c, &text);
	int rc = write_file_atomic(log, c->raw.buf, c->raw.len);
	if (rc == 0)
		rc = write_file_atomic(tlog, text.buf ? text.buf : "", text.len);
	strbuf_release(&text);
	free(log);
	free(tlog);
	return rc;
}
