/*
 * console-queue.c: one machine's console bytes between a backend's thread
 * and the runner's (console-queue.h has the contract).
 *
 * The bytes wait in a list of chunks: a stamped append is a chunk of its
 * own, unstamped appends fill the last unstamped chunk. The descriptor is
 * a pipe holding at most one byte: it is written when the queue becomes
 * worth reading (bytes, the close, a wake) and emptied by the read that
 * leaves nothing to read, so poll() says exactly what console_queue_read()
 * will find. Everything is under q->lock; a producer waiting for room
 * waits on q->room, which a read or the close signals.
 *
 * Divided into: the chunks and the descriptor; the producer's side; the
 * consumer's side.
 */
#include "console-queue.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The smallest chunk made for unstamped bytes (later appends fill it). */
#define CHUNK_MIN 4096

struct chunk {
	struct chunk *next;
	size_t off, len, cap;        /* data[off..len) waits to be read */
	bool stamped;
	double stamp;
	char data[];
};

struct console_queue {
	pthread_mutex_t lock;
	pthread_cond_t room;         /* a read made room, or the queue closed */
	int fd[2];                   /* the wake-up pipe: [0] for poll() */
	bool ready;                  /* its one byte is in it */
	enum console_end end;
	size_t limit;                /* 0: none */
	size_t len;                  /* bytes waiting, in every chunk */
	struct chunk *head, *tail;
};

/* ---------------------------------------------------------------- chunks, descriptor */

/* Makes the descriptor readable (under lock). */
static void set_ready(struct console_queue *q)
{
	if (q->ready)
		return;
	ssize_t w;
	do
		w = write(q->fd[1], "", 1);
	while (w < 0 && errno == EINTR);
	q->ready = w == 1;
}

/* Makes it unreadable again (under lock). */
static void clear_ready(struct console_queue *q)
{
	char drain[8];
	while (q->ready && read(q->fd[0], drain, sizeof(drain)) > 0)
		;
	q->ready = false;
}

/* Queues n bytes with their stamp (under lock; room already checked). */
static void add_bytes(struct console_queue *q, const char *bytes, size_t n, double stamp)
{
	bool stamped = !isnan(stamp);
	struct chunk *c = q->tail;
	if (stamped || !c || c->stamped || c->cap - c->len < n) {
		size_t cap = stamped || n > CHUNK_MIN ? n : CHUNK_MIN;
		c = xmalloc(sizeof(*c) + cap);
		*c = (struct chunk){ .cap = cap, .stamped = stamped, .stamp = stamped ? stamp : 0 };
		if (q->tail)
			q->tail->next = c;
		else
			q->head = c;
		q->tail = c;
	}
	memcpy(c->data + c->len, bytes, n);
	c->len += n;
	q->len += n;
}

struct console_queue *console_queue_new(size_t limit)
{
	struct console_queue *q = xcalloc(1, sizeof(*q));
	if (pipe2(q->fd, O_CLOEXEC | O_NONBLOCK) < 0) {
		int saved = errno;
		free(q);
		errno = saved;
		return NULL;
	}
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->room, NULL);
	q->limit = limit;
	q->end = CONSOLE_OPEN;
	return q;
}

void console_queue_free(struct console_queue *q)
{
	if (!q)
		return;
	for (struct chunk *c = q->head, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	close(q->fd[0]);
	close(q->fd[1]);
	pthread_cond_destroy(&q->room);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

int console_queue_fd(const struct console_queue *q)
{
	return q ? q->fd[0] : -1;
}

/* ---------------------------------------------------------------- the producer */

int console_queue_append(struct console_queue *q, const void *bytes, size_t n, double stamp)
{
	const char *p = bytes;
	int rc = 0;
	pthread_mutex_lock(&q->lock);
	for (;;) {
		if (q->end != CONSOLE_OPEN) {
			rc = -1;
			break;
		}
		if (!n)
			break;
		if (q->limit && q->len >= q->limit) {
			pthread_cond_wait(&q->room, &q->lock);
			continue;
		}
		size_t take = q->limit && q->limit - q->len < n ? q->limit - q->len : n;
		add_bytes(q, p, take, stamp);
		set_ready(q);
		p += take;
		n -= take;
	}
	pthread_mutex_unlock(&q->lock);
	return rc;
}

void console_queue_close(struct console_queue *q, enum console_end why)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	if (q->end == CONSOLE_OPEN) {
		q->end = why == CONSOLE_OPEN ? CONSOLE_EOF : why;
		set_ready(q);
		pthread_cond_broadcast(&q->room);
	}
	pthread_mutex_unlock(&q->lock);
}

void console_queue_wake(struct console_queue *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	set_ready(q);
	pthread_mutex_unlock(&q->lock);
}

/* ---------------------------------------------------------------- the consumer */

ssize_t console_queue_read(struct console_queue *q, char *buf, size_t len, double *stamp)
{
	if (stamp)
		*stamp = CONSOLE_NO_STAMP;
	if (!q)
		return -1;
	size_t n = 0;
	pthread_mutex_lock(&q->lock);
	for (struct chunk *c; (c = q->head) && n < len;) {
		if (n && c->stamped)
			break;      /* a stamped chunk is read alone */
		size_t k = c->len - c->off < len - n ? c->len - c->off : len - n;
		memcpy(buf + n, c->data + c->off, k);
		c->off += k;
		n += k;
		q->len -= k;
		bool stamped = c->stamped;
		if (stamped && stamp)
			*stamp = c->stamp;
		if (c->off == c->len) {
			q->head = c->next;
			if (!q->head)
				q->tail = NULL;
			free(c);
		}
		if (stamped)
			break;
	}
	if (n && q->limit)
		pthread_cond_broadcast(&q->room);
	if (!q->len && q->end == CONSOLE_OPEN)
		clear_ready(q);     /* nothing more, and any wake is seen */
	ssize_t rc = n ? (ssize_t)n : q->end != CONSOLE_OPEN ? -1 : 0;
	pthread_mutex_unlock(&q->lock);
	return rc;
}

size_t console_queue_len(struct console_queue *q)
{
	if (!q)
		return 0;
	pthread_mutex_lock(&q->lock);
	size_t n = q->len;
	pthread_mutex_unlock(&q->lock);
	return n;
}

enum console_end console_queue_end(struct console_queue *q)
{
	if (!q)
		return CONSOLE_EOF;
	pthread_mutex_lock(&q->lock);
	enum console_end e = q->end;
	pthread_mutex_unlock(&q->lock);
	return e;
}
