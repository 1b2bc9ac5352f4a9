/*
 * flame.h: the differential flame graph of compare's HTML report: one
 * metric's profile on BASE against a candidate's, as inline SVG.
 *
 * Icicle layout: the root frames at the top, each frame below its caller;
 * a frame is a frame path (the folded stacks' prefix root;...;frame), its
 * width the candidate's share of samples through that path (pooled over
 * the candidate's boots: the samples of the stacks through it over all
 * the candidate's samples, so stacks the guest did not keep leave the row
 * short of full width), siblings in name order. Its colour is the change
 * of that share against BASE's: FLAME_MORE_COLOUR where the candidate has
 * more than half a point more, FLAME_LESS_COLOUR where it has more than
 * half a point less, FLAME_SAME_COLOUR within. A path only BASE has has no
 * width, so it is not drawn.
 *
 * Colours are part of the contract (tests read a screenshot's pixels);
 * none is one of chart.h's. Each frame has a <title> (its name, BASE %,
 * candidate %, the change in points: a browser's tooltip) and a label
 * clipped to its box; every name is XML-escaped. No script, font or URL.
 *
 * Bounded for any profile (a crafted result.json or database): a stack is
 * drawn to FLAME_MAX_DEPTH frames (what is deeper stays in its last frame
 * drawn), at most FLAME_MAX_FRAMES frames are drawn and none narrower than
 * FLAME_MIN_W pixels (what is not drawn is in its caller's width); a line
 * under the graph (class "flame-note") says how many of each were left out.
 * Time and memory are linear in the frames read (n log n for the sorting).
 */
#ifndef BOOTRIG_FLAME_H
#define BOOTRIG_FLAME_H

#include "results.h"

#include <stdio.h>

#define FLAME_MORE_COLOUR "#e0301e"
#define FLAME_LESS_COLOUR "#2f6fd0"
#define FLAME_SAME_COLOUR "#c8c8c8"
#define FLAME_SAME_POINTS 0.5   /* |change| within this: grey */

enum { FLAME_W = 800, FLAME_FRAME_H = 16 };
/* A guest's stack has at most 128 frames (initramfs/bench/fold.h). */
enum { FLAME_MAX_DEPTH = 256, FLAME_MAX_FRAMES = 5000 };
#define FLAME_MIN_W 0.1

/*
 * Writes the <svg> of cand's profile against base's; id (unique in the
 * page: "fg3") prefixes the clip paths' ids.
 */
void flame_svg(FILE *out, const struct profile_series *base, const struct profile_series *cand,
	       const char *id);

#endif
