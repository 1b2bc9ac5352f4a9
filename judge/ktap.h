/*
 * ktap.h: the reader of KTAP in a console, the kernel's own test output
 * (Documentation/dev-tools/ktap.rst: what KUnit prints at boot, and what
 * kselftest prints).
 *
 * The judge feeds it every console line (ktap_feed_line()); it finds the
 * first "KTAP version N" (or "TAP version N") line and reads from there:
 * "# Subtest: NAME" and nested "KTAP version" lines open a test with
 * subtests, "1..N" is a plan, "ok N NAME" and "not ok N NAME" results,
 * with an optional "- " before the name and a "# SKIP reason" or
 * "# TODO reason" directive after it; "# ..." lines, and indented lines
 * inside a subtest, are the diagnostics of the next result. The kernel's
 * printk prefix ("[    1.234567] ", a caller id "[    T1] ") and the
 * indentation are stripped: nesting follows the structure, as the kernel's
 * own parser (tools/testing/kunit/kunit_parser.py) reads it: a result
 * closes the open subtest once its plan is complete, or (no plan, or an
 * incomplete one) when it carries the subtest's name; any other result is
 * one of its cases. Unindented kernel messages between KTAP lines are not
 * diagnostics. The document ends when its plan is complete.
 *
 * A case is a result with no subtests of its own: its suite is the names of
 * the subtests around it, outermost first, joined by '.' ("list-kunit-test";
 * a parameterised case "suite.test"). Its status: "ok"; "fail" ("not ok");
 * "skip" (a SKIP directive, or a TODO one on "not ok": an expected failure).
 * The results of subtests are suites (the outermost ones are listed).
 *
 * A failure: a failing case, a suite that is "not ok" though none of its
 * cases failed, or a broken structure: a subtest that ended with fewer
 * results than its plan, or a document that ended before its plan did
 * (ktap_finish()). The judge turns the first into the boot's FAIL. A
 * subtest the output ended inside is kept as a result of its own: "not
 * ok", incomplete, with what it reported and why.
 *
 * The whole tree is kept as read (ktap_result_at(), ktap_write()): each
 * result with its number, "ok" or "not ok", directive, plan and nesting,
 * so that a KTAP reader of what ktap_write() writes concludes what it
 * would of the console (tests/t-ktap-faithful.sh holds it to kunit.py).
 *
 * Bounds: cases and suites are kept up to KTAP_MAX_KEPT (counted beyond),
 * a name up to 512 bytes, a case's diagnostics up to 4 KiB, nesting up to
 * 16 levels.
 */
#ifndef BOOTRIG_KTAP_H
#define BOOTRIG_KTAP_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;
struct ktap;
struct ktapout;

#define KTAP_MAX_KEPT 4096

enum ktap_status { KTAP_OK, KTAP_FAIL, KTAP_SKIP };

/* "ok", "fail", "skip". */
const char *ktap_status_name(enum ktap_status s);

/* A reader with nothing read yet. */
struct ktap *ktap_new(void);
void ktap_free(struct ktap *k);

/* Console line lineno (1-based), s[0..n), without its newline. */
void ktap_feed_line(struct ktap *k, const char *s, size_t n, long lineno);

/* The console ended: an unfinished document is a failure. Idempotent. */
void ktap_finish(struct ktap *k);

/* Was a KTAP document seen? */
bool ktap_seen(const struct ktap *k);

/* Result i (from 0) of a case or a suite. Strings valid until ktap_free(). */
struct ktap_result {
	const char *suite;              /* "" for a case outside any subtest */
	const char *name;
	enum ktap_status status;
	const char *directive;          /* "SKIP", "TODO" or "" */
	const char *reason;             /* the directive's text, or "" */
	const char *diagnostics;        /* '\n'-separated lines ("" for none) */
	long line;                      /* the console line of the result (an
					   incomplete test's: of its header) */
	bool ok;                        /* the line said "ok" (false: incomplete) */
	long number;                    /* the number it carried (incomplete: its place) */
	int depth;                      /* 0: a result of the document itself */
	bool subtests;                  /* a test with subtests (a suite), not a case */
	long planned;                   /* a suite's plan (-1: none) */
	size_t reported;                /* a suite's results */
	bool incomplete;                /* the output ended inside it: it has no line */
	const char *why;                /* what broke its structure, or "" */
};
bool ktap_case_at(const struct ktap *k, size_t i, struct ktap_result *r);
/* Outermost suites: suite is "", name the suite's; planned/reported its cases. */
bool ktap_suite_at(const struct ktap *k, size_t i, struct ktap_result *r,
		   long *planned, size_t *reported);
/* Every kept result, in the order they ended (a suite after its subtests). */
bool ktap_result_at(const struct ktap *k, size_t i, struct ktap_result *r);

struct ktap_counts {
	size_t ok, fail, skip;          /* cases, kept or not */
	size_t not_kept;                /* cases and suites past KTAP_MAX_KEPT */
	size_t problems;                /* broken structure (see above) */
	size_t top;                     /* kept results of the documents themselves */
	size_t missing;                 /* the documents' planned results never reported */
};
void ktap_counts(const struct ktap *k, struct ktap_counts *c);

/* What fails the boot, one line ("KUnit case list-kunit-test.list_test_list_add
 * failed", ...), or NULL when nothing does. Valid until the next feed. */
const char *ktap_failure(const struct ktap *k);

/*
 * Writes the kept results at out's current level, as they were read: the
 * ktap_counts() top results, each subtest with its name, plan, subtests and
 * result line (number, ok or not ok, what followed its '#' as it was
 * written), and the diagnostics before each; a subtest whose structure broke gets why as a diagnostic before its
 * result, and one the output ended inside is "not ok" (its plan kept, so a
 * reader counts its missing results as crashed). The documents' missing
 * results (ktap_counts()'s missing) are the caller's to plan.
 */
void ktap_write(const struct ktap *k, struct ktapout *out);

/*
 * result.json's "ktap" (RESULTS.md): counts, suites, cases and problems; a
 * new object, or NULL when no KTAP was seen.
 */
struct json_object *ktap_to_json(const struct ktap *k);

#endif
