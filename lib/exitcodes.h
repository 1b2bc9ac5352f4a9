/*
 * exitcodes.h: bootrig's exit statuses, fixed by the user-facing contract
 * (shared CONTRACT.md): users' scripts and git bisect run depend on them.
 * Every status bootrig or a child it forks exits with is named here.
 */
#ifndef BOOTRIG_EXITCODES_H
#define BOOTRIG_EXITCODES_H

enum exit_code {
	EXIT_PASS = 0,          /* every boot passed; compare: nothing regressed */
	EXIT_FAIL = 1,          /* a test failed; compare: a significant regression */
	EXIT_CRASH = 2,         /* PANIC, HANG or BOOT_FAIL */
	EXIT_USAGE = 64,        /* bad command line (EX_USAGE) */
	EXIT_DATAERR = 65,      /* bad input data: an image, a log, a results dir */
	EXIT_NOINPUT = 66,      /* judge: the log does not exist (EX_NOINPUT) */
	EXIT_CONFIG = 78,       /* config error, reported as file:line */
	EXIT_INFRA = 125,       /* the host failed; git bisect skips it */
	EXIT_NOEXEC = 127,      /* a spawned child could not exec its program (as a
				 * shell says 127); only children exit with it */
	EXIT_SIGINT = 130,      /* interrupted by Ctrl-C */
	EXIT_SIGTERM = 143,     /* interrupted by SIGTERM */
};

#endif
