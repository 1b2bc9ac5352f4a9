/*
 * bootgraph.c: the bootgraph of compare's HTML report (see bootgraph.h):
 * per candidate, each side's initcalls in its boots' order, laid end to
 * end, the small ones grouped until the lane has few enough bars, drawn as
 * one SVG of two lanes over a time axis.
 */
#include "bootgraph.h"
#include "compare.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MARGIN_L = 48, LANE_H = 24, LANE_GAP = 6, TOP = 4, NOTE_H = 16, LABEL_MIN_W = 48 };
/* No initcall is drawn longer than this (us: 11 days), so that sums stay finite. */
#define LONGEST_US 1e12

/* One initcall of a lane. */
struct call {
	const struct metric_row *row;
	double us;              /* its median over the side's boots: finite, >= 0 */
	bool changed;           /* regressed or improved on the candidate */
};

/* One bar: an initcall, or a run of n > 1 small ones (the first's row). */
struct bar {
	const struct metric_row *row;
	double start, us;       /* from the first call, us */
	size_t n;
	bool small;             /* its calls are small: narrower than the lane's cut */
	bool changed;           /* (n == 1) the call changed on the candidate */
};

struct lane {
	size_t side;
	struct call *calls;
	size_t ncalls;
	double total;           /* us, end to end */
	struct bar *bars;
	size_t nbars;
	double min_px;          /* the grouping width the lane was drawn with */
	bool changed_grouped;   /* changed initcalls were grouped too */
};

/* A series' median, as a duration a bar can have (0 when it is none). */
static double duration(const struct metric_series *m)
{
	double med = m && m->n ? stats_median(m->obs, m->n) : 0;
	if (!(med > 0))
		return 0;
	return med < LONGEST_US ? med : LONGEST_US;
}

/* Side s's initcalls into l, in the order of the side's metrics, each
 * marked changed by its verdict on candidate cand. */
static void lane_calls(const struct comparison *c, size_t s, size_t cand, struct lane *l)
{
	const struct side *side = &c->sides[s];
	const struct metric_row **row_of = xcalloc(side->nmetrics + 1, sizeof(*row_of));
	for (size_t i = 0; i < c->nrows; i++)
		if (row_is_initcall(&c->rows[i]) && c->rows[i].stat[s].series)
			row_of[c->rows[i].stat[s].series - side->metrics] = &c->rows[i];
	*l = (struct lane){ .side = s, .calls = xcalloc(side->nmetrics + 1, sizeof(*l->calls)),
			    .bars = xcalloc(side->nmetrics + 1, sizeof(*l->bars)) };
	for (size_t k = 0; k < side->nmetrics; k++) {
		const struct metric_row *r = row_of[k];
		if (!r)
			continue;
		enum change ch = r->cmp[cand].change;
		double us = duration(r->stat[s].series);
		l->calls[l->ncalls++] = (struct call){ r, us, ch == CHANGE_REGRESSED || ch == CHANGE_IMPROVED };
		l->total += us;
	}
	free(row_of);
}

/* Lays l's calls into bars at scale px per us: a call narrower than
 * l->min_px is small, and joins the run of small ones before it, unless it
 * changed and changed ones are not grouped. */
static void layout(struct lane *l, double scale)
{
	double at = 0;
	l->nbars = 0;
	for (size_t i = 0; i < l->ncalls; i++) {
		const struct call *k = &l->calls[i];
		bool small = k->us * scale < l->min_px && (!k->changed || l->changed_grouped);
		struct bar *last = l->nbars ? &l->bars[l->nbars - 1] : NULL;
		if (small && last && last->small)
			last->us += k->us, last->n++;
		else
			l->bars[l->nbars++] = (struct bar){ k->row, at, k->us, 1, small, k->changed };
		at += k->us;
	}
}

/* Groups l's small initcalls, by a wider cut each time, until it has at
 * most BOOTGRAPH_MAX_BARS bars (bootgraph.h). */
static void fit(struct lane *l, double scale)
{
	l->min_px = BOOTGRAPH_MIN_W;
	layout(l, scale);
	while (l->nbars > BOOTGRAPH_MAX_BARS) {
		if (l->min_px > BOOTGRAPH_W)    /* every unchanged one is grouped already */
			l->changed_grouped = true;
		l->min_px *= 2;
		layout(l, scale);
	}
}

/* "1234.5 us", or "absent" for a side without the initcall, into buf. */
static const char *fmt_us(const struct metric_series *m, char *buf, size_t size)
{
	char v[32];
	if (!m)
		snprintf(buf, size, "absent");
	else
		snprintf(buf, size, "%s us", fmt_value(duration(m), v, sizeof(v)));
	return buf;
}

/* Bar b's <title>: an initcall's name, both sides' medians and, changed,
 * its verdict; a run's count and time. */
static void bar_title(FILE *out, size_t cand, const struct lane *l, const struct bar *b)
{
	char base[48], other[48], v[32], pct[32], p[16];
	const struct metric_row *r = b->row;
	fputs("<title>", out);
	if (b->n > 1) {
		fprintf(out, "%zu small initcalls, %s us in all (each narrower than %.1f px)", b->n,
			fmt_value(b->us, v, sizeof(v)), l->min_px);
	} else {
		xml_escape(out, r->name);
		fprintf(out, ": BASE %s, CAND %s (medians over the boots)",
			fmt_us(r->stat[0].series, base, sizeof(base)),
			fmt_us(r->stat[cand].series, other, sizeof(other)));
		if (b->changed) {
			fprintf(out, "; %s: %s (means), p", change_name(r->cmp[cand].change),
				fmt_pct(r->cmp[cand].pct_change, pct, sizeof(pct)));
			stats_fmt_p(r->cmp[cand].p_welch, p, sizeof(p));
			if (*p != '<')
				fputc('=', out);
			xml_escape(out, p);
		}
	}
	fputs("</title>", out);
}

/* Lane l at y: its tag, its bars, each titled, the wide ones labelled. */
static void draw_lane(FILE *out, const struct comparison *c, size_t cand, const struct lane *l,
		      double scale, int y)
{
	static const char *const shades[] = BOOTGRAPH_BAR_COLOURS;
	char tag[16];
	fprintf(out, "<text x=\"4\" y=\"%d\">%s</text>\n", y + LANE_H / 2 + 4,
		side_tag(c, l->side, tag, sizeof(tag)));
	for (size_t i = 0, plain = 0; i < l->nbars; i++) {
		const struct bar *b = &l->bars[i];
		double x = MARGIN_L + b->start * scale, w = b->us * scale;
		const char *class = "initcall", *fill = shades[plain % 2];
		if (b->n > 1) {
			class = "small", fill = BOOTGRAPH_SMALL_COLOUR;
		} else if (b->changed) {
			bool worse = b->row->cmp[cand].change == CHANGE_REGRESSED;
			class = worse ? "regressed" : "improved";
			fill = worse ? BOOTGRAPH_REGRESSED_COLOUR : BOOTGRAPH_IMPROVED_COLOUR;
			w = w < 1 ? 1 : w;
		} else {
			plain++;        /* the next plain one in the other shade */
		}
		fprintf(out, "<rect class=\"%s\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
			"fill=\"%s\">", class, x, y, w, LANE_H, fill);
		bar_title(out, cand, l, b);
		fputs("</rect>\n", out);
		if (b->n > 1 || w < LABEL_MIN_W)
			continue;
		size_t room = (size_t)((w - 4) / 6.5);
		char *label = xstrdup(b->row->name);
		if (strlen(label) > room) {     /* the box's worth, on a character boundary */
			while (room && ((unsigned char)label[room] & 0xc0) == 0x80)
				room--;
			label[room] = '\0';
		}
		fprintf(out, "<text x=\"%.2f\" y=\"%d\" fill=\"#111111\">", x + 2, y + LANE_H / 2 + 4);
		xml_escape(out, label);
		fputs("</text>\n", out);
		free(label);
	}
}

/* The time axis under the lanes, at y: ticks of 1, 2 or 5 x 10^k ms,
 * at most 10 of them, over total us. */
static void draw_axis(FILE *out, double total, double scale, int y)
{
	double ms = total / 1000, step = pow(10, floor(log10(ms / 8)));
	step *= ms / step > 40 ? 10 : ms / step > 16 ? 5 : ms / step > 8 ? 2 : 1;
	fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888888\"/>\n", MARGIN_L,
		y, MARGIN_L + BOOTGRAPH_W, y);
	for (int k = 0; k <= 12 && k * step <= ms * (1 + 1e-9); k++) {
		double x = MARGIN_L + k * step * 1000 * scale;
		fprintf(out, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#888888\"/>"
			"<text x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">%g ms</text>\n", x, TOP, x,
			y + 4, x, y + 16, k * step);
	}
}

/* Lane l's note at y: its initcalls, its length, what it grouped. */
static void draw_note(FILE *out, const struct comparison *c, const struct lane *l, int y)
{
	char tag[16], v[32];
	size_t grouped = 0, runs = 0;
	for (size_t i = 0; i < l->nbars; i++)
		if (l->bars[i].n > 1)
			grouped += l->bars[i].n, runs++;
	fprintf(out, "<text class=\"bootgraph-note\" x=\"4\" y=\"%d\">%s: %zu initcalls, %s ms end "
		"to end", y, side_tag(c, l->side, tag, sizeof(tag)), l->ncalls,
		fmt_value(l->total / 1000, v, sizeof(v)));
	if (runs)
		fprintf(out, "; %zu of them in %zu grey bar%s (runs of initcalls each narrower than "
			"%.1f px", grouped, runs, runs == 1 ? "" : "s", l->min_px);
	if (runs && l->min_px > BOOTGRAPH_MIN_W)
		fprintf(out, ", not %.1f px: a lane has at most %d bars%s", BOOTGRAPH_MIN_W,
			BOOTGRAPH_MAX_BARS, l->changed_grouped ? ", changed ones grouped too" : "");
	fputs(runs ? ")</text>\n" : "</text>\n", out);
}

/* Candidate cand's figure: caption, then the SVG of lanes l[0] (BASE) and l[1]. */
static void figure(FILE *out, const struct comparison *c, size_t cand, struct lane *l)
{
	char tag[16];
	double total = l[0].total > l[1].total ? l[0].total : l[1].total;
	if (!(total >= 1))
		total = 1;
	double scale = BOOTGRAPH_W / total;
	fit(&l[0], scale);
	fit(&l[1], scale);
	side_tag(c, cand, tag, sizeof(tag));
	fprintf(out, "<figure class=\"bootgraph\"><figcaption>boot.initcall: BASE above %s, each "
		"initcall a bar as wide as its median over the side's boots; bars are laid end to "
		"end in call order, as a boot with synchronous initcalls runs them (ms from the "
		"first call); <span style=\"color:%s\">red</span> regressed, <span style=\"color:%s\">"
		"green</span> improved on %s, grey: a run of small initcalls</figcaption>\n", tag,
		BOOTGRAPH_REGRESSED_COLOUR, BOOTGRAPH_IMPROVED_COLOUR, tag);
	int axis = TOP + 2 * LANE_H + LANE_GAP + 4, h = axis + 22 + 2 * NOTE_H;
	int w = MARGIN_L + BOOTGRAPH_W + 32;
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"bootgraph\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\">\n", w, h, w, h);
	draw_axis(out, total, scale, axis);
	draw_lane(out, c, cand, &l[0], scale, TOP);
	draw_lane(out, c, cand, &l[1], scale, TOP + LANE_H + LANE_GAP);
	draw_note(out, c, &l[0], axis + 22 + NOTE_H - 4);
	draw_note(out, c, &l[1], axis + 22 + 2 * NOTE_H - 4);
	fputs("</svg></figure>\n", out);
}

size_t bootgraph_html(FILE *out, const struct comparison *c, const char *heading)
{
	size_t drawn = 0;
	for (size_t s = 1; s < c->nsides; s++) {
		struct lane l[2];
		lane_calls(c, 0, s, &l[0]);
		lane_calls(c, s, s, &l[1]);
		if (l[0].ncalls && l[1].ncalls) {
			if (!drawn++)
				fputs(heading, out);
			figure(out, c, s, l);
		}
		for (int k = 0; k < 2; k++)
			free(l[k].calls), free(l[k].bars);
	}
	return drawn;
}
