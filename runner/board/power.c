/*
 * power.c: running a board's power actions (see power.h).
 */
#include "power.h"
#include "spawn.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

const char *power_action_name(enum power_action a)
{
	static const char *names[POWER_NACTIONS] = { "pre-power", "on", "off", "reset" };
	return a < POWER_NACTIONS ? names[a] : "?";
}

int power_run(const struct power *p, enum power_action a, char *why, size_t len)
{
	char **argv = p->argv[a];
	if (!argv || !argv[0])
		return 0;
	if (p->log_fd >= 0)
		dprintf(p->log_fd, "bootrig: power %s: %s\n", power_action_name(a), argv[0]);
	int rc = run_argv(argv, p->timeout, p->log_fd, p->log_fd);
	if (rc == 0)
		return 0;
	if (rc == -2)
		snprintf(why, len, "power %s: '%s' timed out after %.0f s",
			 power_action_name(a), argv[0], p->timeout);
	else if (rc == -1 || rc == 127)
		snprintf(why, len, "power %s: '%s' could not be run",
			 power_action_name(a), argv[0]);
	else if (rc > 128)
		snprintf(why, len, "power %s: '%s' killed by signal %d",
			 power_action_name(a), argv[0], rc - 128);
	else
		snprintf(why, len, "power %s: '%s' exited %d", power_action_name(a),
			 argv[0], rc);
	return -1;
}

void power_release(struct power *p)
{
	for (int a = 0; a < POWER_NACTIONS; a++) {
		for (char **v = p->argv[a]; v && *v; v++)
			free(*v);
		free(p->argv[a]);
		p->argv[a] = NULL;
	}
}
