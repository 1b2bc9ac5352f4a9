/*
 * fold.c: the profile's aggregate and its records (fold.h has the
 * contract): a hash of folded stacks, self and children counts per
 * function, the bounded selection and the lines.
 */
#include "fold.h"

long fold_init(struct fold *f, uint32_t nids, uint32_t max_stacks, uint32_t arena_frames)
{
	uint32_t cap = 16;
	size_t size;
	char *p;

	memset(f, 0, sizeof(*f));
	while (cap < 2 * max_stacks)
		cap *= 2;
	size = (size_t)nids * 3 * sizeof(uint32_t) + (size_t)cap * sizeof(struct fold_stack) +
	       (size_t)arena_frames * sizeof(uint32_t);
	p = rt_alloc_pages(size);
	if (!p)
		return -ENOMEM;
	f->mem = p;
	f->mem_size = size;
	f->nids = nids;
	f->stacks = (struct fold_stack *)p;
	p += (size_t)cap * sizeof(struct fold_stack);
	f->self = (uint32_t *)p;
	f->children = f->self + nids;
	f->stamp = f->children + nids;
	f->arena = f->stamp + nids;
	f->cap = cap;
	f->arena_cap = arena_frames;
	return 0;
}

void fold_free(struct fold *f)
{
	rt_free_pages(f->mem, f->mem_size);
	memset(f, 0, sizeof(*f));
}

void fold_add(struct fold *f, const uint32_t *ids, uint32_t n, uint32_t count)
{
	uint32_t h = 2166136261u, i;

	f->samples += count;
	f->self[ids[n - 1]] += count;
	f->stamp_now++;
	for (i = 0; i < n; i++) {
		if (f->stamp[ids[i]] != f->stamp_now) {
			f->stamp[ids[i]] = f->stamp_now;
			f->children[ids[i]] += count;
		}
		h = (h ^ ids[i]) * 16777619u;
	}
	for (i = h & (f->cap - 1);; i = (i + 1) & (f->cap - 1)) {
		struct fold_stack *s = &f->stacks[i];
		if (s->len == 0)
			break;
		if (s->hash == h && s->len == n && memcmp(f->arena + s->off, ids, n * sizeof(*ids)) == 0) {
			s->count += count;
			return;
		}
	}
	if (2 * (f->nstacks + 1) > f->cap || n > f->arena_cap - f->arena_len) {
		f->unstored += count;
		return;
	}
	f->stacks[i] = (struct fold_stack){ h, f->arena_len, n, count, f->nstacks++ };
	memcpy(f->arena + f->arena_len, ids, n * sizeof(*ids));
	f->arena_len += n;
}

size_t fold_escaped_len(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += (*s >= 0x21 && *s <= 0x7e && *s != '%') ? 1 : 3;
	return n;
}

/* Orders: a before b (< 0) or after (> 0), never equal for distinct a, b. */
typedef int (*order_fn)(const void *ctx, uint32_t a, uint32_t b);

static int by_children(const void *ctx, uint32_t a, uint32_t b)
{
	const struct fold *f = ctx;
	if (f->children[a] != f->children[b])
		return f->children[a] > f->children[b] ? -1 : 1;
	if (f->self[a] != f->self[b])
		return f->self[a] > f->self[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

static int by_self(const void *ctx, uint32_t a, uint32_t b)
{
	const struct fold *f = ctx;
	if (f->self[a] != f->self[b])
		return f->self[a] > f->self[b] ? -1 : 1;
	return by_children(ctx, a, b);
}

/* a and b are slots of the stack table. */
static int by_count(const void *ctx, uint32_t a, uint32_t b)
{
	const struct fold *f = ctx;
	const struct fold_stack *x = &f->stacks[a], *y = &f->stacks[b];
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Heap sort of v[0..n-1] by order. */
static void sift(uint32_t *v, uint32_t i, uint32_t n, order_fn order, const void *ctx)
{
	for (;;) {
		uint32_t last = i, l = 2 * i + 1, r = l + 1;
		if (l < n && order(ctx, v[l], v[last]) > 0)
			last = l;
		if (r < n && order(ctx, v[r], v[last]) > 0)
			last = r;
		if (last == i)
			return;
		uint32_t tmp = v[i];
		v[i] = v[last];
		v[last] = tmp;
		i = last;
	}
}

static void sort_ids(uint32_t *v, uint32_t n, order_fn order, const void *ctx)
{
	for (uint32_t i = n / 2; i-- > 0;)
		sift(v, i, n, order, ctx);
	for (uint32_t end = n; end-- > 1;) {
		uint32_t tmp = v[0];
		v[0] = v[end];
		v[end] = tmp;
		sift(v, 0, end, order, ctx);
	}
}

/* Adds id to chosen[0..*n-1] unless it is there already. */
static void choose(uint32_t *chosen, uint32_t *n, uint32_t id)
{
	for (uint32_t i = 0; i < *n; i++)
		if (chosen[i] == id)
			return;
	chosen[(*n)++] = id;
}

/* The PSTACK line of slot s into line (size RT_PRINTF_MAX); its length. */
static size_t stack_line(const struct fold *f, const struct fold_head *h, const struct fold_stack *s,
			 fold_name_fn name, void *name_ctx, char *line)
{
	char buf[512];
	const uint32_t *ids = f->arena + s->off;
	int len = rt_snprintf(line, RT_PRINTF_MAX, "PSTACK abi=%s test=%s name=%s n=%u stack=", h->abi,
			      h->test, h->name, s->count);
	size_t budget = FOLD_LINE_MAX - 1, used = 0, pos = (size_t)len;
	uint32_t start = s->len;

	line[pos] = '\0';
	budget = fold_escaped_len(line) + 1 >= budget ? 0 : budget - fold_escaped_len(line) - 1;
	/* From the leaf towards the root while the frames fit, leaving room
	 * for the "...;" that stands for the frames that do not. */
	while (start > 0) {
		size_t need = fold_escaped_len(name(name_ctx, ids[start - 1], buf, sizeof(buf))) +
			      (start < s->len ? 1 : 0);
		size_t reserve = start > 1 ? 4 : 0;
		if (used + need + reserve > budget && start < s->len)
			break;
		used += need;
		start--;
	}
	if (start > 0)
		pos += (size_t)rt_snprintf(line + pos, RT_PRINTF_MAX - pos, "...;");
	for (uint32_t i = start; i < s->len && pos < RT_PRINTF_MAX - 1; i++)
		pos += (size_t)rt_snprintf(line + pos, RT_PRINTF_MAX - pos, "%s%s", i > start ? ";" : "",
					   name(name_ctx, ids[i], buf, sizeof(buf)));
	if (pos > RT_PRINTF_MAX - 2)
		pos = RT_PRINTF_MAX - 2;
	line[pos++] = '\n';
	return pos;
}

long fold_emit(const struct fold *f, const struct fold_head *h, fold_name_fn name, void *name_ctx,
	       fold_out_fn out, void *out_ctx)
{
	static char line[RT_PRINTF_MAX];
	char buf[512];
	uint32_t nfun = 0, nchosen = 0, nslots = 0, kept, other, is = 0, ic = 0, nself;
	uint32_t cut_self = 0, cut_children = 0;
	uint32_t chosen[FOLD_MAX_FUNCS];
	size_t size = ((size_t)f->nids * 2 + f->nstacks + 1) * sizeof(uint32_t);
	uint32_t *byc = rt_alloc_pages(size), *bys, *slots;
	int len;

	if (!byc)
		return -ENOMEM;
	bys = byc + f->nids;
	slots = bys + f->nids;
	for (uint32_t id = 0; id < f->nids; id++)
		if (f->children[id])
			byc[nfun++] = id;
	memcpy(bys, byc, nfun * sizeof(*bys));
	sort_ids(byc, nfun, by_children, f);
	sort_ids(bys, nfun, by_self, f);
	for (nself = 0; nself < nfun && f->self[bys[nself]]; nself++)
		;
	while (nchosen < FOLD_MAX_FUNCS && (is < nself || ic < nfun)) {
		if (is < nself)
			choose(chosen, &nchosen, bys[is++]);
		if (ic < nfun && nchosen < FOLD_MAX_FUNCS)
			choose(chosen, &nchosen, byc[ic++]);
	}
	sort_ids(chosen, nchosen, by_children, f);
	/* The cut: the largest self and children count of a function not
	 * chosen (0 when every one is), so that a reader knows a function the
	 * list lacks is below them, not absent. */
	for (uint32_t i = 0; i < nfun; i++) {
		uint32_t id = byc[i], k = 0;
		while (k < nchosen && chosen[k] != id)
			k++;
		if (k < nchosen)
			continue;
		if (f->self[id] > cut_self)
			cut_self = f->self[id];
		if (f->children[id] > cut_children)
			cut_children = f->children[id];
	}

	for (uint32_t i = 0; i < f->cap; i++)
		if (f->stacks[i].len)
			slots[nslots++] = i;
	sort_ids(slots, nslots, by_count, f);
	kept = nslots < FOLD_MAX_STACKS ? nslots : FOLD_MAX_STACKS;
	other = f->samples;
	for (uint32_t i = 0; i < kept; i++)
		other -= f->stacks[slots[i]].count;

	len = rt_snprintf(line, sizeof(line),
			  "PROFILE abi=%s test=%s name=%s event=%s period_ns=%llu samples=%u lost=%llu "
			  "functions=%u stacks=%u stacks_other=%u interrupt=%llu cut_self=%u cut_children=%u\n",
			  h->abi, h->test, h->name, h->event, (unsigned long long)h->period_ns, f->samples,
			  (unsigned long long)h->lost, nchosen, kept, other, (unsigned long long)h->interrupt,
			  cut_self, cut_children);
	out(out_ctx, line, (size_t)len);
	for (uint32_t i = 0; i < nchosen; i++) {
		len = rt_snprintf(line, sizeof(line), "PFUNC abi=%s test=%s name=%s fn=%s self=%u children=%u\n",
				  h->abi, h->test, h->name, name(name_ctx, chosen[i], buf, sizeof(buf)),
				  f->self[chosen[i]], f->children[chosen[i]]);
		out(out_ctx, line, (size_t)len < sizeof(line) ? (size_t)len : sizeof(line) - 1);
	}
	for (uint32_t i = 0; i < kept; i++)
		out(out_ctx, line, stack_line(f, h, &f->stacks[slots[i]], name, name_ctx, line));
	rt_free_pages(byc, size);
	return 0;
}

size_t fold_ring_record(const uint8_t *data, uint64_t size, uint64_t tail, uint64_t head, uint8_t *rec,
			size_t rec_size)
{
	uint64_t off = tail & (size - 1), first;
	uint16_t len;

	if (head - tail < 8 || rec_size < 8)
		return 0;
	first = size - off < 8 ? size - off : 8;
	memcpy(rec, data + off, (size_t)first);
	memcpy(rec + first, data, (size_t)(8 - first));
	memcpy(&len, rec + 6, 2);
	if (len < 8 || len > head - tail || len > rec_size)
		return 0;
	first = size - off < len ? size - off : len;
	memcpy(rec, data + off, (size_t)first);
	memcpy(rec + first, data, (size_t)(len - first));
	return len;
}

bool fold_parse_sample(const uint8_t *rec, size_t len, struct fold_sample *s)
{
	uint64_t nr, ctx = 0;
	uint16_t misc;

	if (len < 32)
		return false;
	memcpy(&misc, rec + 4, 2);
	memcpy(&s->ip, rec + 8, 8);
	memcpy(&s->pid, rec + 16, 4);
	memcpy(&s->tid, rec + 20, 4);
	memcpy(&nr, rec + 24, 8);
	s->nk = s->nu = 0;
	if (nr > (len - 32) / 8)
		nr = (len - 32) / 8;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t a;
		memcpy(&a, rec + 32 + 8 * i, 8);
		if (a >= PERF_CONTEXT_MAX) {
			ctx = a;
			continue;
		}
		/* A return address is past its call: look up the call. */
		if (ctx == PERF_CONTEXT_KERNEL && s->nk < FOLD_DEPTH)
			s->kf[s->nk] = s->nk ? a - 1 : a, s->nk++;
		else if (ctx == PERF_CONTEXT_USER && s->nu < FOLD_DEPTH)
			s->uf[s->nu] = s->nu ? a - 1 : a, s->nu++;
	}
	if (!s->nk && !s->nu) {
		if ((misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
			s->kf[s->nk++] = s->ip;
		else
			s->uf[s->nu++] = s->ip;
	}
	return true;
}
