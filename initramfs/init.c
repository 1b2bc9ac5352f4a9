/*
 * init.c: bootrig's PID-1 init. It mounts what tests need, tells the host
 * about the machine, finds which userspace ABIs the kernel runs, runs the
 * planned benchmark binaries of each one under a watchdog, and prints
 * everything as protocol records (initramfs/PROTOCOL.md) on the console;
 * then it powers the machine off. PID 1 never exits: whatever fails, it
 * prints an ERROR record, END, and powers off.
 *
 * Run as an ordinary process (not PID 1) it neither mounts nor powers
 * off: `init --root DIR [--cmdline "ARGS"]` reads DIR/bench/<abi>/ and
 * DIR/etc/bootrig/plan, takes ARGS as the kernel command line (else
 * /proc/cmdline), and writes the records to stdout. The tests use it.
 * Its exit status: 0 every test passed, 1 a test failed or timed out,
 * 2 init itself failed (an ERROR record), 64 a usage error.
 *
 * The file reads top-down: records (framing, CRC, escaping), the plan,
 * system set-up and SYSINFO, running a child, the ABI probes, the tests,
 * and main().
 */
#include "rt.h"

#define INIT_VERSION "0.1.0"
#define RECORD_MAX 4096          /* a record line, newline included */
#define LIST_MAX 32              /* entries in a plan list */
#define NAME_MAX_LEN 64          /* a test, ABI or knob */
#define PROBE_TIMEOUT_MS 30000
/* At most this many samples per metric, so that a METRIC line (every
 * sample listed) stays within one record (bench.h's BENCH_MAX_SAMPLES). */
#define MAX_SAMPLES 100

/* The ABIs init knows, in the order their records are printed. */
static const char *const known_abis[] = {
	"aarch64", "aarch64_ilp32", "arm", "x86_64", "x32", "i386",
};
#define N_ABIS (sizeof(known_abis) / sizeof(known_abis[0]))

/* ------------------------------------------------------------------ */
/* Records.                                                             */

static int out_fd = 1;           /* the console, or stdout in test mode */
static unsigned record_seq;      /* the next record's sequence number */
static bool is_pid1;

/* crc32: IEEE 802.3 (zlib's crc32()), bitwise: records are few. */
static uint32_t crc32(const char *p, size_t n)
{
	uint32_t crc = 0xffffffffu;

	while (n--) {
		crc ^= (unsigned char)*p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

/* A record being built: "@@BR 1 <seq> <KIND>" then " key=value"... */
struct record {
	char buf[RECORD_MAX];
	size_t len;
	bool full;                /* a field did not fit and was cut */
};

static void rec_raw(struct record *r, const char *s, size_t n)
{
	/* keep room for " *xxxxxxxx\n" */
	if (r->len + n > RECORD_MAX - 12) {
		n = r->len < RECORD_MAX - 12 ? RECORD_MAX - 12 - r->len : 0;
		r->full = true;
	}
	memcpy(r->buf + r->len, s, n);
	r->len += n;
}

static void rec_begin(struct record *r, const char *kind)
{
	r->len = 0;
	r->full = false;
	r->len = (size_t)rt_snprintf(r->buf, sizeof(r->buf), "@@BR 1 %u %s", record_seq, kind);
}

/* rec_value: value escaped: bytes 0x21..0x7e except '%' as they are,
 * anything else as %XX. */
static void rec_value(struct record *r, const char *v, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";

	for (size_t i = 0; i < n && !r->full; i++) {
		unsigned char c = (unsigned char)v[i];
		if (c >= 0x21 && c <= 0x7e && c != '%') {
			rec_raw(r, (const char *)&c, 1);
		} else {
			char e[3] = { '%', hex[c >> 4], hex[c & 15] };
			rec_raw(r, e, 3);
		}
	}
}

/* rec_field: " key=<escaped value>" */
static void rec_field(struct record *r, const char *key, const char *value)
{
	rec_raw(r, " ", 1);
	rec_raw(r, key, rt_strlen(key));
	rec_raw(r, "=", 1);
	rec_value(r, value, rt_strlen(value));
}

__attribute__((format(printf, 3, 4)))
static void rec_fieldf(struct record *r, const char *key, const char *fmt, ...)
{
	char v[256];
	va_list ap;

	va_start(ap, fmt);
	rt_vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	rec_field(r, key, v);
}

/* rec_end: appends the CRC and writes the line with one write(2). */
static void rec_end(struct record *r)
{
	uint32_t crc = crc32(r->buf, r->len);

	r->len += (size_t)rt_snprintf(r->buf + r->len, RECORD_MAX - r->len, " *%08x\n", crc);
	rt_write_all(out_fd, r->buf, r->len);
	record_seq++;
}

/* log_line: a LOG record for abi/test with text (split over records when
 * longer than one can hold). */
static void log_line(const char *abi, const char *test, const char *text, size_t n)
{
	do {
		struct record r;
		size_t chunk = n < 1000 ? n : 1000;

		rec_begin(&r, "LOG");
		rec_field(&r, "abi", abi);
		rec_field(&r, "test", test);
		rec_raw(&r, " text=", 6);
		rec_value(&r, text, chunk);
		rec_end(&r);
		text += chunk;
		n -= chunk;
	} while (n > 0);
}

/* Kinds only init itself may print: a child printing them gets a LOG. */
static bool reserved_kind(const char *kind, size_t n)
{
	static const char *const mine[] = { "BEGIN", "SYSINFO", "ABI", "PLAN", "TEST",
					    "RESULT", "PROVOKE", "ERROR", "END" };

	for (size_t i = 0; i < sizeof(mine) / sizeof(mine[0]); i++)
		if (rt_strlen(mine[i]) == n && rt_strncmp(mine[i], kind, n) == 0)
			return true;
	return false;
}

/* valid_fields: "key=value key=value" with keys [a-z0-9_.]+, one space
 * between fields, values of printable bytes (escaped later if needed). */
static bool valid_fields(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t key = i;
		while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
				 s[i] == '_' || s[i] == '.'))
			i++;
		if (i == key || i >= n || s[i] != '=')
			return false;
		while (i < n && s[i] != ' ')
			i++;
		if (i < n && (++i >= n || s[i] == ' '))
			return false;       /* trailing or double space */
	}
	return true;
}

/* frame_child_line: one line a test printed (no newline) becomes its
 * record (a kind word, a space and valid fields) or a LOG record. */
static void frame_child_line(const char *abi, const char *test, const char *line, size_t n)
{
	size_t k = 0;

	if (n && line[n - 1] == '\r')
		n--;
	while (k < n && line[k] >= 'A' && line[k] <= 'Z')
		k++;
	if (k > 0 && k < n && line[k] == ' ' && !reserved_kind(line, k) &&
	    valid_fields(line + k + 1, n - k - 1) && n < RECORD_MAX - 64) {
		struct record r;
		char kind[32];
		size_t i = k + 1;

		rt_strlcpy(kind, line, k + 1 < sizeof(kind) ? k + 1 : sizeof(kind));
		rec_begin(&r, kind);
		while (i < n) {          /* keys kept, values escaped */
			size_t start = i, eq;
			while (line[i] != '=')
				i++;
			eq = i;
			while (i < n && line[i] != ' ')
				i++;
			rec_raw(&r, " ", 1);
			rec_raw(&r, line + start, eq + 1 - start);
			rec_value(&r, line + eq + 1, i - eq - 1);
			i++;
		}
		if (!r.full) {
			rec_end(&r);
			return;
		}
	}
	log_line(abi, test, line, n);
}

/* ------------------------------------------------------------------ */
/* The plan: /etc/bootrig/plan, then the kernel command line.           */

struct list {
	int n;
	char item[LIST_MAX][NAME_MAX_LEN];
};

struct plan {
	const char *source;       /* builtin, file or cmdline */
	char suite[NAME_MAX_LEN];
	char provoke[NAME_MAX_LEN];   /* a kind to provoke (initramfs/provoke/), "" none */
	struct list tests, abis, knobs;
	bool abis_set;
	long samples, min_samples, repeat, test_timeout;
	char ci_target[16];       /* a decimal percentage, as given */
	char error[160];          /* set when the plan cannot be used */
};

static void plan_error(struct plan *p, const char *what, const char *value)
{
	if (!p->error[0])
		rt_snprintf(p->error, sizeof(p->error), "plan: bad %s=%s", what, value);
}

/* list_parse: "a,b,c" into l; false when an entry is empty or too long. */
static bool list_parse(struct list *l, const char *s, size_t n)
{
	l->n = 0;
	while (n > 0) {
		size_t len = 0;
		while (len < n && s[len] != ',')
			len++;
		if (len == 0 || len >= NAME_MAX_LEN || l->n == LIST_MAX)
			return false;
		memcpy(l->item[l->n], s, len);
		l->item[l->n++][len] = '\0';
		s += len;
		n -= len;
		if (n > 0) {
			s++, n--;
			if (n == 0)
				return false;
		}
	}
	return true;
}

/* name_ok: a test or ABI name: [A-Za-z0-9_-]+ (never a path). */
static bool name_ok(const char *s)
{
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '_' || *p == '-'))
			return false;
	return *s != '\0';
}

/* list_parse_names: list_parse, every entry a name_ok() name. */
static bool list_parse_names(struct list *l, const char *s, size_t n)
{
	if (!list_parse(l, s, n))
		return false;
	for (int i = 0; i < l->n; i++)
		if (!name_ok(l->item[i]))
			return false;
	return true;
}

static bool list_has(const struct list *l, const char *s)
{
	for (int i = 0; i < l->n; i++)
		if (rt_strcmp(l->item[i], s) == 0)
			return true;
	return false;
}

/* plan_number: value as a positive long within [1, max], else an error. */
static long plan_number(struct plan *p, const char *key, const char *v, size_t n, long max)
{
	char tmp[24];
	long x;

	rt_strlcpy(tmp, v, n + 1 < sizeof(tmp) ? n + 1 : sizeof(tmp));
	x = rt_atol_default(n < sizeof(tmp) ? tmp : "", -1);
	if (x < 1 || x > max) {
		plan_error(p, key, tmp);
		return 1;
	}
	return x;
}

/* decimal_ok: v (n bytes) is digits with at most one '.' between digits. */
static bool decimal_ok(const char *v, size_t n)
{
	bool dot = false;

	if (n == 0 || v[0] == '.' || v[n - 1] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		if (v[i] == '.' && !dot)
			dot = true;
		else if (v[i] < '0' || v[i] > '9')
			return false;
	}
	return true;
}

/* plan_set: one key=value (value n bytes) of the plan file or of the
 * command line (there, keys without "bootrig."). */
static void plan_set(struct plan *p, const char *key, size_t klen, const char *v, size_t n,
		     bool from_cmdline)
{
	char k[NAME_MAX_LEN];

	rt_strlcpy(k, key, klen + 1 < sizeof(k) ? klen + 1 : sizeof(k));
	if (rt_strcmp(k, "suite") == 0) {
		if (n >= sizeof(p->suite))
			plan_error(p, k, "(too long)");
		else
			rt_strlcpy(p->suite, v, n + 1);
	} else if (rt_strcmp(k, from_cmdline ? "only" : "tests") == 0) {
		if (!list_parse_names(&p->tests, v, n))
			plan_error(p, k, "(list of test names)");
	} else if (rt_strcmp(k, from_cmdline ? "abi" : "abis") == 0) {
		if (!list_parse_names(&p->abis, v, n))
			plan_error(p, k, "(list of ABI names)");
		p->abis_set = true;
	} else if (rt_strcmp(k, "provoke") == 0) {
		if (n >= sizeof(p->provoke))
			plan_error(p, k, "(too long)");
		else
			rt_strlcpy(p->provoke, v, n + 1);
		if (!name_ok(p->provoke))
			plan_error(p, k, "(a kind name)");
	} else if (rt_strcmp(k, "samples") == 0) {
		p->samples = plan_number(p, k, v, n, MAX_SAMPLES);
	} else if (rt_strcmp(k, "min_samples") == 0) {
		p->min_samples = plan_number(p, k, v, n, MAX_SAMPLES);
	} else if (rt_strcmp(k, "ci_target") == 0) {
		if (!decimal_ok(v, n) || n >= sizeof(p->ci_target))
			plan_error(p, k, "(a decimal percentage)");
		else
			rt_strlcpy(p->ci_target, v, n + 1);
	} else if (rt_strcmp(k, "repeat") == 0) {
		p->repeat = plan_number(p, k, v, n, 1000);
	} else if (rt_strcmp(k, "test_timeout") == 0) {
		p->test_timeout = plan_number(p, k, v, n, 86400);
	} else if (from_cmdline && rt_starts_with(k, "knob.") && klen > 5) {
		if (p->knobs.n == LIST_MAX || klen - 5 + 1 + n >= NAME_MAX_LEN) {
			plan_error(p, k, "(too long)");
			return;
		}
		rt_snprintf(p->knobs.item[p->knobs.n++], NAME_MAX_LEN, "%s=%.*s", k + 5, (int)n, v);
	} else if (!from_cmdline) {
		plan_error(p, k, "(unknown key)");
	}
}

static void plan_defaults(struct plan *p)
{
	memset(p, 0, sizeof(*p));
	p->source = "builtin";
	rt_strlcpy(p->suite, "smoke", sizeof(p->suite));
	list_parse(&p->tests, "lat_syscall", 11);
	p->samples = 11;
	p->min_samples = 3;
	rt_strlcpy(p->ci_target, "1", sizeof(p->ci_target));
	p->repeat = 1;
	p->test_timeout = 120;
}

/* plan_read_file: lines key=value; blank lines and '#' comments skipped. */
static void plan_read_file(struct plan *p, const char *path)
{
	static char text[8192];
	long len = rt_read_file(path, text, sizeof(text));
	char *line = text;

	if (len < 0)
		return;
	p->source = "file";
	while (*line) {
		char *end = rt_strchr(line, '\n'), *eq;
		size_t n = end ? (size_t)(end - line) : rt_strlen(line);

		while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
			n--;
		line[n] = '\0';
		if (n && line[0] != '#') {
			eq = rt_strchr(line, '=');
			if (!eq)
				plan_error(p, "line", line);
			else
				plan_set(p, line, (size_t)(eq - line), eq + 1, n - (size_t)(eq + 1 - line),
					 false);
		}
		if (!end)
			break;
		line = end + 1;
	}
}

/* plan_read_cmdline: every bootrig.KEY=VALUE word overrides the plan. */
static void plan_read_cmdline(struct plan *p, const char *cmdline)
{
	const char *s = cmdline;

	while (*s) {
		const char *w = s, *eq;
		size_t n;

		while (*s && *s != ' ' && *s != '\n' && *s != '\t')
			s++;
		n = (size_t)(s - w);
		while (*s == ' ' || *s == '\n' || *s == '\t')
			s++;
		if (n <= 8 || rt_strncmp(w, "bootrig.", 8) != 0)
			continue;
		eq = rt_memchr(w, '=', n);
		if (!eq)
			continue;
		plan_set(p, w + 8, (size_t)(eq - w - 8), eq + 1, n - (size_t)(eq + 1 - w), true);
		p->source = "cmdline";
	}
}

/* ------------------------------------------------------------------ */
/* System set-up and SYSINFO.                                           */

/* mount_all: what tests need; a failure is returned as a message. */
static const char *mount_all(void)
{
	static const struct {
		const char *src, *dir, *type;
		unsigned long flags;
	} mounts[] = {
		{ "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC },
		{ "sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC },
		{ "devtmpfs", "/dev", "devtmpfs", MS_NOSUID },
		{ "tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV },
	};
	static char msg[96];

	for (size_t i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++) {
		long r;
		rt_mkdir(mounts[i].dir, 0755);
		r = rt_mount(mounts[i].src, mounts[i].dir, mounts[i].type, mounts[i].flags, NULL);
		if (r < 0 && r != -EBUSY) {
			rt_snprintf(msg, sizeof(msg), "mount %s: %s", mounts[i].dir, rt_errname((int)-r));
			return msg;
		}
	}
	return NULL;
}

/* open_console: /dev/console as the output and as fds 0, 1 and 2. */
static void open_console(void)
{
	long fd = rt_open("/dev/console", O_RDWR | O_NOCTTY, 0);

	if (fd < 0)
		return;           /* keep fd 1, whatever the kernel gave us */
	for (int i = 0; i < 3; i++)
		if (fd != i)
			rt_dup2((int)fd, i);
	out_fd = 1;
	if (fd > 2)
		rt_close((int)fd);
}

/* loopback_up: 127.0.0.1/8 on lo, and the interface up. */
static const char *loopback_up(void)
{
	struct rt_ifreq ifr;
	long fd = rt_socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r;
	static char msg[64];

	if (fd < 0) {
		rt_snprintf(msg, sizeof(msg), "lo: socket: %s", rt_errname((int)-fd));
		return msg;
	}
	memset(&ifr, 0, sizeof(ifr));
	rt_strlcpy(ifr.ifr_name, "lo", sizeof(ifr.ifr_name));
	ifr.ifr_addr.sin_family = AF_INET;
	ifr.ifr_addr.sin_addr = rt_htonl(INADDR_LOOPBACK);
	r = rt_ioctl((int)fd, SIOCSIFADDR, &ifr);
	if (r == 0) {
		ifr.ifr_addr.sin_addr = rt_htonl(0xff000000u);
		r = rt_ioctl((int)fd, SIOCSIFNETMASK, &ifr);
	}
	if (r == 0)
		r = rt_ioctl((int)fd, SIOCGIFFLAGS, &ifr);
	if (r == 0) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		r = rt_ioctl((int)fd, SIOCSIFFLAGS, &ifr);
	}
	rt_close((int)fd);
	if (r < 0) {
		rt_snprintf(msg, sizeof(msg), "lo: ioctl: %s", rt_errname((int)-r));
		return msg;
	}
	return NULL;
}

/* count_cpus: the CPUs in a list like "0-3,5" (sysfs "online"). */
static long count_cpus(const char *s)
{
	long n = 0;

	while (*s >= '0' && *s <= '9') {
		uint64_t a, b;
		s = rt_parse_u64(s, &a);
		b = a;
		if (s && *s == '-')
			s = rt_parse_u64(s + 1, &b);
		if (!s || b < a)
			return -1;
		n += (long)(b - a + 1);
		if (*s == ',')
			s++;
	}
	return n;
}

/* first_word: the first run of non-space bytes of s, cut in place. */
static char *first_word(char *s)
{
	char *e = s;

	while (*e && *e != ' ' && *e != '\n' && *e != '\t')
		e++;
	*e = '\0';
	return s;
}

/* chomp: s without its trailing newlines. */
static char *chomp(char *s)
{
	size_t n = rt_strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
	return s;
}

static void print_sysinfo(const char *uptime, const char *cmdline)
{
	struct rt_utsname u;
	struct record r;
	static char buf[4096];
	const char *mem;

	memset(&u, 0, sizeof(u));
	rt_uname(&u);
	rec_begin(&r, "SYSINFO");
	rec_field(&r, "release", u.release);
	rec_field(&r, "version", u.version);
	rec_field(&r, "machine", u.machine);
	if (rt_read_file("/sys/devices/system/cpu/online", buf, sizeof(buf)) > 0)
		rec_fieldf(&r, "cpus", "%ld", count_cpus(buf));
	else
		rec_field(&r, "cpus", "");
	if (rt_read_file("/proc/meminfo", buf, sizeof(buf)) > 0 &&
	    (mem = rt_strstr(buf, "MemTotal:")) != NULL) {
		mem += 9;
		while (*mem == ' ')
			mem++;
		rec_field(&r, "memtotal_kb", first_word((char *)mem));
	} else {
		rec_field(&r, "memtotal_kb", "");
	}
	rec_field(&r, "uptime", uptime);
	rec_field(&r, "cmdline", cmdline);
	rec_end(&r);
}

/* ------------------------------------------------------------------ */
/* Running a child: fork, exec with an errno pipe, output on a pipe,
 * a watchdog.                                                          */

struct run {
	long exec_errno;          /* execve's errno, 0 when it succeeded */
	int status;               /* wait status */
	bool timed_out;
	long ms;
};

/* spawn: runs argv[0] in its own process group, stdout and stderr into
 * *out_fd (a pipe read end; -1: no pipe wanted, output discarded).
 * Returns the pid or -errno; *exec_fd is the CLOEXEC pipe that carries
 * execve's errno (4 bytes) or EOF when exec succeeded. */
static long spawn(char *const argv[], int *out_read, int *exec_read)
{
	int out[2] = { -1, -1 }, ex[2];
	long pid, r;

	if ((r = rt_pipe2(ex, O_CLOEXEC)) < 0)
		return r;
	if (out_read && (r = rt_pipe2(out, O_CLOEXEC)) < 0) {
		rt_close(ex[0]), rt_close(ex[1]);
		return r;
	}
	pid = rt_fork();
	if (pid == 0) {
		static char *const machine_env[] = { "HOME=/", "TERM=linux", "PATH=/bin", NULL };
		char *const *envp = is_pid1 ? machine_env : rt_environ;
		long devnull = rt_open("/dev/null", O_RDWR, 0);
		int e;

		rt_setpgid(0, 0);
		if (devnull >= 0)
			rt_dup2((int)devnull, 0);
		rt_dup2(out_read ? out[1] : devnull >= 0 ? (int)devnull : 2, 1);
		rt_dup2(out_read ? out[1] : devnull >= 0 ? (int)devnull : 2, 2);
		e = (int)-rt_execve(argv[0], argv, envp);
		rt_write(ex[1], &e, sizeof(e));
		rt_exit(127);
	}
	rt_close(ex[1]);
	if (out_read)
		rt_close(out[1]);
	if (pid < 0) {
		rt_close(ex[0]);
		if (out_read)
			rt_close(out[0]);
		return pid;
	}
	rt_setpgid((pid_t)pid, (pid_t)pid);
	*exec_read = ex[0];
	if (out_read)
		*out_read = out[0];
	return pid;
}

/* Child output, cut into lines and framed. */
struct line_buf {
	char buf[RECORD_MAX];
	size_t len;
	const char *abi, *test;
};

static void line_feed(struct line_buf *lb, const char *p, size_t n)
{
	while (n--) {
		char c = *p++;
		if (c == '\n') {
			frame_child_line(lb->abi, lb->test, lb->buf, lb->len);
			lb->len = 0;
			continue;
		}
		if (lb->len == sizeof(lb->buf) - 1) {      /* an overlong line: cut */
			log_line(lb->abi, lb->test, lb->buf, lb->len);
			lb->len = 0;
		}
		lb->buf[lb->len++] = c;
	}
}

/* supervise: reads the child's output until EOF and its exit, killing its
 * process group at the deadline. */
static void supervise(long pid, int out, int ex, long timeout_ms, struct line_buf *lb,
		      struct run *run)
{
	uint64_t start = rt_now_ns(), deadline = start + (uint64_t)timeout_ms * 1000000u;
	bool reaped = false;
	int e = 0;

	run->exec_errno = 0;
	run->timed_out = false;
	if (rt_read(ex, &e, sizeof(e)) == (long)sizeof(e))
		run->exec_errno = e;
	rt_close(ex);
	while (out >= 0 || !reaped) {
		uint64_t now = rt_now_ns();
		long r;
		if (now >= deadline) {
			rt_kill((pid_t)-pid, SIGKILL);
			run->timed_out = true;
			break;
		}
		if (!reaped) {
			r = rt_wait4((pid_t)pid, &run->status, WNOHANG, NULL);
			reaped = r == pid;
		}
		if (out >= 0) {
			struct rt_pollfd pfd = { out, POLLIN, 0 };
			long wait_ms = (long)((deadline - now) / 1000000u) + 1;
			char buf[2048];
			if (wait_ms > 200)
				wait_ms = 200;
			if (rt_poll(&pfd, 1, (int)wait_ms) > 0) {
				r = rt_read(out, buf, sizeof(buf));
				if (r > 0)
					line_feed(lb, buf, (size_t)r);
				else if (r == 0 || r != -EINTR) {
					rt_close(out);
					out = -1;
				}
			}
		} else if (!reaped) {
			rt_sleep_ms(5);
		}
	}
	/* whatever is left of the group (a forked helper holding the pipe) */
	rt_kill((pid_t)-pid, SIGKILL);
	if (!reaped)
		rt_waitpid((pid_t)pid, &run->status, 0);
	if (out >= 0)
		rt_close(out);
	if (lb && lb->len) {
		frame_child_line(lb->abi, lb->test, lb->buf, lb->len);
		lb->len = 0;
	}
	while (rt_wait4(-1, NULL, WNOHANG | __WALL, NULL) > 0)
		;                        /* orphans re-parented to us */
	run->ms = (long)((rt_now_ns() - start) / 1000000u);
}

/* describe_exit: "exit 3", "signal 11" or NULL for exit 0. */
static const char *describe_exit(int status)
{
	static char why[32];

	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return NULL;
	if (WIFSIGNALED(status))
		rt_snprintf(why, sizeof(why), "signal %d", WTERMSIG(status));
	else
		rt_snprintf(why, sizeof(why), "exit %d", WEXITSTATUS(status));
	return why;
}

/* ------------------------------------------------------------------ */
/* ABI probes.                                                          */

static const char *root = "";          /* "" on the machine, DIR in test mode */
static bool abi_ok[N_ABIS];
static bool abi_present[N_ABIS];

static void bench_path(char *buf, size_t size, const char *abi, const char *name)
{
	rt_snprintf(buf, size, "%s/bench/%s/%s", root, abi, name);
}

/* probe_abi: exec /bench/<abi>/probe; prints the ABI record. */
static void probe_abi(size_t i)
{
	char path[512], *argv[] = { path, NULL };
	const char *status = "ok", *reason = NULL;
	char why[64];
	struct rt_stat st;
	struct record r;
	struct run run;
	int ex;
	long pid;

	bench_path(path, sizeof(path), known_abis[i], "probe");
	if (rt_stat(path, &st) < 0) {
		status = "error", reason = "probe missing";
	} else if ((pid = spawn(argv, NULL, &ex)) < 0) {
		status = "error";
		rt_snprintf(why, sizeof(why), "fork %s", rt_errname((int)-pid));
		reason = why;
	} else {
		supervise(pid, -1, ex, PROBE_TIMEOUT_MS, NULL, &run);
		if (run.exec_errno == ENOEXEC) {
			status = "unsupported", reason = "ENOEXEC";
		} else if (run.exec_errno) {
			status = "error", reason = rt_errname((int)run.exec_errno);
		} else if (run.timed_out) {
			status = "error", reason = "probe timeout";
		} else if ((reason = describe_exit(run.status)) != NULL) {
			status = "error";
		}
	}
	abi_ok[i] = reason == NULL;
	rec_begin(&r, "ABI");
	rec_field(&r, "abi", known_abis[i]);
	rec_field(&r, "status", status);
	if (reason)
		rec_field(&r, "reason", reason);
	rec_end(&r);
}

/* ------------------------------------------------------------------ */
/* Tests.                                                               */

struct counts {
	long tests, passed, failed, timeout;
};

static void print_result(const char *abi, const char *test, const char *status,
			 const char *reason, long ms)
{
	struct record r;

	rec_begin(&r, "RESULT");
	rec_field(&r, "abi", abi);
	rec_field(&r, "test", test);
	rec_field(&r, "status", status);
	if (reason)
		rec_field(&r, "reason", reason);
	rec_fieldf(&r, "ms", "%ld", ms);
	rec_end(&r);
}

/* ci_basis_points: a decimal_ok() percentage in hundredths ("0.5": 50),
 * at most 10000 (100 %). */
static long ci_basis_points(const char *v)
{
	long whole = 0, frac = 0, digits = 0;

	for (; *v >= '0' && *v <= '9'; v++)
		whole = whole < 10000 ? whole * 10 + (*v - '0') : whole;
	if (*v == '.')
		for (v++; *v >= '0' && *v <= '9'; v++)
			if (digits < 2)
				frac = frac * 10 + (*v - '0'), digits++;
	while (digits++ < 2)
		frac *= 10;
	whole = whole * 100 + frac;
	return whole > 10000 ? 10000 : whole;
}

/* The clock, measured once per boot before the tests (rt_clock_measure). */
static struct rt_clock boot_clock;

/* run_test: TEST, the child's records, RESULT. */
static void run_test(const struct plan *p, const char *abi, const char *test, struct counts *c)
{
	char path[512], samples[32], min_samples[32], ci[32], res[40], noise[40], abiarg[80];
	char *argv[LIST_MAX + 8];
	static struct line_buf lb;
	const char *reason;
	struct rt_stat st;
	struct record r;
	struct run run;
	int argc = 0, out, ex;
	long pid;

	c->tests++;
	rec_begin(&r, "TEST");
	rec_field(&r, "abi", abi);
	rec_field(&r, "test", test);
	rec_field(&r, "status", "start");
	rec_end(&r);

	bench_path(path, sizeof(path), abi, test);
	if (rt_stat(path, &st) < 0 || !S_ISREG(st.mode)) {
		c->failed++;
		print_result(abi, test, "FAIL", "missing", 0);
		return;
	}
	rt_snprintf(abiarg, sizeof(abiarg), "abi=%s", abi);
	rt_snprintf(samples, sizeof(samples), "samples=%ld", p->samples);
	rt_snprintf(min_samples, sizeof(min_samples), "min_samples=%ld", p->min_samples);
	rt_snprintf(ci, sizeof(ci), "ci_bp=%ld", ci_basis_points(p->ci_target));
	rt_snprintf(res, sizeof(res), "clock_res_ns=%lu", (unsigned long)boot_clock.res_ns);
	rt_snprintf(noise, sizeof(noise), "clock_noise_ppm=%lu", (unsigned long)boot_clock.noise_ppm);
	argv[argc++] = path;
	argv[argc++] = abiarg;
	argv[argc++] = samples;
	argv[argc++] = min_samples;
	argv[argc++] = ci;
	for (int k = 0; k < p->knobs.n; k++)      /* before the clock: a knob overrides it */
		argv[argc++] = (char *)p->knobs.item[k];
	argv[argc++] = res;
	argv[argc++] = noise;
	argv[argc] = NULL;

	pid = spawn(argv, &out, &ex);
	if (pid < 0) {
		char why[48];
		rt_snprintf(why, sizeof(why), "fork %s", rt_errname((int)-pid));
		c->failed++;
		print_result(abi, test, "FAIL", why, 0);
		return;
	}
	lb.len = 0, lb.abi = abi, lb.test = test;
	supervise(pid, out, ex, p->test_timeout * 1000, &lb, &run);
	if (run.exec_errno) {
		char why[48];
		rt_snprintf(why, sizeof(why), "exec %s", rt_errname((int)run.exec_errno));
		c->failed++;
		print_result(abi, test, "FAIL", why, run.ms);
	} else if (run.timed_out) {
		c->timeout++;
		print_result(abi, test, "TIMEOUT", "watchdog", run.ms);
	} else if ((reason = describe_exit(run.status)) != NULL) {
		c->failed++;
		print_result(abi, test, "FAIL", reason, run.ms);
	} else {
		c->passed++;
		print_result(abi, test, "PASS", NULL, run.ms);
	}
}

/* ------------------------------------------------------------------ */
/* Provoking a kernel report (bootrig run --provoke KIND).              */

#define PROVOKE_MODULE "/lib/provoke.ko"
#define PROVOKE_TIMEOUT_MS 120000

/* What a kind needs set first, so that its report comes within seconds
 * (a refused setting makes the kind unsupported, with that reason). */
static const struct {
	const char *kind, *path, *value, *why;
} provoke_settings[] = {
	{ "soft-lockup", "/proc/sys/kernel/watchdog_thresh", "1", "no lockup detector" },
	{ "hard-lockup", "/proc/sys/kernel/nmi_watchdog", "1", "no NMI watchdog" },
	{ "hard-lockup", "/proc/sys/kernel/watchdog_thresh", "1", "no lockup detector" },
	{ "hung-task", "/proc/sys/kernel/hung_task_timeout_secs", "1", "no hung task detector" },
	{ "rcu-stall", "/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout", "3",
	  "no RCU stall detector" },
};

/* write_string: s into path (a sysctl, a proc trigger); 0 or -errno. */
static long write_string(const char *path, const char *s)
{
	long fd = rt_open(root[0] ? "/dev/null" : path, O_WRONLY, 0), r;

	if (fd < 0)
		return fd;
	r = rt_write((int)fd, s, rt_strlen(s));
	rt_close((int)fd);
	return r < 0 ? r : 0;
}

static void provoke_record(const char *kind, const char *status, const char *what,
			   const char *text)
{
	struct record r;

	rec_begin(&r, "PROVOKE");
	rec_field(&r, "kind", kind);
	rec_field(&r, "status", status);
	if (what)
		rec_field(&r, what, text);
	rec_end(&r);
}

/* module_reason: the module's "provoke: unsupported KIND: REASON" from
 * the kernel log, REASON into buf ("" when the log does not have it). */
static void module_reason(const char *kind, char *buf, size_t size)
{
	static char log[65536];
	char marker[NAME_MAX_LEN + 32];
	const char *at = NULL, *p;
	long n = rt_syslog(SYSLOG_ACTION_READ_ALL, log, (int)sizeof(log) - 1);
	size_t len = 0;

	buf[0] = '\0';
	if (n <= 0)
		return;
	log[n] = '\0';
	rt_snprintf(marker, sizeof(marker), "provoke: unsupported %s: ", kind);
	for (p = log; (p = rt_strstr(p, marker)) != NULL; p++)
		at = p + rt_strlen(marker);
	while (at && at[len] && at[len] != '\n' && len + 1 < size)
		len++;
	if (at)
		rt_strlcpy(buf, at, len + 1);
}

/* provoke: PROVOKE kind status=start, then the report: init writes 'c'
 * to /proc/sysrq-trigger itself (sysrq-c), or a child loads the module
 * with kind=KIND; PROVOKE status=done|unsupported|error after, when the
 * kernel is still there to say so. */
static void provoke(const char *kind)
{
	static char module[512], cmdline[4096];
	char params[NAME_MAX_LEN + 8], why[256];
	const char *cmdline_has;
	struct rt_stat st;
	long pid, r;
	int status = 0;
	uint64_t deadline;

	provoke_record(kind, "start", NULL, NULL);
	for (size_t i = 0; i < sizeof(provoke_settings) / sizeof(provoke_settings[0]); i++) {
		if (rt_strcmp(provoke_settings[i].kind, kind) != 0)
			continue;
		if ((r = write_string(provoke_settings[i].path, provoke_settings[i].value)) < 0) {
			rt_snprintf(why, sizeof(why), "%s: writing %s to %s: %s", provoke_settings[i].why,
				    provoke_settings[i].value, provoke_settings[i].path,
				    r == -524 ? "ENOTSUPP" : rt_errname((int)-r));
			provoke_record(kind, "unsupported", "reason", why);
			return;
		}
	}
	if (rt_strcmp(kind, "sysrq-c") == 0) {
		rt_sync();
		r = write_string("/proc/sysrq-trigger", "c");
		rt_snprintf(why, sizeof(why), "writing c to /proc/sysrq-trigger: %s",
			    r < 0 ? rt_errname((int)-r) : "the kernel went on");
		provoke_record(kind, r < 0 ? "unsupported" : "error", "reason", why);
		return;
	}
	cmdline_has = rt_strcmp(kind, "double-free") == 0 ? "slub_debug" : NULL;
	if (cmdline_has && rt_read_file("/proc/cmdline", cmdline, sizeof(cmdline)) > 0 &&
	    !rt_strstr(cmdline, cmdline_has)) {
		provoke_record(kind, "unsupported", "reason",
			       "slub_debug is not on the kernel command line");
		return;
	}
	rt_snprintf(module, sizeof(module), "%s%s", root, PROVOKE_MODULE);
	if (rt_stat(module, &st) < 0) {
		provoke_record(kind, "error", "reason", PROVOKE_MODULE " is not in the image");
		return;
	}
	rt_snprintf(params, sizeof(params), "kind=%s", kind);
	pid = rt_fork();
	if (pid == 0) {
		long fd = rt_open(module, O_RDONLY | O_CLOEXEC, 0);
		r = fd < 0 ? fd : root[0] ? -EPERM : rt_finit_module((int)fd, params, 0);
		rt_exit(r < 0 ? (int)-r : 0);
	}
	if (pid < 0) {
		provoke_record(kind, "error", "reason", rt_errname((int)-pid));
		return;
	}
	deadline = rt_now_ns() + (uint64_t)PROVOKE_TIMEOUT_MS * 1000000u;
	while ((r = rt_wait4((pid_t)pid, &status, WNOHANG, NULL)) == 0 && rt_now_ns() < deadline)
		rt_sleep_ms(50);
	if (r == 0) {
		provoke_record(kind, "error", "reason", "the module is still loading after 120 s");
	} else if (WIFSIGNALED(status)) {
		rt_snprintf(why, sizeof(why), "the loading task was killed (signal %d)", WTERMSIG(status));
		provoke_record(kind, "done", "result", why);
	} else if (WEXITSTATUS(status) == 0) {
		provoke_record(kind, "done", "result", "the module returned");
	} else if (WEXITSTATUS(status) == EOPNOTSUPP) {
		module_reason(kind, why, sizeof(why));
		provoke_record(kind, "unsupported", "reason",
			       why[0] ? why : "the module refused it (no reason in the kernel log)");
	} else {
		rt_snprintf(why, sizeof(why), "finit_module: %s", rt_errname(WEXITSTATUS(status)));
		provoke_record(kind, "error", "reason", why);
	}
}

/* ------------------------------------------------------------------ */
/* Console loglevel while measuring.                                    */

static char saved_loglevel[8];

static void quiet_console(void)
{
	char buf[64];

	if (rt_read_file("/proc/sys/kernel/printk", buf, sizeof(buf)) <= 0)
		return;
	rt_strlcpy(saved_loglevel, first_word(buf), sizeof(saved_loglevel));
	rt_syslog(SYSLOG_ACTION_CONSOLE_LEVEL, NULL, 1);
}

static void restore_console(void)
{
	long fd;

	if (!saved_loglevel[0])
		return;
	fd = rt_open("/proc/sys/kernel/printk", O_WRONLY, 0);
	if (fd >= 0) {
		rt_write((int)fd, saved_loglevel, rt_strlen(saved_loglevel));
		rt_close((int)fd);
	}
}

/* ------------------------------------------------------------------ */
/* main                                                                 */

/* finish: END (records counts the records before it); on the machine,
 * sync and power off, never returning. */
static int finish(const struct counts *c)
{
	struct record r;

	rec_begin(&r, "END");
	rec_fieldf(&r, "tests", "%ld", c->tests);
	rec_fieldf(&r, "passed", "%ld", c->passed);
	rec_fieldf(&r, "failed", "%ld", c->failed);
	rec_fieldf(&r, "timeout", "%ld", c->timeout);
	rec_fieldf(&r, "records", "%u", record_seq);
	rec_end(&r);
	if (!is_pid1)
		return c->failed || c->timeout ? 1 : 0;
	rt_sync();
	for (;;) {
		rt_reboot(RB_POWER_OFF);
		rt_sleep_ms(1000);
	}
}

static int fail(const char *reason, const struct counts *c)
{
	struct record r;

	rec_begin(&r, "ERROR");
	rec_field(&r, "reason", reason);
	rec_end(&r);
	finish(c);
	return 2;
}

static int usage(void)
{
	rt_eprintf("usage: init [--root DIR] [--cmdline ARGS]\n"
		   "  PID 1: mounts, runs /etc/bootrig/plan on /bench, powers off.\n"
		   "  Otherwise: runs DIR's plan and tests, records on stdout.\n");
	return 64;
}

/* plan_abis: the ABIs to run: the plan's (all ok ones by default), in
 * known_abis order, those the kernel runs only. */
static void plan_abis(const struct plan *p, struct list *run)
{
	run->n = 0;
	for (size_t i = 0; i < N_ABIS; i++)
		if (abi_ok[i] && (!p->abis_set || list_has(&p->abis, known_abis[i])))
			rt_strlcpy(run->item[run->n++], known_abis[i], NAME_MAX_LEN);
}

static void join_list(const struct list *l, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < l->n && len < size; i++)
		len += (size_t)rt_snprintf(buf + len, size - len, "%s%s", i ? "," : "", l->item[i]);
}

int main(int argc, char **argv, char **envp)
{
	static char cmdline[4096], uptime[64], path[512], joined[2][1024];
	static struct plan plan;
	static struct list run_abis;
	struct counts c = { 0, 0, 0, 0 };
	const char *cmdline_arg = NULL, *problem = NULL;
	struct record r;
	struct rt_stat st;

	(void)envp;
	is_pid1 = rt_getpid() == 1;
	for (int i = 1; i < argc; i++) {
		if (rt_strcmp(argv[i], "--root") == 0 && i + 1 < argc)
			root = argv[++i];
		else if (rt_strcmp(argv[i], "--cmdline") == 0 && i + 1 < argc)
			cmdline_arg = argv[++i];
		else if (!is_pid1)
			return usage();
	}
	if (is_pid1) {
		root = "";
		problem = mount_all();
		open_console();
	}
	if (rt_read_file("/proc/uptime", uptime, sizeof(uptime)) > 0)
		first_word(uptime);
	if (cmdline_arg)
		rt_strlcpy(cmdline, cmdline_arg, sizeof(cmdline));
	else if (rt_read_file("/proc/cmdline", cmdline, sizeof(cmdline)) > 0)
		chomp(cmdline);

	plan_defaults(&plan);
	rt_snprintf(path, sizeof(path), "%s/etc/bootrig/plan", root);
	plan_read_file(&plan, path);
	plan_read_cmdline(&plan, cmdline);

	rec_begin(&r, "BEGIN");
	rec_field(&r, "proto", "1");
	rec_field(&r, "init", INIT_VERSION);
	rec_field(&r, "arch", RT_ABI_NAME);
	rec_field(&r, "plan", plan.source);
	rec_end(&r);
	print_sysinfo(uptime, cmdline);
	if (problem)
		return fail(problem, &c);
	if (plan.error[0])
		return fail(plan.error, &c);
	if (is_pid1 && (problem = loopback_up()) != NULL)
		log_line(RT_ABI_NAME, "init", problem, rt_strlen(problem));

	for (size_t i = 0; i < N_ABIS; i++) {
		rt_snprintf(path, sizeof(path), "%s/bench/%s", root, known_abis[i]);
		abi_present[i] = rt_stat(path, &st) == 0 && S_ISDIR(st.mode);
		if (abi_present[i])
			probe_abi(i);
	}
	plan_abis(&plan, &run_abis);
	join_list(&run_abis, joined[0], sizeof(joined[0]));
	join_list(&plan.tests, joined[1], sizeof(joined[1]));
	rec_begin(&r, "PLAN");
	rec_field(&r, "suite", plan.suite);
	rec_fieldf(&r, "repeat", "%ld", plan.repeat);
	rec_fieldf(&r, "samples", "%ld", plan.samples);
	rec_field(&r, "abis", joined[0]);
	rec_field(&r, "tests", plan.provoke[0] ? "" : joined[1]);
	rec_fieldf(&r, "min_samples", "%ld", plan.min_samples);
	rec_field(&r, "ci_target", plan.ci_target);
	if (plan.tests.n > 0) {
		rt_clock_measure(&boot_clock);
		rec_fieldf(&r, "clock_overhead_ns", "%lu", (unsigned long)boot_clock.overhead_ns);
		rec_fieldf(&r, "clock_res_ns", "%lu", (unsigned long)boot_clock.res_ns);
		rec_fieldf(&r, "clock_noise_ppm", "%lu", (unsigned long)boot_clock.noise_ppm);
	}
	rec_end(&r);

	if (plan.provoke[0]) {
		provoke(plan.provoke);      /* a boot that provokes runs no test */
		return finish(&c);
	}
	if (run_abis.n == 0 && plan.tests.n > 0)
		return fail("no runnable ABI for the plan", &c);

	if (is_pid1)
		quiet_console();
	for (long rep = 0; rep < plan.repeat; rep++)
		for (int a = 0; a < run_abis.n; a++)
			for (int t = 0; t < plan.tests.n; t++)
				run_test(&plan, run_abis.item[a], plan.tests.item[t], &c);
	if (is_pid1)
		restore_console();
	return finish(&c);
}
