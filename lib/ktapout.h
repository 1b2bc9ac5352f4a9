/*
 * ktapout.h: writing KTAP version 1 (Documentation/dev-tools/ktap.rst), the
 * format the kernel's tools/testing/kunit/kunit.py parse reads: `bootrig
 * judge --format ktap` and `bootrig compare --format ktap`.
 *
 * A writer numbers the results of each level itself, or writes the numbers
 * it is given (a document read elsewhere, written again as it was), and
 * indents each subtest by two spaces, one level of the spec's indentation
 * (kunit.py reads any). Names and diagnostics are untrusted text: written
 * by the terminal rule (textsafe.h), a '#' in a name as '_' (it would start
 * a directive), U+2028 and U+2029 as \u2028 and \u2029 (Python readers
 * end a line there), the phrases after which kunit.py reads no more
 * ("Kernel panic - not syncing: VFS:", "List of all partitions:", "reboot:
 * System halted") with their first space doubled, an empty name as none
 * ("ok 1"); a diagnostic's lines
 * each become a "# " line, and one that would read as a subtest's header
 * ("# Subtest: x") is marked "# (diagnostic) Subtest: x".
 */
#ifndef BOOTRIG_KTAPOUT_H
#define BOOTRIG_KTAPOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define KTAPOUT_MAX_DEPTH 24

enum ktapout_status { KTAPOUT_OK, KTAPOUT_FAIL, KTAPOUT_SKIP };

struct ktapout {
	FILE *out;
	int depth;                              /* 0: the document's own level */
	unsigned number[KTAPOUT_MAX_DEPTH];     /* the last result's number, per level */
};

/* Starts the document on out: "KTAP version 1" and the plan "1..planned". */
void ktapout_begin(struct ktapout *k, FILE *out, size_t planned);

/* Opens a subtest of the current level: its header, name and plan. */
void ktapout_subtest(struct ktapout *k, const char *name, size_t planned);

/* Closes the innermost subtest with its result (name as given to ktapout_subtest()). */
void ktapout_end_subtest(struct ktapout *k, const char *name, enum ktapout_status st);

/*
 * A result at the current level: "ok N name", "not ok N name", or
 * "ok N name # SKIP reason" (reason NULL: none); diag (NULL: none) first,
 * as its diagnostic lines.
 */
void ktapout_case(struct ktapout *k, const char *name, enum ktapout_status st,
		  const char *reason, const char *diag);

/* Diagnostic lines at the current level, one "# " line per line of text. */
void ktapout_diag(struct ktapout *k, const char *text);

/*
 * The general forms of the above, for a document written again as it was
 * read (judge/ktap.h's ktap_write()).
 *
 * A result line: "ok" or "not ok", number (0: the next one of its level;
 * another number is written as it is and the next count on from it), name,
 * and the directive (NULL or "": none; else "# DIRECTIVE reason", as
 * "# SKIP" or "# TODO": the reader's ok or not ok stays as it was).
 */
struct ktapout_line {
	bool ok;
	long number;
	const char *name, *directive, *reason;
	const char *trailer;    /* NULL, or written after the name as it is, in place
				 * of the directive: a line read elsewhere ("# skip x",
				 * "# TIMEOUT 30 seconds", "# rcode=0") keeps its spelling */
};

/* Opens a subtest: its version line, "# Subtest: name" unless name is NULL
 * or "", and "1..planned" unless planned < 0 (the test had no plan). */
void ktapout_open(struct ktapout *k, const char *name, long planned);

/* The result line r at the current level (a case's). */
void ktapout_result(struct ktapout *k, const struct ktapout_line *r);

/* Closes the innermost subtest with its result line r. */
void ktapout_close(struct ktapout *k, const struct ktapout_line *r);

#endif
