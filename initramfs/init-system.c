/*
 * init-system.c: the machine's set-up: mounts, the console and its
 * loglevel while measuring, loopback, and the SYSINFO record (init.h).
 */
#include "init.h"

/* mount_all: what tests need; a failure is returned as a message. */
const char *mount_all(void)
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
void open_console(void)
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
const char *loopback_up(void)
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
char *first_word(char *s)
{
	char *e = s;

	while (*e && *e != ' ' && *e != '\n' && *e != '\t')
		e++;
	*e = '\0';
	return s;
}

/* chomp: s without its trailing newlines. */
char *chomp(char *s)
{
	size_t n = rt_strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
	return s;
}

void print_sysinfo(const char *uptime, const char *cmdline)
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
/* Console loglevel while measuring.                                    */

static char saved_loglevel[8];

void quiet_console(void)
{
	char buf[64];

	if (rt_read_file("/proc/sys/kernel/printk", buf, sizeof(buf)) <= 0)
		return;
	rt_strlcpy(saved_loglevel, first_word(buf), sizeof(saved_loglevel));
	rt_syslog(SYSLOG_ACTION_CONSOLE_LEVEL, NULL, 1);
}

void restore_console(void)
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
