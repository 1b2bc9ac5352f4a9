/*
 * init-plan.c: the plan: /etc/bootrig/plan, then the bootrig.* words of
 * the kernel command line (init.h).
 */
#include "init.h"

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

bool list_has(const struct list *l, const char *s)
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
	} else if (rt_strcmp(k, "profile") == 0) {
		if (n != 1 || (v[0] != '0' && v[0] != '1'))
			plan_error(p, k, "(0 or 1)");
		else
			p->profile = v[0] == '1';
	} else if (rt_strcmp(k, "boot_time") == 0) {
		if (n != 1 || (v[0] != '0' && v[0] != '1'))
			plan_error(p, k, "(0 or 1)");
		else
			p->boot_time = v[0] == '1';
	} else if (rt_strcmp(k, "perf_stat") == 0) {
		if (n != 1 || (v[0] != '0' && v[0] != '1'))
			plan_error(p, k, "(0 or 1)");
		else
			p->no_perf_stat = v[0] == '0';
	} else if (rt_strcmp(k, "idle") == 0) {
		p->idle_ms = plan_number(p, k, v, n, 600000);
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

long long decimal_fixed(const char **s, int places)
{
	const char *p = *s;
	long long whole = 0, frac = 0;
	int digits = 0;

	for (; *p >= '0' && *p <= '9'; p++)
		whole = whole < 1000000000000000LL ? whole * 10 + (*p - '0') : whole;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (digits < places)
				frac = frac * 10 + (*p - '0'), digits++;
	for (; digits < places; digits++)
		frac *= 10;
	for (int i = 0; i < places; i++)
		whole = whole < 1000000000000000LL ? whole * 10 : whole;
	*s = p;
	return whole + frac;
}

void plan_defaults(struct plan *p)
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
void plan_read_file(struct plan *p, const char *path)
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
void plan_read_cmdline(struct plan *p, const char *cmdline)
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
