/*
 * test_uboot_board.c: a board's config (runner/board/board-config.c): the
 * fields and their defaults, ${...} expansion (bootrig's names expanded,
 * U-Boot's left alone), and each mistake refused with exit 78 and its
 * FILE:LINE (an unknown key, a wrong type, a missing power action or
 * serial line, a bad URI or method, u-boot-tftp without a server).
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

#include "board.h"
#include "config.h"
#include "exitcodes.h"
#include "util.h"

static const char good[] =
	"boards = ( {\n"
	"  name = \"lab-rpi4\";\n"
	"  arch = \"arm64\";\n"
	"  serial = { uri = \"telnet:ser2net.lab:3004\"; baud = 115200; };\n"
	"  power = { on = [ \"pdu\", \"on\", \"4\" ]; off = [ \"pdu\", \"off\", \"4\" ];\n"
	"            reset = [ \"pdu\", \"cycle\", \"4\" ]; timeout = 20; };\n"
	"  boot = { method = \"u-boot-tftp\"; tftp_root = \"/srv/tftp\"; serverip = \"192.0.2.1\";\n"
	"           dtb = \"${state}/bcm2711-rpi-4-b.dtb\"; fdt_addr = \"${fdt_addr_r}\";\n"
	"           commands = [ \"usb start\" ]; char_delay = 0.01; };\n"
	"  retries = 2;\n"
	"} );\n";

/* Writes text to a scratch .cfg and loads it over the defaults; the
 * board NAME is read into b. Returns board_load()'s status and the
 * stderr it printed in *err (owned). */
static int load(const char *text, const char *name, struct board *b, char **err, char **file)
{
	*file = xstrdup("/tmp/test_uboot_board.XXXXXX.cfg");
	int fd = mkstemps(*file, 4);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	char errpath[] = "/tmp/test_uboot_board.err.XXXXXX";
	int efd = mkstemp(errpath);
	fflush(stderr);
	int saved = dup(2);
	dup2(efd, 2);
	struct config cfg;
	int rc = config_load(*file, &cfg);
	assert_int_equal(rc, 0);
	rc = board_load(&cfg, name, b);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(efd);
	size_t len;
	assert_int_equal(read_file(errpath, err, &len), 0);
	unlink(errpath);
	config_release(&cfg);
	return rc;
}

static void test_fields_and_defaults(void **state)
{
	(void)state;
	struct board b;
	char *err, *file;
	assert_int_equal(load(good, "lab-rpi4", &b, &err, &file), 0);
	assert_string_equal(err, "");
	assert_string_equal(b.arch, "arm64");
	assert_string_equal(b.serial_uri, "telnet:ser2net.lab:3004");
	assert_string_equal(b.power.argv[POWER_ON][0], "pdu");
	assert_string_equal(b.power.argv[POWER_RESET][1], "cycle");
	assert_null(b.power.argv[POWER_PRE]);
	assert_true(b.power.timeout == 20.0);
	assert_int_equal(b.method, BOOT_UBOOT_TFTP);
	assert_string_equal(b.commands[0], "usb start");
	assert_null(b.commands[1]);
	assert_int_equal(b.retries, 2);
	assert_true(b.uboot.char_delay == 0.01);
	/* Defaults. */
	assert_string_equal(b.tftp_dir, "bootrig");
	assert_string_equal(b.command, "booti");
	assert_string_equal(b.kernel_addr, "${kernel_addr_r}");
	assert_string_equal(b.uboot.prompt, "=> ");
	assert_string_equal(b.uboot.autoboot_prompt, "Hit any key to stop autoboot");
	assert_true(b.stage);
	assert_true(b.appear_timeout == 30.0);
	board_release(&b);
	unlink(file);
	free(file);
	free(err);
}

static void test_expand(void **state)
{
	(void)state;
	struct board b;
	char *err, *file;
	assert_int_equal(load(good, "lab-rpi4", &b, &err, &file), 0);
	struct board_vars v = { .kernel = "/k/Image", .sd_image = "/s/sd.img" };
	char *s = board_expand(&b, &v, "${board}:${kernel}:${sd_image}:${initrd}:${fdt_addr_r}:$x");
	assert_string_equal(s, "lab-rpi4:/k/Image:/s/sd.img::${fdt_addr_r}:$x");
	free(s);
	s = board_expand(&b, NULL, "${state}/x");
	char *want = xasprintf("%s/boards/lab-rpi4/x", bootrig_cache_dir());
	assert_string_equal(s, want);
	free(s);
	free(want);
	board_release(&b);
	unlink(file);
	free(file);
	free(err);
}

/* Replaces the first `from` in good by `to`, loads it, and checks that
 * it is refused with 78 and a message holding FILE:LINE and `why`. */
static void refused(const char *from, const char *to, int line, const char *why)
{
	const char *at = strstr(good, from);
	assert_non_null(at);
	char *text = xasprintf("%.*s%s%s", (int)(at - good), good, to, at + strlen(from));
	struct board b;
	char *err, *file;
	int rc = load(text, "lab-rpi4", &b, &err, &file);
	char *where = xasprintf("%s:%d: board 'lab-rpi4': ", file, line);
	if (rc != EXIT_CONFIG || !strstr(err, where) || !strstr(err, why))
		fail_msg("rc %d, stderr '%s'; want 78, '%s' and '%s'", rc, err, where, why);
	unlink(file);
	free(file);
	free(where);
	free(err);
	free(text);
}

static void test_mistakes(void **state)
{
	(void)state;
	refused("retries = 2;", "retries = 2; retires = 1;", 10, "unknown key 'retires'");
	refused("char_delay = 0.01;", "char_delay = 0.01; tftp = 1;", 9, "unknown key 'tftp' in boot");
	refused("timeout = 20;", "timeout = \"20\";", 6, "'timeout' must be a number of seconds");
	refused("on = [ \"pdu\", \"on\", \"4\" ];", "on = \"pdu on 4\";", 5,
		"'on' must be a non-empty list of strings");
	refused("on = [ \"pdu\", \"on\", \"4\" ];", "", 5, "power: 'on' and 'off' are required");
	refused("uri = \"telnet:ser2net.lab:3004\";", "uri = \"ser2net.lab\";", 4,
		"not a serial line");
	refused("uri = \"telnet:ser2net.lab:3004\";", "", 4, "serial: 'uri' is missing");
	refused("method = \"u-boot-tftp\";", "method = \"pxe\";", 7, "unknown method 'pxe'");
	refused("serverip = \"192.0.2.1\";", "", 7, "u-boot-tftp needs 'serverip'");
	refused("retries = 2;", "retries = -1;", 10, "'retries' is -1");
	refused("baud = 115200;", "baud = 1.5;", 4, "'baud' must be an integer");
}

static void test_unknown_board(void **state)
{
	(void)state;
	struct board b;
	char *err, *file;
	assert_int_equal(load(good, "no-such-board", &b, &err, &file), EXIT_USAGE);
	assert_non_null(strstr(err, "no board 'no-such-board'"));
	assert_non_null(strstr(err, "lab-rpi4"));
	unlink(file);
	free(file);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields_and_defaults),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_mistakes),
		cmocka_unit_test(test_unknown_board),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
