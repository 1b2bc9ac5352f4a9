/*
 * judge-profile.c: the metrics' profiles (issue 31): the PROFILE, PFUNC and
 * PSTACK records a test binary prints after a METRIC when the boot is
 * profiled (bootrig.profile=1), read as they come and turned into the
 * metric's "profile" object of result.json (runner/RESULTS.md) when asked.
 *
 * A PROFILE record opens the profile of the latest METRIC of the same
 * (abi, test, name) that has none yet (within the last PROFILE_SCAN kept
 * records: the guest prints it right after its METRIC); the PFUNC and
 * PSTACK records that follow with that identity fill it, up to the counts
 * the header announced (functions=, stacks=) and the bounds (judge-internal.h).
 * What does not fit (a record past the counts, a profile of no metric, a
 * PFUNC of no open profile) is counted in protocol.profile_not_read and
 * makes its profile "incomplete"; a profile never changes the verdict (the
 * protocol's own checks, CRC and seq, rule the records as for any other).
 *
 * The checks that make a profile "incomplete" (kept, flagged with a
 * reason): a header number missing or malformed, more than the bounds
 * announced, fewer or more PFUNC/PSTACK than announced, a function whose
 * self > children or children > samples, a stack of more
 * than samples, stacks whose samples and stacks_other do not add up to
 * samples (the sum checked for overflow: 2^64-1 does not wrap back to it),
 * a count past result.json's integers (2^63-1), a NUL byte in a function's
 * name, a stack or the event (it would cut them short).
 *
 * A function's name can be listed twice: kallsyms names are not unique
 * (static functions of one name in two files, an inline's out-of-line
 * copies: arm64's arch_local_irq_restore), and the guest counts by
 * address. The second PFUNC is added to the first (self exactly, children
 * at most samples: both copies can be on one stack), so a function is
 * listed once, as a reader wants.
 */
#include "judge-internal.h"
#include "textsafe.h"
#include "util.h"

#include <json-c/json.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How far back a PROFILE looks for its METRIC among the kept records. */
#define PROFILE_SCAN 1024

/* Is p the profile of (abi, test, name)? */
static bool same_metric(const struct judge_profile_rec *p, const char *abi, const char *test,
			const char *name)
{
	return !strcmp(p->abi, abi) && !strcmp(p->test, test) && !strcmp(p->name, name);
}

/* Does kept record k already have a profile (among the recent ones)? */
static bool has_profile(const struct judge *j, size_t k)
{
	for (size_t i = j->nprofiles, seen = 0; i-- > 0 && seen++ < PROFILE_SCAN;)
		if (j->profiles[i].metric == k)
			return true;
	return false;
}

/* The kept index of the latest METRIC (abi, test, name) without a profile,
 * or SIZE_MAX. */
static size_t find_metric(const struct judge *j, const char *abi, const char *test,
			  const char *name)
{
	for (size_t k = j->nkept, seen = 0; k-- > 0 && seen++ < PROFILE_SCAN;) {
		const struct proto_record *m = &j->kept[k];
		if (m->kind == PROTO_KIND_METRIC && !strcmp(judge_field_or_empty(m, "abi"), abi) &&
		    !strcmp(judge_field_or_empty(m, "test"), test) &&
		    !strcmp(judge_field_or_empty(m, "name"), name))
			return has_profile(j, k) ? SIZE_MAX : k;
	}
	return SIZE_MAX;
}

/* PROFILE: a new profile for its metric, or counted as not read. */
static void on_profile(struct judge *j, const struct proto_record *rec)
{
	const char *abi = judge_field_or_empty(rec, "abi"), *test = judge_field_or_empty(rec, "test");
	const char *name = judge_field_or_empty(rec, "name");
	size_t k = find_metric(j, abi, test, name);
	if (k == SIZE_MAX || j->nprofiles >= MAX_PROFILES) {
		j->profile_not_read++;
		return;
	}
	j->profiles = xrealloc(j->profiles, (j->nprofiles + 1) * sizeof(*j->profiles));
	struct judge_profile_rec *p = &j->profiles[j->nprofiles++];
	*p = (struct judge_profile_rec){ .metric = k, .abi = xstrdup(abi), .test = xstrdup(test),
					 .name = xstrdup(name) };
	const char *status = proto_get(rec, "status");
	p->unavailable = status && strcmp(status, "ok");
	if (p->unavailable) {
		p->reason = xstrdup(proto_get(rec, "reason") ? proto_get(rec, "reason") : status);
		return;
	}
	p->event = proto_get_text(rec, "event") ? xstrdup(proto_get_text(rec, "event")) : NULL;
	/* each field read on its own, so one that is wrong (an empty event=)
	 * leaves the others as the record had them, and is named */
	static const struct { const char *key; size_t off; } numbers[] = {
		{ "period_ns", offsetof(struct judge_profile_rec, period_ns) },
		{ "samples", offsetof(struct judge_profile_rec, samples) },
		{ "lost", offsetof(struct judge_profile_rec, lost) },
		{ "functions", offsetof(struct judge_profile_rec, nfunctions) },
		{ "stacks", offsetof(struct judge_profile_rec, nstacks_sent) },
		{ "stacks_other", offsetof(struct judge_profile_rec, stacks_other) },
	};
	p->header_ok = true;
	if (!p->event || !*p->event)
		p->header_ok = false, p->header_bad = "event";
	for (size_t i = 0; i < sizeof(numbers) / sizeof(*numbers); i++)
		if (!proto_get_u64(rec, numbers[i].key, (uint64_t *)((char *)p + numbers[i].off)) &&
		    p->header_ok)
			p->header_ok = false, p->header_bad = numbers[i].key;
	/* interrupt= is optional (an older guest has none), but never wrong. */
	if (proto_get(rec, "interrupt") && !proto_get_u64(rec, "interrupt", &p->interrupt) &&
	    p->header_ok)
		p->header_ok = false, p->header_bad = "interrupt";
	/* cut_self= and cut_children= too (optional, both or neither): what a
	 * function the list leaves out is at most, at most samples. */
	if (proto_get(rec, "cut_self") || proto_get(rec, "cut_children")) {
		p->has_cut = proto_get_u64(rec, "cut_self", &p->cut_self) &&
			     proto_get_u64(rec, "cut_children", &p->cut_children) &&
			     p->cut_self <= p->samples && p->cut_children <= p->samples;
		if (!p->has_cut && p->header_ok)
			p->header_ok = false, p->header_bad = "cut_self or cut_children";
	}
}

/* The open profile a PFUNC/PSTACK of rec's identity belongs to, or NULL:
 * the last one, when it is of that metric and available. */
static struct judge_profile_rec *open_profile(struct judge *j, const struct proto_record *rec)
{
	if (!j->nprofiles)
		return NULL;
	struct judge_profile_rec *p = &j->profiles[j->nprofiles - 1];
	if (p->unavailable || !same_metric(p, judge_field_or_empty(rec, "abi"),
					   judge_field_or_empty(rec, "test"),
					   judge_field_or_empty(rec, "name")))
		return NULL;
	return p;
}

/* A PFUNC/PSTACK of p not read: counted, and its fault (malloc'd, or NULL)
 * kept when it is the first. */
static void not_read(struct judge *j, struct judge_profile_rec *p, char *fault)
{
	p->bad++;
	j->profile_not_read++;
	if (!p->problem)
		p->problem = fault;
	else
		free(fault);
}

/* The fault of a record's name field key (fn, stack): a NUL byte in it
 * (which would cut it short), malloc'd; or NULL. */
static char *nul_fault(const struct proto_record *rec, const char *key)
{
	return proto_get(rec, key) && !proto_get_text(rec, key)
	       ? xasprintf("a %s record's %s holds a NUL byte", rec->kind_name, key) : NULL;
}

/* a + b, at most cap (and no wrap). */
static uint64_t add_capped(uint64_t a, uint64_t b, uint64_t cap)
{
	uint64_t sum = a > UINT64_MAX - b ? UINT64_MAX : a + b;
	return sum < cap ? sum : cap;
}

/* PFUNC: one function of the open profile, while it is under its counts;
 * a function of a name already listed is added to it. */
static void on_pfunc(struct judge *j, struct judge_profile_rec *p, const struct proto_record *rec)
{
	const char *fn = proto_get_text(rec, "fn");
	struct profile_fn f = { 0 };
	if (p->nfns + p->merged >= p->nfunctions || p->nfns >= PROFILE_MAX_FUNCTIONS || !fn ||
	    !*fn || !proto_get_u64(rec, "self", &f.self) ||
	    !proto_get_u64(rec, "children", &f.children)) {
		not_read(j, p, nul_fault(rec, "fn"));
		return;
	}
	for (size_t i = 0; i < p->nfns; i++)
		if (!strcmp(p->fns[i].name, fn)) {
			p->fns[i].self = add_capped(p->fns[i].self, f.self, UINT64_MAX);
			p->fns[i].children = add_capped(p->fns[i].children, f.children,
							p->samples > p->fns[i].self ? p->samples
										    : p->fns[i].self);
			p->merged++;
			j->profile_bytes += rec->text_len;
			return;
		}
	f.name = xstrdup(fn);
	j->profile_bytes += rec->text_len;
	p->fns = xrealloc(p->fns, (p->nfns + 1) * sizeof(*p->fns));
	p->fns[p->nfns++] = f;
}

/* PSTACK: one folded stack of the open profile, while under its counts. */
static void on_pstack(struct judge *j, struct judge_profile_rec *p, const struct proto_record *rec)
{
	const char *stack = proto_get_text(rec, "stack");
	struct profile_stack s = { 0 };
	if (p->nstacks >= p->nstacks_sent || p->nstacks >= PROFILE_MAX_STACKS || !stack || !*stack ||
	    !proto_get_u64(rec, "n", &s.n)) {
		not_read(j, p, nul_fault(rec, "stack"));
		return;
	}
	s.stack = xstrdup(stack);
	j->profile_bytes += rec->text_len;
	p->stacks = xrealloc(p->stacks, (p->nstacks + 1) * sizeof(*p->stacks));
	p->stacks[p->nstacks++] = s;
}

void judge_profile_record(struct judge *j, const struct proto_record *rec)
{
	if (j->profile_bytes + rec->text_len > MAX_PROFILE_BYTES) {
		j->profile_not_read++;
		struct judge_profile_rec *p = open_profile(j, rec);
		if (p && rec->kind != PROTO_KIND_PROFILE)
			p->bad++;
		return;
	}
	if (rec->kind == PROTO_KIND_PROFILE) {
		j->profile_bytes += rec->text_len;
		on_profile(j, rec);
		return;
	}
	struct judge_profile_rec *p = open_profile(j, rec);
	if (!p)
		j->profile_not_read++;
	else if (rec->kind == PROTO_KIND_PFUNC)
		on_pfunc(j, p, rec);
	else
		on_pstack(j, p, rec);
}

void judge_profiles_free(struct judge *j)
{
	for (size_t i = 0; i < j->nprofiles; i++) {
		struct judge_profile_rec *p = &j->profiles[i];
		for (size_t k = 0; k < p->nfns; k++)
			free(p->fns[k].name);
		for (size_t k = 0; k < p->nstacks; k++)
			free(p->stacks[k].stack);
		free(p->fns), free(p->stacks);
		free(p->abi), free(p->test), free(p->name), free(p->reason), free(p->event);
		free(p->problem);
	}
	free(j->profiles);
	j->profiles = NULL;
	j->nprofiles = 0;
}

size_t *judge_profile_index(const struct judge *j)
{
	if (!j->nprofiles)
		return NULL;
	size_t *prof_of = xcalloc(j->nkept ? j->nkept : 1, sizeof(*prof_of));
	for (size_t i = 0; i < j->nprofiles; i++)
		if (j->profiles[i].metric < j->nkept)
			prof_of[j->profiles[i].metric] = i + 1;
	return prof_of;
}

/* Why p's stacks do not add up (malloc'd), or NULL: each at most samples,
 * with stacks_other their sum exactly samples, no sum past UINT64_MAX. */
static char *stacks_reason(const struct judge_profile_rec *p)
{
	uint64_t sum = p->stacks_other;
	bool over = p->stacks_other > p->samples;
	for (size_t i = 0; i < p->nstacks && !over; i++) {
		if (p->stacks[i].n > p->samples)
			return xasprintf("a stack of %llu samples in a profile of %llu",
					 (unsigned long long)p->stacks[i].n,
					 (unsigned long long)p->samples);
		over = __builtin_add_overflow(sum, p->stacks[i].n, &sum);
	}
	if (over)
		return xasprintf("the stacks and stacks_other hold more than the %llu samples",
				 (unsigned long long)p->samples);
	if (sum != p->samples)
		return xasprintf("the stacks and stacks_other hold %llu samples, not %llu",
				 (unsigned long long)sum, (unsigned long long)p->samples);
	return NULL;
}

/* Why p is incomplete (malloc'd), or NULL when its counts hold: every count
 * is at most samples (interrupt too: a guest's interrupt work is a part of
 * the pass, not more), and samples, lost and period_ns fit result.json's
 * integers (INT64_MAX), so no figure is clamped or wrapped. */
static char *incomplete_reason(const struct judge_profile_rec *p)
{
	if (!p->header_ok)
		return xasprintf("the PROFILE record's %s is missing or not what it must be",
				 p->header_bad);
	if (p->problem)
		return xasprintf("%s (%zu PFUNC and PSTACK records not read)", p->problem, p->bad);
	/* interrupt work is counted apart from samples (the guest folds none of
	 * it), so it may be more than samples: bounded as a count only */
	if (p->samples > INT64_MAX || p->lost > INT64_MAX || p->period_ns > INT64_MAX ||
	    p->interrupt > INT64_MAX)
		return xstrdup("samples, lost, interrupt or period_ns past 2^63-1");
	if (p->nfunctions > PROFILE_MAX_FUNCTIONS || p->nstacks_sent > PROFILE_MAX_STACKS)
		return xasprintf("%llu functions and %llu stacks announced: at most %d and %d",
				 (unsigned long long)p->nfunctions, (unsigned long long)p->nstacks_sent,
				 PROFILE_MAX_FUNCTIONS, PROFILE_MAX_STACKS);
	if (p->nfns + p->merged != p->nfunctions || p->nstacks != p->nstacks_sent || p->bad)
		return xasprintf("%zu of %llu PFUNC and %zu of %llu PSTACK records read, %zu not read",
				 p->nfns, (unsigned long long)p->nfunctions, p->nstacks,
				 (unsigned long long)p->nstacks_sent, p->bad);
	for (size_t i = 0; i < p->nfns; i++)
		if (p->fns[i].self > p->fns[i].children || p->fns[i].children > p->samples)
			return xasprintf("function %s: self %llu, children %llu of %llu samples",
					 p->fns[i].name, (unsigned long long)p->fns[i].self,
					 (unsigned long long)p->fns[i].children,
					 (unsigned long long)p->samples);
	return stacks_reason(p);
}

/* count as a percentage of samples, at most 4 decimals, as a JSON number;
 * at most 100 (an incomplete profile's function may claim more samples than
 * it has: its *_samples say so, its share stays one a reader accepts). */
static json_object *share_json(uint64_t count, uint64_t samples)
{
	double pct = samples ? round((double)count * 100.0 / (double)samples * 1e4) / 1e4 : 0;
	pct = pct < 100 ? pct : 100;
	char buf[64];
	snprintf(buf, sizeof(buf), "%.4f", pct);
	char *end = buf + strlen(buf);
	while (end[-1] == '0')
		*--end = '\0';
	if (end[-1] == '.')
		end[-1] = '\0';
	return json_object_new_double_s(pct, buf);
}

static json_object *u64_json(uint64_t v)
{
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

json_object *judge_profile_json(const struct judge *j, const size_t *prof_of, size_t k)
{
	if (!prof_of || k >= j->nkept || !prof_of[k])
		return NULL;
	const struct judge_profile_rec *p = &j->profiles[prof_of[k] - 1];
	json_object *o = json_object_new_object();
	if (p->unavailable) {
		json_object_object_add(o, "status", json_object_new_string("unavailable"));
		json_object_object_add(o, "reason", json_cstring_utf8(p->reason));
		return o;
	}
	char *why = incomplete_reason(p);
	json_object_object_add(o, "status", json_object_new_string(why ? "incomplete" : "ok"));
	if (why)
		json_object_object_add(o, "reason", json_cstring_utf8(why));
	free(why);
	json_object_object_add(o, "event", json_cstring_utf8(p->event ? p->event : ""));
	json_object_object_add(o, "period_ns", u64_json(p->period_ns));
	json_object_object_add(o, "samples", u64_json(p->samples));
	json_object_object_add(o, "lost", u64_json(p->lost));
	json_object_object_add(o, "interrupt", u64_json(p->interrupt));
	json_object *fns = json_object_new_array();
	for (size_t i = 0; i < p->nfns; i++) {
		json_object *f = json_object_new_object();
		json_object_object_add(f, "name", json_cstring_utf8(p->fns[i].name));
		json_object_object_add(f, "self", share_json(p->fns[i].self, p->samples));
		json_object_object_add(f, "children", share_json(p->fns[i].children, p->samples));
		json_object_object_add(f, "self_samples", u64_json(p->fns[i].self));
		json_object_object_add(f, "children_samples", u64_json(p->fns[i].children));
		json_object_array_add(fns, f);
	}
	json_object_object_add(o, "functions", fns);
	if (p->has_cut) {       /* a function not listed is below these shares */
		json_object_object_add(o, "cut_self", share_json(p->cut_self, p->samples));
		json_object_object_add(o, "cut_children", share_json(p->cut_children, p->samples));
	}
	json_object *stacks = json_object_new_array();
	for (size_t i = 0; i < p->nstacks; i++) {
		json_object *s = json_object_new_object();
		json_object_object_add(s, "stack", json_cstring_utf8(p->stacks[i].stack));
		json_object_object_add(s, "samples", u64_json(p->stacks[i].n));
		json_object_array_add(stacks, s);
	}
	json_object_object_add(o, "stacks", stacks);
	json_object_object_add(o, "stacks_other", u64_json(p->stacks_other));
	return o;
}
