/*
 * test_judge_titles.c: the crash detector's titles, one case per rule
 * (syzkaller's pkg/report/linux.go: what syzbot titles each report), and
 * a stall whose stack runs deep. Split from test_judge.c, which tests the
 * judge's verdicts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crash.h"
#include "util.h"

/* Titles by syzbot's convention for the headers of issue 13 (each a
 * header the kernel prints), with the guilty frame past the reporting
 * ones, the alternate title and the corrupted mark. */
static void test_convention_titles(void **state)
{
	(void)state;
	static const char trace[] = "Call Trace:\n <TASK>\n dump_stack_lvl+0x48/0x60\n"
				    " guilty_fn+0x10/0x20\n caller_fn+0x10/0x20\n </TASK>\nend\n";
	static const struct { const char *log; const char *title; const char *alt; bool corrupted; } cases[] = {
		{ "BUG: spinlock bad magic on CPU#0, swapper/0\n", "BUG: spinlock bad magic in guilty_fn",
		  "BUG: spinlock bad magic in caller_fn", false },
		{ "BUG: rwlock recursion on CPU#1, x/12, ffff888012345678\n",
		  "BUG: rwlock recursion in guilty_fn", NULL, false },
		{ "BUG: using __this_cpu_read() in preemptible [00000000] code: syz/123\n"
		  "caller is __this_cpu_preempt_check+0x13/0x20\n",
		  "BUG: using __this_cpu_read() in preemptible code in guilty_fn", NULL, false },
		{ "BUG: using smp_processor_id() in preemptible [00000000] code: a/1\n",
		  "BUG: using smp_processor_id() in preemptible code in guilty_fn", NULL, false },
		{ "INFO: trying to register non-static key.\n",
		  "INFO: trying to register non-static key in guilty_fn", NULL, false },
		{ "WARNING: kernel stack regs at ffffc90000a0fd58 in a:1 has bad 'bp' value 0000000000000001\n",
		  "WARNING: kernel stack regs has bad 'bp' value", NULL, false },
		{ "BUG: MAX_STACK_TRACE_ENTRIES too low!\n", "BUG: MAX_STACK_TRACE_ENTRIES too low!", NULL,
		  false },
		{ "BUG: workqueue leaked lock or atomic: kworker/0:1/0x00000000/12\n"
		  "     last function: wq_fn\n", "BUG: workqueue leaked lock or atomic in wq_fn", NULL,
		  false },
		{ "WARNING: lock held when returning to user space!\n"
		  "syz/12 is leaving the kernel with locks still held!\n"
		  "1 lock held by syz/12:\n #0: ffff8880 (&m->lock){+.+.}-{3:3}, at: locker_fn+0x1/0x2\n",
		  "WARNING: lock held when returning to user space in locker_fn", NULL, false },
		{ "WARNING: syz/12 still has locks held!\n"
		  "1 lock held by syz/12:\n #0: ffff8880 (&m->lock){+.+.}-{3:3}, at: holder_fn+0x1/0x2\n",
		  "WARNING: still has locks held in holder_fn", NULL, false },
		{ "INFO: task syz:12 can't die for more than 143 seconds.\n",
		  "INFO: task can't die in guilty_fn", NULL, false },
		{ "BUG kmalloc-64 (Not tainted): Object already free\n", "BUG: Object already free", NULL,
		  false },
		{ "kmemleak: unreferenced object 0xffff888012345678 (size 32):\n"
		  "kmemleak:   backtrace:\nkmemleak:     [<ffffffff81234567>] kmalloc_trace+0x1/0x2\n"
		  "kmemleak:     [<ffffffff81234567>] leaker_fn+0x1/0x2\n", "memory leak in leaker_fn", NULL,
		  false },
		{ "unregister_netdevice: waiting for lo to become free. Usage count = 2\n",
		  "unregister_netdevice: waiting for DEV to become free", NULL, false },
		{ "BUG: Dentry ffff888012345678{i=2,n=/}  still in use (1) [unmount of ext4 sda]\n",
		  "BUG: Dentry still in use [unmount of ext4 sda]", NULL, false },
		{ "VFS: Close: file count is 0 (f_op=ext4_file_operations)\n",
		  "VFS: Close: file count is zero (use-after-free)",
		  NULL, false },
		{ "VFS: Busy inodes after unmount of sda (ext4)\n",
		  "VFS: Busy inodes after unmount (use-after-free)", NULL,
		  false },
		{ "ODEBUG: free active (active state 0) object type: timer_list hint: cb+0x0/0x10\n"
		  "WARNING: CPU: 0 PID: 1 at lib/debugobjects.c:505 debug_print_object+0x1/0x2\n",
		  "WARNING: ODEBUG bug in guilty_fn", NULL, false },
		{ "BUG: scheduling while atomic: syz/12/0x00000002\n"
		  "Call Trace:\n dump_stack_lvl+0x1/0x2\n __schedule_bug+0x1/0x2\n __schedule+0x1/0x2\n"
		  " schedule+0x1/0x2\n sleeper_fn+0x1/0x2\nend\n", "BUG: scheduling while atomic in sleeper_fn",
		  NULL, false },
		{ "UBSAN: signed-integer-overflow in x.c:1:2\n"
		  "Call Trace:\n dump_stack_lvl+0x1/0x2\n handle_overflow+0x1/0x2\n"
		  " __ubsan_handle_add_overflow+0x1/0x2\n adder_fn+0x1/0x2\nend\n",
		  "UBSAN: signed-integer-overflow in adder_fn", NULL, false },
		{ "Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b\n",
		  "kernel panic: Attempted to kill init!", NULL, false },
		{ "Kernel panic - not syncing: Fatal exception\n", "kernel panic: Fatal exception", NULL,
		  true },
		{ "Kernel panic - not syncing: hung_task: blocked tasks\n",
		  "kernel panic: hung_task: blocked tasks", NULL, true },
		{ "BUG: kernel NULL pointer dereference, address: 0000000000000008\n",
		  "BUG: unable to handle kernel NULL pointer dereference in guilty_fn", NULL, false },
		{ "Division by zero in kernel.\nCPU: 0 PID: 1\n"
		  " __div0 from Ldiv0+0x8/0x10\n Ldiv0 from divider_fn+0x1/0x2\n divider_fn from x+0x1/0x2\nend\n",
		  "divide error in divider_fn", NULL, false },
		{ "general protection fault: 0000 [#1] SMP\n", "general protection fault in guilty_fn", NULL,
		  false },
		{ "WARNING: CPU: 0 PID: 1 at mm/page_alloc.c:5525 __alloc_pages+0x1/0x2\n"
		  "Call Trace:\n __alloc_pages+0x1/0x2\n __kmalloc_large_node+0x1/0x2\n"
		  " __kmalloc+0x1/0x2\n sizer_fn+0x1/0x2\nend\n", "WARNING in sizer_fn", NULL, false },
		{ "WARNING: CPU: 0 PID: 1 at mm/slab_common.c:1 kmalloc_slab+0x1/0x2\n"
		  "Call Trace:\n kmalloc_slab+0x1/0x2\n __kmalloc+0x1/0x2\n sizer_fn+0x1/0x2\nend\n",
		  "WARNING: kmalloc bug in sizer_fn", NULL, false },
		{ "WARNING: CPU: 0 PID: 1 at drivers/usb/core/urb.c:504 usb_submit_urb+0x1/0x2\n"
		  "Call Trace:\n usb_submit_urb+0x1/0x2\n usb_start_wait_urb+0x1/0x2\n"
		  " usb_control_msg+0x1/0x2\n probe_fn+0x1/0x2\nend\n", "WARNING in probe_fn/usb_submit_urb",
		  NULL, false },
		/* KASAN as syzkaller reads it: no access line after the header (old
		 * kernels: "at addr X" in it) is the header's words, corrupted; "on
		 * address" names no function; the hardware tag-based mode's "Read at
		 * addr" and its arm64 fault path; every kind of bad free one title */
		{ "BUG: KASAN: slab-out-of-bounds in oob_fn+0x739/0x770 at addr ffff8800b46111c0\n",
		  "KASAN: slab-out-of-bounds in oob_fn at addr ADDR", NULL, true },
		{ "BUG: KASAN: null-ptr-deref on address           (null)\n"
		  "Read of size 4 by task syz/1\n", "KASAN: null-ptr-deref Read", NULL, false },
		{ "BUG: KASAN: invalid-access in __memset+0x16c/0x188\n"
		  "Read at addr 0bff00002a0f4600 by task syz/1\nCall trace:\n dump_backtrace+0x0/0x1a4\n"
		  " kasan_report+0x1/0x2\n __do_kernel_fault+0x1/0x2\n do_tag_check_fault+0x6c/0x80\n"
		  " do_mem_abort+0x44/0xb4\n el1_abort+0x40/0x6c\n el1h_64_sync+0x1/0x2\n"
		  " __memset+0x1/0x2\n submitter_fn+0x1/0x2\nend\n",
		  "KASAN: invalid-access Read in submitter_fn", NULL, false },
		{ "BUG: KASAN: double-free in kfree+0x1/0x2\n", "KASAN: invalid-free in guilty_fn", NULL,
		  false },
		/* lockdep: a circular dependency names the first of its two sites
		 * that is not generic (a workqueue's flush is not), and without the
		 * announced site is its header; "-safe -> -unsafe" names the stack
		 * under "which became ... at:", before 4.14 the lock being taken */
		{ "WARNING: possible circular locking dependency detected\n",
		  "WARNING: possible circular locking dependency detected", NULL, true },
		{ "WARNING: possible circular locking dependency detected\n"
		  "syz/1 is trying to acquire lock:\n"
		  "ffff888012345678 (&x->lock){+.+.}-{3:3}, at: flush_workqueue+0x1/0x2\n"
		  "but task is already holding lock:\n"
		  "ffff888012345678 (&y->lock){+.+.}-{3:3}, at: holder_fn+0x1/0x2\n",
		  "possible deadlock in holder_fn", NULL, false },
		{ "WARNING: HARDIRQ-safe -> HARDIRQ-unsafe lock order detected\n"
		  "syz/1 [HC0[0]:SC0[0]:HE0:SE1] is trying to acquire:\n"
		  "ffff888012345678 (a){+.+.}, at: taker_fn+0x1/0x2\n"
		  "... which became HARDIRQ-irq-safe at:\n  _raw_spin_lock_irqsave+0x47/0x60\n"
		  "  irqsafe_fn+0x1/0x2\n", "possible deadlock in irqsafe_fn", NULL, false },
		{ "[ INFO: SOFTIRQ-safe -> SOFTIRQ-unsafe lock order detected ]\n"
		  "syz/1 [HC0[0]:SC0[0]:HE0:SE1] is trying to acquire:\n"
		  " (&x->lock){+.+...}, at: [<ffffffff82df4347>] taker_fn+0x897/0xc70\n",
		  "possible deadlock in taker_fn", NULL, false },
		/* arm: "Internal error in F" whatever the error; "Unhandled fault" and
		 * "Alignment trap" before it name the report; an arm frame's caller
		 * counts ("(f) from (g+0x1/0x2)") */
		{ "Internal error: Oops - Undefined instruction: 0000000002000000 [#1] SMP\n"
		  "pc : undef_fn+0x1/0x2\n", "Internal error in undef_fn", NULL, false },
		{ "Unhandled fault: page domain fault (0x01b) at 0x00000e30\n"
		  "Internal error: : 1b [#1] PREEMPT SMP ARM\n"
		  "PC is at __sanitizer_cov_trace_pc+0x4c/0x78\nBacktrace: \n"
		  "[<802b3ffc>] (__sanitizer_cov_trace_pc) from [<802e1324>] (trace_hardirqs_off+0x6c/0x120)\n"
		  "[<802e12b8>] (trace_hardirqs_off) from [<80100a74>] (__dabt_svc+0x54/0xa0)\n"
		  "Exception stack(0x8bdfc048 to 0x8bdfc090)\nend\n", "Unhandled fault in __dabt_svc", NULL,
		  false },
		{ "Alignment trap: not handling instruction e1932f9f at [<8028bd58>]\n"
		  "Unhandled fault: alignment exception (0x001) at 0x000008ad\n"
		  "Internal error: : 1 [#1] SMP ARM\nPC is at dup_fn+0x154/0x39c\n",
		  "Alignment trap in dup_fn", NULL, false },
		/* stalls by syzkaller's stack parts and stall extractor: an RCU stall
		 * reads the stack interrupted by the timer, after its PC, the frame
		 * above the first dispatcher; no dispatcher is "corrupted"; a lockup
		 * reads its PC and call trace (the syscall's wrapper stripped) */
		{ "INFO: rcu_sched self-detected stall on CPU\nCall Trace:\n <IRQ>\n"
		  " rcu_dump_cpu_stacks+0x1/0x2\n smp_apic_timer_interrupt+0x1/0x2\n"
		  " apic_timer_interrupt+0x1/0x2\n </IRQ>\nRIP: 0010:lock_acquire+0x1/0x2\n"
		  "RSP: 0018:ffff888012345678 EFLAGS: 00000246\n kasan_kmalloc+0x1/0x2\n"
		  " looper_fn+0x1/0x2\n call_timer_fn+0x1/0x2\n __run_timers+0x1/0x2\nend\n",
		  "INFO: rcu detected stall in looper_fn", NULL, false },
		{ "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:\nTask dump for CPU 3:\n"
		  "task:bash            state:R  running task\nCall trace:\n __switch_to+0xe4/0x168\nend\n",
		  "INFO: rcu detected stall in corrupted", NULL, true },
		{ "watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [a:1]\n"
		  "RIP: 0010:spinner_fn+0x1/0x2\nCall Trace:\n <TASK>\n caller_fn+0x1/0x2\n"
		  " __do_sys_finit_module+0x1/0x2\n do_syscall_64+0x1/0x2\nend\n",
		  "BUG: soft lockup in finit_module", NULL, false },
		/* a panic early in a report with no stack yet gives it its stack */
		{ "BUG: scheduling while atomic: syz/1/0x00000201\nno locks held by syz/1.\n"
		  "Modules linked in:\nKernel panic - not syncing: scheduling while atomic\n"
		  "CPU: 0 PID: 1 Comm: syz\nCall Trace:\n dump_stack+0x1/0x2\n panic+0x1/0x2\n"
		  " __schedule_bug+0x1/0x2\n __schedule+0x1/0x2\n schedule+0x1/0x2\n exit_fn+0x1/0x2\nend\n",
		  "BUG: scheduling while atomic in exit_fn", NULL, false },
		{ "Kernel panic - not syncing: Fatal exception in interrupt\n",
		  "kernel panic: Fatal exception", NULL, true },
		/* suspicious RCU usage names the check's source line, else it is
		 * the header line */
		{ "WARNING: suspicious RCU usage\n", "WARNING: suspicious RCU usage", NULL, true },
		{ "WARNING: suspicious RCU usage\n6.1.0 #1 Not tainted\n-----------------------------\n"
		  "net/core/dev.c:123 suspicious rcu_dereference_check() usage!\n",
		  "WARNING: suspicious RCU usage in guilty_fn", NULL, false },
		/* WARNING: syzkaller's allocator patterns; the function from the PC
		 * or the stack, never the header (none: "in corrupted"); powerpc's
		 * trap PC "--- interrupt: N at f" */
		{ "WARNING: CPU: 1 PID: 1 at mm/vmalloc.c:3108 __vmalloc_node_range+0x1036/0x1300\n"
		  "Call Trace:\n __vmalloc_node_range+0x1/0x2\n checker_fn+0x1/0x2\nend\n",
		  "WARNING: zero-size vmalloc in checker_fn", NULL, false },
		{ "WARNING: CPU: 1 PID: 1 at mm/slab_common.c:935 free_large_kmalloc+0x34/0x12c\n"
		  "Call Trace:\n free_large_kmalloc+0x1/0x2\n kfree+0x1/0x2\n freer_fn+0x1/0x2\nend\n",
		  "WARNING in freer_fn", NULL, false },
		{ "WARNING: CPU: 2 PID: 1 at ipc/shm.c:162 shm_open+0x74/0x80\nModules linked in:\nend\n",
		  "WARNING in corrupted", NULL, true },
		{ "WARNING: CPU: 1 PID: 1 at arch/powerpc/mm/slb.c:79 assert_slb_presence+0x2c/0x70\n"
		  "Call Trace:\n[c00000003ae5b800] [c00000000135c19c] dump_stack+0x128/0x1cc (unreliable)\n"
		  "[c00000003ae5b9a0] [c00000000135a500] report_bug+0x150/0x270\n"
		  "--- interrupt: 700 at assert_slb_presence+0x2c/0x70\nend\n",
		  "WARNING in assert_slb_presence", NULL, false },
		/* hung tasks: powerpc's frames (bare addresses, "(unreliable)" ones
		 * questionable), and do_exit is no waiting frame */
		{ "INFO: task syz:1 blocked for more than 143 seconds.\nCall Trace:\n"
		  "[c000000001bb3530] [c000000001bb35a0] __rela_dyn_start+0x308828/0x345288 (unreliable)\n"
		  "[c000000001bb3710] [c0000000000286fc] __switch_to+0x43c/0x6d0\n"
		  "[c000000001bb39a0] [c00000000138832c] wait_for_common+0xfc/0x220\n"
		  "[c000000001bb3a10] [c0000000005f8868] exit_aio+0x188/0x2a0\nend\n",
		  "INFO: task hung in exit_aio", NULL, false },
		{ "INFO: task syz:1 blocked for more than 120 seconds.\nCall Trace:\n __schedule+0x1/0x2\n"
		  " schedule+0x1/0x2\n rwsem_down_read_failed+0x1/0x2\n down_read+0x1/0x2\n"
		  " do_exit+0x1/0x2\n do_group_exit+0x1/0x2\nend\n", "INFO: task hung in do_exit", NULL,
		  false },
		/* found where syzkaller finds them: after printk's "** N printk
		 * messages dropped **", after other text on the line, a hung task
		 * "blocked in I/O wait", the executor's "BUG: memory leak"; SLUB's
		 * lone "INFO: Allocated in" is its line, offsets dropped */
		{ "** 4491 printk messages dropped ** [   50.750742] INFO: Allocated in "
		  "fasync_helper+0x29/0x90 age=1 cpu=1 pid=6024\n",
		  "INFO: Allocated in fasync_helper age=NUM cpu=NUM pid=NUM", NULL, true },
		{ "syzkaller login: [   59.806466][ T6792] BUG: using smp_processor_id() in preemptible "
		  "[00000000] code: syz-fuzzer/6792\n[   59.806500][ T6792] Call Trace:\n"
		  "[   59.806501][ T6792]  check_preemption_disabled+0x1/0x2\n"
		  "[   59.806502][ T6792]  user_fn+0x1/0x2\n[   59.806503][ T6792] end\n",
		  "BUG: using smp_processor_id() in preemptible code in user_fn", NULL, false },
		/* a report of a task (printk's caller "[ T12]") is read from that
		 * task's lines: another task's, and lines without a printk time,
		 * are no part of it */
		{ "[   38.721146][   T12] WARNING: CPU: 0 PID: 12 at drivers/x.c:477 x_fn+0x1/0x2\n"
		  "[   38.736674][ T5588] usb-fuzzer-gadget dummy_udc.4: unregistering UDC driver\n"
		  "[   38.765659][   T12] Call Trace:\n"
		  "[   38.765660][ T5638] prism2_usb 6-1:0.251: Firmware not available\n"
		  " should_fail+0x1/0x2\n"
		  "[   38.765676][   T12]  dump_stack+0xca/0x13e\n"
		  "[   38.765677][ T5638] prism2_usb 6-1:0.251: can continue to use card\n"
		  "[   38.765678][   T12]  submitter_fn+0x1/0x2\n[   38.765679][   T12] end\n",
		  "WARNING in submitter_fn", NULL, false },
		{ "INFO: task udevd:5612 blocked in I/O wait for more than 143 seconds.\n",
		  "INFO: task hung in guilty_fn", NULL, false },
		{ "2018/01/09 14:28:48 BUG: memory leak\nunreferenced object 0xffff888012345678 (size 32):\n"
		  "  backtrace:\n    [<ffffffff81234567>] kmalloc_trace+0x1/0x2\n"
		  "    [<ffffffff81234567>] leaker_fn+0x1/0x2\nend\n", "memory leak in leaker_fn", NULL,
		  false },
		/* a report with printk times (no callers) is read from the lines
		 * with one: a program's output without one is no part of it; nor is
		 * net/core/dev.c's periodic unregister_netdevice wait in its stack */
		{ "[  396.963769] BUG: KASAN: stack-out-of-bounds in memcmp+0xe3/0x160\n"
		  "[  396.969914] Read of size 1 at addr ffff8801c19175d0 by task syz/1\n"
		  "[  396.995841] Call Trace:\n[  396.998428]  dump_stack+0x194/0x257\n"
		  "2018/01/02 18:20:06 executing program 3:\nmmap(&(0x7f0000000000/0xa000)=nil, 0xa000)\n"
		  "[  397.002100]  memcmp+0xe3/0x160\n[  397.002200]  matcher_fn+0x1/0x2\n[  397.002300] end\n",
		  "KASAN: stack-out-of-bounds Read in matcher_fn", NULL, false },
		{ "INFO: task syz:6102 blocked for more than 120 seconds.\nCall Trace:\n"
		  " [<ffffffff829f5a8c>] schedule+0x9c/0x1b0\n"
		  "unregister_netdevice: waiting for lo to become free. Usage count = 6\n"
		  " [<ffffffff829fb0c0>] mutex_lock_nested+0x3b0/0x1130\n"
		  " [<ffffffff8223552c>] copy_net_ns+0xcc/0x220\nend\n",
		  "INFO: task hung in copy_net_ns", NULL, false },
		/* the released lock's site is the frame after "at:" (a generic one
		 * leaves the title to the stack) */
		{ "[ BUG: bad unlock balance detected! ]\n"
		  "syz/1081 is trying to release lock (mrt_lock) at:\n"
		  "[<ffffffff834dea24>] releaser_fn+0xe4/0x140\nbut there are no more locks to release!\n"
		  "1 lock held by syz/1081:\n #0:  (&p->lock){+.+.+.}, at: [<ffffffff815e4ded>] holder_fn+0xdd/0x1290\n",
		  "BUG: bad unlock balance in releaser_fn", NULL, false },
		/* the stack protector's panic names the function when it has a
		 * symbol, else (a bare address) the stack does */
		{ "Kernel panic - not syncing: stack-protector: Kernel stack is corrupted in: "
		  "ffffffff8343632e\nCall Trace:\n dump_stack+0x1/0x2\n panic+0x1/0x2\n"
		  " __stack_chk_fail+0x1/0x2\n xmitter_fn+0x1/0x2\nend\n",
		  "kernel panic: stack is corrupted in xmitter_fn", NULL, false },
		/* a fault injection's frame (should_fail) in a stack ends it */
		{ "ODEBUG: free active (active state 0) object type: timer_list hint: t_fn+0x0/0xa0\n"
		  "WARNING: CPU: 1 PID: 1798 at lib/debugobjects.c:287 debug_print_object+0x16a/0x250\n"
		  "Call Trace:\n dump_stack+0x101/0x1b4\n should_fail.cold+0xa/0x10\n"
		  " should_failslab+0xde/0x140\n __alloc_skb+0x17d/0x760\n sender_fn+0x1/0x2\nend\n",
		  "WARNING: ODEBUG bug in corrupted", NULL, true },
		/* lockdep's WARN skips the socket lock; a URB's WARN with no stack is
		 * "corrupted/usb_submit_urb"; a WARN's stack restarts at its first
		 * RIP only, not at an interrupt's after it */
		{ "WARNING: CPU: 0 PID: 1 at kernel/locking/lockdep.c:1 lock_acquire+0x1/0x2\n"
		  "Call Trace:\n lock_sock_nested+0x1/0x2\n sockopt_fn+0x1/0x2\nend\n",
		  "WARNING: locking bug in sockopt_fn", NULL, false },
		{ "WARNING: CPU: 0 PID: 1 at drivers/usb/core/urb.c:504 usb_submit_urb+0x1/0x2\n"
		  "Modules linked in:\nend\n", "WARNING in corrupted/usb_submit_urb", NULL, true },
		{ "WARNING: CPU: 0 PID: 1 at kernel/sched/core.c:6136 __might_sleep+0x13a/0x190\n"
		  "Call Trace:\n <IRQ>\n dump_stack+0x1/0x2\n report_bug+0x1/0x2\n invalid_op+0x1/0x2\n"
		  "RIP: 0010:__might_sleep+0x13a/0x190\nRSP: 0018:ffff888012345678 EFLAGS: 00010286\n"
		  " __mutex_lock+0x1/0x2\n sleeper_fn+0x1/0x2\n </IRQ>\n"
		  "RIP: 0010:_raw_spin_unlock_irqrestore+0x50/0x60\n"
		  "RSP: 0018:ffff888012345678 EFLAGS: 00000246\n other_fn+0x1/0x2\nend\n",
		  "WARNING in sleeper_fn", NULL, false },
		/* syzkaller's executor on the console: the line from its tag */
		{ "SYZFAIL: SIGSEGV\n", "SYZFAIL: SIGSEGV", NULL, false },
		{ "2022/10/02 11:34:15 SYZFATAL: executor 4 failed 11 times: mkdir "
		  "./syzkaller-testdir264563108: read-only file system\n",
		  "SYZFATAL: executor NUM failed NUM times: mkdir ./syzkaller-testdirNUM: read-only file system",
		  NULL, false },
		{ "WARNING: CPU: 0 PID: 1 at x.c:1\n", NULL, NULL, false },     /* no function: no report */
		/* the secure OS's panic: an assertion by its expression, one broken
		 * by another printk by what follows its last colon (corrupted), any
		 * other by its message; spaces at the end are none of the title */
		{ "trusty: panic (caller 0xffffffffe000fbd0): DEBUG ASSERT FAILED at "
		  "(trusty/kernel/x.h:63): list_in_list(&ref->node)\n",
		  "trusty: ASSERT FAILED: list_in_list(&ref->node)", NULL, false },
		{ "trusty: panic (caller [  331.008787] trusty: 0xffffffffe000fbb8): ASSERT FAILED at "
		  "(trusty/kernel/lib/ipc.c:472): \n", "trusty: ASSERT FAILED:", NULL, true },
		{ "trusty: panic (caller 0xffffffffe000fbd0): out of memory\n",
		  "trusty: panic: out of memory", NULL, false },
		/* a stack walk reads past a line that is no frame (another
		 * message in its stack) to its dispatcher */
		{ "Kernel panic - not syncing: corrupted stack end detected inside scheduler\n"
		  "Call Trace:\n dump_stack+0x1/0x2\n panic+0x1/0x2\n __schedule+0x1/0x2\n"
		  " shrink_node+0x1/0x2\nsyz-executor2 (20558) used greatest stack depth: 4808 bytes left\n"
		  " writeback_fn+0x1/0x2\n process_one_work+0x1/0x2\nend\n",
		  "kernel panic: corrupted stack end in writeback_fn", NULL, false },
		/* a "BUG:" or "WARNING:" header no format of syzkaller's reads is its
		 * line, a source line as LINE */
		{ "BUG: assuming atomic context at kernel/sched/core.c:9876\n",
		  "BUG: assuming atomic context at kernel/sched/core.c:LINE", NULL, false },
		{ "BUG: key ffff888012345678 has not been registered!\n",
		  "BUG: key ADDR has not been registered!", NULL, false },
		{ "WARNING: chain_key collision\n", "WARNING: chain_key collision", NULL, false },
		/* syzkaller's oops kinds: a stray breakpoint, old kernels' page
		 * table counters, a BUG without its file (the rest of its line) */
		{ "int3: 0000 [#1] PREEMPT SMP KASAN\nRIP: 0010:trapper_fn+0x1/0x2\n",
		  "int3 in trapper_fn", NULL, false },
		{ "BUG: non-zero nr_ptes on freeing mm: 2\n", "BUG: non-zero nr_ptes on freeing mm", NULL,
		  false },
		{ "BUG: non-zero nr_pmds on freeing mm: -1\n", "BUG: non-zero nr_pmds on freeing mm", NULL,
		  false },
		{ "Kernel BUG at bugger_fn+0x10/0x20 [verbose debug info unavailable]\n",
		  "kernel BUG at bugger_fn [verbose debug info unavailable]", NULL, false },
		/* a Rust panic: its message in the call trace's first frame past the
		 * unwinder's entry and the panic machinery, demangled; the BUG() it
		 * ends in is its report */
		{ "rust_kernel: panicked at drivers/android/binder/node.rs:877:13:\n"
		  "attempt to subtract with overflow\n------------[ cut here ]------------\n"
		  "kernel BUG at rust/helpers/bug.c:7!\nOops: invalid opcode: 0000 [#1] PREEMPT SMP KASAN PTI\n"
		  "RIP: 0010:rust_helper_BUG+0x8/0x10\nCall Trace:\n <TASK>\n"
		  " _RNvCscSpY9Juk0HT_7___rustc17rust_begin_unwind+0x15b/0x160\n"
		  " ? _RNvMs0_NtCshgDM7dBCdno_11rust_binder4nodeNtB5_4Node22update_refcount_locked+0x401/0x810\n"
		  " _RNvNtCs9jEwPDbx20M_4core9panicking9panic_fmt+0x84/0x90\n"
		  " _RNvNtNtCs9jEwPDbx20M_4core9panicking11panic_const24panic_const_sub_overflow+0xb2/0xc0\n"
		  " _RNvMs3_NtCshgDM7dBCdno_11rust_binder7processNtB5_7Process10update_ref+0x17e5/0x1860\n"
		  " binder_ioctl+0x1/0x2\n </TASK>\nend\n",
		  "attempt to subtract with overflow in <rust_binder::process::Process>::update_ref", NULL,
		  false },
		/* any report's Rust frames are demangled (a trait's "<T as Trait>::f") */
		{ "general protection fault: 0000 [#1] SMP\nCall Trace:\n"
		  " _RNvXs_NtCs1_6kernel4fileNtB4_4FileNtNtB6_4sync7Release7release+0x1/0x2\n"
		  "end\n", "general protection fault in <kernel::file::File as kernel::sync::Release>::release",
		  NULL, false },
		/* a bare "WARNING: message" is a report titled by its line, unless a
		 * report is open or the line is a known benign one */
		{ "WARNING: foo bar 12\n", "WARNING: foo bar NUM", NULL, false },
		/* the executor's and the test program's numbers are none of a title */
		{ "WARNING: syz-executor.3/4242 and syzkaller601944:4492 did it\n",
		  "WARNING: syz-executor and syzkaller did it", NULL, false },
		{ "WARNING: /etc/ssh/moduli does not exist, using fixed modulus\n", NULL, NULL, false },
		{ "WARNING: See https://kernel.org/doc/x.html for mitigation options.\n", NULL, NULL,
		  false },
		{ "general protection fault: 0000 [#1] SMP\nWARNING: foo\n",
		  "general protection fault in guilty_fn", NULL, false },
		/* a bad page is named by page_owner's allocation stack, past the
		 * allocator; without it, "in corrupted" */
		{ "BUG: Bad page state in process syz.3.584  pfn:7071f\n"
		  "page:ffffea0001c1c7c0 refcount:-1 mapcount:0 index:0x0 pfn:0x7071f\n"
		  "page_owner tracks the page as allocated\n"
		  "page last allocated via order 0, migratetype Unmovable, gfp_mask 0x102820, pid 1\n"
		  " post_alloc_hook+0x1f3/0x230\n get_page_from_freelist+0x2e4c/0x2f10\n"
		  " __alloc_pages_noprof+0x256/0x6c0\n page_pool_alloc_pages+0xcb/0x150\n"
		  " xdp_runner_fn+0x939/0x2110\n __sys_bpf+0x48d/0x810\n"
		  "page last free pid 8932 tgid 8930 stack trace:\n free_unref_page+0x1/0x2\n"
		  " freer_fn+0x1/0x2\nCall Trace:\n dump_stack+0x1/0x2\n bad_page+0x1/0x2\n"
		  " checker_fn+0x1/0x2\nend\n", "BUG: Bad page state in xdp_runner_fn", NULL, false },
		{ "BUG: Bad page state in process syz  pfn:7071f\n", "BUG: Bad page state in corrupted",
		  NULL, true },
		/* the unwinder's bad frame: its address hashed ("(ptrval)"), regs and
		 * frame pointer are one title */
		{ "WARNING: kernel stack frame pointer at         (ptrval) in syz:4492 has bad value "
		  "        (ptrval)\n", "WARNING: kernel stack regs has bad value", NULL, false },
		{ "WARNING: kernel stack regs at         (ptrval) in syz:4492 has bad 'bp' value "
		  "        (ptrval)\n", "WARNING: kernel stack regs has bad value", NULL, false },
		{ "WARNING: kernel stack frame pointer at ffff88003e1f7f40 in migration/1:14 has bad "
		  "value ffffffff85632fb0\n", "WARNING: kernel stack frame pointer has bad value", NULL,
		  false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct crash_detector *d = crash_detector_new();
		const char *p = cases[i].log;
		bool own_trace = strstr(p, "\nend\n") != NULL;
		char *all = own_trace ? strdup(p) : NULL;
		if (!own_trace) {
			all = malloc(strlen(p) + sizeof(trace));
			strcpy(all, p);
			strcat(all, trace);
		}
		long n = 0;
		for (char *line = strtok(all, "\n"); line; line = strtok(NULL, "\n"))
			crash_feed_line(d, line, strlen(line), ++n, 0);
		crash_finish(d);
		const struct crash_event *e = crash_event_at(d, 0);
		if (!cases[i].title) {
			assert_null(e);
		} else {
			assert_non_null(e);
			assert_string_equal(e->title, cases[i].title);
			if (cases[i].alt)
				assert_string_equal(e->alt_title, cases[i].alt);
			assert_int_equal(e->corrupted, cases[i].corrupted);
		}
		free(all);
		crash_detector_free(d);
	}
}

/* A stack overflow's stack is read whole, however deep (a recursion of
 * hundreds of frames, past MAX_FRAMES and the usual report length), up to
 * the dispatcher above which its title's function is. */
static void test_deep_stall_stack(void **state)
{
	(void)state;
	struct crash_detector *d = crash_detector_new();
	static const char *const head[] = {
		"BUG: stack guard page was hit at ffffc900190cfff8 (stack is ffffc900190d0000..ffffc900190d7fff)",
		"RIP: 0010:__sanitizer_cov_trace_pc+0x1/0x2", "Call Trace:", " <TASK>",
	};
	static const char *const tail[] = { " __sys_setsockopt+0x1/0x2", " do_syscall_64+0x1/0x2",
					    " </TASK>", "end" };
	long n = 0;
	for (size_t i = 0; i < 4; i++)
		crash_feed_line(d, head[i], strlen(head[i]), ++n, 0);
	for (int i = 0; i < 600; i++)
		crash_feed_line(d, " recurser_fn+0x128/0xe40", 24, ++n, 0);
	for (size_t i = 0; i < 4; i++)
		crash_feed_line(d, tail[i], strlen(tail[i]), ++n, 0);
	crash_finish(d);
	assert_true(crash_event_count(d) >= 1);
	assert_string_equal(crash_event_at(d, 0)->title, "BUG: stack guard page was hit in recurser_fn");
	crash_detector_free(d);
}

/* "Booting the kernel." after a banner: the reboot, found before its banner,
 * one event for both. */

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_convention_titles),
		cmocka_unit_test(test_deep_stall_stack),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
