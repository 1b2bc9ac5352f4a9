/*
 * guest-exec: runs test commands that this host cannot run in a real
 * guest (x86_64, or arm64 for aarch64 and arm), and gives their output
 * back as if they had run here. Used by tests/lib.sh (gx_add, gx_boot)
 * for x32 on a host kernel that refuses it (no user-mode emulator runs
 * x32) and for what qemu-user cannot do (exec a foreign binary). Three
 * roles, one file:
 *
 *   guest-exec            as the guest's /init (PID 1): mounts /proc,
 *                         /sys and /dev, makes /tmp, brings lo up, runs every
 *                         command of /batch in order, each with its
 *                         stdout and stderr in files, under a deadline,
 *                         and writes them to the second serial port
 *                         (ttyS1, raw) as a length-prefixed stream, or,
 *                         with gx_stream=console on the kernel's command
 *                         line (a machine of one serial port: arm64's
 *                         virt), to the console as lines "GXS HEX" that
 *                         the kernel's own lines cannot be taken for;
 *                         then powers the guest off.
 *   guest-exec --split STREAM DIR
 *                         host: cuts the stream into DIR/N.out, N.err
 *                         and N.rc; fails unless every command of the
 *                         batch came back, whole. STREAM is either form:
 *                         with "GXS " lines (a console log) only those
 *                         are read, decoded.
 *   guest-exec --replay DIR ARGV...
 *                         host: prints what that command printed in the
 *                         guest (stdout, stderr) and exits with its
 *                         status; 127 with a message if the batch did not
 *                         hold it. So a test that runs "$RUNNER BIN ARGS"
 *                         checks the guest's run with its own code.
 *
 * /batch (DIR/batch on the host): one command a line, its argv joined by
 * tabs. The stream: "GX-CMD N RC OUTLEN ERRLEN\n", OUTLEN bytes, ERRLEN
 * bytes, for each command, then "GX-END COUNT\n". RC is the exit status,
 * 128+signal for a signal, 124 for a command past its deadline (killed
 * with its process group), 126 when it could not be executed.
 *
 * Built static against glibc for x86_64 and, cross, for aarch64: it is
 * test tooling, not the guest runtime under initramfs/ (which has no libc).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define DEADLINE_S 300
#define MAX_ARGS 256

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("guest-exec: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(127);
}

/* The whole of a file, or NULL; its length in *len. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap + 1);
	size_t r;
	while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			char *b = realloc(buf, 2 * cap + 1);
			if (!b) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = b;
			cap *= 2;
		}
	}
	fclose(f);
	if (buf)
		buf[n] = 0;
	*len = n;
	return buf;
}

/*
 * The console form of the stream: its bytes as hex, 32 to a line "GXS HEX\n"
 * on /dev/console (ONLCR makes it "\r\n"; the host drops the "\r").
 */
static int hex_fd = -1;
static void hex_put(const char *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char line[4 + 64 + 1];
	while (n > 0) {
		size_t k = n < 32 ? n : 32, l = 0;
		memcpy(line, "GXS ", 4), l = 4;
		for (size_t i = 0; i < k; i++) {
			line[l++] = digits[(unsigned char)p[i] >> 4];
			line[l++] = digits[(unsigned char)p[i] & 15];
		}
		line[l++] = '\n';
		for (size_t off = 0; off < l;) {
			ssize_t w = write(hex_fd, line + off, l - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return;
			off += (size_t)w;
		}
		p += k, n -= k;
	}
}

static void write_all(int fd, const char *p, size_t n)
{
	if (fd < 0) {
		hex_put(p, n);
		return;
	}
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* printf to the stream, either form. */
static void port_printf(int port, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		write_all(port, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* One command: returns its status as the stream records it. */
static int run_one(char **argv)
{
	pid_t pid = fork();
	if (pid < 0)
		return 126;
	if (pid == 0) {
		setpgid(0, 0);
		int o = open("/gx.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open("/gx.err", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int in = open("/dev/null", O_RDONLY);
		if (o < 0 || e < 0 || in < 0)
			_exit(126);
		dup2(in, 0), dup2(o, 1), dup2(e, 2);
		if (chdir("/") < 0)
			_exit(126);
		execv(argv[0], argv);
		dprintf(2, "guest-exec: cannot execute %s: %s\n", argv[0], strerror(errno));
		_exit(126);
	}
	setpgid(pid, pid);
	struct timespec start, now, tick = {0, 20 * 1000 * 1000};
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		int st;
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid) {
			kill(-pid, SIGKILL); /* what it left behind */
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= DEADLINE_S) {
			kill(-pid, SIGKILL);
			waitpid(pid, &st, 0);
			return 124;
		}
		nanosleep(&tick, NULL);
	}
}

static int as_init(void)
{
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mkdir("/tmp", 01777);
	int sock = socket(AF_INET, SOCK_DGRAM, 0); /* lo up, as bootrig's init does */
	struct ifreq ifr = {0};
	strcpy(ifr.ifr_name, "lo");
	if (sock >= 0 && ioctl(sock, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		ioctl(sock, SIOCSIFFLAGS, &ifr);
	}
	if (sock >= 0)
		close(sock);
	/* gx_stream=console on the kernel's command line (init's environment):
	 * one serial port, the console's hex lines; else ttyS1's raw bytes */
	const char *form = getenv("gx_stream");
	int port = -1;
	if (form && !strcmp(form, "console")) {
		hex_fd = open("/dev/console", O_WRONLY | O_NOCTTY);
	} else {
		struct termios t;
		port = open("/dev/ttyS1", O_WRONLY | O_NOCTTY);
		if (port >= 0 && tcgetattr(port, &t) == 0) {
			cfmakeraw(&t);
			tcsetattr(port, TCSANOW, &t);
		}
	}
	size_t len;
	char *batch = slurp("/batch", &len);
	int count = 0;
	if ((port >= 0 || hex_fd >= 0) && batch) {
		for (char *line = batch, *next; *line; line = next) {
			next = strchr(line, '\n');
			next = next ? (*next = 0, next + 1) : line + strlen(line);
			char *argv[MAX_ARGS + 1];
			int argc = 0;
			for (char *a = line, *tab; argc < MAX_ARGS; a = tab + 1) {
				tab = strchr(a, '\t');
				argv[argc++] = a;
				if (!tab)
					break;
				*tab = 0;
			}
			argv[argc] = NULL;
			int rc = run_one(argv);
			size_t olen = 0, elen = 0;
			char *out = slurp("/gx.out", &olen), *err = slurp("/gx.err", &elen);
			port_printf(port, "GX-CMD %d %d %zu %zu\n", count, rc, out ? olen : 0, err ? elen : 0);
			if (out)
				write_all(port, out, olen);
			if (err)
				write_all(port, err, elen);
			free(out), free(err);
			count++;
		}
		port_printf(port, "GX-END %d\n", count);
		tcdrain(port >= 0 ? port : hex_fd);
	} else {
		printf("guest-exec: %s\n", batch ? "no serial port for the stream" : "no /batch");
	}
	sync();
	reboot(RB_POWER_OFF);
	return 1;
}

/* DIR/batch, whole, or an end with the reason. */
static char *read_batch(const char *dir, size_t *len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/batch", dir);
	char *b = slurp(path, len);
	if (!b)
		die("no %s", path);
	return b;
}

static int batch_count(const char *dir)
{
	size_t len;
	char *b = read_batch(dir, &len);
	int n = 0;
	for (size_t i = 0; i < len; i++)
		n += b[i] == '\n';
	free(b);
	return n;
}

static void put(const char *dir, int n, const char *ext, const char *p, size_t len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%d.%s", dir, n, ext);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, len, f) != len || fclose(f) != 0)
		die("cannot write %s", path);
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * A console log's "GXS HEX" lines, decoded in place (the stream is never
 * longer than its hex); *len becomes the stream's length. A log without
 * them is left as it is (the raw form). A "GXS " line with anything but
 * hex digits before its end is a broken stream: the caller's parse fails.
 */
static void unhex_lines(char *s, size_t *len)
{
	size_t out = 0, at = 0;
	int any = 0;
	while (at < *len) {
		char *nl = memchr(s + at, '\n', *len - at);
		size_t end = nl ? (size_t)(nl - s) : *len;
		if (end - at >= 4 && !memcmp(s + at, "GXS ", 4)) {
			size_t i = at + 4;
			any = 1;
			for (; i + 1 < end && hexval(s[i]) >= 0 && hexval(s[i + 1]) >= 0; i += 2)
				s[out++] = (char)(hexval(s[i]) << 4 | hexval(s[i + 1]));
			if (i < end && !(i + 1 == end && s[i] == '\r'))
				s[out++] = '\x01'; /* not hex: break the stream visibly */
		}
		at = end + 1;
	}
	if (any)
		*len = out, s[out] = 0;
}

static int split(const char *stream, const char *dir)
{
	size_t len;
	char *s = slurp(stream, &len);
	if (!s)
		die("no stream %s: the guest wrote nothing to its second serial port", stream);
	unhex_lines(s, &len);
	int want = batch_count(dir), seen = 0;
	size_t at = 0;
	for (;;) {
		int n, rc, end;
		size_t olen, elen;
		char *nl = memchr(s + at, '\n', len - at);
		if (!nl)
			break;
		*nl = 0;
		if (sscanf(s + at, "GX-END %d", &end) == 1) {
			if (end != want || seen != want)
				die("the guest ran %d of the batch's %d commands", seen, want);
			return 0;
		}
		if (sscanf(s + at, "GX-CMD %d %d %zu %zu", &n, &rc, &olen, &elen) != 4 || n != seen)
			die("stream broken at byte %zu: '%.60s'", at, s + at);
		at = (size_t)(nl - s) + 1;
		if (len - at < olen + elen)
			die("stream cut short in command %d's output", n);
		put(dir, n, "out", s + at, olen);
		put(dir, n, "err", s + at + olen, elen);
		char r[16];
		int rl = snprintf(r, sizeof(r), "%d\n", rc);
		put(dir, n, "rc", r, (size_t)rl);
		at += olen + elen;
		seen++;
	}
	die("the stream ended after %d of %d commands, without GX-END (the guest died or hung)", seen, want);
	return 1;
}

static int replay(const char *dir, int argc, char **argv)
{
	char path[4096];
	size_t len;
	char *b = read_batch(dir, &len);
	size_t need = 1;
	for (int i = 0; i < argc; i++)
		need += strlen(argv[i]) + 1;
	char *want = malloc(need);
	if (!want)
		die("out of memory");
	want[0] = 0;
	for (int i = 0; i < argc; i++)
		strcat(strcat(want, argv[i]), i + 1 < argc ? "\t" : "");
	int n = 0;
	for (char *line = b, *next; *line; line = next, n++) {
		next = strchr(line, '\n');
		next = next ? (*next = 0, next + 1) : line + strlen(line);
		if (strcmp(line, want))
			continue;
		size_t olen, elen, rlen;
		char *out, *err, *rc;
		snprintf(path, sizeof(path), "%s/%d.out", dir, n);
		out = slurp(path, &olen);
		snprintf(path, sizeof(path), "%s/%d.err", dir, n);
		err = slurp(path, &elen);
		snprintf(path, sizeof(path), "%s/%d.rc", dir, n);
		rc = slurp(path, &rlen);
		if (!out || !err || !rc)
			die("command %d of %s/batch has no result: did gx_boot run?", n, dir);
		write_all(1, out, olen);
		write_all(2, err, elen);
		return atoi(rc);
	}
	die("not in %s/batch, so not run in the guest: %s", dir, want);
	return 127;
}

int main(int argc, char **argv)
{
	if (getpid() == 1)
		return as_init();
	if (argc == 4 && !strcmp(argv[1], "--split"))
		return split(argv[2], argv[3]);
	if (argc >= 4 && !strcmp(argv[1], "--replay"))
		return replay(argv[2], argc - 3, argv + 3);
	fprintf(stderr, "usage: guest-exec --split STREAM DIR | --replay DIR ARGV... (or as a guest's /init)\n");
	return 2;
}
