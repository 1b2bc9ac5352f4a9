/*
 * judge-catalogue: the judge's header table (judge/crash-table.c) against the
 * kernel's own reporting code.
 *
 *   judge-catalogue [-x EXTRA] [-d] [-g GOLDEN | -w GOLDEN] SRCDIR
 *
 * SRCDIR is a kernel source tree (tests/t-judge-catalogue.sh extracts
 * Debian's linux-source-6.1 once into ~/.cache/bootrig). The tool reads the
 * files that print report headers (sources[] below), takes every string
 * literal that begins a report ("BUG: ", "WARNING: ", "INFO: ", a panic,
 * an oops, "UBSAN: ", ...), turns it into a console line (format
 * specifiers replaced by plausible values: %d -> 1, %pS -> a symbol with
 * its offset, ...), feeds it to a crash detector followed by a call trace,
 * and checks that the detector made an event of it, of the kind the file
 * reports (mm/kasan/ -> kasan, kernel/hung_task.c -> hung_task, ...).
 * Literals that the kernel prints inside a report, not at its start, are
 * listed in not_headers[] with the reason.
 *
 * EXTRA (-x) adds samples the 6.1 tree does not print (older kernels,
 * other architectures, syzkaller's executor): one per line,
 * "SOURCE | KIND | TEXT", KIND "*" for any, "\n" in TEXT separating lines.
 *
 * -d: every entry of the table is needed: for each entry i, the samples are
 * run again by a detector that ignores entry i (as if it were deleted from
 * the table); some sample must then be missed or come out with another
 * kind or title. An entry that changes nothing is reported.
 *
 * -g: each sample's event (kind and title) must be the one GOLDEN says
 * (lines "SAMPLE<TAB>KIND | TITLE", the sample's lines joined by "\n"),
 * and every line of GOLDEN must still be a sample: so deleting an entry
 * from the table, or a new kernel header, fails the test. -w writes
 * GOLDEN from what the judge does now (to review as a diff).
 *
 * Output: TAP, one line per sample (and per entry with -d); "not ok"
 * lines name the header the table lacks. Exit 0 when all is ok, 1 when
 * not, 2 on a usage or read error.
 */
#include "crash.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The files and directories (trailing '/': their *.c and *.h) scanned. */
static const char *const sources[] = {
	"lib/bug.c", "kernel/panic.c", "mm/kasan/", "mm/kfence/", "mm/kmsan/", "kernel/kcsan/",
	"lib/ubsan.c", "kernel/locking/", "kernel/hung_task.c", "kernel/rcu/",
	"kernel/watchdog.c", "kernel/watchdog_hld.c", "lib/debugobjects.c", "lib/refcount.c",
	"lib/list_debug.c", "mm/slub.c", "mm/kmemleak.c", "mm/usercopy.c", "mm/page_alloc.c",
	"mm/memory.c", "kernel/workqueue.c", "kernel/fork.c", "fs/", "net/core/dev.c",
	"kernel/sched/", "lib/smp_processor_id.c", "arch/x86/kernel/traps.c",
	"arch/x86/kernel/dumpstack.c", "arch/x86/kernel/unwind_frame.c", "arch/x86/mm/fault.c",
	"arch/arm64/kernel/traps.c", "arch/arm64/mm/fault.c", "arch/arm/kernel/traps.c",
	"arch/arm/mm/fault.c",
};

/* How a report begins (after leading spaces and newlines). */
static const char *const report_starts[] = {
	"BUG: ", "BUG %s", "INFO: ", "WARNING: ", "Kernel panic", "UBSAN: ", "Unable to handle kernel",
	"Internal error", "kernel BUG at", "unreferenced object", "refcount_t: ", "ODEBUG: ",
	"VFS: Busy", "VFS: Close", "unregister_netdevice: waiting", "general protection fault",
	"divide error", "invalid opcode", "PANIC: ", "Oops", "Division by zero",
	"Watchdog detected", "%s%s%s: rcu_", "%s: %s detected stall", "Kernel BUG at",
	"stack segment", "%d new suspected memory leaks", "Insufficient stack space", "[ BUG: ",
	NULL,
};

/* Literals that start like a report but are printed inside one, or are
 * not a report at all: prefix, reason. */
static const char *const not_headers[][2] = {
	{ "INFO: lockdep is turned off", "lockdep: a line of a report already printed" },
	{ "INFO: Slab ", "SLUB: a line of the \"BUG cache\" report" },
	{ "INFO: Object ", "SLUB: a line of the \"BUG cache\" report" },
	{ "INFO: %s in ", "SLUB: print_track(), \"INFO: Allocated/Freed in\" (in the extra samples)" },
	{ "INFO: 0x", "SLUB: a line of the \"BUG cache\" report" },
	{ "INFO: Freepointer", "SLUB: a line of the \"BUG cache\" report" },
	{ "INFO: Stall ended before state dump start", "RCU: the end of a stall report" },
	{ "INFO: NMI handler", "x86: an NMI handler's duration, no report" },
	{ "WARNING: workqueue cpumask", "workqueue: a configuration notice at boot" },
	{ "WARNING: The mand mount option", "fs/namespace.c: a deprecation notice" },
	{ "WARNING: CPU: %d PID: %d at %pS", "panic.c: __warn() without a file (in the extra samples)" },
	{ "Oops%s", "arm64: a die() message piece" },
	{ "ODEBUG: selftest", "lib/debugobjects.c: the boot self-test's own failure" },
	{ "INFO: rcu_tasks_trace detected stalls? (Late IPI?)", "RCU: a line of the stall report" },
	{ NULL, NULL },
};

/* The kind a file's reports must have, by path prefix; others: any kind. */
static const char *const file_kinds[][2] = {
	{ "mm/kasan/", "kasan" }, { "mm/kfence/", "kfence" }, { "mm/kmsan/", "kmsan" },
	{ "kernel/kcsan/", "kcsan" }, { "lib/ubsan.c", "ubsan" },
	{ "kernel/locking/lockdep.c", "lockdep" }, { "kernel/hung_task.c", "hung_task" },
	{ "kernel/rcu/", "rcu_stall" }, { "kernel/watchdog.c", "soft_lockup" },
	{ "kernel/watchdog_hld.c", "hard_lockup" }, { "mm/kmemleak.c", "kmemleak" },
	{ "kernel/panic.c", NULL }, { NULL, NULL },
};

struct sample {
	char *where;            /* "file:line" or the extra's source */
	char *text;             /* console lines, '\n'-separated */
	const char *kind;       /* the kind it must have, NULL: any */
	char *outcome;          /* "kind | title" of the first event, "" when none */
};

static struct sample *samples;
static size_t nsamples, asamples;

static void add_sample(const char *where, const char *text, const char *kind)
{
	if (nsamples == asamples) {
		asamples = asamples ? 2 * asamples : 64;
		samples = xrealloc(samples, asamples * sizeof(*samples));
	}
	samples[nsamples++] = (struct sample){ xstrdup(where), xstrdup(text), kind, NULL };
}

/* The value a format conversion stands for; *f is moved past it. */
static void put_conversion(struct strbuf *out, const char **f)
{
	const char *p = *f + 1;
	while (*p && strchr("-+ #0", *p))
		p++;
	while (isdigit((unsigned char)*p) || *p == '*' || *p == '.')
		p++;
	while (*p && strchr("hlztjL", *p))
		p++;
	char c = *p ? *p++ : '\0';
	switch (c) {
	case '%':
		strbuf_addstr(out, "%");
		break;
	case 'd': case 'i': case 'u':
		strbuf_addstr(out, "1");
		break;
	case 'x': case 'X':
		strbuf_addstr(out, "1f");
		break;
	case 'c':
		strbuf_addstr(out, "c");
		break;
	case 's':
		strbuf_addstr(out, "foo");
		break;
	case 'p': {
		char ext = isalpha((unsigned char)*p) ? *p++ : '\0';
		if (ext && strchr("SGbIah", ext) && isalpha((unsigned char)*p))
			p++;
		if (ext == 'S' || ext == 'F' || ext == 'B')
			strbuf_addstr(out, "catalogue_site+0x10/0x20");
		else if (ext == 's' || ext == 'f')
			strbuf_addstr(out, "catalogue_site");
		else if (ext == 'V')
			strbuf_addstr(out, "message");
		else if (ext == 'd' || ext == 'D')
			strbuf_addstr(out, "dentry");
		else if (ext == 'g')
			strbuf_addstr(out, "sda");
		else
			strbuf_addstr(out, "ffff888012345678");
		break;
	}
	default:
		strbuf_addstr(out, "1");
		break;
	}
	*f = p;
}

/* A format string as the kernel would print it. */
static char *fill_format(const char *fmt)
{
	struct strbuf out = { 0 };
	for (const char *f = fmt; *f;) {
		if (*f == '%') {
			put_conversion(&out, &f);
			continue;
		}
		strbuf_add(&out, f, 1);
		f++;
	}
	return out.buf ? out.buf : xstrdup("");
}

static const char *kind_of_file(const char *path)
{
	for (size_t i = 0; file_kinds[i][0]; i++)
		if (!strncmp(path, file_kinds[i][0], strlen(file_kinds[i][0])))
			return file_kinds[i][1];
	return NULL;
}

/* The callers whose string argument is a die() header's first words. */
static bool is_die(const char *callee)
{
	static const char *const dies[] = { "die", "__die", "do_error_trap", "do_trap",
					    "arm64_notify_die", "arm_notify_die", NULL };
	for (const char *const *d = dies; *d; d++)
		if (!strcmp(callee, *d))
			return true;
	return false;
}

/*
 * One literal found at path:line, the argument of callee ("" if none): a
 * sample when it begins a report. panic("MSG") prints "Kernel panic - not
 * syncing: MSG"; die("Oops - BUG") prints x86's "Oops - BUG: 0000 [#1]"
 * (arch/x86/kernel/dumpstack.c) or arm's "Internal error: Oops - BUG:
 * 0000000096000004 [#1]" (arch/arm*\/kernel/traps.c: __die()).
 */
static void consider(const char *path, int line, const char *lit, const char *callee)
{
	while (*lit == '\n' || *lit == ' ' || *lit == '\t')
		lit++;
	if (!strcmp(callee, "panic")) {
		char *text = xasprintf("Kernel panic - not syncing: %s", lit);
		char *where = xasprintf("%s:%d", path, line);
		char *filled = fill_format(text);
		add_sample(where, filled, "panic");
		free(filled);
		free(where);
		free(text);
		return;
	}
	bool report = false;
	for (const char *const *r = report_starts; *r; r++)   /* a pr_fmt prefix alone: no */
		report = report || (!strncmp(lit, *r, strlen(*r)) && (lit[strlen(*r)] || is_die(callee)));
	if (!report)
		return;
	for (size_t i = 0; not_headers[i][0]; i++)
		if (!strncmp(lit, not_headers[i][0], strlen(not_headers[i][0])))
			return;
	char *text = fill_format(lit);
	if (is_die(callee)) {
		char *wrapped = strncmp(path, "arch/x86", 8)
			? xasprintf("Internal error: %s: 0000000096000004 [#1] SMP", text)
			: xasprintf("%s: 0000 [#1] PREEMPT SMP", text);
		free(text);
		text = wrapped;
	}
	char *where = xasprintf("%s:%d", path, line);
	add_sample(where, text, kind_of_file(path));
	free(where);
	free(text);
}

/* Is the identifier at p (n bytes) a macro that may stand between the
 * pieces of a literal (KERN_ERR, S_PREEMPT, pr_fmt's FW_BUG, ...)? */
static bool glue_macro(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(isupper((unsigned char)p[i]) || isdigit((unsigned char)p[i]) || p[i] == '_'))
			return false;
	return n > 1;
}

/* Reads a C string literal at *p (just after its '"') into out. */
static void read_literal(const char **p, struct strbuf *out, int *line)
{
	const char *s = *p;
	while (*s && *s != '"') {
		if (*s == '\n')
			(*line)++;
		if (*s == '\\' && s[1]) {
			s++;
			char c = *s;
			if (c == 'n')
				strbuf_addstr(out, "\n");
			else if (c == 't')
				strbuf_addstr(out, "\t");
			else if (c >= '0' && c <= '7') {
				while (s[1] >= '0' && s[1] <= '7')
					s++;        /* "\001" + level: KERN_* */
			} else
				strbuf_add(out, &c, 1);
			s++;
			continue;
		}
		strbuf_add(out, s, 1);
		s++;
	}
	*p = *s ? s + 1 : s;
}

/* Every string literal of a C file, adjacent pieces joined. */
static void scan_file(const char *root, const char *rel)
{
	char *path = xasprintf("%s/%s", root, rel);
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "judge-catalogue: %s: cannot read\n", path);
		exit(2);
	}
	struct strbuf src = { 0 };
	char buf[65536];
	size_t got;
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&src, buf, got);
	fclose(f);
	free(path);
	if (!src.buf)
		return;
	int line = 1;
	const char *p = src.buf;
	while (*p) {
		if (p[0] == '/' && p[1] == '*') {
			const char *end = strstr(p + 2, "*/");
			for (const char *q = p; q < (end ? end : p + strlen(p)); q++)
				line += *q == '\n';
			p = end ? end + 2 : p + strlen(p);
		} else if (p[0] == '/' && p[1] == '/') {
			while (*p && *p != '\n')
				p++;
		} else if (*p == '\'') {
			p++;
			while (*p && *p != '\'')
				p += *p == '\\' && p[1] ? 2 : 1;
			if (*p)
				p++;
		} else if (*p == '"') {
			struct strbuf lit = { 0 };
			int start = line;
			char callee[64] = "";
			const char *b = p;          /* "f(" or "f(x, " just before it? */
			while (b > src.buf && isspace((unsigned char)b[-1]))
				b--;
			if (b > src.buf && (b[-1] == '(' || b[-1] == ',')) {
				const char *open = b - 1;
				while (open > src.buf && *open != '(' && *open != ';' && *open != '{' &&
				       *open != '}')
					open--;
				const char *e = open;
				while (e > src.buf && isspace((unsigned char)e[-1]))
					e--;
				const char *id = e;
				while (id > src.buf && (isalnum((unsigned char)id[-1]) || id[-1] == '_'))
					id--;
				if (*open == '(' && e - id > 0 && e - id < (long)sizeof(callee))
					memcpy(callee, id, (size_t)(e - id));
			}
			const char *bol = b;
			while (bol > src.buf && bol[-1] != '\n')
				bol--;
			if (!strncmp(rel, "arch/", 5) && strstr(rel, "/traps.c") && b > src.buf &&
			    (b[-1] == '=' || !strncmp(bol, "#define ", 8)))
				strcpy(callee, "die");  /* arm: str = "Oops - BUG"; __die(str, ...),
							 * x86: #define GPFSTR "general protection fault" */
			p++;
			for (;;) {
				read_literal(&p, &lit, &line);
				const char *q = p;
				for (;;) {             /* whitespace and glue macros, then '"'? */
					while (isspace((unsigned char)*q))
						q++;
					const char *id = q;
					while (isalnum((unsigned char)*q) || *q == '_')
						q++;
					if (q == id || !glue_macro(id, (size_t)(q - id))) {
						q = id;
						break;
					}
				}
				if (*q != '"')
					break;
				for (const char *c = p; c < q; c++)
					line += *c == '\n';
				p = q + 1;
			}
			consider(rel, start, lit.buf ? lit.buf : "", callee);
			strbuf_release(&lit);
		} else {
			line += *p == '\n';
			p++;
		}
	}
	strbuf_release(&src);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void scan_source(const char *root, const char *rel)
{
	size_t n = strlen(rel);
	if (rel[n - 1] != '/') {
		scan_file(root, rel);
		return;
	}
	char *dir = xasprintf("%s/%s", root, rel);
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "judge-catalogue: %s: cannot read\n", dir);
		exit(2);
	}
	char **names = NULL;
	size_t count = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len > 2 && e->d_name[len - 2] == '.' && strchr("ch", e->d_name[len - 1])) {
			names = xrealloc(names, (count + 1) * sizeof(*names));
			names[count++] = xasprintf("%s%s", rel, e->d_name);
		}
	}
	closedir(d);
	free(dir);
	if (count)
		qsort(names, count, sizeof(*names), by_name);
	for (size_t i = 0; i < count; i++) {
		scan_file(root, names[i]);
		free(names[i]);
	}
	free(names);
}

/* "SOURCE | KIND | TEXT" lines. */
static void read_extra(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "judge-catalogue: %s: cannot read\n", path);
		exit(2);
	}
	static const char *const kinds[] = { "panic", "oops", "bug", "warning", "kasan", "kfence",
					     "kmsan", "kcsan", "ubsan", "lockdep", "rcu_stall",
					     "soft_lockup", "hard_lockup", "hung_task", "kmemleak",
					     "reboot", "firmware_error", NULL };
	char line[4096];
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		char *k = strstr(line, " | "), *t = k ? strstr(k + 3, " | ") : NULL;
		if (!t) {
			fprintf(stderr, "judge-catalogue: %s: malformed line: %s\n", path, line);
			exit(2);
		}
		*k = '\0';
		*t = '\0';
		const char *kind = NULL;
		for (const char *const *q = kinds; *q; q++)
			if (!strcmp(k + 3, *q))
				kind = *q;
		struct strbuf text = { 0 };
		for (const char *p = t + 3; *p; p++) {
			if (p[0] == '\\' && p[1] == 'n') {
				strbuf_addstr(&text, "\n");
				p++;
			} else {
				strbuf_add(&text, p, 1);
			}
		}
		char *where = xasprintf("extra: %s", line);
		add_sample(where, text.buf ? text.buf : "", kind);
		free(where);
		strbuf_release(&text);
	}
	fclose(f);
}

/* What a detector (ignoring header `drop`, if any) makes of a sample. */
static char *outcome(const struct sample *s, long drop)
{
	static const char *const trace[] = {
		"CPU: 0 PID: 1 Comm: catalogue Not tainted 6.1.0 #1",
		"Call Trace:", " <TASK>", " dump_stack_lvl+0x48/0x60", " catalogue_site+0x10/0x20",
		" catalogue_caller+0x10/0x20", " do_syscall_64+0x3a/0x90", " </TASK>",
		"catalogue: the end of the sample",
	};
	struct crash_detector *d = crash_detector_new();
	if (drop >= 0)
		crash_detector_ignore_header(d, (size_t)drop);
	long n = 0;
	const char *p = s->text;
	while (*p) {
		size_t len = strcspn(p, "\n");
		char *line = xasprintf("[   10.000000] %.*s", (int)len, p);
		crash_feed_line(d, line, strlen(line), ++n, 0);
		free(line);
		p += len + (p[len] == '\n');
	}
	for (size_t i = 0; i < ARRAY_SIZE(trace); i++) {
		/* with the sample's printk time: a report with printk times is
		 * read from the lines that have one (crash.c: other_context()) */
		char *line = xasprintf("[   10.000000] %s", trace[i]);
		crash_feed_line(d, line, strlen(line), ++n, 0);
		free(line);
	}
	crash_finish(d);
	const struct crash_event *e = crash_event_at(d, 0);
	char *out = e ? xasprintf("%s | %s", crash_kind_name(e->kind), e->title) : xstrdup("");
	crash_detector_free(d);
	return out;
}

/* The sample's lines joined by "\n" (a golden file's key). */
static char *escaped(const char *text)
{
	struct strbuf out = { 0 };
	for (const char *p = text; *p; p++)
		if (*p == '\n')
			strbuf_addstr(&out, "\\n");
		else
			strbuf_add(&out, p, 1);
	return out.buf ? out.buf : xstrdup("");
}

struct golden {
	char *key, *outcome;
	bool used;
};

/* GOLDEN's "SAMPLE<TAB>OUTCOME" lines. */
static struct golden *read_golden(const char *path, size_t *count)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "judge-catalogue: %s: cannot read\n", path);
		exit(2);
	}
	struct golden *g = NULL;
	char *line = NULL;
	size_t cap = 0;
	*count = 0;
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		char *tab = strrchr(line, '\t');
		if (!tab)
			continue;
		*tab = '\0';
		g = xrealloc(g, (*count + 1) * sizeof(*g));
		g[(*count)++] = (struct golden){ xstrdup(line), xstrdup(tab + 1), false };
	}
	free(line);
	fclose(f);
	return g;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Writes GOLDEN: one line per distinct sample, sorted. */
static void write_golden(const char *path)
{
	char **lines = xcalloc(nsamples ? nsamples : 1, sizeof(*lines));
	for (size_t i = 0; i < nsamples; i++) {
		char *key = escaped(samples[i].text);
		lines[i] = xasprintf("%s\t%s", key, samples[i].outcome);
		free(key);
	}
	qsort(lines, nsamples, sizeof(*lines), by_key);
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "judge-catalogue: %s: cannot write\n", path);
		exit(2);
	}
	for (size_t i = 0; i < nsamples; i++)
		if (!i || strcmp(lines[i], lines[i - 1]))
			fprintf(f, "%s\n", lines[i]);
	for (size_t i = 0; i < nsamples; i++)
		free(lines[i]);
	fclose(f);
	free(lines);
}

/* The sample's first line, for messages. */
static char *first_line(const char *text)
{
	return xasprintf("%.*s", (int)strcspn(text, "\n"), text);
}

int main(int argc, char **argv)
{
	const char *extra = NULL, *golden_path = NULL, *write_path = NULL;
	bool drop_check = false;
	int c;
	while ((c = getopt(argc, argv, "x:dg:w:")) != -1) {
		if (c == 'x')
			extra = optarg;
		else if (c == 'd')
			drop_check = true;
		else if (c == 'g')
			golden_path = optarg;
		else if (c == 'w')
			write_path = optarg;
		else
			return 2;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: judge-catalogue [-x EXTRA] [-d] [-g GOLDEN | -w GOLDEN] SRCDIR\n");
		return 2;
	}
	size_t ngolden = 0;
	struct golden *golden = golden_path ? read_golden(golden_path, &ngolden) : NULL;
	for (size_t i = 0; i < ARRAY_SIZE(sources); i++)
		scan_source(argv[optind], sources[i]);
	if (extra)
		read_extra(extra);
	int failed = 0, test = 0;
	size_t nheaders = crash_header_count();
	printf("# %zu samples, %zu table entries\n", nsamples, nheaders);
	for (size_t i = 0; i < nsamples; i++) {
		struct sample *s = &samples[i];
		s->outcome = outcome(s, -1);
		char *head = first_line(s->text);
		size_t klen = s->kind ? strlen(s->kind) : 0;
		if (!s->outcome[0]) {
			printf("not ok %d - %s: the judge does not flag \"%s\"\n", ++test, s->where, head);
			failed++;
		} else if (s->kind && (strncmp(s->outcome, s->kind, klen) || s->outcome[klen] != ' ')) {
			printf("not ok %d - %s: \"%s\" is %s, want kind %s\n", ++test, s->where, head,
			       s->outcome, s->kind);
			failed++;
		} else if (golden) {
			char *key = escaped(s->text);
			struct golden *g = NULL;
			for (size_t k = 0; k < ngolden && !g; k++)
				if (!strcmp(golden[k].key, key))
					g = &golden[k];
			if (!g) {
				printf("not ok %d - %s: \"%s\" -> %s: a header %s lacks\n", ++test,
				       s->where, head, s->outcome, golden_path);
				failed++;
			} else if (strcmp(g->outcome, s->outcome)) {
				printf("not ok %d - %s: \"%s\" -> %s, %s says %s\n", ++test, s->where, head,
				       s->outcome, golden_path, g->outcome);
				failed++;
			} else {
				printf("ok %d - %s: \"%s\" -> %s\n", ++test, s->where, head, s->outcome);
			}
			if (g)
				g->used = true;
			free(key);
		} else {
			printf("ok %d - %s: \"%s\" -> %s\n", ++test, s->where, head, s->outcome);
		}
		free(head);
	}
	for (size_t k = 0; k < ngolden; k++) {
		if (!golden[k].used) {
			printf("not ok %d - %s: \"%s\" is no header of the kernel any more\n", ++test,
			       golden_path, golden[k].key);
			failed++;
		}
		free(golden[k].key);
		free(golden[k].outcome);
	}
	free(golden);
	if (write_path)
		write_golden(write_path);
	for (size_t h = 0; drop_check && h < nheaders; h++) {
		const char *changed = NULL;
		char *got = NULL;
		for (size_t i = 0; i < nsamples && !changed; i++) {
			got = outcome(&samples[i], (long)h);
			if (strcmp(got, samples[i].outcome))
				changed = samples[i].where;
			else
				free(got);
		}
		if (changed) {
			printf("ok %d - without entry %zu \"%s\": %s becomes \"%s\"\n", ++test, h,
			       crash_header_needle(h), changed, got);
			free(got);
		} else {
			printf("not ok %d - entry %zu \"%s\" changes nothing: no header of the kernel "
			       "(nor of the extra samples) needs it\n", ++test, h, crash_header_needle(h));
			failed++;
		}
	}
	printf("1..%d\n", test);
	for (size_t i = 0; i < nsamples; i++) {
		free(samples[i].where);
		free(samples[i].text);
		free(samples[i].outcome);
	}
	free(samples);
	return failed ? 1 : 0;
}
