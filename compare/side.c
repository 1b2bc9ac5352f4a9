/*
 * side.c: the one loader of a side of a comparison (see results.h): boot
 * records, whichever source read them (result.json files in results.c, the
 * history database's rows in db.c), become a side here and only here: the
 * boot list, the metric series (hashed by identity), the guest tests'
 * times, the ABI counts, the events, the KTAP cases, the stage times and
 * the metrics' profiles (per function, one share per boot; the stacks
 * pooled). Then what is asked of a side: its metrics (by identity or by
 * id, a function's share too), profiles, hosts, ABI status, whether
 * its boots were run alike.
 */
#include "results.h"
#include "util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* --- boot records ------------------------------------------------------- */

void boot_record_init(struct boot_record *r)
{
	*r = (struct boot_record){ .duration = NAN };
	for (int i = 0; i < RESULT_STAGES; i++)
		r->stages[i] = NAN;
}

/* v (n entries of size bytes) with room for one more: doubled at 0, 1, 2, 4... */
static void *grow(void *v, size_t n, size_t size)
{
	return n & (n - 1) ? v : xrealloc(v, (n ? 2 * n : 1) * size);
}

void boot_record_add_metric(struct boot_record *r, const struct side_observation *o)
{
	r->metrics = grow(r->metrics, r->nmetrics, sizeof(*r->metrics));
	r->metrics[r->nmetrics++] = *o;
}

void boot_record_add_test(struct boot_record *r, const char *abi, const char *test,
			  const char *status, double ms)
{
	r->tests = grow(r->tests, r->ntests, sizeof(*r->tests));
	r->tests[r->ntests++] = (struct boot_test){ abi, test, status, ms };
}

void boot_record_add_abi(struct boot_record *r, const char *name, const char *status,
			 const char *reason)
{
	r->abis = grow(r->abis, r->nabis, sizeof(*r->abis));
	r->abis[r->nabis++] = (struct boot_abi){ name, status, reason };
}

void boot_record_add_event(struct boot_record *r, const char *kind, const char *title)
{
	r->events = grow(r->events, r->nevents, sizeof(*r->events));
	r->events[r->nevents++] = (struct boot_event){ kind, title };
}

void boot_record_add_case(struct boot_record *r, const char *suite, const char *name,
			  const char *status)
{
	r->cases = grow(r->cases, r->ncases, sizeof(*r->cases));
	r->cases[r->ncases++] = (struct boot_case){ suite, name, status };
}

void boot_record_add_profile(struct boot_record *r, const struct boot_profile *p)
{
	r->profiles = grow(r->profiles, r->nprofiles, sizeof(*r->profiles));
	r->profiles[r->nprofiles++] = *p;
}

void boot_record_add_uncounted(struct boot_record *r, const char *abi, const char *event,
			       const char *reason)
{
	for (size_t i = 0; i < r->nuncounted; i++)
		if (!strcmp(r->uncounted[i].abi, abi) && !strcmp(r->uncounted[i].event, event))
			return;
	r->uncounted = grow(r->uncounted, r->nuncounted, sizeof(*r->uncounted));
	r->uncounted[r->nuncounted++] = (struct boot_uncounted){ abi, event, reason };
}

const char *profile_share_fault(double v)
{
	return v >= 0 && v <= 100 ? NULL : "is not a share (0 to 100)";
}

const char *profile_count_fault(double v)
{
	return v >= 0 && v <= 0x1p63 ? NULL : "is not a count (0 to 2^63)";
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char *profile_twice(const char *const *names, size_t n)
{
	const char **sorted = xcalloc(n + 1, sizeof(*sorted));
	memcpy(sorted, names, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_str);
	const char *twice = NULL;
	for (size_t i = 1; i < n && !twice; i++)
		if (!strcmp(sorted[i - 1], sorted[i]))
			twice = sorted[i];
	free(sorted);
	return twice;
}

char *boot_profile_fault(const struct boot_profile *p)
{
	const struct { const char *name; double v; } counts[] = {
		{ "period_ns", p->period_ns }, { "samples", p->samples }, { "lost", p->lost },
		{ "stacks_other", p->stacks_other },
	};
	const char *why;
	for (size_t i = 0; i < ARRAY_SIZE(counts); i++)
		if ((why = profile_count_fault(counts[i].v)))
			return xasprintf("%s %g %s", counts[i].name, counts[i].v, why);
	const struct { const char *name; double v; } cuts[] = {
		{ "cut_self", p->cut_self }, { "cut_children", p->cut_children },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cuts); i++)      /* NaN: not said */
		if (!isnan(cuts[i].v) && (why = profile_share_fault(cuts[i].v)))
			return xasprintf("%s %g %s", cuts[i].name, cuts[i].v, why);
	const char **names = xcalloc(p->nfns + 1, sizeof(*names));
	char *fault = NULL;
	for (size_t i = 0; i < p->nfns && !fault; i++) {
		const struct boot_profile_fn *f = &p->fns[i];
		names[i] = f->name;
		if ((why = profile_share_fault(f->self)) || (why = profile_share_fault(f->children)))
			fault = xasprintf("function %s: self %g, children %g: %s", f->name, f->self,
					  f->children, why + strlen("is "));
	}
	const char *twice = fault ? NULL : profile_twice(names, p->nfns);
	if (twice)
		fault = xasprintf("function %s listed twice", twice);
	free(names);
	for (size_t i = 0; i < p->nstacks && !fault; i++)
		if ((why = profile_count_fault(p->stacks[i].samples)))
			fault = xasprintf("stack %zu: samples %g %s", i, p->stacks[i].samples, why);
	return fault;
}

char *boot_record_own(struct boot_record *r, char *s)
{
	r->owned = grow(r->owned, r->nowned, sizeof(*r->owned));
	r->owned[r->nowned++] = s;
	return s;
}

void boot_record_release(struct boot_record *r)
{
	free(r->metrics), free(r->tests), free(r->abis), free(r->events), free(r->cases);
	free(r->profiles), free(r->uncounted);
	for (size_t i = 0; i < r->nowned; i++)
		free(r->owned[i]);
	free(r->owned);
	boot_record_init(r);
}

/* --- the side ------------------------------------------------------------ */

/* FNV-1a over the three strings, each with its NUL. */
static size_t triple_hash(const char *const key[3])
{
	uint64_t h = 14695981039346656037ull;
	for (int k = 0; k < 3; k++)
		for (const unsigned char *p = (const unsigned char *)key[k];; p++) {
			h = (h ^ *p) * 1099511628211ull;
			if (!*p)
				break;
		}
	return (size_t)h;
}

size_t triple_index_find(const struct triple_index *x, const char *const key[3], triple_get get,
			 const void *ctx)
{
	if (!x->cap)
		return SIZE_MAX;
	for (size_t at = triple_hash(key) & (x->cap - 1);; at = (at + 1) & (x->cap - 1)) {
		if (!x->slot[at])
			return SIZE_MAX;
		const char *have[3];
		get(ctx, x->slot[at] - 1, have);
		if (!strcmp(have[0], key[0]) && !strcmp(have[1], key[1]) && !strcmp(have[2], key[2]))
			return x->slot[at] - 1;
	}
}

/* Puts entry i in its slot (there is room). */
static void triple_place(struct triple_index *x, size_t i, triple_get get, const void *ctx)
{
	const char *key[3];
	get(ctx, i, key);
	size_t at = triple_hash(key) & (x->cap - 1);
	while (x->slot[at])
		at = (at + 1) & (x->cap - 1);
	x->slot[at] = i + 1;
}

void triple_index_add(struct triple_index *x, size_t i, triple_get get, const void *ctx)
{
	if (2 * (x->n + 1) > x->cap) {
		struct triple_index old = *x;
		x->cap = old.cap ? 2 * old.cap : 64;
		x->slot = xcalloc(x->cap, sizeof(*x->slot));
		for (size_t k = 0; k < old.cap; k++)
			if (old.slot[k])
				triple_place(x, old.slot[k] - 1, get, ctx);
		free(old.slot);
	}
	triple_place(x, i, get, ctx);
	x->n++;
}

void triple_index_free(struct triple_index *x)
{
	free(x->slot);
	*x = (struct triple_index){ 0 };
}

/* triple_get over a side's metrics. */
static void series_key(const void *ctx, size_t i, const char *key[3])
{
	const struct metric_series *m = &((const struct side *)ctx)->metrics[i];
	key[0] = m->abi, key[1] = m->test, key[2] = m->name;
}

/* The side's series for (abi, test, name), or NULL. */
static struct metric_series *find_series(struct side *s, const char *abi,
					 const char *test, const char *name)
{
	const char *key[3] = { abi, test, name };
	size_t i = triple_index_find(&s->metric_index, key, series_key, s);
	return i == SIZE_MAX ? NULL : &s->metrics[i];
}

const struct metric_series *side_metric(const struct side *side, const char *abi,
					const char *test, const char *name)
{
	return find_series((struct side *)side, abi, test, name);
}

/* One counted boot's observation of a metric into its series (made if new);
 * fail: the boot is a FAIL one (struct side .include_fail). */
static void side_add_observation(struct side *s, const struct side_observation *o, bool fail)
{
	struct metric_series *ser = find_series(s, o->abi, o->test, o->name);
	if (!ser) {
		if (!(s->nmetrics & (s->nmetrics - 1)))         /* 0, 1, 2, 4...: doubled */
			s->metrics = xrealloc(s->metrics, (s->nmetrics ? 2 * s->nmetrics : 1) *
					      sizeof(*s->metrics));
		ser = &s->metrics[s->nmetrics++];
		*ser = (struct metric_series){
			.abi = xstrdup(o->abi), .test = xstrdup(o->test), .name = xstrdup(o->name),
			.unit = xstrdup(o->unit), .higher_better = o->higher_better,
			.ci_max = NAN, .ci_target = NAN, .test_s = NAN,
		};
		triple_index_add(&s->metric_index, s->nmetrics - 1, series_key, s);
	}
	ser->samples += o->samples;
	if (isfinite(o->ci) && o->ci >= 0 && !(o->ci <= ser->ci_max))
		ser->ci_max = o->ci;
	if (isfinite(o->ci_target))
		ser->ci_target = o->ci_target;
	ser->unmet += o->stop_max;
	if (ser->n == ser->alloc) {
		ser->alloc = ser->alloc ? 2 * ser->alloc : 8;
		ser->obs = xrealloc(ser->obs, ser->alloc * sizeof(*ser->obs));
	}
	ser->obs[ser->n++] = o->obs;
	ser->nfail += fail;
}

/* One boot's status of an ABI ("ok", "unsupported", else an error). */
static void side_add_abi(struct side *s, const char *name, const char *status, const char *reason)
{
	struct abi_count *c = NULL;
	for (size_t i = 0; i < s->nabis && !c; i++)
		if (!strcmp(s->abis[i].abi, name))
			c = &s->abis[i];
	if (!c) {
		s->abis = xrealloc(s->abis, (s->nabis + 1) * sizeof(*s->abis));
		c = &s->abis[s->nabis++];
		*c = (struct abi_count){ .abi = xstrdup(name) };
	}
	if (!strcmp(status, "ok"))
		c->ok++;
	else if (!strcmp(status, "unsupported"))
		c->unsupported++;
	else
		c->error++;
	if (strcmp(status, "ok") && reason && *reason && !c->reason)
		c->reason = xstrdup(reason);
}


/* One event of boot (an index into boots). */
static void side_add_event(struct side *s, const char *kind, const char *title, size_t boot)
{
	s->events = xrealloc(s->events, (s->nevents + 1) * sizeof(*s->events));
	s->events[s->nevents++] = (struct event_info){
		.kind = xstrdup(kind), .title = xstrdup(title), .boot = boot,
	};
}


/* One KTAP case of boot (an index into boots). */
static void side_add_case(struct side *s, const char *suite, const char *name, const char *status,
		   size_t boot)
{
	s->cases = xrealloc(s->cases, (s->ncases + 1) * sizeof(*s->cases));
	s->cases[s->ncases++] = (struct ktap_case_info){
		.suite = xstrdup(suite), .name = xstrdup(name), .status = xstrdup(status), .boot = boot,
	};
}


/* The start of stage (result_stage_names' index) in one counted boot. */
static void side_add_stage(struct side *s, int stage, double t)
{
	s->stages[stage] = xrealloc(s->stages[stage], (s->nstages[stage] + 1) * sizeof(double));
	s->stages[stage][s->nstages[stage]++] = t;
}


/* One counted boot's guest test time (ms) into the series that test measured. */
static void side_add_test_time(struct side *s, const char *abi, const char *test, double ms)
{
	if (!isfinite(ms) || ms < 0)
		return;
	for (size_t k = 0; k < s->nmetrics; k++) {
		struct metric_series *m = &s->metrics[k];
		if (!strcmp(m->abi, abi) && !strcmp(m->test, test))
			m->test_s = (isnan(m->test_s) ? 0 : m->test_s) + ms / 1000;
	}
}

/* --- profiles ------------------------------------------------------------ */

/* triple_get over a side's profiles, a profile's functions and its stacks. */
static void profile_key(const void *ctx, size_t i, const char *key[3])
{
	const struct profile_series *p = &((const struct side *)ctx)->profiles[i];
	key[0] = p->abi, key[1] = p->test, key[2] = p->name;
}

static void fn_key(const void *ctx, size_t i, const char *key[3])
{
	key[0] = ((const struct profile_series *)ctx)->fns[i].name, key[1] = key[2] = "";
}

static void stack_key(const void *ctx, size_t i, const char *key[3])
{
	key[0] = ((const struct profile_series *)ctx)->stacks[i].stack, key[1] = key[2] = "";
}

const struct profile_series *side_profile(const struct side *side, const char *abi,
					  const char *test, const char *name)
{
	const char *key[3] = { abi, test, name };
	size_t i = triple_index_find(&side->profile_index, key, profile_key, side);
	return i == SIZE_MAX ? NULL : &side->profiles[i];
}

const struct profile_fn_series *profile_fn(const struct profile_series *p, const char *fn)
{
	const char *key[3] = { fn, "", "" };
	size_t i = triple_index_find(&p->fn_index, key, fn_key, p);
	return i == SIZE_MAX ? NULL : &p->fns[i];
}

static int cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x < y) - (x > y);
}

double boot_profile_cut(const struct boot_profile *p, bool children)
{
	double cut = children ? p->cut_children : p->cut_self;
	if (isfinite(cut) && cut >= 0)
		return cut;
	if (p->nfns < PROFILE_LISTED)
		return 0;
	double *v = xcalloc(p->nfns, sizeof(*v));
	for (size_t i = 0; i < p->nfns; i++)
		v[i] = children ? p->fns[i].children : p->fns[i].self;
	qsort(v, p->nfns, sizeof(*v), cmp_desc);
	cut = v[PROFILE_LISTED / 2 - 2];
	free(v);
	return isfinite(cut) && cut > 0 ? cut : 0;
}

size_t profile_fn_values(const struct profile_series *p, const struct profile_fn_series *f,
			 bool children, double at, double *out)
{
	size_t below = 0;
	for (size_t i = 0; i < p->nboots; i++) {
		double v = f && i < f->n ? (children ? f->children : f->self)[i] : NAN;
		double cut = p->cut[children][i];
		if (isnan(v)) {
			v = at * cut;
			below += cut > 0;
		}
		out[i] = v;
	}
	return below;
}

/* One function's shares in boot k (0-based) of profile p: the boots since
 * the function's last entry are not listed (NAN). */
static void profile_add_fn(struct profile_series *p, const struct boot_profile_fn *bf, size_t k)
{
	struct profile_fn_series *f = (struct profile_fn_series *)profile_fn(p, bf->name);
	if (!f) {
		p->fns = grow(p->fns, p->nfns, sizeof(*p->fns));
		f = &p->fns[p->nfns++];
		*f = (struct profile_fn_series){ .name = xstrdup(bf->name) };
		triple_index_add(&p->fn_index, p->nfns - 1, fn_key, p);
	}
	if (k + 1 > f->alloc) {
		f->alloc = f->alloc ? 2 * f->alloc : 8;
		if (f->alloc < k + 1)
			f->alloc = k + 1;
		f->self = xrealloc(f->self, f->alloc * sizeof(*f->self));
		f->children = xrealloc(f->children, f->alloc * sizeof(*f->children));
	}
	for (; f->n < k + 1; f->n++)
		f->self[f->n] = f->children[f->n] = NAN;
	f->self[k] = bf->self, f->children[k] = bf->children;
}

/* One counted boot's profile of a metric into the side (its series made if new). */
static void side_add_profile(struct side *s, const struct boot_profile *bp)
{
	struct profile_series *p = (struct profile_series *)side_profile(s, bp->abi, bp->test,
									 bp->name);
	if (!p) {
		s->profiles = grow(s->profiles, s->nprofiles, sizeof(*s->profiles));
		p = &s->profiles[s->nprofiles++];
		*p = (struct profile_series){
			.abi = xstrdup(bp->abi), .test = xstrdup(bp->test), .name = xstrdup(bp->name),
			.event = xstrdup(bp->event ? bp->event : ""),
		};
		triple_index_add(&s->profile_index, s->nprofiles - 1, profile_key, s);
	}
	size_t k = p->nboots++;
	for (int c = 0; c < 2; c++) {
		p->cut[c] = xrealloc(p->cut[c], p->nboots * sizeof(*p->cut[c]));
		p->cut[c][k] = boot_profile_cut(bp, c);
	}
	p->samples += isfinite(bp->samples) ? bp->samples : 0;
	p->lost += isfinite(bp->lost) ? bp->lost : 0;
	p->stacks_other += isfinite(bp->stacks_other) ? bp->stacks_other : 0;
	for (size_t i = 0; i < bp->nfns; i++)
		profile_add_fn(p, &bp->fns[i], k);
	for (size_t i = 0; i < bp->nstacks; i++) {
		const char *key[3] = { bp->stacks[i].stack, "", "" };
		size_t at = triple_index_find(&p->stack_index, key, stack_key, p);
		if (at == SIZE_MAX) {
			p->stacks = grow(p->stacks, p->nstacks, sizeof(*p->stacks));
			p->stacks[p->nstacks++] = (struct profile_stack_sum){ xstrdup(key[0]), 0 };
			at = p->nstacks - 1;
			triple_index_add(&p->stack_index, at, stack_key, p);
		}
		if (isfinite(bp->stacks[i].samples))
			p->stacks[at].samples += bp->stacks[i].samples;
	}
}

static void profile_series_free(struct profile_series *p)
{
	for (size_t i = 0; i < p->nfns; i++)
		free(p->fns[i].name), free(p->fns[i].self), free(p->fns[i].children);
	for (size_t i = 0; i < p->nstacks; i++)
		free(p->stacks[i].stack);
	triple_index_free(&p->fn_index), triple_index_free(&p->stack_index);
	free(p->fns), free(p->stacks), free(p->abi), free(p->test), free(p->name), free(p->event);
	free(p->cut[0]), free(p->cut[1]);
}

bool side_values(const struct side *side, const char *id, double **obs, size_t *n,
		 const char **unit, bool *higher_better)
{
	static const char *const kinds[] = { ":self.", ":children." };
	*obs = NULL, *n = 0;
	for (size_t i = 0; i < side->nmetrics; i++) {
		const struct metric_series *m = &side->metrics[i];
		char *mid = xasprintf("%s.%s.%s", m->abi, m->test, m->name);
		bool same = !strcmp(mid, id);
		free(mid);
		if (same) {
			*obs = xcalloc(m->n + 1, sizeof(**obs));
			memcpy(*obs, m->obs, m->n * sizeof(**obs));
			*n = m->n, *unit = m->unit, *higher_better = m->higher_better;
			return true;
		}
	}
	for (size_t i = 0; i < side->nprofiles; i++) {
		const struct profile_series *p = &side->profiles[i];
		char *mid = xasprintf("%s.%s.%s", p->abi, p->test, p->name);
		size_t len = strlen(mid);
		bool same = !strncmp(mid, id, len);
		free(mid);
		for (int k = 0; same && k < 2; k++) {
			size_t kl = strlen(kinds[k]);
			if (strncmp(id + len, kinds[k], kl))
				continue;
			const struct profile_fn_series *f = profile_fn(p, id + len + kl);
			if (!f)
				return false;
			*obs = xcalloc(p->nboots + 1, sizeof(**obs));
			profile_fn_values(p, f, k == 1, 0.5, *obs);
			*n = p->nboots, *unit = "%", *higher_better = false;
			return true;
		}
	}
	return false;
}

/* The judge's FAIL reasons that are not the metrics' own (judge/judge.c
 * decide(), judge/ktap.c): a reason's start, and what the reports call it. */
static const struct {
	const char *prefix, *cause;
} fail_causes[] = {
	{ "KUnit case ", "KTAP case failed" },
	{ "KUnit suite ", "KTAP case failed" },
	{ "KTAP: ", "KTAP problem" },          /* its structure broken */
	{ "kernel reported: ", "kernel report" },
	{ "init error: ", "init error" },
};

const char *boot_fail_cause(const struct boot_record *r)
{
	if (strcmp(r->verdict, "FAIL"))
		return NULL;
	for (size_t i = 0; i < r->ntests; i++)
		if (r->tests[i].status && strcmp(r->tests[i].status, "PASS"))
			return NULL;    /* a benchmark failed: its metrics' own */
	for (size_t i = 0; i < ARRAY_SIZE(fail_causes); i++)
		if (!strncmp(r->reason, fail_causes[i].prefix, strlen(fail_causes[i].prefix)))
			return fail_causes[i].cause;
	return NULL;
}

/* One boot's uncounted event into the side, once an (abi, event): the
 * first boot's reason kept. */
static void side_add_uncounted(struct side *s, const struct boot_uncounted *u)
{
	for (size_t i = 0; i < s->nuncounted; i++)
		if (!strcmp(s->uncounted[i].abi, u->abi) && !strcmp(s->uncounted[i].event, u->event))
			return;
	s->uncounted = grow(s->uncounted, s->nuncounted, sizeof(*s->uncounted));
	s->uncounted[s->nuncounted++] = (struct side_uncounted){
		xstrdup(u->abi), xstrdup(u->event), xstrdup(u->reason ? u->reason : "?") };
}

void side_add_boot(struct side *s, const struct boot_record *r)
{
	if (s->only_host && strcmp(r->host, s->only_host))
		return;         /* another host's boot */
	size_t boot = s->nboots;
	s->boots = xrealloc(s->boots, (s->nboots + 1) * sizeof(*s->boots));
	struct boot_info *b = &s->boots[s->nboots++];
	*b = (struct boot_info){
		.dir = xstrdup(r->dir), .kernel_id = xstrdup(r->kernel_id),
		.variant = xstrdup(r->variant), .verdict = xstrdup(r->verdict),
		.reason = xstrdup(r->reason), .append = xstrdup(r->append),
		.image = xstrdup(r->image), .target = xstrdup(r->target), .host = xstrdup(r->host),
		.started = r->started ? xstrdup(r->started) : NULL, .duration = r->duration,
		.seed = r->seed ? xstrdup(r->seed) : NULL,
		.boot = r->boot, .passed = !strcmp(r->verdict, "PASS"),
		.fail_cause = boot_fail_cause(r), .nmetrics = r->nmetrics,
	};
	b->counted = b->passed || (b->fail_cause && s->include_fail);
	s->npass += b->passed;
	s->nfail_included += b->counted && !b->passed;
	s->nfail_left += b->fail_cause && !b->counted && r->nmetrics;
	if (b->counted) {
		for (size_t i = 0; i < r->nmetrics; i++)
			side_add_observation(s, &r->metrics[i], !b->passed);
		for (size_t i = 0; i < r->ntests; i++)
			side_add_test_time(s, r->tests[i].abi, r->tests[i].test, r->tests[i].ms);
		for (int i = 0; i < RESULT_STAGES; i++)
			if (!isnan(r->stages[i]))
				side_add_stage(s, i, r->stages[i]);
		for (size_t i = 0; i < r->nprofiles; i++)
			side_add_profile(s, &r->profiles[i]);
		for (size_t i = 0; i < r->nuncounted; i++)
			side_add_uncounted(s, &r->uncounted[i]);
	}
	if (!strcmp(r->verdict, "INFRA_ERROR"))
		s->ninfra++;
	for (size_t i = 0; i < r->nabis; i++)
		side_add_abi(s, r->abis[i].name, r->abis[i].status, r->abis[i].reason);
	for (size_t i = 0; i < r->nevents; i++)
		side_add_event(s, r->events[i].kind, r->events[i].title, boot);
	for (size_t i = 0; i < r->ncases; i++)
		side_add_case(s, r->cases[i].suite, r->cases[i].name, r->cases[i].status, boot);
}

int side_check_alike(const struct side *s)
{
	for (size_t i = 0; i < s->nboots; i++) {
		const struct boot_info *a = &s->boots[i];
		for (size_t j = i + 1; j < s->nboots; j++) {
			const struct boot_info *b = &s->boots[j];
			if (strcmp(a->kernel_id, b->kernel_id) || strcmp(a->variant, b->variant))
				continue;
			const char *what = strcmp(a->append, b->append) ? "kernel command lines"
					   : strcmp(a->image, b->image) ? "initramfs images"
					   : strcmp(a->target, b->target) ? "targets" : NULL;
			if (what)
				return error("%s: boots of %s/%s were run with different %s (%s and %s): "
					     "they are not one sample; compare them apart, or pool "
					     "them with --mixed", s->label, a->kernel_id, a->variant,
					     what, a->dir, b->dir);
		}
	}
	return 0;
}

size_t side_seeds(const struct side *side, size_t *unknown)
{
	const char **seeds = xcalloc(side->nboots + 1, sizeof(*seeds));
	size_t n = 0, distinct = 0;
	*unknown = 0;
	for (size_t i = 0; i < side->nboots; i++)
		if (side->boots[i].counted && side->boots[i].seed)
			seeds[n++] = side->boots[i].seed;
		else if (side->boots[i].counted)
			++*unknown;
	qsort(seeds, n, sizeof(*seeds), cmp_str);
	for (size_t i = 0; i < n; i++)
		distinct += !i || strcmp(seeds[i], seeds[i - 1]);
	free(seeds);
	return distinct;
}

size_t side_hosts(const struct side *side, const char **hosts, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < side->nboots; i++) {
		size_t k = 0;
		while (k < n && strcmp(hosts[k], side->boots[i].host))
			k++;
		if (k == n && n < max)
			hosts[n++] = side->boots[i].host;
	}
	return n;
}

void side_free(struct side *s)
{
	for (size_t i = 0; i < s->nboots; i++) {
		struct boot_info *b = &s->boots[i];
		free(b->dir), free(b->kernel_id), free(b->variant);
		free(b->verdict), free(b->reason);
		free(b->append), free(b->image), free(b->target), free(b->host), free(b->started);
		free(b->seed);
	}
	for (size_t i = 0; i < s->nmetrics; i++) {
		struct metric_series *m = &s->metrics[i];
		free(m->abi), free(m->test), free(m->name), free(m->unit), free(m->obs);
	}
	for (size_t i = 0; i < s->nabis; i++)
		free(s->abis[i].abi), free(s->abis[i].reason);
	for (size_t i = 0; i < s->ncases; i++)
		free(s->cases[i].suite), free(s->cases[i].name), free(s->cases[i].status);
	free(s->cases);
	for (size_t i = 0; i < s->nevents; i++)
		free(s->events[i].kind), free(s->events[i].title);
	for (int i = 0; i < RESULT_STAGES; i++)
		free(s->stages[i]);
	for (size_t i = 0; i < s->nprofiles; i++)
		profile_series_free(&s->profiles[i]);
	free(s->profiles);
	for (size_t i = 0; i < s->nuncounted; i++)
		free(s->uncounted[i].abi), free(s->uncounted[i].event), free(s->uncounted[i].reason);
	free(s->uncounted);
	triple_index_free(&s->metric_index), triple_index_free(&s->profile_index);
	free(s->boots), free(s->metrics), free(s->abis), free(s->events), free(s->label);
	*s = (struct side){ 0 };
}

const char *abi_status(const struct side *side, const char *abi)
{
	for (size_t i = 0; i < side->nabis; i++) {
		const struct abi_count *c = &side->abis[i];
		if (strcmp(c->abi, abi))
			continue;
		int kinds = !!c->ok + !!c->unsupported + !!c->error;
		if (kinds > 1)
			return "mixed";
		return c->ok ? "ok" : c->unsupported ? "unsupported" : "error";
	}
	return "-";
}

bool event_is_kernel_failure(const char *kind)
{
	return strcmp(kind, "protocol") && strcmp(kind, "infra") && strcmp(kind, "truncated");
}
