/*
 * bootgraph.h: the boot drawn initcall by initcall in compare's HTML
 * report, as the kernel's scripts/bootgraph.pl draws one boot: per
 * candidate, one inline SVG of two lanes on a time axis in ms, BASE above
 * the candidate. A lane is the side's initcalls (compare.h,
 * row_is_initcall()) in its boots' order (the order of the side's metrics,
 * which is the order the kernel called them), each a bar that starts where
 * the one before it ended and is as wide as its median over the side's
 * boots: laid end to end, as a boot with synchronous initcalls runs them
 * (asynchronous ones overlapped in the boot itself). The axis runs from
 * the first call to the longer lane's end.
 *
 * An initcall that changed on the candidate (its row's verdict, regressed
 * or improved: compare's rule) is BOOTGRAPH_REGRESSED_COLOUR or
 * BOOTGRAPH_IMPROVED_COLOUR in both lanes (class "regressed", "improved")
 * and drawn at least 1 px wide, whatever its width; the others alternate
 * BOOTGRAPH_BAR_COLOURS (class "initcall"). Every bar has a <title> (its
 * name, both sides' medians, and for a changed one its verdict, %change of
 * the means and p) and, when wide enough, a label cut to its box; every
 * name is XML-escaped, every number finite.
 *
 * Readable at the 600 to 1,000 initcalls of a distribution kernel, and
 * bounded for any input: a run of initcalls each narrower than
 * BOOTGRAPH_MIN_W px (unchanged ones) is one grey bar, BOOTGRAPH_SMALL_COLOUR
 * (class "small", titled "N small initcalls"); a lane that would still have
 * more than BOOTGRAPH_MAX_BARS bars groups by twice the width, and again,
 * and past the lane's width groups changed initcalls too, so a graph has
 * at most 2 x BOOTGRAPH_MAX_BARS bars (each a <rect> and its <title>) and
 * fewer than 2,000 elements. A line under each lane (class
 * "bootgraph-note") says how many initcalls it grouped into how many bars,
 * and below what width. Time and memory are linear in the initcalls (times
 * the few regroupings).
 */
#ifndef BOOTRIG_BOOTGRAPH_H
#define BOOTRIG_BOOTGRAPH_H

#include "compare.h"

#include <stdio.h>

#define BOOTGRAPH_REGRESSED_COLOUR "#d62728"
#define BOOTGRAPH_IMPROVED_COLOUR "#2ca02c"
#define BOOTGRAPH_BAR_COLOURS { "#6b8fb3", "#9db7d1" }
#define BOOTGRAPH_SMALL_COLOUR "#c8c8c8"
#define BOOTGRAPH_MIN_W 1.0     /* px: narrower unchanged initcalls are grouped */

enum { BOOTGRAPH_W = 900, BOOTGRAPH_MAX_BARS = 400 };

/*
 * Writes heading (trusted HTML) and then, for each candidate that has
 * initcalls as BASE has, a <figure class="bootgraph"> with its caption
 * and SVG; nothing at all when there is none. Returns the graphs drawn.
 */
size_t bootgraph_html(FILE *out, const struct comparison *c, const char *heading);

#endif
