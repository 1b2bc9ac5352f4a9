/*
 * bw_mem: memory bandwidth as lmbench's bw_mem, in MB/s (10^6 bytes a
 * second), better=higher, over a buffer of `size` bytes (knob size=,
 * default 8m: well past the caches, small for a 512 MiB guest).
 *
 *   read   sum every 32-bit word (lmbench rd)
 *   write  store every 32-bit word (lmbench wr)
 *   copy   word by word from one buffer to another (lmbench fcp); counted
 *          as `size` bytes moved, like lmbench
 *
 * Words are 32-bit on every ABI (lmbench's TYPE int), so LP64 and ILP32
 * move the same data the same way.
 */
#include "bench.h"

struct mem_ctx {
	uint32_t *src, *dst;
	size_t words;
	uint32_t sink;            /* keeps the read loop's result alive */
};

/* read: one pass over src. */
static uint64_t loop_read(void *ctx, unsigned long iters)
{
	struct mem_ctx *c = ctx;
	uint32_t sum = 0;
	for (unsigned long k = 0; k < iters; k++) {
		const uint32_t *p = c->src;
		for (size_t i = 0; i + 8 <= c->words; i += 8)
			sum += p[i] + p[i + 1] + p[i + 2] + p[i + 3] + p[i + 4] + p[i + 5] +
			       p[i + 6] + p[i + 7];
		/* The compiler must not fold the passes into one. */
		__asm__ volatile("" : "+r"(sum) : : "memory");
	}
	c->sink = sum;
	return 0;
}

/* write: one pass storing into dst. */
static uint64_t loop_write(void *ctx, unsigned long iters)
{
	struct mem_ctx *c = ctx;
	for (unsigned long k = 0; k < iters; k++) {
		uint32_t *p = c->dst;
		for (size_t i = 0; i + 8 <= c->words; i += 8) {
			p[i] = (uint32_t)k; p[i + 1] = (uint32_t)k; p[i + 2] = (uint32_t)k;
			p[i + 3] = (uint32_t)k; p[i + 4] = (uint32_t)k; p[i + 5] = (uint32_t)k;
			p[i + 6] = (uint32_t)k; p[i + 7] = (uint32_t)k;
		}
		__asm__ volatile("" : : "r"(p) : "memory");
	}
	return 0;
}

/* copy: one pass from src to dst. */
static uint64_t loop_copy(void *ctx, unsigned long iters)
{
	struct mem_ctx *c = ctx;
	for (unsigned long k = 0; k < iters; k++) {
		const uint32_t *s = c->src;
		uint32_t *d = c->dst;
		for (size_t i = 0; i + 8 <= c->words; i += 8) {
			d[i] = s[i]; d[i + 1] = s[i + 1]; d[i + 2] = s[i + 2]; d[i + 3] = s[i + 3];
			d[i + 4] = s[i + 4]; d[i + 5] = s[i + 5]; d[i + 6] = s[i + 6];
			d[i + 7] = s[i + 7];
		}
		__asm__ volatile("" : : "r"(d) : "memory");
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bench b;
	struct mem_ctx c;

	bench_init(&b, argc, argv, "bw_mem");
	size_t size = (size_t)bench_knob_size(&b, "size", 8l << 20, 4096, 1l << 30) & ~(size_t)31;
	c.src = rt_alloc_pages(size);
	c.dst = rt_alloc_pages(size);
	if (!c.src || !c.dst)
		bench_fail(&b, "no memory for two %lu byte buffers", (unsigned long)size);
	c.words = size / sizeof(uint32_t);
	for (size_t i = 0; i < c.words; i++)
		c.src[i] = (uint32_t)i;
	memset(c.dst, 1, size);

	bench_bandwidth(&b, "read", (double)size, loop_read, &c);
	bench_bandwidth(&b, "write", (double)size, loop_write, &c);
	bench_bandwidth(&b, "copy", (double)size, loop_copy, &c);
	rt_free_pages(c.src, size);
	rt_free_pages(c.dst, size);
	return 0;
}
