/*
 * lat_mem_rd: memory read latency by pointer chasing, as lmbench's
 * lat_mem_rd, at every power of two from 4 KiB to `max` (knob max=,
 * default 64m; 512 MiB guests have room), in nanoseconds per load.
 * Metrics lat_4k, lat_8k, ... lat_1m, ... lat_64m.
 *
 * The chain visits every `stride`-th byte (knob stride=, default 64: a
 * cache line) of the working set once per lap, in a fixed pseudo-random
 * order (lmbench -t style), so hardware prefetchers cannot follow it; the
 * order is the same on every run.
 */
#include "bench.h"

struct chase_ctx {
	void **start;
	void *sink;               /* the last pointer read (keeps the loads) */
};

/* One operation: one dependent load. Unrolled by 16 like lmbench. */
static uint64_t loop_chase(void *ctx, unsigned long iters)
{
	struct chase_ctx *c = ctx;
	void **p = c->start;
	unsigned long i = 0;
	for (; i + 16 <= iters; i += 16) {
#define HOP p = (void **)*p;
		HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP
#undef HOP
	}
	for (; i < iters; i++)
		p = (void **)*p;
	c->start = p;
	c->sink = p;
	return 0;
}

/* Links the lines of buf[0..size) at `stride` into one cycle in a
 * shuffled order (order[] has room for size/stride entries). */
static void build_chain(char *buf, size_t size, size_t stride, uint32_t *order)
{
	uint32_t lines = (uint32_t)(size / stride), seed = 2463534242u;
	for (uint32_t i = 0; i < lines; i++)
		order[i] = i;
	for (uint32_t i = lines - 1; i > 0; i--) {
		uint32_t j = bench_random(&seed) % (i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (uint32_t i = 0; i < lines; i++) {
		void **from = (void **)(buf + (size_t)order[i] * stride);
		*from = buf + (size_t)order[(i + 1) % lines] * stride;
	}
}

/* The metric name of a size: lat_4k, lat_1m. */
static void size_name(char *name, size_t n, size_t size)
{
	if (size >= (1u << 20))
		rt_snprintf(name, n, "lat_%lum", (unsigned long)(size >> 20));
	else
		rt_snprintf(name, n, "lat_%luk", (unsigned long)(size >> 10));
}

int main(int argc, char **argv)
{
	struct bench b;
	struct chase_ctx c;
	char name[32];

	bench_init(&b, argc, argv, "lat_mem_rd");
	size_t max = (size_t)bench_knob_size(&b, "max", 64l << 20, 4096, 1l << 30);
	size_t stride = (size_t)bench_knob_size(&b, "stride", 64, (long)sizeof(void *), 4096);
	if (stride & (stride - 1))
		bench_fail(&b, "stride=%lu: a power of two please", (unsigned long)stride);
	char *buf = rt_alloc_pages(max);
	uint32_t *order = rt_alloc_pages(max / stride * sizeof *order);
	if (!buf || !order)
		bench_fail(&b, "no memory for a %lu byte working set", (unsigned long)max);
	memset(buf, 0, max);                 /* fault it all in before timing */

	for (size_t size = 4096; size <= max; size *= 2) {
		build_chain(buf, size, stride, order);
		c.start = (void **)buf;
		size_name(name, sizeof name, size);
		bench_latency(&b, name, "ns", loop_chase, &c);
	}
	rt_free_pages(order, max / stride * sizeof *order);
	rt_free_pages(buf, max);
	return 0;
}
