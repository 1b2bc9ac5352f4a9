/*
 * test_lava_serve.c: --lava-serve's file server (runner/lava/lava-serve.c)
 * on a real socket on 127.0.0.1: a registered file served whole (GET) and
 * its length (HEAD); an unknown path, a wrong token and a path with ".."
 * 404; another method 405; a request head too big refused (431); a
 * bad address refused; the loopback rule of file:// URLs; after stop, the
 * port takes no connection.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lava.h"
#include "util.h"

/* The port of a server's prefix "http://127.0.0.1:PORT/TOKEN". */
static int port_of(const struct lava_serve *s)
{
	const char *p = strrchr(lava_serve_prefix(s), ':');
	return atoi(p + 1);
}

static int connect_to(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Sends req (len bytes) and reads the whole answer (until close, 10 s at
 * most) into a malloc'd buffer, its length in *n. */
static char *exchange(int port, const char *req, size_t len, size_t *n)
{
	int fd = connect_to(port);
	assert_true(fd >= 0);
	size_t off = 0;
	while (off < len) {
		ssize_t w = send(fd, req + off, len - off, MSG_NOSIGNAL);
		if (w <= 0)
			break;     /* the server may close on a head too big */
		off += (size_t)w;
	}
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 10000) <= 0)
			break;
		ssize_t r = read(fd, buf, sizeof(buf));
		if (r <= 0)
			break;
		strbuf_add(&sb, buf, (size_t)r);
	}
	close(fd);
	strbuf_add(&sb, "", 0);
	*n = sb.len;
	return sb.buf;
}

static char *get(int port, const char *method, const char *target, size_t *n)
{
	char *req = xasprintf("%s %s HTTP/1.1\r\nHost: x\r\nUser-Agent: test\r\n\r\n", method, target);
	char *ans = exchange(port, req, strlen(req), n);
	free(req);
	return ans;
}

struct fixture {
	struct lava_serve *s;
	char dir[64], path[128], token_path[256];
	char *data;
	size_t size;
};

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_lava_serve.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/Image", f->dir);
	f->size = 300000;             /* more than one socket buffer */
	f->data = malloc(f->size);
	for (size_t i = 0; i < f->size; i++)
		f->data[i] = (char)(i * 7 + i / 251);
	assert_int_equal(write_file_atomic(f->path, f->data, f->size), 0);
	char err[200];
	f->s = lava_serve_start("127.0.0.1:0", err, sizeof(err));
	assert_non_null(f->s);
	char *url = lava_serve_url(f->s, f->path, err, sizeof(err));
	assert_non_null(url);
	const char *prefix = lava_serve_prefix(f->s);
	assert_true(!strncmp(prefix, "http://127.0.0.1:", 17));
	assert_true(!strncmp(url, prefix, strlen(prefix)));
	assert_string_equal(url + strlen(prefix), f->path);
	snprintf(f->token_path, sizeof(f->token_path), "%s", url + strlen("http://127.0.0.1:") +
		 strcspn(url + strlen("http://127.0.0.1:"), "/"));
	free(url);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	lava_serve_stop(f->s);
	unlink(f->path);
	rmdir(f->dir);
	free(f->data);
	free(f);
	return 0;
}

static void test_registered_file_whole(void **state)
{
	struct fixture *f = *state;
	size_t n;
	char *ans = get(port_of(f->s), "GET", f->token_path, &n);
	assert_true(!strncmp(ans, "HTTP/1.0 200 ", 13));
	char *body = strstr(ans, "\r\n\r\n");
	assert_non_null(body);
	body += 4;
	char cl[64];
	snprintf(cl, sizeof(cl), "Content-Length: %zu\r\n", f->size);
	assert_non_null(strstr(ans, cl));
	assert_int_equal(n - (size_t)(body - ans), f->size);
	assert_memory_equal(body, f->data, f->size);
	free(ans);
	ans = get(port_of(f->s), "HEAD", f->token_path, &n);
	assert_true(!strncmp(ans, "HTTP/1.0 200 ", 13));
	assert_non_null(strstr(ans, cl));
	assert_int_equal(n, (size_t)(strstr(ans, "\r\n\r\n") + 4 - ans));   /* no body */
	free(ans);
}

static void expect_status(struct fixture *f, const char *method, const char *target, const char *status)
{
	size_t n;
	char *ans = get(port_of(f->s), method, target, &n);
	if (strncmp(ans, status, strlen(status)))
		fail_msg("%s %s: '%.60s', expected '%s'", method, target, ans, status);
	free(ans);
}

static void test_unknown_paths_404(void **state)
{
	struct fixture *f = *state;
	char *t = xasprintf("%.*s/etc/passwd", (int)(strchr(f->token_path + 1, '/') - f->token_path),
			    f->token_path);
	expect_status(f, "GET", t, "HTTP/1.0 404 ");               /* a file not registered */
	free(t);
	t = xasprintf("%s/../Image", f->token_path);               /* .. out of and back in */
	expect_status(f, "GET", t, "HTTP/1.0 404 ");
	free(t);
	t = xasprintf("%.*s/%s/../Image", (int)(strchr(f->token_path + 1, '/') - f->token_path),
		      f->token_path, f->dir + 1);
	expect_status(f, "GET", t, "HTTP/1.0 404 ");
	free(t);
	expect_status(f, "GET", f->path, "HTTP/1.0 404 ");         /* no token */
	t = xasprintf("/0123456789abcdef0123456789abcdef%s", f->path);   /* a wrong token */
	expect_status(f, "GET", t, "HTTP/1.0 404 ");
	free(t);
	t = xasprintf("%.*s/", (int)(strchr(f->token_path + 1, '/') - f->token_path), f->token_path);
	expect_status(f, "GET", t, "HTTP/1.0 404 ");               /* no listing */
	free(t);
	expect_status(f, "POST", f->token_path, "HTTP/1.0 405 ");
}

static void test_request_too_big(void **state)
{
	struct fixture *f = *state;
	size_t len = SERVE_MAX_REQUEST * 2;
	char *req = malloc(len);
	memcpy(req, "GET /", 5);
	memset(req + 5, 'a', len - 5);
	size_t n;
	char *ans = exchange(port_of(f->s), req, len, &n);
	assert_true(!strncmp(ans, "HTTP/1.0 431 ", 13));
	free(ans), free(req);
	/* and the server still answers */
	expect_status(f, "HEAD", f->token_path, "HTTP/1.0 200 ");
}

static void test_bad_address(void **state)
{
	(void)state;
	char err[200];
	assert_null(lava_serve_start("not-an-address:0", err, sizeof(err)));
	assert_non_null(strstr(err, "numeric"));
	assert_null(lava_serve_start("127.0.0.1:99999", err, sizeof(err)));
	assert_null(lava_serve_start("::1:80", err, sizeof(err)));
	assert_null(lava_serve_start("0.0.0.0:0", err, sizeof(err)));   /* not a URL's host */
	assert_non_null(strstr(err, "dispatcher reaches"));
	assert_null(lava_serve_start("[::]:0", err, sizeof(err)));
	struct lava_serve *s = lava_serve_start("127.0.0.1", err, sizeof(err));   /* no port: any */
	assert_non_null(s);
	assert_true(port_of(s) > 0);
	lava_serve_stop(s);
}

static void test_stops(void **state)
{
	(void)state;
	char err[200];
	struct lava_serve *s = lava_serve_start("127.0.0.1:0", err, sizeof(err));
	assert_non_null(s);
	int port = port_of(s);
	int idle = connect_to(port);          /* a connection open at stop */
	assert_true(idle >= 0);
	lava_serve_stop(s);
	assert_int_equal(connect_to(port), -1);
	char c;
	assert_true(read(idle, &c, 1) <= 0);  /* closed by the stop */
	close(idle);
}

static void test_loopback_rule(void **state)
{
	(void)state;
	assert_true(lava_url_is_loopback("http://127.0.0.1:8000/"));
	assert_true(lava_url_is_loopback("http://127.1.2.3"));
	assert_true(lava_url_is_loopback("https://localhost/"));
	assert_true(lava_url_is_loopback("http://[::1]:80/"));
	assert_true(lava_url_is_loopback("http://user@127.0.0.1:1/"));
	assert_false(lava_url_is_loopback("http://lava.example.org/"));
	assert_false(lava_url_is_loopback("http://10.0.0.1:8000/"));
	assert_false(lava_url_is_loopback("http://127.0.0.1.example.org/"));
	assert_false(lava_url_is_loopback("http://localhost.example.org/"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_registered_file_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_paths_404, setup, teardown),
		cmocka_unit_test_setup_teardown(test_request_too_big, setup, teardown),
		cmocka_unit_test(test_bad_address),
		cmocka_unit_test(test_stops),
		cmocka_unit_test(test_loopback_rule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
