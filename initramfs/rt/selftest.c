/*
 * selftest.c: the runtime's own test, one binary per ABI (built into
 * build/guest-selftest/<abi>/, never into an image). Like nolibc-test: one
 * check per line, "ok NAME" or "FAIL NAME: why", then "done N failed";
 * exit status 0 when nothing failed. tests/t-guest-rt.sh runs it natively
 * and under qemu-user and turns the lines into TAP.
 *
 * Covered: formatted output, strings and parsing, error names, files
 * (open/read/write/lseek/stat/fstat/ftruncate/getdents64/unlink), pipes
 * and dup2, fork/execve/wait4 and exit statuses, signals through the
 * ABI's restorer, clocks and sleeping, mmap, the bump allocator, threads
 * with a futex join, TCP over loopback, socketpair, uname, getrandom,
 * poll, sched_setaffinity, sched_setscheduler and the online CPUs.
 */
#include "rt.h"
#include "selftest.h"

static void check_format(void)
{
	char b[512];

	rt_snprintf(b, sizeof(b), "%d|%i|%u|%x|%X|%o|%ld|%lu|%lld|%llu|%zu|%c|%s|%.3s|%5d|%-5d|%05d|%%",
		    -42, 7, 4000000000u, 255, 255, 8, -1234567890L, 3000000000UL,
		    -9000000000000000000LL, 18446744073709551615ULL, (size_t)99, 'z', "str",
		    "abcdef", 42, 42, -42);
	check(rt_strcmp(b, "-42|7|4000000000|ff|FF|10|-1234567890|3000000000|"
			   "-9000000000000000000|18446744073709551615|99|z|str|abc|   42|42   |-0042|%") == 0,
	      "printf integers, strings, width and flags", "got %s", b);
	rt_snprintf(b, sizeof(b), "%.4f|%.0f|%f|%.2f|%.1f|%.9f|%.3f", 3.14159265, 2.5, -0.5, 0.999,
		    12345678901234.5, 0.000000001, -0.0004);
	check(rt_strcmp(b, "3.1416|3|-0.500000|1.00|12345678901234.5|0.000000001|-0.000") == 0,
	      "printf fixed-point doubles", "got %s", b);
	rt_snprintf(b, sizeof(b), "%p", (void *)0x1234);
	check(rt_strcmp(b, "0x1234") == 0, "printf %p", "got %s", b);
	check(rt_snprintf(b, 4, "abcdef") == 6 && rt_strcmp(b, "abc") == 0,
	      "snprintf truncates and returns the full length", "got %s", b);
}

static void check_strings(void)
{
	char buf[16];
	uint64_t v = 0;
	const char *end;
	char *argv[] = { "prog", "abi=arm", "samples=11", "slow_null=10", NULL };

	check(rt_strlen("hello") == 5 && rt_strcmp("a", "b") < 0 && rt_strncmp("abc", "abd", 2) == 0,
	      "strlen, strcmp, strncmp", "mismatch");
	check(rt_strchr("a,b", ',') && !rt_strchr("ab", ',') && rt_strrchr("a/b/c", '/')[1] == 'c' &&
		      rt_strstr("hay needle", "needle") != NULL && rt_strstr("hay", "x") == NULL,
	      "strchr, strrchr, strstr", "mismatch");
	check(rt_strlcpy(buf, "0123456789abcdefXYZ", sizeof(buf)) == 19 && rt_strlen(buf) == 15,
	      "strlcpy truncates and terminates", "got %s", buf);
	memset(buf, 'x', sizeof(buf));
	memmove(buf + 2, buf, 8);
	buf[0] = 'a';
	memcpy(buf + 1, "bc", 2);
	check(memcmp(buf, "abcxxxxxxx", 10) == 0, "memset, memmove, memcpy, memcmp", "mismatch");
	end = rt_parse_u64("12345x", &v);
	check(end && *end == 'x' && v == 12345, "parse_u64 decimal", "v=%llu", (unsigned long long)v);
	end = rt_parse_u64("0xff", &v);
	check(end && v == 255, "parse_u64 hex", "v=%llu", (unsigned long long)v);
	check(rt_parse_u64("99999999999999999999", &v) == NULL && rt_parse_u64("x", &v) == NULL,
	      "parse_u64 refuses overflow and non-numbers", "accepted");
	check(rt_atol_default("17", 3) == 17 && rt_atol_default("1x", 3) == 3 && rt_atol_default(NULL, 4) == 4,
	      "atol_default", "mismatch");
	check(rt_strcmp(rt_argval(4, argv, "samples"), "11") == 0 && rt_argval(4, argv, "sample") == NULL,
	      "argval finds key=value arguments", "mismatch");
	check(rt_strcmp(rt_errname(ENOEXEC), "ENOEXEC") == 0 && rt_strcmp(rt_errname(ECONNREFUSED), "ECONNREFUSED") == 0 &&
		      rt_strcmp(rt_errname(200), "E200") == 0,
	      "errname", "got %s", rt_errname(ENOEXEC));
}

static void check_files(void)
{
	const char *path = "/tmp/rt-selftest.file";
	struct rt_stat st;
	char buf[64], dents[1024];
	long fd, r, n;
	int64_t pos;
	bool found = false;

	fd = rt_open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	check(fd >= 0, "open O_CREAT", "%s", rt_errname((int)-fd));
	if (fd < 0)
		return;
	check(rt_write_all((int)fd, "hello, world\n", 13) == 13, "write", "short");
	pos = rt_lseek((int)fd, 7, SEEK_SET);
	r = rt_read((int)fd, buf, sizeof(buf));
	check(pos == 7 && r == 6 && memcmp(buf, "world\n", 6) == 0, "lseek and read", "pos %lld r %ld",
	      (long long)pos, r);
	r = rt_fstat((int)fd, &st);
	check(r == 0 && st.size == 13 && S_ISREG(st.mode), "fstat", "r %ld size %lld", r, (long long)st.size);
	r = rt_ftruncate((int)fd, 5000000000LL);
	n = rt_stat(path, &st);
	check(r == 0 && n == 0 && st.size == 5000000000LL, "ftruncate and stat past 4 GiB",
	      "r %ld/%ld size %lld", r, n, (long long)st.size);
	pos = rt_lseek((int)fd, 0, SEEK_END);
	check(pos == 5000000000LL, "lseek past 4 GiB", "pos %lld", (long long)pos);
	rt_close((int)fd);
	check(rt_stat("/nonexistent-rt", &st) == -ENOENT, "stat of a missing file is -ENOENT", "other");

	fd = rt_open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	while (fd >= 0 && (n = rt_getdents64((int)fd, dents, sizeof(dents))) > 0)
		for (long off = 0; off < n;) {
			struct rt_dirent64 *d = (struct rt_dirent64 *)(dents + off);
			found |= rt_strcmp(d->d_name, "rt-selftest.file") == 0;
			off += d->d_reclen;
		}
	if (fd >= 0)
		rt_close((int)fd);
	check(found, "getdents64 lists the file", "not found");
	check(rt_unlink(path) == 0 && rt_access(path, 0) == -ENOENT, "unlink", "still there");
	check(rt_mkdir("/tmp/rt-selftest.dir", 0700) == 0 && rt_rmdir("/tmp/rt-selftest.dir") == 0,
	      "mkdir and rmdir", "failed");
}

static void check_processes(char **argv, bool exec_self)
{
	int fds[2], status = 0;
	char buf[32];
	long pid, r;

	check(rt_pipe2(fds, O_CLOEXEC) == 0, "pipe2", "failed");
	pid = rt_fork();
	if (pid == 0) {
		rt_dup2(fds[1], 1);
		rt_printf("child %ld\n", rt_getppid());
		rt_exit(3);
	}
	rt_close(fds[1]);
	r = rt_read(fds[0], buf, sizeof(buf) - 1);
	rt_close(fds[0]);
	buf[r > 0 ? r : 0] = '\0';
	check(rt_waitpid((pid_t)pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 3,
	      "fork, exit status through wait4", "status 0x%x", status);
	check(rt_starts_with(buf, "child "), "the child wrote through dup2 into the pipe", "got %s", buf);

	if (exec_self) {
		pid = rt_fork();
		if (pid == 0) {
			char *args[] = { argv[0], "--exit", "5", NULL };
			rt_execve(argv[0], args, rt_environ);
			rt_exit(99);
		}
		check(rt_waitpid((pid_t)pid, &status, 0) == pid && WEXITSTATUS(status) == 5,
		      "execve of ourselves", "status 0x%x", status);
	} else {
		rt_printf("skip execve of ourselves: --no-exec (qemu-user cannot exec a foreign binary)\n");
	}
	pid = rt_fork();
	if (pid == 0) {
		rt_kill((pid_t)rt_getpid(), SIGKILL);
		rt_exit(0);
	}
	check(rt_waitpid((pid_t)pid, &status, 0) == pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	      "kill: a signal as wait status", "status 0x%x", status);
	check(rt_execve("/nonexistent-rt", argv, rt_environ) == -ENOENT, "execve of a missing file is -ENOENT",
	      "other");
}

static volatile int signals_seen;
static void on_usr1(int sig)
{
	signals_seen += sig == SIGUSR1;
}

static void check_signals(void)
{
	uint64_t block = 1ull << (SIGUSR1 - 1), old = 0;

	check(rt_sigaction(SIGUSR1, on_usr1, 0) == 0, "sigaction", "failed");
	rt_kill((pid_t)rt_getpid(), SIGUSR1);
	rt_kill((pid_t)rt_getpid(), SIGUSR1);
	check(signals_seen == 2, "handler runs and returns through the restorer", "seen %d", signals_seen);
	rt_sigprocmask(SIG_BLOCK, &block, &old);
	rt_kill((pid_t)rt_getpid(), SIGUSR1);
	check(signals_seen == 2, "sigprocmask blocks", "seen %d", signals_seen);
	rt_sigprocmask(SIG_SETMASK, &old, NULL);
	check(signals_seen == 3, "unblocking delivers", "seen %d", signals_seen);
	rt_sigaction(SIGUSR1, SIG_DFL, 0);
}

static void check_time_and_memory(void)
{
	uint64_t t0 = rt_now_ns(), t1;
	struct rt_timespec ts;
	char *p, *q;

	rt_sleep_ms(20);
	t1 = rt_now_ns();
	check(t1 - t0 >= 20000000u && t1 - t0 < 5000000000u, "clock_gettime and a 20 ms sleep",
	      "took %llu ns", (unsigned long long)(t1 - t0));
	check(rt_clock_gettime(CLOCK_REALTIME, &ts) == 0 && ts.tv_sec > 1600000000, "realtime clock in 64 bits",
	      "sec %lld", (long long)ts.tv_sec);
	p = rt_mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	check(!RT_IS_ERR(p), "mmap 1 MiB", "%s", rt_errname((int)-RT_PTR_ERR(p)));
	if (!RT_IS_ERR(p)) {
		p[0] = 1, p[(1 << 20) - 1] = 2;
		check(rt_munmap(p, 1 << 20) == 0, "munmap", "failed");
	}
	p = rt_alloc(10);
	q = rt_alloc(100000);
	check(p && q && ((uintptr_t)p & 15) == 0 && ((uintptr_t)q & 15) == 0 && p[9] == 0 && q[99999] == 0,
	      "alloc: aligned, zeroed", "p %p q %p", (void *)p, (void *)q);
}

static volatile uint32_t counter;
static int add_many(void *arg)
{
	for (long i = 0; i < (long)(uintptr_t)arg; i++)
		__atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST);
	return 7;
}

static void check_threads(void)
{
	struct rt_thread t[4];
	int sum = 0;
	long r = 0;

	for (int i = 0; i < 4 && r >= 0; i++)
		r = rt_thread_start(&t[i], add_many, (void *)(uintptr_t)20000, 0);
	check(r >= 0, "thread_start", "%s", rt_errname((int)-r));
	if (r < 0)
		return;
	for (int i = 0; i < 4; i++)
		sum += rt_thread_join(&t[i]);
	check(counter == 80000 && sum == 28, "threads run and join with their results", "counter %u sum %d",
	      counter, sum);
}

static void check_sockets(void)
{
	struct rt_sockaddr_in addr;
	unsigned len = sizeof(addr);
	int sv[2];
	char buf[8] = "";
	long srv, cli, acc;
	struct rt_pollfd pfd;

	check(rt_socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 && rt_write(sv[0], "ping", 4) == 4 &&
		      rt_read(sv[1], buf, 4) == 4 && memcmp(buf, "ping", 4) == 0,
	      "socketpair", "failed");
	rt_close(sv[0]), rt_close(sv[1]);

	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	addr.sin_addr = rt_htonl(INADDR_LOOPBACK);
	srv = rt_socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (srv < 0 || rt_bind((int)srv, &addr, sizeof(addr)) < 0 || rt_listen((int)srv, 4) < 0 ||
	    rt_getsockname((int)srv, &addr, &len) < 0) {
		check(false, "TCP listen on 127.0.0.1", "%s", rt_errname((int)-srv));
		return;
	}
	cli = rt_socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	check(rt_connect((int)cli, &addr, sizeof(addr)) == 0, "TCP connect over loopback", "failed");
	acc = rt_accept((int)srv, NULL, NULL);
	pfd.fd = (int)acc, pfd.events = POLLIN, pfd.revents = 0;
	check(acc >= 0 && rt_poll(&pfd, 1, 0) == 0, "accept; poll sees nothing yet", "acc %ld", acc);
	rt_write((int)cli, "tcp!", 4);
	check(rt_poll(&pfd, 1, 5000) == 1 && (pfd.revents & POLLIN) && rt_read((int)acc, buf, 4) == 4 &&
		      memcmp(buf, "tcp!", 4) == 0,
	      "poll and read what the peer sent", "failed");
	rt_close((int)cli), rt_close((int)acc), rt_close((int)srv);
}

static void check_system(void)
{
	struct rt_utsname u;
	uint8_t rnd[16] = { 0 }, zero[16] = { 0 }, mask[128] = { 1 };

	check(rt_uname(&u) == 0 && u.sysname[0] == 'L' && u.release[0], "uname", "%s", u.sysname);
	long r = rt_getrandom(rnd, sizeof(rnd), GRND_NONBLOCK);   /* early boot: may be -EAGAIN */

	check(r == -EAGAIN || (r == 16 && memcmp(rnd, zero, 16) != 0), "getrandom", "r %ld", r);
	check(rt_sched_setaffinity(0, sizeof(mask), mask) == 0 && rt_sched_yield() == 0,
	      "sched_setaffinity to CPU 0, sched_yield", "failed");
	check(rt_getpid() > 0 && rt_gettid() == rt_getpid(), "getpid and gettid", "mismatch");
	check(rt_sched_setscheduler(0, SCHED_OTHER, 0) == 0 && rt_sched_setscheduler(0, SCHED_OTHER, 1) == -EINVAL,
	      "sched_setscheduler (SCHED_OTHER; priority 1 refused)", "wrong result");
	int cpus[8], ncpus = rt_online_cpus(cpus, 8);
	check(ncpus >= 1 && cpus[0] >= 0 && (ncpus == 1 || cpus[1] > cpus[0]), "online CPUs from sysfs",
	      "%d: %s", ncpus, ncpus < 0 ? rt_errname(-ncpus) : "");
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc == 3 && rt_strcmp(argv[1], "--exit") == 0)
		return (int)rt_atol_default(argv[2], 1);
	rt_printf("abi %s\n", RT_ABI_NAME);
	check_format();
	check_strings();
	check_files();
	check_processes(argv, !(argc == 2 && rt_strcmp(argv[1], "--no-exec") == 0));
	check_signals();
	check_time_and_memory();
	check_threads();
	check_sockets();
	check_system();
	return selftest_done();
}
