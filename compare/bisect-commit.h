/*
 * bisect-commit.h: one commit of `bootrig bisect` (compare/cmd-bisect.c
 * orders the bisection; this builds, boots and marks the commit git
 * checked out). The decisions are bisect.h's, git and the programs
 * bisect-git.h's, the record bisect-state.h's.
 */
#ifndef BOOTRIG_BISECT_COMMIT_H
#define BOOTRIG_BISECT_COMMIT_H

#include "bisect-state.h"

#include <stddef.h>

enum { TEST_DONE = 0, TEST_INTERRUPTED = -1, TEST_ERROR = -2 };

/* s->why becomes why (malloc'd; the old one freed). */
void bisect_set_why(struct step *s, char *why);

/*
 * bisect_count_boots: counts the boots of the results directory dir into
 * s and sb (bisect_count_boot() for each, under b->o; the metric's
 * observations when b->metric is set); a missing dir is no boots. With
 * crash_title, *crash_title gets the title of the first kernel failure
 * event of the first boot that crashed (PANIC, HANG or BOOT_FAIL;
 * malloc'd), or NULL. 0, or -1 when dir cannot be read.
 */
int bisect_count_boots(const struct bisection *b, const char *dir, struct step *s,
		       struct step_boots *sb, char **crash_title);

/*
 * bisect_test_commit: builds the checked-out commit s->sha (b->build in
 * b->tree: a failed or timed-out build, or no image, skips it), boots it
 * in batches by spawning `bootrig run` into BISECT_DIR/<sha:12>/results
 * (each boot its own seed, numbered on from the commit's boots so far,
 * unless the run options choose the seeds) and decides its mark.
 * end_boots > 0: an end, which in performance mode takes that many boots
 * and no decision, and in crash mode's bad end takes all of them (how
 * often it shows the crash is what a clean step is weighed against); 0
 * for a step. TEST_DONE, TEST_INTERRUPTED, or TEST_ERROR (the state dir
 * unusable).
 */
int bisect_test_commit(struct bisection *b, struct step *s, size_t end_boots);

#endif
