/*
 * lava-log.c: reading a LAVA job's log and its state (lava.h).
 *
 * The dispatcher writes one YAML flow mapping per line (lava_common/log.py:
 * default_style '"', one line each), and the REST API returns them as a
 * YAML list:
 *
 *   - {"dt": "2026-12-03T06:10:01.123456", "lvl": "target", "msg": "Linux version 6.1.0 ..."}
 *   - {"dt": "...", "lvl": "results", "msg": {"case": "job", "result": "fail", "error_msg": "..."}}
 *
 * Only what bootrig needs is read: dt, lvl, a string msg, and a results
 * line's error_msg. No YAML library: the grammar of these lines is small
 * (double-quoted scalars, nested flow mappings and sequences), and a line
 * that does not fit it is refused, never half-read.
 *
 * The dispatcher's ShellLogger changes the console before logging it: it
 * drops "\r" and ESC, turns "\n\n" into "\n", and writes '\"' for every
 * '"' (an escape meant for YAML, which the YAML dump then escapes again).
 * lava_log_parse_line() undoes the last one for target lines; the others
 * cannot be undone (README: "Run on a LAVA lab").
 */
#include "lava.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct cursor {
	const char *p, *end;
};

static void skip_space(struct cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

static bool eat(struct cursor *c, char ch)
{
	skip_space(c);
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return true;
	}
	return false;
}

/* Appends code point cp as UTF-8 (a surrogate or a value past U+10FFFF
 * becomes U+FFFD). */
static void add_utf8(struct strbuf *sb, unsigned long cp)
{
	char b[4];
	if ((cp >= 0xd800 && cp < 0xe000) || cp > 0x10ffff)
		cp = 0xfffd;
	if (cp < 0x80) {
		b[0] = (char)cp;
		strbuf_add(sb, b, 1);
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3f));
		strbuf_add(sb, b, 2);
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		strbuf_add(sb, b, 3);
	} else {
		b[0] = (char)(0xf0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		strbuf_add(sb, b, 4);
	}
}

/* n hex digits at p into *v; false if they are not. */
static bool hex_n(const char *p, const char *end, int n, unsigned long *v)
{
	*v = 0;
	if (end - p < n)
		return false;
	for (int i = 0; i < n; i++) {
		int c = (unsigned char)p[i];
		if (!isxdigit(c))
			return false;
		*v = *v * 16 + (unsigned long)(isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
	}
	return true;
}

/*
 * A YAML double-quoted scalar at c (the opening '"' next) into out
 * (malloc'd when out is not NULL). The escapes of YAML 1.1 / 1.2 that
 * PyYAML writes: \0 \a \b \t \n \v \f \r \e \" \\ \/ \  \N \_ \L \P \xXX
 * \uXXXX \UXXXXXXXX. false on a bad escape or no closing quote.
 */
static bool parse_quoted(struct cursor *c, char **out)
{
	if (!eat(c, '"'))
		return false;
	struct strbuf sb = STRBUF_INIT;
	strbuf_add(&sb, "", 0);
	while (c->p < c->end && *c->p != '"') {
		if (*c->p != '\\') {
			strbuf_add(&sb, c->p++, 1);
			continue;
		}
		if (++c->p >= c->end)
			break;
		char e = *c->p++;
		static const char from[] = "0abtnvfre\"\\/ \t";
		static const char to[] = "\0\a\b\t\n\v\f\r\033\"\\/ \t";
		const char *hit = e ? memchr(from, e, sizeof(from) - 1) : NULL;
		unsigned long cp;
		int n = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
		if (hit) {
			strbuf_add(&sb, &to[hit - from], 1);
		} else if (e == 'N' || e == '_' || e == 'L' || e == 'P') {
			add_utf8(&sb, e == 'N' ? 0x85 : e == '_' ? 0xa0 : e == 'L' ? 0x2028 : 0x2029);
		} else if (n && hex_n(c->p, c->end, n, &cp)) {
			add_utf8(&sb, cp);
			c->p += n;
		} else {
			strbuf_release(&sb);
			return false;
		}
	}
	if (c->p >= c->end) {
		strbuf_release(&sb);
		return false;
	}
	c->p++;    /* the closing quote */
	if (out)
		*out = sb.buf;
	else
		strbuf_release(&sb);
	return true;
}

static bool parse_value(struct cursor *c, char **str, char **error_msg, int depth);

/* A flow mapping {"k": v, ...} at c; its "error_msg" string, if any, into
 * *error_msg (when not NULL). */
static bool parse_mapping(struct cursor *c, char **error_msg, int depth)
{
	if (depth > 16 || !eat(c, '{'))
		return false;
	if (eat(c, '}'))
		return true;
	do {
		char *key = NULL, *val = NULL;
		skip_space(c);
		if (!parse_quoted(c, &key))
			return false;
		bool ok = eat(c, ':') && parse_value(c, &val, NULL, depth + 1);
		if (ok && error_msg && val && !strcmp(key, "error_msg") && !*error_msg)
			*error_msg = val, val = NULL;
		free(key), free(val);
		if (!ok)
			return false;
	} while (eat(c, ','));
	return eat(c, '}');
}

/* A flow sequence [v, ...] at c. */
static bool parse_sequence(struct cursor *c, int depth)
{
	if (depth > 16 || !eat(c, '['))
		return false;
	if (eat(c, ']'))
		return true;
	do {
		if (!parse_value(c, NULL, NULL, depth + 1))
			return false;
	} while (eat(c, ','));
	return eat(c, ']');
}

/* Any value: a quoted string (into *str when str is not NULL), a mapping,
 * a sequence, or a plain scalar (a number, true, null: kept as text). */
static bool parse_value(struct cursor *c, char **str, char **error_msg, int depth)
{
	skip_space(c);
	if (c->p < c->end && *c->p == '!') {      /* a tag ("size": ! "30898"): skipped */
		while (c->p < c->end && *c->p != ' ')
			c->p++;
		skip_space(c);
	}
	if (c->p >= c->end)
		return false;
	if (*c->p == '"')
		return parse_quoted(c, str);
	if (*c->p == '{')
		return parse_mapping(c, error_msg, depth);
	if (*c->p == '[')
		return parse_sequence(c, depth);
	const char *start = c->p;
	while (c->p < c->end && !strchr(",}]", *c->p))
		c->p++;
	size_t n = (size_t)(c->p - start);
	while (n && start[n - 1] == ' ')
		n--;
	if (!n)
		return false;
	if (str)
		*str = xasprintf("%.*s", (int)n, start);
	return true;
}

double lava_parse_dt(const char *s)
{
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	int consumed = 0;
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
		   &tm.tm_min, &tm.tm_sec, &consumed) != 6 || consumed != 19)
		return -1;
	if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
	    tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	double t = (double)timegm(&tm);
	const char *f = s + 19;
	if (*f == '.') {
		double scale = 0.1;
		for (f++; isdigit((unsigned char)*f); f++, scale /= 10)
			t += (*f - '0') * scale;
	}
	if (*f == 'Z')
		f++;
	return *f ? -1 : t;
}

/* Undoes the dispatcher's '"' -> '\"' of target lines, in place. */
static void unescape_target(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] == '"')
			r++;
		*w++ = *r;
	}
	*w = '\0';
}

int lava_log_parse_line(const char *line, size_t len, struct lava_log_line *out)
{
	memset(out, 0, sizeof(*out));
	out->dt = -1;
	struct cursor c = { line, line + len };
	while (c.end > c.p && (c.end[-1] == '\r' || c.end[-1] == ' '))
		c.end--;
	/* The top mapping, by hand: its keys decide where each value goes. */
	if (!eat(&c, '-') || !eat(&c, '{'))
		return -1;
	bool ok = true;
	char *dt = NULL;
	if (!eat(&c, '}')) {
		do {
			char *key = NULL, *val = NULL, *err = NULL;
			skip_space(&c);
			ok = parse_quoted(&c, &key) && eat(&c, ':') && parse_value(&c, &val, &err, 1);
			if (ok && !strcmp(key, "dt") && val && !dt)
				dt = val, val = NULL;
			else if (ok && !strcmp(key, "lvl") && val && !out->lvl)
				out->lvl = val, val = NULL;
			else if (ok && !strcmp(key, "msg") && !out->msg && !out->error_msg)
				out->msg = val, out->error_msg = err, val = err = NULL;
			free(key), free(val), free(err);
		} while (ok && eat(&c, ','));
		ok = ok && eat(&c, '}');
	}
	skip_space(&c);
	if (ok && c.p != c.end)
		ok = false;
	if (ok && dt)
		out->dt = lava_parse_dt(dt);
	free(dt);
	if (!ok || !out->lvl) {
		lava_log_line_release(out);
		return -1;
	}
	if (out->msg && (!strcmp(out->lvl, "target") || !strcmp(out->lvl, "feedback")))
		unescape_target(out->msg);
	return 0;
}

void lava_log_line_release(struct lava_log_line *l)
{
	free(l->lvl), free(l->msg), free(l->error_msg);
	l->lvl = l->msg = l->error_msg = NULL;
}

bool lava_console_line(struct lava_console *c, const struct lava_log_line *l)
{
	if (!strcmp(l->lvl, "info") && l->msg && !strncmp(l->msg, "start: ", 7) &&
	    strstr(l->msg, " finalize "))
		c->finalizing = true;
	if (!strcmp(l->lvl, "input") && c->finalizing)
		c->closed = true;
	return !c->closed && l->msg && (!strcmp(l->lvl, "target") || !strcmp(l->lvl, "feedback"));
}

enum lava_job_phase lava_job_phase(const char *state)
{
	static const struct { const char *name; enum lava_job_phase phase; } map[] = {
		{ "Submitted", LAVA_QUEUED }, { "Scheduling", LAVA_QUEUED },
		{ "Scheduled", LAVA_QUEUED }, { "Running", LAVA_RUNNING },
		{ "Canceling", LAVA_RUNNING }, { "Finished", LAVA_FINISHED },
	};
	for (size_t i = 0; state && i < ARRAY_SIZE(map); i++)
		if (!strcasecmp(state, map[i].name))
			return map[i].phase;
	return LAVA_UNKNOWN;
}

enum lava_job_health lava_job_health(const char *health)
{
	if (health && !strcasecmp(health, "Complete"))
		return LAVA_HEALTH_COMPLETE;
	if (health && !strcasecmp(health, "Incomplete"))
		return LAVA_HEALTH_INCOMPLETE;
	if (health && !strcasecmp(health, "Canceled"))
		return LAVA_HEALTH_CANCELED;
	return LAVA_HEALTH_UNKNOWN;
}

bool lava_job_infra_failure(enum lava_job_health health, bool canceled_by_us)
{
	return health == LAVA_HEALTH_INCOMPLETE || (health == LAVA_HEALTH_CANCELED && !canceled_by_us);
}
