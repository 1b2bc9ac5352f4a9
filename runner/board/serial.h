/*
 * serial.h: a board's serial console line, as bootrig reaches it.
 *
 * Three kinds of line, named by a URI in the board's config:
 *
 *   /dev/ttyUSB0, tty:/dev/ttyUSB0   a tty: raw, 8N1, the board's baud rate
 *   tcp:HOST:PORT                    a raw TCP port (ser2net "raw")
 *   telnet:HOST:PORT                 a telnet port (ser2net "telnet"): IAC
 *                                    sequences are answered and removed
 *   unix:PATH                        a unix stream socket (QEMU's chardev)
 *
 * The line is opened before the board is powered on, but it need not exist
 * yet: USB serial adapters powered by the board appear after power-on, and
 * they vanish on a power cycle; a socket's peer may close it. serial_read()
 * therefore reconnects by itself, every retry interval, and records each
 * outage as a gap (lost at, back at: seconds since the line's epoch). The
 * bytes sent while the line was down are lost; what was received is never
 * altered, except for telnet's own commands.
 *
 * Fault injection (for the tests, SQLite-style): $BOOTRIG_FAULT_SERIAL_DROP
 * = "T[:D]" makes the line drop itself once, T seconds after
 * serial_arm_fault() (the board backend calls it when the kernel starts),
 * and refuse to reconnect for D seconds (default 1), as an adapter that
 * vanishes and comes back.
 */
#ifndef BOOTRIG_SERIAL_H
#define BOOTRIG_SERIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum serial_kind { SERIAL_TTY, SERIAL_TCP, SERIAL_TELNET, SERIAL_UNIX };

/* Telnet receive state, kept across reads (see telnet_filter()). */
struct telnet {
	int state;              /* where in an IAC sequence the last byte left us */
	unsigned char verb;     /* WILL/WONT/DO/DONT being read */
};

struct serial_gap {
	double lost;            /* seconds since the epoch */
	double back;            /* < 0 while the line is still down */
};

struct serial {
	enum serial_kind kind;
	char *uri;              /* as configured, for messages */
	char *path;             /* tty device or socket path */
	char *host, *port;      /* tcp/telnet */
	int baud;               /* tty only */
	int fd;                 /* -1 while the line is down */
	double epoch;           /* now_monotonic() at serial_set_epoch() */
	double retry_interval;  /* seconds between reconnection attempts */
	double next_retry;      /* monotonic time of the next attempt */
	struct telnet telnet;
	struct serial_gap *gaps;
	size_t n_gaps;
	bool ever_up;           /* connected at least once */
	char last_error[256];   /* why the last connection attempt failed */
	double fault_drop_at;   /* fault injection: < 0 off */
	double fault_down_for;
	double fault_back_after;
};

/*
 * serial_parse: fill s from a URI (forms above) and a baud rate (ttys).
 * Returns 0, or -1 with a one-line reason in why (lib/usage.h, 4.).
 */
int serial_parse(const char *uri, int baud, struct serial *s, char *why, size_t len);

/* Times in gaps are measured from here (power-on). */
void serial_set_epoch(struct serial *s, double monotonic_now);

/* Arms $BOOTRIG_FAULT_SERIAL_DROP (above) from now; no-op when unset. */
void serial_arm_fault(struct serial *s);

/* One connection attempt when down. 0 connected, -1 not (last_error set). */
int serial_connect(struct serial *s);

/* True while a connection is up. */
bool serial_is_up(const struct serial *s);

/*
 * serial_read: wait up to timeout seconds for bytes (reconnecting when the
 * line is down). Returns the bytes read (> 0) or 0 when none came in time.
 * A lost line is recorded as a gap and never reported as an error: the
 * caller decides how long silence may last.
 */
ssize_t serial_read(struct serial *s, char *buf, size_t len, double timeout);

/* Writes all n bytes (telnet: IAC doubled). 0, or -1 when the line is down. */
int serial_write(struct serial *s, const void *buf, size_t n);

/* Closes the line and frees what serial_parse() allocated. */
void serial_release(struct serial *s);

/*
 * telnet_filter: remove telnet commands from n received bytes in place;
 * returns the data bytes left. Answers to option negotiation (refuse all
 * but ECHO and SUPPRESS-GO-AHEAD from the server) are appended to reply,
 * reply_len updated (reply must hold 3*n bytes).
 */
size_t telnet_filter(struct telnet *t, unsigned char *buf, size_t n,
		     unsigned char *reply, size_t *reply_len);

#endif
