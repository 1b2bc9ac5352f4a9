/*
 * tcp: TCP loopback stream throughput, netperf TCP_STREAM style, in MB/s
 * (10^6 bytes a second), better=higher (metric `stream`).
 *
 * A child process accepts one connection on 127.0.0.1 (init brings `lo`
 * up) and receives; the parent sends messages of `msg` bytes (knob msg=,
 * default 64k). A timed run of n messages ends only when the receiver
 * says, over a control pipe, that it has all n x msg bytes, so the time
 * covers the whole transfer, not just the filling of socket buffers.
 */
#include "bench.h"

#define RECV_BUF (128u << 10)

struct tcp_ctx {
	int sock;                 /* the sender's connected socket */
	int ctl_out;              /* byte counts to the receiver */
	int ack_in;               /* its acknowledgements */
	char *msg;
	long msg_size;
	long err;
};

/* The receiver: for each count read on ctl, receives that many bytes from
 * sock and acknowledges with one byte on ack. Ends at end of file on ctl;
 * its exit status is 0 on success. */
static int receiver(int sock, int ctl, int ack)
{
	char *buf = rt_alloc(RECV_BUF);
	uint64_t want;
	if (!buf)
		return 2;
	while (rt_read(ctl, &want, sizeof want) == (long)sizeof want) {
		while (want > 0) {
			long n = rt_read(sock, buf, want < RECV_BUF ? (size_t)want : RECV_BUF);
			if (n <= 0)
				return 3;
			want -= (uint64_t)n;
		}
		if (rt_write(ack, "k", 1) != 1)
			return 4;
	}
	return 0;
}

/* One timed run: iters messages, then the receiver's acknowledgement. */
static uint64_t loop_stream(void *ctx, unsigned long iters)
{
	struct tcp_ctx *c = ctx;
	uint64_t total = (uint64_t)iters * (uint64_t)c->msg_size;
	char ack;
	if (rt_write(c->ctl_out, &total, sizeof total) != (long)sizeof total) {
		c->err = -EPIPE;
		return 0;
	}
	for (unsigned long i = 0; i < iters; i++) {
		long r = rt_write_all(c->sock, c->msg, (size_t)c->msg_size);
		if (r < 0) {
			c->err = r;
			return 0;
		}
	}
	if (rt_read(c->ack_in, &ack, 1) != 1)
		c->err = -EPIPE;
	return 0;
}

/* A listening socket on 127.0.0.1 at a port the kernel picks; its
 * address goes into addr. */
static int listen_loopback(struct bench *b, struct rt_sockaddr_in *addr)
{
	unsigned len = sizeof *addr;
	int fd = (int)bench_check(b, rt_socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), "socket");
	memset(addr, 0, sizeof *addr);
	addr->sin_family = AF_INET;
	addr->sin_addr = rt_htonl(INADDR_LOOPBACK);
	bench_check(b, rt_bind(fd, addr, sizeof *addr), "bind 127.0.0.1");
	bench_check(b, rt_listen(fd, 1), "listen");
	bench_check(b, rt_getsockname(fd, addr, &len), "getsockname");
	return fd;
}

int main(int argc, char **argv)
{
	struct bench b;
	struct tcp_ctx c;
	struct rt_sockaddr_in addr;
	int ctl[2], ack[2], status = 0;

	bench_init(&b, argc, argv, "tcp");
	memset(&c, 0, sizeof c);
	c.msg_size = bench_knob_size(&b, "msg", 64l << 10, 1, 16l << 20);
	c.msg = rt_alloc((size_t)c.msg_size);
	if (!c.msg)
		bench_fail(&b, "no memory for a %ld byte message", c.msg_size);
	memset(c.msg, 'x', (size_t)c.msg_size);

	int lfd = listen_loopback(&b, &addr);
	long pid = bench_fork_piped(&b, ctl, ack);
	if (pid == 0) {
		long s = rt_accept(lfd, NULL, NULL);
		rt_exit(s < 0 ? 5 : receiver((int)s, ctl[0], ack[1]));
	}
	rt_close(lfd);
	c.ctl_out = ctl[1];
	c.ack_in = ack[0];
	c.sock = (int)bench_check(&b, rt_socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), "socket");
	long r = rt_connect(c.sock, &addr, sizeof addr);
	if (r < 0) {
		rt_kill((pid_t)pid, SIGKILL);
		bench_fail(&b, "connect 127.0.0.1:%u: %s (is lo up?)", rt_htons(addr.sin_port),
			   rt_errname((int)-r));
	}

	bench_bandwidth(&b, "stream", (double)c.msg_size, loop_stream, &c);
	rt_close(c.ctl_out);
	rt_close(c.sock);
	bench_check(&b, rt_waitpid((pid_t)pid, &status, 0), "waitpid");
	if (c.err)
		bench_fail(&b, "the transfer failed: %s", rt_errname((int)-c.err));
	if (status != 0)
		bench_fail(&b, "the receiver failed (status 0x%x)", status);
	return 0;
}
