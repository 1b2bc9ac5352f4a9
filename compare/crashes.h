/*
 * crashes.h: crashes as identities over kernels (`bootrig history --crashes`).
 *
 * A crash is known by its title (the judge's, syzbot's form): the same
 * title on two boots or two kernels is the same crash. Over the kernels of
 * a history database, in time order (or version order), each title seen
 * gets its kind, how many boots showed it, how many kernels, the first and
 * last kernel it appeared on, and a status:
 *   open   it appeared on one of the newest `fixed_after` kernels of some
 *          run that showed it (a run: the boots of one variant on one
 *          target, "the same tests": db.h db_runs());
 *   fixed  in every run that showed it, the last `fixed_after` kernels that
 *          ran those tests after its last appearance did not show it.
 * Until fixed_after kernels have run those tests since it last appeared,
 * a title stays open: absence from too few boots is no fix.
 */
#ifndef BOOTRIG_CRASHES_H
#define BOOTRIG_CRASHES_H

#include "db.h"

#include <stdbool.h>
#include <stdio.h>

struct json_object;

struct crash_identity {
	char *kind, *title;
	long long boots;                /* the boots that showed it, over every kernel */
	size_t kernels;                 /* the kernels that showed it */
	size_t first, last;             /* indexes into crash_history .kernels */
	bool open;
	size_t since;                   /* fixed: kernels that ran its tests since its last
					 * appearance (the fewest over its runs) */
};

struct crash_history {
	struct db_filter filter;        /* set before crash_history_build() */
	bool by_version;
	int fixed_after;                /* >= 1 */
	struct db_kernel *kernels;      /* in order */
	size_t nkernels;
	struct crash_identity *crashes; /* in order of first appearance */
	size_t n;
};

/* Builds ch from db (ch's filter, by_version and fixed_after set): 0, or
 * EXIT_DATAERR after a message. */
int crash_history_build(struct crash_history *ch, struct history_db *db);
void crash_history_free(struct crash_history *ch);
/* The table, a line per title (its text through term_str). */
void crash_history_text(const struct crash_history *ch, const char *db_path, FILE *out);
/* "bootrig-crashes-1" (compare/SCHEMA.md). */
struct json_object *crash_history_json(const struct crash_history *ch);

#endif
