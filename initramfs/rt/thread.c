/*
 * thread.c: threads over raw clone, joined through the kernel's
 * CLONE_CHILD_CLEARTID futex wake. The arch file's rt_clone_thread() does
 * the part C cannot: switching stacks in the child.
 */
#include "rt.h"

#define RT_THREAD_FLAGS (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | \
			 CLONE_SYSVSEM | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)

/* The child's first C function: runs fn and keeps its result. */
static int rt_thread_main(void *p)
{
	struct rt_thread *t = p;

	t->ret = t->fn(t->arg);
	return t->ret;
}

long rt_thread_start(struct rt_thread *t, int (*fn)(void *), void *arg, size_t stack_size)
{
	long tid;

	t->fn = fn;
	t->arg = arg;
	t->ret = 0;
	t->stack_size = stack_size ? stack_size : 64 * 1024;
	t->stack = rt_mmap(NULL, t->stack_size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (RT_IS_ERR(t->stack))
		return RT_PTR_ERR(t->stack);
	t->tid = 1;     /* non-zero before the child can run: join waits on it */
	tid = rt_clone_thread(RT_THREAD_FLAGS, (char *)t->stack + t->stack_size, &t->tid,
			      &t->tid, rt_thread_main, t);
	if (tid < 0) {
		t->tid = 0;
		rt_munmap(t->stack, t->stack_size);
		t->stack = NULL;
	}
	return tid;
}

int rt_thread_join(struct rt_thread *t)
{
	uint32_t tid;

	/* a shared wait: the kernel's exit-time wake of the tid is shared */
	while ((tid = t->tid) != 0)
		rt_futex(&t->tid, FUTEX_WAIT, tid, NULL);
	if (t->stack)
		rt_munmap(t->stack, t->stack_size);
	t->stack = NULL;
	return t->ret;
}
