/*
 * crash-frames.c: choosing the function a report's title names (crash.h
 * says how): the skip lists after syzkaller's pkg/report/linux.go, the
 * syscall wrappers' prefixes, and the stall and hung-task extractors.
 */
#include "crash-internal.h"

#include <stdio.h>
#include <stdlib.h>

/* syzkaller's linuxStackParams.skipPatterns (substrings; "^x": a prefix),
 * plus the arm and arm64 exception and unwinder frames. */
static const char *const skip_common[] = {
	"__sanitizer", "^__asan", "^kasan_", "^__kasan", "^__msan", "^kmsan_", "^__kmsan",
	"check_memory_region",
	"read_word_at_a_time", "print_address_description", "panic", "invalid_op",
	"report_bug", "fixup_bug", "do_error", "_trap$", "do_trap", "dump_stack", "warn_slowpath",
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
	/* the rest of syzkaller's list: sanitizer internals, the page and slab
	 * allocators and the page cache, lock and timer helpers, the driver
	 * core's and USB's teardown, waits, rb-trees, klists, xarrays, crc,
	 * inode and dentry puts ("x$": a suffix, "^x$": the name itself) */
	"kasan", "hwasan", "kmsan", "kcsan_setup_watchpoint", "check_heap_object", "check_object",
	"alloc_page", "malloc", "zalloc", "calloc", "krealloc", "kmem_cache", "allocate_slab",
	"__alloc_frozen_pages_noprof", "folio_alloc", "folio_unlock", "filemap_alloc_folio",
	"__filemap_get_folio", "find_or_create_page", "do_read_cache_folio", "read_cache_page",
	"pagecache_get_page", "grab_cache_page_write_begin", "slab_", "__might_fault",
	"print_unlock", "imbalance_bug", "bh_enable", "bh_disable", "down_trylock",
	"seqprop_assert", "^rb_", "^__rb_", "va_format", "program_check_exception",
	"program_check_common", "queue_work", "kobject_", "add_uevent_var", "get_device_parent",
	"device_add", "device_del", "device_unregister", "device_destroy", "device_release",
	"devres_release_all", "hwrng_unregister", "i2c_del_adapter", "__unregister_client",
	"device_for_each_child", "rollback_registered", "unregister_netdev", "sysfs_remove",
	"device_remove_file", "tty_unregister_device", "dummy_urb_enqueue", "usb_kill_urb",
	"usb_kill_anchored_urbs", "usb_control_msg", "usb_hcd_submit_urb", "usb_submit_urb",
	"^complete$", "wait_for_completion", "^kfree$", "^kvfree$", "kfree_skb", "readb$",
	"readw$", "readl$", "readq$", "writeb$", "writew$", "writel$", "writeq$", "logic_in",
	"logic_out", "crc_itu_t", "__might_resched", "assertfail", "^iput$", "^iput_final$",
	"^ihold$", "^klist_", "trace_hardirq", "trace_softirq", "lockdep_hardirq",
	"lockdep_softirq", "^lock_page", "^unlock_page", "ida_free", "xas_start", "xas_load",
	"xas_find", "find_lock_entries", "truncate_inode_pages_range", "__phys_addr",
	"cleanup_srcu_struct", "rhashtable_lookup", "extract_user_to_sg", "extract_iter_to_sg",
	"drop_nlink", "^get_taint$", "^put_device$", "sk_stop_timer_sync", "__mod_timer",
	"fast_dput", "dput", "mark_buffer_dirty",
	NULL,
};

/* Generic helpers, matched at the start of the name once its leading
 * underscores are dropped ("__memcpy", "_copy_to_user", "__list_del_entry_valid")
 * or as the last words of a wrapper's name ("simple_copy_to_iter",
 * "bpf_prog_array_copy_to_user": syzkaller's patterns are substrings), so
 * that callers such as internal_get_user_pages_fast stay eligible. */
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
static const char *const skip_exact[] = { "die", "down", "__bug", "bug", "warn",
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
const char *crash_strip_frame_prefix(const char *fn)
{
	const char *best = fn;
	for (const char *const *p = frame_prefixes; *p; p++) {
		size_t n = strlen(*p);
		if (!strncmp(fn, *p, n) && fn[n] && fn + n > best)
			best = fn + n;
	}
	return best;
}

/* Does fn match entry p: a substring, "^x" a prefix, "x$" a suffix, "^x$"
 * the name itself (exact: the name itself always)? */
static bool frame_matches(const char *fn, const char *p, bool exact)
{
	size_t n = strlen(p), fl = strlen(fn);
	bool head = *p == '^', tail = n > 1 && p[n - 1] == '$';
	const char *w = p + head;
	size_t wl = n - head - tail;
	if (exact || (head && tail))
		return exact ? !strcmp(fn, p) : fl == wl && !strncmp(fn, w, wl);
	if (head)
		return !strncmp(fn, w, wl);
	if (tail)
		return fl >= wl && !strncmp(fn + fl - wl, w, wl);
	return strstr(fn, p) != NULL;
}

/* Is fn in list (frame_matches() of any entry)? */
bool crash_in_list(const char *fn, const char *const *list, bool exact)
{
	for (; list && *list; list++)
		if (frame_matches(fn, *list, exact))
			return true;
	return false;
}

/* Is fn a generic frame a title must not name (the common lists plus extra)? */
bool crash_skipped(const char *fn, const char *const *extra)
{
	const char *bare = fn;
	while (*bare == '_')
		bare++;
	size_t bl = strlen(bare);
	for (const char *const *h = skip_helpers; *h; h++) {
		size_t hl = strlen(*h);
		if (!strncmp(bare, *h, hl) ||
		    (bl > hl && bare[bl - hl - 1] == '_' && !strcmp(bare + bl - hl, *h)))
			return true;
	}
	if (!strncmp(fn, "crc", 3) && fn[3] >= '0' && fn[3] <= '9')
		return true;    /* syzkaller's "^crc\\d+": crc32_le, crc16, crc7_be */
	return crash_in_list(fn, skip_common, false) || crash_in_list(fn, skip_exact, true) ||
	       crash_in_list(fn, extra, false);
}

/* syzkaller's linuxStallAnchorFrames: dispatchers a stall loops below
 * (frame_matches() patterns). */
static const char *const stall_anchors[] = {
	"process_one_work", "do_syscall_", "do_fast_syscall_", "sysenter_dispatch",
	"tracesys_phase2", "el0_svc_handler", "invoke_syscall", "ret_fast_syscall",
	"netif_receive_skb", "do_softirq", "call_timer_fn", "_run_timers", "run_timer_softirq",
	"hrtimer_run", "run_ksoftirqd", "smpboot_thread_fn", "^kthread$", "start_secondary",
	"cpu_startup_entry", "ret_from_fork", "vfs_write", "vfs_read", "vfs_iter_read",
	"vfs_iter_write", "do_iter_read", "do_iter_write", "call_read_iter", "call_write_iter",
	"new_sync_read", "new_sync_write", "vfs_ioctl", "ksys_ioctl", "compat_ioctl",
	"compat_sys_ioctl", "blkdev_driver_ioctl", "blkdev_ioctl", "do_iter_readv_writev",
	"^call_mmap", "mmap_region", "do_mmap", "do_dentry_open", "vfs_open", "^sock_sendmsg",
	"^sock_recvmsg", "^sock_release", "^__sock_release", "^setsockopt$", "kernel_setsockopt",
	"sock_common_setsockopt", "^listen$", "kernel_listen", "sk_common_release", "^sock_mmap",
	"^accept$", "kernel_accept", "^sock_do_ioctl", "^sock_ioctl", "^compat_sock_ioctl",
	"^nfnetlink_rcv_msg", "^rtnetlink_rcv_msg", "^netlink_dump", "^socketpair",
	"^sys_socketpair", "^connect", "^sys_connect", "^ioctl", "^sys_ioctl", "__do_fault",
	"do_page_fault", "^page_fault$", "__fput", "task_work_run", "exit_to_usermode",
	"smp_call_function", "tasklet_action", "tasklet_hi_action", NULL,
};

const char *crash_first_unskipped(const struct report *r, bool use_pc, bool use_header,
				   const char *const *extra)
{
	if (use_header && r->header_fn[0] && !crash_skipped(r->header_fn, extra))
		return r->header_fn;
	if (use_pc && r->pc_fn[0] && !crash_skipped(r->pc_fn, extra))
		return crash_strip_frame_prefix(r->pc_fn);
	for (size_t i = 0; i < r->nframes; i++)
		if (!crash_skipped(r->frames[i], extra))
			return crash_strip_frame_prefix(r->frames[i]);
	return "";
}

/* A line that starts a stack (syzkaller's stackStartRes): "Call Trace",
 * "Allocated by task N:", "Freed:", " backtrace:" (not "stack backtrace:"),
 * "Backtrace:", "Uninit was stored to memory at". */
static bool stack_start(const char *s, size_t n)
{
	static const char *const starts_at[] = { "Call Trace", "Call trace", "Allocated:",
						 "Freed:", "Backtrace:", "Uninit was stored to memory at",
						 NULL };
	for (const char *const *p = starts_at; *p; p++)
		if (find(s, n, *p))
			return true;
	const char *b = find(s, n, " backtrace");
	if (b && b > s && b[-1] != 'k' && (find(b, n - (size_t)(b - s), " backtrace:") == b ||
					   find(b, n - (size_t)(b - s), " backtrace (crc ") == b))
		return true;
	const char *t = find(s, n, "Allocated by task ");
	if (!t)
		t = find(s, n, "Freed by task ");
	return t && memchr(t, ':', n - (size_t)(t - s));
}

/* Does the line match a part's pattern (the stack matches none)? */
static bool part_matches(enum stack_part p, const char *s, size_t n)
{
	switch (p) {
	case PART_PC:
		/* syzkaller's linuxRipFrame: "RIP: 0010:f+0x", "pc : f", "PC is at f",
		 * "IP: 0x..." (a user address names nothing, but is the line) */
		return find(s, n, "IP: ") || find(s, n, "pc : ") || find(s, n, "PC is at ");
	case PART_CALL_TRACE:
		return find(s, n, "Call Trace:") || find(s, n, "Call trace:") ||
		       find(s, n, "Backtrace:");
	case PART_TIMER_IRQ:
		return find(s, n, "apic_timer_interrupt") != NULL;
	case PART_IRQ_ENTRY:
		return find(s, n, "apic_timer_interrupt") || find(s, n, "Exception stack") ||
		       find(s, n, "el1h_64_irq");
	case PART_PAGE_ALLOC:
		return find(s, n, "page last allocated") != NULL;
	case PART_STACK:
	case PART_END:
		break;
	}
	return false;
}

/* linuxStallFrameExtractor, a frame at a time: the frame just above the
 * first anchor (the anchor itself for an IPI wait, smp_call_function). */
static void walk_frame(struct stack_walk *w, const char *raw)
{
	const char *fn = crash_strip_frame_prefix(raw);
	if (w->first) {
		snprintf(w->found, sizeof(w->found), "%s", fn);
		w->done = true;
		return;
	}
	if (crash_in_list(fn, stall_anchors, false)) {
		snprintf(w->found, sizeof(w->found), "%s",
			 strstr(fn, "smp_call_function") ? "smp_call_function" : w->any ? w->prev : fn);
		w->done = true;
		return;
	}
	snprintf(w->prev, sizeof(w->prev), "%s", fn);
	w->any = true;
}

/*
 * syzkaller's extractStackFrameImpl, a report line at a time (from the line
 * after its header): each part but the stack consumes lines up to the first
 * it matches (a PC line gives its function), the stack takes every frame up
 * to the next stack's start or a fault injection's frame (should_fail: the
 * report is mixed with it). Frames of w->extra and the common lists are
 * left out; the others go to linuxStallFrameExtractor (walk_frame()).
 */
void crash_walk_line(struct stack_walk *w, const char *s, size_t n)
{
	char fn[FN_MAX], caller[FN_MAX];
	bool questionable;
	if (!w->parts || w->done || w->parts[w->idx] == PART_END)
		return;
	enum stack_part p = w->parts[w->idx];
	if (p != PART_STACK) {
		if (!part_matches(p, s, n))
			return;
		if (p == PART_PC && crash_parse_pc_line(s, n, fn) && !crash_skipped(fn, w->extra))
			walk_frame(w, fn);
		w->idx++;
		return;
	}
	if (stack_start(s, n)) {
		w->idx++;
		return;
	}
	if (!crash_parse_frame(s, n, fn, &questionable) || questionable)
		return;
	if (!strcmp(fn, "should_fail") || !strcmp(fn, "should_failslab")) {
		w->idx++;
		return;
	}
	if (!crash_skipped(fn, w->extra))
		walk_frame(w, fn);
	if (!w->done && crash_parse_frame_caller(s, n, caller) && !crash_skipped(caller, w->extra))
		walk_frame(w, caller);
}

/* syzkaller's stall formats: an RCU stall's stack is the interrupted one,
 * after the timer interrupt and its PC (else the stack after any interrupt
 * entry), the timer interrupt and RCU's own frames skipped; a lockup's and a
 * stack overflow's the PC, then the call trace; a corrupted stack end's the
 * call trace, the scheduler skipped. */
static const enum stack_part parts_rcu[] = { PART_TIMER_IRQ, PART_PC, PART_STACK, PART_END };
static const enum stack_part parts_rcu2[] = { PART_IRQ_ENTRY, PART_STACK, PART_END };
static const enum stack_part parts_lockup[] = { PART_PC, PART_CALL_TRACE, PART_STACK, PART_END };
static const enum stack_part parts_trace[] = { PART_CALL_TRACE, PART_STACK, PART_END };
static const char *const skip_rcu_stall[] = { "apic_timer_interrupt", "rcu", NULL };
static const char *const skip_stack_end[] = { "schedule", "retint_kernel", NULL };
/* syzkaller's Rust panic format: the call trace, past the unwinder's entry */
static const char *const skip_rust[] = { "__rustc::rust_begin_unwind", NULL };
/* syzkaller's Bad page format: the allocation's stack, past the allocator */
static const enum stack_part parts_page[] = { PART_PAGE_ALLOC, PART_STACK, PART_END };
static const char *const skip_page[] = { "free_page", "put_page", "get_page", "update_page",
					 "release_page", "free_unref", "^folio", "^_folio",
					 "^__folio", "^___folio", "truncate_inode_pages",
					 "page_frag_free", "alloc", "vmap", "page_owner", NULL };

void crash_walk_start(struct report *r)
{
	struct stack_walk *w = r->walk;
	memset(r->walk, 0, sizeof(r->walk));
	if (r->h->style == ST_STALL && r->kind == CRASH_RCU_STALL) {
		w[0].parts = parts_rcu, w[0].extra = skip_rcu_stall;
		w[1].parts = parts_rcu2, w[1].extra = skip_rcu_stall;
	} else if (r->h->style == ST_STALL) {
		w[0].parts = parts_lockup;
	} else if (r->h->style == ST_PANIC && strstr(r->header_text, "corrupted stack end")) {
		w[0].parts = parts_trace, w[0].extra = skip_stack_end;
	} else if (r->h->style == ST_RUST) {
		w[0].parts = parts_trace, w[0].extra = skip_rust, w[0].first = true;
	} else if (r->h->style == ST_BAD_PAGE) {
		w[0].parts = parts_page, w[0].extra = skip_page, w[0].first = true;
	}
}

/* Is the walk still reading its parts? */
static bool walk_reading(const struct stack_walk *w)
{
	return w->parts && !w->done && w->parts[w->idx] != PART_END;
}

bool crash_walk_pending(const struct report *r)
{
	return !r->walk[0].done && !r->walk[1].done &&
	       (walk_reading(&r->walk[0]) || walk_reading(&r->walk[1]));
}

const char *crash_stall_function(const struct report *r)
{
	if (r->walk[0].done)
		return r->walk[0].found;
	return r->walk[1].done ? r->walk[1].found : "";
}

/* linuxHangTaskFrameExtractor: the first frame that is not waiting. */
const char *crash_hung_function(const struct report *r)
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
		if (crash_in_list(r->frames[i], rcu_waits, false))
			return "synchronize_rcu";
	}
	for (size_t i = 0; i < r->nframes; i++)
		if (!crash_in_list(r->frames[i], waits, false) && !crash_skipped(r->frames[i], NULL))
			return crash_strip_frame_prefix(r->frames[i]);
	return "";
}
