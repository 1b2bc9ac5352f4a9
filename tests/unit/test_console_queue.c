/*
 * test_console_queue.c: the console queue every backend hands its console
 * through (runner/console-queue.c): order across many appends from a
 * thread, bounded or not; poll() readable exactly when bytes wait, after a
 * wake and at the close; small reads; a large burst; a stamp kept per
 * stamped chunk; the close with bytes still queued (all read before the
 * end); appends after the close refused, a producer waiting for room freed
 * by the close.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "console-queue.h"
#include "util.h"

/* Is q's descriptor readable now? */
static bool readable(const struct console_queue *q)
{
	struct pollfd p = { .fd = console_queue_fd(q), .events = POLLIN };
	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* The byte at position i of the producer's stream: a pattern whose
 * period (251) shares nothing with the append and read sizes. */
static char pattern(size_t i)
{
	return (char)(i % 251);
}

struct producer {
	struct console_queue *q;
	size_t total;                /* bytes to append, in appends of 1..97 bytes */
	int rc;                      /* the last append's */
};

static void *produce(void *arg)
{
	struct producer *p = arg;
	char buf[97];
	size_t i = 0;
	for (size_t k = 1; i < p->total; k = k % 97 + 1) {
		size_t n = k < p->total - i ? k : p->total - i;
		for (size_t j = 0; j < n; j++)
			buf[j] = pattern(i + j);
		if ((p->rc = console_queue_append(p->q, buf, n, CONSOLE_NO_STAMP)) < 0)
			return NULL;
		i += n;
	}
	console_queue_close(p->q, CONSOLE_EOF);
	return NULL;
}

/* Reads q as the runner does (poll, then read in bufsize pieces until it
 * would wait) until the end; checks every byte against the pattern and,
 * with a limit, that no more than limit bytes ever waited. */
static size_t consume(struct console_queue *q, size_t bufsize, size_t limit)
{
	char *buf = xmalloc(bufsize);
	size_t got = 0;
	for (;;) {
		struct pollfd p = { .fd = console_queue_fd(q), .events = POLLIN };
		assert_int_equal(poll(&p, 1, -1), 1);
		if (limit)
			assert_true(console_queue_len(q) <= limit);
		ssize_t n;
		double t;
		while ((n = console_queue_read(q, buf, bufsize, &t)) > 0) {
			assert_true(isnan(t));
			for (ssize_t j = 0; j < n; j++)
				if (buf[j] != pattern(got + (size_t)j))
					fail_msg("byte %zu is %d, not %d", got + (size_t)j, buf[j],
						 pattern(got + (size_t)j));
			got += (size_t)n;
		}
		if (n < 0)
			break;
	}
	free(buf);
	return got;
}

static void order_across_appends_from_a_thread(size_t limit, size_t bufsize)
{
	struct producer p = { console_queue_new(limit), 3u << 20, 0 };
	assert_non_null(p.q);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, produce, &p), 0);
	assert_int_equal(consume(p.q, bufsize, limit), p.total);
	pthread_join(th, NULL);
	assert_int_equal(p.rc, 0);
	assert_int_equal(console_queue_end(p.q), CONSOLE_EOF);
	console_queue_free(p.q);
}

static void unbounded_keeps_order(void **state)
{
	(void)state;
	order_across_appends_from_a_thread(0, 16384);
}

/* The producer waits for room again and again: nothing lost or reordered. */
static void bounded_keeps_order_and_its_bound(void **state)
{
	(void)state;
	order_across_appends_from_a_thread(1000, 61);
}

static void poll_says_readable_when_bytes_wait_and_at_close(void **state)
{
	(void)state;
	struct console_queue *q = console_queue_new(0);
	char buf[16];
	assert_false(readable(q));
	assert_int_equal(console_queue_read(q, buf, sizeof(buf), NULL), 0);
	assert_int_equal(console_queue_append(q, "ab", 2, CONSOLE_NO_STAMP), 0);
	assert_true(readable(q));
	assert_int_equal(console_queue_read(q, buf, 1, NULL), 1);
	assert_true(readable(q));                      /* "b" still waits */
	assert_int_equal(console_queue_read(q, buf, sizeof(buf), NULL), 1);
	assert_false(readable(q));
	/* a wake: readable with no byte, until the next read */
	console_queue_wake(q);
	assert_true(readable(q));
	assert_int_equal(console_queue_read(q, buf, sizeof(buf), NULL), 0);
	assert_false(readable(q));
	console_queue_close(q, CONSOLE_EOF);
	assert_true(readable(q));
	assert_int_equal(console_queue_read(q, buf, sizeof(buf), NULL), -1);
	assert_true(readable(q));                      /* for good */
	assert_int_equal(console_queue_read(q, buf, sizeof(buf), NULL), -1);
	console_queue_free(q);
}

static void small_reads_take_the_bytes_in_order(void **state)
{
	(void)state;
	struct console_queue *q = console_queue_new(0);
	const char *parts[] = { "Lin", "ux version 6.1", "", "\n", "ok\n" };
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		assert_int_equal(console_queue_append(q, parts[i], strlen(parts[i]), CONSOLE_NO_STAMP), 0);
	assert_int_equal(console_queue_len(q), 21);
	char out[32] = "", buf[3];
	size_t got = 0;
	ssize_t n;
	while ((n = console_queue_read(q, buf, sizeof(buf), NULL)) > 0) {
		assert_true(n <= 3);
		memcpy(out + got, buf, (size_t)n);
		got += (size_t)n;
	}
	assert_int_equal(n, 0);
	assert_int_equal(got, 21);
	assert_memory_equal(out, "Linux version 6.1\nok\n", 21);
	console_queue_free(q);
}

/* 8 MiB in one append: kept whole, read back in the runner's 16 KiB. */
static void a_large_burst_is_kept(void **state)
{
	(void)state;
	size_t total = 8u << 20;
	char *big = xmalloc(total);
	for (size_t i = 0; i < total; i++)
		big[i] = pattern(i);
	struct console_queue *q = console_queue_new(0);
	assert_int_equal(console_queue_append(q, big, total, CONSOLE_NO_STAMP), 0);
	free(big);
	console_queue_close(q, CONSOLE_EOF);
	assert_int_equal(consume(q, 16384, 0), total);
	console_queue_free(q);
}

/* A bounded queue takes a burst larger than its bound in pieces. */
static void a_large_burst_through_a_bound(void **state)
{
	(void)state;
	struct producer p = { console_queue_new(4096), 1u << 20, 0 };
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, produce, &p), 0);
	assert_int_equal(consume(p.q, 100000, 4096), p.total);
	pthread_join(th, NULL);
	console_queue_free(p.q);
}

/* Reads a stamped chunk: n bytes, their text and stamp. */
static void expect(struct console_queue *q, size_t bufsize, const char *text, double stamp)
{
	char buf[64];
	double t = -99;
	ssize_t n = console_queue_read(q, buf, bufsize, &t);
	assert_int_equal(n, (ssize_t)strlen(text));
	assert_memory_equal(buf, text, strlen(text));
	if (isnan(stamp))
		assert_true(isnan(t));
	else
		assert_true(t == stamp);
}

/* LAVA's lines: each read is one stamped chunk (or a piece of it), never
 * two, so each byte keeps its own line's time; unstamped bytes run on. */
static void stamps_are_kept_per_chunk(void **state)
{
	(void)state;
	struct console_queue *q = console_queue_new(0);
	assert_int_equal(console_queue_append(q, "a\n", 2, 1.0), 0);
	assert_int_equal(console_queue_append(q, "b\n", 2, 1.0), 0);
	assert_int_equal(console_queue_append(q, "ccc\n", 4, 2.5), 0);
	assert_int_equal(console_queue_append(q, "x", 1, CONSOLE_NO_STAMP), 0);
	assert_int_equal(console_queue_append(q, "y", 1, CONSOLE_NO_STAMP), 0);
	assert_int_equal(console_queue_append(q, "z\n", 2, 0.0), 0);
	expect(q, 64, "a\n", 1.0);
	expect(q, 64, "b\n", 1.0);
	expect(q, 3, "ccc", 2.5);
	expect(q, 64, "\n", 2.5);
	expect(q, 64, "xy", CONSOLE_NO_STAMP);
	expect(q, 64, "z\n", 0.0);
	assert_int_equal(console_queue_read(q, (char[4]){ 0 }, 4, NULL), 0);
	console_queue_free(q);
}

static void close_with_bytes_queued_reads_them_all_first(void **state)
{
	(void)state;
	struct console_queue *q = console_queue_new(0);
	assert_int_equal(console_queue_append(q, "end of ", 7, CONSOLE_NO_STAMP), 0);
	assert_int_equal(console_queue_append(q, "the line\n", 9, 4.0), 0);
	console_queue_close(q, CONSOLE_ERROR);
	console_queue_close(q, CONSOLE_STOPPED);       /* the first reason stays */
	assert_int_equal(console_queue_end(q), CONSOLE_ERROR);
	/* append after close: refused, nothing queued */
	assert_int_equal(console_queue_append(q, "late", 4, CONSOLE_NO_STAMP), -1);
	assert_int_equal(console_queue_len(q), 16);
	expect(q, 64, "end of ", CONSOLE_NO_STAMP);
	expect(q, 64, "the line\n", 4.0);
	char buf[8];
	assert_int_equal(console_queue_read(q, buf, sizeof(buf), NULL), -1);
	console_queue_free(q);
}

/* A producer waiting for room (the runner stopped reading) is freed by
 * the close, as a backend's stop() does before it joins its thread. */
static void the_close_frees_a_waiting_producer(void **state)
{
	(void)state;
	struct producer p = { console_queue_new(10), 1000, 0 };
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, produce, &p), 0);
	while (console_queue_len(p.q) < 10)
		sched_yield();
	console_queue_close(p.q, CONSOLE_STOPPED);
	pthread_join(th, NULL);
	assert_int_equal(p.rc, -1);
	assert_int_equal(console_queue_end(p.q), CONSOLE_STOPPED);
	char buf[64];
	assert_int_equal(console_queue_read(p.q, buf, sizeof(buf), NULL), 10);
	assert_int_equal(console_queue_read(p.q, buf, sizeof(buf), NULL), -1);
	console_queue_free(p.q);
}

/* No queue (a machine whose power-on failed first): no descriptor, ended. */
static void no_queue_is_an_ended_console(void **state)
{
	(void)state;
	char buf[4];
	assert_int_equal(console_queue_fd(NULL), -1);
	assert_int_equal(console_queue_read(NULL, buf, sizeof(buf), NULL), -1);
	assert_int_equal(console_queue_len(NULL), 0);
	console_queue_close(NULL, CONSOLE_EOF);
	console_queue_wake(NULL);
	console_queue_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unbounded_keeps_order),
		cmocka_unit_test(bounded_keeps_order_and_its_bound),
		cmocka_unit_test(poll_says_readable_when_bytes_wait_and_at_close),
		cmocka_unit_test(small_reads_take_the_bytes_in_order),
		cmocka_unit_test(a_large_burst_is_kept),
		cmocka_unit_test(a_large_burst_through_a_bound),
		cmocka_unit_test(stamps_are_kept_per_chunk),
		cmocka_unit_test(close_with_bytes_queued_reads_them_all_first),
		cmocka_unit_test(the_close_frees_a_waiting_producer),
		cmocka_unit_test(no_queue_is_an_ended_console),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
