/*
 * bisect-state.h: a bisection's record (compare/cmd-bisect.c): its
 * settings, ends and steps (struct bisection), kept in BISECT_DIR/
 * bisect.json (format "bootrig-bisect-1", rewritten whole after each step;
 * --continue loads it), and what is shown of it: the step table and
 * chart.svg. Nothing here runs a program (bisect-git.h does) or decides a
 * mark (bisect.h does); tests/unit/test_bisect_state.c saves, loads and
 * saves again.
 */
#ifndef BOOTRIG_BISECT_STATE_H
#define BOOTRIG_BISECT_STATE_H

#include "bisect.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define BISECT_FORMAT "bootrig-bisect-1"

/* A build's default limit: 4 hours, far above a kernel build on 2 cores. */
#define BUILD_TIMEOUT_DEFAULT 14400.0

struct step {
	char sha[41];
	char *subject;
	const char *role;               /* "good end", "bad end", NULL: a step */
	enum bisect_mark mark;
	char *why;
	size_t nboots, npass, ninfra, ncrash, nfail;
	size_t ntitle;                  /* crash mode: boots that showed the title */
	double *obs;
	size_t nobs;
	char **verdicts;
	size_t nverdicts;
	struct step_stats st;
};

struct bisection {
	/* settings, saved in bisect.json */
	char *tree, *dir, *good_rev, *bad_rev, *image, *append, *append_file, *glob, *title;
	char *follow;                   /* crash mode without --title: the bad end's
					 * first crash's title, once its boots are in */
	char **build;
	size_t nbuild;
	char **run_opts;                /* passed to bootrig run */
	size_t nrun_opts;
	const char *run_program;        /* test-only: run's stand-in (not saved) */
	struct bisect_opts o;
	double build_timeout;           /* seconds, 0: none */
	/* found */
	char *metric, *unit;            /* performance: "abi.test.name" */
	bool higher_better;
	struct step ends[2];            /* [0] good, [1] bad */
	bool ends_done;
	struct step_stats ends_st;
	char *ends_why;
	struct step *steps;
	size_t nsteps;
	const char *status;             /* running interrupted found no-difference
					 * inconclusive infra */
	char *first_bad, *first_bad_subject;
	char *candidates;               /* the commits the first bad one could be
					 * (inconclusive: git's "could be any of", or
					 * every commit of good..bad) */
};

/* Frees what s holds (not s). */
void bisect_step_free(struct step *s);

/* Frees what b holds (not b). */
void bisect_release(struct bisection *b);

/* Writes b->dir/bisect.json, whole or not at all. 0 or -1 (error printed). */
int bisect_state_save(const struct bisection *b);

/*
 * bisect_state_load: b->dir/bisect.json into b (b->dir set, the rest
 * zeroed; b->tree replaced by the file's) for --continue. 0; EXIT_USAGE
 * when there is none or its bisection is over, EXIT_DATAERR when it is not
 * a bisection or lacks settings (error printed).
 */
int bisect_state_load(struct bisection *b);

/* The step table (the ends, then each step, with its why) to out. */
void bisect_print_table(const struct bisection *b, FILE *out);

/* b->dir/chart.svg (bisect_chart_svg). 0 or -1. */
int bisect_write_chart(const struct bisection *b);

#endif
