/*
 * lat_pipe: lmbench's pipe latency: the round trip of one word between two
 * processes over two pipes, in microseconds (metric `pipe`). The child
 * echoes every word it reads until its pipe reaches end of file.
 */
#include "bench.h"

struct pipe_ctx {
	int to_child;             /* write end */
	int from_child;           /* read end */
	long err;
};

/* The echo process: reads words on in, writes them back on out, until
 * end of file. Never returns. */
static void echo_child(int in, int out)
{
	uint32_t word;
	for (;;) {
		long n = rt_read(in, &word, sizeof word);
		if (n == 0)
			rt_exit(0);
		if (n != (long)sizeof word || rt_write(out, &word, sizeof word) != (long)sizeof word)
			rt_exit(1);
	}
}

/* One operation: a word to the child and back. */
static uint64_t loop_round_trip(void *ctx, unsigned long iters)
{
	struct pipe_ctx *c = ctx;
	uint32_t word = 0x42;
	for (unsigned long i = 0; i < iters; i++) {
		if (rt_write(c->to_child, &word, sizeof word) != (long)sizeof word ||
		    rt_read(c->from_child, &word, sizeof word) != (long)sizeof word) {
			c->err = -EPIPE;
			return 0;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bench b;
	struct pipe_ctx c = { -1, -1, 0 };
	int down[2], up[2], status = 0;

	bench_init(&b, argc, argv, "lat_pipe");
	long pid = bench_fork_piped(&b, down, up);
	if (pid == 0)
		echo_child(down[0], up[1]);
	c.to_child = down[1];
	c.from_child = up[0];

	bench_latency(&b, "pipe", "us", loop_round_trip, &c);
	rt_close(c.to_child);
	bench_check(&b, rt_waitpid((pid_t)pid, &status, 0), "waitpid");
	if (c.err || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		bench_fail(&b, "the echo process failed (status 0x%x)", status);
	return 0;
}
