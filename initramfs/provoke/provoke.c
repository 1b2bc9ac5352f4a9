// SPDX-License-Identifier: GPL-2.0
/*
 * provoke.c: bootrig's crash module, in the spirit of the kernel's lkdtm
 * (which Debian does not build). Loaded by bootrig's init with
 * "kind=KIND", it makes the kernel print one report of that kind from a
 * function of its own (provoke_<kind>), so that a boot proves the whole
 * serial capture and judge chain: `bootrig run --provoke KIND`.
 *
 * A kind this kernel or arch cannot do is refused: the module prints
 * "provoke: unsupported KIND: REASON" and its init returns -EOPNOTSUPP
 * (init reads the reason back from the kernel log). A kind whose report
 * does not kill the task (warning, refcount, lockups, stalls, hung task,
 * scheduling while atomic) returns 0 after it; the others never return
 * (the oops kills the loading process, or the kernel panics).
 *
 * Built out of tree against Debian's linux-headers-* by
 * scripts/build-provoke.sh; never part of the kernel under test.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/delay.h>
#include <linux/sched.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/uaccess.h>
#include <linux/mman.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/interrupt.h>
#include <linux/bottom_half.h>
#include <linux/jiffies.h>
#include <linux/cpumask.h>
#include <linux/random.h>

static char *kind = "";
module_param(kind, charp, 0444);
MODULE_PARM_DESC(kind, "the report to provoke (bootrig run --provoke --help lists them)");

/* Keeps the compiler from proving anything about what we touch. */
static volatile unsigned long provoke_sink;
static volatile unsigned long provoke_zero;
static volatile unsigned long provoke_depth_limit = ~0UL;

static int unsupported(const char *reason)
{
	pr_info("provoke: unsupported %s: %s\n", kind, reason);
	return -EOPNOTSUPP;
}

/* Spins with preemption (and maybe interrupts) off for ms milliseconds
 * of the delay loop's clock (the TSC, the arch timer: it runs with
 * interrupts off, and does not depend on the tick as jiffies do). */
static noinline void provoke_spin(unsigned int ms, bool irqs_off)
{
	unsigned long flags = 0;

	if (irqs_off)
		local_irq_save(flags);
	preempt_disable();
	for (unsigned int i = 0; i < ms; i++)
		mdelay(1);
	preempt_enable();
	if (irqs_off)
		local_irq_restore(flags);
}

static noinline int provoke_bug(void)
{
	BUG();
	return 0;
}

static noinline int provoke_warning(void)
{
	WARN_ON(provoke_zero == 0);
	return 0;
}

static noinline int provoke_null(void)
{
	provoke_sink = *(volatile unsigned long *)provoke_zero;
	return 0;
}

static noinline int provoke_bad_paging(void)
{
	/* the guard page vmalloc leaves after every area: mapped never */
	char *p = vmalloc(PAGE_SIZE);

	if (!p)
		return -ENOMEM;
	provoke_sink = *(volatile unsigned long *)(p + PAGE_SIZE + 64);
	vfree(p);
	return 0;
}

static noinline int provoke_gpf(void)
{
#ifdef CONFIG_X86_64
	provoke_sink = *(volatile unsigned long *)(0xdead4ead00000000UL + provoke_zero);
	return 0;
#else
	/* (the reason avoids the header's own words: the judge reads this line) */
	return unsupported("x86-64 only (a non-canonical address traps as #GP there)");
#endif
}

static noinline int provoke_undef(void)
{
#if defined(CONFIG_X86)
	asm volatile("ud2");    /* no __bug_table entry: "invalid opcode" */
	unreachable();
#elif defined(CONFIG_ARM64)
	asm volatile(".inst 0x00000000");       /* udf #0 */
#elif defined(CONFIG_ARM)
	asm volatile(".inst 0xe7f000f0");       /* udf #0, not a BUG() pattern */
#else
	return unsupported("no undefined instruction known for this arch");
#endif
	return 0;
}

static noinline int provoke_divide(void)
{
#ifdef CONFIG_X86
	unsigned long a = 1, b = provoke_zero;

	asm volatile("xor %%edx, %%edx; div %1" : "+a"(a) : "r"(b) : "rdx", "cc");
	provoke_sink = a;
	return 0;
#else
	return unsupported("integer division by zero does not trap on this arch (it gives 0)");
#endif
}

static noinline int provoke_soft_lockup(void)
{
	if (!IS_ENABLED(CONFIG_SOFTLOCKUP_DETECTOR))
		return unsupported("CONFIG_SOFTLOCKUP_DETECTOR is not set");
	/* init set watchdog_thresh=1: reported after 2 s */
	provoke_spin(4000, false);
	return 0;
}

static noinline int provoke_hard_lockup(void)
{
	if (!IS_ENABLED(CONFIG_HARDLOCKUP_DETECTOR))
		return unsupported("CONFIG_HARDLOCKUP_DETECTOR is not set (no NMI watchdog)");
	/* init set watchdog_thresh=1 and checked nmi_watchdog */
	provoke_spin(5000, true);
	return 0;
}

static noinline int provoke_hung_task(void)
{
	if (!IS_ENABLED(CONFIG_DETECT_HUNG_TASK))
		return unsupported("CONFIG_DETECT_HUNG_TASK is not set");
	/* init set hung_task_timeout_secs=1: D state for 3 s */
	schedule_timeout_uninterruptible(msecs_to_jiffies(3000));
	return 0;
}

static void provoke_rcu_cb(struct rcu_head *h)
{
	kfree(h);
}

static noinline int provoke_rcu_stall(void)
{
	struct rcu_head *h;

	/*
	 * A grace period must start and then wait on us past the stall
	 * timeout (init set rcu_cpu_stall_timeout=3, its least). On one CPU
	 * with non-preemptible RCU it cannot: the grace-period kthread needs
	 * this CPU to start the period, and the context switch back to us is
	 * the quiescent state that ends it. With preemptible RCU a reader
	 * that is preempted holds the period whatever the CPUs: stay in one,
	 * busy (the tick checks for stalls only on a CPU that is not idle),
	 * rescheduling every millisecond so that the kthread can start the
	 * period. With a second CPU the kthread runs there and this CPU,
	 * spinning with preemption off, never reports its quiescent state.
	 */
	if (!IS_ENABLED(CONFIG_PREEMPT_RCU) && num_online_cpus() < 2)
		return unsupported("non-preemptible RCU (CONFIG_PREEMPT_RCU is not set) on one CPU: no grace period can wait on it");
	h = kmalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	call_rcu(h, provoke_rcu_cb);    /* a grace period that waits on us */
	if (IS_ENABLED(CONFIG_PREEMPT_RCU)) {
		rcu_read_lock();
		for (unsigned int i = 0; i < 8000; i++) {
			mdelay(1);
			cond_resched();
		}
		rcu_read_unlock();
	} else {
		yield();
		provoke_spin(8000, false);
	}
	return 0;
}

static noinline int provoke_sleep_atomic(void)
{
	if (!IS_ENABLED(CONFIG_DEBUG_ATOMIC_SLEEP))
		return unsupported("CONFIG_DEBUG_ATOMIC_SLEEP is not set (might_sleep() checks nothing)");
	preempt_disable();
	msleep(1);
	preempt_enable();
	return 0;
}

static noinline int provoke_sched_atomic(void)
{
	/* bottom halves off count in preempt_count on every config */
	local_bh_disable();
	schedule_timeout_uninterruptible(1);
	/* __schedule_bug() reset the count: no local_bh_enable() */
	return 0;
}

static noinline unsigned long provoke_recurse(unsigned long n)
{
	volatile char frame[512];

	frame[0] = (char)n;
	frame[sizeof(frame) - 1] = (char)n;
	if (n >= provoke_depth_limit)
		return 0;
	return provoke_recurse(n + 1) + frame[0] + frame[sizeof(frame) - 1];
}

static noinline int provoke_stack_overflow(void)
{
	if (!IS_ENABLED(CONFIG_VMAP_STACK))
		return unsupported("CONFIG_VMAP_STACK is not set (no guard page)");
	provoke_sink = provoke_recurse(provoke_zero);
	return 0;
}

/* (not "refcount" in the name: syzkaller's rule skips such frames as
 * the refcount helpers') */
static noinline int provoke_put_underflow(void)
{
	refcount_t r = REFCOUNT_INIT(1);

	refcount_dec(&r);                 /* 1 -> 0 ... */
	provoke_sink = refcount_dec_and_test(&r);       /* ... and below */
	return 0;
}

static noinline int provoke_list_corruption(void)
{
	static LIST_HEAD(head);
	struct list_head a, b;

	if (!IS_ENABLED(CONFIG_DEBUG_LIST))
		return unsupported("CONFIG_DEBUG_LIST is not set");
	list_add(&a, &head);
	head.next = &b;         /* a's neighbour now lies about it */
	b.prev = &b;
	list_add(&a, &head);
	return 0;
}

/* (not "usercopy" in the name: syzkaller's rule skips such frames) */
static noinline int provoke_copy_exposure(void)
{
	unsigned long uaddr;
	size_t size;
	char *buf;

	if (!IS_ENABLED(CONFIG_HARDENED_USERCOPY))
		return unsupported("CONFIG_HARDENED_USERCOPY is not set");
	buf = kmalloc(64, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	OPTIMIZER_HIDE_VAR(buf);        /* the check at run time, not the compiler's */
	size = 2 * ksize(buf);          /* kmalloc(64) is a 128-byte object on arm64 */
	uaddr = vm_mmap(NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, 0);
	if (IS_ERR_VALUE(uaddr)) {
		kfree(buf);
		return -ENOMEM;
	}
	/* twice the object's size out of it */
	if (copy_to_user((void __user *)uaddr, buf, size))
		pr_info("provoke: copy_to_user failed\n");
	vm_munmap(uaddr, PAGE_SIZE);
	kfree(buf);
	return 0;
}

/* double-free: a private cache's object freed twice. A kmalloc object
 * would share its slab with the rest of the kernel, and SLUB's recovery
 * from the second kfree (it leaves the object, then adjusts the slab's
 * count) can leave that shared slab inconsistent: one boot in six of
 * 6.1.0-57-arm64 went on to a NULL dereference in get_partial_node, a
 * PANIC the double free did not itself cause. Nothing else allocates from
 * this cache (the constructor keeps SLUB from merging it with another),
 * and it is never destroyed, so whatever state the report leaves stays
 * here (keep included). */
static void provoke_ctor(void *obj)
{
	(void)obj;
}

static noinline int provoke_double_free(void)
{
	struct kmem_cache *cache;
	char *keep, *p;

	if (!IS_ENABLED(CONFIG_SLUB_DEBUG))
		return unsupported("CONFIG_SLUB_DEBUG is not set");
	cache = kmem_cache_create("provoke", 64, 0, SLAB_CONSISTENCY_CHECKS, provoke_ctor);
	if (!cache)
		return -ENOMEM;
	/* keep: a live object in p's slab, so that the second free finds
	 * one object in use and goes on to look for p on the freelist
	 * (with none, SLUB reports the count instead: "Slab has 0
	 * allocated objects but 1 are to be freed") */
	keep = kmem_cache_alloc(cache, GFP_KERNEL);
	p = kmem_cache_alloc(cache, GFP_KERNEL);
	if (!keep || !p)
		return -ENOMEM;
	kmem_cache_free(cache, p);
	kmem_cache_free(cache, p);      /* SLAB_CONSISTENCY_CHECKS reports it */
	return 0;
}

static noinline int provoke_panic(void)
{
	panic("provoke: panic requested");
	return 0;
}

/* flaky-panic: a panic in some boots only, as a flaky bug's. The module's
 * init draws a number from the kernel's random generator and panics when
 * it is odd, else returns: which boots panic follows the kernel's
 * randomness (under icount, QEMU's -seed: one seed always does the same,
 * different seeds differ), so a crash bisection has a real flaky crash to
 * follow. */
static noinline int provoke_flaky_panic(void)
{
	u32 draw = get_random_u32();

	pr_info("provoke: flaky-panic drew %u\n", draw);
	if (draw & 1)
		panic("provoke: flaky panic (the draw was odd)");
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(void);
} kinds[] = {
	{ "bug", provoke_bug },
	{ "warning", provoke_warning },
	{ "null", provoke_null },
	{ "bad-paging", provoke_bad_paging },
	{ "gpf", provoke_gpf },
	{ "undef", provoke_undef },
	{ "divide", provoke_divide },
	{ "soft-lockup", provoke_soft_lockup },
	{ "hard-lockup", provoke_hard_lockup },
	{ "hung-task", provoke_hung_task },
	{ "rcu-stall", provoke_rcu_stall },
	{ "sleep-atomic", provoke_sleep_atomic },
	{ "sched-atomic", provoke_sched_atomic },
	{ "stack-overflow", provoke_stack_overflow },
	{ "refcount", provoke_put_underflow },
	{ "list-corruption", provoke_list_corruption },
	{ "usercopy", provoke_copy_exposure },
	{ "double-free", provoke_double_free },
	{ "panic", provoke_panic },
	{ "flaky-panic", provoke_flaky_panic },
};

static int __init provoke_init(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (strcmp(kind, kinds[i].name) == 0) {
			int rc;

			pr_info("provoke: %s\n", kind);
			rc = kinds[i].fn();
			pr_info("provoke: %s returned %d\n", kind, rc);
			return rc;
		}
	}
	pr_info("provoke: unknown kind '%s'\n", kind);
	return -EINVAL;
}

static void __exit provoke_exit(void)
{
}

module_init(provoke_init);
module_exit(provoke_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("bootrig: provoke one kernel report of a given kind");
