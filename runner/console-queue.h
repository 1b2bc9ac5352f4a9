/*
 * console-queue.h: the console bytes of one machine, on their way from the
 * backend's thread that receives them to the runner's thread that reads
 * them (backend.h's console_fd() and console_read()). Every backend hands
 * its console over through one: libvirt's event thread (a daemon's console
 * stream, the embedded driver's serial log), a board's thread (the serial
 * line, after U-Boot) and LAVA's follower (the job log's console lines).
 *
 * The contract:
 *
 *   1. Order. Bytes are read exactly once, in the order they were
 *      appended; none is lost while the queue is open (appends from
 *      several threads are each kept whole, in the order they took the
 *      lock).
 *   2. Stamps. An append may carry a stamp (seconds since power-on, in the
 *      backend's own timeline: LAVA's log times); a read says the stamp of
 *      the bytes it returns. One read never returns bytes of two stamped
 *      appends: a stamped chunk is read alone (in pieces when the reader's
 *      buffer is smaller), so each byte keeps its own stamp. Unstamped
 *      appends (CONSOLE_NO_STAMP) follow one another freely in a read: the
 *      runner stamps them with its own clock when it reads them.
 *   3. Wake-ups. console_queue_fd() is a descriptor for poll(): readable
 *      while bytes wait, once the queue is closed (for good), and after a
 *      console_queue_wake() until the next read. Reading it is the queue's
 *      business, never the caller's.
 *   4. End. A producer (or the backend's stop()) closes the queue with a
 *      reason; bytes queued before are still read, then every read
 *      returns -1. Appends after the close are refused (dropped, -1).
 *   5. Bounds. limit 0: the queue grows as needed and an append never
 *      waits (libvirt's event thread and LAVA's follower must not block;
 *      LAVA's log is in memory anyway). limit > 0: at most limit bytes
 *      wait; an append waits for room (the consumer reads) or for the
 *      close, and then drops the rest: a blocked producer is released by
 *      console_queue_close(), which the backend's stop() calls before it
 *      joins its thread. Never call a waiting append while holding a lock
 *      the consumer takes.
 *   6. Locking. The queue has its own mutex, a leaf: its functions call
 *      nothing that takes another lock, so they may be called with the
 *      backend's own lock held (libvirt's event thread holds the
 *      machine's).
 *   7. Life. console_queue_free() only once no producer can call in (its
 *      thread joined, libvirt's stream callback gone); the consumer's
 *      calls end with the backend's release(). None of these functions is
 *      async-signal-safe: emergency_stop() never touches a queue.
 */
#ifndef BOOTRIG_CONSOLE_QUEUE_H
#define BOOTRIG_CONSOLE_QUEUE_H

#include <math.h>
#include <stddef.h>
#include <sys/types.h>

/* The stamp of bytes that have none (tell it with isnan()). */
#define CONSOLE_NO_STAMP NAN

/* Why a queue was closed (console_queue_end()). */
enum console_end {
	CONSOLE_OPEN,                /* not closed */
	CONSOLE_EOF,                 /* the source ended: the machine stopped, the job finished */
	CONSOLE_ERROR,               /* the source broke (a stream error, a read error) */
	CONSOLE_STOPPED,             /* the backend's stop(): nothing more is wanted */
};

struct console_queue;

/*
 * console_queue_new: an empty open queue holding at most limit bytes (0:
 * no limit; see 5.). NULL with errno set when its descriptor cannot be
 * made (too many open files).
 */
struct console_queue *console_queue_new(size_t limit);

/* Frees q (NULL: nothing) and closes its descriptor; see 7. */
void console_queue_free(struct console_queue *q);

/*
 * console_queue_append: n bytes (a copy is kept) with their stamp, or
 * CONSOLE_NO_STAMP. Returns 0, or -1 when the queue is closed (before or
 * while the append waited for room: the bytes not yet queued are dropped).
 */
int console_queue_append(struct console_queue *q, const void *bytes, size_t n, double stamp);

/*
 * console_queue_close: the end of the console (the first call's reason
 * is kept; later ones change nothing). Any thread. q NULL: nothing.
 */
void console_queue_close(struct console_queue *q, enum console_end why);

/* Makes the descriptor readable until the next read, with no byte (the
 * producer saw a change the consumer should look at: a state change).
 * q NULL: nothing. */
void console_queue_wake(struct console_queue *q);

/* The descriptor to poll() (see 3.); -1 for q NULL. */
int console_queue_fd(const struct console_queue *q);

/*
 * console_queue_read: up to len waiting bytes into buf, without waiting.
 * Returns how many (> 0), with their stamp in *stamp (when stamp is not
 * NULL; CONSOLE_NO_STAMP for unstamped bytes); 0 when none waits now; -1
 * once the queue is closed and every byte was read, and for q NULL (no
 * console).
 */
ssize_t console_queue_read(struct console_queue *q, char *buf, size_t len, double *stamp);

/* The bytes waiting to be read (q NULL: 0). */
size_t console_queue_len(struct console_queue *q);

/* Why q was closed, or CONSOLE_OPEN (q NULL: CONSOLE_EOF, no console). */
enum console_end console_queue_end(struct console_queue *q);

#endif
