/*
 * crash-lines.c: the detector's line helpers (crash-internal.h): needle
 * sets (crash.h), identifiers, stack frames, PC lines, lock sites, rule
 * lines. Each reads one stripped console line, never the detector's state.
 */
#include "crash-internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The 8 bytes at p as one word (any alignment). */
static uint64_t load8(const char *p)
{
	uint64_t w;
	memcpy(&w, p, sizeof(w));
	return w;
}

/* A window's bit in a needle set's bitmap (Fibonacci hashing: the top 16 bits). */
static unsigned window_bit(uint64_t w)
{
	return (unsigned)((w * 0x9e3779b97f4a7c15ull) >> 48);
}

/* qsort order of needle windows: by bit. */
static int by_bit(const void *a, const void *b)
{
	const struct needle_window *x = a, *y = b;
	return (x->bit > y->bit) - (x->bit < y->bit);
}

void needle_set_init(struct needle_set *set, const char *const *needles, size_t count)
{
	memset(set, 0, sizeof(*set));
	set->stride = 8;
	for (size_t i = 0; i < count; i++) {
		size_t len = strlen(needles[i]);
		if (len < 8 || count > NEEDLE_SET_MAX)
			die("needle_set_init: \"%s\" is shorter than 8 bytes, or too many strings",
			    needles[i]);
		if (len - 7 < set->stride)
			set->stride = len - 7;
	}
	for (size_t i = 0; i < count; i++) {
		for (size_t off = 0; off < set->stride; off++) {
			struct needle_window *w = &set->windows[set->nwindows++];
			w->head = load8(needles[i] + off);
			w->bit = window_bit(w->head);
			w->offset = (unsigned)off;
			w->text = needles[i];
			w->len = strlen(needles[i]);
			set->bits[w->bit / 64] |= 1ull << (w->bit % 64);
		}
	}
	qsort(set->windows, set->nwindows, sizeof(set->windows[0]), by_bit);
}

/* Is the window w read at s + i (of n bytes) part of one of the set's strings? */
static bool window_matches(const struct needle_set *set, uint64_t w, const char *s, size_t n,
			   size_t i)
{
	unsigned bit = window_bit(w);
	size_t lo = 0, hi = set->nwindows;
	while (lo < hi) {               /* the first window with this bit */
		size_t mid = (lo + hi) / 2;
		if (set->windows[mid].bit < bit)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < set->nwindows && set->windows[lo].bit == bit; lo++) {
		const struct needle_window *nw = &set->windows[lo];
		if (nw->head != w || nw->offset > i || i - nw->offset + nw->len > n)
			continue;
		if (!memcmp(s + i - nw->offset, nw->text, nw->len))
			return true;
	}
	return false;
}

bool needle_set_search(const struct needle_set *set, const char *s, size_t n)
{
	for (size_t i = 0; i + 8 <= n; i += set->stride) {
		uint64_t w = load8(s + i);
		unsigned bit = window_bit(w);
		if ((set->bits[bit / 64] >> (bit % 64) & 1) && window_matches(set, w, s, n, i))
			return true;
	}
	return false;
}

/* Can c be part of a C symbol as the kernel prints it (".isra.0" included)? */
bool crash_is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

/*
 * Copies the identifier at s (up to n bytes) into fn without compiler
 * suffixes (".isra.0", ".constprop.1", ".cold", ".part.2"). Returns its
 * length in s, 0 when there is none.
 */
size_t crash_take_ident(const char *s, size_t n, char *fn)
{
	size_t i = 0;
	if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	while (i < n && crash_is_ident_char(s[i]))
		i++;
	size_t keep = i;
	const char *dot = memchr(s, '.', i);
	if (dot)
		keep = (size_t)(dot - s);
	if (crash_demangle_rust(s, keep, fn, FN_MAX))
		return i;       /* a Rust function, as syzkaller reads its frame */
	if (keep >= FN_MAX)
		keep = FN_MAX - 1;
	memcpy(fn, s, keep);
	fn[keep] = '\0';
	return i;
}

/* Is s[i..] "[c000000001bb3710]", an address token without angle brackets
 * (powerpc's frames; syzkaller's {{PC}} takes both forms)? Its length, else 0. */
static size_t bare_address(const char *s, size_t n, size_t i)
{
	size_t j = i + 1;
	if (j + 1 < n && s[j] == '0' && s[j + 1] == 'x')
		j += 2;
	size_t k = j;
	while (k < n && isxdigit((unsigned char)s[k]))
		k++;
	return k > j && k < n && s[k] == ']' ? k + 1 - i : 0;
}

/* Skips spaces and "[<ffffffff81234567>]" (or "[c000000001bb3710]") address tokens. */
static size_t skip_addresses(const char *s, size_t n)
{
	size_t i = 0;
	for (;;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i + 1 < n && s[i] == '[' && s[i + 1] == '<') {
			const char *end = memchr(s + i, ']', n - i);
			if (!end)
				return i;
			i = (size_t)(end - s) + 1;
			continue;
		}
		size_t bare = i < n && s[i] == '[' ? bare_address(s, n, i) : 0;
		if (bare) {
			i += bare;
			continue;
		}
		return i;
	}
}

/*
 * parse_frame: is this line a stack frame? Accepts x86/arm64 frames
 * (" func+0x1c/0x40 [mod]", "[<ffff..>] func+0x..", " ? func+0x.." as
 * questionable), arm's ("[<c0..>] (func) from [<c0..>] (caller+0x..)",
 * " func from caller+0x..") and decoded ones (" func (file.c:12)"). fn gets the frame's function.
 */
bool crash_parse_frame(const char *s, size_t n, char *fn, bool *questionable)
{
	size_t i = skip_addresses(s, n);
	*questionable = false;
	if (i + 1 < n && s[i] == '?' && s[i + 1] == ' ') {
		*questionable = true;
		i = i + 2 + skip_addresses(s + i + 2, n - i - 2);
	}
	bool paren = i < n && s[i] == '(';
	if (paren)
		i++;
	size_t k = crash_take_ident(s + i, n - i, fn);
	if (!k)
		return false;
	i += k;
	if (starts(s + i, n - i, "+0x")) {
		/* powerpc marks a frame it is unsure of "f+0x1/0x2 (unreliable)" */
		*questionable = *questionable || (n >= 13 && !memcmp(s + n - 13, " (unreliable)", 13));
		return true;
	}
	if (starts(s + i, n - i, " [")) {
		/* a module's function: "(f [mod]) from", " f [mod] from" */
		const char *end = memchr(s + i, ']', n - i);
		if (end)
			i = (size_t)(end - s) + 1;
	}
	if (paren && starts(s + i, n - i, ") from "))
		return true;
	if (!paren && starts(s + i, n - i, " (") && s[n - 1] == ')' && memchr(s + i, ':', n - i))
		return true;    /* decoded by decode_stacktrace.sh: "f (file.c:12)" */
	return starts(s + i, n - i, " from ") && find(s + i, n - i, "+0x");
}

/* arm's "[<c0>] (f) from [<c1>] (g+0x1/0x2)": g, the caller, into fn
 * (syzkaller's arm frame pattern takes both: the top frame is otherwise
 * only in the LR). */
bool crash_parse_frame_caller(const char *s, size_t n, char *fn)
{
	const char *from = find(s, n, ") from ");
	if (!from)
		return false;
	size_t i = (size_t)(from + 7 - s);
	i += skip_addresses(s + i, n - i);
	if (i >= n || s[i] != '(')
		return false;
	i++;
	size_t k = crash_take_ident(s + i, n - i, fn);
	return k && starts(s + i + k, n - i - k, "+0x");
}

/*
 * parse_pc_line: the function of a faulting-PC line: x86 "RIP: 0010:f+0x..",
 * "EIP: f+0x..", "IP: [<..>] f+0x.." and "EIP is at f+0x.." (old kernels),
 * arm64 "pc : f+0x..", arm "PC is at f+0x..".
 */
bool crash_parse_pc_line(const char *s, size_t n, char *fn)
{
	size_t i;
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	if (starts(s, n, "RIP: ") || starts(s, n, "EIP: ") || starts(s, n, "NIP: ")) {
		i = 5;
		size_t j = i;
		while (j < n && isxdigit((unsigned char)s[j]))
			j++;
		if (j < n && s[j] == ':' && j > i)
			i = j + 1;
	} else if (starts(s, n, "pc : ")) {
		i = 5;
	} else if (starts(s, n, "PC is at ") || starts(s, n, "EIP is at ") ||
		   starts(s, n, "RIP is at ")) {
		i = (size_t)(find(s, n, " at ") - s) + 4;
	} else if (starts(s, n, "IP: ")) {
		i = 4;
	} else if (starts(s, n, "--- interrupt: ") && find(s, n, " at ")) {
		/* powerpc: "--- interrupt: 700 at f+0x2c/0x70" (a trap's PC) */
		i = (size_t)(find(s, n, " at ") - s) + 4;
	} else {
		return false;
	}
	i += skip_addresses(s + i, n - i);
	size_t k = crash_take_ident(s + i, n - i, fn);
	return k && starts(s + i + k, n - i - k, "+0x");
}

/* The function of a lockdep lock site: "..., at: f+0x1/0x2" or "at: [<..>] f+0x". */
bool crash_parse_lock_site(const char *s, size_t n, char *fn)
{
	const char *at = find(s, n, "at: ");
	if (!at)
		return false;
	size_t i = (size_t)(at - s) + 4;
	i += skip_addresses(s + i, n - i);
	size_t k = crash_take_ident(s + i, n - i, fn);
	return k && starts(s + i + k, n - i - k, "+0x");
}

/* A line of '=' (KASAN, UBSAN and lockdep frame their reports so). */
bool crash_is_rule_line(const char *s, size_t n)
{
	if (n < 20)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] != '=' && s[i] != '-')
			return false;
	return true;
}

/* Lines that belong to a report after its call trace (registers, markers). */
bool crash_is_report_body(const char *s, size_t n)
{
	static const char *const body[] = {
		"<", " ", "\t", "RIP:", "RSP:", "RAX:", "RDX:", "RBP:", "R10:", "R13:", "FS:",
		"CS:", "CR2:", "DR0:", "DR3:", "DR6:", "PKRU:", "Code:", "---[", "Modules linked",
		"Kernel Offset", "PHYS_OFFSET", "CPU features", "Memory Limit", "SMP: stopping",
		"Rebooting in", "Allocated by task", "Freed by task", "Last potentially",
		"Second to last", "The buggy address", "Memory state", "page:", "flags:", "raw:",
		"page dumped", "page_owner", "head:", "Call Trace", "Call trace", "Exception stack",
		"irq event stamp", "hardirqs ", "softirqs ", "Showing all locks", "NMI backtrace",
		"Sending NMI", "Workqueue:", "Hardware name", "CPU:", "task:", "ORIG_", "pstate",
		"pc :", "lr :", "sp :", "x", "Backtrace", "Stack:", "[<", "ffff", "0x",
		"other info", "stack backtrace", "kasan", "KASAN", "EIP:", "EAX:", "ESI:", "DS:",
		"CR0:", "psr:", "r10", "r7 ", "r3 ", "Flags:", "Control:", "Process ", "Register",
		"INFO: lockdep", "Disabling lock debugging", "Tainted", "Not tainted", "Mem abort",
		"  ESR", "Data abort", "  FSC", "  CM", "user pgtable", "[0000", "Unable to handle",
		"Internal error", "---", "==", "Read of size", "Write of size", "Uninit was",
		"Local variable", "Bytes ", "addr ", "value ", "index ", "shift ", "load of",
		"signed integer", "Allocated at", "freed by", "allocated by", "backtrace:",
		"hex dump", "comm ", "Dumping ftrace", "Kernel panic", "#PF:", "PGD ", "Oops",
		"invalid opcode", "general protection", "Lock", "lock", "Chain exists", "Possible",
		"       ", "*** DEADLOCK", "1 lock held", "locks held", "no locks held",
		"rcu: ", "\t", "(detected by", "rcu_", "task:", "Showing busy", "pool ",
		"Task dump for CPU",
		NULL,
	};
	if (n == 0)
		return true;    /* blank lines separate a report's parts */
	for (const char *const *b = body; *b; b++)
		if (starts(s, n, *b))
			return true;
	return false;
}

/* An x86 register dump's line: "RSP: 0018:...", "R10: ...", "FS:  ...",
 * "CR2: ...", "DR6: ...", "Code: ..." (names of 2 to 4 capitals and digits
 * and a colon). */
bool crash_is_register_line(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && i < 5 && ((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
		i++;
	return i >= 2 && i <= 4 && i < n && s[i] == ':' && (s[0] >= 'A' && s[0] <= 'Z');
}

/* Does the line name a source line ("kernel/rcu/tree.c:123", syzkaller's
 * {{SRC}}: a path of letters, digits, "-_/.", a dot, a lowercase extension,
 * a colon and digits)? */
bool crash_has_source_line(const char *s, size_t n)
{
	for (const char *c = memchr(s, ':', n); c; c = memchr(c + 1, ':', n - (size_t)(c + 1 - s))) {
		if (c + 1 >= s + n || !isdigit((unsigned char)c[1]))
			continue;
		const char *e = c;
		while (e > s && islower((unsigned char)e[-1]))
			e--;
		if (e == c || e == s || e[-1] != '.')
			continue;
		const char *p = e - 1;
		while (p > s && (isalnum((unsigned char)p[-1]) || strchr("-_/.", p[-1])))
			p--;
		if (p < e - 1)
			return true;
	}
	return false;
}
