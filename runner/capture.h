/*
 * capture.h: a boot's console, as the runner keeps it.
 *
 * Every chunk of console bytes the backend hands over is kept twice:
 * console.log gets the raw bytes unchanged; console.tlog gets one line per
 * console line, "[SSSS.mmmmmm] line", stamped with the host monotonic time
 * (seconds since power-on) at which the line's first byte arrived
 * (grabserial-style; a "\r" before the "\n" is dropped there, nowhere
 * else). Both stay in memory and are written whole at the end
 * (write_file_atomic), as runner/RESULTS.md requires.
 */
#ifndef BOOTRIG_CAPTURE_H
#define BOOTRIG_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

struct capture {
	struct strbuf raw;         /* console.log */
	/* Chunk i started at raw offset chunk_off[i], read at chunk_t[i]:
	 * console.tlog is made from these when written. */
	size_t *chunk_off;
	double *chunk_t;
	size_t n_chunks, alloc_chunks;
	size_t recovered;          /* bytes taken from the backend's own log */
	size_t recovered_tail;     /* of them, those after all the stream gave:
				    * the last recovered_tail bytes of raw */
};

void capture_init(struct capture *c);
void capture_release(struct capture *c);

/* n console bytes read at host time t (seconds since power-on). */
void capture_feed(struct capture *c, const char *bytes, size_t n, double t);

/*
 * capture_reconcile: compare what the live stream gave with the backend's
 * own copy of the console (libvirt's serial <log> file; NULL: none) and
 * keep the complete one. Returns the bytes the stream missed, at its start
 * or its end (0 when the stream was complete); see capture.c for the rule.
 */
size_t capture_reconcile(struct capture *c, const char *backend_log);

/* Writes DIR/console.log and DIR/console.tlog (a last unterminated line is
 * stamped too). 0 or -1 (error printed). */
int capture_write(struct capture *c, const char *dir);

#endif
