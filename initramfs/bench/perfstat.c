/*
 * perfstat.c: perf stat's counters around a metric's own loop (perfstat.h
 * has the contract).
 */
#include "perfstat.h"

/* perf stat's default and -d events, in its order. */
const struct pstat_event pstat_events[PSTAT_EVENTS] = {
	{ "task-clock", PERF_TYPE_SOFTWARE, 1 },              /* PERF_COUNT_SW_TASK_CLOCK */
	{ "context-switches", PERF_TYPE_SOFTWARE, 3 },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, 4 },
	{ "page-faults", PERF_TYPE_SOFTWARE, 2 },
	{ "minor-faults", PERF_TYPE_SOFTWARE, 5 },
	{ "major-faults", PERF_TYPE_SOFTWARE, 6 },
	{ "cycles", PERF_TYPE_HARDWARE, 0 },                  /* PERF_COUNT_HW_CPU_CYCLES */
	{ "instructions", PERF_TYPE_HARDWARE, 1 },
	{ "branches", PERF_TYPE_HARDWARE, 4 },                /* ..._BRANCH_INSTRUCTIONS */
	{ "branch-misses", PERF_TYPE_HARDWARE, 5 },
	{ "cache-references", PERF_TYPE_HARDWARE, 2 },
	{ "cache-misses", PERF_TYPE_HARDWARE, 3 },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, 7 },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, 8 },
	{ "bus-cycles", PERF_TYPE_HARDWARE, 6 },
	{ "ref-cycles", PERF_TYPE_HARDWARE, 9 },
};

const char *pstat_name(int i, int cpu)
{
	return i == PSTAT_CLOCK && cpu >= 0 ? "cpu-clock" : pstat_events[i].name;
}

/* Opens event i, disabled, on CPU cpu (or this task: cpu < 0); its fd,
 * or -errno. */
static long open_event(int i, int cpu)
{
	struct rt_perf_event_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.type = pstat_events[i].type;
	attr.size = sizeof attr;
	attr.config = i == PSTAT_CLOCK && cpu >= 0 ? 0 : pstat_events[i].config;   /* CPU_CLOCK */
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.flags = PERF_ATTR_DISABLED | PERF_ATTR_EXCLUDE_HV;
	return rt_perf_event_open(&attr, cpu >= 0 ? -1 : 0, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* value, time enabled, time running (read_format above); false on a
 * failed read. */
struct reading {
	uint64_t value, enabled, running;
};
static bool read_event(int fd, struct reading *r)
{
	return rt_read(fd, r, sizeof *r) == (long)sizeof *r;
}

/* One run's count of event i from its readings a (before) and b (after)
 * into *v, extrapolated when multiplexed; its PSTAT_* state. */
static uint8_t run_count(const struct reading *a, const struct reading *b, uint64_t *v)
{
	uint64_t en = b->enabled - a->enabled, run = b->running - a->running;
	*v = b->value - a->value;
	if (run == 0)
		return PSTAT_NOT_COUNTED;
	if (run >= en)
		return PSTAT_COUNTED;
	double scaled = rt_u64_double(*v) * (rt_u64_double(en) / rt_u64_double(run));
	*v = scaled >= 1.8e19 ? UINT64_MAX : (uint64_t)scaled;
	return PSTAT_SCALED;
}

void pstat_pass(bool on, int cpu, pstat_loop_fn fn, void *ctx, unsigned long iters, int runs,
		uint64_t overhead_ns, struct pstat_counts *c)
{
	struct reading start[PSTAT_EVENTS], end;
	int fd[PSTAT_EVENTS];
	bool any = false;
	memset(c, 0, sizeof *c);
	c->off = !on;
	c->cpu = (int16_t)cpu;
	for (int i = 0; i < PSTAT_EVENTS; i++) {
		long r = on ? open_event(i, cpu) : -1;
		fd[i] = r < 0 ? -1 : (int)r;
		c->err[i] = (int16_t)(on && r < 0 ? -r : 0);
		c->state[i] = fd[i] >= 0 ? PSTAT_NOT_COUNTED : PSTAT_ABSENT;
		any |= fd[i] >= 0;
	}
	/* Each run counted on its own; the one kept is the one with the least
	 * clock (else time): an interrupt (a timer tick's thousands of
	 * instructions, on the CPU counted) only ever adds to a run, as a
	 * sample's fastest sub-run escapes it (bench.h). */
	uint64_t best = UINT64_MAX;
	for (int k = 0; any && k < runs; k++) {
		bool ok[PSTAT_EVENTS];
		for (int i = 0; i < PSTAT_EVENTS; i++)
			ok[i] = fd[i] >= 0 && read_event(fd[i], &start[i]);
		rt_prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0);
		uint64_t t0 = rt_now_ns();
		uint64_t excluded = fn(ctx, iters);
		uint64_t t1 = rt_now_ns();
		rt_prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0);
		uint64_t ns = t1 - t0, v[PSTAT_EVENTS];
		uint8_t st[PSTAT_EVENTS];
		excluded += overhead_ns;
		ns = excluded < ns ? ns - excluded : 1;
		for (int i = 0; i < PSTAT_EVENTS; i++)
			st[i] = ok[i] && read_event(fd[i], &end) ? run_count(&start[i], &end, &v[i])
							       : c->state[i];
		uint64_t key = st[PSTAT_CLOCK] == PSTAT_ABSENT || st[PSTAT_CLOCK] == PSTAT_NOT_COUNTED
			       ? ns : v[PSTAT_CLOCK];
		if (key >= best)
			continue;
		best = key;
		c->ns = ns;
		c->ops = iters;
		for (int i = 0; i < PSTAT_EVENTS; i++)
			c->state[i] = st[i], c->value[i] = st[i] == PSTAT_COUNTED || st[i] == PSTAT_SCALED ? v[i] : 0;
	}
	for (int i = 0; i < PSTAT_EVENTS; i++)
		if (fd[i] >= 0)
			rt_close(fd[i]);
}

double pstat_per_op(const struct pstat_counts *c, int i)
{
	if (!c->ops || (c->state[i] != PSTAT_COUNTED && c->state[i] != PSTAT_SCALED))
		return -1;
	return rt_u64_double(c->value[i]) / rt_u64_double(c->ops);
}

size_t pstat_format(const struct pstat_counts *c, char *buf, size_t size)
{
	size_t len = 0;
	int counted = 0, absent = 0, scaled = 0;
	buf[0] = '\0';
	if (c->ops)
		rt_append(buf, size, &len, " perf_ops=%llu perf_ns=%llu perf_scope=%s",
		    (unsigned long long)c->ops, (unsigned long long)c->ns, c->cpu >= 0 ? "cpu" : "task");
	for (int i = 0; i < PSTAT_EVENTS; i++)
		if (c->ops && (c->state[i] == PSTAT_COUNTED || c->state[i] == PSTAT_SCALED))
			rt_append(buf, size, &len, "%s%s:%llu", counted++ ? "," : " perf=",
			    pstat_name(i, c->cpu), (unsigned long long)c->value[i]);
	for (int i = 0; i < PSTAT_EVENTS; i++) {
		if (c->ops && (c->state[i] == PSTAT_COUNTED || c->state[i] == PSTAT_SCALED))
			continue;
		const char *why = c->state[i] == PSTAT_NOT_COUNTED ? "not-counted"
				  : c->err[i] ? rt_errname(c->err[i]) : "off";
		rt_append(buf, size, &len, "%s%s:%s", absent++ ? "," : " perf_absent=", pstat_name(i, c->cpu),
		    why);
	}
	for (int i = 0; i < PSTAT_EVENTS; i++)
		if (c->ops && c->state[i] == PSTAT_SCALED)
			rt_append(buf, size, &len, "%s%s", scaled++ ? "," : " perf_scaled=", pstat_name(i, c->cpu));
	return len;
}
