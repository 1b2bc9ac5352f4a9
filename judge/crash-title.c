/*
 * crash-title.c: the titles of the kernel report detector, by syzbot's
 * conventions (crash.h): one rule a style of the header table
 * (crash_report_title()), the special WARNING files, the sanitizers',
 * panics', SLUB's and arm's own forms, and the sanitizing of what varies
 * between two reports of one bug (ADDR, NUM).
 */
#include "crash-internal.h"
#include "console.h"

#include <ctype.h>
#include <stdlib.h>

static const char *const skip_free[] = { "kmem_", "slab_", "kfree", "vunmap", "vfree", NULL };

/* The text between from and the first of stop (or the end), trimmed. */
char *crash_slice(const char *from, const char *stop)
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
				word = word && crash_is_ident_char(*q);
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

/* "<prefix> in <fn>"; when the stack gave no function the title names the
 * report as syzbot does, "<prefix> in corrupted" (its title format wants a
 * frame and the report had none it could use). malloc'd. */
static char *with_function(const char *prefix, const char *fn)
{
	return xasprintf("%s in %s", prefix, *fn ? fn : "corrupted");
}

/* Is this WARNING an allocator's, as syzkaller's "WARNING: .*mm/.*\.c.*
 * k?.?malloc" pattern reads its header: a source file under mm/, then a
 * word that is "malloc" after at most a "k" and one more character
 * ("kmalloc_slab", "kvmalloc_node"; not "__kmalloc", "free_large_kmalloc")? */
static bool kmalloc_warning(const char *t)
{
	const char *mm = strstr(t, "mm/"), *c = mm ? strstr(mm, ".c") : NULL;
	for (const char *sp = c ? strchr(c, ' ') : NULL; sp; sp = strchr(sp + 1, ' ')) {
		const char *w = sp + 1;
		if (!strncmp(w, "malloc", 6) || (w[0] && !strncmp(w + 1, "malloc", 6)) ||
		    (w[0] == 'k' && w[1] && !strncmp(w + 2, "malloc", 6)))
			return true;
	}
	return false;
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
		{ "lib/debugobjects.c", "WARNING: ODEBUG bug", crash_skip_odebug },
		{ "lib/refcount.c", "WARNING: refcount bug", crash_skip_refcount },
		{ "mm/usercopy.c", "WARNING: bad usercopy", crash_skip_usercopy },
		{ "lib/kobject.c", "WARNING: kobject bug", skip_kobject },
		{ "kernel/locking/lockdep.c", "WARNING: locking bug", crash_skip_lock_sock },
		{ "fs/proc/generic.c", "WARNING: proc registration bug", skip_proc },
	};
	for (size_t i = 0; i < ARRAY_SIZE(special); i++) {
		if (strstr(t, special[i].file)) {
			*fn = crash_first_unskipped(r, true, false, special[i].skip);
			return with_function(special[i].title, *fn);
		}
	}
	if (kmalloc_warning(t)) {
		/* an allocator's WARN on its caller's size or flags */
		*fn = crash_first_unskipped(r, true, false, skip_kmalloc);
		return with_function("WARNING: kmalloc bug", *fn);
	}
	if (strstr(t, "mm/vmalloc.c") && strstr(strstr(t, "mm/vmalloc.c"), "__vmalloc_node")) {
		/* __vmalloc_node_range()'s WARN on a size of 0 */
		*fn = crash_first_unskipped(r, true, false, NULL);
		return with_function("WARNING: zero-size vmalloc", *fn);
	}
	if (!strcmp(r->header_fn, "usb_submit_urb")) {
		/* "WARNING in DRIVER_FN/usb_submit_urb": the driver that submitted */
		*fn = crash_first_unskipped(r, true, false, skip_usb);
		return xasprintf("WARNING in %s/usb_submit_urb", **fn ? *fn : "corrupted");
	}
	/* syzkaller's warningStackFmt: the PC, then the stack, past the skipped
	 * frames (a WARN in a list or string helper names its caller); the
	 * header's own function is no frame: a WARN without a stack of its own
	 * (cut, or interleaved with another report) is "WARNING in corrupted" */
	*fn = crash_first_unskipped(r, true, false, NULL);
	return with_function("WARNING", *fn);
}

/* The arm64 fault path a hardware tag-based KASAN report starts in
 * (syzkaller's skips for KASAN_HW_TAGS reports). */
static const char *const skip_kasan_fault[] = { "kernel_fault", "tag_check", "mem_abort", "^el1_",
						"^el1h_", NULL };

/* "BUG: KASAN: use-after-free in f+0x.." + "Read of size 8" -> "KASAN: use-after-free Read in F". */
static char *sanitizer_title(const struct report *r, const char **fn)
{
	const char *t = strstr(r->header_text, "BUG: ");
	t = t ? t + 5 : r->header_text;
	const char *colon = strchr(t, ':');
	char *name = crash_slice(t, ":");
	char *type = crash_slice(colon ? colon + 2 : t, " in ");
	if (!*type) {
		free(type);
		type = crash_slice(colon ? colon + 2 : t, NULL);
	}
	/* syzkaller's: "double-free or invalid-free", "double-free" and
	 * "invalid-free" are one KASAN title, "invalid-free" */
	bool bad_free = !strcmp(type, "double-free or invalid-free") || !strcmp(type, "double-free") ||
			!strcmp(type, "invalid-free");
	const char *const *extra = strstr(type, "free") && !strstr(type, "use-after") ? skip_free
				 : !strcmp(name, "KASAN") ? skip_kasan_fault : NULL;
	char *title;
	if (!strcmp(name, "KASAN") && !r->access[0] && !bad_free) {
		/* syzkaller's last KASAN format: no access line after the header
		 * (old kernels' "... in f+0x1/0x2 at addr X" alone): the header's
		 * words without offsets, marked corrupted */
		*fn = "";
		title = without_offsets(t);
		free(name);
		free(type);
		return title;
	}
	*fn = crash_first_unskipped(r, true, true, extra);
	if (!**fn)
		*fn = r->header_fn;
	const char *on = strstr(type, " on address");
	if (on && !strcmp(name, "KASAN")) {
		/* old KASAN: "BUG: KASAN: null-ptr-deref on address (null)" + "Read of
		 * size 4": "KASAN: null-ptr-deref Read", no function in the title */
		title = xasprintf("%s: %.*s %s", name, (int)(on - type), type, r->access);
		free(name);
		free(type);
		return title;
	}
	if (bad_free && !strcmp(name, "KASAN"))
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

/* The header's text from after marker (which the header holds: its
 * table row's needle) up to end (crash_slice), allocated. */
static char *header_after(const struct report *r, const char *marker, const char *end)
{
	return crash_slice(strstr(r->header_text, marker) + strlen(marker), end);
}

/* arm: "Unable to handle kernel WHAT at virtual address X". */
static char *arm_fault_title(const struct report *r, const char **fn)
{
	char *what = header_after(r, "Unable to handle kernel ", " at ");
	*fn = crash_first_unskipped(r, true, false, NULL);
	/* syzkaller: "BUG: unable to handle kernel %[1]v in %[2]v", NULL
	 * pointer dereference included (as x86's title, whatever it prints) */
	char *prefix = xasprintf("BUG: unable to handle kernel %s", what);
	char *title = with_function(prefix, *fn);
	free(prefix);
	free(what);
	return title;
}

/* arm: "Internal error: Oops - Undefined instruction: 0 [#1]" -> "Internal
 * error in F", whatever the error: syzkaller's title, which merges the
 * arm64 exceptions (synchronous external abort, SP/PC alignment, ...) that
 * arm reports otherwise. */
static char *arm_error_title(const struct report *r, const char **fn)
{
	*fn = crash_first_unskipped(r, true, false, NULL);
	return with_function("Internal error", *fn);
}

/* A table title with its "*" replaced by the header's own first word
 * ("*: held lock freed" -> "WARNING: held lock freed" or "BUG: ..."); older
 * kernels framed the header, "[ BUG: held lock freed! ]". */
static char *lead_title(const struct report *r, const char *title)
{
	if (title[0] != '*')
		return xstrdup(title);
	const char *t = r->header_text;
	if (t[0] == '[')
		for (t++; *t == ' '; t++)
			;
	const char *lead = strstr(t, "BUG") == t ? "BUG" : strstr(t, "INFO") == t ? "INFO" : "WARNING";
	return xasprintf("%s%s", lead, title + 1);
}

/* "Kernel panic - not syncing: MSG" -> "kernel panic: MSG", as syzbot
 * titles it: a few messages lose their variable tail or name a function. */
const char *crash_panic_message(const char *text)
{
	static const char head[] = CONSOLE_PANIC;
	const char *msg = strstr(text, head) + strlen(head);
	if (*msg == ':')
		msg++;
	while (*msg == ' ')
		msg++;
	return msg;
}

/* The title of a panic's message up to stop (NULL: its end), no function. */
char *crash_panic_text_title(const char *msg, const char *stop)
{
	static const char *const cut_after[] = { "Attempted to kill init!",
						 "Couldn't open N_TTY ldisc", "Fatal exception",
						 "panic_on_warn set", "hung_task: blocked tasks",
						 NULL };
	for (const char *const *c = cut_after; *c; c++)
		if (!strncmp(msg, *c, strlen(*c)))
			return xasprintf("kernel panic: %s", *c);
	char *m = crash_slice(msg, stop);
	char *title = crash_sanitize_title(xasprintf("kernel panic: %s", m));
	free(m);
	return title;
}

static char *panic_title(const struct report *r, const char **fn)
{
	const char *msg = crash_panic_message(r->header_text);
	*fn = "";
	if (!strncmp(msg, "stack-protector: ", 17)) {
		static const char *const skip_chk[] = { "stack_chk", NULL };
		const char *in = strstr(msg, "corrupted in: ");
		static __thread char named[FN_MAX];
		/* "corrupted in: f+0x1/0x2" names it; a bare address
		 * ("in: ffffffff81234567", no symbol) leaves it to the stack */
		size_t k = in ? crash_take_ident(in + 14, strlen(in + 14), named) : 0;
		if (k && in[14 + k] == '+')
			*fn = named;
		else
			*fn = crash_first_unskipped(r, false, false, skip_chk);
		return with_function("kernel panic: stack is corrupted", *fn);
	}
	if (!strncmp(msg, "kernel stack overflow", 21)) {
		/* arm64's handle_bad_stack() (the report without its first lines) */
		*fn = crash_first_unskipped(r, true, false, crash_skip_overflow);
		return with_function("kernel stack overflow", *fn);
	}
	if (!strncmp(msg, "corrupted stack end", 19)) {
		*fn = crash_stall_function(r);
		return with_function("kernel panic: corrupted stack end", *fn);
	}
	return crash_panic_text_title(msg, NULL);
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
	char *msg = crash_slice(colon, NULL);
	char *title = xasprintf("BUG: %s", msg);
	*fn = crash_first_unskipped(r, false, false, skip_slub);
	free(msg);
	return title;
}

/* The header's words from its needle up to the entry's stop ("BUG: spinlock bad magic"). */
static char *head_title(const struct report *r)
{
	const char *t = strstr(r->header_text, r->h->needle);
	char *words = crash_slice(t ? t : r->header_text, r->h->stop);
	char *title = xasprintf("%s%s", words, r->h->title);
	free(words);
	return title;
}

/*
 * Replaces what varies from one report of a bug to the next, as syzbot
 * does: the executor's numbers go ("syz-executor.3/42" -> "syz-executor"),
 * a source line is LINE ("core.c:123" -> "core.c:LINE"),
 * "0x..." and long hex runs become ADDR, other numbers standing
 * alone NUM ("unknown-block(0,0)" -> "unknown-block(NUM,NUM)"), and so
 * does a run of 7 digits or more anywhere. A shorter number inside a word
 * ("ext4", "x86_64") stays.
 */
char *crash_sanitize_title(char *title)
{
	struct strbuf out = { 0 };
	const char *p = title;
	while (*p) {
		size_t tag = !strncmp(p, "syz-executor", 12) ? 12 : !strncmp(p, "syzkaller", 9) ? 9 : 0;
		size_t q = tag + (tag == 12 && p[tag] == '.');
		if (tag && isdigit((unsigned char)p[q])) {
			/* the executor's and the test program's numbers ("syz-executor.3/4242",
			 * "syzkaller601944:4492"): syzkaller's first replacements */
			q += strspn(p + q, "0123456789");
			if ((p[q] == '/' || p[q] == ':') && isdigit((unsigned char)p[q + 1]))
				q += 1 + strspn(p + q + 1, "0123456789");
			strbuf_add(&out, p, tag);
			p += q;
			continue;
		}
		if (*p == ':' && isdigit((unsigned char)p[1]) && p > title) {
			/* a source line, "file.c:123" (syzkaller's (\.\w+)(:[0-9]+)+) */
			const char *w = p;
			while (w > title && (isalnum((unsigned char)w[-1]) || w[-1] == '_'))
				w--;
			if (w < p && w > title && w[-1] == '.') {
				strbuf_addstr(&out, ":LINE");
				while (*p == ':' && isdigit((unsigned char)p[1]))
					p += 1 + strspn(p + 1, "0123456789");
				continue;
			}
		}
		bool boundary = p == title || !crash_is_ident_char(p[-1]);
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
			bool word_end = !crash_is_ident_char(q[digits]) || q[digits] == '.';
			if ((hex && digits) || (digits >= 8 && word_end && decimal < digits)) {
				strbuf_addstr(&out, "ADDR");
				p = q + digits;
				continue;
			}
			if (!hex && decimal && (!crash_is_ident_char(q[decimal]) || q[decimal] == '.' ||
						decimal >= 7) &&
			    !(q[decimal] == '.' && isdigit((unsigned char)q[decimal + 1]))) {
				strbuf_addstr(&out, "NUM");
				p = q + decimal;
				continue;
			}
		}
		if (!boundary && isdigit((unsigned char)*p) && !isdigit((unsigned char)p[-1]) &&
		    strspn(p, "0123456789") >= 7) {
			/* a long number inside a word ("testdir264563108"):
			 * syzkaller's (\d+){7,} */
			strbuf_addstr(&out, "NUM");
			p += strspn(p, "0123456789");
			continue;
		}
		strbuf_add(&out, p, 1);
		p++;
	}
	free(title);
	return out.buf ? out.buf : xstrdup("");
}

/* syzkaller's sanitizeTitle, after the bytes are clean: runs of spaces as
 * one, none at either end (in place). */
void crash_squeeze_title(char *title)
{
	char *w = title;
	for (const char *p = title; *p; p++)
		if (*p != ' ' || (w > title && w[-1] != ' '))
			*w++ = *p;
	while (w > title && w[-1] == ' ')
		w--;
	*w = '\0';
}

/* The header line from its "WARNING:" (or "INFO:"): syzkaller's title of a
 * report whose format's pattern failed (its oops' header to the line's end). */
static char *header_line_title(const struct report *r)
{
	const char *t = r->header_text, *w = strstr(t, "WARNING:"), *i = strstr(t, "INFO:");
	return crash_slice(w ? w : i ? i : t, NULL);
}

/*
 * The unwinder's complaint, as syzkaller's formats read it: with the
 * address printed ("regs at ffff8801d100fea8 in comm:pid has bad 'bp'
 * value"), "WARNING: kernel stack regs has bad 'REG' value" or "WARNING:
 * kernel stack frame pointer has bad value"; with it hashed ("(ptrval)",
 * 4.15+), both are "WARNING: kernel stack regs has bad value" (a register
 * other than bp: the line itself).
 */
static char *bad_stack_title(const struct report *r)
{
	const char *t = r->header_text, *at = strstr(t, " at ");
	bool regs = strstr(t, "kernel stack regs at ") != NULL;
	const char *p = at ? at + 4 : t;
	size_t hex = strspn(p, "0123456789abcdef");
	const char *q1 = strstr(t, "has bad '"), *q2 = q1 ? strchr(q1 + 9, '\'') : NULL;
	if (hex && !strncmp(p + hex, " in ", 4)) {
		if (!regs)
			return xstrdup("WARNING: kernel stack frame pointer has bad value");
		if (q2 && !strncmp(q2, "' value", 7))
			return xasprintf("WARNING: kernel stack regs has bad '%.*s' value",
					 (int)(q2 - q1 - 9), q1 + 9);
	}
	if (!regs || (q1 && !strncmp(q1, "has bad 'bp' value", 18)))
		return xstrdup("WARNING: kernel stack regs has bad value");
	return xstrdup(t);
}

/* The text after the first "): " of s that something follows, or NULL
 * (syzkaller's "\\(.*?\\): (.+)"). */
static const char *after_paren_colon(const char *s)
{
	for (const char *p = strstr(s, "): "); p; p = strstr(p + 1, "): "))
		if (p[3])
			return p + 3;
	return NULL;
}

/*
 * The secure OS's panic as syzkaller titles it: a failed assertion by its
 * expression, "trusty: ASSERT FAILED: EXPR" ("... ASSERT FAILED at (FILE:LINE):
 * EXPR"); one whose expression is not there (the line broken by another
 * printk) by what follows its last colon, corrupted; any other panic by its
 * message, "trusty: panic: MSG". *corrupted: the line had not that form.
 */
static char *trusty_title(const struct report *r, bool *corrupted)
{
	const char *t = strstr(r->header_text, "trusty: panic");
	const char *af = t ? strstr(t, " ASSERT FAILED") : NULL;
	const char *msg;
	*corrupted = false;
	if (!t)
		return xstrdup(r->header_text);
	if (af) {
		if (!strncmp(af, " ASSERT FAILED at (", 19) && (msg = after_paren_colon(af + 19)))
			return xasprintf("trusty: ASSERT FAILED: %s", msg);
		const char *colon = strrchr(af, ':');
		if (colon) {
			*corrupted = true;
			for (msg = colon + 1; *msg == ' '; msg++)
				;
			return xasprintf("trusty: ASSERT FAILED: %s", msg);
		}
	}
	if (!strncmp(t, "trusty: panic (", 15) && (msg = after_paren_colon(t + 15)))
		return xasprintf("trusty: panic: %s", msg);
	*corrupted = true;
	return xstrdup(t);
}

/* The event's title and function, once its report is complete. */
char *crash_report_title(const struct report *r, const char **fn)
{
	const struct header *h = r->h;
	char *prefix = NULL, *title;
	*fn = "";
	switch (h->style) {
	case ST_FN:
		*fn = crash_first_unskipped(r, true, false, h->skip);
		return with_function(h->title, *fn);
	case ST_STACK:
		if (h->skip == crash_skip_rcu && !r->source_line) {
			/* suspicious RCU usage names its check's source line after
			 * the header; without it (cut, another report over it)
			 * syzkaller's pattern fails: the header line, corrupted */
			return header_line_title(r);
		}
		*fn = crash_first_unskipped(r, false, false, h->skip);
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
		char *type = header_after(r, "UBSAN: ", " in ");
		*fn = crash_first_unskipped(r, false, false, h->skip);
		/* before 5.x: "UBSAN: Undefined behaviour in FILE:LINE:COL",
		 * syzbot's "UBSAN: undefined-behaviour in F" */
		prefix = xasprintf("UBSAN: %s",
				   strcmp(type, "Undefined behaviour") ? type : "undefined-behaviour");
		free(type);
		break;
	}
	case ST_LOCK_SITE:
		if (h->skip && !r->lock_armed && !r->lock_fn[0]) {
			/* the site was never announced ("is trying to acquire"):
			 * syzkaller's pattern fails, the header line ("WARNING:
			 * possible circular locking dependency detected"), corrupted */
			return header_line_title(r);
		}
		/* fall through */
	case ST_LOCK_STACK:
		*fn = r->lock_fn[0] ? r->lock_fn : crash_first_unskipped(r, false, false, h->skip);
		prefix = lead_title(r, h->title);
		break;
	case ST_BAD_PAGE:
	case ST_STALL:
		*fn = crash_stall_function(r);
		return with_function(h->title, *fn);
	case ST_HUNG:
		*fn = crash_hung_function(r);
		return with_function(strstr(r->header_text, "can't die") ? "INFO: task can't die"
									  : h->title, *fn);
	case ST_LEAK:
		*fn = crash_first_unskipped(r, false, false, h->skip);
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
		*fn = crash_first_unskipped(r, false, false, h->skip);
		prefix = head_title(r);
		break;
	case ST_SLUB:
		return slub_title(r, fn);
	case ST_LINE: {
		/* the line from its needle; with a title, the title then the rest of
		 * the line, offsets dropped ("kernel BUG at f [verbose debug info
		 * unavailable]") */
		const char *from = strstr(r->header_text, h->needle);
		if (h->title && from) {
			char *line = xasprintf("%s%s", h->title, from + strlen(h->needle));
			title = without_offsets(line);
			free(line);
			return title;
		}
		if (from) {
			/* from the header's own word when it leads the needle
			 * ("BUG: key ADDR has not been registered!") */
			static const char *const words[] = { "BUG: ", "WARNING: ", "INFO: ", NULL };
			for (const char *const *w = words; *w; w++) {
				const char *at = strstr(r->header_text, *w);
				if (at && at < from)
					from = at;
			}
		}
		return crash_slice(from ? from : r->header_text, NULL);
	}
	case ST_HEADER_FN: {
		/* syzkaller's "INFO: %[1]v in %[2]v", the rest of the line: "INFO:
		 * Allocated in f age=NUM cpu=NUM pid=NUM" */
		const char *from = strstr(r->header_text, h->needle);
		*fn = r->header_fn;
		return without_offsets(from ? from : r->header_text);
	}
	case ST_BAD_STACK:
		return bad_stack_title(r);
	case ST_RUST:
		if (!r->message || !r->message[0])
			return xstrdup(strstr(r->header_text, h->needle));
		*fn = crash_stall_function(r);
		return with_function(r->message, *fn);
	case ST_TRUSTY: {
		bool corrupted;
		return trusty_title(r, &corrupted);
	}
	case ST_PRELUDE:
	case ST_OVERFLOW:
		*fn = crash_first_unskipped(r, true, false, h->skip);
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
bool crash_report_corrupted(const struct report *r, const char *fn)
{
	switch (r->h->style) {
	case ST_FIXED:
	case ST_LINE:
	case ST_SLUB:
	case ST_KCSAN:
	case ST_BAD_STACK:
		return false;
	case ST_HEADER_FN:
		return true;
	case ST_TRUSTY: {
		bool corrupted;
		free(trusty_title(r, &corrupted));
		return corrupted;
	}
	case ST_PANIC:
		return strstr(r->header_text, "Fatal exception") ||
		       strstr(r->header_text, "panic_on_warn set") ||
		       strstr(r->header_text, "hung_task: blocked tasks");
	default:
		return !fn[0];
	}
}

/* The title with its function replaced by the next frame of the stack
 * that is not skipped (the caller, for grouping reports that differ only
 * by an inlined helper), or the title itself. */
char *crash_alt_title(const struct report *r, const char *title, const char *fn)
{
	size_t tl = strlen(title), fl = strlen(fn);
	if (fn < r->frames[0] || fn >= r->frames[MAX_FRAMES - 1] + FN_MAX || tl < fl ||
	    strcmp(title + tl - fl, fn))
		return xstrdup(title);
	size_t i = (size_t)(fn - r->frames[0]) / FN_MAX;
	for (i++; i < r->nframes; i++)
		if (strcmp(r->frames[i], fn) && !crash_skipped(r->frames[i], r->h->skip))
			return xasprintf("%.*s%s", (int)(tl - fl), title, r->frames[i]);
	return xstrdup(title);
}
