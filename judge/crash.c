/*
 * crash.c: the kernel report detector (see crash.h for the contract).
 *
 * The file reads top-down:
 *   1. line helpers: needle sets, printk prefixes, stack frames, PC lines,
 *      lock sites;
 *   2. the header table: which line starts which report, with its kind,
 *      whether it is fatal and how its title is made;
 *   3. choosing the guilty function (skip lists after syzkaller's);
 *   4. titles;
 *   5. the line state machine: open, extend and close reports. Outside a
 *      report, a line is first scanned once for every string any step
 *      looks for (the quick rejection); most lines end there.
 */
#include "crash.h"
#include "console.h"
#include "textsafe.h"
#include "util.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 64
#define MAX_REPORT_LINES 160
#define MAX_EXCERPT 16384
#define FN_MAX 128
#define PREAMBLE_LINES 4

/* ---------------------------------------------------------------- 1. lines */

/* Does s (n bytes) start with the NUL-terminated p? */
static bool starts(const char *s, size_t n, const char *p)
{
	size_t m = strlen(p);
	return n >= m && !memcmp(s, p, m);
}

/* memmem on a length-bounded line with a C-string needle. */
static const char *find(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle));
}

/* The 8 bytes at p as one word (any alignment). */
static uint64_t load8(const char *p)
{
	uint64_t w;
	memcpy(&w, p, sizeof(w));
	return w;
}

/* A window's bit in a needle set's bitmap (Fibonacci hashing: the top 16 bits). */
static unsigned window_bit(uint64_t w)
{
	return (unsigned)((w * 0x9e3779b97f4a7c15ull) >> 48);
}

/* qsort order of needle windows: by bit. */
static int by_bit(const void *a, const void *b)
{
	const struct needle_window *x = a, *y = b;
	return (x->bit > y->bit) - (x->bit < y->bit);
}

void needle_set_init(struct needle_set *set, const char *const *needles, size_t count)
{
	memset(set, 0, sizeof(*set));
	set->stride = 8;
	for (size_t i = 0; i < count; i++) {
		size_t len = strlen(needles[i]);
		if (len < 8 || count > NEEDLE_SET_MAX)
			die("needle_set_init: \"%s\" is shorter than 8 bytes, or too many strings",
			    needles[i]);
		if (len - 7 < set->stride)
			set->stride = len - 7;
	}
	for (size_t i = 0; i < count; i++) {
		for (size_t off = 0; off < set->stride; off++) {
			struct needle_window *w = &set->windows[set->nwindows++];
			w->head = load8(needles[i] + off);
			w->bit = window_bit(w->head);
			w->offset = (unsigned)off;
			w->text = needles[i];
			w->len = strlen(needles[i]);
			set->bits[w->bit / 64] |= 1ull << (w->bit % 64);
		}
	}
	qsort(set->windows, set->nwindows, sizeof(set->windows[0]), by_bit);
}

/* Is the window w read at s + i (of n bytes) part of one of the set's strings? */
static bool window_matches(const struct needle_set *set, uint64_t w, const char *s, size_t n,
			   size_t i)
{
	unsigned bit = window_bit(w);
	size_t lo = 0, hi = set->nwindows;
	while (lo < hi) {               /* the first window with this bit */
		size_t mid = (lo + hi) / 2;
		if (set->windows[mid].bit < bit)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < set->nwindows && set->windows[lo].bit == bit; lo++) {
		const struct needle_window *nw = &set->windows[lo];
		if (nw->head != w || nw->offset > i || i - nw->offset + nw->len > n)
			continue;
		if (!memcmp(s + i - nw->offset, nw->text, nw->len))
			return true;
	}
	return false;
}

bool needle_set_search(const struct needle_set *set, const char *s, size_t n)
{
	for (size_t i = 0; i + 8 <= n; i += set->stride) {
		uint64_t w = load8(s + i);
		unsigned bit = window_bit(w);
		if ((set->bits[bit / 64] >> (bit % 64) & 1) && window_matches(set, w, s, n, i))
			return true;
	}
	return false;
}

/* Can c be part of a C symbol as the kernel prints it (".isra.0" included)? */
static bool is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

/*
 * Copies the identifier at s (up to n bytes) into fn without compiler
 * suffixes (".isra.0", ".constprop.1", ".cold", ".part.2"). Returns its
 * length in s, 0 when there is none.
 */
static size_t take_ident(const char *s, size_t n, char *fn)
{
	size_t i = 0;
	if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	while (i < n && is_ident_char(s[i]))
		i++;
	size_t keep = i;
	const char *dot = memchr(s, '.', i);
	if (dot)
		keep = (size_t)(dot - s);
	if (keep >= FN_MAX)
		keep = FN_MAX - 1;
	memcpy(fn, s, keep);
	fn[keep] = '\0';
	return i;
}

/* Skips spaces and "[<ffffffff81234567>]" address tokens. */
static size_t skip_addresses(const char *s, size_t n)
{
	size_t i = 0;
	for (;;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i + 1 < n && s[i] == '[' && s[i + 1] == '<') {
			const char *end = memchr(s + i, ']', n - i);
			if (!end)
				return i;
			i = (size_t)(end - s) + 1;
			continue;
		}
		return i;
	}
}

/*
 * parse_frame: is this line a stack frame? Accepts x86/arm64 frames
 * (" func+0x1c/0x40 [mod]", "[<ffff..>] func+0x..", " ? func+0x.." as
 * questionable), arm's ("[<c0..>] (func) from [<c0..>] (caller+0x..)",
 * " func from caller+0x..") and decoded ones (" func (file.c:12)"). fn gets the frame's function.
 */
static bool parse_frame(const char *s, size_t n, char *fn, bool *questionable)
{
	size_t i = skip_addresses(s, n);
	*questionable = false;
	if (i + 1 < n && s[i] == '?' && s[i + 1] == ' ') {
		*questionable = true;
		i = i + 2 + skip_addresses(s + i + 2, n - i - 2);
	}
	bool paren = i < n && s[i] == '(';
	if (paren)
		i++;
	size_t k = take_ident(s + i, n - i, fn);
	if (!k)
		return false;
	i += k;
	if (starts(s + i, n - i, "+0x"))
		return true;
	if (starts(s + i, n - i, " [")) {
		/* a module's function: "(f [mod]) from", " f [mod] from" */
		const char *end = memchr(s + i, ']', n - i);
		if (end)
			i = (size_t)(end - s) + 1;
	}
	if (paren && starts(s + i, n - i, ") from "))
		return true;
	if (!paren && starts(s + i, n - i, " (") && s[n - 1] == ')' && memchr(s + i, ':', n - i))
		return true;    /* decoded by decode_stacktrace.sh: "f (file.c:12)" */
	return starts(s + i, n - i, " from ") && find(s + i, n - i, "+0x");
}

/*
 * parse_pc_line: the function of a faulting-PC line: x86 "RIP: 0010:f+0x..",
 * "EIP: f+0x..", "IP: [<..>] f+0x.." and "EIP is at f+0x.." (old kernels),
 * arm64 "pc : f+0x..", arm "PC is at f+0x..".
 */
static bool parse_pc_line(const char *s, size_t n, char *fn)
{
	size_t i;
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	if (starts(s, n, "RIP: ") || starts(s, n, "EIP: ") || starts(s, n, "NIP: ")) {
		i = 5;
		size_t j = i;
		while (j < n && isxdigit((unsigned char)s[j]))
			j++;
		if (j < n && s[j] == ':' && j > i)
			i = j + 1;
	} else if (starts(s, n, "pc : ")) {
		i = 5;
	} else if (starts(s, n, "PC is at ") || starts(s, n, "EIP is at ") ||
		   starts(s, n, "RIP is at ")) {
		i = (size_t)(find(s, n, " at ") - s) + 4;
	} else if (starts(s, n, "IP: ")) {
		i = 4;
	} else {
		return false;
	}
	i += skip_addresses(s + i, n - i);
	size_t k = take_ident(s + i, n - i, fn);
	return k && starts(s + i + k, n - i - k, "+0x");
}

/* The function of a lockdep lock site: "..., at: f+0x1/0x2" or "at: [<..>] f+0x". */
static bool parse_lock_site(const char *s, size_t n, char *fn)
{
	const char *at = find(s, n, "at: ");
	if (!at)
		return false;
	size_t i = (size_t)(at - s) + 4;
	i += skip_addresses(s + i, n - i);
	size_t k = take_ident(s + i, n - i, fn);
	return k && starts(s + i + k, n - i - k, "+0x");
}

/* A line of '=' (KASAN, UBSAN and lockdep frame their reports so). */
static bool is_rule_line(const char *s, size_t n)
{
	if (n < 20)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] != '=' && s[i] != '-')
			return false;
	return true;
}

/* --------------------------------------------------------- 2. headers */

enum style {
	ST_FN,          /* "<title> in F" from PC then stack */
	ST_STACK,       /* "<title> in F" from the stack only */
	ST_PANIC,       /* "Kernel panic - not syncing: REASON" */
	ST_WARNING,     /* "WARNING in F" (F from the header), special files */
	ST_SANITIZER,   /* KASAN/KFENCE/KMSAN: "KASAN: TYPE [Read|Write] in F" */
	ST_KCSAN,       /* "KCSAN: data-race in f / g", verbatim */
	ST_UBSAN,       /* "UBSAN: TYPE in F" from the stack */
	ST_LOCK_SITE,   /* "<title> in F" from the lock site */
	ST_STALL,       /* RCU stall, lockups: the frame above the dispatcher */
	ST_HUNG,        /* hung task: first frame not waiting */
	ST_LEAK,        /* "memory leak in F" from the allocation stack */
	ST_ARM_FAULT,   /* "Unable to handle kernel WHAT at virtual address" */
	ST_ARM_ERROR,   /* "Internal error: Oops - WHAT: code [#1]" */
	ST_FIXED,       /* the title as given */
	ST_HEAD,        /* the header's own words up to "stop", then title, then " in F"
			 * from the stack ("BUG: spinlock bad magic in F") */
	ST_LINE,        /* the header line itself, numbers replaced */
	ST_SLUB,        /* "BUG cache (Tainted): MSG" -> "BUG: MSG" */
	ST_HEADER_FN,   /* "<title> in F", F named by the header ("INFO: Freed in f+0x") */
	ST_PRELUDE,     /* a WARN's message line; the "WARNING:" line after it joins */
	ST_OVERFLOW,    /* "kernel stack overflow in F": PC then stack (arm64's
			 * "Insufficient stack space", its panic joins) */
};

#define K(kind) (1u << (kind))

struct header {
	const char *needle;     /* where it must be in the stripped line */
	bool at_start;          /* needle starts the line, else anywhere */
	enum crash_kind kind;
	bool fatal;
	enum style style;
	const char *title;      /* title, or its part before " in F" */
	unsigned joins;         /* continues an open report of these kinds */
	const char *const *skip; /* more frames to skip for this title */
	const char *stop;       /* ST_HEAD: where the header's words end */
	bool prelude;           /* a WARNING header within 3 lines joins this report */
};

static const char *const skip_free[] = { "kmem_", "slab_", "kfree", "vunmap", "vfree", NULL };
static const char *const skip_ubsan[] = { "ubsan", "handle_overflow", NULL };
static const char *const skip_might[] = { "might_resched", "might_sleep", "preempt", NULL };
static const char *const skip_sched[] = { "schedule", "preempt", NULL };
static const char *const skip_preempt[] = { "preempt", "this_cpu", "smp_processor_id", NULL };
static const char *const skip_rcu[] = { "rcu", "kmem", "slab", "kmalloc", "vmalloc", "kcalloc",
					"kzalloc", NULL };
static const char *const skip_leak[] = { "kmemleak", "kmalloc", "kcalloc", "kzalloc", "vmalloc",
					 "mmap", "kmem", "slab", "alloc", "create_object", "idr_get",
					 "list_lru_init", "kasprintf", "kvasprintf", "pcpu_create",
					 "strdup", "strndup", "memdup", NULL };
static const char *const skip_spin[] = { "spin_", "_raw_", "rwlock", "read_lock", "write_lock",
					 "_lock", "_unlock", NULL };
static const char *const skip_skb[] = { "^skb_", "^__skb_", NULL };
static const char *const skip_lock_sock[] = { "lock_sock", "release_sock", NULL };
static const char *const skip_key[] = { "stack", "lock", "IRQ", NULL };
static const char *const skip_div0[] = { "div0", "aeabi_", "do_div", NULL };
static const char *const skip_odebug[] = { "debug_", "rcu", "hrtimer_", "timer_", "work_",
					   "percpu_", "kmem_", "slab_", "kfree", "vunmap",
					   "vfree", "__free_", "kobject_", NULL };
static const char *const skip_refcount[] = { "refcount", "kobject_", NULL };
/* the arm64 overflow handler and the panic it calls (arch/arm64/kernel/traps.c) */
static const char *const skip_overflow[] = { "bad_stack", NULL };
/* syzkaller's usercopy skips: usercopy_abort, __check_object_size, ... */
static const char *const skip_usercopy[] = { "usercopy", "__check", "check_heap_object", NULL };

/*
 * The headers, most specific first: the first match wins. Each entry
 * names the kernel source file that prints it (linux 6.1 unless said);
 * tests/tools/judge-catalogue.c checks every header those files print
 * against this table, and that every entry is needed by one of them.
 * "joins" lists the kinds of an open report that this line belongs to
 * (x86 prints "BUG: unable to handle page fault", then "Oops:").
 */
static const struct header headers[] = {
	/* kernel/panic.c: panic() */
	{ CONSOLE_PANIC, false, CRASH_PANIC, true, ST_PANIC, NULL, 0, NULL, NULL, false },
	/* mm/kasan/report.c */
	{ "BUG: KASAN: ", false, CRASH_KASAN, false, ST_SANITIZER, "KASAN", 0, NULL, NULL, false },
	/* mm/kfence/report.c */
	{ "BUG: KFENCE: ", false, CRASH_KFENCE, false, ST_SANITIZER, "KFENCE", 0, NULL, NULL, false },
	/* mm/kmsan/report.c (6.1+) */
	{ "BUG: KMSAN: ", false, CRASH_KMSAN, false, ST_SANITIZER, "KMSAN", 0, NULL, NULL, false },
	/* kernel/kcsan/report.c */
	{ "BUG: KCSAN: ", false, CRASH_KCSAN, false, ST_KCSAN, NULL, 0, NULL, NULL, false },
	/* lib/ubsan.c: ubsan_prologue() */
	{ "UBSAN: ", true, CRASH_UBSAN, false, ST_UBSAN, NULL, 0, skip_ubsan, NULL, false },
	/* kernel/watchdog.c: watchdog_timer_fn() */
	{ "BUG: soft lockup", false, CRASH_SOFT_LOCKUP, false, ST_STALL, "BUG: soft lockup", 0, NULL,
	  NULL, false },
	/* kernel/watchdog_hld.c: watchdog_overflow_callback() */
	{ "Watchdog detected hard LOCKUP", false, CRASH_HARD_LOCKUP, false, ST_STALL,
	  "BUG: hard lockup", 0, NULL, NULL, false },
	/* kernel/rcu/tree_stall.h: print_other_cpu_stall() ("detected stalls on CPUs/tasks"),
	 * kernel/rcu/tasks.h: check_all_holdout_tasks() ("detected stalls on tasks") */
	{ "detected stalls on ", false, CRASH_RCU_STALL, false, ST_STALL,
	  "INFO: rcu detected stall", 0, NULL, NULL, false },
	/* kernel/rcu/tree_stall.h: print_cpu_stall() ("self-detected stall on CPU") */
	{ "detected stall on CPU", false, CRASH_RCU_STALL, false, ST_STALL,
	  "INFO: rcu detected stall", 0, NULL, NULL, false },
	/* kernel/rcu/tree_exp.h: synchronize_rcu_expedited_wait() */
	{ "detected expedited stalls", false, CRASH_RCU_STALL, false, ST_STALL,
	  "INFO: rcu detected stall", 0, NULL, NULL, false },
	/* kernel/hung_task.c: check_hung_task() ("blocked for more than"; "can't die" in
	 * linux-next's variant) */
	{ "INFO: task ", true, CRASH_HUNG_TASK, false, ST_HUNG, "INFO: task hung", 0, NULL, NULL,
	  false },
	/* kernel/workqueue.c: wq_watchdog_timer_fn() */
	{ "BUG: workqueue lockup", false, CRASH_HUNG_TASK, false, ST_FIXED,
	  "BUG: workqueue lockup", 0, NULL, NULL, false },
	/* kernel/workqueue.c: process_one_work() (the function: "last function: f") */
	{ "BUG: workqueue leaked lock or atomic", false, CRASH_LOCKDEP, false, ST_LOCK_SITE,
	  "BUG: workqueue leaked lock or atomic", 0, NULL, NULL, false },
	/* mm/kmemleak.c: print_unreferenced() */
	{ "unreferenced object 0x", true, CRASH_KMEMLEAK, false, ST_LEAK, "memory leak",
	  K(CRASH_KMEMLEAK), skip_leak, NULL, false },
	/* mm/kmemleak.c: kmemleak_scan() */
	{ "new suspected memory leaks", false, CRASH_KMEMLEAK, false, ST_FIXED,
	  "kmemleak: new suspected memory leaks", K(CRASH_KMEMLEAK), NULL, NULL, false },
	/* kernel/locking/lockdep.c: print_circular_bug_header() */
	{ "possible circular locking dependency detected", false, CRASH_LOCKDEP, false,
	  ST_LOCK_SITE, "possible deadlock", 0, NULL, NULL, false },
	/* kernel/locking/lockdep.c: print_deadlock_bug() */
	{ "possible recursive locking detected", false, CRASH_LOCKDEP, false, ST_LOCK_SITE,
	  "possible deadlock", 0, NULL, NULL, false },
	/* kernel/locking/lockdep.c: print_irq_inversion_bug() */
	{ "possible irq lock inversion dependency detected", false, CRASH_LOCKDEP, false,
	  ST_LOCK_SITE, "possible deadlock", 0, NULL, NULL, false },
	/* kernel/locking/lockdep.c: print_bad_irq_dependency() ("%s-safe -> %s-unsafe") */
	{ "-safe -> ", false, CRASH_LOCKDEP, false, ST_LOCK_SITE, "possible deadlock", 0, NULL,
	  NULL, false },
	/* kernel/locking/lockdep.c: print_usage_bug() */
	{ "inconsistent lock state", false, CRASH_LOCKDEP, false, ST_LOCK_SITE,
	  "inconsistent lock state", 0, NULL, NULL, false },
	/* kernel/locking/lockdep.c: print_unlock_imbalance_bug() */
	{ "bad unlock balance detected", false, CRASH_LOCKDEP, false, ST_LOCK_SITE,
	  "*: bad unlock balance", 0, NULL, NULL, false },
	/* kernel/locking/lockdep.c: print_freed_lock_bug() */
	{ "held lock freed!", false, CRASH_LOCKDEP, false, ST_LOCK_SITE,
	  "*: held lock freed", 0, NULL, NULL, false },
	/* kernel/locking/lockdep.c: print_held_locks_bug() ("%s/%d still has locks held!") */
	{ "still has locks held!", false, CRASH_LOCKDEP, false, ST_LOCK_SITE,
	  "*: still has locks held", 0, NULL, NULL, false },
	/* kernel/locking/lockdep.c: lockdep_sys_exit() */
	{ "lock held when returning to user space", false, CRASH_LOCKDEP, false, ST_LOCK_SITE,
	  "*: lock held when returning to user space", 0, NULL, NULL, false },
	/* kernel/locking/lockdep.c: print_lock_nested_lock_not_held() */
	{ "Nested lock was not taken", false, CRASH_LOCKDEP, false, ST_LOCK_SITE,
	  "*: nested lock was not taken", 0, NULL, NULL, false },
	/* kernel/locking/lockdep.c: print_lock_contention_bug() */
	{ "bad contention detected!", false, CRASH_LOCKDEP, false, ST_LOCK_SITE,
	  "*: bad contention", 0, NULL, NULL, false },
	/* kernel/locking/lockdep.c: print_lock_invalid_wait_context() ("[ BUG: Invalid wait
	 * context ]"); syzbot titles it as x86's lockdep WARN, "WARNING: locking bug" */
	{ "BUG: Invalid wait context", false, CRASH_LOCKDEP, false, ST_STACK,
	  "WARNING: locking bug", 0, skip_lock_sock, NULL, false },
	/* kernel/locking/lockdep.c: print_collision() */
	{ "chain_key collision", false, CRASH_LOCKDEP, false, ST_STACK,
	  "WARNING: chain_key collision", 0, NULL, NULL, false },
	/* kernel/locking/lockdep.c: lockdep_rcu_suspicious() ("INFO:" before 4.x) */
	{ "suspicious RCU usage", false, CRASH_LOCKDEP, false, ST_STACK,
	  "*: suspicious RCU usage", 0, skip_rcu, NULL, false },
	/* kernel/locking/lockdep.c: assign_lock_key() */
	{ "trying to register non-static key", false, CRASH_LOCKDEP, false, ST_STACK,
	  "INFO: trying to register non-static key", 0, skip_key, NULL, false },
	/* kernel/locking/lockdep.c: print_lockdep_off() ("BUG: MAX_LOCKDEP_KEYS too low!", ...),
	 * look_up_lock_class(), lockdep_init_map_type() */
	{ "BUG: MAX_", true, CRASH_LOCKDEP, false, ST_LINE, NULL, 0, NULL, NULL, false },
	{ "BUG: looking up invalid subclass", true, CRASH_LOCKDEP, false, ST_FIXED,
	  "BUG: looking up invalid subclass", 0, NULL, NULL, false },
	{ "has not been registered!", false, CRASH_LOCKDEP, false, ST_STACK,
	  "BUG: key has not been registered", 0, NULL, NULL, false },
	/* kernel/locking/spinlock_debug.c: spin_dump() ("BUG: spinlock %s on CPU#%d") */
	{ "BUG: spinlock ", true, CRASH_LOCKDEP, false, ST_HEAD, "", 0, skip_spin, " on CPU",
	  false },
	/* kernel/locking/spinlock_debug.c: rwlock_bug() */
	{ "BUG: rwlock ", true, CRASH_LOCKDEP, false, ST_HEAD, "", 0, skip_spin, " on CPU", false },
	/* lib/smp_processor_id.c: check_preemption_disabled() */
	{ "BUG: using ", true, CRASH_WARNING, false, ST_HEAD, " in preemptible code", 0,
	  skip_preempt, " in preemptible", false },
	/* kernel/sched/core.c: __might_resched() */
	{ "BUG: sleeping function called from invalid context", false, CRASH_WARNING, false,
	  ST_STACK, "BUG: sleeping function called from invalid context", 0, skip_might, NULL,
	  false },
	/* kernel/sched/core.c: __schedule_bug() */
	{ "BUG: scheduling while atomic", false, CRASH_WARNING, false, ST_STACK,
	  "BUG: scheduling while atomic", 0, skip_sched, NULL, false },
	/* kernel/sched/core.c: schedule_debug() (CONFIG_DEBUG_ATOMIC_SLEEP) */
	{ "BUG: scheduling in a non-blocking section", false, CRASH_WARNING, false, ST_STACK,
	  "BUG: scheduling in a non-blocking section", 0, skip_sched, NULL, false },
	/* kernel/sched/topology.c: build_sched_domain() */
	{ "BUG: arch topology borken", false, CRASH_BUG, false, ST_FIXED,
	  "BUG: arch topology borken", 0, NULL, NULL, false },
	/* kernel/sched/core.c: __cant_sleep(), __cant_migrate() */
	{ "BUG: assuming atomic context", false, CRASH_WARNING, false, ST_STACK,
	  "BUG: assuming atomic context", 0, skip_might, NULL, false },
	{ "BUG: assuming non migratable context", false, CRASH_WARNING, false, ST_STACK,
	  "BUG: assuming non migratable context", 0, skip_might, NULL, false },
	/* mm/page_alloc.c: bad_page() */
	{ "BUG: Bad page state", false, CRASH_BUG, false, ST_FIXED, "BUG: Bad page state", 0, NULL,
	  NULL, false },
	/* mm/memory.c: print_bad_pte() */
	{ "BUG: Bad page map", false, CRASH_BUG, false, ST_FIXED, "BUG: Bad page map", 0, NULL,
	  NULL, false },
	/* kernel/fork.c: check_mm() */
	{ "BUG: Bad rss-counter state", false, CRASH_BUG, false, ST_FIXED,
	  "BUG: Bad rss-counter state", 0, NULL, NULL, false },
	{ "BUG: non-zero pgtables_bytes on freeing mm", false, CRASH_BUG, false, ST_FIXED,
	  "BUG: non-zero pgtables_bytes on freeing mm", 0, NULL, NULL, false },
	/* fs/dcache.c: umount_check() */
	{ "BUG: Dentry ", true, CRASH_BUG, false, ST_FIXED, "BUG: Dentry still in use", 0, NULL,
	  NULL, false },
	/* arch/x86/kernel/traps.c: handle_stack_overflow() ("BUG: %s stack guard page was hit") */
	{ "stack guard page was hit", false, CRASH_OOPS, true, ST_FN,
	  "BUG: stack guard page was hit", 0, NULL, NULL, false },
	/* arch/x86/mm/fault.c: show_fault_oops() (5.1+) */
	{ "BUG: unable to handle page fault", false, CRASH_OOPS, true, ST_FN,
	  "BUG: unable to handle kernel paging request", 0, NULL, NULL, false },
	/* arch/x86/mm/fault.c (before 5.1) */
	{ "BUG: unable to handle kernel NULL pointer dereference", false, CRASH_OOPS, true, ST_FN,
	  "BUG: unable to handle kernel NULL pointer dereference", 0, NULL, NULL, false },
	/* arch/x86/mm/fault.c: show_fault_oops() (5.1+) */
	{ "BUG: kernel NULL pointer dereference", false, CRASH_OOPS, true, ST_FN,
	  "BUG: unable to handle kernel NULL pointer dereference", 0, NULL, NULL, false },
	/* arch/x86/mm/fault.c (before 5.1) */
	{ "BUG: unable to handle kernel paging request", false, CRASH_OOPS, true, ST_FN,
	  "BUG: unable to handle kernel paging request", 0, NULL, NULL, false },
	/* arch/x86/mm/fault.c: the rest of the header cut or lost */
	{ "BUG: unable to handle kernel", false, CRASH_OOPS, true, ST_FN,
	  "BUG: unable to handle kernel", 0, NULL, NULL, false },
	/* arch/arm64/mm/fault.c: die_kernel_fault(); arch/arm/mm/fault.c: __do_kernel_fault() */
	{ "Unable to handle kernel ", false, CRASH_OOPS, true, ST_ARM_FAULT, NULL, 0, NULL, NULL,
	  false },
	/* lib/list_debug.c: BUG_ON via CHECK_DATA_CORRUPTION (lib/bug.c prints the line) */
	{ "kernel BUG at lib/list_debug.c", false, CRASH_BUG, true, ST_STACK,
	  "BUG: corrupted list", 0, NULL, NULL, false },
	/* mm/usercopy.c: usercopy_abort() */
	{ "kernel BUG at mm/usercopy.c", false, CRASH_BUG, true, ST_STACK,
	  "BUG: bad usercopy", 0, skip_usercopy, NULL, false },
	/* lib/bug.c: report_bug() (the skb helpers' BUG_ON()s blame their caller) */
	{ "kernel BUG at ", false, CRASH_BUG, true, ST_FN, "kernel BUG", 0, skip_skb, NULL, false },
	/* lib/bug.c: report_bug() without a file ("Kernel BUG at %pB [verbose debug info
	 * unavailable]") */
	{ "Kernel BUG at ", false, CRASH_BUG, true, ST_FN, "kernel BUG", 0, NULL, NULL, false },
	/* arch/arm64/kernel/traps.c: bug_handler() -> die("Oops - BUG") */
	{ "Internal error: Oops - BUG", false, CRASH_BUG, true, ST_FN, "kernel BUG",
	  K(CRASH_BUG) | K(CRASH_OOPS), NULL, NULL, false },
	/* arch/arm64/kernel/traps.c, arch/arm/kernel/traps.c: __die() */
	{ "Internal error: ", false, CRASH_OOPS, true, ST_ARM_ERROR, NULL,
	  K(CRASH_BUG) | K(CRASH_OOPS), NULL, NULL, false },
	/* arch/x86/kernel/traps.c: exc_general_protection() */
	{ "general protection fault", false, CRASH_OOPS, true, ST_FN,
	  "general protection fault", 0, NULL, NULL, false },
	/* arch/x86/kernel/traps.c: do_error_trap("stack segment") */
	{ "stack segment: ", false, CRASH_OOPS, true, ST_FN, "stack segment fault", 0, NULL, NULL,
	  false },
	/* arch/x86/kernel/traps.c: exc_double_fault() */
	{ "PANIC: double fault", false, CRASH_OOPS, true, ST_FN, "PANIC: double fault", 0, NULL,
	  NULL, false },
	/* arch/x86/kernel/traps.c: do_error_trap("invalid opcode") */
	{ "invalid opcode: ", false, CRASH_OOPS, true, ST_FN, "invalid opcode",
	  K(CRASH_BUG) | K(CRASH_OOPS), NULL, NULL, false },
	/* arch/x86/kernel/traps.c: exc_divide_error() ("divide error: 0000 [#1]", 6.9+
	 * "Oops: divide error: 0000") */
	{ "divide error: ", false, CRASH_OOPS, true, ST_FN, "divide error", K(CRASH_OOPS), NULL,
	  NULL, false },
	/* arch/x86/kernel/traps.c, linux 5.8-5.9: "divide_error: 0000 [#1]" (the
	 * IDTENTRY conversion misspelt the trap's name) */
	{ "divide_error: ", false, CRASH_OOPS, true, ST_FN, "divide error", K(CRASH_OOPS), NULL,
	  NULL, false },
	/* arch/arm64/kernel/traps.c: handle_bad_stack(), then nmi_panic("kernel stack
	 * overflow"), whose "Kernel panic" line joins this report; arch/arm/kernel/traps.c:
	 * handle_bad_stack(), then die("kernel stack overflow") ("Internal error:" joins) */
	{ "Insufficient stack space to handle exception", false, CRASH_PANIC, true, ST_OVERFLOW,
	  "kernel stack overflow", 0, skip_overflow, NULL, false },
	/* arch/arm/kernel/traps.c: __div0() (arm64 does not trap on a division by zero) */
	{ "Division by zero in kernel", false, CRASH_WARNING, false, ST_STACK, "divide error", 0,
	  skip_div0, NULL, false },
	/* arch/x86/kernel/dumpstack.c: __die_header() */
	{ "Oops: ", true, CRASH_OOPS, true, ST_FN, "Oops", K(CRASH_BUG) | K(CRASH_OOPS), NULL, NULL,
	  false },
	/* arch/x86/kernel/unwind_frame.c: unwind_next_frame() */
	{ "WARNING: kernel stack regs at ", true, CRASH_WARNING, false, ST_FIXED,
	  "WARNING: kernel stack regs has bad 'bp' value", 0, NULL, NULL, false },
	{ "WARNING: kernel stack frame pointer at ", true, CRASH_WARNING, false, ST_FIXED,
	  "WARNING: kernel stack frame pointer has bad value", 0, NULL, NULL, false },
	/* mm/slub.c: slab_bug() ("BUG %s (%s): %pV"), its "INFO: Allocated/Freed in" lines
	 * (print_track()) alone when the header was lost */
	{ "BUG ", true, CRASH_BUG, false, ST_SLUB, NULL, 0, NULL, NULL, false },
	{ "INFO: Allocated in ", true, CRASH_BUG, false, ST_HEADER_FN, "INFO: Allocated",
	  K(CRASH_BUG), NULL, NULL, false },
	{ "INFO: Freed in ", true, CRASH_BUG, false, ST_HEADER_FN, "INFO: Freed", K(CRASH_BUG),
	  NULL, NULL, false },
	/* net/core/dev.c: netdev_wait_allrefs_any() */
	{ "unregister_netdevice: waiting for ", true, CRASH_HUNG_TASK, false, ST_FIXED,
	  "unregister_netdevice: waiting for DEV to become free", 0, NULL, NULL, false },
	/* fs/super.c: generic_shutdown_super(); fs/open.c: filp_close() (older kernels). The
	 * titles add syzbot's "(use-after-free)", what these messages mean */
	{ "VFS: Busy inodes after unmount", true, CRASH_BUG, false, ST_FIXED,
	  "VFS: Busy inodes after unmount (use-after-free)", 0, NULL, NULL, false },
	{ "VFS: Close: file count is 0", true, CRASH_BUG, false, ST_FIXED,
	  "VFS: Close: file count is zero (use-after-free)", 0, NULL, NULL, false },
	/* lib/debugobjects.c: debug_print_object(), the WARN's message: the WARNING
	 * line that follows joins it */
	{ "ODEBUG: ", true, CRASH_WARNING, false, ST_PRELUDE, "WARNING: ODEBUG bug", 0,
	  skip_odebug, NULL, true },
	/* lib/refcount.c: refcount_warn_saturate(), the WARN's message */
	{ "refcount_t: ", true, CRASH_WARNING, false, ST_PRELUDE, "WARNING: refcount bug", 0,
	  skip_refcount, NULL, true },
	/* kernel/panic.c: __warn() ("WARNING: CPU: %d PID: %d at %pS"), lib/bug.c */
	{ "WARNING: ", true, CRASH_WARNING, false, ST_WARNING, NULL, 0, NULL, NULL, false },
};

_Static_assert(ARRAY_SIZE(headers) <= 256, "crash_detector.ignored and anywhere_index hold 256");

/* The firmware's failures (before any kernel banner). */
static const char *const firmware_errors[] = {
	"Bad Linux ARM64 Image magic",
	"Wrong Image Format",
	"Bad Data CRC",
	"Bad Header Checksum",
	"Did not find a cmdline Flattened Device Tree",
	"Could not find a valid device tree",
	"\"Synchronous Abort\" handler",
	"### ERROR ### Please RESET the board",
	"Retry count exceeded",
	"TFTP error",
	"unrecognized/unsupported machine ID",
	"ramdisk - allocation error",
	"Kernel image is too large",
	"Unable to read file",
	"Failed to load",
	NULL,
};

/* Lines that may open a report when a header follows within a few lines. */
static bool is_preamble(const char *s, size_t n)
{
	return find(s, n, "[ cut here ]") || find(s, n, "8<--- cut here") ||
	       find(s, n, " corruption") || is_rule_line(s, n);
}

/* ---------------------------------------------------- 3. the guilty frame */

/* syzkaller's linuxStackParams.skipPatterns (substrings; "^x": a prefix),
 * plus the arm and arm64 exception and unwinder frames. */
static const char *const skip_common[] = {
	"__sanitizer", "^__asan", "^kasan_", "^__kasan", "^__msan", "^kmsan_", "^__kmsan",
	"check_memory_region",
	"read_word_at_a_time", "print_address_description", "panic", "invalid_op",
	"report_bug", "fixup_bug", "do_error", "_trap", "dump_stack", "warn_slowpath",
	"warn_alloc", "__warn", "debug_object", "timer_is_static_object",
	"work_is_static_object", "lockdep", "perf_trace", "lock_acquire", "lock_release",
	"lock_class", "reacquire_held_locks", "spin_lock", "spin_trylock", "spin_unlock",
	"raw_read_lock", "raw_read_trylock", "raw_write_lock", "raw_write_trylock",
	"down_read", "down_write", "up_read", "up_write", "mutex_lock", "mutex_trylock",
	"mutex_unlock", "mutex_remove_waiter", "osq_lock", "osq_unlock", "__wake_up",
	"refcount_add", "refcount_sub", "refcount_inc", "refcount_dec", "refcount_set",
	"refcount_read", "refcount_warn", "might_fault", "might_sleep", "might_resched",
	"_indirect_thunk_", "snprintf",
	"scnprintf", "kasprintf", "kvasprintf", "printk", "dev_info", "dev_notice",
	"dev_warn", "dev_err", "dev_alert", "dev_crit", "dev_emerg", "del_timer",
	"flush_work", "__cancel_work_timer", "cancel_work_sync", "try_to_grab_pending",
	"flush_workqueue", "drain_workqueue", "destroy_workqueue", "finish_wait",
	"kthread_stop", "kobject_del", "kobject_put", "kobject_uevent_env",
	"show_stack", "show_regs", "dump_backtrace", "unwind_backtrace", "__die",
	"oops_end", "make_task_dead", "bug_handler", "call_break_hook", "brk_handler",
	"do_debug_exception", "el1_dbg", "el1h_64_sync", "el1_undef", "el1_abort",
	"do_undefinstr", "do_el1_undef", "arm64_notify_die", "handle_bug", "exc_invalid_op",
	"asm_exc_", "do_kernel_fault", "do_mem_abort", "do_translation_fault",
	"do_page_fault", "do_bad_area", "die_kernel_fault", "arm_notify_die",
	"check_panic_on_warn", "nmi_cpu_backtrace", "nmi_trigger_cpumask_backtrace",
	/* reporting frames of their own: the scheduler's and UBSAN's reporters,
	 * the preemption check */
	"__schedule_bug", "handle_overflow", "^__ubsan_", "^ubsan_", "check_preemption_disabled",
	/* from syzkaller's later list: reporters, the unwinder, lockdep's and the
	 * locks' internals, atomics and bit operations, work queueing */
	"print_report", "print_usage_bug", "walk_stack", "warn_bogus", "print_tainted",
	"mark_lock", "mark_held_locks", "raw_spin_rq", "read_lock", "read_trylock",
	"read_unlock", "write_lock", "write_trylock", "write_unlock", "^mutex_", "^__mutex_",
	"^rt_mutex_", "owner_on_cpu", "^kref_", "ref_tracker", "^refcount_", "stack_trace_save",
	"arch_stack_walk", "stack_trace_consume_entry", "hex_dump_to_buffer", "print_hex_dump",
	"insert_work", "__queue_delayed_work", "queue_delayed_work_on", "__fortify_report",
	"lock_timer_base", "__timer_delete_sync", "el1h_64_sync_handler",
	NULL,
};

/* Generic helpers, matched at the start of the name once its leading
 * underscores are dropped ("__memcpy", "_copy_to_user", "__list_del_entry_valid")
 * so that callers such as internal_get_user_pages_fast stay eligible. */
static const char *const skip_helpers[] = {
	"memcpy", "memcmp", "memset", "memchr", "memmove", "strcmp", "strncmp", "strcpy",
	"strlcpy", "strncpy", "strscpy", "strlen", "strnstr", "strnlen", "strchr", "string",
	"pointer", "copy_to_user", "copy_from_user", "put_user", "get_user", "list_add",
	"list_del", "list_replace", "list_move", "list_splice", "memdup", "strstr", "strdup",
	"strndup", "copy_to_iter", "copy_from_iter", "copy_page_to_iter", "copy_page_from_iter",
	"atomic_dec", "atomic_inc", "atomic_read", "atomic_set", "atomic_or", "atomic_xor",
	"atomic_and", "atomic_add", "atomic_sub", "atomic_fetch", "atomic_xchg", "atomic_cmpxchg",
	"atomic_try", "atomic64_", "set_bit", "clear_bit", "change_bit", "test_bit",
	"test_and_set_bit", "test_and_clear_bit",
	"skb_pull",     /* __skb_pull() BUG()s on its caller's length */
	NULL,
};

/* Exact names (too short for a substring match). */
static const char *const skip_exact[] = { "die", "down", "do_exit", "__bug", "bug", "warn",
					  "__report_bad_irq", NULL };

/* syzkaller's stripFramePrefixes: a title's function loses the one of these
 * prefixes that leaves it shortest ("__x64_sys_ioctl" -> "sys_ioctl",
 * "__do_sys_finit_module" -> "finit_module"), so that arches and syscall
 * wrappers name the same bug alike. */
static const char *const frame_prefixes[] = {
	"SYSC_", "SyS_", "sys_", "__x64_", "__ia32_", "__arm64_", "____sys_", "___sys_", "__sys_",
	"__se_", "__se_sys_", "__do_sys_", "compat_SYSC_", "compat_SyS_", "ksys_", NULL,
};

/* fn without its longest frame_prefixes prefix (a pointer into fn). */
static const char *strip_frame_prefix(const char *fn)
{
	const char *best = fn;
	for (const char *const *p = frame_prefixes; *p; p++) {
		size_t n = strlen(*p);
		if (!strncmp(fn, *p, n) && fn[n] && fn + n > best)
			best = fn + n;
	}
	return best;
}

/* Is fn in list: exact names, substrings, or "^prefix" entries? */
static bool in_list(const char *fn, const char *const *list, bool exact)
{
	for (; list && *list; list++) {
		const char *p = *list;
		if (*p == '^' ? !strncmp(fn, p + 1, strlen(p + 1))
			      : exact ? !strcmp(fn, p) : strstr(fn, p) != NULL)
			return true;
	}
	return false;
}

/* Is fn a generic frame a title must not name (the common lists plus extra)? */
static bool skipped(const char *fn, const char *const *extra)
{
	const char *bare = fn;
	while (*bare == '_')
		bare++;
	for (const char *const *h = skip_helpers; *h; h++)
		if (!strncmp(bare, *h, strlen(*h)))
			return true;
	return in_list(fn, skip_common, false) || in_list(fn, skip_exact, true) ||
	       in_list(fn, extra, false);
}

/* syzkaller's linuxStallAnchorFrames: dispatchers a stall loops below. */
static const char *const stall_anchors[] = {
	"process_one_work", "do_syscall_", "do_fast_syscall_", "sysenter_dispatch",
	"netif_receive_skb", "do_softirq", "call_timer_fn", "_run_timers",
	"run_timer_softirq", "run_ksoftirqd", "smpboot_thread_fn", "kthread",
	"start_secondary", "cpu_startup_entry", "ret_from_fork", "vfs_write", "vfs_read",
	"vfs_iter_read", "vfs_iter_write", "do_iter_read", "do_iter_write", "vfs_ioctl",
	"blkdev_ioctl", "do_dentry_open", "vfs_open", "__do_fault", "handle_mm_fault",
	"do_page_fault", "__fput", "task_work_run", "exit_to_usermode",
	"el0_svc_common", "invoke_syscall", "el0t_64_sync", "ret_fast_syscall",
	"secondary_start_kernel", "do_idle", "el0_svc_handler", "hrtimer_run", "ksys_ioctl",
	"compat_ioctl", "new_sync_read", "new_sync_write", "call_read_iter", "call_write_iter",
	"do_iter_readv_writev", "call_mmap", "mmap_region", "do_mmap", "^sock_sendmsg",
	"^sock_recvmsg", "^sock_release", "^__sock_release", "kernel_setsockopt",
	"sock_common_setsockopt", "kernel_listen", "sk_common_release", "^sock_mmap",
	"kernel_accept", "^sock_do_ioctl", "^sock_ioctl", "^compat_sock_ioctl",
	"^nfnetlink_rcv_msg", "^rtnetlink_rcv_msg", "^netlink_dump", "tasklet_action",
	"tasklet_hi_action", "smp_call_function",
	/* an initcall (a module's init, a built-in one at boot) is dispatched
	 * work too: the stall is the init function's */
	"do_one_initcall", NULL,
};


/* ----------------------------------------------------- 5. (state) report */

struct report {
	const struct header *h;
	enum crash_kind kind;
	bool fatal;
	long line;
	double time;
	struct strbuf excerpt;
	size_t nlines;
	size_t nheaders;            /* leading header lines (inlined repeats) */
	char header_fn[FN_MAX];     /* "in F" of the header line */
	char pc_fn[FN_MAX];         /* the faulting PC's function */
	char lock_fn[FN_MAX];       /* lockdep's lock site */
	bool lock_armed;            /* a "trying to acquire" line was seen */
	char frames[MAX_FRAMES][FN_MAX];
	size_t nframes;
	bool in_trace, trace_done;
	bool foreign;               /* a line that is no part of a report came after the header */
	bool epilogue;              /* what a panic prints after its stack ("Kernel Offset:",
				 * "Rebooting in N seconds..", after which no end marker comes) */
	bool cut;                   /* the console ended in the middle of it */
	char *header_text;          /* the first header line, stripped */
	char access[8];             /* KASAN: "Read" or "Write" */
};

struct crash_detector {
	struct report *open;
	struct crash_event *events;
	size_t nevents, alloc;
	bool finished, panic_ended, panic_seen;
	bool fatal_kept;                /* a fatal event is in events */
	size_t dropped;                 /* events past CRASH_MAX_EVENTS */
	crash_dropped_fn *on_dropped;
	void *dropped_ctx;
	int banners;
	char *preamble[PREAMBLE_LINES];
	long preamble_line[PREAMBLE_LINES];
	size_t npreamble;
	long last_line;
	enum crash_progress progress;   /* of the last line */
	bool reboot_pending;            /* a reboot's first line was seen, its banner not yet */
	uint64_t ignored[4];            /* headers crash_detector_ignore_header() turned off */
};

/* ----------------------------------------------------------- 4. titles */

static const char *first_unskipped(const struct report *r, bool use_pc, bool use_header,
				   const char *const *extra)
{
	if (use_header && r->header_fn[0] && !skipped(r->header_fn, extra))
		return r->header_fn;
	if (use_pc && r->pc_fn[0] && !skipped(r->pc_fn, extra))
		return strip_frame_prefix(r->pc_fn);
	for (size_t i = 0; i < r->nframes; i++)
		if (!skipped(r->frames[i], extra))
			return strip_frame_prefix(r->frames[i]);
	return "";
}

/* linuxStallFrameExtractor: the frame just above the first anchor. */
static const char *stall_function(const struct report *r)
{
	const char *prev = r->pc_fn[0] ? r->pc_fn : NULL;
	for (size_t i = 0; i < r->nframes; i++) {
		if (in_list(r->frames[i], stall_anchors, false)) {
			if (!prev)
				break;
			return strip_frame_prefix(prev);
		}
		if (!skipped(r->frames[i], skip_rcu) || !prev)
			prev = r->frames[i];
	}
	return first_unskipped(r, true, false, skip_rcu);
}

/* linuxHangTaskFrameExtractor: the first frame that is not waiting. */
static const char *hung_function(const struct report *r)
{
	static const char *const waits[] = { "sched", "_lock", "_slowlock", "down", "completion",
					     "kthread", "wait", "synchronize", "context_switch",
					     "__switch_to", "cancel_delayed_work", "ret_from_fork",
					     "rwsem", "rcu_barrier", NULL };
	static const char *const rcu_waits[] = { "synchronize_rcu", "synchronize_srcu",
						 "synchronize_net", "synchronize_sched", NULL };
	for (size_t i = 0; i < r->nframes; i++) {
		if (strstr(r->frames[i], "rtnl_lock"))
			return r->frames[i];
		if (in_list(r->frames[i], rcu_waits, false))
			return "synchronize_rcu";
	}
	for (size_t i = 0; i < r->nframes; i++)
		if (!in_list(r->frames[i], waits, false) && !skipped(r->frames[i], NULL))
			return strip_frame_prefix(r->frames[i]);
	return "";
}

/* The text between from and the first of stop (or the end), trimmed. */
static char *slice(const char *from, const char *stop)
{
	const char *end = stop ? strstr(from, stop) : NULL;
	size_t n = end ? (size_t)(end - from) : strlen(from);
	while (n && isspace((unsigned char)from[n - 1]))
		n--;
	char *s = xmalloc(n + 1);
	memcpy(s, from, n);
	s[n] = '\0';
	return s;
}

/* A copy of s without "+0x1a/0x40" offsets and " [module]" tags after
 * function names. */
static char *without_offsets(const char *s)
{
	char *out = xstrdup(s), *w = out;
	for (const char *p = s; *p;) {
		if (!strncmp(p, "+0x", 3)) {
			p += 3;
			while (isxdigit((unsigned char)*p) || *p == '/' || *p == 'x')
				p++;
			continue;
		}
		if (!strncmp(p, " [", 2) && strchr(p, ']')) {
			const char *end = strchr(p, ']');
			bool word = end > p + 2;
			for (const char *q = p + 2; q < end; q++)
				word = word && is_ident_char(*q);
			if (word) {
				p = end + 1;
				continue;
			}
		}
		*w++ = *p++;
	}
	*w = '\0';
	return out;
}

/* "<prefix> in <fn>", or the prefix alone when fn is unknown (malloc'd). */
static char *with_function(const char *prefix, const char *fn)
{
	return *fn ? xasprintf("%s in %s", prefix, fn) : xstrdup(prefix);
}

/* WARNING titles: syzkaller's special files, else "WARNING in F". */
static char *warning_title(const struct report *r, const char **fn)
{
	static const char *const skip_kobject[] = { "kobject_", NULL };
	static const char *const skip_proc[] = { "proc_", NULL };
	static const char *const skip_kmalloc[] = { "kmalloc", "kcalloc", "kzalloc", "krealloc",
						    "vmalloc", "slab", "kmem", NULL };
	static const char *const skip_usb[] = { "usb_submit_urb", "usb_start_wait_urb",
						"usb_bulk_msg", "usb_interrupt_msg", "usb_control_msg",
						NULL };
	const char *t = r->header_text;
	struct { const char *file; const char *title; const char *const *skip; } special[] = {
		{ "lib/debugobjects.c", "WARNING: ODEBUG bug", skip_odebug },
		{ "lib/refcount.c", "WARNING: refcount bug", skip_refcount },
		{ "mm/usercopy.c", "WARNING: bad usercopy", skip_usercopy },
		{ "lib/kobject.c", "WARNING: kobject bug", skip_kobject },
		{ "kernel/locking/lockdep.c", "WARNING: locking bug", NULL },
		{ "fs/proc/generic.c", "WARNING: proc registration bug", skip_proc },
	};
	for (size_t i = 0; i < ARRAY_SIZE(special); i++) {
		if (strstr(t, special[i].file)) {
			*fn = first_unskipped(r, true, false, special[i].skip);
			return with_function(special[i].title, *fn);
		}
	}
	if (strstr(t, " mm/") && strstr(r->header_fn, "malloc")) {
		/* an allocator's WARN on its caller's size or flags */
		*fn = first_unskipped(r, true, false, skip_kmalloc);
		return with_function("WARNING: kmalloc bug", *fn);
	}
	if (!strcmp(r->header_fn, "usb_submit_urb")) {
		/* "WARNING in DRIVER_FN/usb_submit_urb": the driver that submitted */
		*fn = first_unskipped(r, true, false, skip_usb);
		return **fn ? xasprintf("WARNING in %s/usb_submit_urb", *fn)
			    : xstrdup("WARNING in usb_submit_urb");
	}
	/* syzkaller's warningStackFmt: the PC (the header's function, which
	 * arm prints with no PC line), then the stack, past the skipped frames
	 * (a WARN in a list or string helper names its caller) */
	if (r->header_fn[0] && !skipped(r->header_fn, NULL))
		*fn = strip_frame_prefix(r->header_fn);
	else if (!*(*fn = first_unskipped(r, true, false, NULL)))
		*fn = r->header_fn;
	return with_function("WARNING", *fn);
}

/* "BUG: KASAN: use-after-free in f+0x.." + "Read of size 8" -> "KASAN: use-after-free Read in F". */
static char *sanitizer_title(const struct report *r, const char **fn)
{
	const char *t = strstr(r->header_text, "BUG: ");
	t = t ? t + 5 : r->header_text;
	const char *colon = strchr(t, ':');
	char *name = slice(t, ":");
	char *type = slice(colon ? colon + 2 : t, " in ");
	if (!*type) {
		free(type);
		type = slice(colon ? colon + 2 : t, NULL);
	}
	const char *const *extra = strstr(type, "free") && !strstr(type, "use-after") ? skip_free : NULL;
	*fn = first_unskipped(r, true, true, extra);
	if (!**fn)
		*fn = r->header_fn;
	char *title;
	if (!strcmp(type, "double-free or invalid-free"))
		title = *fn[0] ? xasprintf("%s: invalid-free in %s", name, *fn)
			       : xasprintf("%s: invalid-free", name);
	else if (r->access[0] && !strcmp(name, "KASAN"))
		title = *fn[0] ? xasprintf("%s: %s %s in %s", name, type, r->access, *fn)
			       : xasprintf("%s: %s %s", name, type, r->access);
	else
		title = *fn[0] ? xasprintf("%s: %s in %s", name, type, *fn)
			       : xasprintf("%s: %s", name, type);
	free(name);
	free(type);
	return title;
}

/* arm: "Unable to handle kernel WHAT at virtual address X". */
static char *arm_fault_title(const struct report *r, const char **fn)
{
	const char *t = strstr(r->header_text, "Unable to handle kernel ") + 24;
	char *what = slice(t, " at ");
	*fn = first_unskipped(r, true, false, NULL);
	/* syzkaller: "BUG: unable to handle kernel %[1]v in %[2]v", NULL
	 * pointer dereference included (as x86's title, whatever it prints) */
	char *prefix = xasprintf("BUG: unable to handle kernel %s", what);
	char *title = with_function(prefix, *fn);
	free(prefix);
	free(what);
	return title;
}

/* arm: "Internal error: Oops - Undefined instruction: 0 [#1]" -> "Oops - Undefined instruction in F". */
static char *arm_error_title(const struct report *r, const char **fn)
{
	const char *t = strstr(r->header_text, "Internal error: ") + 16;
	char *what = slice(t, ": ");
	*fn = first_unskipped(r, true, false, NULL);
	char *title = with_function(!strncmp(what, "Oops", 4) ? what : "Oops", *fn);
	free(what);
	return title;
}

/* A table title with its "*" replaced by the header's own first word
 * ("*: held lock freed" -> "WARNING: held lock freed" or "BUG: ..."). */
static char *lead_title(const struct report *r, const char *title)
{
	if (title[0] != '*')
		return xstrdup(title);
	const char *t = r->header_text;
	const char *lead = strstr(t, "BUG") == t ? "BUG" : strstr(t, "INFO") == t ? "INFO" : "WARNING";
	return xasprintf("%s%s", lead, title + 1);
}

/* "Kernel panic - not syncing: MSG" -> "kernel panic: MSG", as syzbot
 * titles it: a few messages lose their variable tail or name a function. */
static const char *panic_message(const char *text)
{
	static const char head[] = CONSOLE_PANIC;
	const char *msg = strstr(text, head) + strlen(head);
	if (*msg == ':')
		msg++;
	while (*msg == ' ')
		msg++;
	return msg;
}

static char *sanitize_title(char *title);

/* The title of a panic's message up to stop (NULL: its end), no function. */
static char *panic_text_title(const char *msg, const char *stop)
{
	static const char *const cut_after[] = { "Attempted to kill init!",
						 "Couldn't open N_TTY ldisc", NULL };
	for (const char *const *c = cut_after; *c; c++)
		if (!strncmp(msg, *c, strlen(*c)))
			return xasprintf("kernel panic: %s", *c);
	char *m = slice(msg, stop);
	char *title = sanitize_title(xasprintf("kernel panic: %s", m));
	free(m);
	return title;
}

static char *panic_title(const struct report *r, const char **fn)
{
	const char *msg = panic_message(r->header_text);
	*fn = "";
	if (!strncmp(msg, "stack-protector: ", 17)) {
		static const char *const skip_chk[] = { "stack_chk", NULL };
		const char *in = strstr(msg, "corrupted in: ");
		static __thread char named[FN_MAX];
		if (in && take_ident(in + 14, strlen(in + 14), named))
			*fn = named;
		else
			*fn = first_unskipped(r, false, false, skip_chk);
		return with_function("kernel panic: stack is corrupted", *fn);
	}
	if (!strncmp(msg, "kernel stack overflow", 21)) {
		/* arm64's handle_bad_stack() (the report without its first lines) */
		*fn = first_unskipped(r, true, false, skip_overflow);
		return with_function("kernel stack overflow", *fn);
	}
	if (!strncmp(msg, "corrupted stack end", 19)) {
		*fn = stall_function(r);
		return with_function("kernel panic: corrupted stack end", *fn);
	}
	return panic_text_title(msg, NULL);
}

/* SLUB's reporting and freeing frames, above the caller that freed or
 * allocated wrongly. */
static const char *const skip_slub[] = {
	"object_err", "slab_err", "slab_bug", "print_trailer", "print_tracking", "free_debug_processing",
	"free_consistency_checks", "free_to_partial_list", "on_freelist", "check_object",
	"check_slab", "check_bytes_and_report", "slab_free", "do_slab_free", "kfree", "kmem_cache_free",
	"alloc_debug_processing", "alloc_consistency_checks", "slab_alloc", "kmem_cache_alloc",
	"kmalloc", "validate_slab", "free_partial", "__kmem_cache_", "kmem_cache_destroy",
	"list_slab_objects", NULL,
};

/* "BUG kmalloc-64 (Not tainted): Object already free" -> "BUG: Object already
 * free": the message alone, as syzbot titles it (the cache and the taint
 * vary); the event's function is still the first frame that is not SLUB's. */
static char *slub_title(const struct report *r, const char **fn)
{
	const char *t = r->header_text;
	const char *colon = strstr(t, "): ");
	colon = colon ? colon + 3 : strstr(t, ": ") ? strstr(t, ": ") + 2 : t + 4;
	char *msg = slice(colon, NULL);
	char *title = xasprintf("BUG: %s", msg);
	*fn = first_unskipped(r, false, false, skip_slub);
	free(msg);
	return title;
}

/* The header's words from its needle up to the entry's stop ("BUG: spinlock bad magic"). */
static char *head_title(const struct report *r)
{
	const char *t = strstr(r->header_text, r->h->needle);
	char *words = slice(t ? t : r->header_text, r->h->stop);
	char *title = xasprintf("%s%s", words, r->h->title);
	free(words);
	return title;
}

/*
 * Replaces what varies from one report of a bug to the next, as syzbot
 * does: "0x..." and long hex runs become ADDR, other numbers standing
 * alone NUM ("unknown-block(0,0)" -> "unknown-block(NUM,NUM)"). A
 * number inside a word ("ext4", "x86_64") stays.
 */
static char *sanitize_title(char *title)
{
	struct strbuf out = { 0 };
	const char *p = title;
	while (*p) {
		bool boundary = p == title || !is_ident_char(p[-1]);
		if (boundary && isxdigit((unsigned char)*p)) {
			const char *q = p;
			bool hex = !strncmp(p, "0x", 2);
			if (hex)
				q += 2;
			size_t digits = 0, decimal = 0;
			while (isxdigit((unsigned char)q[digits]))
				digits++;
			while (isdigit((unsigned char)q[decimal]))
				decimal++;
			bool word_end = !is_ident_char(q[digits]) || q[digits] == '.';
			if ((hex && digits) || (digits >= 8 && word_end && decimal < digits)) {
				strbuf_addstr(&out, "ADDR");
				p = q + digits;
				continue;
			}
			if (!hex && decimal && (!is_ident_char(q[decimal]) || q[decimal] == '.') &&
			    !(q[decimal] == '.' && isdigit((unsigned char)q[decimal + 1]))) {
				strbuf_addstr(&out, "NUM");
				p = q + decimal;
				continue;
			}
		}
		strbuf_add(&out, p, 1);
		p++;
	}
	free(title);
	return out.buf ? out.buf : xstrdup("");
}

/* The event's title and function, once its report is complete. */
static char *report_title(const struct report *r, const char **fn)
{
	const struct header *h = r->h;
	char *prefix = NULL, *title;
	*fn = "";
	switch (h->style) {
	case ST_FN:
		*fn = first_unskipped(r, true, false, h->skip);
		return with_function(h->title, *fn);
	case ST_STACK:
		*fn = first_unskipped(r, false, false, h->skip);
		prefix = lead_title(r, h->title);
		break;
	case ST_PANIC:
		return panic_title(r, fn);
	case ST_WARNING:
		return warning_title(r, fn);
	case ST_SANITIZER:
		return sanitizer_title(r, fn);
	case ST_KCSAN:
		*fn = r->header_fn;
		return without_offsets(strstr(r->header_text, "KCSAN: "));
	case ST_UBSAN: {
		const char *t = strstr(r->header_text, "UBSAN: ") + 7;
		char *type = slice(t, " in ");
		*fn = first_unskipped(r, false, false, h->skip);
		/* before 5.x: "UBSAN: Undefined behaviour in FILE:LINE:COL",
		 * syzbot's "UBSAN: undefined-behaviour in F" */
		prefix = xasprintf("UBSAN: %s",
				   strcmp(type, "Undefined behaviour") ? type : "undefined-behaviour");
		free(type);
		break;
	}
	case ST_LOCK_SITE:
		*fn = r->lock_fn[0] ? r->lock_fn : first_unskipped(r, false, false, NULL);
		prefix = lead_title(r, h->title);
		break;
	case ST_STALL:
		*fn = stall_function(r);
		return with_function(h->title, *fn);
	case ST_HUNG:
		*fn = hung_function(r);
		return with_function(strstr(r->header_text, "can't die") ? "INFO: task can't die"
									  : h->title, *fn);
	case ST_LEAK:
		*fn = first_unskipped(r, false, false, h->skip);
		return with_function(h->title, *fn);
	case ST_ARM_FAULT:
		return arm_fault_title(r, fn);
	case ST_ARM_ERROR:
		return arm_error_title(r, fn);
	case ST_FIXED: {
		const char *unmount = strstr(r->header_text, "[unmount of ");
		if (unmount && strchr(unmount, ']'))     /* fs/dcache.c: umount_check() */
			return xasprintf("%s %.*s", h->title, (int)(strchr(unmount, ']') - unmount + 1),
					 unmount);
		return lead_title(r, h->title);
	}
	case ST_HEAD:
		*fn = first_unskipped(r, false, false, h->skip);
		prefix = head_title(r);
		break;
	case ST_SLUB:
		return slub_title(r, fn);
	case ST_LINE:
		return slice(r->header_text, NULL);
	case ST_HEADER_FN:
		*fn = r->header_fn;
		return with_function(h->title, *fn);
	case ST_PRELUDE:
	case ST_OVERFLOW:
		*fn = first_unskipped(r, true, false, h->skip);
		return with_function(h->title, *fn);
	}
	if (!prefix)
		return xstrdup("kernel report");
	title = with_function(prefix, *fn);
	free(prefix);
	return title;
}

/*
 * Is the event's title unreliable, as syzbot's "corrupted"? When its style
 * names a function and none was found (the report was cut, interleaved or
 * printed no stack), or the report is the tail of one whose header was lost
 * (a panic "Fatal exception" alone, SLUB's "INFO: Freed in" alone).
 */
static bool report_corrupted(const struct report *r, const char *fn)
{
	switch (r->h->style) {
	case ST_FIXED:
	case ST_LINE:
	case ST_SLUB:
	case ST_KCSAN:
		return false;
	case ST_HEADER_FN:
		return true;
	case ST_PANIC:
		return strstr(r->header_text, "Fatal exception") ||
		       strstr(r->header_text, "panic_on_warn set") ||
		       strstr(r->header_text, "hung_task: blocked tasks");
	default:
		return !fn[0];
	}
}

/* ------------------------------------------------------- 5. the machine */

static void build_tables(void);

struct crash_detector *crash_detector_new(void)
{
	static pthread_once_t tables = PTHREAD_ONCE_INIT;
	pthread_once(&tables, build_tables);
	return xcalloc(1, sizeof(struct crash_detector));
}

/* Frees what an event owns. */
static void release_event(struct crash_event *ev)
{
	free(ev->title);
	free(ev->alt_title);
	free(ev->function);
	free(ev->excerpt);
}

/* Frees an open report (NULL is fine). */
static void release_report(struct report *r)
{
	if (!r)
		return;
	strbuf_release(&r->excerpt);
	free(r->header_text);
	free(r);
}

/* Forgets the remembered "cut here"-style lines. */
static void clear_preamble(struct crash_detector *d)
{
	for (size_t i = 0; i < d->npreamble; i++)
		free(d->preamble[i]);
	d->npreamble = 0;
}

void crash_detector_free(struct crash_detector *d)
{
	if (!d)
		return;
	release_report(d->open);
	for (size_t i = 0; i < d->nevents; i++)
		release_event(&d->events[i]);
	free(d->events);
	clear_preamble(d);
	free(d);
}

/* Adds ev to the list, or (past CRASH_MAX_EVENTS, unless it is the first
 * fatal one) counts it, shows it to the hook and frees it. Titles are cut
 * at CRASH_MAX_TITLE bytes. */
static void keep_event(struct crash_detector *d, struct crash_event *ev)
{
	if (strlen(ev->title) > CRASH_MAX_TITLE)
		ev->title[CRASH_MAX_TITLE] = '\0';
	if (d->nevents >= CRASH_MAX_EVENTS && !(ev->fatal && !d->fatal_kept)) {
		d->dropped++;
		if (d->on_dropped)
			d->on_dropped(d->dropped_ctx, ev);
		release_event(ev);
		return;
	}
	if (d->nevents == d->alloc) {
		d->alloc = d->alloc ? 2 * d->alloc : 8;
		d->events = xrealloc(d->events, d->alloc * sizeof(*d->events));
	}
	d->fatal_kept = d->fatal_kept || ev->fatal;
	d->events[d->nevents++] = *ev;
}

/* The title with its function replaced by the next frame of the stack
 * that is not skipped (the caller, for grouping reports that differ only
 * by an inlined helper), or the title itself. */
static char *alt_title(const struct report *r, const char *title, const char *fn)
{
	size_t tl = strlen(title), fl = strlen(fn);
	if (fn < r->frames[0] || fn >= r->frames[MAX_FRAMES - 1] + FN_MAX || tl < fl ||
	    strcmp(title + tl - fl, fn))
		return xstrdup(title);
	size_t i = (size_t)(fn - r->frames[0]) / FN_MAX;
	for (i++; i < r->nframes; i++)
		if (strcmp(r->frames[i], fn) && !skipped(r->frames[i], r->h->skip))
			return xasprintf("%.*s%s", (int)(tl - fl), title, r->frames[i]);
	return xstrdup(title);
}

/* Turns the open report into an event. */
static void close_report(struct crash_detector *d)
{
	struct report *r = d->open;
	if (!r)
		return;
	d->open = NULL;
	const char *fn;
	struct crash_event ev = { .kind = r->kind, .fatal = r->fatal, .line = r->line,
				  .time = r->time };
	ev.title = report_title(r, &fn);
	if (r->h->style != ST_FIXED)    /* a fixed title is the kernel's own words */
		ev.title = sanitize_title(ev.title);
	ev.function = xstrdup(fn);
	ev.corrupted = report_corrupted(r, fn) || (r->in_trace && !r->nframes) || r->cut;
	ev.alt_title = alt_title(r, ev.title, fn);
	text_clean_title(ev.title);            /* the raw bytes stay in console.log */
	text_clean_title(ev.alt_title);
	text_clean_title(ev.function);
	ev.excerpt = r->excerpt.buf ? xstrdup(r->excerpt.buf) : xstrdup("");
	release_report(r);
	keep_event(d, &ev);
}

/* A one-line event (reboot, firmware error, a panic's end marker alone);
 * its excerpt is the line, up to MAX_EXCERPT bytes. */
static void add_line_event(struct crash_detector *d, enum crash_kind kind, bool fatal,
			   char *title, const char *text, size_t n, long lineno, double t)
{
	struct crash_event ev = { .kind = kind, .fatal = fatal, .title = title,
				  .function = xstrdup(""), .line = lineno, .time = t };
	text_clean_title(ev.title);
	ev.alt_title = xstrdup(ev.title);
	if (n > MAX_EXCERPT)
		n = MAX_EXCERPT;
	ev.excerpt = xmalloc(n + 1);
	memcpy(ev.excerpt, text, n);
	ev.excerpt[n] = '\0';
	keep_event(d, &ev);
}

/* Appends a line to the excerpt while it stays under MAX_EXCERPT bytes. */
static void add_excerpt_line(struct report *r, const char *s, size_t n)
{
	if (r->excerpt.len + n + 1 > MAX_EXCERPT)
		return;
	strbuf_add(&r->excerpt, s, n);
	strbuf_add(&r->excerpt, "\n", 1);
}

/*
 * Headers whose needle may stand anywhere, indexed by the needle's first
 * byte, so that a line is scanned once rather than once per needle.
 */
static unsigned char anywhere_count[256];
static unsigned char anywhere_index[256][32];

static void index_headers(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(headers); i++) {
		unsigned char c = (unsigned char)headers[i].needle[0];
		if (headers[i].at_start)
			continue;
		if (anywhere_count[c] == ARRAY_SIZE(anywhere_index[c]))
			abort();        /* the table outgrew the index: enlarge it */
		anywhere_index[c][anywhere_count[c]++] = (unsigned char)i;
	}
}

/* The progress messages (crash_line_progress()), anywhere in a line. */
static const char *const banner_needles[] = { "Booting Linux on physical CPU", NULL };

/* What a stripped line says of the boot's progress (the banner first). */
static enum crash_progress progress_of(const char *s, size_t n)
{
	if (starts(s, n, CONSOLE_BANNER))
		return CRASH_PROGRESS_BANNER;
	for (const char *const *p = banner_needles; *p; p++)
		if (find(s, n, *p))
			return CRASH_PROGRESS_BANNER;
	for (const char *const *p = console_stop_needles; *p; p++)
		if (find(s, n, *p))
			return CRASH_PROGRESS_POWEROFF;
	return CRASH_PROGRESS_NONE;
}

/*
 * The quick rejection. Outside a report, a line matters only if it holds
 * one of the strings the steps of crash_feed_line() look for anywhere in
 * it (header, end marker, preamble, firmware and progress needles: one
 * needle set, one scan) or starts like a line they look for at its start.
 * Most console lines hold none, and are done after that one scan.
 */
static struct needle_set anywhere_needles;
static bool starts_header[256];         /* first bytes of the at-start needles */

/* Appends a needle to the list index_needles() builds. */
static void push_needle(const char **needles, size_t *n, const char *needle)
{
	if (*n == NEEDLE_SET_MAX)
		die("crash: more needles than NEEDLE_SET_MAX: enlarge it");
	needles[(*n)++] = needle;
}

static void index_needles(void)
{
	static const char *const more[] = {
		"---[ end Kernel panic", "---[ end trace",              /* end_marker() */
		"[ cut here ]", "8<--- cut here", " corruption",        /* is_preamble() */
	};
	const char *needles[NEEDLE_SET_MAX];
	size_t n = 0;
	for (size_t i = 0; i < ARRAY_SIZE(headers); i++) {
		if (headers[i].at_start)
			starts_header[(unsigned char)headers[i].needle[0]] = true;
		else
			push_needle(needles, &n, headers[i].needle);
	}
	for (size_t i = 0; i < ARRAY_SIZE(more); i++)
		push_needle(needles, &n, more[i]);
	for (const char *const *f = firmware_errors; *f; f++)
		push_needle(needles, &n, *f);
	for (const char *const *p = banner_needles; *p; p++)
		push_needle(needles, &n, *p);
	for (const char *const *p = console_stop_needles; *p; p++)
		push_needle(needles, &n, *p);
	needle_set_init(&anywhere_needles, needles, n);
}

/* The tables above, built once whatever the number of threads. */
static void build_tables(void)
{
	index_headers();
	index_needles();
}

/* Does the line start as banner(), is_preamble() or a rule line look for? */
static bool starts_special(const char *s, size_t n)
{
	switch (n ? *s : '\0') {
	case '=':
	case '-':
		return is_rule_line(s, n);
	case 'L':
		return starts(s, n, CONSOLE_BANNER);
	case 'B':
		return starts(s, n, "Booting the kernel");
	case 'O':
		return starts(s, n, "ODEBUG: ");
	case 'r':
		return starts(s, n, "refcount_t: ");
	}
	return false;
}

/* Might this stripped line, seen outside a report, be read by its start? */
static bool starts_like_report(const char *s, size_t n)
{
	const char *t = s;
	size_t tn = n;
	while (tn && (*t == ' ' || *t == '\t')) {
		t++;
		tn--;
	}
	if (tn && starts_header[(unsigned char)*t])
		for (size_t i = 0; i < ARRAY_SIZE(headers); i++)
			if (headers[i].at_start && starts(t, tn, headers[i].needle))
				return true;
	return starts_special(s, n);
}

/* Is header i of the table turned off for this detector? */
static bool ignored(const struct crash_detector *d, size_t i)
{
	return d->ignored[i / 64] >> (i % 64) & 1;
}

/* The first header of the table this stripped line matches, or NULL. */
static const struct header *match_header(const struct crash_detector *d, const char *s, size_t n)
{
	const char *t = s;
	size_t tn = n, best = ARRAY_SIZE(headers);
	while (tn && (*t == ' ' || *t == '\t')) {
		t++;
		tn--;
	}
	for (size_t i = 0; i < ARRAY_SIZE(headers); i++)
		if (headers[i].at_start && starts(t, tn, headers[i].needle) && !ignored(d, i)) {
			best = i;
			break;
		}
	for (size_t pos = 0; pos < n; pos++) {
		unsigned char c = (unsigned char)s[pos];
		for (size_t k = 0; k < anywhere_count[c]; k++) {
			size_t i = anywhere_index[c][k];
			if (i < best && starts(s + pos, n - pos, headers[i].needle) &&
			    !ignored(d, i))
				best = i;
		}
	}
	return best < ARRAY_SIZE(headers) ? &headers[best] : NULL;
}

/* Is this WARNING line a report header ("WARNING: CPU: 0 PID: 1 at f.c:1 g+0x..")? */
static bool is_warning_report(const char *s, size_t n)
{
	return find(s, n, " at ") && (find(s, n, "+0x") || find(s, n, "()"));
}

/* The function the header line itself names ("in f+0x..", "at file:line f+0x.."). */
static void header_function(struct report *r, const char *s, size_t n)
{
	const char *p = NULL;
	if (r->h->style == ST_WARNING) {
		/* "at file:line func+0x1/0x2" (through 6.x), or since 2025
		 * "WARNING: file:line at func+0x1/0x2 file:line, CPU#1: comm". */
		const char *at = find(s, n, " at ");
		char fn[FN_MAX];
		if (at) {
			size_t rest = n - (size_t)(at + 4 - s);
			size_t k = take_ident(at + 4, rest, fn);
			if (k && starts(at + 4 + k, rest - k, "+0x"))
				p = at + 4;
			else if ((p = memchr(at + 4, ' ', rest)))
				p++;
		}
	} else {
		const char *in = find(s, n, " in ");
		p = in ? in + 4 : NULL;
	}
	if (!p)
		return;
	size_t k = take_ident(p, n - (size_t)(p - s), r->header_fn);
	if (!k)
		r->header_fn[0] = '\0';
}

static void open_report(struct crash_detector *d, const struct header *h, const char *s,
			size_t n, long lineno, double t)
{
	struct report *r = xcalloc(1, sizeof(*r));
	r->h = h;
	r->kind = h->kind;
	r->fatal = h->fatal;
	r->line = lineno;
	r->time = t;
	r->header_text = xmalloc(n + 1);
	memcpy(r->header_text, s, n);
	r->header_text[n] = '\0';
	for (size_t i = 0; i < d->npreamble; i++) {
		if (lineno - d->preamble_line[i] <= 3) {
			strbuf_addstr(&r->excerpt, d->preamble[i]);
			strbuf_add(&r->excerpt, "\n", 1);
		}
	}
	clear_preamble(d);
	header_function(r, s, n);
	if (h->style == ST_LOCK_SITE && parse_lock_site(s, n, r->lock_fn))
		r->lock_armed = false;
	else if (find(s, n, "still has locks held"))
		r->lock_armed = true;   /* the held locks' sites follow: the first names it */
	/* KMSAN and KFENCE print their first stack right under the header. */
	r->in_trace = h->kind == CRASH_KMSAN || h->kind == CRASH_KFENCE;
	d->open = r;
}

/* Lines that belong to a report after its call trace (registers, markers). */
static bool is_report_body(const char *s, size_t n)
{
	static const char *const body[] = {
		"<", " ", "\t", "RIP:", "RSP:", "RAX:", "RDX:", "RBP:", "R10:", "R13:", "FS:",
		"CS:", "CR2:", "DR0:", "DR3:", "DR6:", "PKRU:", "Code:", "---[", "Modules linked",
		"Kernel Offset", "PHYS_OFFSET", "CPU features", "Memory Limit", "SMP: stopping",
		"Rebooting in", "Allocated by task", "Freed by task", "Last potentially",
		"Second to last", "The buggy address", "Memory state", "page:", "flags:", "raw:",
		"page dumped", "page_owner", "head:", "Call Trace", "Call trace", "Exception stack",
		"irq event stamp", "hardirqs ", "softirqs ", "Showing all locks", "NMI backtrace",
		"Sending NMI", "Workqueue:", "Hardware name", "CPU:", "task:", "ORIG_", "pstate",
		"pc :", "lr :", "sp :", "x", "Backtrace", "Stack:", "[<", "ffff", "0x",
		"other info", "stack backtrace", "kasan", "KASAN", "EIP:", "EAX:", "ESI:", "DS:",
		"CR0:", "psr:", "r10", "r7 ", "r3 ", "Flags:", "Control:", "Process ", "Register",
		"INFO: lockdep", "Disabling lock debugging", "Tainted", "Not tainted", "Mem abort",
		"  ESR", "Data abort", "  FSC", "  CM", "user pgtable", "[0000", "Unable to handle",
		"Internal error", "---", "==", "Read of size", "Write of size", "Uninit was",
		"Local variable", "Bytes ", "addr ", "value ", "index ", "shift ", "load of",
		"signed integer", "Allocated at", "freed by", "allocated by", "backtrace:",
		"hex dump", "comm ", "Dumping ftrace", "Kernel panic", "#PF:", "PGD ", "Oops",
		"invalid opcode", "general protection", "Lock", "lock", "Chain exists", "Possible",
		"       ", "*** DEADLOCK", "1 lock held", "locks held", "no locks held",
		"rcu: ", "\t", "(detected by", "rcu_", "task:", "Showing busy", "pool ",
		NULL,
	};
	if (n == 0)
		return true;    /* blank lines separate a report's parts */
	for (const char *const *b = body; *b; b++)
		if (starts(s, n, *b))
			return true;
	return false;
}

/* Feeds one line of an open report: frames, PC, lock site, access. */
static void extend_report(struct crash_detector *d, const char *s, size_t n)
{
	struct report *r = d->open;
	char fn[FN_MAX];
	bool questionable;
	r->nlines++;
	add_excerpt_line(r, s, n);
	if (starts(s, n, "Rebooting in ") || starts(s, n, "Kernel Offset:"))
		r->epilogue = true;
	if (!r->pc_fn[0] && parse_pc_line(s, n, fn)) {
		memcpy(r->pc_fn, fn, FN_MAX);
		/* a stall's own stack starts at its PC (syzkaller's parts: the
		 * RIP frame); frames before it were the grace-period kthread's
		 * dump ("rcu: RCU grace-period kthread stack dump:"), a reporter */
		if (r->h->style == ST_STALL) {
			r->nframes = 0;
			r->in_trace = r->trace_done = false;
		}
	}
	if (r->h->style == ST_LOCK_SITE && !r->lock_fn[0]) {
		if (find(s, n, "is trying to acquire") || find(s, n, "] takes:") ||
		    find(s, n, " takes:") || find(s, n, "just changed the state of lock") ||
		    find(s, n, "is trying to release lock") || find(s, n, "is freeing memory") ||
		    find(s, n, "leaving the kernel with locks still held"))
			r->lock_armed = true;
		else if (r->lock_armed && parse_lock_site(s, n, fn))
			memcpy(r->lock_fn, fn, FN_MAX);
		else if (find(s, n, "last function: ")) {
			/* a workqueue's leaked lock: "last function: f" (%ps, no offset) */
			const char *p = find(s, n, "last function: ") + 15;
			take_ident(p, n - (size_t)(p - s), r->lock_fn);
		}
	}
	if (!r->access[0] && (starts(s, n, "Read of size") || starts(s, n, "Write of size")))
		memcpy(r->access, s[0] == 'R' ? "Read" : "Write", s[0] == 'R' ? 5 : 6);
	if (!r->trace_done && (find(s, n, "Call Trace") || find(s, n, "Call trace") ||
			       starts(s, n, "Backtrace") || find(s, n, "backtrace:"))) {
		r->in_trace = true;
		return;
	}
	if (!r->in_trace && !r->trace_done && find(s, n, " from ") &&
	    parse_frame(s, n, fn, &questionable))
		r->in_trace = true;     /* arm prints "f from g+0x1/0x2" frames without a title */
	if (!r->in_trace && !r->trace_done && r->h->style != ST_LOCK_SITE && n &&
	    (s[0] == ' ' || s[0] == '\t') && parse_frame(s, n, fn, &questionable) && !questionable)
		r->in_trace = true;     /* a stack whose "Call Trace:" line was cut */
	if (r->in_trace && !r->trace_done && parse_frame(s, n, fn, &questionable)) {
		if (!questionable && r->nframes < MAX_FRAMES)
			memcpy(r->frames[r->nframes++], fn, FN_MAX);
		return;
	}
	if (r->in_trace && r->nframes && !is_report_body(s, n)) {
		r->trace_done = true;
		close_report(d);
		return;
	}
	if (!is_report_body(s, n) && !parse_frame(s, n, fn, &questionable))
		r->foreign = true;      /* the kernel went on with other things */
	if (r->in_trace && r->nframes && !starts(s, n, "<") && !starts(s, n, " ") &&
	    !starts(s, n, "RIP:") && !starts(s, n, "[<"))
		r->trace_done = true;
	if (r->nlines >= MAX_REPORT_LINES)
		close_report(d);
}

/* Keeps the last PREAMBLE_LINES preamble lines for the next report. */
static void remember_preamble(struct crash_detector *d, const char *s, size_t n, long lineno)
{
	if (d->npreamble == PREAMBLE_LINES) {
		free(d->preamble[0]);
		memmove(d->preamble, d->preamble + 1, (PREAMBLE_LINES - 1) * sizeof(char *));
		memmove(d->preamble_line, d->preamble_line + 1, (PREAMBLE_LINES - 1) * sizeof(long));
		d->npreamble--;
	}
	char *copy = xmalloc(n + 1);
	memcpy(copy, s, n);
	copy[n] = '\0';
	d->preamble[d->npreamble] = copy;
	d->preamble_line[d->npreamble++] = lineno;
}

/* Is this a line firmware prints when it cannot boot the kernel? */
static bool firmware_error(const char *s, size_t n)
{
	for (const char *const *f = firmware_errors; *f; f++)
		if (find(s, n, *f))
			return true;
	return false;
}

/*
 * A kernel banner: a second one means the machine rebooted by itself
 * ("unexpected kernel reboot", syzbot's title). The lines a boot prints
 * before its banner (x86's decompressor "Booting the kernel.", arm's
 * "Booting Linux on physical CPU") mark the reboot when they follow a
 * banner, even if the new banner never comes; the banner after them is
 * then the same reboot, not a second one.
 */
static bool banner(struct crash_detector *d, const char *s, size_t n, long lineno, double t)
{
	bool early = starts(s, n, "Booting the kernel") || find(s, n, "Booting Linux on physical CPU");
	if (!early && !starts(s, n, CONSOLE_BANNER))
		return false;
	close_report(d);
	if (early) {
		if (d->banners >= 1 && !d->reboot_pending) {
			d->reboot_pending = true;
			add_line_event(d, CRASH_REBOOT, true, xstrdup("unexpected kernel reboot"), s, n,
				       lineno, t);
		}
		return true;
	}
	if (++d->banners >= 2 && !d->reboot_pending)
		add_line_event(d, CRASH_REBOOT, true, xstrdup("unexpected kernel reboot"), s, n,
			       lineno, t);
	d->reboot_pending = false;
	return true;
}

/* "---[ end Kernel panic - not syncing: REASON ]---" with no panic seen
 * before it (its header hidden, lost or cut): the marker alone is a panic,
 * titled from its own words. */
static void panic_from_end_marker(struct crash_detector *d, const char *s, size_t n,
				  long lineno, double t)
{
	const char *from = find(s, n, "Kernel panic");
	size_t len = n - (size_t)(from - s);
	char *text = xmalloc(len + 1);
	memcpy(text, from, len);
	text[len] = '\0';
	char *title = strstr(text, CONSOLE_PANIC)
		? panic_text_title(panic_message(text), " ]---") : slice(text, " ]---");
	free(text);
	d->panic_seen = true;
	add_line_event(d, CRASH_PANIC, true, title, s, n, lineno, t);
}

/* Closes a report at its end marker; true when the line was one. */
static bool end_marker(struct crash_detector *d, const char *s, size_t n, long lineno, double t)
{
	bool panic_end = find(s, n, "---[ end Kernel panic") != NULL;
	if (!panic_end && !find(s, n, "---[ end trace"))
		return false;
	if (d->open) {
		add_excerpt_line(d->open, s, n);
		close_report(d);
	}
	if (panic_end && !d->panic_seen)
		panic_from_end_marker(d, s, n, lineno, t);
	if (panic_end)
		d->panic_ended = true;
	return true;
}

/* A header line: open a report, or join the open one. */
static bool header_line(struct crash_detector *d, const char *s, size_t n, long lineno, double t)
{
	const struct header *h = match_header(d, s, n);
	if (!h || (h->style == ST_WARNING && !is_warning_report(s, n)))
		return false;
	if (h->style == ST_HUNG && !find(s, n, "blocked for more than") &&
	    !find(s, n, "can't die for more than"))
		return false;
	if (h->style == ST_SLUB && !find(s, n, "): ") && !find(s, n, ": "))
		return false;
	if (h->kind == CRASH_OOPS && find(s, n, " ip:") && find(s, n, " sp:"))
		return false;   /* arch/x86/kernel/traps.c show_signal(): a user task's
				 * "comm[pid] general protection fault ip:X sp:Y error:0" */
	if (starts(h->needle, strlen(h->needle), "ODEBUG") && !find(s, n, "object type: ") &&
	    !find(s, n, "type: "))
		return false;   /* "ODEBUG: 12 of 54 active objects replaced" at boot */
	struct report *r = d->open;
	if (r && r->nlines <= 3 && ((r->h->prelude && h->style == ST_WARNING) ||
				    (h->prelude && r->h->style == ST_WARNING))) {
		/* a WARN's message and its "WARNING: CPU: 0 PID: 1 at" line, in
		 * either order (the message came second before 4.x) */
		extend_report(d, s, n);
		return true;
	}
	if (r && r->h == h && r->nlines == r->nheaders) {
		/* Symbolized reports repeat the header once per inlined frame
		 * ("BUG: KASAN: ... in f file.c:1 [inline]"); the last one
		 * names the real function. */
		free(r->header_text);
		r->header_text = xmalloc(n + 1);
		memcpy(r->header_text, s, n);
		r->header_text[n] = '\0';
		header_function(r, s, n);
		r->nheaders++;
		r->nlines++;
		add_excerpt_line(r, s, n);
		return true;
	}
	if (r && r->h->style == ST_OVERFLOW && r->h != h && !r->in_trace &&
	    (h->kind == CRASH_PANIC || h->style == ST_ARM_ERROR)) {
		/* the panic that arm64's handle_bad_stack() ends in, after the
		 * registers, or arm's die("kernel stack overflow"): one report,
		 * titled from the overflow's PC */
		d->panic_seen = d->panic_seen || h->kind == CRASH_PANIC;
		r->kind = h->kind;
		extend_report(d, s, n);
		return true;
	}
	if (r && (h->joins & K(r->kind)) && !r->trace_done) {
		r->fatal = r->fatal || h->fatal;
		if (r->h->style == ST_FIXED && h->style != ST_FIXED && h->kind == r->kind) {
			/* "kmemleak: N new suspected memory leaks" then the leak itself */
			r->h = h;
			free(r->header_text);
			r->header_text = xmalloc(n + 1);
			memcpy(r->header_text, s, n);
			r->header_text[n] = '\0';
		}
		extend_report(d, s, n);
		return true;
	}
	close_report(d);
	if (h->kind == CRASH_PANIC)
		d->panic_seen = true;
	open_report(d, h, s, n, lineno, t);
	d->open->nlines++;
	d->open->nheaders++;
	add_excerpt_line(d->open, s, n);
	if (!d->open->pc_fn[0]) {
		char fn[FN_MAX];
		if (parse_pc_line(s, n, fn))
			memcpy(d->open->pc_fn, fn, FN_MAX);
	}
	return true;
}

void crash_feed_line(struct crash_detector *d, const char *line, size_t len, long lineno,
		     double t)
{
	const char *s = console_strip_prefix(line, &len, NULL);
	size_t n = len;
	if (n > 10 && s[0] == 'k' && starts(s, n, "kmemleak: ") &&
	    (s[10] == ' ' || starts(s + 10, n - 10, "unreferenced "))) {
		s += 10;        /* kmemleak's report printed with its pr_fmt (kmemleak_verbose) */
		n -= 10;
	}
	bool marked = needle_set_search(&anywhere_needles, s, n);       /* the one scan */
	d->last_line = lineno;
	d->progress = marked || starts(s, n, CONSOLE_BANNER) ? progress_of(s, n)
							      : CRASH_PROGRESS_NONE;
	if (starts(s, n, "@@BR ")) {
		close_report(d);
		return;
	}
	if (!d->open && !marked && !starts_like_report(s, n))
		return;         /* most lines */
	if (banner(d, s, n, lineno, t))
		return;
	if (end_marker(d, s, n, lineno, t))
		return;
	if (header_line(d, s, n, lineno, t))
		return;
	if (d->open) {
		if (is_rule_line(s, n) && d->open->nlines > 2) {
			add_excerpt_line(d->open, s, n);
			close_report(d);
			return;
		}
		extend_report(d, s, n);
		return;
	}
	if (is_preamble(s, n)) {
		remember_preamble(d, s, n, lineno);
		return;
	}
	if (d->banners == 0 && firmware_error(s, n)) {
		char *title = xmalloc(n + 11);
		memcpy(title, "firmware: ", 10);
		memcpy(title + 10, s, n);
		title[n + 10] = '\0';
		add_line_event(d, CRASH_FIRMWARE_ERROR, false, title, s, n, lineno, t);
	}
}

/*
 * Did the console end in the middle of the open report r? Not when a line
 * that is no part of a report came after its header (the kernel went on
 * printing other things). Otherwise, a report that has an end of its own
 * (a WARN's or an oops' "---[ end trace" after the stack, a panic's
 * "Kernel Offset:", "Rebooting in" or end marker, a sanitizer's closing rule
 * line) is cut when the console ended before its stack was (the last
 * lines were still frames, or none came), or, for a sanitizer, before its
 * rule; a report with nothing after its stack (stalls, lockups, lockdep,
 * hung tasks, ...) when its stack had not begun.
 */
static bool report_cut(const struct report *r)
{
	bool mid_stack = !r->nframes || (r->in_trace && !r->trace_done);
	if (r->foreign)
		return false;
	switch (r->kind) {
	case CRASH_KASAN:
	case CRASH_KFENCE:
	case CRASH_KMSAN:
	case CRASH_KCSAN:
	case CRASH_UBSAN:
		return true;    /* their closing rule closes them */
	case CRASH_PANIC:
		return mid_stack && !r->epilogue;  /* (no stack: a panic in an oops prints none) */
	case CRASH_WARNING:
		if (r->h->style == ST_WARNING || r->h->style == ST_PRELUDE)
			return mid_stack;
		break;
	case CRASH_OOPS:
	case CRASH_BUG:
		if (r->fatal)
			return mid_stack;
		break;
	default:
		break;
	}
	switch (r->h->style) {
	case ST_FIXED:
	case ST_LINE:
	case ST_SLUB:
	case ST_HEADER_FN:
		return false;   /* reports of one line, or with no stack of their own */
	default:
		return !r->nframes;
	}
}

void crash_finish(struct crash_detector *d)
{
	if (d->finished)
		return;
	d->finished = true;
	struct report *r = d->open;
	if (!r || !report_cut(r)) {
		close_report(d);
		return;
	}
	r->cut = true;
	long line = r->line;
	close_report(d);
	const struct crash_event *cut = d->nevents ? &d->events[d->nevents - 1] : NULL;
	if (cut && cut->line == line) {     /* (not when the event was dropped) */
		char *text = xasprintf("the console ended in the report of line %ld: %s", line,
				       cut->title);
		struct crash_event ev = { .kind = CRASH_TRUNCATED, .fatal = false,
					  .title = xstrdup("console ended mid-report"),
					  .function = xstrdup(cut->function), .line = d->last_line,
					  .time = cut->time, .corrupted = true };
		ev.alt_title = xstrdup(ev.title);
		ev.excerpt = text;
		keep_event(d, &ev);
	}
}

size_t crash_event_count(const struct crash_detector *d)
{
	return d->nevents;
}

const struct crash_event *crash_event_at(const struct crash_detector *d, size_t i)
{
	return i < d->nevents ? &d->events[i] : NULL;
}

size_t crash_events_dropped(const struct crash_detector *d)
{
	return d->dropped;
}

void crash_on_dropped(struct crash_detector *d, crash_dropped_fn *fn, void *ctx)
{
	d->on_dropped = fn;
	d->dropped_ctx = ctx;
}

size_t crash_header_count(void)
{
	return ARRAY_SIZE(headers);
}

const char *crash_header_needle(size_t i)
{
	return i < ARRAY_SIZE(headers) ? headers[i].needle : NULL;
}

void crash_detector_ignore_header(struct crash_detector *d, size_t i)
{
	if (i < ARRAY_SIZE(headers))
		d->ignored[i / 64] |= 1ull << (i % 64);
}

bool crash_panic_ended(const struct crash_detector *d)
{
	return d->panic_ended;
}

bool crash_panic_seen(const struct crash_detector *d)
{
	return d->panic_seen;
}

enum crash_progress crash_line_progress(const struct crash_detector *d)
{
	return d->progress;
}

const char *crash_kind_name(enum crash_kind k)
{
	static const char *const names[] = {
		"panic", "oops", "bug", "warning", "kasan", "kfence", "kmsan", "kcsan", "ubsan",
		"lockdep", "rcu_stall", "soft_lockup", "hard_lockup", "hung_task", "kmemleak",
		"reboot", "firmware_error", "truncated",
	};
	return (unsigned)k < ARRAY_SIZE(names) ? names[k] : "unknown";
}
