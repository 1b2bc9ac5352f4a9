/*
 * crash.c: the kernel report detector (see crash.h for the contract): the
 * line state machine that opens, extends and closes reports, over the
 * header table (crash-table.c), the line helpers (crash-lines.c), the
 * choice of the guilty function (crash-frames.c) and the titles
 * (crash-title.c); crash-internal.h is what they share. Outside a report,
 * a line is first scanned once for every string any step looks for (the
 * quick rejection); most lines end there.
 */
#include "crash-internal.h"
#include "console.h"
#include "textsafe.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static bool is_preamble(const char *s, size_t n)
{
	return find(s, n, "[ cut here ]") || find(s, n, "8<--- cut here") ||
	       find(s, n, " corruption") || crash_is_rule_line(s, n);
}

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
	free(r->message);
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
	ev.title = crash_report_title(r, &fn);
	if (r->h->style != ST_FIXED)    /* a fixed title is the kernel's own words */
		ev.title = crash_sanitize_title(ev.title);
	ev.function = xstrdup(fn);
	ev.corrupted = crash_report_corrupted(r, fn) || (r->in_trace && !r->nframes) || r->cut;
	ev.alt_title = crash_alt_title(r, ev.title, fn);
	text_clean_title(ev.title);            /* the raw bytes stay in console.log */
	text_clean_title(ev.alt_title);
	text_clean_title(ev.function);
	crash_squeeze_title(ev.title);
	crash_squeeze_title(ev.alt_title);
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
	for (size_t i = 0; i < crash_nheaders; i++) {
		unsigned char c = (unsigned char)crash_headers[i].needle[0];
		if (crash_headers[i].at_start)
			continue;
		if (anywhere_count[c] == ARRAY_SIZE(anywhere_index[c]))
			abort();        /* the table outgrew the index: enlarge it */
		anywhere_index[c][anywhere_count[c]++] = (unsigned char)i;
	}
}

/* Does the stripped line s hold the boot line b where b says? */
static bool boot_line_in(const struct boot_line *b, const char *s, size_t n)
{
	return b->at_start ? starts(s, n, b->needle) : find(s, n, b->needle) != NULL;
}

/* What a stripped line says of the boot's progress (the banner first). */
static enum crash_progress progress_of(const char *s, size_t n)
{
	for (size_t i = 0; i < crash_nboot_lines; i++)
		if (crash_boot_lines[i].progress && crash_boot_lines[i].at_start &&
		    boot_line_in(&crash_boot_lines[i], s, n))
			return CRASH_PROGRESS_BANNER;
	for (size_t i = 0; i < crash_nboot_lines; i++)
		if (crash_boot_lines[i].progress && !crash_boot_lines[i].at_start &&
		    boot_line_in(&crash_boot_lines[i], s, n))
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
	for (size_t i = 0; i < crash_nheaders; i++) {
		if (crash_headers[i].at_start)
			starts_header[(unsigned char)crash_headers[i].needle[0]] = true;
		else
			push_needle(needles, &n, crash_headers[i].needle);
	}
	for (size_t i = 0; i < ARRAY_SIZE(more); i++)
		push_needle(needles, &n, more[i]);
	for (const char *const *f = crash_firmware_errors; *f; f++)
		push_needle(needles, &n, *f);
	for (size_t i = 0; i < crash_nboot_lines; i++)
		if (!crash_boot_lines[i].at_start)
			push_needle(needles, &n, crash_boot_lines[i].needle);
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
		return crash_is_rule_line(s, n);
	case 'L':
	case 'B':
		for (size_t i = 0; i < crash_nboot_lines; i++)
			if (crash_boot_lines[i].at_start && starts(s, n, crash_boot_lines[i].needle))
				return true;
		return false;
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
		for (size_t i = 0; i < crash_nheaders; i++)
			if (crash_headers[i].at_start && starts(t, tn, crash_headers[i].needle))
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
	size_t tn = n, best = crash_nheaders;
	while (tn && (*t == ' ' || *t == '\t')) {
		t++;
		tn--;
	}
	for (size_t i = 0; i < crash_nheaders; i++)
		if (crash_headers[i].at_start && starts(t, tn, crash_headers[i].needle) && !ignored(d, i)) {
			best = i;
			break;
		}
	for (size_t pos = 0; pos < n; pos++) {
		unsigned char c = (unsigned char)s[pos];
		for (size_t k = 0; k < anywhere_count[c]; k++) {
			size_t i = anywhere_index[c][k];
			if (i < best && starts(s + pos, n - pos, crash_headers[i].needle) &&
			    !ignored(d, i))
				best = i;
		}
	}
	return best < crash_nheaders ? &crash_headers[best] : NULL;
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
			size_t k = crash_take_ident(at + 4, rest, fn);
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
	size_t k = crash_take_ident(p, n - (size_t)(p - s), r->header_fn);
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
	if (d->context[0] && h->style != ST_FIXED)
		snprintf(r->context, sizeof(r->context), "%s", d->context);     /* (a one-line
					 * report, a summary, reads nothing of its own) */
	header_function(r, s, n);
	crash_walk_start(r);
	if (h->style == ST_LOCK_SITE && crash_parse_lock_site(s, n, r->lock_fn))
		r->lock_armed = false;
	else if (find(s, n, "still has locks held"))
		r->lock_armed = true;   /* the held locks' sites follow: the first names it */
	/* KMSAN and KFENCE print their first stack right under the header. */
	r->in_trace = h->kind == CRASH_KMSAN || h->kind == CRASH_KFENCE;
	d->open = r;
}

/* KASAN's access, as syzkaller's report pattern reads it: a line after the
 * header with "Read of size N" or, in the hardware tag-based mode's
 * reports, "Read at addr X" (or Write), anywhere in it. */
static void kasan_access(struct report *r, const char *s, size_t n)
{
	static const char *const forms[] = { "Read of size ", "Read at addr ", "Write of size ",
					     "Write at addr ", NULL };
	for (const char *const *f = forms; *f; f++)
		if (find(s, n, *f)) {
			snprintf(r->access, sizeof(r->access), "%.*s", (int)strcspn(*f, " "), *f);
			return;
		}
}

/* Has r's stack a frame its title may name (one not skipped)? Until it
 * has, the stack reads on past lines of other output. */
static bool stack_named(const struct report *r)
{
	for (size_t i = 0; i < r->nframes; i++)
		if (!crash_skipped(r->frames[i], r->h->skip))
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
	if (r->h->style == ST_RUST && !r->message) {
		r->message = xmalloc(n + 1);    /* the panic's message, after its place */
		memcpy(r->message, s, n);
		r->message[n] = '\0';
	}
	if (!r->text_ended && crash_info_with_stack(s, n) &&
	    (!r->context[0] || !strcmp(r->context, "console"))) {
		r->text_ended = true;   /* syzkaller's report ends here: no frame, PC or
					 * lock site after it is the report's */
		r->trace_done = true;
	}
	if (starts(s, n, "Rebooting in ") || starts(s, n, "Kernel Offset:"))
		r->epilogue = true;
	if (r->text_ended) {
		if (r->nlines >= MAX_REPORT_LINES)
			close_report(d);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(r->walk); i++)
		crash_walk_line(&r->walk[i], s, n);
	if (find(s, n, "Sending NMI from CPU"))
		r->cpu_traceback = true;        /* the CPUs' backtraces follow, from their contexts */
	if (!r->pc_fn[0] && !(r->h->style == ST_FN && r->call_trace && r->nframes) &&
	    crash_parse_pc_line(s, n, fn)) {
		/* (an oops's PC is the one before its stack: a PC line among
		 * its frames is an interrupt's, syzkaller's first part) */
		memcpy(r->pc_fn, fn, FN_MAX);
		/* a stall's own stack starts at its PC (syzkaller's parts: the
		 * RIP frame); frames before it were the grace-period kthread's
		 * dump ("rcu: RCU grace-period kthread stack dump:"), a reporter */
		if (r->h->style == ST_STALL) {
			r->nframes = 0;
			r->in_trace = r->trace_done = false;
		}
	}
	/* lockdep before 4.14 ("[ INFO: SOFTIRQ-safe -> SOFTIRQ-unsafe lock order
	 * detected ]") names the lock being taken, as the other lockdep reports */
	bool old_lockdep = r->h->style == ST_LOCK_STACK && strstr(r->header_text, "INFO:");
	if ((r->h->style == ST_LOCK_SITE || old_lockdep) && !r->lock_fn[0]) {
		if (find(s, n, "is trying to acquire") || find(s, n, "] takes:") ||
		    find(s, n, " takes:") || find(s, n, "just changed the state of lock") ||
		    find(s, n, "is trying to release lock") || find(s, n, "is freeing memory") ||
		    find(s, n, "leaving the kernel with locks still held"))
			r->lock_armed = true;
		else if (r->lock_armed && !r->nsites && find(s, n, "[<") && !find(s, n, " at: ") &&
			 crash_parse_frame(s, n, fn, &questionable) && !questionable) {
			/* "is trying to release lock (l) at:", then the site as a
			 * frame, "[<ffffffff834dea24>] f+0xe4/0x140": syzkaller's
			 * first part; a generic one leaves it to the stack */
			r->nsites = 2;
			if (!crash_skipped(fn, r->h->skip))
				memcpy(r->lock_fn, fn, FN_MAX);
		}
		else if (r->lock_armed && r->nsites < 2 && crash_parse_lock_site(s, n, fn)) {
			/* a row with a skip list (a circular dependency) names the
			 * first of the two sites (the lock taken, the lock held)
			 * that is not generic, as syzkaller's parts do */
			r->nsites++;
			if (!r->h->skip || !crash_skipped(fn, r->h->skip))
				memcpy(r->lock_fn, fn, FN_MAX);
		}
		else if (find(s, n, "last function: ")) {
			/* a workqueue's leaked lock: "last function: f" (%ps, no offset) */
			const char *p = find(s, n, "last function: ") + 15;
			crash_take_ident(p, n - (size_t)(p - s), r->lock_fn);
		}
	}
	if (r->h->style == ST_LOCK_STACK && !old_lockdep && !r->lock_fn[0]) {
		/* "-safe -> -unsafe": the stack under the first "... which
		 * became X-irq-safe at:", its first frame that is not generic */
		if (!r->lock_armed && find(s, n, "which became ") && n > 3 &&
		    !memcmp(s + n - 3, "at:", 3))
			r->lock_armed = true;
		else if (r->lock_armed && crash_parse_frame(s, n, fn, &questionable) &&
			 !questionable && !crash_skipped(fn, r->h->skip))
			memcpy(r->lock_fn, fn, FN_MAX);
	}
	if (!r->source_line && crash_has_source_line(s, n))
		r->source_line = true;
	if (!r->access[0] && r->kind == CRASH_KASAN)
		kasan_access(r, s, n);
	if (!r->trace_done && (find(s, n, "Call Trace") || find(s, n, "Call trace") ||
			       starts(s, n, "Backtrace") || find(s, n, "backtrace:"))) {
		r->in_trace = r->call_trace = true;
		return;
	}
	if (!r->in_trace && !r->trace_done && find(s, n, " from ") &&
	    crash_parse_frame(s, n, fn, &questionable))
		r->in_trace = true;     /* arm prints "f from g+0x1/0x2" frames without a title */
	if (!r->in_trace && !r->trace_done && r->h->style != ST_LOCK_SITE &&
	    r->h->style != ST_LOCK_STACK && n &&
	    (s[0] == ' ' || s[0] == '\t') && crash_parse_frame(s, n, fn, &questionable) && !questionable)
		r->in_trace = true;     /* a stack whose "Call Trace:" line was cut */
	if (r->in_trace && !r->trace_done && r->nframes && !r->restarted &&
	    r->kind == CRASH_WARNING && starts(s, n, "RIP: 0010:")) {
		/* x86 before 4.16 printed a WARN's registers inside its stack,
		 * after the trap's frames (__warn, report_bug, do_invalid_op,
		 * invalid_op): the report's own stack starts at its RIP and goes
		 * on past the register dump (syzkaller's warningStackFmt); an
		 * oops's stack (RIP, "Call Trace:", its frames) reads on past an
		 * interrupt's RIP inside it */
		r->nframes = 0;
		r->in_regs = true;
		r->restarted = true;    /* (a later RIP, an interrupt's, is within the stack) */
		return;
	}
	if (r->in_regs && crash_is_register_line(s, n))
		return;
	r->in_regs = false;
	if (r->in_trace && !r->trace_done && crash_parse_frame(s, n, fn, &questionable)) {
		if (!strcmp(fn, "should_fail") || !strcmp(fn, "should_failslab")) {
			/* a fault injection's stack mixed with the report's
			 * (syzkaller's corruptedLines): the stack ends here */
			r->trace_done = true;
			return;
		}
		if (!questionable && r->nframes < MAX_FRAMES)
			memcpy(r->frames[r->nframes++], fn, FN_MAX);
		if (!questionable && r->nframes < MAX_FRAMES &&
		    crash_parse_frame_caller(s, n, r->frames[r->nframes]))
			r->nframes++;
		return;
	}
	if (r->in_trace && r->nframes && !crash_is_report_body(s, n) && !crash_walk_pending(r) &&
	    stack_named(r)) {
		/* (a stack walk still reading reads on, and so does a stack
		 * of generic frames alone: syzkaller's stack takes every frame
		 * to the next stack's start, past other lines) */
		r->trace_done = true;
		close_report(d);
		return;
	}
	if (!crash_is_report_body(s, n) && !crash_parse_frame(s, n, fn, &questionable))
		r->foreign = true;      /* the kernel went on with other things */
	if (r->in_trace && r->nframes && !starts(s, n, "<") && !starts(s, n, " ") &&
	    !starts(s, n, "RIP:") && !starts(s, n, "[<") && stack_named(r))
		r->trace_done = true;
	if (r->nlines >= (crash_walk_pending(r) ? MAX_WALK_LINES : MAX_REPORT_LINES))
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
	for (const char *const *f = crash_firmware_errors; *f; f++)
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
	const struct boot_line *b = NULL;
	for (size_t i = 0; i < crash_nboot_lines && !b; i++)
		if (boot_line_in(&crash_boot_lines[i], s, n))
			b = &crash_boot_lines[i];
	if (!b)
		return false;
	close_report(d);
	if (b->early) {
		if (d->banners >= 1 && !d->reboot_pending) {
			d->reboot_pending = true;
			add_line_event(d, CRASH_REBOOT, true, xstrdup(crash_reboot_title), s, n,
				       lineno, t);
		}
		return true;
	}
	if (++d->banners >= 2 && !d->reboot_pending)
		add_line_event(d, CRASH_REBOOT, true, xstrdup(crash_reboot_title), s, n, lineno, t);
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
		? crash_panic_text_title(crash_panic_message(text), " ]---") : crash_slice(text, " ]---");
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

/* syzkaller strips a panic from a report of more lines than this
 * (linux.go reportMinLines: the report has its own stack by then). */
#define PANIC_JOIN_LINES 22

/* A header line: open a report, or join the open one. */
static bool header_line(struct crash_detector *d, const char *s, size_t n, long lineno, double t)
{
	const struct header *h = match_header(d, s, n);
	if (h && h->style == ST_WARNING && !is_warning_report(s, n)) {
		/* a bare "WARNING: message": its own report when none is open
		 * (a WARN's "WARNING: CPU: N PID: N at" without its function
		 * excepted) */
		const char *t = find(s, n, "WARNING:");
		size_t tn = t ? n - (size_t)(t - s) : 0;
		if (d->open || !t || starts(t, tn, "WARNING: CPU:") ||
		    crash_warning_line_benign(t, tn))
			return false;
		h = &crash_warning_line;
	}
	if (!h)
		return false;
	if (h->style == ST_HUNG && !find(s, n, "blocked for more than") &&
	    !find(s, n, "blocked in I/O wait for more than") && !find(s, n, "can't die for more than"))
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
	if (r && r->h->style == ST_RUST && !r->walk[0].done &&
	    (h->kind == CRASH_BUG || h->kind == CRASH_OOPS)) {
		/* a Rust panic ends in BUG(): its "kernel BUG at" and oops are
		 * the panic's report (its call trace names it) */
		r->fatal = r->fatal || h->fatal;
		extend_report(d, s, n);
		return true;
	}
	if (r && r->h->style == ST_STALL && crash_walk_pending(r) && !r->nframes &&
	    r->context[0] && strcmp(r->context, "console") && !strcmp(r->context, d->context)) {
		/* a WARN or oops the stall's own handler hit before the stall
		 * printed its stack (the same printk caller): its stack is the
		 * stalled CPU's too, and the stall's walk reads on through it
		 * (syzkaller's report of a printk caller ends at no header) */
		r->fatal = r->fatal || h->fatal;
		d->panic_seen = d->panic_seen || h->kind == CRASH_PANIC;
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
	if (r && h->kind == CRASH_PANIC && r->kind != CRASH_PANIC && !r->trace_done &&
	    (find(s, n, "panic_on_warn set") || (!r->nframes && r->nlines <= PANIC_JOIN_LINES))) {
		/* panic_on_warn: the report's own end, and the stack the panic
		 * prints is the report's (syzbot reads a report up to the next
		 * report's header, and a panic is none: syzkaller's
		 * reportStartIgnores); so is any panic that comes early in a
		 * report with no stack yet ("BUG: scheduling while atomic", then
		 * "Kernel panic - not syncing: scheduling while atomic") */
		d->panic_seen = true;
		r->fatal = true;
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
		if (crash_parse_pc_line(s, n, fn))
			memcpy(d->open->pc_fn, fn, FN_MAX);
	}
	return true;
}

void crash_feed_line(struct crash_detector *d, const char *line, size_t len, long lineno,
		     double t)
{
	const char *raw = line;
	size_t raw_len = len;
	const char *s = console_strip_prefix(line, &len, NULL);
	size_t n = len;
	static const char dropped_tag[] = " printk messages dropped ** ";
	const char *dropped = n > 3 && s[0] == '*' ? find(s, n, dropped_tag) : NULL;
	if (dropped && starts(s, n, "** ")) {
		/* printk's "** 4491 printk messages dropped ** " before a line
		 * (kernel/printk/printk.c, before 5.10): the line is after it */
		const char *rest = dropped + sizeof(dropped_tag) - 1;
		len = n - (size_t)(rest - s);
		s = console_strip_prefix(rest, &len, NULL);
		n = len;
	}
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
	char ctx[CONTEXT_MAX];
	const char *c = crash_line_context(raw, raw_len, ctx);
	snprintf(d->context, sizeof(d->context), "%s", !c ? "" : c[0] ? c : "console");
	if (d->open && !d->open->trace_done && starts(s, n, "unregister_netdevice: waiting for "))
		return;         /* net/core/dev.c's wait, printed every 10 s, in the middle of
				 * a report: no report of its own there (syzkaller's
				 * reportStartIgnores); the next one is */
	if (crash_other_context(d, raw, raw_len)) {
		const struct header *h = marked || starts_like_report(s, n) ? match_header(d, s, n) : NULL;
		if (!h || !h->fatal)
			return;
		if (d->open->fatal && d->open->context[0] == 'T' && !d->open->trace_done)
			return; /* a task's fatal report reads its own lines to its end,
				 * another task's oops in between (two CPUs faulting at
				 * once) none of it: syzkaller's report of a printk
				 * caller ends at no other caller's header */
	}
	if (banner(d, s, n, lineno, t))
		return;
	if (end_marker(d, s, n, lineno, t))
		return;
	if (header_line(d, s, n, lineno, t))
		return;
	if (d->open) {
		if (crash_is_rule_line(s, n) && d->open->nlines > 2) {
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
	case ST_TRUSTY:
	case ST_BAD_STACK:
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

void crash_detector_ignore_header(struct crash_detector *d, size_t i)
{
	if (i < crash_nheaders)
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
