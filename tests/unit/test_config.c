/*
 * test_config.c: lib/config.c over the real defaults (configs/) and user
 * files with each kind of error: every one must exit 78 with
 * "FILE:LINE: what" naming the right line; overrides go field by field.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libconfig.h>

#include "backend.h"
#include "config.h"
#include "libvirt/libvirt-def.h"
#include "exitcodes.h"
#include "spawn.h"
#include "util.h"

static char dir[64];

/* Loads text as the user file; returns config_load's status and leaves
 * what it printed on stderr in *msg. */
static int load_text(const char *text, struct config *cfg, char **msg)
{
	char *path = xasprintf("%s/user.cfg", dir);
	char *log = xasprintf("%s/stderr", dir);
	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	fflush(stderr);
	int saved = dup(2);
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 2);
	close(fd);
	int rc = config_load(path, cfg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	size_t len;
	assert_int_equal(read_file(log, msg, &len), 0);
	free(path);
	free(log);
	return rc;
}

/* Asserts that text fails with 78 and a message "user.cfg:LINE: ...what...". */
static void expect_error(const char *text, int line, const char *what)
{
	struct config cfg;
	char *msg;
	int rc = load_text(text, &cfg, &msg);
	char *where = xasprintf("user.cfg:%d: ", line);
	if (rc != EXIT_CONFIG || !strstr(msg, where) || !strstr(msg, what))
		fail_msg("wanted 78 and '%s...%s', got %d: %s", where, what, rc, msg);
	free(where);
	free(msg);
}

static void test_defaults(void **state)
{
	(void)state;
	struct config cfg;
	char *msg;
	assert_int_equal(load_text("", &cfg, &msg), 0);
	free(msg);
	const struct target *t = config_target_for_arch(&cfg, "arm64");
	assert_non_null(t);
	assert_string_equal(t->name, "arm64-virt");
	assert_int_equal(t->n_abis, 3);
	assert_string_equal(t->abis[1], "aarch64_ilp32");
	assert_string_equal(t->console, "ttyAMA0");
	assert_string_equal(config_target_for_arch(&cfg, "x86_64")->abis[1], "x32");
	assert_string_equal(config_target_for_arch(&cfg, "arm")->qemu_arch, "armv7l");
	assert_non_null(config_find_target(&cfg, "arm64-a64fx"));
	for (size_t i = 0; i < cfg.n_targets; i++)   /* the benchmark clock: on for TCG */
		assert_string_equal(cfg.targets[i].icount, "shift=3,sleep=off");
	const struct suite *full = config_find_suite(&cfg, "full");
	assert_non_null(full);
	assert_int_equal(full->n_tests, 11);
	assert_non_null(config_find_suite(&cfg, "smoke"));
	assert_non_null(config_find_suite(&cfg, "lmbench"));
	assert_null(config_find_suite(&cfg, "nope"));
	config_release(&cfg);
}

static void test_override_field_by_field(void **state)
{
	(void)state;
	struct config cfg;
	char *msg;
	const char *text =
		"targets = ( { name = \"arm64-virt\"; memory_mb = 1024;\n"
		"              timeouts = { kernel = 5.0; }; } );\n"
		"suites = ( { name = \"smoke\"; samples = 3; },\n"
		"           { name = \"mine\"; tests = [ \"lat_pipe\", \"cpu\" ]; profile = true;\n"
		"             boot_time = true; } );\n"
		"files = ( \"/etc/hostname:/etc/hostname\" );\n";
	assert_int_equal(load_text(text, &cfg, &msg), 0);
	free(msg);
	const struct target *t = config_find_target(&cfg, "arm64-virt");
	assert_int_equal(t->memory_mb, 1024);
	assert_string_equal(t->icount, "shift=3,sleep=off");  /* kept */
	assert_string_equal(t->cpu, "cortex-a57");           /* kept */
	assert_true(t->limits.stage[STAGE_KERNEL] == 5.0);
	assert_true(t->limits.stage[STAGE_FIRMWARE] > 0);     /* kept */
	const struct suite *s = config_find_suite(&cfg, "smoke");
	assert_int_equal(s->samples, 3);
	assert_string_equal(s->tests[0], "lat_syscall");      /* kept */
	s = config_find_suite(&cfg, "mine");
	assert_int_equal(s->n_tests, 2);
	assert_int_equal(s->samples, 11);                     /* default */
	assert_true(s->profile);
	assert_false(config_find_suite(&cfg, "smoke")->profile); /* default false */
	assert_true(s->boot_time);
	assert_false(config_find_suite(&cfg, "smoke")->boot_time); /* default false */
	assert_int_equal(cfg.n_files, 1);
	config_release(&cfg);
}

/* A board overridden by name keeps the fields it does not set. */
static void test_board_override(void **state)
{
	(void)state;
	struct config cfg;
	char *msg;
	const char *text =
		"boards = ( { name = \"sim-arm64-tftp\"; retries = 3;\n"
		"             power = { timeout = 5.0; }; } );\n";
	assert_int_equal(load_text(text, &cfg, &msg), 0);
	free(msg);
	const char *file = NULL;
	config_setting_t *b = config_find_group(&cfg, "boards", "sim-arm64-tftp", &file);
	assert_non_null(b);
	assert_non_null(strstr(file, "user.cfg"));
	int retries = 0;
	double timeout = 0;
	const char *arch = NULL;
	assert_true(config_setting_lookup_int(b, "retries", &retries));
	assert_int_equal(retries, 3);
	assert_true(config_setting_lookup_string(b, "arch", &arch));   /* inherited */
	assert_string_equal(arch, "arm64");
	config_setting_t *power = config_setting_get_member(b, "power");
	assert_true(config_setting_lookup_float(power, "timeout", &timeout));
	assert_true(timeout == 5.0);
	config_setting_t *on = config_setting_get_member(power, "on");   /* merged */
	assert_non_null(on);
	assert_true(config_setting_length(on) > 3);
	assert_non_null(config_setting_get_member(b, "boot"));
	config_release(&cfg);
}

static void test_syntax_error(void **state)
{
	(void)state;
	expect_error("suites = (\n  { name = ; }\n);\n", 2, "syntax error");
	expect_error("suites = ( { name = \"x\";\n\n tests = = [ \"cpu\" ]; } );\n", 3, "syntax error");
}

static void test_type_errors(void **state)
{
	(void)state;
	expect_error("targets = ( { name = \"arm64-virt\";\n memory_mb = \"lots\"; } );\n", 2,
		     "'memory_mb' must be an integer");
	expect_error("suites = ( { name = \"smoke\";\n\n samples = 2.5; } );\n", 3,
		     "'samples' must be an integer");
	expect_error("suites = ( { name = \"smoke\";\n tests = \"cpu\"; } );\n", 2,
		     "'tests' must be a list");
	expect_error("targets = ( { name = \"arm64-virt\";\n timeouts = { kernel = \"long\"; }; } );\n",
		     2, "'kernel' must be a number");
	expect_error("targets = { name = \"x\"; };\n", 1, "'targets' must be a list");
	expect_error("suites = ( { name = 3; } );\n", 1, "'name' must be a non-empty string");
	expect_error("suites = ( { name = \"smoke\";\n samples = 0; } );\n", 2, "from 1 to 1000");
	expect_error("suites = ( { name = \"smoke\";\n\n profile = 1; } );\n", 3,
		     "'profile' must be true or false");
	expect_error("targets = ( { name = \"arm64-virt\";\n\n icount = 3; } );\n", 3,
		     "'icount' must be a string");
	expect_error("targets = ( { name = \"arm64-virt\";\n icount = \"shift=3 sleep=off\"; } );\n",
		     2, "-icount options");
	expect_error("targets = ( { name = \"arm64-virt\";\n icount = \"shift=3,,sleep=off\"; } );\n",
		     2, "-icount options");
	expect_error("targets = ( { name = \"arm64-virt\";\n icount = \"shift=3,\"; } );\n",
		     2, "must not end with ','");
}

/* timeouts.kvm_proof is libvirt's key (registered by its definition):
 * config checks it is seconds, at its line, and libvirt reads it, the
 * last group that sets it winning; a key no backend owns is an error. */
static void test_backend_timeout_key(void **state)
{
	(void)state;
	expect_error("targets = ( { name = \"arm64-virt\";\n timeouts = { kvm_proof = \"soon\"; }; } );\n",
		     2, "'kvm_proof' must be a number");
	expect_error("targets = ( { name = \"arm64-virt\";\n timeouts = { kvm_pruf = 3.0; }; } );\n",
		     2, "unknown key 'kvm_pruf' in timeouts");
	/* one vocabulary: a board's backend names no target's */
	expect_error("targets = ( { name = \"arm64-virt\";\n\n backend = \"board\"; } );\n",
		     3, "'backend' is \"board\": a target's must be \"lava\" or \"libvirt\"");
	struct config cfg;
	char *msg;
	const char *text =
		"targets = ( { name = \"arm64-virt\"; timeouts = { kvm_proof = 7; }; },\n"
		"            { name = \"arm64-virt\"; timeouts = { kernel = 50.0; }; },\n"
		"            { name = \"arm-virt\"; timeouts = { kvm_proof = 2.5; }; },\n"
		"            { name = \"arm-virt\"; timeouts = { kvm_proof = 3.5; }; } );\n";
	assert_int_equal(load_text(text, &cfg, &msg), 0);
	free(msg);
	const struct target *a = config_find_target(&cfg, "arm64-virt");
	assert_true(config_target_timeout(a, "kvm_proof", 15.0) == 7.0);
	assert_true(a->limits.stage[STAGE_KERNEL] == 50.0);
	assert_true(config_target_timeout(config_find_target(&cfg, "arm-virt"), "kvm_proof", 15.0) == 3.5);
	assert_true(config_target_timeout(config_find_target(&cfg, "x86_64-q35"), "kvm_proof", 15.0) == 15.0);
	config_release(&cfg);
}

/* icount: "" turns the clock off; other QEMU options are kept as given. */
static void test_icount(void **state)
{
	(void)state;
	struct config cfg;
	char *msg;
	const char *text =
		"targets = ( { name = \"arm64-virt\"; icount = \"\"; },\n"
		"            { name = \"x86_64-q35\"; icount = \"shift=auto,sleep=on\"; } );\n";
	assert_int_equal(load_text(text, &cfg, &msg), 0);
	free(msg);
	assert_string_equal(config_find_target(&cfg, "arm64-virt")->icount, "");
	assert_string_equal(config_find_target(&cfg, "x86_64-q35")->icount, "shift=auto,sleep=on");
	assert_string_equal(config_find_target(&cfg, "arm-virt")->icount, "shift=3,sleep=off");
	config_release(&cfg);
}

/* known_issues: the shipped a64fx target expects its DMA WARNING; a user's
 * file can add patterns, and the judge limits carry them. */
static void test_known_issues(void **state)
{
	(void)state;
	struct config cfg;
	char *msg;
	const char *text =
		"targets = ( { name = \"arm64-virt\"; known_issues = [ \"WARNING in foo\", \"KASAN: *\" ]; } );\n";
	assert_int_equal(load_text(text, &cfg, &msg), 0);
	free(msg);
	const struct target *a64fx = config_find_target(&cfg, "arm64-a64fx");
	assert_int_equal(a64fx->n_known_issues, 1);
	assert_string_equal(a64fx->known_issues[0], "WARNING in arch_setup_dma_ops");
	assert_int_equal(a64fx->limits.n_known_issues, 1);
	assert_string_equal(a64fx->limits.known_issues[0], "WARNING in arch_setup_dma_ops");
	const struct target *virt = config_find_target(&cfg, "arm64-virt");
	assert_int_equal(virt->limits.n_known_issues, 2);
	assert_string_equal(virt->limits.known_issues[1], "KASAN: *");
	assert_int_equal(config_find_target(&cfg, "x86_64-q35")->n_known_issues, 0);
	config_release(&cfg);
	expect_error("targets = ( { name = \"arm64-virt\";\n\n known_issues = \"WARNING\"; } );\n", 3,
		     "'known_issues' must be a list of strings");
}

static void test_unknown_names_and_keys(void **state)
{
	(void)state;
	expect_error("suites = ( { name = \"smoke\";\n  tests = [ \"lat_syscall\",\n \"lat_nope\" ]; } );\n",
		     3, "unknown test 'lat_nope'");
	expect_error("targets = ( { name = \"arm64-virt\";\n\n  memroy_mb = 64; } );\n", 3,
		     "unknown key 'memroy_mb'");
	expect_error("\n\nsuite = ( );\n", 3, "unknown key 'suite'");
	expect_error("targets = ( { name = \"arm64-virt\";\n timeouts = { kernal = 1.0; }; } );\n",
		     2, "unknown key 'kernal'");
	expect_error("targets = ( { name = \"arm64-virt\";\n  abis = [ \"x86_64\" ]; } );\n", 2,
		     "ABI 'x86_64' is not one of arch arm64");
	expect_error("targets = ( { name = \"arm64-virt\";\n  arch = \"x86_64\"; } );\n", 1,
		     "ABI 'aarch64' is not one of arch x86_64");
	expect_error("targets = ( { name = \"new\"; arch = \"mips\"; abis = [ \"mips\" ];\n"
		     " emulator = \"q\"; qemu_arch = \"mips\"; machine = \"m\"; console = \"c\"; } );\n",
		     1, "unknown arch 'mips'");
}

static void test_incomplete_and_files(void **state)
{
	(void)state;
	expect_error("targets = ( { name = \"new\"; arch = \"arm64\"; } );\n", 1,
		     "target 'new' has no 'emulator'");
	expect_error("suites = ( { name = \"new\"; } );\n", 1, "suite 'new' has no 'tests'");
	expect_error("suites = (\n { samples = 3; } );\n", 2, "has no name");
	expect_error("files = ( \"a:/b\",\n \"nodest\" );\n", 2, "must be \"SRC:/DEST\"");
	/* a missing user file: its name, 78 */
	struct config cfg;
	char *missing = xasprintf("%s/none.cfg", dir);
	assert_int_equal(config_load(missing, &cfg), EXIT_CONFIG);
	free(missing);
}

/* hosts = ( ... ): read in order with defaults; errors name their line. */
static void test_hosts(void **state)
{
	(void)state;
	struct config cfg;
	char *msg;
	int rc = load_text("hosts = ( { name = \"a\"; uri = \"qemu+tcp://127.0.0.1:1/system\"; slots = 3;\n"
			   "            pool = \"/srv/pool\"; pool_max_mb = 100; },\n"
			   "          { name = \"b\"; uri = \"qemu:///embed\"; } );\n", &cfg, &msg);
	assert_int_equal(rc, 0);
	struct backend_host *hosts;
	assert_int_equal(libvirt_config_hosts(&cfg, &hosts), 2);
	assert_string_equal(hosts[0].name, "a");
	assert_string_equal(hosts[0].uri, "qemu+tcp://127.0.0.1:1/system");
	assert_int_equal(hosts[0].slots, 3);
	assert_string_equal(hosts[0].pool_path, "/srv/pool");
	assert_int_equal(hosts[0].pool_max_mb, 100);
	assert_int_equal(hosts[1].slots, 1);
	assert_null(hosts[1].pool_path);
	free(hosts);
	config_release(&cfg);
	free(msg);
	expect_error("hosts = ( { name = \"a\";\n slots = 2; } );\n", 1, "host 'a' has no 'uri'");
	expect_error("hosts = ( { name = \"a\"; uri = \"x\";\n slots = 0; } );\n", 2, "'slots' is 0");
	expect_error("hosts = ( { name = \"a\"; uri = \"x\";\n speed = 1; } );\n", 2, "speed");
	expect_error("hosts = ( { name = \"a\"; uri = \"x\"; },\n { name = \"a\"; uri = \"y\"; } );\n",
		     2, "listed twice");
	expect_error("hosts = ( { name = \"a\"; uri = \"x\";\n pool = \"rel\"; } );\n", 2,
		     "absolute path");
}

int main(void)
{
	strcpy(dir, "/tmp/test_config.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	/* The defaults are the tree's configs/ (tests run from the top). */
	char *top = getcwd(NULL, 0);
	setenv("BOOTRIG_DATADIR", top, 1);
	free(top);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_override_field_by_field),
		cmocka_unit_test(test_board_override),
		cmocka_unit_test(test_syntax_error),
		cmocka_unit_test(test_type_errors),
		cmocka_unit_test(test_icount),
		cmocka_unit_test(test_backend_timeout_key),
		cmocka_unit_test(test_known_issues),
		cmocka_unit_test(test_unknown_names_and_keys),
		cmocka_unit_test(test_incomplete_and_files),
		cmocka_unit_test(test_hosts),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char *argv[] = { "rm", "-rf", dir, NULL };
	run_argv(argv, 30, -1, -1);
	return rc;
}
