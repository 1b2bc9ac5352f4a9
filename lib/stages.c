/*
 * stages.c: the stage names and the default limits (stages.h).
 */
#include "stages.h"
#include "util.h"

#include <string.h>

void judge_default_limits(struct judge_limits *limits)
{
	const double stage[STAGE_COUNT] = { 30, 120, 120, 600, 10, 10 };
	memset(limits, 0, sizeof(*limits));
	memcpy(limits->stage, stage, sizeof(stage));
	limits->silence = 120;
}

const char *stage_name(enum stage s)
{
	static const char *const names[] = { "firmware", "kernel", "init", "results", "end",
					     "poweroff" };
	return (unsigned)s < ARRAY_SIZE(names) ? names[s] : "unknown";
}
