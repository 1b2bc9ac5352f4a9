/*
 * fake-def.c: the fake backend (fake-backend.h) as one more line of run's
 * registry (runner/registry.h), in the test build build/bootrig-fake only
 * (the Makefile compiles runner/registry.c again with BOOTRIG_TEST_BACKEND
 * naming fake_backend_def). It is what a new backend adds: a definition
 * and its operations; nothing in runner/, lib/ or compare/ changes.
 *
 * The run is the fake's when BOOTRIG_FAKE_CONSOLE names a file (an
 * environment variable: bisect forwards run's options as the real bootrig
 * lists them, and the fake's are none of those). Every boot then prints
 * that file's bytes (read when the backend is made: a bisection's build
 * may rewrite it at each step) and powers off. The other backends' options
 * are parsed by their own fragments and checked by their own check() and
 * config_loaded() as in bootrig, and none of them plans the run: when
 * BOOTRIG_FAKE_LOG names a file, a line "BACKEND --OPTION" is appended to
 * it for each option of another backend's fragment that the run was given,
 * so that a test sees which options reached run and whose they are.
 */
#include "backend.h"
#include "fake-backend.h"
#include "registry.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *console;                 /* BOOTRIG_FAKE_CONSOLE's bytes */
static size_t console_len;
static struct fake_step steps[3];
static struct fake_script script;
static int (*fake_prepare)(struct backend *be, struct machine *m, const struct machine_spec *spec);
/* the fake's table with prepare wrapped (its own is const) */
static struct backend_ops wrapped_ops;

/* Every boot follows the one script (fake-backend.c finds it by the
 * kernel's name "fake:0"). */
static int fake_def_prepare(struct backend *be, struct machine *m, const struct machine_spec *spec)
{
	struct machine_spec one = *spec;
	one.kernel = "fake:0";
	return fake_prepare(be, m, &one);
}

/* BOOTRIG_FAKE_LOG: "BACKEND --OPTION" for each other backend's option given. */
static void log_options(void)
{
	const char *path = getenv("BOOTRIG_FAKE_LOG");
	FILE *f = path ? fopen(path, "a") : NULL;
	if (!f)
		return;
	for (const struct backend_def *const *d = backend_registry; *d; d++)
		for (const struct backend_option *o = (*d)->options; o && o->opt.long_name; o++)
			if (registry_given(o->opt.long_name))
				fprintf(f, "%s --%s\n", (*d)->name, o->opt.long_name);
	fclose(f);
}

static int fake_plan(struct run_request *rq)
{
	(void)rq;
	if (!getenv("BOOTRIG_FAKE_CONSOLE"))
		return 0;
	log_options();
	return 1;
}

static struct backend *fake_create(struct run_request *rq, const char **where)
{
	(void)rq;
	const char *path = getenv("BOOTRIG_FAKE_CONSOLE");
	if (read_file(path, &console, &console_len) < 0)
		die("BOOTRIG_FAKE_CONSOLE %s: %s", path, strerror(errno));
	steps[0] = (struct fake_step){ FAKE_PRINT, console, console_len, 0 };
	steps[1] = (struct fake_step){ FAKE_OFF, NULL, 0, 0 };
	script = (struct fake_script){ .steps = steps };
	fake_reset(&script, 1);
	struct backend *be = fake_backend_new();
	wrapped_ops = *be->ops;
	fake_prepare = wrapped_ops.prepare;
	wrapped_ops.prepare = fake_def_prepare;
	be->ops = &wrapped_ops;
	*where = NULL;
	return be;
}

static void fake_release_def(void)
{
	free(console);
	console = NULL;
}

const struct backend_def fake_backend_def = {
	.name = "fake",
	.plan = fake_plan,
	.create = fake_create,
	.release = fake_release_def,
};
