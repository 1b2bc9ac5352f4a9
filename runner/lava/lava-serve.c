/*
 * lava-serve.c: --lava-serve ADDR[:PORT]: the run's boot files over HTTP
 * for a LAVA dispatcher that does not share our filesystem (lava.h).
 *
 * One small, bounded server, in a thread of the run:
 *   - it serves only the files the run's jobs registered (lava_serve_url():
 *     kernel, initramfs, DTB), each at /<token>/<its absolute path>, the
 *     token 128 random bits made per run; anything else is 404: no
 *     directory listing, no "..", no other file of the host;
 *   - GET and HEAD only (else 405), HTTP/1.0 style: one request per
 *     connection, then close; no Range;
 *   - at most SERVE_MAX_CONN connections at once (more wait in the listen
 *     backlog), a request head of at most SERVE_MAX_REQUEST bytes (else
 *     431 and close), SERVE_IDLE seconds without progress ends a
 *     connection;
 *   - lava_serve_stop() (the end of the run, Ctrl-C included: cmd-run.c)
 *     ends the thread and closes every socket.
 * All sockets are non-blocking, driven by one poll() loop; files go out
 * with sendfile().
 */
#include "lava.h"
#include "textsafe.h"
#include "usage.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

struct serve_conn {
	int fd;                      /* -1: the slot is free */
	char req[SERVE_MAX_REQUEST];
	size_t req_len;
	char head[512];              /* the answer's status line and headers */
	size_t head_len, head_off;
	int file;                    /* the file being sent, or -1 */
	off_t file_off, file_size;
	double last;                 /* monotonic time of the last progress */
};

struct lava_serve {
	int listen_fd;
	int stop_pipe[2];
	pthread_t thread;
	bool running;
	char prefix[128];            /* "http://ADDR:PORT/TOKEN" */
	char token[33];
	pthread_mutex_t lock;        /* paths */
	char **paths;
	size_t n_paths;
	struct serve_conn conn[SERVE_MAX_CONN];
};

/* Whether path (after /token) is one registered. */
static bool registered(struct lava_serve *s, const char *path)
{
	bool found = false;
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n_paths && !found; i++)
		found = !strcmp(s->paths[i], path);
	pthread_mutex_unlock(&s->lock);
	return found;
}

/* Frees connection c's slot. */
static void conn_close(struct serve_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->file >= 0)
		close(c->file);
	c->fd = c->file = -1;
}

/* Sets c's answer head: status and, for 200, the length. */
static void answer(struct serve_conn *c, int status, const char *reason, off_t length)
{
	int n = snprintf(c->head, sizeof(c->head), "HTTP/1.0 %d %s\r\nServer: bootrig\r\n"
			 "Connection: close\r\nContent-Length: %lld\r\n%s\r\n", status, reason,
			 (long long)length, status == 200 ? "Content-Type: application/octet-stream\r\n"
			 : "Content-Type: text/plain\r\n");
	c->head_len = (size_t)n;
	c->head_off = 0;
}

/*
 * handle_request: c's request head is whole: decide the answer. GET or
 * HEAD of /<token><registered path> (no "..", no "//", no query) is 200
 * with the file (GET); everything else is an error status, empty body.
 */
static void handle_request(struct lava_serve *s, struct serve_conn *c)
{
	c->req[c->req_len] = '\0';
	char *sp1 = strchr(c->req, ' '), *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	if (!sp1 || !sp2)
		return answer(c, 400, "Bad Request", 0);
	*sp1 = *sp2 = '\0';
	bool head = !strcmp(c->req, "HEAD");
	if (!head && strcmp(c->req, "GET"))
		return answer(c, 405, "Method Not Allowed", 0);
	const char *target = sp1 + 1;
	size_t tl = strlen(s->token);
	if (target[0] != '/' || strncmp(target + 1, s->token, tl) || target[1 + tl] != '/')
		return answer(c, 404, "Not Found", 0);
	const char *path = target + 1 + tl;
	if (strstr(path, "/../") || strstr(path, "/./") || strstr(path, "//") ||
	    strchr(path, '?') || strchr(path, '%') || !registered(s, path))
		return answer(c, 404, "Not Found", 0);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return answer(c, 404, "Not Found", 0);
	}
	answer(c, 200, "OK", st.st_size);
	if (head) {
		close(fd);
		return;
	}
	c->file = fd;
	c->file_off = 0;
	c->file_size = st.st_size;
}

/* Reads what c sent; the request head is whole at its blank line. */
static void conn_read(struct lava_serve *s, struct serve_conn *c)
{
	ssize_t n = read(c->fd, c->req + c->req_len, sizeof(c->req) - 1 - c->req_len);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		return conn_close(c);
	if (n < 0)
		return;
	c->req_len += (size_t)n;
	c->last = now_monotonic();
	c->req[c->req_len] = '\0';
	if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n"))
		handle_request(s, c);
	else if (c->req_len >= sizeof(c->req) - 1)
		answer(c, 431, "Request Header Fields Too Large", 0);
}

/* Sends the next part of c's answer; closes c when all is sent. */
static void conn_write(struct serve_conn *c)
{
	if (c->head_off < c->head_len) {
		ssize_t n = send(c->fd, c->head + c->head_off, c->head_len - c->head_off, MSG_NOSIGNAL);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return conn_close(c);
		if (n > 0)
			c->head_off += (size_t)n, c->last = now_monotonic();
		return;
	}
	if (c->file >= 0 && c->file_off < c->file_size) {
		ssize_t n = sendfile(c->fd, c->file, &c->file_off, 1 << 20);
		if ((n < 0 && errno != EAGAIN && errno != EINTR) || n == 0)
			return conn_close(c);
		if (n > 0)
			c->last = now_monotonic();
		if (c->file_off < c->file_size)
			return;
	}
	/* Done: what the peer sent beyond its head (a head too big) is read
	 * away first (a little, without waiting), so that the close does not
	 * reset the connection before the peer read the answer. */
	shutdown(c->fd, SHUT_WR);
	char drain[4096];
	for (int i = 0; i < 16 && read(c->fd, drain, sizeof(drain)) > 0; i++)
		;
	conn_close(c);
}

/* The server's thread: one poll() over the listen socket (while a slot is
 * free), the stop pipe and every connection. */
static void *serve_thread(void *arg)
{
	struct lava_serve *s = arg;
	sigset_t pipe_set;           /* a peer gone mid-sendfile(): EPIPE, not a signal */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, NULL);
	struct pollfd pfd[SERVE_MAX_CONN + 2];
	int slot_of[SERVE_MAX_CONN + 2];
	for (;;) {
		nfds_t n = 0;
		pfd[n++] = (struct pollfd){ .fd = s->stop_pipe[0], .events = POLLIN };
		size_t used = 0;
		for (int i = 0; i < SERVE_MAX_CONN; i++) {
			struct serve_conn *c = &s->conn[i];
			if (c->fd < 0)
				continue;
			used++;
			slot_of[n] = i;
			pfd[n++] = (struct pollfd){ .fd = c->fd,
				.events = c->head_len ? POLLOUT : POLLIN };
		}
		nfds_t listen_at = n;
		if (used < SERVE_MAX_CONN)
			pfd[n++] = (struct pollfd){ .fd = s->listen_fd, .events = POLLIN };
		if (poll(pfd, n, 1000) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents)
			break;
		double now = now_monotonic();
		for (nfds_t k = 1; k < listen_at; k++) {
			struct serve_conn *c = &s->conn[slot_of[k]];
			if (pfd[k].revents & (POLLERR | POLLNVAL))
				conn_close(c);
			else if (c->head_len && (pfd[k].revents & (POLLOUT | POLLHUP)))
				conn_write(c);
			else if (pfd[k].revents & (POLLIN | POLLHUP))
				conn_read(s, c);
			else if (now - c->last > SERVE_IDLE)
				conn_close(c);
		}
		if (listen_at < n && (pfd[listen_at].revents & POLLIN)) {
			int fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
			for (int i = 0; fd >= 0 && i < SERVE_MAX_CONN; i++)
				if (s->conn[i].fd < 0) {
					struct serve_conn *c = &s->conn[i];
					c->fd = fd, c->file = -1, c->req_len = c->head_len = c->head_off = 0;
					c->last = now;
					fd = -1;
				}
			if (fd >= 0)
				close(fd);
		}
	}
	for (int i = 0; i < SERVE_MAX_CONN; i++)
		conn_close(&s->conn[i]);
	return NULL;
}

/* Splits "ADDR[:PORT]" / "[V6]:PORT" into host and port (0: any). */
static int split_addr(const char *spec, char *host, size_t hlen, unsigned *port)
{
	const char *colon;
	*port = 0;
	if (spec[0] == '[') {
		const char *close_b = strchr(spec, ']');
		if (!close_b || (close_b[1] && close_b[1] != ':'))
			return -1;
		snprintf(host, hlen, "%.*s", (int)(close_b - spec - 1), spec + 1);
		colon = close_b[1] ? close_b + 1 : NULL;
	} else {
		colon = strrchr(spec, ':');
		if (colon && strchr(spec, ':') != colon)
			return -1;   /* a bare IPv6 address: give it in [] */
		snprintf(host, hlen, "%.*s", (int)(colon ? colon - spec : (long)strlen(spec)), spec);
	}
	if (colon) {
		char *end;
		unsigned long p = strtoul(colon + 1, &end, 10);
		if (!colon[1] || *end || p > 65535)
			return -1;
		*port = (unsigned)p;
	}
	return *host ? 0 : -1;
}

struct lava_serve *lava_serve_start(const char *spec, char *err, size_t errlen)
{
	char host[100];
	unsigned port;
	if (split_addr(spec, host, sizeof(host), &port) < 0) {
		snprintf(err, errlen, "--lava-serve '%s': not ADDR[:PORT] (an IPv6 address in [])",
			 term_str(spec));
		return NULL;
	}
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_PASSIVE }, *ai = NULL;
	char port_s[8];
	snprintf(port_s, sizeof(port_s), "%u", port);
	int e = getaddrinfo(host, port_s, &hints, &ai);
	if (e) {
		snprintf(err, errlen, "--lava-serve '%s': %s is not a numeric IP address (%s)",
			 term_str(spec), term_str(host), gai_strerror(e));
		return NULL;
	}
	bool any = ai->ai_family == AF_INET
		   ? ((struct sockaddr_in *)ai->ai_addr)->sin_addr.s_addr == htonl(INADDR_ANY)
		   : IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr);
	if (any) {     /* the jobs' URLs name it: it must be one the dispatcher reaches */
		snprintf(err, errlen, "--lava-serve %s: give the address of this host that the LAVA "
			 "dispatcher reaches, not the unspecified address", term_str(spec));
		freeaddrinfo(ai);
		return NULL;
	}
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 64) < 0) {
		snprintf(err, errlen, "--lava-serve %s: %s", term_str(spec), strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return NULL;
	}
	freeaddrinfo(ai);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &sl);
	port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
		     : ((struct sockaddr_in *)&ss)->sin_port);
	struct lava_serve *s = xcalloc(1, sizeof(*s));
	s->listen_fd = fd;
	unsigned char rnd[16];
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		snprintf(err, errlen, "--lava-serve: getrandom: %s", strerror(errno));
		close(fd), free(s);
		return NULL;
	}
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(s->token + 2 * i, 3, "%02x", rnd[i]);
	snprintf(s->prefix, sizeof(s->prefix), strchr(host, ':') ? "http://[%s]:%u/%s"
		 : "http://%s:%u/%s", host, port, s->token);
	for (int i = 0; i < SERVE_MAX_CONN; i++)
		s->conn[i].fd = s->conn[i].file = -1;
	pthread_mutex_init(&s->lock, NULL);
	if (pipe2(s->stop_pipe, O_CLOEXEC) < 0 ||
	    (e = pthread_create(&s->thread, NULL, serve_thread, s)) != 0) {
		snprintf(err, errlen, "--lava-serve: cannot start its thread: %s", strerror(errno));
		close(fd);
		pthread_mutex_destroy(&s->lock);
		free(s);
		return NULL;
	}
	s->running = true;
	return s;
}

const char *lava_serve_prefix(const struct lava_serve *s)
{
	return s->prefix;
}

char *lava_serve_url(struct lava_serve *s, const char *path, char *err, size_t errlen)
{
	char *url = lava_file_url(s->prefix, path, err, errlen);
	if (!url)
		return NULL;
	if (!registered(s, path)) {
		pthread_mutex_lock(&s->lock);
		s->paths = xrealloc(s->paths, (s->n_paths + 1) * sizeof(*s->paths));
		s->paths[s->n_paths++] = xstrdup(path);
		pthread_mutex_unlock(&s->lock);
	}
	return url;
}

void lava_serve_stop(struct lava_serve *s)
{
	if (!s)
		return;
	if (s->running) {
		char c = 1;
		if (write(s->stop_pipe[1], &c, 1) < 0)
			warning("lava-serve: cannot stop its thread: %s", strerror(errno));
		pthread_join(s->thread, NULL);
		close(s->stop_pipe[0]), close(s->stop_pipe[1]);
	}
	close(s->listen_fd);
	for (size_t i = 0; i < s->n_paths; i++)
		free(s->paths[i]);
	free(s->paths);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
