/*
 * serial.c: a board's serial console line (see serial.h): parsing the URI,
 * connecting each kind (tty with termios, TCP, telnet, unix socket),
 * reading with reconnection and gap records, writing, and telnet's IAC
 * filter.
 */
#include "serial.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* Telnet bytes (RFC 854, 857, 858). */
enum {
	TN_SE = 240, TN_SB = 250, TN_WILL = 251, TN_WONT = 252, TN_DO = 253,
	TN_DONT = 254, TN_IAC = 255, TNOPT_ECHO = 1, TNOPT_SGA = 3,
};
enum { TS_DATA, TS_IAC, TS_OPT, TS_SB, TS_SB_IAC };

/* ---------------------------------------------------------------- parsing */

/* Splits "HOST:PORT" (HOST may be [v6]) into s->host and s->port. */
static int parse_host_port(const char *hp, struct serial *s, char *why, size_t len)
{
	const char *colon = strrchr(hp, ':');
	if (!colon || colon == hp || !colon[1]) {
		snprintf(why, len, "'%s': expected HOST:PORT", hp);
		return -1;
	}
	const char *h = hp, *h_end = colon;
	if (*h == '[' && h_end[-1] == ']') {
		h++;
		h_end--;
	}
	s->host = xasprintf("%.*s", (int)(h_end - h), h);
	s->port = xstrdup(colon + 1);
	return 0;
}

int serial_parse(const char *uri, int baud, struct serial *s, char *why, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->baud = baud > 0 ? baud : 115200;
	s->retry_interval = 0.1;
	s->fault_drop_at = -1;
	s->uri = xstrdup(uri);
	int rc = 0;
	if (!strncmp(uri, "tcp:", 4)) {
		s->kind = SERIAL_TCP;
		rc = parse_host_port(uri + 4, s, why, len);
	} else if (!strncmp(uri, "telnet:", 7)) {
		s->kind = SERIAL_TELNET;
		rc = parse_host_port(uri + 7, s, why, len);
	} else if (!strncmp(uri, "unix:", 5) && uri[5]) {
		s->kind = SERIAL_UNIX;
		s->path = xstrdup(uri + 5);
		if (strlen(s->path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
			snprintf(why, len, "'%s': socket path too long", uri);
			rc = -1;
		}
	} else if (!strncmp(uri, "tty:", 4) && uri[4] == '/') {
		s->kind = SERIAL_TTY;
		s->path = xstrdup(uri + 4);
	} else if (uri[0] == '/') {
		s->kind = SERIAL_TTY;
		s->path = xstrdup(uri);
	} else {
		snprintf(why, len, "'%s': not a serial line (/dev/ttyX, tcp:HOST:PORT, "
			 "telnet:HOST:PORT or unix:PATH)", uri);
		rc = -1;
	}
	if (rc < 0)
		serial_release(s);
	return rc;
}

void serial_set_epoch(struct serial *s, double monotonic_now)
{
	s->epoch = monotonic_now;
	s->fault_drop_at = -1;
}

void serial_arm_fault(struct serial *s)
{
	const char *fault = getenv("BOOTRIG_FAULT_SERIAL_DROP");
	if (fault && *fault) {
		char *end;
		double at = strtod(fault, &end);
		double down = *end == ':' ? strtod(end + 1, NULL) : 1.0;
		if (at >= 0) {
			s->fault_drop_at = now_monotonic() - s->epoch + at;
			s->fault_down_for = down > 0 ? down : 1.0;
		}
	}
}

/* ------------------------------------------------------------- connecting */

static speed_t baud_constant(int baud)
{
	static const struct { int baud; speed_t c; } table[] = {
		{ 9600, B9600 }, { 19200, B19200 }, { 38400, B38400 },
		{ 57600, B57600 }, { 115200, B115200 }, { 230400, B230400 },
		{ 460800, B460800 }, { 500000, B500000 }, { 921600, B921600 },
		{ 1000000, B1000000 }, { 1500000, B1500000 }, { 3000000, B3000000 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		if (table[i].baud == baud)
			return table[i].c;
	return 0;
}

/* Opens the tty raw, 8N1, no flow control, at s->baud. fd or -1. */
static int open_tty(struct serial *s)
{
	speed_t speed = baud_constant(s->baud);
	if (!speed) {
		snprintf(s->last_error, sizeof(s->last_error), "unsupported baud rate %d", s->baud);
		errno = EINVAL;
		return -1;
	}
	int fd = open(s->path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct termios tio;
	if (tcgetattr(fd, &tio) == 0) {
		cfmakeraw(&tio);
		tio.c_cflag &= ~(tcflag_t)(CSTOPB | PARENB | CRTSCTS | CSIZE);
		tio.c_cflag |= CS8 | CLOCAL | CREAD;
		tio.c_iflag &= ~(tcflag_t)(IXON | IXOFF | IXANY);
		tio.c_cc[VMIN] = 0;
		tio.c_cc[VTIME] = 0;
		cfsetispeed(&tio, speed);
		cfsetospeed(&tio, speed);
		if (tcsetattr(fd, TCSANOW, &tio) < 0) {
			int saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
		tcflush(fd, TCIFLUSH);
	}
	/* Not a tty (a FIFO, a file in a test): used as it is. */
	return fd;
}

static int open_unix(struct serial *s)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	memcpy(sa.sun_path, s->path, strlen(s->path) + 1);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

static int open_tcp(struct serial *s)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	int gai = getaddrinfo(s->host, s->port, &hints, &res);
	if (gai) {
		snprintf(s->last_error, sizeof(s->last_error), "%s:%s: %s", s->host, s->port,
			 gai_strerror(gai));
		errno = EHOSTUNREACH;
		return -1;
	}
	int fd = -1;
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
			int saved = errno;
			close(fd);
			fd = -1;
			errno = saved;
		}
	}
	freeaddrinfo(res);
	return fd;
}

/* Records the end of the current gap, if one is open. */
static void close_gap(struct serial *s, double now)
{
	if (s->n_gaps && s->gaps[s->n_gaps - 1].back < 0)
		s->gaps[s->n_gaps - 1].back = now - s->epoch;
}

int serial_connect(struct serial *s)
{
	if (s->fd >= 0)
		return 0;
	double now = now_monotonic();
	if (s->fault_back_after > 0 && now < s->fault_back_after) {
		snprintf(s->last_error, sizeof(s->last_error), "line held down (fault injection)");
		return -1;
	}
	s->last_error[0] = '\0';
	int fd = s->kind == SERIAL_TTY ? open_tty(s) :
		 s->kind == SERIAL_UNIX ? open_unix(s) : open_tcp(s);
	if (fd < 0) {
		if (!s->last_error[0])
			snprintf(s->last_error, sizeof(s->last_error), "%s: %s", s->uri,
				 strerror(errno));
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	s->fd = fd;
	s->telnet = (struct telnet){ 0 };
	s->ever_up = true;
	close_gap(s, now);
	return 0;
}

bool serial_is_up(const struct serial *s)
{
	return s->fd >= 0;
}

/* The line broke (EOF, an error, the fault timer): close it, open a gap. */
static void lose_line(struct serial *s, double now)
{
	if (s->fd < 0)
		return;
	close(s->fd);
	s->fd = -1;
	s->gaps = xrealloc(s->gaps, (s->n_gaps + 1) * sizeof(*s->gaps));
	s->gaps[s->n_gaps++] = (struct serial_gap){ now - s->epoch, -1 };
	s->next_retry = now + s->retry_interval;
}

/* ---------------------------------------------------------------- reading */

size_t telnet_filter(struct telnet *t, unsigned char *buf, size_t n,
		     unsigned char *reply, size_t *reply_len)
{
	size_t out = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = buf[i];
		switch (t->state) {
		case TS_DATA:
			if (c == TN_IAC)
				t->state = TS_IAC;
			else
				buf[out++] = c;
			break;
		case TS_IAC:
			if (c == TN_IAC) {
				buf[out++] = c;
				t->state = TS_DATA;
			} else if (c >= TN_WILL && c <= TN_DONT) {
				t->verb = c;
				t->state = TS_OPT;
			} else {
				t->state = c == TN_SB ? TS_SB : TS_DATA;
			}
			break;
		case TS_OPT: {
			/* Accept the server's ECHO and SGA; refuse the rest. */
			bool ok = t->verb == TN_WILL && (c == TNOPT_ECHO || c == TNOPT_SGA);
			unsigned char answer = t->verb == TN_WILL ? (ok ? TN_DO : TN_DONT) :
					       t->verb == TN_DO ? TN_WONT : 0;
			if (answer && reply) {
				reply[(*reply_len)++] = TN_IAC;
				reply[(*reply_len)++] = answer;
				reply[(*reply_len)++] = c;
			}
			t->state = TS_DATA;
			break;
		}
		case TS_SB:
			if (c == TN_IAC)
				t->state = TS_SB_IAC;
			break;
		case TS_SB_IAC:
			t->state = c == TN_SE ? TS_DATA : TS_SB;
			break;
		}
	}
	return out;
}

/* Writes all of buf to fd (non-blocking: waits for room). Sockets are
 * written with MSG_NOSIGNAL: a peer that went away is an error to handle
 * (the line is lost), not a SIGPIPE that kills bootrig. 0 or -1. */
static int write_all_fd(int fd, const unsigned char *buf, size_t n)
{
	while (n) {
		ssize_t w = send(fd, buf, n, MSG_NOSIGNAL);
		if (w < 0 && errno == ENOTSOCK)
			w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd p = { .fd = fd, .events = POLLOUT };
			if (poll(&p, 1, 1000) <= 0)
				return -1;
			continue;
		}
		if (w <= 0)
			return -1;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads what waits on an up line. > 0 data, 0 none (yet), -1 line lost. */
static ssize_t read_up(struct serial *s, char *buf, size_t len)
{
	errno = 0;
	ssize_t n = read(s->fd, buf, len);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0)
		return -1;
	if (s->kind != SERIAL_TELNET)
		return n;
	unsigned char *reply = xmalloc(3 * (size_t)n);
	size_t reply_len = 0;
	n = (ssize_t)telnet_filter(&s->telnet, (unsigned char *)buf, (size_t)n, reply, &reply_len);
	if (reply_len)
		write_all_fd(s->fd, reply, reply_len);
	free(reply);
	return n;
}

/* Drops the line when the fault-injection timer says so. */
static void maybe_inject_drop(struct serial *s, double now)
{
	if (s->fault_drop_at < 0 || s->fd < 0 || now - s->epoch < s->fault_drop_at)
		return;
	s->fault_drop_at = -1;
	s->fault_back_after = now + s->fault_down_for;
	lose_line(s, now);
}

ssize_t serial_read(struct serial *s, char *buf, size_t len, double timeout)
{
	double deadline = now_monotonic() + (timeout > 0 ? timeout : 0);
	for (;;) {
		double now = now_monotonic();
		maybe_inject_drop(s, now);
		if (s->fd < 0 && now >= s->next_retry) {
			if (serial_connect(s) < 0)
				s->next_retry = now + s->retry_interval;
		}
		if (s->fd >= 0) {
			ssize_t n = read_up(s, buf, len);
			if (n > 0)
				return n;
			if (n < 0) {
				snprintf(s->last_error, sizeof(s->last_error), "%s: %s", s->uri,
					 errno && errno != EAGAIN ? strerror(errno) : "closed by the other end");
				lose_line(s, now);
				continue;
			}
		}
		if (now >= deadline)
			return 0;
		double wait = deadline - now;
		if (s->fd < 0 && s->next_retry - now < wait)
			wait = s->next_retry - now;
		if (s->fault_drop_at >= 0 && s->epoch + s->fault_drop_at - now < wait)
			wait = s->epoch + s->fault_drop_at - now;
		if (wait < 0.001)
			wait = 0.001;
		if (s->fd >= 0) {
			struct pollfd p = { .fd = s->fd, .events = POLLIN };
			poll(&p, 1, (int)(wait * 1000) + 1);
		} else {
			struct timespec ts = { (time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9) };
			nanosleep(&ts, NULL);
		}
	}
}

/* ---------------------------------------------------------------- writing */

int serial_write(struct serial *s, const void *buf, size_t n)
{
	if (s->fd < 0)
		return -1;
	const unsigned char *p = buf;
	if (s->kind != SERIAL_TELNET)
		return write_all_fd(s->fd, p, n);
	/* Telnet: 0xff is sent as IAC IAC. */
	for (size_t i = 0; i < n; i++) {
		unsigned char two[2] = { p[i], TN_IAC };
		if (write_all_fd(s->fd, two, p[i] == TN_IAC ? 2 : 1) < 0)
			return -1;
	}
	return 0;
}

void serial_release(struct serial *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	free(s->uri);
	free(s->path);
	free(s->host);
	free(s->port);
	free(s->gaps);
	s->uri = s->path = s->host = s->port = NULL;
	s->gaps = NULL;
	s->n_gaps = 0;
}
