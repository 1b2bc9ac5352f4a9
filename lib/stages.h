/*
 * stages.h: the stages of a boot and the time limits on them, what the
 * configuration (lib/config.h: a target's timeouts) gives the judge
 * (judge/judge.h). Both layers read them from here, so lib/ needs nothing
 * from judge/.
 *
 *   firmware -> kernel ("Linux version") -> init (the protocol's BEGIN)
 *            -> results (first test record) -> end (END) -> poweroff
 */
#ifndef BOOTRIG_STAGES_H
#define BOOTRIG_STAGES_H

#include <stddef.h>

enum stage {
	STAGE_FIRMWARE,
	STAGE_KERNEL,
	STAGE_INIT,
	STAGE_RESULTS,
	STAGE_END,
	STAGE_POWEROFF,
	STAGE_COUNT,
};

/*
 * What the judge is told about the target. Seconds; 0 means no limit:
 * stage[s] bounds how long stage s may last. known_issues: title patterns
 * of the target's known issues (see judge_expect_event); the strings are
 * the caller's and must outlive the judge.
 */
struct judge_limits {
	double stage[STAGE_COUNT];
	double silence;
	char *const *known_issues;
	size_t n_known_issues;
};

/* The defaults, for a target whose config sets none (and the only place
 * they are written): firmware 30 s, kernel 120, init 120, results 600,
 * end 10, poweroff 10, silence 120; no known issue. */
void judge_default_limits(struct judge_limits *limits);

/* "firmware", "kernel", ...; "unknown" out of range. */
const char *stage_name(enum stage s);

#endif
