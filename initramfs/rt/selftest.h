/*
 * selftest.h: the one-line checks of the guest self-tests (rt/selftest.c,
 * the runtime's; profile-selftest.c, the profiler's), as nolibc-test
 * prints them: "ok NAME" or "FAIL NAME: why" per check, then
 * selftest_done()'s "done N checks, F failed". tests/t-guest-rt.sh and
 * tests/t-guest-profile.sh turn the lines into TAP.
 */
#ifndef BOOTRIG_SELFTEST_H
#define BOOTRIG_SELFTEST_H

#include "rt.h"

static int selftest_failures, selftest_checks;

/* check: one line of output per check. */
__attribute__((format(printf, 3, 4), unused))
static void check(bool good, const char *name, const char *why_fmt, ...)
{
	char why[256];
	va_list ap;

	selftest_checks++;
	if (good) {
		rt_printf("ok %s\n", name);
		return;
	}
	va_start(ap, why_fmt);
	rt_vsnprintf(why, sizeof(why), why_fmt, ap);
	va_end(ap);
	rt_printf("FAIL %s: %s\n", name, why);
	selftest_failures++;
}

/* selftest_done: the last line; the exit status (0: nothing failed). */
__attribute__((unused))
static int selftest_done(void)
{
	rt_printf("done %d checks, %d failed\n", selftest_checks, selftest_failures);
	return selftest_failures ? 1 : 0;
}

#endif
