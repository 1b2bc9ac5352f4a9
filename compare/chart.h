/*
 * chart.h: the one chart every report draws (the HTML report of compare,
 * bisect's chart.svg, history's trend): honest by construction.
 *
 * A chart is a row of groups along x (a side of a comparison, a step of a
 * bisection, a kernel in history), the metric's value on y. Each group is
 * drawn as:
 *   - every boot's value as a point (opaque, in the group's colour, with a
 *     thin white ring), in the order given, spread sideways 8 px apart
 *     (closer past 6 boots, to stay within the group), so that no point
 *     hides another;
 *   - its median (stats_median) as a black mark across the group;
 *   - its interval, the one compare prints as "±%stddev" (stats_interval:
 *     mean ± one sample standard deviation), as a narrow bar;
 *   - on an axis that starts at zero: a light column from zero up to the
 *     median, so that the columns' heights compare as the medians do;
 *   - optionally a flag above it (a red triangle and a word: "regressed",
 *     "change point").
 * The y axis starts at zero, unless zero would squash the data: every
 * value and interval end positive and their span under CHART_SQUASH of the
 * largest. Then the axis spans the data only, and shows it: a zig-zag
 * break mark across the foot of the y axis and the label "axis does not
 * start at 0"; no columns are drawn then (a column from a broken axis
 * would exaggerate the change). Data at or below zero always get an axis
 * through zero.
 * The axis does not zoom past the metric's noise: with a threshold (the
 * spec's threshold_pct, the change that counts) it spans at least
 * CHART_THRESHOLD_SPANS times threshold_pct % of the data's largest
 * magnitude, widened about the data's middle, so that a change at the
 * threshold fills at most half the plot's height and one far below it
 * (0.001 % against 5 %) draws as no change. A broken axis widened to
 * zero or below is drawn from zero instead.
 *
 * The captions (the title above the plot; the key, the legend and the
 * break's label below it) are wrapped at spaces to lines that fit the
 * SVG's width, estimating every byte as wide as a glyph at 6.5 px (11 px
 * sans-serif; 13/11 of it in the 13 px title, 7 px in bold), a word
 * longer than a line cut on a character boundary; the SVG's height grows
 * with their lines. A caption is one <text class="title|key|legend|
 * axis-break-label"> with a <tspan> per line, at most 4 lines (the last
 * ending in an ellipsis when more would follow).
 *
 * Colours are part of the contract (tests read a screenshot's pixels):
 * the axes black, the columns CHART_COLUMN_COLOUR, the interval bars
 * CHART_INTERVAL_COLOUR, the break mark CHART_BREAK_COLOUR. A group's
 * point colour must not be one of those.
 *
 * Every label is XML-escaped (xml_escape) and may hold any bytes. The SVG
 * is a complete element, usable inline in HTML or as a standalone file.
 */
#ifndef BOOTRIG_CHART_H
#define BOOTRIG_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CHART_AXIS_COLOUR "#000000"
#define CHART_COLUMN_COLOUR "#d5dde6"
#define CHART_INTERVAL_COLOUR "#666666"
#define CHART_BREAK_COLOUR "#7a0177"
#define CHART_FLAG_COLOUR "#c62828"
#define CHART_SQUASH 0.08       /* the data span under this share of the top: break the axis */
#define CHART_THRESHOLD_SPANS 2  /* the axis spans at least this many thresholds */

enum { CHART_GROUP_W = 90, CHART_PLOT_H = 220 };

struct chart_group {
	const char *label;      /* under the group, or NULL */
	const char *sublabel;   /* a second line under it (a role, "n=5"), or NULL */
	const double *values;   /* each boot's value; n == 0 draws "no data" */
	size_t n;
	const char *colour;     /* the points' colour ("#rrggbb"); NULL: "#555555" */
	const char *flag;       /* NULL, or the flag's word ("regressed", "change point") */
	const char *class;      /* added to the group's <g class="group ...">, or NULL */
};

/* A horizontal reference line across the plot (bisect: an end's mean). */
struct chart_line {
	double value;           /* NAN: not drawn */
	const char *label;      /* at its right end, or NULL */
	const char *colour;
	const char *class;      /* the <line>'s class, or NULL */
};

struct chart_spec {
	const char *title;      /* drawn at the top, or NULL (HTML gives it a caption) */
	const char *unit;       /* beside the title and the axis, or NULL */
	const struct chart_group *groups;
	size_t ngroups;
	const struct chart_line *lines;
	size_t nlines;
	const char *key;        /* a caption above the legend (what the colours mean), or NULL */
	double threshold_pct;   /* the change that counts, in % (compare's threshold or the
				 * noise floor if larger): the axis's narrowest span; 0: none */
};

/*
 * chart_svg: writes the chart of spec as one <svg> element to out (width
 * grows with the groups, height with the captions' lines). Reference
 * lines take part in the axis range. Nothing is allocated that outlives
 * the call.
 */
void chart_svg(const struct chart_spec *spec, FILE *out);

/*
 * chart_axis: the y range chart_svg uses for these groups and lines (no
 * narrower than spec's threshold allows): *lo and *hi, true when the axis
 * is broken (does not start at zero). Always
 * lo < hi with both and their difference finite, whatever the values
 * (non-finite ones are left out). Exposed for tests and for text reports
 * that want to say the same.
 */
bool chart_axis(const struct chart_spec *spec, double *lo, double *hi);

enum { CHART_MAX_TICKS = 12, CHART_FALLBACK_TICKS = 5 };

/*
 * chart_ticks: the y values chart_svg marks on an axis [lo, hi], rising,
 * into t[CHART_MAX_TICKS]; returns how many (0 when lo, hi are not finite
 * or hi <= lo) and, through *decimals, the digits its labels show. The
 * ticks are round (1, 2 or 5 times a power of 10, about 5 of them) when
 * the numbers can hold such a step; when the range is below the numbers'
 * precision (1e17 and 1e17 + 16: a step of 5 is no step), the two ends
 * and up to CHART_FALLBACK_TICKS - 2 values between. Never loops more than
 * CHART_MAX_TICKS times, whatever lo and hi are.
 */
size_t chart_ticks(double lo, double hi, double *t, int *decimals);

#endif
