/*
 * test_uboot.c: the U-Boot dialogue (runner/board/uboot.c) against a fake U-Boot
 * on the other end of a socketpair: a thread that prints the banner and
 * the autoboot prompt, echoes what is typed, and answers each command as
 * Debian's U-Boot does (the prompt, a TFTP error, a bad image, "Starting
 * kernel"). Also a peer that never shows the autoboot prompt, one that
 * does not echo, and uboot_find_error() on its own.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serial.h"
#include "uboot.h"
#include "util.h"

enum peer_mode { PEER_NORMAL, PEER_NO_AUTOBOOT, PEER_NO_ECHO };

struct peer {
	int fd;
	enum peer_mode mode;
	pthread_t thread;
};

static void say(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) < 0)
		return;
}

/* U-Boot's answer to one command line. */
static void answer(int fd, const char *cmd)
{
	if (!strncmp(cmd, "tftpboot", 8) && strstr(cmd, "missing")) {
		say(fd, "Using virtio-net#31 device\r\nTFTP from server 10.0.2.2; our IP address "
			"is 10.0.2.15\r\nFilename 'missing'.\r\nLoad address: 0x44000000\r\n"
			"Loading: *\r\nTFTP error: 'File not found' (1)\r\nNot retrying...\r\n=> ");
	} else if (!strncmp(cmd, "tftpboot", 8)) {
		say(fd, "Loading: *####\r\n\t 47.2 MiB/s\r\ndone\r\nBytes transferred = 1234 "
			"(4d2 hex)\r\n=> ");
	} else if (!strncmp(cmd, "booti", 5) && strstr(cmd, "bad")) {
		say(fd, "Bad Linux ARM64 Image magic!\r\n=> ");
	} else if (!strncmp(cmd, "booti", 5)) {
		say(fd, "## Flattened Device Tree blob at 5edb6db0\r\n   Booting using the fdt "
			"blob at 0x5edb6db0\r\n\r\nStarting kernel ...\r\n\r\n[    0.000000] "
			"Linux version 6.1.0\r\n");
	} else if (!strncmp(cmd, "sysboot", 7)) {
		say(fd, "=> ");  /* back at the prompt: nothing booted */
	} else if (!strncmp(cmd, "frob", 4)) {
		say(fd, "Unknown command 'frob' - try 'help'\r\n=> ");
	} else {
		say(fd, "=> ");
	}
}

static void *peer_main(void *arg)
{
	struct peer *p = arg;
	say(p->fd, "\r\nU-Boot 2023.01+dfsg-2+deb12u3\r\n\r\nDRAM:  512 MiB\r\nNet:   eth0\r\n");
	if (p->mode == PEER_NO_AUTOBOOT)
		return NULL;
	say(p->fd, "Hit any key to stop autoboot:  2 ");
	char c;
	if (read(p->fd, &c, 1) != 1)
		return NULL;
	say(p->fd, "\b\b\b 0 \r\n=> ");
	char line[1024];
	size_t len = 0;
	while (read(p->fd, &c, 1) == 1) {
		if (c == '\r') {
			line[len] = '\0';
			say(p->fd, "\r\n");
			answer(p->fd, line);
			len = 0;
			continue;
		}
		if (p->mode != PEER_NO_ECHO && write(p->fd, &c, 1) < 0)
			return NULL;
		if (len + 1 < sizeof(line))
			line[len++] = c;
	}
	return NULL;
}

struct fixture {
	struct serial line;
	struct peer peer;
	struct uboot_settings set;
	struct uboot u;
	size_t sunk;               /* bytes the sink received */
	struct strbuf sink_text;
};

static void count_sink(void *ctx, const char *bytes, size_t n, double t)
{
	struct fixture *f = ctx;
	assert_true(t >= 0);
	f->sunk += n;
	strbuf_add(&f->sink_text, bytes, n);
}

static struct fixture *start(enum peer_mode mode)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	char err[200];
	/* A path that never exists: a lost line is not found again. */
	assert_int_equal(serial_parse("unix:/nonexistent/bootrig-test.sock", 0, &f->line, err,
				      sizeof(err)), 0);
	f->line.fd = sv[0];
	fcntl(sv[0], F_SETFL, O_NONBLOCK);     /* as serial_connect() leaves it */
	f->line.ever_up = true;
	serial_set_epoch(&f->line, now_monotonic());
	f->peer.fd = sv[1];
	f->peer.mode = mode;
	uboot_default_settings(&f->set);
	f->set.char_delay = 0;
	f->set.echo_timeout = 0.5;
	f->set.autoboot_timeout = 0.5;
	f->set.command_timeout = 5;
	f->set.boot_timeout = 5;
	uboot_init(&f->u, &f->line, &f->set, count_sink, f);
	assert_int_equal(pthread_create(&f->peer.thread, NULL, peer_main, &f->peer), 0);
	return f;
}

static void finish(struct fixture *f)
{
	shutdown(f->line.fd, SHUT_RDWR);
	pthread_join(f->peer.thread, NULL);
	close(f->peer.fd);
	uboot_release(&f->u);
	serial_release(&f->line);
	strbuf_release(&f->sink_text);
	free(f);
}

static void test_tftp_boot_dialogue(void **state)
{
	(void)state;
	struct fixture *f = start(PEER_NORMAL);
	assert_int_equal(uboot_interrupt(&f->u), UBOOT_OK);
	assert_int_equal(uboot_command(&f->u, "setenv serverip 10.0.2.2"), UBOOT_OK);
	assert_int_equal(uboot_command(&f->u, "setenv bootargs 'console=ttyAMA0 panic=-1'"),
			 UBOOT_OK);
	assert_int_equal(uboot_command(&f->u, "tftpboot ${kernel_addr_r} bootrig/kernel"), UBOOT_OK);
	assert_true(f->u.kernel_started < 0);
	assert_int_equal(uboot_boot(&f->u, "booti ${kernel_addr_r} - ${fdtcontroladdr}"), UBOOT_OK);
	assert_true(f->u.kernel_started >= 0);
	/* The sink saw the whole dialogue, echoes included. */
	assert_non_null(strstr(f->sink_text.buf, "U-Boot 2023.01"));
	assert_non_null(strstr(f->sink_text.buf, "=> setenv serverip 10.0.2.2\r\n"));
	assert_non_null(strstr(f->sink_text.buf, "Bytes transferred"));
	assert_non_null(strstr(f->sink_text.buf, "Starting kernel"));
	assert_int_equal(f->sunk, f->sink_text.len);
	finish(f);
}

static void test_missing_tftp_file(void **state)
{
	(void)state;
	struct fixture *f = start(PEER_NORMAL);
	assert_int_equal(uboot_interrupt(&f->u), UBOOT_OK);
	assert_int_equal(uboot_command(&f->u, "tftpboot ${ramdisk_addr_r} missing"), UBOOT_ERROR);
	assert_non_null(strstr(f->u.error, "TFTP error: 'File not found' (1)"));
	assert_non_null(strstr(f->u.error, "missing"));
	finish(f);
}

static void test_bad_image(void **state)
{
	(void)state;
	struct fixture *f = start(PEER_NORMAL);
	assert_int_equal(uboot_interrupt(&f->u), UBOOT_OK);
	assert_int_equal(uboot_boot(&f->u, "booti bad"), UBOOT_ERROR);
	assert_non_null(strstr(f->u.error, "Bad Linux ARM64 Image magic!"));
	assert_true(f->u.kernel_started < 0);
	finish(f);
}

static void test_unknown_command(void **state)
{
	(void)state;
	struct fixture *f = start(PEER_NORMAL);
	assert_int_equal(uboot_interrupt(&f->u), UBOOT_OK);
	assert_int_equal(uboot_command(&f->u, "frob"), UBOOT_ERROR);
	assert_non_null(strstr(f->u.error, "Unknown command 'frob'"));
	finish(f);
}

static void test_boot_back_at_prompt(void **state)
{
	(void)state;
	struct fixture *f = start(PEER_NORMAL);
	assert_int_equal(uboot_interrupt(&f->u), UBOOT_OK);
	assert_int_equal(uboot_boot(&f->u, "sysboot virtio 0:1 any ${scriptaddr} /x"), UBOOT_ERROR);
	assert_non_null(strstr(f->u.error, "returned to the prompt"));
	finish(f);
}

static void test_no_autoboot_prompt(void **state)
{
	(void)state;
	struct fixture *f = start(PEER_NO_AUTOBOOT);
	assert_int_equal(uboot_interrupt(&f->u), UBOOT_NO_REPLY);
	assert_non_null(strstr(f->u.error, "no U-Boot autoboot prompt"));
	/* What U-Boot printed before is still in the log. */
	assert_non_null(strstr(f->sink_text.buf, "DRAM:  512 MiB"));
	finish(f);
}

static void test_cancel(void **state)
{
	(void)state;
	struct fixture *f = start(PEER_NO_AUTOBOOT);
	f->set.autoboot_timeout = 600;
	atomic_bool stop = true;
	f->u.cancel = &stop;
	assert_int_equal(uboot_interrupt(&f->u), UBOOT_NO_REPLY);
	assert_string_equal(f->u.error, "stopped while waiting for U-Boot's autoboot prompt");
	finish(f);
}

static void test_no_echo(void **state)
{
	(void)state;
	struct fixture *f = start(PEER_NO_ECHO);
	assert_int_equal(uboot_interrupt(&f->u), UBOOT_OK);
	assert_int_equal(uboot_command(&f->u, "setenv serverip 10.0.2.2"), UBOOT_NO_REPLY);
	assert_non_null(strstr(f->u.error, "did not echo 's'"));
	finish(f);
}

static void test_find_error(void **state)
{
	(void)state;
	char line[200];
	assert_int_equal(uboot_find_error("Loading: *\r\nTFTP error: 'File not found' (1)\r\n"
					  "Not retrying...\r\n", line, sizeof(line)), 1);
	assert_string_equal(line, "TFTP error: 'File not found' (1)");
	assert_int_equal(uboot_find_error("Retry count exceeded; starting again\n", line,
					  sizeof(line)), 1);
	assert_string_equal(line, "Retry count exceeded; starting again");
	assert_int_equal(uboot_find_error("## Error: \"fdt_addr_r\" not defined\n", line,
					  sizeof(line)), 1);
	assert_string_equal(line, "## Error: \"fdt_addr_r\" not defined");
	assert_int_equal(uboot_find_error("Wrong Image Format for bootm command\n", line,
					  sizeof(line)), 1);
	/* The first error of several wins. */
	assert_int_equal(uboot_find_error("x\nBad Linux ARM64 Image magic!\nTFTP error: y\n",
					  line, sizeof(line)), 1);
	assert_string_equal(line, "Bad Linux ARM64 Image magic!");
	assert_int_equal(uboot_find_error("Bytes transferred = 1234\n=> ", line, sizeof(line)), 0);
}

int main(void)
{
	/* The peer may write after the test closed its end. */
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tftp_boot_dialogue),
		cmocka_unit_test(test_missing_tftp_file),
		cmocka_unit_test(test_bad_image),
		cmocka_unit_test(test_unknown_command),
		cmocka_unit_test(test_boot_back_at_prompt),
		cmocka_unit_test(test_no_autoboot_prompt),
		cmocka_unit_test(test_no_echo),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_find_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
