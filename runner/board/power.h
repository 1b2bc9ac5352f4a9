/*
 * power.h: a board's power control. Each action (pre-power, on, off, reset)
 * is an argv from the board's config, run without a shell, bounded by a
 * timeout (lib/util.h run_argv). A PDU's CLI, a relay tool, `ykushcmd`,
 * `uhubctl`, or for simulated boards the script that starts QEMU.
 *
 * A failing action (non-zero exit, a signal, the timeout, not startable) is
 * the host's fault: the caller turns the reason into INFRA_ERROR.
 */
#ifndef BOOTRIG_POWER_H
#define BOOTRIG_POWER_H

#include <stddef.h>

enum power_action { POWER_PRE, POWER_ON, POWER_OFF, POWER_RESET, POWER_NACTIONS };

struct power {
	char **argv[POWER_NACTIONS];  /* NULL-terminated; NULL: not configured */
	double timeout;               /* seconds, per action */
	int log_fd;                   /* where their output goes (-1: stderr) */
};

/* "pre-power", "on", "off", "reset". */
const char *power_action_name(enum power_action a);

/*
 * power_run: run the action's argv. Returns 0 when it exited 0 or is not
 * configured, -1 otherwise with a one-line reason ("power on: 'cmd' exited
 * 3") in why (lib/usage.h, 4.).
 */
int power_run(const struct power *p, enum power_action a, char *why, size_t len);

/* Frees the argvs. */
void power_release(struct power *p);

#endif
