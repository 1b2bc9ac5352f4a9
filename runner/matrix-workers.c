/*
 * matrix-workers.c: the runner's worker threads (matrix-live.h).
 *
 * Starting a machine and stopping one block for a while (libvirt: ~0.5 s
 * to create a domain and open its console; killing QEMU and destroying the
 * domain). With a backend that allows it (BACKEND_CAP_THREADED_OPS), each of these
 * runs in a worker thread, so that the loop (matrix.c) keeps serving the
 * other boots; the worker touches only the boot's machine (m) and its
 * power-on time, and wakes the loop through a pipe.
 *
 * The workers: a few threads, made before the backend is opened and kept
 * until the run ends, that take one operation at a time from a queue.
 * Made before open(): libvirt loads its drivers (with thread-local data)
 * at open, and threads made after that and ended during the run left
 * LeakSanitizer stale thread data to trip on at exit.
 */
#include "matrix-live.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Written by a worker that finished, read by the loop's poll(). */
static int worker_pipe[2] = { -1, -1 };

static void worker_wake(void)
{
	char c = 1;
	if (write(worker_pipe[1], &c, 1) < 0 && errno != EAGAIN)
		warning("worker pipe: %s", strerror(errno));
}

void workers_open_pipe(void)
{
	if (worker_pipe[0] < 0 && pipe2(worker_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		die("pipe: %s", strerror(errno));
}

int workers_fd(void)
{
	return worker_pipe[0];
}

void workers_drain(void)
{
	char buf[64];
	while (read(worker_pipe[0], buf, sizeof(buf)) > 0)
		;
}

/* b's operation, then its end made known: b->worker_done and the pipe. */
static void run_op(struct live_boot *b)
{
	b->op(b);
	atomic_store(&b->worker_done, true);
	worker_wake();
}

static struct {
	pthread_mutex_t lock;
	pthread_cond_t work;          /* an operation waits, or quit */
	pthread_cond_t done;          /* an operation ended */
	struct live_boot **queue;     /* FIFO of boots whose op waits */
	size_t head, len, cap;
	pthread_t *threads;
	int n;
	bool quit;
} pool = { .lock = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER,
	   .done = PTHREAD_COND_INITIALIZER };

static void *pool_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pool.lock);
	for (;;) {
		while (!pool.len && !pool.quit)
			pthread_cond_wait(&pool.work, &pool.lock);
		if (!pool.len)
			break;
		struct live_boot *b = pool.queue[pool.head];
		pool.head = (pool.head + 1) % pool.cap;
		pool.len--;
		pthread_mutex_unlock(&pool.lock);
		run_op(b);
		pthread_mutex_lock(&pool.lock);
		pthread_cond_broadcast(&pool.done);
	}
	pthread_mutex_unlock(&pool.lock);
	return NULL;
}

/* Starts n workers (fewer if threads cannot be made); they never take
 * SIGINT/SIGTERM: the loop's thread does. */
void workers_start(int n)
{
	pool.cap = (size_t)n;
	pool.queue = xcalloc(pool.cap, sizeof(*pool.queue));
	pool.head = pool.len = 0;
	pool.quit = false;
	pool.threads = xcalloc((size_t)n, sizeof(*pool.threads));
	pool.n = 0;
	sigset_t stop, old;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	for (int i = 0; i < n; i++) {
		int rc = pthread_create(&pool.threads[pool.n], NULL, pool_thread, NULL);
		if (rc) {
			warning("cannot start a worker thread: %s", strerror(rc));
			break;
		}
		pool.n++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* One more worker, in place of one stuck in an operation that overran its
 * deadline (its boot is abandoned; that thread may never return). The
 * queue needs no more room: a stuck operation is no longer queued. */
void workers_add(void)
{
	pthread_mutex_lock(&pool.lock);
	pthread_t *more = realloc(pool.threads, (size_t)(pool.n + 1) * sizeof(*more));
	if (more) {
		pool.threads = more;
		sigset_t stop, old;
		sigemptyset(&stop);
		sigaddset(&stop, SIGINT);
		sigaddset(&stop, SIGTERM);
		pthread_sigmask(SIG_BLOCK, &stop, &old);
		if (pthread_create(&pool.threads[pool.n], NULL, pool_thread, NULL) == 0)
			pool.n++;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	pthread_mutex_unlock(&pool.lock);
}

/* Ends the workers (every operation must have been joined, but those
 * abandoned as stuck): each is given WORKER_JOIN_S to return; one still
 * in a stuck backend call is detached and left to the process's exit. */
#define WORKER_JOIN_S 2
void workers_stop(void)
{
	pthread_mutex_lock(&pool.lock);
	pool.quit = true;
	pthread_cond_broadcast(&pool.work);
	pthread_mutex_unlock(&pool.lock);
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += WORKER_JOIN_S;
	for (int i = 0; i < pool.n; i++)
		if (pthread_timedjoin_np(pool.threads[i], NULL, &until))
			pthread_detach(pool.threads[i]);
	free(pool.threads);
	free(pool.queue);
	pool.threads = NULL;
	pool.queue = NULL;
	pool.n = 0;
}

/*
 * workers_run: has a worker run fn(b) when the backend allows it (and
 * there are workers), else runs it at once in this thread; either way the
 * loop learns of the end from b->worker_done (and the pipe). A boot has
 * one operation at a time, so the queue (one slot per worker, one worker
 * per boot at once) never overflows.
 */
void workers_run(struct live_boot *b, void (*fn)(struct live_boot *b))
{
	atomic_store(&b->worker_done, false);
	b->op = fn;
	b->op_since = now_monotonic();
	if (!backend_can(b->m.backend, BACKEND_CAP_THREADED_OPS) || !pool.n) {
		run_op(b);
		return;
	}
	pthread_mutex_lock(&pool.lock);
	pool.queue[(pool.head + pool.len) % pool.cap] = b;
	pool.len++;
	b->worker_running = true;
	pthread_cond_signal(&pool.work);
	pthread_mutex_unlock(&pool.lock);
}

/* Waits until b's operation, if any, has ended. */
void workers_join(struct live_boot *b)
{
	if (!b->worker_running)
		return;
	pthread_mutex_lock(&pool.lock);
	while (!atomic_load(&b->worker_done))
		pthread_cond_wait(&pool.done, &pool.lock);
	pthread_mutex_unlock(&pool.lock);
	b->worker_running = false;
}
