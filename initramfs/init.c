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
 * This file holds the ABI probes, the tests, --provoke and main(); the
 * records, the plan, the machine's set-up and running a child are in
 * init-record.c, init-plan.c, init-system.c and init-child.c (init.h).
 */
#include "init.h"

#define INIT_VERSION "0.1.0"
#define PROBE_TIMEOUT_MS 30000

/* The ABIs init knows, in the order their records are printed. */
static const char *const known_abis[] = {
	"aarch64", "aarch64_ilp32", "arm", "x86_64", "x32", "i386",
};
#define N_ABIS (sizeof(known_abis) / sizeof(known_abis[0]))

bool is_pid1;

/* ------------------------------------------------------------------ */
/* ABI probes.                                                          */

static const char *root;                /* "" on the machine, DIR in test mode */
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
	long long bp = decimal_fixed(&v, 2);

	return bp > 10000 ? 10000 : (long)bp;
}

/* The clock, measured once per boot before the tests (rt_clock_measure). */
static struct rt_clock boot_clock;

/* outcome: a test run's RESULT and its count; in the counting run (c is
 * NULL) only a failure, as a LOG line: the timed run judged the test. */
static void outcome(const char *abi, const char *test, const char *status, const char *reason,
		    long ms, struct counts *c)
{
	char line[96];

	if (!c) {
		if (reason) {
			rt_snprintf(line, sizeof(line), "counting run: %s %s", status, reason);
			log_line(abi, test, line, rt_strlen(line));
		}
		return;
	}
	if (!reason)
		c->passed++;
	else if (status[0] == 'T')
		c->timeout++;
	else
		c->failed++;
	print_result(abi, test, status, reason, ms);
}

/* run_test: TEST, the child's records, RESULT; c NULL: the counting run
 * (knob count_only=1: PERFSTAT records, initramfs/bench/bench.h), which
 * prints no TEST or RESULT. */
static void run_test(const struct plan *p, const char *abi, const char *test, struct counts *c)
{
	char path[512], samples[32], min_samples[32], ci[32], res[40], noise[40], abiarg[80];
	char *argv[LIST_MAX + 12];
	static struct line_buf lb;
	const char *reason;
	struct rt_stat st;
	struct record r;
	struct run run;
	int argc = 0, out, ex;
	long pid;

	if (c) {
		c->tests++;
		rec_begin(&r, "TEST");
		rec_field(&r, "abi", abi);
		rec_field(&r, "test", test);
		rec_field(&r, "status", "start");
		rec_end(&r);
	}

	bench_path(path, sizeof(path), abi, test);
	if (rt_stat(path, &st) < 0 || !S_ISREG(st.mode))
		return outcome(abi, test, "FAIL", "missing", 0, c);
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
	if (!c)                                    /* first: no knob undoes it */
		argv[argc++] = "count_only=1";
	for (int k = 0; k < p->knobs.n; k++)      /* before the clock: a knob overrides it */
		argv[argc++] = (char *)p->knobs.item[k];
	if (p->profile && c) {                     /* after the knobs: profile=0 there wins */
		argv[argc++] = "profile=1";
		argv[argc++] = "profile_ksyms=" KSYMS_PATH;
	}
	argv[argc++] = res;
	argv[argc++] = noise;
	argv[argc] = NULL;

	pid = spawn(argv, &out, &ex);
	if (pid < 0) {
		char why[48];
		rt_snprintf(why, sizeof(why), "fork %s", rt_errname((int)-pid));
		return outcome(abi, test, "FAIL", why, 0, c);
	}
	lb.len = 0, lb.abi = abi, lb.test = test, lb.counting = !c;
	supervise(pid, out, ex, p->test_timeout * 1000, &lb, &run);
	if (run.exec_errno) {
		char why[48];
		rt_snprintf(why, sizeof(why), "exec %s", rt_errname((int)run.exec_errno));
		outcome(abi, test, "FAIL", why, run.ms, c);
	} else if (run.timed_out) {
		outcome(abi, test, "TIMEOUT", "watchdog", run.ms, c);
	} else {
		reason = describe_exit(run.status);
		outcome(abi, test, reason ? "FAIL" : "PASS", reason, run.ms, c);
	}
}

/* start_tests: idle=MS before the first test (a boot made longer on
 * purpose: figures must not move with it, bench.h); init's log says when
 * the tests began (ms since boot). */
static void start_tests(const struct plan *p)
{
	char line[64];

	if (p->idle_ms > 0)
		rt_sleep_ms((unsigned)p->idle_ms);
	rt_snprintf(line, sizeof(line), "tests start at %lu ms", (unsigned long)(rt_now_ns() / 1000000));
	log_line(RT_ABI_NAME, "init", line, rt_strlen(line));
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

	unsigned long long init_ns = rt_now_ns();

	/* set here, not initialised: with no initialised datum the binary has no
	 * data page in its file (t-guest-size: init within 32 KiB) */
	out_fd = 1;
	root = "";
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
	if (plan.boot_time)
		boot_time_report(init_ns, root);

	if (plan.profile && plan.tests.n > 0 && (problem = ksyms_build(root, KSYMS_PATH)) != NULL)
		log_line(RT_ABI_NAME, "init", problem, rt_strlen(problem));
	if (is_pid1)
		quiet_console();
	if (plan.tests.n > 0)
		start_tests(&plan);
	for (long rep = 0; rep < plan.repeat; rep++)
		for (int a = 0; a < run_abis.n; a++)
			for (int t = 0; t < plan.tests.n; t++)
				run_test(&plan, run_abis.item[a], plan.tests.item[t], &c);
	/* perf stat's counters, once every figure is timed (bench.h) */
	for (int a = 0; a < run_abis.n && !plan.no_perf_stat; a++)
		for (int t = 0; t < plan.tests.n; t++)
			run_test(&plan, run_abis.item[a], plan.tests.item[t], NULL);
	if (is_pid1)
		restore_console();
	return finish(&c);
}
