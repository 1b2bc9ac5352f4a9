/*
 * crash-table.c: the header table of the kernel report detector, rows
 * only (the code that matches them is crash.c; the title rules, one a
 * style, are crash-title.c). One row a line that starts a report:
 *
 *   { needle, at_start, kind, fatal, style, title, joins, skip, stop, prelude }
 *
 *   needle    where it must be in the stripped line (at its start when
 *             at_start), most specific rows first: the first match wins;
 *   kind      the event's kind (crash.h), fatal: the kernel or task died;
 *   style     the title rule (enum style, crash-internal.h) and title its
 *             words ("BUG: soft lockup" + " in F"; "*" takes the header's
 *             own first word: "BUG", "INFO" or "WARNING");
 *   joins     kinds of an open report this line continues (x86 prints "BUG:
 *             unable to handle page fault", then "Oops:");
 *   skip      more frames a title must not name; stop: ST_HEAD's end of the
 *             header's words; prelude: a WARNING header within 3 lines joins.
 *
 * The comment above each row names the kernel source that prints it and,
 * where the row reads it, the format string (linux 6.1 unless said).
 * tests/tools/judge-catalogue.c checks every header those files print
 * against this table, and that every row is needed by one of them; each
 * kind also has a fixture from a real log in tests/fixtures/crash/. Adding
 * a kind: one row here, one fixture there.
 */
#include "crash-internal.h"
#include "console.h"

static const char *const skip_ubsan[] = { "ubsan", "handle_overflow", NULL };
static const char *const skip_might[] = { "might_resched", "might_sleep", "preempt", NULL };
static const char *const skip_sched[] = { "schedule", "preempt", NULL };
static const char *const skip_preempt[] = { "preempt", "this_cpu", "smp_processor_id", NULL };
const char *const crash_skip_rcu[] = { "rcu", "kmem", "slab", "kmalloc", "vmalloc", "kcalloc",
				       "kzalloc", NULL };
static const char *const skip_leak[] = { "kmemleak", "kmalloc", "kcalloc", "kzalloc", "vmalloc",
					 "mmap", "kmem", "slab", "alloc", "create_object", "idr_get",
					 "list_lru_init", "kasprintf", "kvasprintf", "pcpu_create",
					 "strdup", "strndup", "memdup", NULL };
static const char *const skip_spin[] = { "spin_", "_raw_", "rwlock", "read_lock", "write_lock",
					 "_lock", "_unlock", NULL };
static const char *const skip_skb[] = { "^skb_", "^__skb_", NULL };
/* syzkaller's: a socket's lock is its caller's */
const char *const crash_skip_lock_sock[] = { "lock_sock", "release_sock", NULL };
/* syzkaller's: the workqueue functions take the locks of work items */
static const char *const skip_circular[] = { "process_one_work", "flush_workqueue",
					     "drain_workqueue", "destroy_workqueue", NULL };
static const char *const skip_key[] = { "stack", "lock", "IRQ", NULL };
static const char *const skip_div0[] = { "div0", "aeabi_", "do_div", NULL };
const char *const crash_skip_odebug[] = { "debug_", "rcu", "hrtimer_", "timer_", "work_",
					  "percpu_", "kmem_", "slab_", "kfree", "vunmap",
					  "vfree", "__free_", "kobject_", NULL };
const char *const crash_skip_refcount[] = { "refcount", "kobject_", NULL };
/* the arm64 overflow handler and the panic it calls (arch/arm64/kernel/traps.c) */
const char *const crash_skip_overflow[] = { "bad_stack", NULL };
/* syzkaller's usercopy skips: usercopy_abort, __check_object_size, ... */
const char *const crash_skip_usercopy[] = { "usercopy", "__check", "check_heap_object", NULL };

/* The headers, most specific first: the first match wins. A "BUG:",
 * "WARNING:" or "INFO:" header that no format of syzkaller's oops reads is
 * titled by its line from that word (ST_LINE), as syzkaller titles it. */
const struct header crash_headers[] = {
	/* kernel/panic.c: panic() ("Kernel panic - not syncing: %s") */
	{ CONSOLE_PANIC, false, CRASH_PANIC, true, ST_PANIC, NULL, 0, NULL, NULL, false },
	/* mm/kasan/report.c
	 * "BUG: KASAN: %s in %pS" */
	{ "BUG: KASAN: ", false, CRASH_KASAN, false, ST_SANITIZER, "KASAN", 0, NULL, NULL, false },
	/* mm/kfence/report.c */
	{ "BUG: KFENCE: ", false, CRASH_KFENCE, false, ST_SANITIZER, "KFENCE", 0, NULL, NULL, false },
	/* mm/kmsan/report.c (6.1+)
	 * "BUG: KMSAN: %s in %pSb" */
	{ "BUG: KMSAN: ", false, CRASH_KMSAN, false, ST_SANITIZER, "KMSAN", 0, NULL, NULL, false },
	/* kernel/kcsan/report.c
	 * "BUG: KCSAN: %s in %ps / %ps" */
	{ "BUG: KCSAN: ", false, CRASH_KCSAN, false, ST_KCSAN, NULL, 0, NULL, NULL, false },
	/* the kernel's lib/ubsan.c: ubsan_prologue()
	 * "UBSAN: %s in %s:%d:%d" */
	{ "UBSAN: ", true, CRASH_UBSAN, false, ST_UBSAN, NULL, 0, skip_ubsan, NULL, false },
	/* kernel/watchdog.c: watchdog_timer_fn() ("BUG: soft lockup - CPU#%d stuck for %us! [%s:%d]") */
	{ "BUG: soft lockup", false, CRASH_SOFT_LOCKUP, false, ST_STALL, "BUG: soft lockup", 0, NULL,
	  NULL, false },
	/* kernel/watchdog_hld.c: watchdog_overflow_callback()
	 * "Watchdog detected hard LOCKUP on cpu %d" */
	{ "Watchdog detected hard LOCKUP", false, CRASH_HARD_LOCKUP, false, ST_STALL,
	  "BUG: hard lockup", 0, NULL, NULL, false },
	/* kernel/rcu/tree_stall.h: print_other_cpu_stall() ("detected stalls on CPUs/tasks"),
	 * kernel/rcu/tasks.h: check_all_holdout_tasks() ("detected stalls on tasks") */
	{ "detected stalls on ", false, CRASH_RCU_STALL, false, ST_STALL,
	  "INFO: rcu detected stall", 0, NULL, NULL, false },
	/* kernel/rcu/tree_stall.h: print_cpu_stall() ("self-detected stall on CPU") */
	{ "detected stall on CPU", false, CRASH_RCU_STALL, false, ST_STALL,
	  "INFO: rcu detected stall", 0, NULL, NULL, false },
	/* kernel/rcu/tree_exp.h: synchronize_rcu_expedited_wait()
	 * "INFO: %s detected expedited stalls on CPUs/tasks: {" */
	{ "detected expedited stalls", false, CRASH_RCU_STALL, false, ST_STALL,
	  "INFO: rcu detected stall", 0, NULL, NULL, false },
	/* kernel/hung_task.c: check_hung_task() ("blocked for more than"; "can't die" in
	 * linux-next's variant) */
	{ "INFO: task ", true, CRASH_HUNG_TASK, false, ST_HUNG, "INFO: task hung", 0, NULL, NULL,
	  false },
	/* kernel/workqueue.c: wq_watchdog_timer_fn()
	 * "BUG: workqueue lockup - pool" */
	{ "BUG: workqueue lockup", false, CRASH_HUNG_TASK, false, ST_FIXED,
	  "BUG: workqueue lockup", 0, NULL, NULL, false },
	/* kernel/workqueue.c: process_one_work() (the function: "last function: f") */
	{ "BUG: workqueue leaked lock or atomic", false, CRASH_LOCKDEP, false, ST_LOCK_SITE,
	  "BUG: workqueue leaked lock or atomic", 0, NULL, NULL, false },
	/* mm/kmemleak.c: print_unreferenced() ("unreferenced object 0x%08lx (size %zu):"), then
	 * its "backtrace:"; syzbot's "memory leak in F", F the allocating caller */
	{ "unreferenced object 0x", true, CRASH_KMEMLEAK, false, ST_LEAK, "memory leak",
	  K(CRASH_KMEMLEAK), skip_leak, NULL, false },
	/* syzkaller's executor, on the leaks kmemleak found ("BUG: memory leak"), then
	 * kmemleak's reports, which join */
	{ "BUG: memory leak", false, CRASH_KMEMLEAK, false, ST_LEAK, "memory leak",
	  K(CRASH_KMEMLEAK), skip_leak, NULL, false },
	/* mm/kmemleak.c: kmemleak_scan() ("%d new suspected memory leaks (see
	 * /sys/kernel/debug/kmemleak)"); the leak that follows takes its place */
	{ "new suspected memory leaks", false, CRASH_KMEMLEAK, false, ST_FIXED,
	  "kmemleak: new suspected memory leaks", K(CRASH_KMEMLEAK), NULL, NULL, false },
	/* kernel/locking/lockdep.c: print_circular_bug_header()
	 * "WARNING: possible circular locking dependency detected" */
	{ "possible circular locking dependency detected", false, CRASH_LOCKDEP, false,
	  ST_LOCK_SITE, "possible deadlock", 0, skip_circular, NULL, false },
	/* kernel/locking/lockdep.c: print_deadlock_bug()
	 * "WARNING: possible recursive locking detected" */
	{ "possible recursive locking detected", false, CRASH_LOCKDEP, false, ST_LOCK_SITE,
	  "possible deadlock", 0, NULL, NULL, false },
	/* kernel/locking/lockdep.c: print_irq_inversion_bug()
	 * "WARNING: possible irq lock inversion dependency detected" */
	{ "possible irq lock inversion dependency detected", false, CRASH_LOCKDEP, false,
	  ST_LOCK_SITE, "possible deadlock", 0, NULL, NULL, false },
	/* kernel/locking/lockdep.c: print_bad_irq_dependency() ("%s-safe -> %s-unsafe") */
	{ "-safe -> ", false, CRASH_LOCKDEP, false, ST_LOCK_STACK, "possible deadlock", 0, NULL,
	  NULL, false },
	/* kernel/locking/lockdep.c: print_usage_bug()
	 * "WARNING: inconsistent lock state" */
	{ "inconsistent lock state", false, CRASH_LOCKDEP, false, ST_LOCK_SITE,
	  "inconsistent lock state", 0, NULL, NULL, false },
	/* kernel/locking/lockdep.c: print_unlock_imbalance_bug()
	 * "WARNING: bad unlock balance detected!" */
	{ "bad unlock balance detected", false, CRASH_LOCKDEP, false, ST_LOCK_SITE,
	  "*: bad unlock balance", 0, NULL, NULL, false },
	/* kernel/locking/lockdep.c: print_freed_lock_bug()
	 * "WARNING: held lock freed!" */
	{ "held lock freed!", false, CRASH_LOCKDEP, false, ST_LOCK_SITE,
	  "*: held lock freed", 0, NULL, NULL, false },
	/* kernel/locking/lockdep.c: print_held_locks_bug() ("%s/%d still has locks held!") */
	{ "still has locks held!", false, CRASH_LOCKDEP, false, ST_LOCK_SITE,
	  "*: still has locks held", 0, NULL, NULL, false },
	/* kernel/locking/lockdep.c: lockdep_sys_exit()
	 * "WARNING: lock held when returning to user space!" */
	{ "lock held when returning to user space", false, CRASH_LOCKDEP, false, ST_LOCK_SITE,
	  "*: lock held when returning to user space", 0, NULL, NULL, false },
	/* kernel/locking/lockdep.c: print_lock_nested_lock_not_held()
	 * "WARNING: Nested lock was not taken" */
	{ "Nested lock was not taken", false, CRASH_LOCKDEP, false, ST_LOCK_SITE,
	  "*: nested lock was not taken", 0, NULL, NULL, false },
	/* kernel/locking/lockdep.c: print_lock_contention_bug()
	 * "WARNING: bad contention detected!" */
	{ "bad contention detected!", false, CRASH_LOCKDEP, false, ST_LINE, NULL, 0, NULL, NULL,
	  false },
	/* kernel/locking/lockdep.c: print_lock_invalid_wait_context() ("[ BUG: Invalid wait
	 * context ]"); syzbot titles it as x86's lockdep WARN, "WARNING: locking bug" */
	{ "BUG: Invalid wait context", false, CRASH_LOCKDEP, false, ST_STACK,
	  "WARNING: locking bug", 0, crash_skip_lock_sock, NULL, false },
	/* kernel/locking/lockdep.c: print_collision()
	 * "WARNING: chain_key collision" */
	{ "chain_key collision", false, CRASH_LOCKDEP, false, ST_LINE, NULL, 0, NULL, NULL, false },
	/* kernel/locking/lockdep.c: lockdep_rcu_suspicious() ("INFO:" before 4.x) */
	{ "suspicious RCU usage", false, CRASH_LOCKDEP, false, ST_STACK,
	  "*: suspicious RCU usage", 0, crash_skip_rcu, NULL, false },
	/* kernel/locking/lockdep.c: assign_lock_key()
	 * "INFO: trying to register non-static key." */
	{ "trying to register non-static key", false, CRASH_LOCKDEP, false, ST_STACK,
	  "INFO: trying to register non-static key", 0, skip_key, NULL, false },
	/* kernel/locking/lockdep.c: print_lockdep_off() ("BUG: MAX_LOCKDEP_KEYS too low!", ...),
	 * look_up_lock_class(), lockdep_init_map_type() */
	{ "BUG: MAX_", true, CRASH_LOCKDEP, false, ST_LINE, NULL, 0, NULL, NULL, false },
	{ "BUG: looking up invalid subclass", true, CRASH_LOCKDEP, false, ST_LINE, NULL, 0, NULL,
	  NULL, false },
	{ "has not been registered!", false, CRASH_LOCKDEP, false, ST_LINE, NULL, 0, NULL, NULL,
	  false },
	/* kernel/locking/spinlock_debug.c: spin_dump() ("BUG: spinlock %s on CPU#%d") */
	{ "BUG: spinlock ", true, CRASH_LOCKDEP, false, ST_HEAD, "", 0, skip_spin, " on CPU",
	  false },
	/* kernel/locking/spinlock_debug.c: rwlock_bug()
	 * "BUG: rwlock %s on CPU#%d, %s/%d, %p" */
	{ "BUG: rwlock ", true, CRASH_LOCKDEP, false, ST_HEAD, "", 0, skip_spin, " on CPU", false },
	/* the kernel's lib/smp_processor_id.c: check_preemption_disabled() ("BUG: using
	 * %s%s() in preemptible [%08x] code: %s/%d"): syzbot's "BUG: using smp_processor_id() in
	 * preemptible code in F", F the stack's first frame past the check */
	{ "BUG: using ", false, CRASH_WARNING, false, ST_HEAD, " in preemptible code", 0,
	  skip_preempt, " in preemptible", false },
	/* kernel/sched/core.c: __might_resched()
	 * "BUG: sleeping function called from invalid context at %s:%d" */
	{ "BUG: sleeping function called from invalid context", false, CRASH_WARNING, false,
	  ST_STACK, "BUG: sleeping function called from invalid context", 0, skip_might, NULL,
	  false },
	/* kernel/sched/core.c: __schedule_bug()
	 * "BUG: scheduling while atomic: %s/%d/0x%08x" */
	{ "BUG: scheduling while atomic", false, CRASH_WARNING, false, ST_STACK,
	  "BUG: scheduling while atomic", 0, skip_sched, NULL, false },
	/* kernel/sched/core.c: schedule_debug() (CONFIG_DEBUG_ATOMIC_SLEEP)
	 * "BUG: scheduling in a non-blocking section: %s/%d/%i" */
	{ "BUG: scheduling in a non-blocking section", false, CRASH_WARNING, false, ST_LINE, NULL, 0,
	  NULL, NULL, false },
	/* kernel/sched/topology.c: build_sched_domain()
	 * "BUG: arch topology borken" */
	{ "BUG: arch topology borken", false, CRASH_BUG, false, ST_FIXED,
	  "BUG: arch topology borken", 0, NULL, NULL, false },
	/* kernel/sched/core.c: __cant_sleep(), __cant_migrate()
	 * "BUG: assuming atomic context at %s:%d",
	 * "BUG: assuming non migratable context at %s:%d" */
	{ "BUG: assuming atomic context", false, CRASH_WARNING, false, ST_LINE, NULL, 0, NULL, NULL,
	  false },
	{ "BUG: assuming non migratable context", false, CRASH_WARNING, false, ST_LINE, NULL, 0,
	  NULL, NULL, false },
	/* mm/page_alloc.c: bad_page()
	 * "BUG: Bad page state in process %s  pfn:%05lx", then dump_page(), page_owner's
	 * "page last allocated via ..." and its stack, which names it */
	{ "BUG: Bad page state", false, CRASH_BUG, false, ST_BAD_PAGE, "BUG: Bad page state", 0,
	  NULL, NULL, false },
	/* mm/memory.c: print_bad_pte()
	 * "BUG: Bad page map in process %s  pte:%08llx pmd:%08llx" */
	{ "BUG: Bad page map", false, CRASH_BUG, false, ST_FIXED, "BUG: Bad page map", 0, NULL,
	  NULL, false },
	/* kernel/fork.c: check_mm()
	 * "BUG: Bad rss-counter state mm:%p type:%s val:%ld",
	 * "BUG: non-zero pgtables_bytes on freeing mm: %ld" */
	{ "BUG: Bad rss-counter state", false, CRASH_BUG, false, ST_FIXED,
	  "BUG: Bad rss-counter state", 0, NULL, NULL, false },
	{ "BUG: non-zero pgtables_bytes on freeing mm", false, CRASH_BUG, false, ST_FIXED,
	  "BUG: non-zero pgtables_bytes on freeing mm", 0, NULL, NULL, false },
	/* kernel/fork.c: check_mm() before 4.15 ("BUG: non-zero nr_ptes on freeing mm: %ld",
	 * "BUG: non-zero nr_pmds on freeing mm: %ld") */
	{ "BUG: non-zero nr_ptes on freeing mm", false, CRASH_BUG, false, ST_FIXED,
	  "BUG: non-zero nr_ptes on freeing mm", 0, NULL, NULL, false },
	{ "BUG: non-zero nr_pmds on freeing mm", false, CRASH_BUG, false, ST_FIXED,
	  "BUG: non-zero nr_pmds on freeing mm", 0, NULL, NULL, false },
	/* fs/dcache.c: umount_check()
	 * "BUG: Dentry %p{i=%lx,n=%pd} " */
	{ "BUG: Dentry ", true, CRASH_BUG, false, ST_FIXED, "BUG: Dentry still in use", 0, NULL,
	  NULL, false },
	/* arch/x86/kernel/traps.c: handle_stack_overflow() ("BUG: %s stack guard page was hit") */
	{ "stack guard page was hit", false, CRASH_OOPS, true, ST_STALL,
	  "BUG: stack guard page was hit", 0, NULL, NULL, false },
	/* arch/x86/mm/fault.c: show_fault_oops() (5.1+)
	 * "BUG: unable to handle page fault for address: %px" */
	{ "BUG: unable to handle page fault", false, CRASH_OOPS, true, ST_FN,
	  "BUG: unable to handle kernel paging request", 0, NULL, NULL, false },
	/* arch/x86/mm/fault.c (before 5.1) */
	{ "BUG: unable to handle kernel NULL pointer dereference", false, CRASH_OOPS, true, ST_FN,
	  "BUG: unable to handle kernel NULL pointer dereference", 0, NULL, NULL, false },
	/* arch/x86/mm/fault.c: show_fault_oops() (5.1+)
	 * "BUG: kernel NULL pointer dereference, address: %px" */
	{ "BUG: kernel NULL pointer dereference", false, CRASH_OOPS, true, ST_FN,
	  "BUG: unable to handle kernel NULL pointer dereference", 0, NULL, NULL, false },
	/* arch/x86/mm/fault.c (before 5.1) */
	{ "BUG: unable to handle kernel paging request", false, CRASH_OOPS, true, ST_FN,
	  "BUG: unable to handle kernel paging request", 0, NULL, NULL, false },
	/* arch/x86/mm/fault.c: the rest of the header cut or lost */
	{ "BUG: unable to handle kernel", false, CRASH_OOPS, true, ST_FN,
	  "BUG: unable to handle kernel", 0, NULL, NULL, false },
	/* arch/arm64/mm/fault.c: die_kernel_fault(); arch/arm/mm/fault.c: __do_kernel_fault()
	 * "Unable to handle kernel %s at virtual address %016lx" */
	{ "Unable to handle kernel ", false, CRASH_OOPS, true, ST_ARM_FAULT, NULL, 0, NULL, NULL,
	  false },
	/* the kernel's lib/list_debug.c: BUG_ON via CHECK_DATA_CORRUPTION
	 * (the kernel's lib/bug.c prints the line) */
	{ "kernel BUG at lib/list_debug.c", false, CRASH_BUG, true, ST_STACK,
	  "BUG: corrupted list", 0, NULL, NULL, false },
	/* mm/usercopy.c: usercopy_abort() */
	{ "kernel BUG at mm/usercopy.c", false, CRASH_BUG, true, ST_STACK,
	  "BUG: bad usercopy", 0, crash_skip_usercopy, NULL, false },
	/* the kernel's lib/bug.c: report_bug() (the skb helpers' BUG_ON()s blame their caller)
	 * "kernel BUG at %s:%u!" */
	{ "kernel BUG at ", false, CRASH_BUG, true, ST_FN, "kernel BUG", 0, skip_skb, NULL, false },
	/* the kernel's lib/bug.c: report_bug() without a file ("Kernel BUG at %pB [verbose
	 * debug info unavailable]"): syzkaller's "kernel BUG %[1]v", the rest of the line */
	{ "Kernel BUG ", false, CRASH_BUG, true, ST_LINE, "kernel BUG ", 0, NULL, NULL, false },
	/* arch/arm64/kernel/traps.c: bug_handler() -> die("Oops - BUG") */
	{ "Internal error: Oops - BUG", false, CRASH_BUG, true, ST_FN, "kernel BUG",
	  K(CRASH_BUG) | K(CRASH_OOPS), NULL, NULL, false },
	/* arch/arm64/kernel/traps.c, arch/arm/kernel/traps.c: __die()
	 * "Internal error: %s: %016lx [#%d]" */
	{ "Internal error: ", false, CRASH_OOPS, true, ST_ARM_ERROR, NULL,
	  K(CRASH_BUG) | K(CRASH_OOPS), NULL, NULL, false },
	/* arch/arm/mm/fault.c: do_DataAbort() ("Unhandled fault: %s (0x%03x) at 0x%08lx"), then
	 * arm_notify_die()'s "Internal error:" (which joins) in the kernel */
	{ "Unhandled fault: ", false, CRASH_OOPS, true, ST_FN, "Unhandled fault", K(CRASH_OOPS),
	  NULL, NULL, false },
	/* arch/arm/mm/alignment.c: do_alignment() in the kernel ("Alignment trap: not
	 * handling instruction %0*lx at [<%08lx>]"), then do_DataAbort()'s report joins */
	{ "Alignment trap: not handling", false, CRASH_OOPS, true, ST_FN, "Alignment trap", 0,
	  NULL, NULL, false },
	/* arch/x86/kernel/traps.c: exc_general_protection()
	 * "general protection fault" */
	{ "general protection fault", false, CRASH_OOPS, true, ST_FN,
	  "general protection fault", 0, NULL, NULL, false },
	/* arch/x86/kernel/traps.c: do_error_trap("stack segment") */
	{ "stack segment: ", false, CRASH_OOPS, true, ST_FN, "stack segment fault", 0, NULL, NULL,
	  false },
	/* arch/x86/kernel/traps.c: exc_double_fault()
	 * "PANIC: double fault, error_code: 0x%lx"; within an open oops it is
	 * that oops's (a fault while handling a fault: syzkaller's
	 * reportStartIgnores), as a panic or an invalid opcode is */
	{ "PANIC: double fault", false, CRASH_OOPS, true, ST_FN, "PANIC: double fault",
	  K(CRASH_BUG) | K(CRASH_OOPS), NULL, NULL, false },
	/* arch/x86/kernel/traps.c: do_error_trap("invalid opcode") */
	{ "invalid opcode: ", false, CRASH_OOPS, true, ST_FN, "invalid opcode",
	  K(CRASH_BUG) | K(CRASH_OOPS), NULL, NULL, false },
	/* arch/x86/kernel/traps.c: do_int3_user()/exc_int3() -> die("int3") on a stray
	 * breakpoint in the kernel ("int3: 0000 [#1]", 6.9+ "Oops: int3: 0000"; its error
	 * code is 0) */
	{ "int3: 0000", false, CRASH_OOPS, true, ST_FN, "int3", K(CRASH_OOPS), NULL, NULL, false },
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
	  "kernel stack overflow", 0, crash_skip_overflow, NULL, false },
	/* arch/arm/kernel/traps.c: __div0() (arm64 does not trap on a division by zero)
	 * "Division by zero in kernel." */
	{ "Division by zero in kernel", false, CRASH_WARNING, false, ST_STACK, "divide error", 0,
	  skip_div0, NULL, false },
	/* arch/x86/kernel/dumpstack.c: __die_header() */
	{ "Oops: ", true, CRASH_OOPS, true, ST_FN, "Oops", K(CRASH_BUG) | K(CRASH_OOPS), NULL, NULL,
	  false },
	/* arch/x86/kernel/unwind_frame.c: unwind_next_frame()
	 * "WARNING: kernel stack regs at %p in %s:%d has bad 'bp' value %p",
	 * "WARNING: kernel stack frame pointer at %p in %s:%d has bad value %p" */
	{ "WARNING: kernel stack regs at ", true, CRASH_WARNING, false, ST_BAD_STACK, NULL, 0,
	  NULL, NULL, false },
	{ "WARNING: kernel stack frame pointer at ", true, CRASH_WARNING, false, ST_BAD_STACK, NULL,
	  0, NULL, NULL, false },
	/* mm/slub.c: slab_bug() ("BUG %s (%s): %pV"), its "INFO: Allocated/Freed in" lines
	 * (print_track()) alone when the header was lost */
	{ "BUG ", true, CRASH_BUG, false, ST_SLUB, NULL, 0, NULL, NULL, false },
	{ "INFO: Allocated in ", true, CRASH_BUG, false, ST_HEADER_FN, "INFO: Allocated",
	  K(CRASH_BUG), NULL, NULL, false },
	{ "INFO: Freed in ", true, CRASH_BUG, false, ST_HEADER_FN, "INFO: Freed", K(CRASH_BUG),
	  NULL, NULL, false },
	/* net/core/dev.c: netdev_wait_allrefs_any()
	 * "unregister_netdevice: waiting for %s to become free. Usage count = %d" */
	{ "unregister_netdevice: waiting for ", true, CRASH_HUNG_TASK, false, ST_FIXED,
	  "unregister_netdevice: waiting for DEV to become free", 0, NULL, NULL, false },
	/* fs/super.c: generic_shutdown_super(); fs/open.c: filp_close() (older kernels). The
	 * titles add syzbot's "(use-after-free)", what these messages mean */
	{ "VFS: Busy inodes after unmount", true, CRASH_BUG, false, ST_FIXED,
	  "VFS: Busy inodes after unmount (use-after-free)", 0, NULL, NULL, false },
	{ "VFS: Close: file count is 0", true, CRASH_BUG, false, ST_FIXED,
	  "VFS: Close: file count is zero (use-after-free)", 0, NULL, NULL, false },
	/* the kernel's lib/debugobjects.c: debug_print_object(), the WARN's message: the WARNING
	 * line that follows joins it */
	{ "ODEBUG: ", true, CRASH_WARNING, false, ST_PRELUDE, "WARNING: ODEBUG bug", 0,
	  crash_skip_odebug, NULL, true },
	/* the kernel's lib/refcount.c: refcount_warn_saturate(), the WARN's message */
	{ "refcount_t: ", true, CRASH_WARNING, false, ST_PRELUDE, "WARNING: refcount bug", 0,
	  crash_skip_refcount, NULL, true },
	/* rust/kernel/lib.rs: the panic handler, pr_emerg!("{}\n", info) ("rust_kernel:
	 * panicked at FILE:LINE:COL:" then the message), then BUG(): the "kernel BUG
	 * at" and its oops join; named by the call trace past the unwinder's entry */
	{ "rust_kernel: panicked", false, CRASH_BUG, true, ST_RUST, NULL, 0, NULL, NULL, false },
	/* Android's trusty driver relays the secure OS's panic to the console,
	 * "trusty: panic (caller 0x%lx): [DEBUG ]ASSERT FAILED at (%s:%d): %s" or
	 * "trusty: panic (caller 0x%lx): %s"; the kernel goes on (syzkaller's
	 * "trusty: panic" oops) */
	{ "trusty: panic", false, CRASH_BUG, false, ST_TRUSTY, NULL, 0, NULL, NULL, false },
	/* syzkaller's executor (executor/common.h fail(), its Go tools' log.Fatal): not the
	 * kernel's, but a fuzzing guest's console carries them; the line from the needle */
	{ "SYZFAIL:", false, CRASH_BUG, false, ST_LINE, NULL, 0, NULL, NULL, false },
	{ "SYZFATAL:", false, CRASH_BUG, false, ST_LINE, NULL, 0, NULL, NULL, false },
	/* kernel/panic.c: __warn() ("WARNING: CPU: %d PID: %d at %s:%d %pS", "WARNING: CPU: %d
	 * PID: %d at %pS"), the kernel's lib/bug.c */
	{ "WARNING: ", true, CRASH_WARNING, false, ST_WARNING, NULL, 0, NULL, NULL, false },
};

const size_t crash_nheaders = ARRAY_SIZE(crash_headers);

/* kernel/panic.c's WARN without its "at" (a bare "WARNING: message"), any
 * other "WARNING:" line the kernel or a program prints */
const struct header crash_warning_line = { "WARNING:", true, CRASH_WARNING, false, ST_LINE, NULL,
					   0, NULL, NULL, false };

/* syzkaller's suppressions of its "WARNING:" oops: lines that are no bug
 * (sshd, the workqueue's cpumask, the mand mount option, glibc's dynamic
 * loader, the CPU mitigations' notes, fbcon, old capabilities and wireless
 * extensions) */
bool crash_warning_line_benign(const char *s, size_t n)
{
	static const char *const starts_with[] = {
		"WARNING: /etc/ssh/moduli does not exist, using fixed modulus",
		"WARNING: workqueue cpumask: online intersect > possible intersect",
		"WARNING: The mand mount option", "WARNING: the mand mount option",
		"WARNING: Unsupported flag value(s) of", "WARNING: Unprivileged eBPF is enabled with eIBRS",
		"WARNING: fbcon: Driver '", "WARNING: kernel not compiled with CPU_SRSO", NULL,
	};
	static const char *const within[] = { " for mitigation options.",
					      " uses deprecated v2 capabilities",
					      " uses wireless extensions", NULL };
	for (const char *const *p = starts_with; *p; p++)
		if (starts(s, n, *p))
			return true;
	for (const char *const *p = within; *p; p++)
		if (find(s, n, *p))
			return true;
	return false;
}

_Static_assert(ARRAY_SIZE(crash_headers) <= 256,
	       "crash_detector.ignored and anywhere_index hold 256");

/*
 * The lines that start a boot, early ones first (a line that is both is
 * early). A second boot on one console, with no report that explains it, is
 * an event of its own: kind CRASH_REBOOT, fatal, titled as syzbot does
 * (tests/fixtures/crash/boot-reboot-cloud-arm64.log). An early line (printed
 * before the banner) marks the reboot when it follows a banner, even if the
 * new banner never comes; the banner after it is then the same reboot.
 */
const char crash_reboot_title[] = "unexpected kernel reboot";

const struct boot_line crash_boot_lines[] = {
	/* arch/x86/boot/compressed/misc.c: extract_kernel() ("done.\nBooting the kernel
	 * (entry_offset: 0x%08lx).\n"; "Booting the kernel.\n" before 6.1) */
	{ "Booting the kernel", true, true, false },
	/* arch/arm64/kernel/setup.c: smp_setup_processor_id() ("Booting Linux on physical CPU
	 * 0x%010lx [0x%08x]\n"), arch/arm/kernel/setup.c ("... CPU 0x%x\n") */
	{ "Booting Linux on physical CPU", false, true, true },
	/* init/main.c: start_kernel() pr_notice("%s", linux_banner) ("Linux version %s ...") */
	{ CONSOLE_BANNER, true, false, true },
};

const size_t crash_nboot_lines = ARRAY_SIZE(crash_boot_lines);

/* The firmware's failures (before any kernel banner). */
const char *const crash_firmware_errors[] = {
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

size_t crash_header_count(void)
{
	return crash_nheaders;
}

const char *crash_header_needle(size_t i)
{
	return i < crash_nheaders ? crash_headers[i].needle : NULL;
}
