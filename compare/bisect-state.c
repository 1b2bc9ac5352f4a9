/*
 * bisect-state.c: a bisection's record: bisect.json, the step table and
 * chart.svg (bisect-state.h).
 */
#include "bisect-state.h"
#include "compare.h"
#include "exitcodes.h"
#include "stats.h"
#include "textsafe.h"
#include "util.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A JSON array of strings. */
static struct json_object *json_strings(char *const *v, size_t n)
{
	struct json_object *a = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_cstring_utf8(v[i]));
	return a;
}

static struct json_object *json_num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static struct json_object *step_json(const struct step *s)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "commit", json_object_new_string(s->sha));
	json_object_object_add(o, "subject", json_cstring_utf8(s->subject));
	if (s->role)
		json_object_object_add(o, "role", json_object_new_string(s->role));
	json_object_object_add(o, "decision", json_object_new_string(bisect_mark_name(s->mark)));
	json_object_object_add(o, "why", json_cstring_utf8(s->why));
	json_object_object_add(o, "boots", json_object_new_int64((int64_t)s->nboots));
	json_object_object_add(o, "pass", json_object_new_int64((int64_t)s->npass));
	json_object_object_add(o, "infra_error", json_object_new_int64((int64_t)s->ninfra));
	json_object_object_add(o, "crashed", json_object_new_int64((int64_t)s->ncrash));
	json_object_object_add(o, "showed_title", json_object_new_int64((int64_t)s->ntitle));
	json_object_object_add(o, "verdicts", json_strings(s->verdicts, s->nverdicts));
	struct json_object *obs = json_object_new_array();
	for (size_t i = 0; i < s->nobs; i++)
		json_object_array_add(obs, json_object_new_double(s->obs[i]));
	json_object_object_add(o, "samples", obs);
	json_object_object_add(o, "median", json_num(s->st.median));
	json_object_object_add(o, "spread_pct", json_num(s->st.spread_pct));
	json_object_object_add(o, "p_good", json_num(s->st.p_good));
	json_object_object_add(o, "p_bad", json_num(s->st.p_bad));
	json_object_object_add(o, "p_mwu_good", json_num(s->st.mwu_good));
	json_object_object_add(o, "p_mwu_bad", json_num(s->st.mwu_bad));
	json_object_object_add(o, "change_good_pct", json_num(s->st.change_good));
	json_object_object_add(o, "change_bad_pct", json_num(s->st.change_bad));
	return o;
}

int bisect_state_save(const struct bisection *b)
{
	struct json_object *r = json_object_new_object();
	json_object_object_add(r, "format", json_object_new_string(BISECT_FORMAT));
	json_object_object_add(r, "status", json_object_new_string(b->status));
	json_object_object_add(r, "tree", json_cstring_utf8(b->tree));
	json_object_object_add(r, "good", json_cstring_utf8(b->good_rev));
	json_object_object_add(r, "bad", json_cstring_utf8(b->bad_rev));
	json_object_object_add(r, "mode", json_object_new_string(b->o.crash ? "crash" : "metric"));
	json_object_object_add(r, "metric_glob", json_cstring_utf8(b->glob));
	json_object_object_add(r, "metric", json_cstring_utf8(b->metric));
	json_object_object_add(r, "unit", json_cstring_utf8(b->unit));
	json_object_object_add(r, "higher_better", json_object_new_boolean(b->higher_better));
	json_object_object_add(r, "title", json_cstring_utf8(b->title));
	json_object_object_add(r, "follow_title", json_cstring_utf8(b->follow));
	json_object_object_add(r, "build", json_strings(b->build, b->nbuild));
	json_object_object_add(r, "image", json_cstring_utf8(b->image));
	json_object_object_add(r, "append", json_cstring_utf8(b->append));
	json_object_object_add(r, "append_file", json_cstring_utf8(b->append_file));
	json_object_object_add(r, "run_options", json_strings(b->run_opts, b->nrun_opts));
	json_object_object_add(r, "boots", json_object_new_int64((int64_t)b->o.boots));
	json_object_object_add(r, "max_boots", json_object_new_int64((int64_t)b->o.max_boots));
	json_object_object_add(r, "alpha", json_object_new_double(b->o.alpha));
	json_object_object_add(r, "threshold_pct", json_object_new_double(b->o.threshold_pct));
	json_object_object_add(r, "build_timeout_s", json_object_new_double(b->build_timeout));
	struct json_object *ends = json_object_new_object();
	if (b->ends_done) {
		json_object_object_add(ends, "good", step_json(&b->ends[0]));
		json_object_object_add(ends, "bad", step_json(&b->ends[1]));
		json_object_object_add(ends, "change_pct", json_num(b->ends_st.change_good));
		json_object_object_add(ends, "p_welch", json_num(b->ends_st.p_good));
		json_object_object_add(ends, "p_mwu", json_num(b->ends_st.mwu_good));
		json_object_object_add(ends, "why", json_cstring_utf8(b->ends_why));
	}
	json_object_object_add(r, "ends", ends);
	struct json_object *steps = json_object_new_array();
	for (size_t i = 0; i < b->nsteps; i++)
		json_object_array_add(steps, step_json(&b->steps[i]));
	json_object_object_add(r, "steps", steps);
	struct json_object *fb = NULL;
	if (b->first_bad) {
		fb = json_object_new_object();
		json_object_object_add(fb, "commit", json_object_new_string(b->first_bad));
		json_object_object_add(fb, "subject", json_cstring_utf8(b->first_bad_subject));
	}
	json_object_object_add(r, "first_bad", fb);
	json_object_object_add(r, "candidates", json_cstring_utf8(b->candidates));
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_json(&sb, r, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	strbuf_addstr(&sb, "\n");
	char *path = xasprintf("%s/bisect.json", b->dir);
	int rc = write_file_atomic(path, sb.buf, sb.len);
	free(path);
	strbuf_release(&sb);
	json_object_put(r);
	return rc;
}

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;
	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v) : NULL;
}

static char *jdup(struct json_object *o, const char *key)
{
	const char *s = jstr(o, key);
	return s ? xstrdup(s) : NULL;
}

static double jnum(struct json_object *o, const char *key)
{
	struct json_object *v;
	return json_object_object_get_ex(o, key, &v) && v ? json_object_get_double(v) : NAN;
}

/* A count from bisect.json: 0 when missing, not a number, negative or
 * too large (a cast of NaN to size_t is undefined). */
static size_t jcount(struct json_object *o, const char *key)
{
	double d = jnum(o, key);
	return d >= 0 && d < 1e15 ? (size_t)d : 0;
}

static char **jstrings(struct json_object *o, const char *key, size_t *n)
{
	struct json_object *a;
	*n = 0;
	if (!json_object_object_get_ex(o, key, &a) || !json_object_is_type(a, json_type_array))
		return NULL;
	size_t len = json_object_array_length(a);
	char **v = xcalloc(len + 1, sizeof(*v));
	for (size_t i = 0; i < len; i++)
		v[(*n)++] = xstrdup(json_object_get_string(json_object_array_get_idx(a, i)));
	return v;
}

static enum bisect_mark mark_of(const char *s)
{
	return !s ? MARK_NONE : !strcmp(s, "good") ? MARK_GOOD : !strcmp(s, "bad") ? MARK_BAD
		: !strcmp(s, "skip") ? MARK_SKIP : MARK_NONE;
}

static void step_load(struct json_object *o, struct step *s)
{
	const char *sha = jstr(o, "commit");
	snprintf(s->sha, sizeof(s->sha), "%s", sha ? sha : "");
	s->subject = jdup(o, "subject");
	s->mark = mark_of(jstr(o, "decision"));
	s->why = jdup(o, "why");
	s->nboots = jcount(o, "boots");
	s->npass = jcount(o, "pass");
	s->ninfra = jcount(o, "infra_error");
	s->ncrash = jcount(o, "crashed");
	s->ntitle = jcount(o, "showed_title");
	s->verdicts = jstrings(o, "verdicts", &s->nverdicts);
	struct json_object *a;
	if (json_object_object_get_ex(o, "samples", &a) && json_object_is_type(a, json_type_array)) {
		s->nobs = json_object_array_length(a);
		s->obs = xcalloc(s->nobs + 1, sizeof(*s->obs));
		for (size_t i = 0; i < s->nobs; i++)
			s->obs[i] = json_object_get_double(json_object_array_get_idx(a, i));
	}
	s->st = (struct step_stats){ jnum(o, "median"), jnum(o, "spread_pct"), jnum(o, "p_good"),
				     jnum(o, "p_bad"), jnum(o, "p_mwu_good"), jnum(o, "p_mwu_bad"),
				     jnum(o, "change_good_pct"), jnum(o, "change_bad_pct") };
}

int bisect_state_load(struct bisection *b)
{
	char *path = xasprintf("%s/bisect.json", b->dir), *text = NULL;
	size_t len;
	if (read_file(path, &text, &len) < 0) {
		error("bisect --continue: no bisection to continue in %s (%s)", b->dir, strerror(errno));
		free(path);
		return EXIT_USAGE;
	}
	struct json_object *r = json_tokener_parse(text);
	free(text);
	const char *fmt = r ? jstr(r, "format") : NULL;
	if (!fmt || strcmp(fmt, BISECT_FORMAT)) {
		error("%s: not a bootrig bisection", path);
		free(path);
		json_object_put(r);
		return EXIT_DATAERR;
	}
	free(path);
	const char *status = jstr(r, "status");
	if (status && strcmp(status, "running") && strcmp(status, "interrupted")) {
		error("bisect --continue: the bisection in %s is over (%s)", b->dir, status);
		json_object_put(r);
		return EXIT_USAGE;
	}
	free(b->tree);
	b->tree = jdup(r, "tree");
	b->good_rev = jdup(r, "good");
	b->bad_rev = jdup(r, "bad");
	b->o.crash = status && jstr(r, "mode") && !strcmp(jstr(r, "mode"), "crash");
	b->glob = jdup(r, "metric_glob");
	b->metric = jdup(r, "metric");
	b->unit = jdup(r, "unit");
	struct json_object *v;
	b->higher_better = json_object_object_get_ex(r, "higher_better", &v) && json_object_get_boolean(v);
	b->title = jdup(r, "title");
	b->follow = jdup(r, "follow_title");
	b->o.title = b->title ? b->title : b->follow;
	b->o.exact = !b->title && b->follow;
	b->build = jstrings(r, "build", &b->nbuild);
	b->image = jdup(r, "image");
	b->append = jdup(r, "append");
	b->append_file = jdup(r, "append_file");
	b->run_opts = jstrings(r, "run_options", &b->nrun_opts);
	b->o.boots = jcount(r, "boots");
	b->o.max_boots = jcount(r, "max_boots");
	b->o.alpha = jnum(r, "alpha");
	b->o.threshold_pct = jnum(r, "threshold_pct");
	b->build_timeout = json_object_object_get_ex(r, "build_timeout_s", &v)
				   ? json_object_get_double(v) : BUILD_TIMEOUT_DEFAULT;
	struct json_object *ends, *e;
	if (json_object_object_get_ex(r, "ends", &ends) && json_object_object_get_ex(ends, "good", &e)) {
		step_load(e, &b->ends[0]);
		if (json_object_object_get_ex(ends, "bad", &e))
			step_load(e, &b->ends[1]);
		b->ends_st.change_good = jnum(ends, "change_pct");
		b->ends_st.p_good = jnum(ends, "p_welch");
		b->ends_st.mwu_good = jnum(ends, "p_mwu");
		b->ends_why = jdup(ends, "why");
		b->ends_done = true;
	}
	struct json_object *steps;
	if (json_object_object_get_ex(r, "steps", &steps) && json_object_is_type(steps, json_type_array)) {
		b->nsteps = json_object_array_length(steps);
		b->steps = xcalloc(b->nsteps + 1, sizeof(*b->steps));
		for (size_t i = 0; i < b->nsteps; i++)
			step_load(json_object_array_get_idx(steps, i), &b->steps[i]);
	}
	json_object_put(r);
	if (!b->tree || !b->nbuild || !b->image || !b->o.boots || b->o.max_boots < b->o.boots)
		return error("%s/bisect.json: settings missing", b->dir), EXIT_DATAERR;
	return 0;
}

static void print_row(const struct bisection *b, const char *label, const struct step *s, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	char med[32], sp[32], pg[32], pb[32];
	if (b->o.crash) {
		/* the boots that showed the title followed (or, with none, crashed) */
		strbuf_addf(&sb, "  %-9s %.12s  %5zu  %7zu  %-8s  %s\n", label, s->sha, s->nboots,
			    b->o.title ? s->ntitle : s->ncrash, bisect_mark_name(s->mark),
			    term_str(s->subject));
	} else {
		fmt_value(s->st.median, med, sizeof(med));
		snprintf(sp, sizeof(sp), isnan(s->st.spread_pct) ? "-" : "%.1f%%", s->st.spread_pct);
		strbuf_addf(&sb, "  %-9s %.12s  %5zu  %10s  %7s  %8s  %8s  %-8s  %s\n", label, s->sha,
			    s->nboots, med, sp, bisect_fmt_p(s->st.p_good, pg, sizeof(pg)),
			    bisect_fmt_p(s->st.p_bad, pb, sizeof(pb)), bisect_mark_name(s->mark),
			    term_str(s->subject));
	}
	strbuf_addf(&sb, "  %-9s %s\n", "", term_str(s->why));
	fputs(sb.buf, out);
	strbuf_release(&sb);
}

void bisect_print_table(const struct bisection *b, FILE *out)
{
	if (b->o.crash && b->o.title)
		fprintf(out, "crash: %s'%s'\n", b->o.exact ? "" : "a title matching ", term_str(b->o.title));
	if (b->o.crash)
		fprintf(out, "  %-9s %-12s  %5s  %7s  %-8s  %s\n", "step", "commit", "boots",
			b->o.title ? "showed" : "crashed", "decision", "subject");
	else
		fprintf(out, "  %-9s %-12s  %5s  %10s  %7s  %8s  %8s  %-8s  %s\n", "step", "commit", "boots",
			"median", "±stddev", "p(good)", "p(bad)", "decision", "subject");
	if (b->ends_done) {
		print_row(b, "good", &b->ends[0], out);
		print_row(b, "bad", &b->ends[1], out);
	}
	for (size_t i = 0; i < b->nsteps; i++) {
		char label[24];
		snprintf(label, sizeof(label), "%zu", i + 1);
		print_row(b, label, &b->steps[i], out);
	}
}

int bisect_write_chart(const struct bisection *b)
{
	size_t n = (b->ends_done ? 2 : 0) + b->nsteps;
	struct chart_column *cols = xcalloc(n + 1, sizeof(*cols));
	char (*labels)[16] = xcalloc(n + 1, sizeof(*labels));
	char (*roles)[32] = xcalloc(n + 1, sizeof(*roles));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const struct step *s = b->ends_done && i < 2 ? &b->ends[i] : &b->steps[i - (b->ends_done ? 2 : 0)];
		snprintf(labels[k], sizeof(labels[k]), "%.8s", s->sha);
		if (b->ends_done && i < 2)
			snprintf(roles[k], sizeof(roles[k]), "%s", i ? "bad" : "good");
		else
			snprintf(roles[k], sizeof(roles[k]), "step %zu", i + 1 - (b->ends_done ? 2 : 0));
		cols[k] = (struct chart_column){ labels[k], roles[k], s->mark, s->obs, s->nobs,
						 (const char *const *)s->verdicts, s->nverdicts };
		if (!b->o.crash)
			cols[k].nverdicts = 0;
		k++;
	}
	struct chart c = { b->o.crash ? "crash bisection" : b->metric, b->o.crash ? NULL : b->unit,
			   b->o.crash, cols, k, NAN, NAN, b->o.threshold_pct };
	if (b->ends_done && !b->o.crash) {
		c.good_mean = stats_mean(b->ends[0].obs, b->ends[0].nobs);
		c.bad_mean = stats_mean(b->ends[1].obs, b->ends[1].nobs);
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bisect_chart_svg(&c, f);
	fclose(f);
	char *path = xasprintf("%s/chart.svg", b->dir);
	int rc = write_file_atomic(path, buf, len);
	free(path), free(buf), free(cols), free(labels), free(roles);
	return rc;
}

void bisect_step_free(struct step *s)
{
	free(s->subject), free(s->why), free(s->obs);
	for (size_t k = 0; k < s->nverdicts; k++)
		free(s->verdicts[k]);
	free(s->verdicts);
}

void bisect_release(struct bisection *b)
{
	for (int e = 0; e < 2; e++)
		bisect_step_free(&b->ends[e]);
	for (size_t i = 0; b->steps && i < b->nsteps; i++)
		bisect_step_free(&b->steps[i]);
	free(b->steps);
	for (size_t i = 0; b->build && i < b->nbuild; i++)
		free(b->build[i]);
	for (size_t i = 0; b->run_opts && i < b->nrun_opts; i++)
		free(b->run_opts[i]);
	free(b->build), free(b->run_opts);
	free(b->tree), free(b->dir), free(b->good_rev), free(b->bad_rev), free(b->image);
	free(b->append), free(b->append_file), free(b->glob), free(b->title), free(b->follow);
	free(b->metric), free(b->unit), free(b->ends_why);
	free(b->first_bad), free(b->first_bad_subject), free(b->candidates);
}
