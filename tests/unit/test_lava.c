/*
 * test_lava.c: the LAVA parts without a server (runner/lava/lava.h): the job
 * writer (its shape, every string quoted and escaped, what it refuses),
 * file URLs, the log reader on LAVA's own lines (escapes, the dispatcher's
 * '\"', results lines' error_msg, broken lines refused) and on two logs a
 * real lava-dispatcher 2023.01 wrote (tests/fixtures/lava/bootrig-*.yaml),
 * and the mapping of a job's state and health.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "lava.h"
#include "util.h"

static struct judge_limits limits(void)
{
	struct judge_limits l;
	memset(&l, 0, sizeof(l));
	judge_default_limits(&l);
	return l;
}

static struct lava_job_params qemu_params(const struct judge_limits *l)
{
	return (struct lava_job_params){
		.job_name = "bootrig k default #1", .device_type = "qemu", .arch = "arm64",
		.machine = "virt", .cpu = "cortex-a57", .memory_mb = 512, .vcpus = 1,
		.icount = "shift=3,sleep=off", .seed = "1", .kernel_url = "file:///k/Image",
		.initrd_url = "file:///k/initramfs.img", .cmdline = "console=ttyAMA0 panic=-1",
		.limits = l,
	};
}

static char *job_text(const struct lava_job_params *p, int *rc, char *err, size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	*rc = lava_job_write(p, &sb, err, errlen);
	if (!sb.buf)
		strbuf_add(&sb, "", 0);
	return sb.buf;
}

static void test_job_shape(void **state)
{
	(void)state;
	struct judge_limits l = limits();
	struct lava_job_params p = qemu_params(&l);
	char err[300] = "";
	int rc;
	char *y = job_text(&p, &rc, err, sizeof(err));
	assert_int_equal(rc, 0);
	const char *want[] = {
		"device_type: \"qemu\"\n", "job_name: \"bootrig k default #1\"\n",
		"  arch: \"arm64\"\n", "  no_kvm: true\n", "  - \"-no-reboot\"\n",
		"  - \"-icount shift=3,sleep=off\"\n", "  - \"-seed 1\"\n",
		"  - \"-rtc base=2026-01-01T00:00:00,clock=vm\"\n",
		"  - \"-append \\\"console=ttyAMA0 panic=-1\\\"\"\n",
		"    to: \"tmpfs\"\n", "        image_arg: \"-kernel {kernel}\"\n",
		"        url: \"file:///k/initramfs.img\"\n", "    method: \"qemu\"\n",
		"      start: \"@@BR 1 0 BEGIN \"\n",
		"      end: \"@@BR 1 [0-9]+ END [^\\x0d\\x0a]*[*][0-9a-f]{8}\"\n",
		"status=(?P<result>[a-z]+) \"\n",
		"        unsupported: \"skip\"\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		if (!strstr(y, want[i]))
			fail_msg("missing %s in:\n%s", want[i], y);
	/* timeouts from the stage limits: boot = firmware + kernel */
	char boot[64];
	snprintf(boot, sizeof(boot), "- boot:\n    timeout:\n      seconds: %ld\n",
		 (long)(l.stage[STAGE_FIRMWARE] + l.stage[STAGE_KERNEL]));
	assert_non_null(strstr(y, boot));
	assert_null(strstr(y, "dtb"));
	free(y);
}

/* Deterministic only under icount with a seed (runner/backend.h): x86's
 * SMBIOS UUID too; --seed random (no seed) or the wall clock: none. */
static void test_job_seed(void **state)
{
	(void)state;
	struct judge_limits l = limits();
	struct lava_job_params p = qemu_params(&l);
	char err[300] = "";
	int rc;
	p.arch = "x86_64", p.machine = "q35", p.cpu = "max", p.seed = "42";
	char *y = job_text(&p, &rc, err, sizeof(err));
	assert_int_equal(rc, 0);
	assert_non_null(strstr(y, "  - \"-seed 42\"\n"));
	assert_non_null(strstr(y, "  - \"-smbios type=1,uuid=" ICOUNT_SMBIOS_UUID "\"\n"));
	free(y);
	p.seed = NULL;
	y = job_text(&p, &rc, err, sizeof(err));
	assert_int_equal(rc, 0);
	assert_null(strstr(y, "-seed"));
	assert_null(strstr(y, "-rtc"));
	assert_null(strstr(y, "-smbios"));
	free(y);
	p.seed = "1", p.icount = NULL;
	y = job_text(&p, &rc, err, sizeof(err));
	assert_int_equal(rc, 0);
	assert_null(strstr(y, "-seed"));
	free(y);
}

static void test_job_quoting(void **state)
{
	(void)state;
	struct judge_limits l = limits();
	struct lava_job_params p = qemu_params(&l);
	p.job_name = "a\"b\\c\nd\033e\xc2\x85 caf\xc3\xa9";
	p.machine = "virt\n- evil: 1";
	char err[300] = "";
	int rc;
	char *y = job_text(&p, &rc, err, sizeof(err));
	assert_int_equal(rc, 0);
	assert_non_null(strstr(y, "job_name: \"a\\\"b\\\\c\\x0ad\\x1be\\x85 caf\xc3\xa9\"\n"));
	assert_non_null(strstr(y, "  machine: \"virt\\x0a- evil: 1\"\n"));
	assert_null(strstr(y, "\n- evil"));
	free(y);
}

static void test_job_refused(void **state)
{
	(void)state;
	struct judge_limits l = limits();
	struct lava_job_params p = qemu_params(&l);
	char err[300] = "";
	int rc;
	p.cmdline = "console=ttyAMA0 init=\"/x\"";
	free(job_text(&p, &rc, err, sizeof(err)));
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err, "quote or a backslash"));
	p = qemu_params(&l);
	p.job_name = "bad \xff byte";
	free(job_text(&p, &rc, err, sizeof(err)));
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err, "UTF-8"));
	p = qemu_params(&l);
	p.arch = "mips";
	free(job_text(&p, &rc, err, sizeof(err)));
	assert_int_equal(rc, -1);
}

static void test_job_tftp(void **state)
{
	(void)state;
	struct judge_limits l = limits();
	struct lava_job_params p = qemu_params(&l);
	p.tftp = true;
	p.device_type = "bbb";
	p.dtb_url = "http://s/x.dtb";
	p.kernel_type = "zimage";
	char err[300] = "";
	int rc;
	char *y = job_text(&p, &rc, err, sizeof(err));
	assert_int_equal(rc, 0);
	assert_non_null(strstr(y, "    to: \"tftp\"\n    kernel:\n"));
	assert_non_null(strstr(y, "      type: \"zimage\"\n"));
	assert_non_null(strstr(y, "    dtb:\n      url: \"http://s/x.dtb\"\n"));
	assert_non_null(strstr(y, "    method: \"u-boot\"\n    commands: \"ramdisk\"\n"));
	/* the command line, but bootrig's console=, for base-uboot's bootargs */
	assert_non_null(strstr(y, "context:\n  extra_kernel_args: \"panic=-1\"\n"));
	free(y);
	p.cmdline = "console=ttyS0 panic=-1 x='1'";
	free(job_text(&p, &rc, err, sizeof(err)));
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err, "single quote"));
}

static void test_file_url(void **state)
{
	(void)state;
	char err[300];
	char *u = lava_file_url(NULL, "/a/b.img", err, sizeof(err));
	assert_string_equal(u, "file:///a/b.img");
	free(u);
	u = lava_file_url("http://store/x//", "/a/b.img", err, sizeof(err));
	assert_string_equal(u, "http://store/x/a/b.img");
	free(u);
	assert_null(lava_file_url(NULL, "/a b", err, sizeof(err)));
	assert_non_null(strstr(err, "escape"));
	assert_null(lava_file_url(NULL, "rel/x", err, sizeof(err)));
	assert_non_null(strstr(err, "absolute"));
}

static void test_log_line(void **state)
{
	(void)state;
	struct lava_log_line l;
	const char *line = "- {\"dt\": \"2026-12-03T06:21:41.615082\", \"lvl\": \"target\", "
			   "\"msg\": \"[    0.000000] say \\\\\\\"hi\\\\\\\" \\\\ \\x01\\u00e9\\U0001F600\\t.\"}";
	assert_int_equal(lava_log_parse_line(line, strlen(line), &l), 0);
	assert_string_equal(l.lvl, "target");
	/* the dispatcher's \" undone; a real backslash kept */
	assert_string_equal(l.msg, "[    0.000000] say \"hi\" \\ \x01\xc3\xa9\xf0\x9f\x98\x80\t.");
	double whole = lava_parse_dt("2026-12-03T06:21:41");
	assert_true(whole > 0 && l.dt - whole > 0.615081 && l.dt - whole < 0.615083);
	lava_log_line_release(&l);

	line = "- {\"dt\": \"2026-12-03T06:33:16.226423\", \"lvl\": \"results\", \"msg\": {\"case\": "
	       "\"job\", \"definition\": \"lava\", \"error_msg\": \"Invalid \\\"x\\\"\", \"extra\": "
	       "{\"a\": [1, 2, {\"b\": null}]}, \"duration\": 1.5}}";
	assert_int_equal(lava_log_parse_line(line, strlen(line), &l), 0);
	assert_string_equal(l.lvl, "results");
	assert_null(l.msg);
	assert_string_equal(l.error_msg, "Invalid \"x\"");
	lava_log_line_release(&l);

	/* not a target line: its \" stays a quote as YAML said */
	line = "- {\"dt\": \"2026-12-03T06:33:16.2\", \"lvl\": \"info\", \"msg\": \"a \\\"b\\\"\"}";
	assert_int_equal(lava_log_parse_line(line, strlen(line), &l), 0);
	assert_string_equal(l.msg, "a \"b\"");
	lava_log_line_release(&l);

	const char *bad[] = {
		"", "-", "{\"lvl\": \"target\"}", "- {\"lvl\": \"target\", \"msg\": \"open",
		"- {\"lvl\": \"target\", \"msg\": \"bad \\q escape\"}",
		"- {\"lvl\": \"target\", \"msg\": \"x\"} trailing",
		"- {\"msg\": \"no lvl\"}", "- {\"lvl\": \"target\", \"msg\": \"\\x4\"}",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (lava_log_parse_line(bad[i], strlen(bad[i]), &l) == 0)
			fail_msg("accepted: %s", bad[i]);
}

static void test_dt(void **state)
{
	(void)state;
	assert_true(lava_parse_dt("1970-01-01T00:00:01") == 1.0);
	assert_true(lava_parse_dt("1970-01-01T00:00:01.5") == 1.5);
	assert_true(lava_parse_dt("1970-01-01T00:01:00Z") == 60.0);
	assert_true(lava_parse_dt("1970-13-01T00:00:00") < 0);
	assert_true(lava_parse_dt("yesterday") < 0);
	assert_true(lava_parse_dt("1970-01-01T00:00:01x") < 0);
}

/* Every line of a log LAVA wrote: lines parsed, target lines, and the
 * text of the first target line with this prefix. */
static void read_fixture(const char *path, size_t *lines, size_t *targets, const char *prefix,
			 char **found, char **error_msg)
{
	char *text;
	size_t len;
	if (read_file(path, &text, &len) < 0)
		fail_msg("cannot read %s", path);
	*lines = *targets = 0;
	*found = *error_msg = NULL;
	for (char *p = text, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
		struct lava_log_line l;
		if (lava_log_parse_line(p, (size_t)(nl - p), &l) < 0)
			fail_msg("%s: line %zu not read: %.*s", path, *lines + 1, (int)(nl - p), p);
		assert_true(l.dt > 0);
		++*lines;
		if (!strcmp(l.lvl, "target") && l.msg) {
			++*targets;
			if (!*found && !strncmp(l.msg, prefix, strlen(prefix)))
				*found = xstrdup(l.msg);
		}
		if (l.error_msg && !*error_msg)
			*error_msg = xstrdup(l.error_msg);
		lava_log_line_release(&l);
	}
	free(text);
}

static void test_fixtures(void **state)
{
	(void)state;
	size_t lines, targets;
	char *found, *err;
	read_fixture("tests/fixtures/lava/bootrig-pass.log.yaml", &lines, &targets, "@@BR 1 22 END",
		     &found, &err);
	assert_int_equal(lines, 347);
	assert_int_equal(targets, 243);
	assert_string_equal(found, "@@BR 1 22 END tests=2 passed=2 failed=0 timeout=0 records=22 *27bd9374");
	assert_null(err);
	free(found);
	read_fixture("tests/fixtures/lava/bootrig-bad-deploy.log.yaml", &lines, &targets, "", &found,
		     &err);
	assert_int_equal(targets, 0);
	assert_non_null(err);
	assert_non_null(strstr(err, "does not exist or is not readable"));
	free(err);
}

/* The console of a log: its console lines (lava_console_line()), joined. */
static char *console_of(const char *path)
{
	char *text;
	size_t len;
	if (read_file(path, &text, &len) < 0)
		fail_msg("cannot read %s", path);
	struct strbuf sb = STRBUF_INIT;
	strbuf_add(&sb, "", 0);
	struct lava_console c = { false, false };
	for (char *p = text, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
		struct lava_log_line l;
		if (lava_log_parse_line(p, (size_t)(nl - p), &l) < 0)
			fail_msg("%s: not read: %.*s", path, (int)(nl - p), p);
		if (lava_console_line(&c, &l))
			strbuf_addf(&sb, "%s\n", l.msg);
		lava_log_line_release(&l);
	}
	free(text);
	return sb.buf;
}

/* The infra helper's amd64 job (tests/LAVA.md: job 18): END and what
 * follows it came as feedback in the finalize step, then LAVA's own
 * "poweroff" input and its echo, which are not the guest's. */
static void test_console_lines(void **state)
{
	(void)state;
	char *con = console_of("tests/fixtures/lava/amd64.log.yaml");
	assert_non_null(strstr(con, "Linux version 6.1.0-"));
	assert_non_null(strstr(con, "\n@@BR 1 22 END tests=2 passed=2 failed=0 timeout=0 records=22 *"));
	assert_non_null(strstr(con, "reboot: Power down\n"));
	size_t n = strlen(con);
	assert_true(n > 20 && !strcmp(con + n - strlen("reboot: Power down\n"), "reboot: Power down\n"));
	assert_null(strstr(con, "\npoweroff\n"));
	free(con);
	/* the panic: the console is there to judge, LAVA's word aside */
	con = console_of("tests/fixtures/lava/panic.log.yaml");
	assert_non_null(strstr(con, "Kernel panic - not syncing"));
	free(con);
	/* a job that failed before any kernel has no console */
	con = console_of("tests/fixtures/lava/bad-url.log.yaml");
	assert_string_equal(con, "");
	free(con);
	/* every line of every log recorded is read */
	const char *more[] = { "hang", "canceled", "http-refused" };
	for (size_t i = 0; i < ARRAY_SIZE(more); i++) {
		char *path = xasprintf("tests/fixtures/lava/%s.log.yaml", more[i]);
		free(console_of(path));
		free(path);
	}
}

static void test_state(void **state)
{
	(void)state;
	assert_int_equal(lava_job_phase("Submitted"), LAVA_QUEUED);
	assert_int_equal(lava_job_phase("Scheduled"), LAVA_QUEUED);
	assert_int_equal(lava_job_phase("Running"), LAVA_RUNNING);
	assert_int_equal(lava_job_phase("Canceling"), LAVA_RUNNING);
	assert_int_equal(lava_job_phase("finished"), LAVA_FINISHED);
	assert_int_equal(lava_job_phase("Exploded"), LAVA_UNKNOWN);
	assert_int_equal(lava_job_phase(NULL), LAVA_UNKNOWN);
	assert_int_equal(lava_job_health("Complete"), LAVA_HEALTH_COMPLETE);
	assert_int_equal(lava_job_health("Incomplete"), LAVA_HEALTH_INCOMPLETE);
	assert_int_equal(lava_job_health("Canceled"), LAVA_HEALTH_CANCELED);
	assert_int_equal(lava_job_health("Unknown"), LAVA_HEALTH_UNKNOWN);
	assert_true(lava_job_infra_failure(LAVA_HEALTH_INCOMPLETE, false));
	assert_true(lava_job_infra_failure(LAVA_HEALTH_INCOMPLETE, true));
	assert_true(lava_job_infra_failure(LAVA_HEALTH_CANCELED, false));
	assert_false(lava_job_infra_failure(LAVA_HEALTH_CANCELED, true));
	assert_false(lava_job_infra_failure(LAVA_HEALTH_COMPLETE, false));
	assert_string_equal(lava_arch("x86_64"), "x86_64");
	assert_null(lava_arch("riscv"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job_shape),
		cmocka_unit_test(test_job_seed),
		cmocka_unit_test(test_job_quoting),
		cmocka_unit_test(test_job_refused),
		cmocka_unit_test(test_job_tftp),
		cmocka_unit_test(test_file_url),
		cmocka_unit_test(test_log_line),
		cmocka_unit_test(test_dt),
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_console_lines),
		cmocka_unit_test(test_state),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
