/*
 * crash-context.c: whose lines a report reads (crash-internal.h says how):
 * the printk caller of a console line, the lines of other callers an open
 * report leaves out, and the messages whose own stacks end a report that
 * has no caller to tell the stacks apart (syzkaller's findReport).
 */
#include "crash-internal.h"

#include <ctype.h>
#include <stdio.h>

/*
 * The printk caller of a raw console line, as syzkaller's consoleOutputRe
 * reads it: "T123" or "C1" from "[   12.345678][ T123] ", "" for a line
 * with a printk time and no caller, NULL for one without a printk time
 * (into ctx, CONTEXT_MAX bytes).
 */
const char *crash_line_context(const char *s, size_t n, char *ctx)
{
	const char *p = memchr(s, '[', n);
	for (; p; p = memchr(p + 1, '[', n - (size_t)(p + 1 - s))) {
		const char *q = p + 1, *end = s + n;
		while (q < end && *q == ' ')
			q++;
		const char *digits = q;
		while (q < end && isdigit((unsigned char)*q))
			q++;
		if (q == digits || q >= end || *q != '.')
			continue;
		const char *frac = ++q;
		while (q < end && isdigit((unsigned char)*q))
			q++;
		if (q == frac || q >= end || *q != ']')
			continue;
		ctx[0] = '\0';
		if (q + 2 < end && q[1] == '[') {
			const char *c = q + 2;
			while (c < end && *c == ' ')
				c++;
			const char *id = c;
			if (c < end && (*c == 'T' || *c == 'C'))
				for (c++; c < end && isdigit((unsigned char)*c); c++)
					;
			if (c < end && *c == ']' && c - id > 1 && c - id < CONTEXT_MAX)
				snprintf(ctx, CONTEXT_MAX, "%.*s", (int)(c - id), id);
		}
		return ctx;
	}
	return NULL;
}

/*
 * Is this line another printk caller's, while the open report is a task's
 * or a CPU's ("[ T12]", "[ C1]")? syzkaller reads such a report from its
 * own caller's lines only (and the CPUs' after "Sending NMI from CPU"), and
 * a report with printk times and no callers from the lines with a printk
 * time; so the judge leaves the others out of it: lines that are no header
 * of a fatal report are not fed to it.
 */
bool crash_other_context(const struct crash_detector *d, const char *line, size_t len)
{
	const struct report *r = d->open;
	char ctx[CONTEXT_MAX];
	if (!r || !r->context[0])
		return false;
	const char *c = crash_line_context(line, len, ctx);
	if (!strcmp(r->context, "console"))
		return !c;      /* a report with printk times: a line without one is not the kernel's */
	if (!c)
		c = "";
	if (c && !strcmp(c, r->context))
		return false;
	return !(c && c[0] == 'C' && r->cpu_traceback);
}

/* Does the line hold a message that prints a stack of its own though it is
 * no bug (syzkaller's infoMessagesWithStack): a failed vmalloc, an injected
 * fault, a page fault without FAULT_FLAG_ALLOW_RETRY? Without printk callers
 * its stack cannot be told from the report's, so the report's text ends at it. */
bool crash_info_with_stack(const char *s, size_t n)
{
	return find(s, n, "vmalloc: allocation failure:") ||
	       find(s, n, "FAULT_INJECTION: forcing a failure") ||
	       find(s, n, "FAULT_FLAG_ALLOW_RETRY missing");
}
