/*
 * board.c: the board backend (backend.h): a real or simulated board
 * reached through its serial console, its power control and U-Boot.
 *
 * One board runs one boot at a time: the backend holds the board's lock
 * (flock on CACHE/locks/<board>.lock, or the config's `lock`) from the
 * first prepare() to close(); a second bootrig waits for it, or with
 * --no-wait (struct board_options) refuses at once.
 *
 * A boot: prepare() stages the files (the TFTP root, or an SD image);
 * power_on() opens the serial line (it may not exist yet), runs pre-power,
 * off, then on, and starts the board thread. The thread talks to U-Boot
 * (uboot.c) and then forwards the console; every byte it reads goes
 * through the machine's console queue (console-queue.h) to the runner,
 * who judges. A U-Boot error (the image or
 * its files are at fault) is retried `retries` times, each failed attempt
 * kept in <dir>/attempt-K/ (console.log, console.tlog, attempt.json); the
 * last one powers the board off and the machine reads as stopped: the judge
 * finds U-Boot's message (a firmware error) and says BOOT_FAIL. No reply
 * from U-Boot, a power action that fails, or a serial line that stays away
 * is the host's fault: MACHINE_FAILED, INFRA_ERROR.
 *
 * The serial line's gaps, the firmware time (power-on to "Starting kernel")
 * and the attempts go to <dir>/board.json when the machine stops, into
 * result.json's "board" section (result_section(), which the runner writes
 * with the rest), and into console.tlog through annotate() (the runner calls
 * it after writing the files: console.log stays the raw bytes).
 *
 * Divided into: the lock, staging, the board thread, the backend
 * operations, and annotate.
 */
#include "backend.h"
#include "backend-impl.h"
#include "board.h"
#include "build.h"
#include "capture.h"
#include "config.h"
#include "console.h"
#include "console-queue.h"
#include "exitcodes.h"
#include "kernel.h"
#include "serial.h"
#include "textsafe.h"
#include "uboot.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The most console bytes that wait for the runner (1 MiB, a large pipe's
 * size): beyond, the board thread waits for room while the serial line
 * keeps what comes. */
#define CONSOLE_QUEUED (1u << 20)

struct board_backend {
	struct board board;
	bool loaded;
	int lock_fd;
	bool no_wait;                    /* the options': a busy board is refused */
	bool busy;                       /* a machine is prepared */
	/* For emergency_stop(): the expanded power-off argv, found in PATH. */
	char *off_path;
	char **off_argv;
	volatile sig_atomic_t powered;
};

struct board_machine {
	struct board_backend *bb;
	struct machine *m;
	char *dir;                       /* the boot's results directory */
	char *cmdline;
	char *kernel_file, *initrd_file, *dtb_file, *sd_image;   /* staged */
	char *tftp_kernel, *tftp_initrd, *tftp_dtb;             /* as U-Boot asks */
	struct power power;              /* expanded argvs */
	struct serial line;
	struct uboot_settings uboot;
	int power_log_fd;

	pthread_t thread;
	bool thread_running;
	atomic_bool quit;
	struct console_queue *queue;   /* to the runner; at most CONSOLE_QUEUED bytes */

	pthread_mutex_t lock;            /* guards what follows */
	enum machine_state state;
	char reason[512];
	double epoch;
	double firmware_seconds;         /* "Starting kernel" (or "Linux version") */
	double powering_off;             /* the kernel said "reboot: ", < 0 not yet */
	int attempts;
	char uboot_error[512];
	char tail[64];                   /* last bytes seen, for banners across chunks */
	struct capture attempt;          /* this attempt's console, kept if it fails */
	bool stopped;
};

/* ---- the lock ------------------------------------------------------------ */

/* Takes the board's lock, waiting unless no_wait. 0, or -1 (error printed). */
static int take_lock(struct board_backend *bb, bool no_wait)
{
	const struct board *b = &bb->board;
	char *path = *b->lock ? xstrdup(b->lock)
			      : xasprintf("%s/locks/%s.lock", bootrig_cache_dir(), b->name);
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		mkdir_p(dir, 0755);
	}
	free(dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		error("board '%s': cannot open its lock %s: %s", b->name, path, strerror(errno));
		free(path);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		char holder[64] = "";
		ssize_t n = pread(fd, holder, sizeof(holder) - 1, 0);
		holder[n > 0 ? n : 0] = '\0';
		holder[strcspn(holder, "\n")] = '\0';
		if (no_wait) {
			error("board '%s' is busy (locked by %s, %s); not waiting (--no-wait)",
			      b->name, *holder ? holder : "another bootrig", path);
			close(fd);
			free(path);
			return -1;
		}
		fprintf(stderr, "bootrig: board '%s' is busy (locked by %s); waiting for it\n",
			term_str(b->name), *holder ? term_str(holder) : "another bootrig");
		while (flock(fd, LOCK_EX) < 0 && errno == EINTR)
			;
	}
	char me[64];
	int len = snprintf(me, sizeof(me), "pid %ld\n", (long)getpid());
	if (ftruncate(fd, 0) == 0 && pwrite(fd, me, (size_t)len, 0) < 0)
		warning("cannot write %s: %s", path, strerror(errno));
	bb->lock_fd = fd;
	free(path);
	return 0;
}

/* ---- staging -------------------------------------------------------------- */

/* Copies src to dst through a temporary file. 0 or -1 (reason set). */
static int copy_file(const char *src, const char *dst, char *reason, size_t len)
{
	char *data;
	size_t n;
	if (read_file(src, &data, &n) < 0) {
		snprintf(reason, len, "cannot read %s: %s", src, strerror(errno));
		return -1;
	}
	int rc = write_file_atomic(dst, data, n);
	free(data);
	if (rc < 0)
		snprintf(reason, len, "cannot write %s", dst);
	return rc;
}

/* Puts the kernel, initrd and DTB where the board's TFTP server serves them. */
static int stage_tftp(struct board_machine *bm, const struct machine_spec *spec)
{
	const struct board *b = &bm->bb->board;
	char *root = board_expand(b, NULL, b->tftp_root);
	char *sub = board_expand(b, NULL, b->tftp_dir);
	char *dir = *sub ? xasprintf("%s/%s", root, sub) : xstrdup(root);
	const char *prefix = *sub ? sub : "";
	const char *slash = *sub ? "/" : "";
	int rc = 0;
	bm->tftp_kernel = xasprintf("%s%skernel", prefix, slash);
	bm->kernel_file = xasprintf("%s/kernel", dir);
	if (spec->initrd) {
		bm->tftp_initrd = xasprintf("%s%sinitrd.img", prefix, slash);
		bm->initrd_file = xasprintf("%s/initrd.img", dir);
	}
	const char *dtb = spec->dtb ? spec->dtb : (*b->dtb ? b->dtb : NULL);
	if (dtb) {
		bm->tftp_dtb = xasprintf("%s%sboard.dtb", prefix, slash);
		bm->dtb_file = xasprintf("%s/board.dtb", dir);
	}
	if (b->stage) {
		if (mkdir_p(dir, 0755) < 0) {
			snprintf(bm->m->infra_reason, sizeof(bm->m->infra_reason),
				 "cannot create the TFTP directory %s: %s", dir, strerror(errno));
			rc = -1;
		}
		char *r = bm->m->infra_reason;
		size_t rl = sizeof(bm->m->infra_reason);
		if (!rc)
			rc = copy_file(spec->kernel, bm->kernel_file, r, rl);
		if (!rc && spec->initrd)
			rc = copy_file(spec->initrd, bm->initrd_file, r, rl);
		if (!rc && dtb) {
			char *d = board_expand(b, NULL, dtb);
			rc = copy_file(d, bm->dtb_file, r, rl);
			free(d);
		}
	}
	free(root);
	free(sub);
	free(dir);
	return rc;
}

/* Writes the SD image (bootrig build --sd-image's) the board boots from. */
static int stage_sd_image(struct board_machine *bm, const struct machine_spec *spec)
{
	const struct board *b = &bm->bb->board;
	struct kernel k;
	bm->sd_image = xasprintf("%s/sd.img", b->state_dir);
	if (kernel_open(spec->kernel, &k) != 0) {
		snprintf(bm->m->infra_reason, sizeof(bm->m->infra_reason),
			 "cannot read the kernel %s", spec->kernel);
		return -1;
	}
	const char *console = spec->target && spec->target->console ? spec->target->console
								    : "ttyAMA0";
	int rc = build_sd_image(&k, spec->initrd, spec->dtb, console, spec->cmdline, bm->sd_image);
	kernel_release(&k);
	if (rc) {
		snprintf(bm->m->infra_reason, sizeof(bm->m->infra_reason),
			 "cannot write the SD image %s (exit %d)", bm->sd_image, rc);
		return -1;
	}
	return 0;
}

/* Does any power argv of b mention var ("${sd_image}")? A board that
 * boots by itself from a card its power-on inserts still needs the card. */
static bool power_uses(const struct board *b, const char *var)
{
	for (int a = 0; a < POWER_NACTIONS; a++)
		for (char **v = b->power.argv[a]; v && *v; v++)
			if (strstr(*v, var))
				return true;
	return false;
}

/* Expands the board's power argvs with this boot's files. */
static void expand_power(struct board_machine *bm)
{
	const struct board *b = &bm->bb->board;
	struct board_vars v = { bm->kernel_file, bm->initrd_file, bm->dtb_file, bm->sd_image };
	bm->power.timeout = b->power.timeout;
	for (int a = 0; a < POWER_NACTIONS; a++) {
		char **src = b->power.argv[a];
		if (!src)
			continue;
		size_t n = 0;
		while (src[n])
			n++;
		bm->power.argv[a] = xcalloc(n + 1, sizeof(char *));
		for (size_t i = 0; i < n; i++)
			bm->power.argv[a][i] = board_expand(b, &v, src[i]);
	}
}

/* ---- the board thread ------------------------------------------------------- */

static void set_state(struct board_machine *bm, enum machine_state s, const char *reason)
{
	pthread_mutex_lock(&bm->lock);
	if (bm->state == MACHINE_RUNNING) {
		bm->state = s;
		if (reason)
			snprintf(bm->reason, sizeof(bm->reason), "%s", reason);
	}
	pthread_mutex_unlock(&bm->lock);
}

/* Notes when the kernel was handed over (firmware time), across chunks. */
static void watch_banners(struct board_machine *bm, const char *bytes, size_t n, double t)
{
	if (bm->firmware_seconds >= 0 && bm->powering_off >= 0)
		return;
	size_t keep = strnlen(bm->tail, sizeof(bm->tail));
	char *window = xmalloc(keep + n + 1);
	memcpy(window, bm->tail, keep);
	size_t w = keep;
	for (size_t i = 0; i < n; i++)
		if (bytes[i])
			window[w++] = bytes[i];
	window[w] = '\0';
	if (bm->firmware_seconds < 0 &&
	    (strstr(window, "Starting kernel") || strstr(window, CONSOLE_BANNER)))
		bm->firmware_seconds = t;
	if (bm->firmware_seconds >= 0 && bm->powering_off < 0 &&
	    (strstr(window, CONSOLE_POWER_DOWN) || strstr(window, CONSOLE_RESTART)))
		bm->powering_off = t;
	size_t tail = w < sizeof(bm->tail) - 1 ? w : sizeof(bm->tail) - 1;
	memcpy(bm->tail, window + w - tail, tail);
	bm->tail[tail] = '\0';
	free(window);
}

/* The sink of every byte read from the line. */
static void on_console(void *ctx, const char *bytes, size_t n, double t)
{
	struct board_machine *bm = ctx;
	capture_feed(&bm->attempt, bytes, n, t);
	pthread_mutex_lock(&bm->lock);
	watch_banners(bm, bytes, n, t);
	pthread_mutex_unlock(&bm->lock);
	/* waits for room while the runner is behind; refused once stop() closed it */
	console_queue_append(bm->queue, bytes, n, CONSOLE_NO_STAMP);
}

/* setenv bootargs, quoted so that U-Boot's shell keeps it whole. */
static char *bootargs_command(const char *cmdline)
{
	if (!strchr(cmdline, '\''))
		return xasprintf("setenv bootargs '%s'", cmdline);
	return xasprintf("setenv bootargs \"%s\"", cmdline);
}

/* The commands of a u-boot-tftp boot, in order; the last one boots. */
static char **tftp_commands(const struct board_machine *bm, size_t *n)
{
	const struct board *b = &bm->bb->board;
	char **v = xcalloc(16 + 64, sizeof(char *));
	size_t k = 0;
	if (*b->ipaddr) {
		v[k++] = xasprintf("setenv ipaddr %s", b->ipaddr);
	} else {
		v[k++] = xstrdup("setenv autoload no");
		v[k++] = xstrdup("dhcp");
	}
	v[k++] = xasprintf("setenv serverip %s", b->serverip);
	for (char **c = b->commands; c && *c && k < 64; c++)
		v[k++] = xstrdup(*c);
	v[k++] = bootargs_command(bm->cmdline);
	if (bm->tftp_dtb)
		v[k++] = xasprintf("tftpboot %s %s", b->fdt_addr, bm->tftp_dtb);
	v[k++] = xasprintf("tftpboot %s %s", b->kernel_addr, bm->tftp_kernel);
	if (bm->tftp_initrd)
		v[k++] = xasprintf("tftpboot %s %s", b->initrd_addr, bm->tftp_initrd);
	if (bm->tftp_initrd)
		v[k++] = xasprintf("%s %s %s:${filesize} %s", b->command, b->kernel_addr,
				   b->initrd_addr, b->fdt_addr);
	else
		v[k++] = xasprintf("%s %s - %s", b->command, b->kernel_addr, b->fdt_addr);
	*n = k;
	return v;
}

/* The commands of a u-boot-extlinux boot; the last one boots. */
static char **extlinux_commands(const struct board_machine *bm, size_t *n)
{
	const struct board *b = &bm->bb->board;
	char **v = xcalloc(16 + 64, sizeof(char *));
	size_t k = 0;
	if (*b->scan)
		v[k++] = xstrdup(b->scan);
	for (char **c = b->commands; c && *c && k < 64; c++)
		v[k++] = xstrdup(*c);
	v[k++] = xasprintf("sysboot %s any ${scriptaddr} /extlinux/extlinux.conf", b->extlinux);
	*n = k;
	return v;
}

/* One attempt at getting the kernel started. */
static enum uboot_status firmware_dialogue(struct board_machine *bm, struct uboot *u)
{
	const struct board *b = &bm->bb->board;
	if (b->method == BOOT_SELF)
		return uboot_wait_kernel(u, b->uboot.autoboot_timeout + b->uboot.boot_timeout);
	enum uboot_status st = uboot_interrupt(u);
	if (st != UBOOT_OK)
		return st;
	size_t n;
	char **cmds = b->method == BOOT_UBOOT_TFTP ? tftp_commands(bm, &n)
						   : extlinux_commands(bm, &n);
	for (size_t i = 0; i < n && st == UBOOT_OK && !atomic_load(&bm->quit); i++)
		st = i + 1 < n ? uboot_command(u, cmds[i]) : uboot_boot(u, cmds[i]);
	for (size_t i = 0; i < n; i++)
		free(cmds[i]);
	free(cmds);
	return st;
}

/* Keeps a failed attempt in <dir>/attempt-K/. */
static void keep_attempt(struct board_machine *bm, int k, const char *reason)
{
	char *dir = xasprintf("%s/attempt-%d", bm->dir, k);
	if (mkdir_p(dir, 0755) == 0 && capture_write(&bm->attempt, dir) == 0) {
		json_object *o = json_object_new_object();
		json_object_object_add(o, "attempt", json_object_new_int(k));
		json_object_object_add(o, "verdict", json_object_new_string("BOOT_FAIL"));
		json_object_object_add(o, "reason", json_cstring_utf8(reason));
		struct strbuf sb = STRBUF_INIT;
		strbuf_add_json(&sb, o, JSON_C_TO_STRING_PRETTY);
		char *path = xasprintf("%s/attempt.json", dir);
		write_file_atomic(path, sb.buf, sb.len);
		free(path);
		strbuf_release(&sb);
		json_object_put(o);
	}
	free(dir);
}

/* Power-cycles the board for another attempt: its `reset` action when it
 * has one, else off then on. 0 or -1 (state set). */
static int power_cycle(struct board_machine *bm)
{
	char reason[512];
	if (bm->power.argv[POWER_RESET]) {
		if (power_run(&bm->power, POWER_RESET, reason, sizeof(reason)) == 0)
			return 0;
		set_state(bm, MACHINE_FAILED, reason);
		return -1;
	}
	if (power_run(&bm->power, POWER_OFF, reason, sizeof(reason)) < 0 ||
	    power_run(&bm->power, POWER_ON, reason, sizeof(reason)) < 0) {
		set_state(bm, MACHINE_FAILED, reason);
		return -1;
	}
	return 0;
}

/* After the firmware: forward the console until told to quit, watching
 * the line: absent or lost past its timeout is the host's failure. */
static void forward_console(struct board_machine *bm)
{
	const struct board *b = &bm->bb->board;
	char buf[4096];
	while (!atomic_load(&bm->quit)) {
		ssize_t n = serial_read(&bm->line, buf, sizeof(buf), 0.2);
		double t = now_monotonic() - bm->epoch;
		if (n > 0) {
			on_console(bm, buf, (size_t)n, t);
			continue;
		}
		if (serial_is_up(&bm->line) || !bm->line.n_gaps)
			continue;
		double lost = bm->line.gaps[bm->line.n_gaps - 1].lost;
		if (b->lost_timeout > 0 && t - lost > b->lost_timeout) {
			char reason[512];
			snprintf(reason, sizeof(reason),
				 "serial line %s lost at %.1f s and not back within %.0f s: %s",
				 bm->line.uri, lost, b->lost_timeout, bm->line.last_error);
			set_state(bm, MACHINE_FAILED, reason);
			return;
		}
	}
}

/* Why U-Boot did not answer, with the line's state when it never came up. */
static void no_reply(struct board_machine *bm, const struct uboot *u)
{
	char reason[512];
	if (!bm->line.ever_up)
		snprintf(reason, sizeof(reason), "serial line %s never came up: %s",
			 bm->line.uri, bm->line.last_error);
	else
		snprintf(reason, sizeof(reason), "%s", u->error);
	set_state(bm, MACHINE_FAILED, reason);
}

/* Waits for a line that was absent at power-on (an adapter the board
 * powers) for up to the board's appear_timeout. 0, or -1 (state set). */
static int wait_for_line(struct board_machine *bm)
{
	const struct board *b = &bm->bb->board;
	double deadline = now_monotonic() + b->appear_timeout;
	while (serial_connect(&bm->line) < 0) {
		if (atomic_load(&bm->quit))
			return -1;
		if (now_monotonic() >= deadline) {
			char reason[512];
			snprintf(reason, sizeof(reason), "serial line %s did not appear within %.0f s "
				 "of power-on: %s", bm->line.uri, b->appear_timeout,
				 bm->line.last_error);
			set_state(bm, MACHINE_FAILED, reason);
			return -1;
		}
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return 0;
}

static void *board_thread(void *arg)
{
	struct board_machine *bm = arg;
	const struct board *b = &bm->bb->board;
	struct uboot u;
	if (wait_for_line(bm) < 0) {
		console_queue_close(bm->queue, CONSOLE_ERROR);
		return NULL;
	}
	for (int k = 1;; k++) {
		pthread_mutex_lock(&bm->lock);
		bm->attempts = k;
		pthread_mutex_unlock(&bm->lock);
		uboot_init(&u, &bm->line, &bm->uboot, on_console, bm);
		u.cancel = &bm->quit;
		enum uboot_status st = firmware_dialogue(bm, &u);
		if (st == UBOOT_OK) {
			uboot_release(&u);
			serial_arm_fault(&bm->line);
			forward_console(bm);
			break;
		}
		if (st == UBOOT_NO_REPLY || atomic_load(&bm->quit)) {
			no_reply(bm, &u);
			uboot_release(&u);
			break;
		}
		pthread_mutex_lock(&bm->lock);
		snprintf(bm->uboot_error, sizeof(bm->uboot_error), "%s", u.error);
		pthread_mutex_unlock(&bm->lock);
		uboot_release(&u);
		if (k <= b->retries) {
			keep_attempt(bm, k, bm->uboot_error);
			capture_release(&bm->attempt);
			capture_init(&bm->attempt);
			fprintf(stderr, "bootrig: board '%s': attempt %d failed: %s; power-cycling "
				"for attempt %d\n", term_str(b->name), k, term_str(bm->uboot_error), k + 1);
			if (power_cycle(bm) < 0)
				break;
			continue;
		}
		/* The last attempt: the board stops here; the judge sees
		 * U-Boot's error and says BOOT_FAIL. */
		char reason[512];
		if (power_run(&bm->power, POWER_OFF, reason, sizeof(reason)) < 0)
			set_state(bm, MACHINE_FAILED, reason);
		else
			bm->bb->powered = 0;
		set_state(bm, MACHINE_STOPPED, NULL);
		break;
	}
	console_queue_close(bm->queue, CONSOLE_EOF);
	return NULL;
}

/* ---- the backend operations ---------------------------------------------------- */

static int board_open(struct backend *be, const char *where)
{
	if (!where || !*where)
		return error("--board needs a board name");
	be->where = xstrdup(where);
	return 0;
}

/* Loads the board (once) and takes its lock. 0 or -1 (reason set). */
static int load_board(struct backend *be, struct machine *m, const struct machine_spec *spec)
{
	struct board_backend *bb = be->priv;
	if (bb->loaded)
		return 0;
	int rc = board_load(spec->cfg, be->where, &bb->board);
	if (rc) {
		snprintf(m->infra_reason, sizeof(m->infra_reason),
			 "board '%s': bad or missing configuration", be->where);
		return -1;
	}
	bb->loaded = true;
	if (take_lock(bb, bb->no_wait) < 0) {
		snprintf(m->infra_reason, sizeof(m->infra_reason), "board '%s' is busy%s",
			 be->where, bb->no_wait ? " (--no-wait)" : "");
		return -1;
	}
	mkdir_p(bb->board.state_dir, 0755);
	return 0;
}

static int board_prepare(struct backend *be, struct machine *m, const struct machine_spec *spec)
{
	struct board_backend *bb = be->priv;
	m->backend = be;
	snprintf(m->accelerator, sizeof(m->accelerator), "board");
	if (load_board(be, m, spec) < 0)
		return -1;
	if (bb->busy) {
		snprintf(m->infra_reason, sizeof(m->infra_reason),
			 "board '%s' boots one kernel at a time (use -j 1)", be->where);
		return -1;
	}
	const struct board *b = &bb->board;
	if (*b->arch && spec->target && spec->target->arch && strcmp(b->arch, spec->target->arch)) {
		snprintf(m->infra_reason, sizeof(m->infra_reason),
			 "board '%s' boots %s kernels, and this kernel is %s", b->name, b->arch,
			 spec->target->arch);
		return -1;
	}
	struct board_machine *bm = xcalloc(1, sizeof(*bm));
	m->priv = bm;
	bm->bb = bb;
	bm->m = m;
	bm->dir = xstrdup(spec->dir);
	bm->cmdline = xstrdup(spec->cmdline ? spec->cmdline : "");
	bm->power_log_fd = -1;
	bm->firmware_seconds = -1;
	bm->powering_off = -1;
	bm->uboot = b->uboot;
	pthread_mutex_init(&bm->lock, NULL);
	capture_init(&bm->attempt);
	char err[300];
	char *uri = board_expand(b, NULL, b->serial_uri);
	int rc = serial_parse(uri, b->baud, &bm->line, err, sizeof(err));
	free(uri);
	if (rc < 0) {
		snprintf(m->infra_reason, sizeof(m->infra_reason), "board '%s': serial: %s",
			 b->name, err);
		return -1;
	}
	if (b->method == BOOT_UBOOT_TFTP)
		rc = stage_tftp(bm, spec);
	else if (b->method == BOOT_UBOOT_EXTLINUX || power_uses(b, "${sd_image}"))
		rc = stage_sd_image(bm, spec);
	if (rc < 0)
		return -1;
	expand_power(bm);
	mkdir_p(bm->dir, 0755);
	char *log = xasprintf("%s/power.log", bm->dir);
	bm->power_log_fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	free(log);
	bm->power.log_fd = bm->power_log_fd;
	/* For emergency_stop(): power-off resolved now (no PATH search then). */
	char **off = bm->power.argv[POWER_OFF];
	free(bb->off_path);
	bb->off_path = strchr(off[0], '/') ? xstrdup(off[0]) : NULL;
	for (const char *p = getenv("PATH"); !bb->off_path && p && *p;) {
		size_t len = strcspn(p, ":");
		char *cand = xasprintf("%.*s/%s", (int)len, p, off[0]);
		if (access(cand, X_OK) == 0)
			bb->off_path = cand;
		else
			free(cand);
		p += len + (p[len] == ':');
	}
	bb->off_argv = off;
	bb->busy = true;
	return 0;
}

static int board_power_on(struct machine *m)
{
	struct board_machine *bm = m->priv;
	char reason[512];
	if (!(bm->queue = console_queue_new(CONSOLE_QUEUED))) {
		snprintf(m->infra_reason, sizeof(m->infra_reason), "pipe: %s", strerror(errno));
		return -1;
	}
	/* The line first, so that nothing the board says is missed; a line
	 * that does not exist yet is looked for again by the thread. */
	serial_connect(&bm->line);
	if (power_run(&bm->power, POWER_PRE, reason, sizeof(reason)) < 0 ||
	    power_run(&bm->power, POWER_OFF, reason, sizeof(reason)) < 0) {
		snprintf(m->infra_reason, sizeof(m->infra_reason), "%s", reason);
		return -1;
	}
	bm->bb->powered = 1;
	if (power_run(&bm->power, POWER_ON, reason, sizeof(reason)) < 0) {
		snprintf(m->infra_reason, sizeof(m->infra_reason), "%s", reason);
		power_run(&bm->power, POWER_OFF, reason, sizeof(reason));
		bm->bb->powered = 0;
		return -1;
	}
	/* Times count from here, as the runner's do (it starts its clock
	 * when power_on() returns): bytes sent meanwhile wait in the line. */
	bm->epoch = now_monotonic();
	serial_set_epoch(&bm->line, bm->epoch);
	if (pthread_create(&bm->thread, NULL, board_thread, bm) != 0) {
		snprintf(m->infra_reason, sizeof(m->infra_reason), "cannot start the board thread");
		return -1;
	}
	bm->thread_running = true;
	return 0;
}

static int board_console_fd(struct machine *m)
{
	struct board_machine *bm = m->priv;
	return console_queue_fd(bm->queue);
}

static ssize_t board_console_read(struct machine *m, char *buf, size_t len)
{
	struct board_machine *bm = m->priv;
	return console_queue_read(bm->queue, buf, len, NULL);
}

static enum machine_state board_state(struct machine *m)
{
	struct board_machine *bm = m->priv;
	pthread_mutex_lock(&bm->lock);
	enum machine_state s = bm->state;
	if (s == MACHINE_FAILED)
		snprintf(m->infra_reason, sizeof(m->infra_reason), "%s", bm->reason);
	pthread_mutex_unlock(&bm->lock);
	return s;
}

/* A gap that began once the kernel powered the board off is the board
 * going away (a simulated board's QEMU ends), not a fault of the line. */
static bool gap_at_power_off(const struct board_machine *bm, const struct serial_gap *g)
{
	return bm->powering_off >= 0 && g->lost >= bm->powering_off;
}

/* Writes <dir>/board.json: what the board side saw of this boot. */
static json_object *board_json(struct board_machine *bm)
{
	static const char *const methods[] = { "u-boot-tftp", "u-boot-extlinux", "self" };
	const struct board *b = &bm->bb->board;
	json_object *o = json_object_new_object();
	json_object_object_add(o, "name", json_cstring_utf8(b->name));
	json_object_object_add(o, "method", json_object_new_string(methods[b->method]));
	json_object_object_add(o, "serial", json_cstring_utf8(bm->line.uri ? bm->line.uri : ""));
	json_object_object_add(o, "attempts", json_object_new_int(bm->attempts));
	json_object_object_add(o, "firmware_seconds", bm->firmware_seconds >= 0 ?
			       json_object_new_double(bm->firmware_seconds) : NULL);
	json_object_object_add(o, "uboot_error", json_cstring_utf8(bm->uboot_error));
	json_object *gaps = json_object_new_array();
	json_object *notes = json_object_new_array();
	for (size_t i = 0; i < bm->line.n_gaps; i++) {
		const struct serial_gap *g = &bm->line.gaps[i];
		json_object *e = json_object_new_object();
		json_object_object_add(e, "lost", json_object_new_double(g->lost));
		json_object_object_add(e, "back", g->back >= 0 ? json_object_new_double(g->back) : NULL);
		json_object_object_add(e, "at_power_off", json_object_new_boolean(gap_at_power_off(bm, g)));
		json_object_array_add(gaps, e);
		if (gap_at_power_off(bm, g))
			continue;
		char note[128];
		if (g->back >= 0)
			snprintf(note, sizeof(note), "serial lost at %.1f s, back at %.1f s", g->lost, g->back);
		else
			snprintf(note, sizeof(note), "serial lost at %.1f s, not back", g->lost);
		json_object_array_add(notes, json_object_new_string(note));
	}
	json_object_object_add(o, "serial_gaps", gaps);
	json_object_object_add(o, "notes", notes);
	return o;
}

static int board_stop(struct machine *m)
{
	struct board_machine *bm = m->priv;
	if (!bm || bm->stopped)
		return 0;
	bm->stopped = true;
	atomic_store(&bm->quit, true);
	console_queue_close(bm->queue, CONSOLE_STOPPED);   /* frees a thread waiting for room */
	if (bm->thread_running) {
		pthread_join(bm->thread, NULL);
		bm->thread_running = false;
	}
	int rc = 0;
	if (bm->bb->powered) {
		char reason[512];
		rc = power_run(&bm->power, POWER_OFF, reason, sizeof(reason));
		if (rc < 0)
			snprintf(m->infra_reason, sizeof(m->infra_reason), "%s", reason);
		else
			bm->bb->powered = 0;
	}
	json_object *o = board_json(bm);
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_json(&sb, o, JSON_C_TO_STRING_PRETTY);
	char *path = xasprintf("%s/board.json", bm->dir);
	write_file_atomic(path, sb.buf, sb.len);
	free(path);
	strbuf_release(&sb);
	json_object_put(o);
	return rc;
}

static void board_release_machine(struct machine *m)
{
	struct board_machine *bm = m->priv;
	if (!bm)
		return;
	board_stop(m);
	serial_release(&bm->line);
	console_queue_free(bm->queue);
	if (bm->power_log_fd >= 0)
		close(bm->power_log_fd);
	bm->bb->off_argv = NULL;
	bm->bb->busy = false;
	power_release(&bm->power);
	capture_release(&bm->attempt);
	pthread_mutex_destroy(&bm->lock);
	char *strings[] = { bm->dir, bm->cmdline, bm->kernel_file, bm->initrd_file, bm->dtb_file,
			    bm->sd_image, bm->tftp_kernel, bm->tftp_initrd, bm->tftp_dtb };
	for (size_t i = 0; i < ARRAY_SIZE(strings); i++)
		free(strings[i]);
	free(bm);
	m->priv = NULL;
}

/* Async-signal-safe: runs the power-off argv (fork, execve) and waits a
 * bounded time for it. */
static void board_emergency_stop(struct backend *be)
{
	struct board_backend *bb = be->priv;
	if (!bb || !bb->powered || !bb->off_path || !bb->off_argv)
		return;
	extern char **environ;
	pid_t pid = fork();
	if (pid == 0) {
		execve(bb->off_path, bb->off_argv, environ);
		_exit(EXIT_NOEXEC);
	}
	if (pid < 0)
		return;
	for (int i = 0; i < 300; i++) {
		int status;
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	bb->powered = 0;
}

static void board_close(struct backend *be)
{
	struct board_backend *bb = be->priv;
	if (bb) {
		if (bb->lock_fd >= 0) {
			/* No stale "pid N" for the next one to quote. */
			if (ftruncate(bb->lock_fd, 0) < 0)
				warning("cannot clear the board's lock file: %s", strerror(errno));
			close(bb->lock_fd);
		}
		if (bb->loaded)
			board_release(&bb->board);
		free(bb->off_path);
		free(bb);
	}
	free(be->where);
	free(be);
}

/* ---- annotate ----------------------------------------------------------- */

/* Inserts "[T] [bootrig: NOTE]" lines into tlog text at their times. */
static char *insert_notes(const char *tlog, const struct board_machine *bm)
{
	const struct serial *line = &bm->line;
	struct strbuf out = STRBUF_INIT;
	strbuf_add(&out, "", 0);
	size_t next = 0;
	/* Each note as (time, text): a gap gives one at lost, one at back. */
	size_t n_notes = line->n_gaps * 2;
	double *times = xcalloc(n_notes, sizeof(double));
	char **texts = xcalloc(n_notes, sizeof(char *));
	size_t k = 0;
	for (size_t i = 0; i < line->n_gaps; i++) {
		const struct serial_gap *g = &line->gaps[i];
		if (gap_at_power_off(bm, g))
			continue;
		times[k] = g->lost;
		texts[k++] = g->back >= 0
			? xasprintf("[bootrig: serial lost at %.1f s, back at %.1f s]", g->lost, g->back)
			: xasprintf("[bootrig: serial lost at %.1f s, not back]", g->lost);
	}
	for (const char *p = tlog; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p + 1) : strlen(p);
		double t = 0;
		console_tlog_stamp(p, len, &t);
		while (next < k && times[next] <= t) {
			strbuf_addf(&out, "[%011.6f] %s\n", times[next], texts[next]);
			next++;
		}
		strbuf_add(&out, p, len);
		p += len;
	}
	for (; next < k; next++)
		strbuf_addf(&out, "[%011.6f] %s\n", times[next], texts[next]);
	for (size_t i = 0; i < k; i++)
		free(texts[i]);
	free(texts);
	free(times);
	return out.buf;
}

/* result.json's "board" section (method, attempts, firmware_seconds,
 * serial_gaps, notes): the runner writes it with the rest. */
static json_object *board_result_section(struct machine *m)
{
	return m->priv ? board_json(m->priv) : NULL;
}

/*
 * board_annotate: after the runner wrote dir's files: the serial gaps into
 * console.tlog (as "[T] [bootrig: serial lost at A s, back at B s]" lines).
 * 0 or -1 (error printed).
 */
static int board_annotate(struct machine *m, const char *dir)
{
	struct board_machine *bm = m->priv;
	if (!bm)
		return 0;
	int rc = 0;
	char *path = xasprintf("%s/console.tlog", dir);
	char *text;
	if (bm->line.n_gaps && read_file(path, &text, NULL) == 0) {
		char *with = insert_notes(text, bm);
		rc |= write_file_atomic(path, with, strlen(with));
		free(with);
		free(text);
	}
	free(path);
	return rc ? -1 : 0;
}

static const struct backend_ops board_ops = {
	.name = "board", .accelerator = "board",
	BACKEND_OPS(board),
	.release = board_release_machine, .result_section = board_result_section,
	.annotate = board_annotate,
};

struct backend *backend_board_new(const struct board_options *o)
{
	struct board_backend *bb = xcalloc(1, sizeof(*bb));
	bb->no_wait = o && o->no_wait;
	bb->lock_fd = -1;
	return backend_alloc(&board_ops, bb);
}
