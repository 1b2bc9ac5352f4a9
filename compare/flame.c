/*
 * flame.c: the differential flame graph (see flame.h): both sides' folded
 * stacks merged into one tree of frame paths, each node with its samples
 * on either side, then drawn top down.
 *
 * Bounded for any input: a node's child is found through a hash index of
 * (parent, name), so building is linear in the frames read; a stack is
 * read to FLAME_MAX_DEPTH levels (its deeper frames stay in the last one
 * read); drawing walks the tree with a stack of its own, not recursion,
 * and draws at most FLAME_MAX_FRAMES frames, none narrower than
 * FLAME_MIN_W. What is left out is in its caller's width, and said under
 * the graph.
 */
#include "compare.h"
#include "flame.h"
#include "util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Nodes are indices into tree.v; v[0] is a sentinel, the parent of the
 * roots, so 0 is "none" for first and next. */
struct node {
	const char *name;       /* into the tree's copies of the stacks */
	size_t parent;
	size_t first, next;     /* first child, next sibling */
	size_t nkids;
	double samples[2];      /* BASE's, the candidate's */
};

struct tree {
	struct node *v;
	size_t n;
	size_t *slot;           /* the index of (parent, name): a node, 0 empty */
	size_t nslots;          /* a power of 2, at least twice n */
	char **copies;          /* the stacks, split in place */
	size_t ncopies;
	double total[2];        /* each side's samples */
	int depth;              /* the deepest frame's level + 1 */
	size_t cut;             /* stacks read to FLAME_MAX_DEPTH levels only */
};

/* The index slot of (parent, name): the node's, or the empty one it would take. */
static size_t slot_of(const struct tree *t, size_t parent, const char *name)
{
	uint64_t h = 1469598103934665603ull ^ parent;
	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		h = (h ^ *c) * 1099511628211ull;
	size_t i = (size_t)(h ^ (h >> 29)) & (t->nslots - 1);
	for (; t->slot[i]; i = (i + 1) & (t->nslots - 1)) {
		const struct node *nd = &t->v[t->slot[i]];
		if (nd->parent == parent && !strcmp(nd->name, name))
			break;
	}
	return i;
}

/* The child of node parent named name: made if new. */
static size_t child(struct tree *t, size_t parent, const char *name)
{
	size_t s = slot_of(t, parent, name);
	if (t->slot[s])
		return t->slot[s];
	if (!(t->n & (t->n - 1)))
		t->v = xrealloc(t->v, 2 * t->n * sizeof(*t->v));
	size_t k = t->n++;
	t->v[k] = (struct node){ name, parent, 0, t->v[parent].first, 0, { 0, 0 } };
	t->v[parent].first = k;
	t->v[parent].nkids++;
	t->slot[s] = k;
	if (2 * t->n > t->nslots) {             /* grow the index, keep it half empty */
		free(t->slot);
		t->nslots *= 2;
		t->slot = xcalloc(t->nslots, sizeof(*t->slot));
		for (size_t i = 1; i < t->n; i++)
			t->slot[slot_of(t, t->v[i].parent, t->v[i].name)] = i;
	}
	return k;
}

/* Side's pooled stacks into the tree. */
static void add_side(struct tree *t, const struct profile_series *p, int side)
{
	double sum = 0;
	t->copies = xrealloc(t->copies, (t->ncopies + p->nstacks + 1) * sizeof(*t->copies));
	for (size_t i = 0; i < p->nstacks; i++) {
		char *copy = xstrdup(p->stacks[i].stack);
		t->copies[t->ncopies++] = copy;
		size_t at = 0;
		int level = 0;
		for (char *save, *f = strtok_r(copy, ";", &save); f; f = strtok_r(NULL, ";", &save)) {
			if (level == FLAME_MAX_DEPTH) {
				t->cut++;
				break;
			}
			at = child(t, at, f);
			t->v[at].samples[side] += p->stacks[i].samples;
			if (++level > t->depth)
				t->depth = level;
		}
		sum += p->stacks[i].samples;
	}
	t->total[side] = p->samples > 0 ? p->samples : sum;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp((*(const struct node *const *)a)->name, (*(const struct node *const *)b)->name);
}

/* The children of node at in name order, malloc'd (v[at].nkids of them). */
static const struct node **sorted_children(const struct tree *t, size_t at)
{
	size_t n = 0;
	const struct node **kids = xcalloc(t->v[at].nkids + 1, sizeof(*kids));
	for (size_t i = t->v[at].first; i; i = t->v[i].next)
		kids[n++] = &t->v[i];
	qsort(kids, n, sizeof(*kids), cmp_name);
	return kids;
}

/* A node's share (%) of side's samples, 0 when it cannot be one. */
static double share(const struct tree *t, const struct node *nd, int side)
{
	double s = t->total[side] > 0 ? nd->samples[side] / t->total[side] * 100 : 0;
	return isfinite(s) && s > 0 ? (s < 100 ? s : 100) : 0;
}

/* One frame: its box, title and label, at (x, y), w wide; *clip counts the clip paths. */
static void draw_frame(FILE *out, const struct tree *t, const struct node *nd, double x, double y,
		       double w, const char *id, size_t *clip)
{
	double base = share(t, nd, 0), cand = share(t, nd, 1);
	const char *fill = cand - base > FLAME_SAME_POINTS ? FLAME_MORE_COLOUR
			   : base - cand > FLAME_SAME_POINTS ? FLAME_LESS_COLOUR
			   : FLAME_SAME_COLOUR;
	fputs("<g class=\"frame\"><title>", out);
	xml_escape(out, nd->name);
	fprintf(out, ": BASE %.2f %%, CAND %.2f %%, change %+.2f points</title>"
		"<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>",
		base, cand, cand - base, x, y, w, FLAME_FRAME_H - 1, fill);
	if (w >= 24) {
		size_t k = (*clip)++, room = (size_t)((w - 4) / 6.5), len = strlen(nd->name);
		char *label = xstrdup(nd->name);
		if (len > room) {   /* the box's worth, on a character boundary */
			while (room && ((unsigned char)label[room] & 0xc0) == 0x80)
				room--;
			label[room] = '\0';
		}
		fprintf(out, "<clipPath id=\"%s-%zu\"><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
			"height=\"%d\"/></clipPath><text x=\"%.2f\" y=\"%.2f\" fill=\"#111111\" "
			"clip-path=\"url(#%s-%zu)\">", id, k, x, y, w, FLAME_FRAME_H - 1, x + 3,
			y + FLAME_FRAME_H - 4, id, k);
		xml_escape(out, label);
		fputs("</text>", out);
		free(label);
	}
	fputs("</g>\n", out);
}

/* A level of the walk: the children of a drawn node, the next to draw, its x. */
struct level {
	const struct node **kids;
	size_t n, i;
	double x;
};

/* Draws the tree top down, depth first, siblings in name order (out NULL:
 * only counts); the frames left out (narrower than FLAME_MIN_W, past
 * FLAME_MAX_FRAMES), each with what it calls, into *skipped. */
static void draw(FILE *out, const struct tree *t, const char *id, size_t *skipped)
{
	struct level *lv = xcalloc((size_t)t->depth + 1, sizeof(*lv));
	size_t clip = 0, drawn = 0;
	int d = 0;
	lv[0] = (struct level){ sorted_children(t, 0), t->v[0].nkids, 0, 0 };
	while (d >= 0) {
		struct level *l = &lv[d];
		if (l->i == l->n) {
			free((void *)l->kids);
			d--;
			continue;
		}
		const struct node *nd = l->kids[l->i++];
		double w = share(t, nd, 1) / 100 * FLAME_W, x = l->x;
		if (w <= 0)
			continue;       /* only BASE has it */
		l->x += w;
		if (w < FLAME_MIN_W || drawn == FLAME_MAX_FRAMES) {
			(*skipped)++;
			continue;
		}
		drawn++;
		if (out)
			draw_frame(out, t, nd, x, 4 + d * FLAME_FRAME_H, w, id, &clip);
		size_t at = (size_t)(nd - t->v);
		if (t->v[at].nkids && d + 1 < t->depth)
			lv[++d] = (struct level){ sorted_children(t, at), t->v[at].nkids, 0, x };
	}
	free(lv);
}

void flame_svg(FILE *out, const struct profile_series *base, const struct profile_series *cand,
	       const char *id)
{
	struct tree t = { .v = xcalloc(1, sizeof(struct node)), .n = 1,
			  .slot = xcalloc(16, sizeof(size_t)), .nslots = 16 };
	add_side(&t, base, 0);
	add_side(&t, cand, 1);
	size_t skipped = 0;
	draw(NULL, &t, id, &skipped);
	/* What is not drawn: a line under the frames for each kind. */
	int notes = (skipped > 0) + (t.cut > 0);
	int h = 8 + (t.depth ? t.depth : 1) * FLAME_FRAME_H + notes * FLAME_FRAME_H;
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"flame\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n", FLAME_W, h, FLAME_W, h);
	size_t again = 0;
	draw(out, &t, id, &again);
	int y = h - 6 - (notes - 1) * FLAME_FRAME_H;
	if (skipped) {
		fprintf(out, "<text class=\"flame-note\" x=\"4\" y=\"%d\">%zu frames not drawn "
			"(narrower than %.1f px or past %d): in their callers' width</text>\n",
			y, skipped, FLAME_MIN_W, FLAME_MAX_FRAMES);
		y += FLAME_FRAME_H;
	}
	if (t.cut)
		fprintf(out, "<text class=\"flame-note\" x=\"4\" y=\"%d\">%zu stacks deeper than %d "
			"frames: the rest is in frame %d</text>\n", y, t.cut, FLAME_MAX_DEPTH,
			FLAME_MAX_DEPTH);
	if (!t.depth)
		fputs("<text x=\"4\" y=\"16\">no stacks</text>\n", out);
	fputs("</svg>\n", out);
	for (size_t i = 0; i < t.ncopies; i++)
		free(t.copies[i]);
	free(t.copies), free(t.v), free(t.slot);
}
