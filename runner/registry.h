/*
 * registry.h: the backends `bootrig run` knows, one definition each, in one
 * table (runner/registry.c). A backend brings, besides its operations
 * (backend.h), everything of run that is its own: its options (a fragment
 * of run's option table: --help and --list-options print them, bisect
 * forwards them), the config keys it owns (lib/config.h's extensions), the
 * checks of its options, the choice of whether a run is its own, its
 * planning and its constructor. runner/cmd-run.c loops over the table and
 * names no backend; a new backend is a folder runner/<name>/ with a
 * definition and one line in the table.
 *
 * A run, as cmd-run.c drives it:
 *
 *   registry_early(argc, argv)        before anything initialises (a
 *                                     backend may re-exec bootrig here)
 *   registry_options(core)            run's table: core + every fragment
 *   options_parse(...)                the fragments' values are the backends'
 *   registry_check(rq)                each backend's option conflicts
 *   registry_config_keys()            (at start-up) the config keys they own
 *   config_load(...)
 *   registry_config_loaded(rq)        each backend checks its part of the config
 *   ... kernels, targets ...
 *   def = registry_choose(rq)         the first whose plan() claims the run
 *   ... the jobs (rq->plan) ...
 *   def->jobs_ready(rq)               per-boot work before anything boots
 *   be = def->create(rq)
 *   registry_release()                every backend frees its run state
 *
 * Every hook that fails prints its message (lib/usage.h) and returns the
 * exit status (lib/exitcodes.h); the messages are run's ("run: ...").
 */
#ifndef BOOTRIG_REGISTRY_H
#define BOOTRIG_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include "options.h"

struct backend;
struct config;
struct config_extension;
struct kernel;
struct run_plan;
struct target;

/*
 * What run's own side knows of the run, for the backends' hooks: filled by
 * cmd-run.c step by step (the config after registry_config_loaded() is
 * called, the kernels and targets before registry_choose(), the plan's
 * jobs before jobs_ready()).
 */
struct run_request {
	const char *target;                 /* --target NAME, or NULL */
	int jobs;                           /* -j N, or 0 when not given */
	bool no_wait;                       /* --no-wait given: refuse what is busy
					     * at once (RESULTS_DIR's lock too) */
	const struct config *cfg;
	const struct kernel *kernels;       /* the kernels, n_kernels of them */
	const struct target *const *targets;    /* per kernel */
	size_t n_kernels;
	struct run_plan *plan;              /* the jobs (cmd-run.c's) */

	/* Set by the backends' hooks. */
	int slots;                          /* create(): boots at once its hosts
					     * take (0: no list), for -j's default */
	/* A machine of the config that one backend reads (site.owner, its
	 * name) and another boots (site.booted_by: that one's name; NULL: its
	 * owner): a LAVA lab's board. Strings valid until registry_release(). */
	struct run_site {
		const char *owner, *booted_by;
		const char *name, *file, *arch;
		const char *kind, *url, *token_file, *extra;  /* the booter's words:
					     * device type, server, token file, a file
					     * for every boot (a DTB) */
	} site;
};

/*
 * One option of a backend's fragment, and where it goes in run's table:
 * after the entry whose long name is `after` (a core option or an earlier
 * one of any fragment), so that --help keeps one order.
 */
struct backend_option {
	const char *after;
	struct opt opt;
};

/* What jobs_ready() may return besides 0 and an exit status: the run is
 * complete without booting (exit 0). */
#define RUN_DONE (-1)

struct backend_def {
	const char *name;                   /* result.json "backend", config's `backend` */
	/* Its options, ending with { NULL, OPT_END() }; their values are the
	 * backend's own (static: one run per process). May be NULL. */
	const struct backend_option *options;
	/* Its config keys (lib/config.h): target keys and top-level lists. May
	 * be NULL. */
	const struct config_extension *config;
	/* Optional: first thing of the command, before libraries initialise
	 * (argv[-1] the program's argv[0]); may exec bootrig again. */
	void (*early)(int argc, char **argv);
	/* Optional: its options' conflicts, after parsing. 0 or EXIT_USAGE. */
	int (*check)(const struct run_request *rq);
	/* Optional: its part of the loaded config (rq->cfg). 0 or an exit status. */
	int (*config_loaded)(struct run_request *rq);
	/* Is the run this backend's? 1 (it planned it), 0 (not its), or a
	 * usage, config or infrastructure exit status (> 1) after a message.
	 * Asked in the table's order; the last definition claims what no other
	 * did. */
	int (*plan)(struct run_request *rq);
	/* Optional: after the jobs are laid out, before anything boots. 0,
	 * RUN_DONE or an exit status. */
	int (*jobs_ready)(struct run_request *rq);
	/* The run's backend (never NULL: one that cannot be loaded fails open()
	 * with the reason); sets rq->slots. *where: result.json's where. */
	struct backend *(*create)(struct run_request *rq, const char **where);
	/* The most boots at once (0: no limit) and, when -j asks for more, the
	 * warning's first words ("--board: a board boots one kernel at a time"). */
	int max_parallel;
	const char *max_parallel_why;
	/* Optional: frees what its hooks kept (at the run's end). */
	void (*release)(void);
};

/* The table: every backend, NULL-terminated, in the order plan() is asked. */
extern const struct backend_def *const backend_registry[];

/* Calls every early() hook. */
void registry_early(int argc, char **argv);

/*
 * registry_options: run's option table: core (ending with OPT_END()) with
 * every backend's options placed after their `after` entry (an option whose
 * `after` is no entry's goes last). The registry's own, valid until
 * registry_release().
 */
const struct opt *registry_options(const struct opt *core);

/*
 * registry_given: whether run's option long_name (any backend's) was given
 * to the table registry_options() made and options_parse() filled: a
 * string set, a flag true, a repeatable one given once or more, a callback
 * called (the table's callback entries note it, then call their own).
 */
bool registry_given(const char *long_name);

/* Every check(), in the table's order: the first failure's status, or 0. */
int registry_check(const struct run_request *rq);

/* Registers every backend's config keys (config_extend()); done when the
 * program starts (a constructor), before any command reads the config. */
void registry_config_keys(void);

/* Every config_loaded(): the first failure's status, or 0. */
int registry_config_loaded(struct run_request *rq);

/* The backend whose plan() claims the run; NULL with *rc the failure's
 * status. */
const struct backend_def *registry_choose(struct run_request *rq, int *rc);

/* Every release(). */
void registry_release(void);

#endif
