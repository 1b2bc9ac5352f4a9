/*
 * board-def.c: the boards' entry in run's registry (registry.h): --board
 * NAME, the config's list of boards (and configs/boards/), the checks of a
 * board run, and the constructor. A board of a LAVA lab (backend =
 * "lava") is read here and handed to the backend that boots it
 * (struct run_site): LAVA's.
 */
#include "backend.h"
#include "board.h"
#include "config.h"
#include "exitcodes.h"
#include "matrix.h"
#include "registry.h"
#include "util.h"

#include <string.h>

/* --board NAME, --no-wait */
static const char *board_name;
static bool no_wait;

/* The board of the run, loaded by board_config_loaded(). */
static struct board board;
static bool loaded;

static const struct backend_option board_options[] = {
	{ "connect", OPT_STRING('b', "board", &board_name, "NAME", "boot on this board from the config instead of libvirt") },
	{ "board", OPT_FLAG('W', "no-wait", &no_wait, "refuse a busy board or results directory at once (exit 125), do not wait") },
	{ NULL, OPT_END() },
};

static const struct config_extension board_config = {
	.owner = "board", .list = BOARD_LIST, .dir = BOARD_LIST,
};

static int board_check(const struct run_request *rq)
{
	if (board_name && registry_given("connect"))
		return error("run: --connect and --board cannot be used together"), EXIT_USAGE;
	if (board_name && rq->target)
		return error("run: --target is for libvirt machines, not with --board"), EXIT_USAGE;
	return 0;
}

/* --board NAME: the board is in the config and its config is right; a LAVA
 * lab's is described to its booter (rq->site). 0, EXIT_USAGE (no such
 * board) or EXIT_CONFIG. */
static int board_config_loaded(struct run_request *rq)
{
	if (!board_name)
		return 0;
	if (!config_find_group(rq->cfg, BOARD_LIST, board_name, NULL))
		return error("no board '%s' in the configuration", board_name), EXIT_USAGE;
	int rc = board_load(rq->cfg, board_name, &board);
	if (rc)
		return rc;
	loaded = true;
	rq->site = (struct run_site){
		.owner = board_config.owner, .booted_by = board.lava ? "lava" : NULL,
		.name = board.name, .file = board.file, .arch = board.arch,
		.kind = board.device_type, .url = board.lava_url,
		.token_file = board.lava_token_file, .extra = board.lava_dtb,
	};
	return 0;
}

/* The run is the boards' when --board names one bootrig drives. */
static int board_plan(struct run_request *rq)
{
	return board_name && !rq->site.booted_by;
}

/* Each boot's result.json "target" is the board's name. */
static int board_jobs_ready(struct run_request *rq)
{
	for (size_t i = 0; i < rq->plan->n_jobs; i++)
		rq->plan->jobs[i].machine = board_name;
	return 0;
}

static struct backend *board_create(struct run_request *rq, const char **where)
{
	struct board_options o = { .no_wait = rq->no_wait };
	struct backend *be = backend_board_new(&o);
	*where = board_name;
	return be;
}

static void board_release_def(void)
{
	if (loaded)
		board_release(&board);
	loaded = false;
}

const struct backend_def board_backend_def = {
	.name = "board",
	.options = board_options,
	.config = &board_config,
	.check = board_check,
	.config_loaded = board_config_loaded,
	.plan = board_plan,
	.jobs_ready = board_jobs_ready,
	.create = board_create,
	.max_parallel = 1,
	.max_parallel_why = "--board: a board boots one kernel at a time",
	.release = board_release_def,
};
