/*
 * lat_pagefault: the cost of faulting in a fresh anonymous page (a write
 * to a page of a new private mapping: allocate, zero, map), in
 * microseconds per page (metric `pagefault`). Like will-it-scale's
 * page_fault1; lmbench's lat_pagefault does the same over a file.
 *
 * The region (knob region=, default 8m) is mapped, touched page by page,
 * and unmapped when used up; the map and unmap time is timed apart and
 * not counted. Page size: knob page=, default 4096 (Debian's kernels).
 */
#include "bench.h"

struct fault_ctx {
	size_t region;            /* bytes */
	size_t page;
	volatile char *base;      /* the current mapping, or NULL */
	size_t next;              /* offset of the next page to touch */
	long err;
};

/* Unmaps the used region and maps a fresh one; returns false on failure. */
static bool remap(struct fault_ctx *c)
{
	if (c->base)
		rt_munmap((void *)c->base, c->region);
	void *p = rt_mmap(NULL, c->region, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	c->base = NULL;
	if (RT_IS_ERR(p)) {
		c->err = RT_PTR_ERR(p);
		return false;
	}
	c->base = p;
	c->next = 0;
	return true;
}

/* One operation: the first write to one page. */
static uint64_t loop_fault(void *ctx, unsigned long iters)
{
	struct fault_ctx *c = ctx;
	uint64_t excluded = 0;
	for (unsigned long i = 0; i < iters; i++) {
		if (!c->base || c->next >= c->region) {
			uint64_t t0 = rt_now_ns();
			if (!remap(c))
				return excluded;
			excluded += rt_now_ns() - t0;
		}
		c->base[c->next] = 1;
		c->next += c->page;
	}
	return excluded;
}

int main(int argc, char **argv)
{
	struct bench b;
	struct fault_ctx c;

	bench_init(&b, argc, argv, "lat_pagefault");
	memset(&c, 0, sizeof c);
	c.page = (size_t)bench_knob_size(&b, "page", 4096, 1024, 1l << 21);
	c.region = (size_t)bench_knob_size(&b, "region", 8l << 20, (long)c.page, 1l << 30);
	c.region -= c.region % c.page;
	bench_latency(&b, "pagefault", "us", loop_fault, &c);
	if (c.err)
		bench_fail(&b, "mmap of %lu bytes: %s", (unsigned long)c.region, rt_errname((int)-c.err));
	if (c.base)
		rt_munmap((void *)c.base, c.region);
	return 0;
}
