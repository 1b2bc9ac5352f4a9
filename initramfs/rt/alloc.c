/*
 * alloc.c: memory for programs without malloc: a bump allocator over
 * 256 KiB mmap'd chunks (big requests get their own mapping), and whole
 * private mappings for what must be given back.
 */
#include "rt.h"

#define RT_CHUNK (256 * 1024)

static char *rt_bump_next, *rt_bump_end;

void *rt_alloc_pages(size_t n)
{
	void *p = rt_mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return RT_IS_ERR(p) ? NULL : p;
}

void rt_free_pages(void *p, size_t n)
{
	if (p)
		rt_munmap(p, n);
}

void *rt_alloc(size_t n)
{
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (n >= RT_CHUNK / 4)
		return rt_alloc_pages(n);
	if (!rt_bump_next || (size_t)(rt_bump_end - rt_bump_next) < n) {
		char *chunk = rt_alloc_pages(RT_CHUNK);
		if (!chunk)
			return NULL;
		rt_bump_next = chunk;
		rt_bump_end = chunk + RT_CHUNK;
	}
	p = rt_bump_next;
	rt_bump_next += n;
	return p;
}
