/*
 * profile.c: the profile pass of a metric (profile.h has the contract):
 * the knobs, the symbol tables, the sampling events and their rings, a
 * sample's stack as function numbers (fold.h), and the pass itself.
 */
#include "profile.h"
#include "fold.h"
#include "symtab.h"

#define PROFILE_MAX_CPUS 64
#define PROFILE_RING_PAGES 128         /* data pages per CPU (512 KiB) */
#define PROFILE_PAGE 4096
#define PROFILE_MAX_STACKS 16384       /* distinct stacks kept while folding */
#define PROFILE_ARENA (1u << 20)       /* their frames */
/* Children that exec'd another program, a set of pids (open addressing,
 * 0 empty) at most half full: 4096 execs a pass, where exec takes about
 * 1.4 ms of guest time (a 1 s pass has about 240; 64, the bound before,
 * left the later ones' user frames named from our binary's symbols). */
#define PROFILE_EXEC_SLOTS 8192u
/* A bench_time_fixed operation's pass samples at most about this many
 * times (its period stretched): every sample costs the guest thousands of
 * instructions, and hackbench's operation lasts seconds. */
#define PROFILE_FIXED_SAMPLES 4000u

void bench_profile_init(struct bench *b)
{
	const char *event = bench_knob(b, "profile_event");

	b->profile = bench_knob_long(b, "profile", 0, 0, 1) == 1;
	b->profile_ns = 1000000ull * (uint64_t)bench_knob_long(b, "profile_ms", PROFILE_DEFAULT_MS, 1,
								3600000);
	b->profile_period_ns = 1000ull * (uint64_t)bench_knob_long(b, "profile_period_us",
								   PROFILE_DEFAULT_PERIOD_US, 10, 1000000);
	if (event && rt_strcmp(event, "cycles") && rt_strcmp(event, "cpu-clock"))
		bench_fail(b, "bad knob profile_event=%s (expected cpu-clock or cycles)", event);
	b->profile_cycles = event && !rt_strcmp(event, "cycles");
}

/* ------------------------------------------------------------------ */
/* Symbols: function numbers are kernel symbols 0..nk-1, the binary's   */
/* own nk..nk+nu-1, then "[kernel]" and "[unknown]_[u]".                */

static struct symtab ksyms, usyms;
static bool syms_loaded;
/* The profiler's own functions, where a user stack is cut (its frames
 * from there to the root are the pass's, not the metric's): symbol
 * indexes plus 1, 0 for none (zero-initialized: no .data section). */
static long own_syms[3];

/* Interrupt work: a sample with one of these frames in its kernel stack
 * was taken in a hardware interrupt's handler or in the softirq work run
 * on its way out (RCU callbacks freeing what earlier code left: files,
 * tasks, page tables; timers), not in the metric's own code. Such work
 * lands in the pass in bursts that differ from boot to boot (one boot's
 * open_close pass had 29.5 % of its samples in rcu_do_batch, the others
 * 4.5 and 7.6 %), so it is counted apart (PROFILE's interrupt=) and kept
 * out of the shares. Names from kernel/softirq.c, kernel/irq and each
 * arch's interrupt entry (x86 asm_sysvec_*, arm64 el*_irq, arm __irq_*). */
static const char *const irq_names[] = {
	"irq_exit_rcu", "__irq_exit_rcu", "irq_exit", "__do_softirq", "handle_softirqs",
	"do_softirq_own_stack", "invoke_softirq", "handle_irq_event", "generic_handle_domain_irq",
	"hrtimer_interrupt", "asm_common_interrupt", "common_interrupt", "asm_exc_nmi",
	"el1_interrupt", "el0_interrupt", "el1h_64_irq", "el0t_64_irq", "el0t_32_irq",
	"el1h_64_irq_handler", "el0t_64_irq_handler", "el0t_32_irq_handler", "call_on_irq_stack",
	"__irq_svc", "__irq_usr", "generic_handle_arch_irq",
};
static const char *const irq_prefixes[] = { "asm_sysvec_", "sysvec_" };
#define PROFILE_MAX_IRQ_IDS 128
static uint32_t irq_ids[PROFILE_MAX_IRQ_IDS], nirq_ids;

static bool is_irq_name(const char *name)
{
	for (size_t i = 0; i < sizeof(irq_names) / sizeof(irq_names[0]); i++)
		if (!rt_strcmp(name, irq_names[i]))
			return true;
	for (size_t i = 0; i < sizeof(irq_prefixes) / sizeof(irq_prefixes[0]); i++)
		if (!rt_strncmp(name, irq_prefixes[i], rt_strlen(irq_prefixes[i])))
			return true;
	return false;
}

static bool irq_frame(uint32_t id)
{
	for (uint32_t i = 0; i < nirq_ids; i++)
		if (irq_ids[i] == id)
			return true;
	return false;
}

static bool own_frame(long sym)
{
	return sym >= 0 && (sym + 1 == own_syms[0] || sym + 1 == own_syms[1] || sym + 1 == own_syms[2]);
}

static void load_symbols(const struct bench *b)
{
	const char *path = bench_knob(b, "profile_ksyms");
	struct rt_stat st;
	long r, fd;

	if (syms_loaded)
		return;
	syms_loaded = true;
	r = path ? symtab_map(path, &ksyms) : -ENOENT;
	if (r < 0)
		bench_log(b, "profile: no kernel symbol table (%s: %s): kernel frames are [kernel]",
			  path ? path : "profile_ksyms=", rt_errname((int)-r));
	fd = rt_open("/proc/self/exe", O_RDONLY | O_CLOEXEC, 0);
	r = fd < 0 ? fd : rt_fstat((int)fd, &st);
	if (r >= 0) {
		void *img = rt_mmap(NULL, (size_t)st.size, PROT_READ, MAP_PRIVATE, (int)fd, 0);
		r = RT_IS_ERR(img) ? RT_PTR_ERR(img) : symtab_from_elf(img, (size_t)st.size, &usyms);
	}
	if (fd >= 0)
		rt_close((int)fd);
	if (r < 0)
		bench_log(b, "profile: no symbols of this binary (%s): user frames are [unknown]_[u]",
			  rt_errname((int)-r));
	for (uint32_t i = 0; i < ksyms.n && nirq_ids < PROFILE_MAX_IRQ_IDS; i++)
		if (is_irq_name(symtab_name(&ksyms, i)))
			irq_ids[nirq_ids++] = i;
	static const char *const own[] = { "run_pass", "bench_profile", "bench_profile_fixed" };
	for (uint32_t i = 0; i < usyms.n; i++)
		for (int k = 0; k < 3; k++)
			if (!rt_strcmp(symtab_name(&usyms, i), own[k]))
				own_syms[k] = (long)i + 1;
}

static const char *frame_name(void *ctx, uint32_t id, char *buf, size_t size)
{
	(void)ctx;
	if (id < ksyms.n)
		return symtab_name(&ksyms, id);
	id -= ksyms.n;
	if (id < usyms.n) {
		rt_snprintf(buf, size, "%s_[u]", symtab_name(&usyms, id));
		return buf;
	}
	return id == usyms.n ? "[kernel]" : "[unknown]_[u]";
}

static uint32_t kernel_id(uint64_t addr)
{
	long i = symtab_lookup(&ksyms, addr);
	return i < 0 ? ksyms.n + usyms.n : (uint32_t)i;
}

/* The binary's symbol at addr, or -1. */
static long user_sym(uint64_t addr)
{
	return symtab_lookup(&usyms, addr);
}

/* ------------------------------------------------------------------ */
/* The events and their rings.                                          */

struct ring {
	int fd;
	struct rt_perf_mmap_page *page;
	uint64_t tail;
};

struct pass {
	struct ring ring[PROFILE_MAX_CPUS];
	int nrings;
	const char *event;
	uint64_t lost, interrupt;          /* interrupt: samples of interrupt work */
	pid_t execs[PROFILE_EXEC_SLOTS];    /* children that exec'd another program */
	uint32_t nexecs;
	struct fold fold;
	/* Samples by their raw frames first (symbolizing every sample costs
	 * more guest time than the kernel's own sampling): open addressing,
	 * keys in raw_keys as [nu, nk, execd, user frames..., kernel frames...]. */
	struct raw_stack { uint32_t hash, off, count; } *raw;
	uint64_t *raw_keys;
	uint32_t raw_used, nraw;
};
#define PROFILE_RAW_SLOTS 32768u           /* at most half of them used */
#define PROFILE_RAW_KEYS (1u << 20)        /* u64 frames of the distinct stacks */
#define PROFILE_RAW_SIZE (PROFILE_RAW_SLOTS * sizeof(struct raw_stack) + PROFILE_RAW_KEYS * 8u)

static void ioctl_all(struct pass *p, unsigned long req)
{
	for (int i = 0; i < p->nrings; i++)
		rt_ioctl(p->ring[i].fd, req, 0);
}

static void close_all(struct pass *p)
{
	for (int i = 0; i < p->nrings; i++) {
		rt_munmap(p->ring[i].page, (1 + PROFILE_RING_PAGES) * PROFILE_PAGE);
		rt_close(p->ring[i].fd);
	}
	p->nrings = 0;
}

/* Opens the sampling event on every online CPU and maps its ring; 0 or
 * -errno (nothing left open). */
static long open_events(struct pass *p, bool cycles, uint64_t period_ns)
{
	struct rt_perf_event_attr attr;
	int cpus[PROFILE_MAX_CPUS], ncpus = rt_online_cpus(cpus, PROFILE_MAX_CPUS);

	if (ncpus < 0) {               /* no sysfs: CPU 0, where bench_init pinned us */
		cpus[0] = 0;
		ncpus = 1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = cycles ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
	attr.config = cycles ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_SW_CPU_CLOCK;
	/* cpu-clock counts nanoseconds; cycles one per nanosecond at 1 GHz */
	attr.sample_period = period_ns;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	attr.flags = PERF_ATTR_DISABLED | PERF_ATTR_INHERIT | PERF_ATTR_EXCLUDE_HV | PERF_ATTR_COMM;
	attr.sample_max_stack = FOLD_DEPTH;
	p->event = cycles ? "cycles" : "cpu-clock";
	for (int i = 0; i < ncpus; i++) {
		long fd = rt_perf_event_open(&attr, 0, cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			close_all(p);
			return fd;
		}
		void *m = rt_mmap(NULL, (1 + PROFILE_RING_PAGES) * PROFILE_PAGE, PROT_READ | PROT_WRITE,
				  MAP_SHARED, (int)fd, 0);
		if (RT_IS_ERR(m)) {
			rt_close((int)fd);
			close_all(p);
			return RT_PTR_ERR(m);
		}
		p->ring[p->nrings++] = (struct ring){ (int)fd, m, 0 };
		(void)p->ring[p->nrings - 1].page->data_head;   /* its fault now, not sampled */
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Samples.                                                             */

/* The slot of pid in the set of exec'd children: where it is, or the
 * empty slot where it would go (the set is never full). */
static uint32_t exec_slot(const struct pass *p, pid_t pid)
{
	uint32_t i = (uint32_t)pid * 2654435761u % PROFILE_EXEC_SLOTS;

	while (p->execs[i] && p->execs[i] != pid)
		i = (i + 1) % PROFILE_EXEC_SLOTS;
	return i;
}

static bool execd(const struct pass *p, pid_t pid)
{
	return pid > 0 && p->execs[exec_slot(p, pid)] == pid;
}

static void add_exec(struct pass *p, pid_t pid)
{
	if (pid <= 0 || 2 * (p->nexecs + 1) > PROFILE_EXEC_SLOTS)
		return;
	uint32_t i = exec_slot(p, pid);
	if (!p->execs[i]) {
		p->execs[i] = pid;
		p->nexecs++;
	}
}

/* A stack (key as struct pass has them) symbolized into the fold, or
 * counted as interrupt work. */
static void fold_raw(struct pass *p, const uint64_t *key, uint32_t count)
{
	uint32_t ids[2 * FOLD_DEPTH + 1], n = 0, unknown_u = ksyms.n + usyms.n + 1;
	uint32_t nu = (uint32_t)key[0], nk = (uint32_t)key[1], kids[FOLD_DEPTH];
	const uint64_t *uf = key + 3, *kf = uf + nu;

	for (uint32_t k = 0; k < nk && k < FOLD_DEPTH; k++)
		if (irq_frame(kids[k] = kernel_id(kf[k]))) {
			p->interrupt += count;
			return;
		}

	/* User frames, root first: the walk kept up to its first frame the
	 * binary does not know (past the interrupted pc) or the profiler's
	 * own. */
	if (nu && key[2]) {
		ids[n++] = unknown_u;
	} else if (nu) {
		uint32_t keep = 1;
		long sym;
		while (keep < nu && (sym = user_sym(uf[keep])) >= 0 && !own_frame(sym))
			keep++;
		while (keep-- > 0) {
			long s = user_sym(uf[keep]);
			ids[n++] = s < 0 ? unknown_u : ksyms.n + (uint32_t)s;
		}
	}
	for (uint32_t k = nk < FOLD_DEPTH ? nk : FOLD_DEPTH; k-- > 0;)
		ids[n++] = kids[k];
	fold_add(&p->fold, ids, n, count);
}

/* One sample record: counted by its raw stack (or folded at once when
 * the raw table is full). */
static void add_sample(struct pass *p, const uint8_t *rec, size_t len)
{
	static struct fold_sample smp;
	static uint64_t key[3 + 2 * FOLD_DEPTH];
	uint32_t n, h = 2166136261u, i;

	if (!fold_parse_sample(rec, len, &smp))
		return;
	key[0] = smp.nu;
	key[1] = smp.nk;
	key[2] = smp.nu && execd(p, (pid_t)smp.pid);
	memcpy(key + 3, smp.uf, smp.nu * 8u);
	memcpy(key + 3 + smp.nu, smp.kf, smp.nk * 8u);
	n = 3 + smp.nu + smp.nk;
	for (i = 0; i < n; i++)
		h = (h ^ (uint32_t)key[i] ^ (uint32_t)(key[i] >> 32)) * 16777619u;
	for (i = h & (PROFILE_RAW_SLOTS - 1);; i = (i + 1) & (PROFILE_RAW_SLOTS - 1)) {
		struct raw_stack *r = &p->raw[i];
		if (!r->count)
			break;
		if (r->hash == h && !memcmp(p->raw_keys + r->off, key, n * 8u)) {
			r->count++;
			return;
		}
	}
	if (2 * (p->nraw + 1) > PROFILE_RAW_SLOTS || n > PROFILE_RAW_KEYS - p->raw_used) {
		fold_raw(p, key, 1);
		return;
	}
	p->raw[i] = (struct raw_stack){ h, p->raw_used, 1 };
	memcpy(p->raw_keys + p->raw_used, key, n * 8u);
	p->raw_used += n;
	p->nraw++;
}

/* Every raw stack into the fold. */
static void fold_all_raw(struct pass *p)
{
	for (uint32_t i = 0; i < PROFILE_RAW_SLOTS; i++)
		if (p->raw[i].count)
			fold_raw(p, p->raw_keys + p->raw[i].off, p->raw[i].count);
}

/* Reads every record of the ring up to its head and frees the space. */
static void drain(struct pass *p, struct ring *r)
{
	static uint8_t rec[65536];
	const uint8_t *data = (const uint8_t *)r->page + PROFILE_PAGE;
	uint64_t head = r->page->data_head;
	size_t len;

	rt_perf_rmb();
	while ((len = fold_ring_record(data, (uint64_t)PROFILE_RING_PAGES * PROFILE_PAGE, r->tail, head, rec,
				       sizeof(rec))) > 0) {
		uint32_t type;
		uint16_t misc;
		memcpy(&type, rec, 4);
		memcpy(&misc, rec + 4, 2);
		if (type == PERF_RECORD_SAMPLE) {
			add_sample(p, rec, len);
		} else if (type == PERF_RECORD_LOST && len >= 24) {
			uint64_t lost;
			memcpy(&lost, rec + 16, 8);
			p->lost += lost;
		} else if (type == PERF_RECORD_COMM && (misc & PERF_RECORD_MISC_COMM_EXEC) && len >= 16) {
			uint32_t pid;
			memcpy(&pid, rec + 8, 4);
			add_exec(p, (pid_t)pid);
		}
		r->tail += len;
	}
	/* A corrupt record: the rest of the ring is skipped. */
	r->tail = head;
	rt_perf_mb();
	r->page->data_tail = r->tail;
}

static void drain_all(struct pass *p)
{
	for (int i = 0; i < p->nrings; i++)
		drain(p, &p->ring[i]);
}

/* Is any ring more than a quarter full? */
static bool rings_filling(const struct pass *p)
{
	for (int i = 0; i < p->nrings; i++)
		if (p->ring[i].page->data_head - p->ring[i].tail > PROFILE_RING_PAGES * PROFILE_PAGE / 4)
			return true;
	return false;
}

/* The drainer: a thread started before the events are opened (so it is
 * not sampled: the events follow the opening thread and what it creates
 * afterwards) that empties the rings every PROFILE_DRAIN_MS while the
 * loop runs, however long one call of it lasts (hackbench, cpu), at a
 * real-time priority. Its signals are blocked: a signal to the process is
 * the test's. */
#define PROFILE_DRAIN_MS 2
enum { DRAIN_WAIT, DRAIN_RUN, DRAIN_STOP };
static volatile uint32_t drain_state;

static int drainer(void *arg)
{
	struct pass *p = arg;
	uint64_t all = ~(uint64_t)0;
	const struct rt_timespec nap = { 0, PROFILE_DRAIN_MS * 1000000 };

	rt_sigprocmask(SIG_BLOCK, &all, NULL);
	/* Real time, so that it runs when it wakes, however many tasks the
	 * test keeps busy (hackbench's 40); it sleeps most of the time. */
	rt_sched_setscheduler(0, SCHED_FIFO, 1);
	for (;;) {
		uint32_t state = __atomic_load_n(&drain_state, __ATOMIC_ACQUIRE);
		if (state == DRAIN_STOP)
			return 0;
		if (state == DRAIN_RUN && rings_filling(p))
			drain_all(p);
		rt_nanosleep(&nap, NULL);
	}
}

static void out_stdout(void *ctx, const char *line, size_t n)
{
	(void)ctx;
	rt_write_all(1, line, n);
}

static void print_unavailable(const struct bench *b, const char *name, const char *reason)
{
	rt_printf("PROFILE abi=%s test=%s name=%s status=unavailable reason=%s\n", b->abi, b->test, name,
		  reason);
}

/* Waits (at most a second) until init has read all we printed, then
 * 20 ms more while the console takes it: the records of the previous
 * metric would otherwise go out during this pass, their interrupts in
 * its samples, different from boot to boot. */
static void quiet_output(void)
{
	const struct rt_timespec ms = { 0, 1000000 };
	int queued = 0;

	for (int i = 0; i < 1000; i++) {
		if (rt_ioctl(1, FIONREAD, &queued) < 0 || queued == 0)
			break;
		rt_nanosleep(&ms, NULL);
	}
	rt_sleep_ms(20);
}

/* The pass: fn(ctx, iters) until profile_ns (at least once), sampled;
 * printed under names[0..count-1]. */
static void run_pass(struct bench *b, const char *const *names, int count, bench_loop_fn fn, void *ctx,
		     unsigned long iters, uint64_t period_ns)
{
	static struct pass p;
	struct rt_thread drain;
	bool threaded;
	long r;

	load_symbols(b);
	quiet_output();
	memset(&p, 0, sizeof(p));
	drain_state = DRAIN_WAIT;
	threaded = rt_thread_start(&drain, drainer, &p, 0) > 0;
	r = open_events(&p, b->profile_cycles, period_ns);
	if (r < 0 && b->profile_cycles)
		r = open_events(&p, false, period_ns);
	if (r >= 0 && (r = fold_init(&p.fold, ksyms.n + usyms.n + 2, PROFILE_MAX_STACKS, PROFILE_ARENA)) < 0)
		close_all(&p);
	/* The raw table is mapped once per binary and cleared per pass: unmapping
	 * it after every pass left its page tables for RCU to free during the
	 * next pass, in that pass's samples. */
	static struct raw_stack *raw;
	if (r >= 0 && !raw)
		raw = rt_alloc_pages(PROFILE_RAW_SIZE);
	if (r >= 0 && raw)
		memset(raw, 0, PROFILE_RAW_SLOTS * sizeof(*raw));
	if (r >= 0 && !(p.raw = raw)) {
		fold_free(&p.fold);
		close_all(&p);
		r = -ENOMEM;
	} else if (r >= 0) {
		p.raw_keys = (uint64_t *)(p.raw + PROFILE_RAW_SLOTS);
	}
	if (r < 0) {
		__atomic_store_n(&drain_state, DRAIN_STOP, __ATOMIC_RELEASE);
		if (threaded)
			rt_thread_join(&drain);
		for (int i = 0; i < count; i++)
			print_unavailable(b, names[i], rt_errname((int)-r));
		return;
	}
	ioctl_all(&p, PERF_EVENT_IOC_RESET);
	ioctl_all(&p, PERF_EVENT_IOC_ENABLE);
	__atomic_store_n(&drain_state, DRAIN_RUN, __ATOMIC_RELEASE);
	uint64_t start = rt_now_ns();
	do {
		fn(ctx, iters);
		if (!threaded && rings_filling(&p)) {   /* no thread: between calls */
			ioctl_all(&p, PERF_EVENT_IOC_DISABLE);
			drain_all(&p);
			ioctl_all(&p, PERF_EVENT_IOC_ENABLE);
		}
	} while (rt_now_ns() - start < b->profile_ns);
	ioctl_all(&p, PERF_EVENT_IOC_DISABLE);
	__atomic_store_n(&drain_state, DRAIN_STOP, __ATOMIC_RELEASE);
	if (threaded)
		rt_thread_join(&drain);
	drain_all(&p);
	close_all(&p);
	fold_all_raw(&p);
	for (int i = 0; i < count; i++) {
		struct fold_head h = { b->abi, b->test, names[i], p.event, period_ns, p.lost, p.interrupt };
		if (p.fold.samples == 0)
			print_unavailable(b, names[i], "no-samples");
		else if (fold_emit(&p.fold, &h, frame_name, NULL, out_stdout, NULL) < 0)
			print_unavailable(b, names[i], "ENOMEM");
	}
	fold_free(&p.fold);
	/* The next metric is measured when init has framed these records and
	 * the console has taken them: their work is not in its figures (arm64's
	 * stat read 9 % slower under --profile without this wait). */
	quiet_output();
}

void bench_profile(struct bench *b, const char *name, bench_loop_fn fn, void *ctx, unsigned long iters)
{
	if (b->profile)
		run_pass(b, &name, 1, fn, ctx, iters ? iters : 1, b->profile_period_ns);
}

void bench_profile_fixed(struct bench *b, const char *const *names, int count, bench_loop_fn fn,
			 void *ctx, uint64_t op_ns)
{
	uint64_t period = op_ns / PROFILE_FIXED_SAMPLES;

	if (b->profile)
		run_pass(b, names, count, fn, ctx, 1, period > b->profile_period_ns ? period : b->profile_period_ns);
}
