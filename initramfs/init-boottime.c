/*
 * init-boottime.c: the boot's own figures (bootrig run --boot-time, plan
 * key boot_time=1). The kernel booted with initcall_debug, and its log
 * buffer (syslog(2) READ_ALL: never the console, whose printing would
 * itself slow the boot) holds for each initcall
 *
 *   <7>[    0.254470] calling  init_mmap_min_addr+0x0/0x30 @ 1
 *   <7>[    0.254480] initcall init_mmap_min_addr+0x0/0x30 returned 0 after 0 usecs
 *
 * (a module's with " [mod]" after the symbol). Each "returned" line becomes
 * an item F:US:RC of an INITCALLS record (calls=, items joined by ',', at
 * most INITCALLS_BATCH bytes a record: a thousand initcalls as METRIC lines
 * were 190 bytes each on a serial console that moves some 80 KB/s under
 * TCG, a second and a half of the boot being measured), which the host
 * reads as a METRIC of (boot, initcall) each: the function, its usecs and
 * return code; a function that comes again is FUNC#2, #3... (static
 * functions share names); a name holding ':' or ',' is malformed. The
 * phases are METRICs of (boot, phase), in us from the kernel's start:
 * kernel (to the first initcall's call), initcalls (first call to last
 * return), init (to this init's first instruction, its clock then), total
 * (to now, the tests' start). A BOOTTIME record says what was read:
 * records, malformed (a "returned" line that did not parse: dropped),
 * unmatched (calls beyond the returns, good or malformed: an initcall that
 * never returned, or lines lost), lost=1 when the buffer had wrapped before it was read (the
 * boot's first line, "Linux version", is gone), and status=none with a
 * reason and no metrics when there was no record at all.
 *
 * Levels: the printk records do not name an initcall's level; the
 * kernel's trace events do (trace_event=initcall:initcall_level,
 * initcall:initcall_start on the command line, read from tracefs's trace
 * after the boot: "initcall_level: level=core" before each level's
 * initcalls, "initcall_start: func=F+0x0/0x30" before each call, in the
 * same order as the log's "calling" lines). The k-th "calling" line is
 * the k-th initcall_start event; its level is the last level event before
 * it (and a module's, " [mod]", is "module"). Every INITCALLS record then
 * holds one level's items (level=NAME), and each level with an initcall
 * is a METRIC of (boot, level, NAME): its first initcall's call to its
 * last one's return, in us by the log's stamps. A trace that cannot be
 * read, or whose k-th call is not the log's (names differ: events lost),
 * gives no level at all: BOOTTIME's levels=0 and levels_reason say why.
 * Once read, the trace's events are turned off (set_event emptied), so
 * the tests measure the kernel an ordinary boot runs.
 */
#include "init.h"

#define SYSLOG_ACTION_SIZE_BUFFER 10
#define MAX_INITCALLS 8192
#define FUNC_MAX 120
#define INITCALLS_BATCH 1536
#define MAX_LEVELS 16
#define LEVEL_NAME_MAX 15
#define TRACE_MAX (1L << 20)
#define TRACEFS "/sys/kernel/tracing"

/* One line's "[ seconds.micro]" in us, or -1; *s moves past it. */
static long long stamp_us(const char **s)
{
	const char *p = *s;
	long long us;

	if (*p != '[')
		return -1;
	for (p++; *p == ' '; p++)
		;
	us = decimal_fixed(&p, 6);
	if (*p != ']')
		return -1;
	for (p++; *p == ' '; p++)
		;
	*s = p;
	return us;
}

/* A decimal at p (a '-' first allowed when neg; never 0x hex, which
 * rt_parse_u64 would take), into *v: the pointer past it, or NULL. */
static const char *decimal(const char *p, bool neg, uint64_t *v)
{
	if (neg && *p == '-')
		p++;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return NULL;
	return rt_parse_u64(p, v);
}

struct level {
	char name[LEVEL_NAME_MAX + 1];
	long long first_call, last_return;  /* us by the log's stamps, -1: none */
};

struct boot_read {
	long records, malformed, calls, lost;
	long long first_call, last_return;   /* us, -1: none */
	int nnames;
	const char *names[MAX_INITCALLS];   /* cut in place in the buffer */
	int seen[2 * MAX_INITCALLS];        /* names' hash set: index + 1, 0 empty */
	int times[MAX_INITCALLS];           /* how often names[i] came */
	char batch[INITCALLS_BATCH];        /* the INITCALLS record's calls= so far */
	size_t batch_len;
	/* the trace's calls in order: a name (up to '+', not cut) and its level */
	int nstarts, nlevels;
	const char *start_name[MAX_INITCALLS];
	unsigned char start_level[MAX_INITCALLS];
	struct level levels[MAX_LEVELS + 1];     /* the last one: "module" */
	int level, batch_level;             /* the current call's, the batch's; -1: none */
	int nnames_matched;                 /* the trace's calls the log's have reached */
	const char *levels_reason;          /* NULL: levels known */
};

/* Prints the batch as one INITCALLS record, if it holds any item. */
static void flush_calls(struct boot_read *b)
{
	struct record r;

	if (!b->batch_len)
		return;
	rec_begin(&r, "INITCALLS");
	if (b->batch_level >= 0)
		rec_field(&r, "level", b->levels[b->batch_level].name);
	rec_field(&r, "calls", b->batch);
	rec_end(&r);
	b->batch_len = 0;
	b->batch[0] = '\0';
}

/* Adds item "NAME:US:RC" to the batch (printing it first when full). */
static void add_call(struct boot_read *b, const char *name, uint64_t us, bool neg, uint64_t rc)
{
	char item[FUNC_MAX + 64];
	size_t n = (size_t)rt_snprintf(item, sizeof(item), "%s:%llu:%s%llu", name,
				       (unsigned long long)us, neg ? "-" : "", (unsigned long long)rc);

	if (b->batch_len + 1 + n >= sizeof(b->batch) || b->batch_level != b->level)
		flush_calls(b);
	b->batch_level = b->level;
	if (b->batch_len)
		b->batch[b->batch_len++] = ',';
	memcpy(b->batch + b->batch_len, item, n + 1);
	b->batch_len += n;
}

static void metric(const char *test, const char *name, long long us)
{
	static const char *const stats[] = { "median", "min", "max", "mean" };
	struct record r;

	rec_begin(&r, "METRIC");
	rec_field(&r, "abi", "boot");
	rec_field(&r, "test", test);
	rec_field(&r, "name", name);
	rec_field(&r, "unit", "us");
	rec_field(&r, "better", "lower");
	rec_field(&r, "n", "1");
	for (int i = 0; i < 4; i++)
		rec_fieldf(&r, stats[i], "%lld.0000", us);
	rec_field(&r, "stddev", "0.0000");
	rec_fieldf(&r, "samples", "%lld.0000", us);
	rec_end(&r);
}

/* The level named [s, s+n), added when new; -1 when it is not a name
 * (empty, longer than LEVEL_NAME_MAX, not [a-z0-9_]) or MAX_LEVELS came. */
static int level_index(struct boot_read *b, const char *s, size_t n)
{
	if (n == 0 || n > LEVEL_NAME_MAX)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return -1;
	for (int i = 0; i < b->nlevels; i++)
		if (rt_strncmp(b->levels[i].name, s, n) == 0 && b->levels[i].name[n] == '\0')
			return i;
	if (b->nlevels == MAX_LEVELS)
		return -1;
	memcpy(b->levels[b->nlevels].name, s, n);
	b->levels[b->nlevels].name[n] = '\0';
	return b->nlevels++;
}

/* The length of the function name at s: up to '+', ' ' or the end. */
static size_t func_len(const char *s)
{
	size_t n = 0;

	while (s[n] && s[n] != '+' && s[n] != ' ' && s[n] != '\n')
		n++;
	return n;
}

/* Reads the trace's initcall_level and initcall_start events into b (in
 * test mode ROOT/kernel-trace stands for tracefs's trace); a reason when
 * it gives none. The buffer is kept: b's names point into it. */
static const char *read_trace(struct boot_read *b, const char *root)
{
	static char path[512];
	char *buf = rt_alloc_pages(TRACE_MAX + 1);
	long len, r;
	int level = -1;

	if (!buf)
		return "no memory";
	if (*root) {
		rt_snprintf(path, sizeof(path), "%s/kernel-trace", root);
	} else {
		r = rt_mount("nodev", TRACEFS, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
		if (r < 0 && r != -EBUSY)
			return "no tracefs (CONFIG_TRACING off)";
		rt_strlcpy(path, TRACEFS "/trace", sizeof(path));
	}
	len = rt_read_file(path, buf, TRACE_MAX + 1);
	if (!*root) {
		/* every event off again (set_event truncated): an enabled event
		 * keeps ftrace recording each context switch's comm, a cost the
		 * tests after this would pay */
		long fd = rt_open(TRACEFS "/set_event", O_WRONLY | O_TRUNC, 0);

		if (fd >= 0)
			rt_close((int)fd);
	}
	if (len < 0)
		return "the trace cannot be read";
	buf[len > TRACE_MAX ? TRACE_MAX : len] = '\0';
	for (char *line = buf, *next; *line; line = next) {
		char *p;

		next = rt_strchr(line, '\n');      /* cut: a line's search stays in it */
		next = next ? (*next = '\0', next + 1) : line + rt_strlen(line);
		if ((p = rt_strstr(line, " initcall_level: level=")) != NULL) {
			p += 23;
			level = level_index(b, p, func_len(p));
		} else if ((p = rt_strstr(line, " initcall_start: func=")) != NULL &&
			   b->nstarts < MAX_INITCALLS && level >= 0) {
			b->start_name[b->nstarts] = p + 22;
			b->start_level[b->nstarts++] = (unsigned char)level;
		}
	}
	if (b->nlevels == 0 || b->nstarts == 0)
		return "no initcall trace events (not asked on the command line)";
	return NULL;
}

/* "calling  F+0x../0x.. [mod] @ PID" (text past "calling  "): the call's
 * level, the trace's next call of F within a window (a call the trace
 * missed has none; a module's is "module"), and its level's first call. */
static void calling(struct boot_read *b, const char *f, long long at)
{
	size_t n = func_len(f);
	const char *at_pid = rt_strstr(f, " @ "), *mod = rt_strstr(f, " [");

	b->level = -1;
	if (b->levels_reason)
		return;                 /* no trace: no level at all */
	if (at_pid && mod && mod < at_pid) {
		b->level = MAX_LEVELS;
	} else {
		for (int j = b->nnames_matched, k = 0; j < b->nstarts && k < 64; j++, k++)
			if (func_len(b->start_name[j]) == n && rt_strncmp(b->start_name[j], f, n) == 0) {
				b->level = b->start_level[j];
				b->nnames_matched = j + 1;
				break;
			}
	}
	if (b->level >= 0 && b->levels[b->level].first_call < 0)
		b->levels[b->level].first_call = at;
}

/* How often name f has come, this time included (1: the first): a hash
 * set over the names so far (a thousand initcalls' pairwise compares were
 * most of this file's time under TCG); past MAX_INITCALLS names, 1. */
static int name_seen(struct boot_read *b, const char *f)
{
	unsigned h = 2166136261u;
	int k;

	for (const char *p = f; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	for (k = (int)(h % (2 * MAX_INITCALLS)); b->seen[k]; k = (k + 1) % (2 * MAX_INITCALLS))
		if (rt_strcmp(b->names[b->seen[k] - 1], f) == 0)
			return ++b->times[b->seen[k] - 1];
	if (b->nnames == MAX_INITCALLS)
		return 1;
	b->names[b->nnames] = f;
	b->times[b->nnames] = 1;
	b->seen[k] = ++b->nnames;
	return 1;
}

/* "initcall F+0x../0x.. [mod] returned R after N usecs" (text past the
 * stamp): its metric, named F, F#2...; false: malformed. */
static bool returned(struct boot_read *b, char *text)
{
	char *f = text + 9, *end = f, name[FUNC_MAX + 8];
	const char *p;
	uint64_t rc, us;
	int again;
	bool neg;

	while (*end && *end != '+' && *end != ' ') {
		if (*end == ':' || *end == ',')
			return false;
		end++;
	}
	if (end == f || (size_t)(end - f) > FUNC_MAX)
		return false;
	p = rt_strstr(end, " returned ");
	if (!p)
		return false;
	neg = p[10] == '-';
	p = decimal(p + 10, true, &rc);
	if (!p || rt_strncmp(p, " after ", 7) != 0)
		return false;
	p = decimal(p + 7, false, &us);
	if (!p || rt_strncmp(p, " usecs", 6) != 0 || us > (uint64_t)INT64_MAX)
		return false;
	*end = '\0';
	again = name_seen(b, f);
	if (again > 1)
		rt_snprintf(name, sizeof(name), "%s#%d", f, again);
	else
		rt_strlcpy(name, f, sizeof(name));
	add_call(b, name, us, neg, rc);
	b->records++;
	return true;
}

#define TEST_LOG_MAX (8L << 20)

void boot_time_report(unsigned long long init_ns, const char *root)
{
	static struct boot_read b;
	static char path[512];
	struct record r;
	unsigned long long now_ns = rt_now_ns();
	long size, len;
	int nlevels = 0;
	char *buf;

	/* test mode (a root): ROOT/kernel-log stands for the kernel's buffer */
	size = *root ? TEST_LOG_MAX : rt_syslog(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0);
	buf = size > 0 ? rt_alloc_pages((size_t)size + 1) : NULL;
	b.first_call = b.last_return = -1;
	b.level = b.batch_level = -1;
	for (int i = 0; i <= MAX_LEVELS; i++)
		b.levels[i].first_call = b.levels[i].last_return = -1;
	rt_strlcpy(b.levels[MAX_LEVELS].name, "module", sizeof(b.levels[MAX_LEVELS].name));
	b.levels_reason = read_trace(&b, root);
	if (buf && *root) {
		rt_snprintf(path, sizeof(path), "%s/kernel-log", root);
		len = rt_read_file(path, buf, (size_t)size + 1);
	} else {
		len = buf ? rt_syslog(SYSLOG_ACTION_READ_ALL, buf, (int)size) : -1;
	}
	if (len > 0) {
		buf[len] = '\0';
		b.lost = !rt_strstr(buf, "Linux version ");
		for (char *line = buf, *next; *line; line = next) {
			const char *t = line;
			long long at;

			next = rt_strchr(line, '\n');
			next = next ? (*next = '\0', next + 1) : line + rt_strlen(line);
			if (*t == '<')
				while (*t && *t++ != '>')
					;
			at = stamp_us(&t);
			if (rt_strncmp(t, "calling  ", 9) == 0) {
				b.calls++;
				if (b.first_call < 0)
					b.first_call = at;
				calling(&b, t + 9, at);
			} else if (rt_strncmp(t, "initcall ", 9) == 0 && rt_strstr(t, " returned ")) {
				if (returned(&b, (char *)t)) {
					b.last_return = at;
					if (b.level >= 0)
						b.levels[b.level].last_return = at;
				} else {
					b.malformed++;
				}
			}
		}
	}
	flush_calls(&b);
	if (b.records > 0) {
		if (b.first_call >= 0)
			metric("phase", "kernel", b.first_call);
		if (b.first_call >= 0 && b.last_return >= b.first_call)
			metric("phase", "initcalls", b.last_return - b.first_call);
		metric("phase", "init", (long long)(init_ns / 1000));
		metric("phase", "total", (long long)(now_ns / 1000));
	}
	for (int i = 0; i < MAX_LEVELS; i++) {     /* not "module": no span of the boot's */
		const struct level *l = &b.levels[i];

		if (l->first_call >= 0 && l->last_return >= l->first_call) {
			metric("level", l->name, l->last_return - l->first_call);
			nlevels++;
		}
	}
	if (!nlevels && !b.levels_reason)
		b.levels_reason = "no call of the log is in the trace";
	rec_begin(&r, "BOOTTIME");
	rec_field(&r, "status", b.records > 0 ? "ok" : "none");
	rec_fieldf(&r, "records", "%ld", b.records);
	rec_fieldf(&r, "malformed", "%ld", b.malformed);
	rec_fieldf(&r, "unmatched", "%ld", b.calls > b.records + b.malformed ? b.calls - b.records - b.malformed : 0);
	rec_fieldf(&r, "lost", "%ld", b.lost);
	rec_fieldf(&r, "levels", "%d", nlevels);
	if (!nlevels)
		rec_field(&r, "levels_reason", b.records ? b.levels_reason : "no initcall records");
	if (b.records == 0)
		rec_field(&r, "reason", len < 0 ? "the kernel's log cannot be read" :
			  b.calls > 0 ? "initcall calls but no returns in the kernel's log" :
			  "no initcall records in the kernel's log (a kernel without initcall_debug, "
			  "or printk, or a log that wrapped)");
	rec_end(&r);
}
