/*
 * flame.c: the differential flame graph (see flame.h): both sides' folded
 * stacks merged into one tree of frame paths, each node with its samples
 * on either side, then drawn top down.
 */
#include "compare.h"
#include "flame.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct node {
	const char *name;       /* into the tree's copies of the stacks */
	size_t first, next;     /* first child, next sibling: index + 1, 0 none */
	double samples[2];      /* BASE's, the candidate's */
};

struct tree {
	struct node *v;
	size_t n;
	char **copies;          /* the stacks, split in place */
	size_t ncopies;
	double total[2];        /* each side's samples */
	int depth;              /* the deepest frame's level + 1 */
};

/* The child of node parent (index + 1; 0: the root level) named name: made if new. */
static size_t child(struct tree *t, size_t parent, const char *name)
{
	size_t *link = parent ? &t->v[parent - 1].first : &t->v[0].next;
	for (size_t k = *link; k; k = t->v[k - 1].next) {
		if (!strcmp(t->v[k - 1].name, name))
			return k;
		link = &t->v[k - 1].next;
	}
	if (!(t->n & (t->n - 1)))
		t->v = xrealloc(t->v, (t->n ? 2 * t->n : 1) * sizeof(*t->v));
	t->v[t->n++] = (struct node){ name, 0, 0, { 0, 0 } };
	/* t->v moved: find the link again (it is the last sibling's, or the parent's). */
	link = parent ? &t->v[parent - 1].first : &t->v[0].next;
	while (*link)
		link = &t->v[*link - 1].next;
	*link = t->n;
	return t->n;
}

/* Side's pooled stacks into the tree. */
static void add_side(struct tree *t, const struct profile_series *p, int side)
{
	double sum = 0;
	for (size_t i = 0; i < p->nstacks; i++) {
		char *copy = xstrdup(p->stacks[i].stack);
		t->copies = xrealloc(t->copies, (t->ncopies + 1) * sizeof(*t->copies));
		t->copies[t->ncopies++] = copy;
		size_t at = 0;
		int level = 0;
		for (char *save, *f = strtok_r(copy, ";", &save); f; f = strtok_r(NULL, ";", &save)) {
			at = child(t, at, f);
			t->v[at - 1].samples[side] += p->stacks[i].samples;
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

/* The children of parent (index + 1; 0: roots) in name order, malloc'd, into *n. */
static const struct node **sorted_children(const struct tree *t, size_t parent, size_t *n)
{
	size_t first = parent ? t->v[parent - 1].first : t->v[0].next;
	const struct node **k = NULL;
	*n = 0;
	for (size_t i = first; i; i = t->v[i - 1].next) {
		k = xrealloc(k, (*n + 1) * sizeof(*k));
		k[(*n)++] = &t->v[i - 1];
	}
	if (*n)
		qsort(k, *n, sizeof(*k), cmp_name);
	return k;
}

/* Draws the children of parent from x, at level, and below them. */
static void draw(FILE *out, const struct tree *t, size_t parent, double x, int level, const char *id,
		 size_t *clip)
{
	size_t n;
	const struct node **kids = sorted_children(t, parent, &n);
	for (size_t i = 0; i < n; i++) {
		const struct node *nd = kids[i];
		double base = t->total[0] > 0 ? nd->samples[0] / t->total[0] * 100 : 0;
		double cand = t->total[1] > 0 ? nd->samples[1] / t->total[1] * 100 : 0;
		double w = cand / 100 * FLAME_W, y = 4 + level * FLAME_FRAME_H;
		if (w <= 0)
			continue;
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
			if (len > room)     /* the box's worth, on a character boundary */
				for (label[room] = '\0'; room && (label[room] & 0xc0) == 0x80;)
					label[--room] = '\0';
			fprintf(out, "<clipPath id=\"%s-%zu\"><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				"height=\"%d\"/></clipPath><text x=\"%.2f\" y=\"%.2f\" fill=\"#111111\" "
				"clip-path=\"url(#%s-%zu)\">", id, k, x, y, w, FLAME_FRAME_H - 1, x + 3,
				y + FLAME_FRAME_H - 4, id, k);
			xml_escape(out, label);
			fputs("</text>", out);
			free(label);
		}
		fputs("</g>\n", out);
		draw(out, t, (size_t)(nd - t->v) + 1, x, level + 1, id, clip);
		x += w;
	}
	free((void *)kids);
}

void flame_svg(FILE *out, const struct profile_series *base, const struct profile_series *cand,
	       const char *id)
{
	/* v[0] is a sentinel whose .next heads the root level. */
	struct tree t = { .v = xcalloc(1, sizeof(struct node)), .n = 1 };
	add_side(&t, base, 0);
	add_side(&t, cand, 1);
	int h = 8 + (t.depth ? t.depth : 1) * FLAME_FRAME_H;
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"flame\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n", FLAME_W, h, FLAME_W, h);
	size_t clip = 0;
	draw(out, &t, 0, 0, 0, id, &clip);
	if (!t.depth)
		fputs("<text x=\"4\" y=\"16\">no stacks</text>\n", out);
	fputs("</svg>\n", out);
	for (size_t i = 0; i < t.ncopies; i++)
		free(t.copies[i]);
	free(t.copies), free(t.v);
}
