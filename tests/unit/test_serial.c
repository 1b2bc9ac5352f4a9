/*
 * test_serial.c: the serial line (runner/board/serial.c): URI parsing, the
 * telnet filter (IAC escapes, option answers, sub-negotiation, sequences
 * split across reads), IAC doubling on writes, a tty (a pty) set raw at its
 * baud rate, a telnet server over TCP (ser2net's telnet mode), and
 * reconnection over a unix socket: a line absent at first,
 * a peer that closes and comes back (the gap recorded), and the fault
 * injection of $BOOTRIG_FAULT_SERIAL_DROP.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "serial.h"
#include "util.h"

static void test_parse(void **state)
{
	(void)state;
	struct serial s;
	char err[300];
	assert_int_equal(serial_parse("/dev/ttyUSB0", 0, &s, err, sizeof(err)), 0);
	assert_int_equal(s.kind, SERIAL_TTY);
	assert_string_equal(s.path, "/dev/ttyUSB0");
	assert_int_equal(s.baud, 115200);
	serial_release(&s);
	assert_int_equal(serial_parse("tty:/dev/ttyS1", 1500000, &s, err, sizeof(err)), 0);
	assert_int_equal(s.kind, SERIAL_TTY);
	assert_int_equal(s.baud, 1500000);
	serial_release(&s);
	assert_int_equal(serial_parse("tcp:lab-ser2net:3001", 0, &s, err, sizeof(err)), 0);
	assert_int_equal(s.kind, SERIAL_TCP);
	assert_string_equal(s.host, "lab-ser2net");
	assert_string_equal(s.port, "3001");
	serial_release(&s);
	assert_int_equal(serial_parse("telnet:[::1]:2000", 0, &s, err, sizeof(err)), 0);
	assert_int_equal(s.kind, SERIAL_TELNET);
	assert_string_equal(s.host, "::1");
	assert_string_equal(s.port, "2000");
	serial_release(&s);
	assert_int_equal(serial_parse("unix:/run/board.sock", 0, &s, err, sizeof(err)), 0);
	assert_int_equal(s.kind, SERIAL_UNIX);
	assert_string_equal(s.path, "/run/board.sock");
	serial_release(&s);

	const char *bad[] = { "ttyUSB0", "tcp:host", "tcp::22", "telnet:host:", "unix:", "http://x" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		err[0] = '\0';
		assert_int_equal(serial_parse(bad[i], 0, &s, err, sizeof(err)), -1);
		assert_true(err[0] != '\0');
	}
}

static void test_telnet_filter(void **state)
{
	(void)state;
	struct telnet t = { 0 };
	unsigned char reply[64];
	size_t reply_len = 0;
	/* data, IAC IAC (a 0xff byte), IAC WILL ECHO, IAC DO TTYPE, IAC SB ... IAC SE */
	unsigned char in[] = { 'a', 255, 255, 'b', 255, 251, 1, 'c', 255, 253, 24,
			       255, 250, 24, 1, 255, 240, 'd' };
	size_t n = telnet_filter(&t, in, sizeof(in), reply, &reply_len);
	assert_int_equal(n, 5);
	assert_memory_equal(in, "a\xff" "bcd", 5);
	/* DO ECHO answers WILL ECHO; WONT answers DO TTYPE. */
	assert_int_equal(reply_len, 6);
	unsigned char want[] = { 255, 253, 1, 255, 252, 24 };
	assert_memory_equal(reply, want, 6);

	/* A sequence split across reads. */
	struct telnet t2 = { 0 };
	reply_len = 0;
	unsigned char part1[] = { 'x', 255 };
	unsigned char part2[] = { 251 };
	unsigned char part3[] = { 3, 'y' };
	assert_int_equal(telnet_filter(&t2, part1, 2, reply, &reply_len), 1);
	assert_int_equal(telnet_filter(&t2, part2, 1, reply, &reply_len), 0);
	assert_int_equal(telnet_filter(&t2, part3, 2, reply, &reply_len), 1);
	assert_int_equal(part3[0], 'y');
	assert_int_equal(reply_len, 3);
	assert_int_equal(reply[1], 253);   /* DO SUPPRESS-GO-AHEAD */
}

static void test_telnet_write_doubles_iac(void **state)
{
	(void)state;
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	struct serial s;
	char err[200];
	assert_int_equal(serial_parse("telnet:localhost:1", 0, &s, err, sizeof(err)), 0);
	s.fd = sv[0];
	assert_int_equal(serial_write(&s, "a\xff" "b", 3), 0);
	char got[8];
	assert_int_equal(read(sv[1], got, sizeof(got)), 4);
	assert_memory_equal(got, "a\xff\xff" "b", 4);
	serial_release(&s);
	close(sv[1]);
}

static void test_tty_raw(void **state)
{
	(void)state;
	int master = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(master >= 0);
	assert_int_equal(grantpt(master), 0);
	assert_int_equal(unlockpt(master), 0);
	char *uri = xasprintf("tty:%s", ptsname(master));
	struct serial s;
	char err[200];
	assert_int_equal(serial_parse(uri, 57600, &s, err, sizeof(err)), 0);
	serial_set_epoch(&s, now_monotonic());
	assert_int_equal(serial_connect(&s), 0);
	struct termios tio;
	assert_int_equal(tcgetattr(s.fd, &tio), 0);
	assert_int_equal(cfgetospeed(&tio), B57600);
	assert_int_equal(tio.c_cflag & CSIZE, CS8);
	assert_false(tio.c_cflag & (PARENB | CSTOPB | CRTSCTS));
	assert_false(tio.c_lflag & (ICANON | ECHO));
	/* Raw: "\r\n" and ^C arrive as they were sent. */
	assert_int_equal(write(master, "hi\r\n\x03", 5), 5);
	char buf[16];
	size_t got = 0;
	for (int i = 0; i < 50 && got < 5; i++) {
		ssize_t n = serial_read(&s, buf + got, sizeof(buf) - got, 0.1);
		got += n > 0 ? (size_t)n : 0;
	}
	assert_int_equal(got, 5);
	assert_memory_equal(buf, "hi\r\n\x03", 5);
	assert_int_equal(serial_write(&s, "=> ", 3), 0);
	char back[4] = { 0 };
	for (int i = 0; i < 50; i++) {
		if (read(master, back, 3) == 3)
			break;
		usleep(10000);
	}
	assert_memory_equal(back, "=> ", 3);
	serial_release(&s);
	close(master);
	free(uri);
}

/* A peer on a unix socket path: serves `rounds` connections, writing one
 * message on each and closing it; waits `delay` before listening. */
struct server {
	char path[108];
	double delay;
	int rounds;
	pthread_t thread;
};

static void *server_main(void *arg)
{
	struct server *sv = arg;
	struct timespec ts = { 0, (long)(sv->delay * 1e9) };
	nanosleep(&ts, NULL);
	int l = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	memcpy(sa.sun_path, sv->path, strlen(sv->path) + 1);
	unlink(sv->path);
	if (bind(l, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(l, 1) < 0)
		return NULL;
	for (int r = 0; r < sv->rounds; r++) {
		int c = accept(l, NULL, NULL);
		if (c < 0)
			break;
		char msg[32];
		int n = snprintf(msg, sizeof(msg), "round %d\n", r);
		if (write(c, msg, (size_t)n) < 0)
			break;
		/* Wait for the reader's "ok" before closing: no byte is lost. */
		char ack[2];
		if (read(c, ack, 2) < 0)
			break;
		close(c);
	}
	close(l);
	unlink(sv->path);
	return NULL;
}

/* Reads from s until text holds needle (or about 10 s pass). */
static bool read_until(struct serial *s, struct strbuf *text, const char *needle)
{
	for (int i = 0; i < 100; i++) {
		if (text->buf && strstr(text->buf, needle))
			return true;
		char buf[256];
		ssize_t n = serial_read(s, buf, sizeof(buf), 0.1);
		if (n > 0)
			strbuf_add(text, buf, (size_t)n);
	}
	return text->buf && strstr(text->buf, needle);
}

static void test_reconnects_and_records_gaps(void **state)
{
	(void)state;
	struct server sv = { .delay = 0.3, .rounds = 2 };
	snprintf(sv.path, sizeof(sv.path), "/tmp/test_serial.%ld.sock", (long)getpid());
	unlink(sv.path);
	char *uri = xasprintf("unix:%s", sv.path);
	struct serial s;
	char err[200];
	assert_int_equal(serial_parse(uri, 0, &s, err, sizeof(err)), 0);
	serial_set_epoch(&s, now_monotonic());
	/* Absent at first (opened before power-on): no error, no gap. */
	assert_int_equal(serial_connect(&s), -1);
	assert_non_null(strstr(s.last_error, sv.path));
	assert_int_equal(pthread_create(&sv.thread, NULL, server_main, &sv), 0);
	struct strbuf text = STRBUF_INIT;
	assert_true(read_until(&s, &text, "round 0\n"));
	assert_true(s.ever_up);
	assert_int_equal(s.n_gaps, 0);
	assert_int_equal(serial_write(&s, "ok", 2), 0);
	/* The peer closes; the line comes back by itself. */
	assert_true(read_until(&s, &text, "round 1\n"));
	assert_int_equal(serial_write(&s, "ok", 2), 0);
	assert_int_equal(s.n_gaps, 1);
	assert_true(s.gaps[0].lost > 0);
	assert_true(s.gaps[0].back >= s.gaps[0].lost);
	pthread_join(sv.thread, NULL);
	/* The peer is gone for good: the gap stays open, reads time out. */
	char buf[16];
	for (int i = 0; i < 3; i++)
		assert_int_equal(serial_read(&s, buf, sizeof(buf), 0.05), 0);
	assert_int_equal(s.n_gaps, 2);
	assert_true(s.gaps[1].back < 0);
	assert_false(serial_is_up(&s));
	strbuf_release(&text);
	serial_release(&s);
	free(uri);
}

static void test_fault_injection_drop(void **state)
{
	(void)state;
	struct server sv = { .delay = 0, .rounds = 2 };
	snprintf(sv.path, sizeof(sv.path), "/tmp/test_serial_f.%ld.sock", (long)getpid());
	unlink(sv.path);
	assert_int_equal(pthread_create(&sv.thread, NULL, server_main, &sv), 0);
	char *uri = xasprintf("unix:%s", sv.path);
	struct serial s;
	char err[200];
	assert_int_equal(serial_parse(uri, 0, &s, err, sizeof(err)), 0);
	serial_set_epoch(&s, now_monotonic());
	struct strbuf text = STRBUF_INIT;
	assert_true(read_until(&s, &text, "round 0\n"));
	assert_int_equal(s.n_gaps, 0);
	/* Drop now, and stay away 0.3 s: the peer sees the close, serves again. */
	setenv("BOOTRIG_FAULT_SERIAL_DROP", "0:0.3", 1);
	serial_arm_fault(&s);
	unsetenv("BOOTRIG_FAULT_SERIAL_DROP");
	assert_true(read_until(&s, &text, "round 1\n"));
	assert_int_equal(s.n_gaps, 1);
	assert_true(s.gaps[0].back >= s.gaps[0].lost + 0.3);
	assert_int_equal(serial_write(&s, "ok", 2), 0);
	pthread_join(sv.thread, NULL);
	strbuf_release(&text);
	serial_release(&s);
	free(uri);
}

/* A telnet server (ser2net's telnet mode) on 127.0.0.1: offers ECHO and
 * SGA, sends data with an escaped 0xff, keeps what the client answers. */
struct telnet_server {
	int listener;
	unsigned char answer[16];
	ssize_t answer_len;
	pthread_t thread;
};

static void *telnet_server_main(void *arg)
{
	struct telnet_server *ts = arg;
	int c = accept(ts->listener, NULL, NULL);
	if (c < 0)
		return NULL;
	const unsigned char hello[] = { 255, 251, 1, 255, 251, 3, 'l', 'o', 'g', 'i', 'n', ':',
					' ', 255, 255, '\n' };
	if (write(c, hello, sizeof(hello)) == (ssize_t)sizeof(hello)) {
		size_t got = 0;
		while (got < 6) {
			ssize_t n = read(c, ts->answer + got, sizeof(ts->answer) - got);
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		ts->answer_len = (ssize_t)got;
	}
	close(c);
	return NULL;
}

static void test_telnet_over_tcp(void **state)
{
	(void)state;
	struct telnet_server ts = { .listener = socket(AF_INET, SOCK_STREAM, 0) };
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	assert_int_equal(bind(ts.listener, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(ts.listener, 1), 0);
	socklen_t len = sizeof(sa);
	assert_int_equal(getsockname(ts.listener, (struct sockaddr *)&sa, &len), 0);
	assert_int_equal(pthread_create(&ts.thread, NULL, telnet_server_main, &ts), 0);
	char *uri = xasprintf("telnet:127.0.0.1:%d", ntohs(sa.sin_port));
	struct serial s;
	char err[200];
	assert_int_equal(serial_parse(uri, 0, &s, err, sizeof(err)), 0);
	serial_set_epoch(&s, now_monotonic());
	struct strbuf text = STRBUF_INIT;
	assert_true(read_until(&s, &text, "\n"));
	/* Only the data: the commands are gone, IAC IAC is one 0xff. */
	assert_int_equal(text.len, 9);
	assert_memory_equal(text.buf, "login: \xff\n", 9);
	pthread_join(ts.thread, NULL);
	const unsigned char want[] = { 255, 253, 1, 255, 253, 3 };
	assert_int_equal(ts.answer_len, 6);
	assert_memory_equal(ts.answer, want, 6);
	close(ts.listener);
	strbuf_release(&text);
	serial_release(&s);
	free(uri);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_telnet_filter),
		cmocka_unit_test(test_telnet_write_doubles_iac),
		cmocka_unit_test(test_tty_raw),
		cmocka_unit_test(test_reconnects_and_records_gaps),
		cmocka_unit_test(test_fault_injection_drop),
		cmocka_unit_test(test_telnet_over_tcp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
