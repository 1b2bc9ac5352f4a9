/*
 * usage.c: the messages of usage.h (die, die_status, error, warning), in
 * one voice: "bootrig: ..." on stderr, by textsafe.h's terminal rule.
 *
 * The order in lib/, one way: util.c (allocation, strbuf) at the bottom,
 * textsafe.c on its strbuf, and these messages on both. util.c includes
 * neither textsafe.h nor this file's needs (util.h declares usage.h's
 * functions only by including usage.h, which includes nothing).
 */
#include "usage.h"
#include "exitcodes.h"
#include "textsafe.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The message by textsafe.h's terminal rule (newlines and tabs kept): its
 * arguments may be file names or what a guest said. */
static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	char *msg = NULL;
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "bootrig: %s", prefix);
	if (vasprintf(&msg, fmt, ap) >= 0)
		strbuf_add_term(&sb, msg, strlen(msg), TEXT_KEEP_NEWLINE | TEXT_KEEP_TAB);
	strbuf_add(&sb, "\n", 1);
	fwrite(sb.buf, 1, sb.len, stderr);
	free(msg);
	strbuf_release(&sb);
}

/* Prints the message and exits with status: die()'s and die_status()'s. */
__attribute__((noreturn)) static void vdie(int status, const char *fmt, va_list ap)
{
	vreport("", fmt, ap);
	exit(status);
}

void die_status(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdie(status, fmt, ap);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdie(EXIT_DATAERR, fmt, ap);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}
