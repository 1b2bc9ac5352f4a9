/*
 * test_matrix_fake.c: the runner's loop, matrix_run() (runner/matrix.c),
 * driven through the fake backend (fake-backend.h): a good boot, a
 * refusal, a crash, a silent console, operations that hang past
 * --op-timeout, -j, SIGINT at every step, a host failure booted again
 * elsewhere, the backend's retry policy (a retry with its reason kept in
 * result.json, a retry refused) and the KVM-proof rule as a retry policy
 * (the fake's own). Each test makes a results directory under /tmp and
 * removes it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake-backend.h"
#include "backend.h"
#include "config.h"
#include "exitcodes.h"
#include "matrix.h"
#include "util.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The fake backend is compiled into this test only. */
#include "fake-backend.c"

#define PASS_LOG "tests/fixtures/judge/pass-cloud-arm64.log"
#define MAX_JOBS 8

/* ---------------------------------------------------------------- a run */

static struct target target = { .name = "fake-virt", .arch = "arm64" };

struct run {
	char *dir;                    /* the results directory */
	struct boot_job jobs[MAX_JOBS];
	struct run_plan plan;
	const char *accel;            /* --accel, or NULL: "auto" */
	bool long_stages;             /* stage limits 100 times the defaults */
	int rc;
};

/* A good boot's console (PASS_LOG) in about 20 pieces cut at line ends,
 * 0.5 virtual seconds apart; then the machine powers off. */
static char *good_log;
static size_t good_len;
static struct fake_step good_steps[64];

static int load_good_log(void **state)
{
	(void)state;
	if (read_file(PASS_LOG, &good_log, &good_len) < 0)
		return -1;
	size_t n = 0, at = 0, piece = good_len / 20 + 1;
	while (at < good_len && n + 4 < ARRAY_SIZE(good_steps)) {
		size_t end = at + piece < good_len ? at + piece : good_len;
		while (end < good_len && good_log[end - 1] != '\n')
			end++;
		good_steps[n++] = (struct fake_step){ FAKE_PRINT, good_log + at, end - at, 0 };
		good_steps[n++] = (struct fake_step){ FAKE_WAIT, NULL, 0, 0.5 };
		at = end;
	}
	good_steps[n++] = (struct fake_step){ FAKE_WAIT, NULL, 0, 1.0 };
	good_steps[n++] = (struct fake_step){ FAKE_OFF, NULL, 0, 0 };
	return 0;
}

static int free_good_log(void **state)
{
	(void)state;
	free(good_log);
	return 0;
}

static int make_run(void **state)
{
	struct run *r = xcalloc(1, sizeof(*r));
	r->dir = xstrdup("/tmp/test_matrix_fake.XXXXXX");
	if (!mkdtemp(r->dir))
		return -1;
	*state = r;
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static int free_run(void **state)
{
	struct run *r = *state;
	if (r->dir && !strncmp(r->dir, "/tmp/test_matrix_fake.", 22))
		nftw(r->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	for (size_t i = 0; i < r->plan.n_jobs; i++)
		boot_job_release(&r->jobs[i]);
	free(r->dir);
	free(r);
	return 0;
}

/* Runs n boots of scripts (boot i follows scripts[i % n_scripts]), j at
 * once, with --op-timeout op_timeout and the judge's silence limit
 * silence (virtual seconds). */
static void run(struct run *r, const struct fake_script *scripts, size_t n_scripts, size_t n,
		int j, double op_timeout, double silence)
{
	assert_true(n <= MAX_JOBS);
	static char ids[MAX_JOBS][16];
	fake_reset(scripts, n_scripts);
	for (size_t i = 0; i < n; i++) {
		struct boot_job *job = &r->jobs[i];
		snprintf(ids[i], sizeof(ids[i]), "fake:%zu", i % n_scripts);
		*job = (struct boot_job){
			.kernel_path = ids[i], .kernel_image = ids[i], .kernel_id = ids[i],
			.kernel_arch = "arm64", .kernel_version = "6.1.0", .target = &target,
			.variant = "default", .cmdline = xstrdup("console=ttyAMA0"),
			.boot = (int)i + 1, .dir = xasprintf("%s/%zu", r->dir, i),
			.accel = r->accel ? r->accel : "auto",
			.summary_rank = i,
		};
		judge_default_limits(&job->limits);
		for (int st = 0; st < STAGE_COUNT && r->long_stages; st++)
			job->limits.stage[st] *= 100;
		job->limits.silence = silence;
	}
	r->plan = (struct run_plan){ .backend = fake_backend_new(), .jobs = r->jobs, .n_jobs = n,
				     .parallel = j, .op_timeout = op_timeout };
	r->rc = matrix_run(&r->plan);
}

/* Every machine released and powered off, the backend closed. */
static void assert_all_stopped(void)
{
	assert_int_equal(atomic_load(&fake_stats.alive), 0);
	assert_int_equal(atomic_load(&fake_stats.powered), 0);
	assert_int_equal(atomic_load(&fake_stats.closed), 1);
}

static void assert_reason(const struct boot_job *job, const char *part)
{
	if (!job->reason || !strstr(job->reason, part))
		fail_msg("reason '%s' lacks '%s'", job->reason ? job->reason : "(none)", part);
}

static bool exists(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	bool yes = access(p, F_OK) == 0;
	free(p);
	return yes;
}

/* dir/name holds text. */
static void assert_file_has(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name), *got = NULL;
	size_t len;
	if (read_file(p, &got, &len) < 0)
		fail_msg("cannot read %s", p);
	if (!strstr(got, text))
		fail_msg("%s lacks '%s'", p, text);
	free(got);
	free(p);
}

/* ---------------------------------------------------------------- the tests */

static void good_console_passes(void **state)
{
	struct run *r = *state;
	const struct fake_script s[] = { { .steps = good_steps } };
	run(r, s, 1, 1, 1, 0, 120);
	assert_int_equal(r->rc, 0);
	assert_true(r->jobs[0].done);
	assert_int_equal(r->jobs[0].verdict, VERDICT_PASS);
	assert_true(exists(r->jobs[0].dir, "result.json"));
	assert_true(exists(r->jobs[0].dir, "console.log"));
	assert_all_stopped();
}

static void refused_power_on_is_infra_error(void **state)
{
	struct run *r = *state;
	const struct fake_script s[] = {
		{ .steps = good_steps, .refuse = "power on", .refusal = "fake: the PDU said no" },
	};
	run(r, s, 1, 1, 1, 0, 120);
	assert_int_equal(r->rc, EXIT_INFRA);
	assert_int_equal(r->jobs[0].verdict, VERDICT_INFRA_ERROR);
	assert_reason(&r->jobs[0], "the PDU said no");
	assert_all_stopped();
}

/* A kernel that panics: the console ends with the machine. */
static void crash_is_panic(void **state)
{
	struct run *r = *state;
	const struct fake_step steps[] = {
		{ FAKE_PRINT, "[    0.000000] Linux version 6.1.0 (fake) #1 SMP\n", 0, 0 },
		{ FAKE_WAIT, NULL, 0, 1.0 },
		{ FAKE_PRINT, "[    1.000000] Kernel panic - not syncing: VFS: Unable to mount "
			      "root fs on unknown-block(0,0)\n", 0, 0 },
		{ FAKE_OFF, NULL, 0, 0 },
	};
	const struct fake_script s[] = { { .steps = steps } };
	run(r, s, 1, 1, 1, 0, 120);
	assert_int_equal(r->jobs[0].verdict, VERDICT_PANIC);
	assert_reason(&r->jobs[0], "VFS");
	assert_all_stopped();
}

/* The console stops mid-boot: the silence limit (10 virtual seconds,
 * 0.2 s of the host's) ends it as HANG, and the runner stops the machine. */
static void silent_console_is_hang(void **state)
{
	struct run *r = *state;
	const struct fake_step steps[] = {
		{ FAKE_PRINT, "[    0.000000] Linux version 6.1.0 (fake) #1 SMP\n", 0, 0 },
		{ FAKE_SILENT, NULL, 0, 0 },
	};
	const struct fake_script s[] = { { .steps = steps } };
	run(r, s, 1, 1, 1, 0, 10);
	assert_int_equal(r->jobs[0].verdict, VERDICT_HANG);
	assert_reason(&r->jobs[0], "silent");
	assert_all_stopped();
}

/* Operations in workers that hang past --op-timeout (1 s), one in each
 * of three boots at once: each boot is INFRA_ERROR naming its operation,
 * its machine abandoned by the runner (the reason is the runner's, not
 * the fake's, whose hang gives up by itself after FAKE_HANG_CAP). No
 * timed assertion: the reasons and the counts tell. */
static void hung_operations_are_infra_errors(void **state)
{
	struct run *r = *state;
	const char *ops[] = { "prepare", "power on", "stop" };
	const struct fake_script s[] = {
		{ .steps = good_steps, .hang = ops[0] },
		{ .steps = good_steps, .hang = ops[1] },
		{ .steps = good_steps, .hang = ops[2] },
	};
	run(r, s, 3, 3, 3, 1.0, 120);
	assert_int_equal(r->rc, EXIT_INFRA);
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++) {
		assert_int_equal(r->jobs[i].verdict, VERDICT_INFRA_ERROR);
		char *want = xasprintf("backend operation '%s' did not return in 1 s", ops[i]);
		assert_reason(&r->jobs[i], want);
		free(want);
	}
	assert_int_equal(atomic_load(&fake_stats.abandoned), 3);
	assert_all_stopped();
}

/* -j 2 with four boots: two at a time, never more, all judged. */
static void two_at_once_of_four(void **state)
{
	struct run *r = *state;
	const struct fake_script s[] = { { .steps = good_steps } };
	run(r, s, 1, 4, 2, 0, 120);
	assert_int_equal(r->rc, 0);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(r->jobs[i].verdict, VERDICT_PASS);
	assert_int_equal(atomic_load(&fake_stats.max_powered), 2);
	assert_int_equal(atomic_load(&fake_stats.prepared), 4);
	assert_all_stopped();
}

/* Ctrl-C in each operation of the second boot of two (-j 2): the run ends
 * by itself with 130 (the watchdog's emergency stop never needed), the
 * interrupted boot has no result and every machine is stopped. */
static void interrupt_at_every_step(void **state)
{
	struct run *r = *state;
	const char *ops[] = { "prepare", "power on", "console", "state", "stop" };
	/* still running, silent, when Ctrl-C comes; off by itself 3 s later
	 * (so that a runner deaf to it fails this test, not hangs it) */
	const struct fake_step quiet[] = { { FAKE_WAIT, NULL, 0, 3 * FAKE_SPEED }, { FAKE_OFF, NULL, 0, 0 } };
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++) {
		const struct fake_script s[] = {
			{ .steps = quiet },
			{ .steps = good_steps, .interrupt = ops[i] },
		};
		for (size_t k = 0; k < r->plan.n_jobs; k++)
			boot_job_release(&r->jobs[k]);
		memset(r->jobs, 0, sizeof(r->jobs));
		r->long_stages = true;   /* the silent boot outlives the other's */
		run(r, s, 2, 2, 2, 0, 0);
		if (r->rc != EXIT_SIGINT)
			fail_msg("Ctrl-C in %s: exit %d, not %d", ops[i], r->rc, EXIT_SIGINT);
		assert_true(r->jobs[0].interrupted);
		assert_false(r->jobs[0].done);
		assert_true(r->jobs[1].interrupted || r->jobs[1].done);
		assert_all_stopped();
		assert_int_equal(atomic_load(&fake_stats.emergency), 0);
	}
}

/* The host side fails a boot on host 0: it is booted again on host 1,
 * the attempt kept in attempt-1/. */
static void host_failure_boots_elsewhere(void **state)
{
	struct run *r = *state;
	const struct fake_script s[] = { { .steps = good_steps, .host0_fails = true } };
	run(r, s, 1, 1, 1, 0, 120);
	assert_int_equal(r->rc, 0);
	assert_int_equal(r->jobs[0].verdict, VERDICT_PASS);
	assert_int_equal(atomic_load(&fake_stats.host_failures), 1);
	assert_int_equal(atomic_load(&fake_stats.prepared), 2);
	assert_true(exists(r->jobs[0].dir, "attempt-1"));
	assert_all_stopped();
}

/* Under a KVM not proven on its host, no kernel output in FAKE_KVM_PROOF
 * (5 virtual seconds): the boot runs again under TCG and passes; the kernel
 * is not blamed and the backend learns that KVM failed. */
static void unproven_kvm_runs_again_under_tcg(void **state)
{
	struct run *r = *state;
	const struct fake_script s[] = { { .steps = good_steps, .kvm_unproven = true } };
	run(r, s, 1, 1, 1, 0, 120);
	assert_int_equal(r->rc, 0);
	assert_int_equal(r->jobs[0].verdict, VERDICT_PASS);
	assert_int_equal(atomic_load(&fake_stats.prepared), 2);
	assert_int_equal(atomic_load(&fake_stats.kvm_bad), 1);
	assert_true(exists(r->jobs[0].dir, "attempt-kvm"));
	assert_file_has(r->jobs[0].dir, "result.json", "kvm printed no kernel output in 5 s");
	assert_all_stopped();
}

/* With --accel kvm the same silence is INFRA_ERROR, never the kernel's. */
static void unproven_forced_kvm_is_infra_error(void **state)
{
	struct run *r = *state;
	const struct fake_script s[] = { { .steps = good_steps, .kvm_unproven = true } };
	r->accel = "kvm";
	run(r, s, 1, 1, 1, 0, 120);
	assert_int_equal(r->rc, EXIT_INFRA);
	assert_int_equal(r->jobs[0].verdict, VERDICT_INFRA_ERROR);
	assert_reason(&r->jobs[0], "kvm printed no kernel output in 5 s");
	assert_reason(&r->jobs[0], "the kernel is not blamed");
	assert_int_equal(atomic_load(&fake_stats.prepared), 1);
	assert_all_stopped();
}

/* The backend's retry policy says "boot it again, with this reason" when
 * power on fails: the attempt is kept where it says (attempt-retry/), the
 * boot runs again (under what it asked) and passes; the reason is kept in
 * result.json, and the attempt's console beside it. */
static void retry_with_reason_is_kept(void **state)
{
	struct run *r = *state;
	const struct fake_script s[] = {
		{ .steps = good_steps, .refuse = "power on", .refusal = "fake: the relay stuck",
		  .retry = "fake: the lab asked for another go" },
	};
	run(r, s, 1, 1, 1, 0, 120);
	assert_int_equal(r->rc, 0);
	assert_int_equal(r->jobs[0].verdict, VERDICT_PASS);
	assert_int_equal(atomic_load(&fake_stats.retries), 1);
	assert_int_equal(atomic_load(&fake_stats.prepared), 2);
	assert_true(exists(r->jobs[0].dir, "attempt-retry/console.log"));
	assert_file_has(r->jobs[0].dir, "result.json",
			"\"accelerator_fallback\":\"fake: the lab asked for another go\"");
	assert_all_stopped();
}

/* The policy refuses a second retry: the boot that fails again goes to
 * the runner's own handling (booted on the other host, attempt-1/, where
 * it fails too), and ends as INFRA_ERROR with the backend's reason; the
 * retry is never made twice. */
static void retry_refused_is_infra_error(void **state)
{
	struct run *r = *state;
	const struct fake_script s[] = {
		{ .steps = good_steps, .refuse = "power on", .refusal = "fake: the relay stuck",
		  .retry = "fake: the lab asked for another go", .refuse_again = true },
	};
	run(r, s, 1, 1, 1, 0, 120);
	assert_int_equal(r->rc, EXIT_INFRA);
	assert_int_equal(r->jobs[0].verdict, VERDICT_INFRA_ERROR);
	assert_reason(&r->jobs[0], "the relay stuck");
	assert_int_equal(atomic_load(&fake_stats.retries), 1);
	assert_int_equal(atomic_load(&fake_stats.retries_refused), 2);
	assert_int_equal(atomic_load(&fake_stats.host_failures), 2);
	assert_int_equal(atomic_load(&fake_stats.prepared), 3);
	assert_true(exists(r->jobs[0].dir, "attempt-retry/console.log"));
	assert_true(exists(r->jobs[0].dir, "attempt-1/console.log"));
	assert_all_stopped();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(good_console_passes, make_run, free_run),
		cmocka_unit_test_setup_teardown(refused_power_on_is_infra_error, make_run, free_run),
		cmocka_unit_test_setup_teardown(crash_is_panic, make_run, free_run),
		cmocka_unit_test_setup_teardown(silent_console_is_hang, make_run, free_run),
		cmocka_unit_test_setup_teardown(hung_operations_are_infra_errors, make_run, free_run),
		cmocka_unit_test_setup_teardown(two_at_once_of_four, make_run, free_run),
		cmocka_unit_test_setup_teardown(interrupt_at_every_step, make_run, free_run),
		cmocka_unit_test_setup_teardown(host_failure_boots_elsewhere, make_run, free_run),
		cmocka_unit_test_setup_teardown(unproven_kvm_runs_again_under_tcg, make_run, free_run),
		cmocka_unit_test_setup_teardown(unproven_forced_kvm_is_infra_error, make_run, free_run),
		cmocka_unit_test_setup_teardown(retry_with_reason_is_kept, make_run, free_run),
		cmocka_unit_test_setup_teardown(retry_refused_is_infra_error, make_run, free_run),
	};
	return cmocka_run_group_tests(tests, load_good_log, free_good_log);
}
