/*
 * history.c: one metric over the kernels of a history database (see
 * history.h): the points and their change points, and the three reports
 * (text, JSON, the SVG trend through chart.c).
 */
#include "history.h"
#include "chart.h"
#include "exitcodes.h"
#include "stats.h"
#include "textsafe.h"
#include "util.h"

#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Splits a function share's suffix (":self.FUNC", ":children.FUNC") off
 * metric into h->share: the metric without it (malloc'd), or NULL after a
 * message (no FUNC). */
static char *split_share(struct history *h, const char *metric)
{
	const char *self = strstr(metric, ":self."), *children = strstr(metric, ":children.");
	const char *at = self && (!children || self < children) ? self : children;
	if (!at)
		return xstrdup(metric);
	h->share.children = at == children;
	const char *fn = at + (at == children ? strlen(":children.") : strlen(":self."));
	if (!*fn)
		return error("history: METRIC '%s': no function after '%.*s'", term_str(metric),
			     (int)(fn - at), at), NULL;
	h->share.fn = xstrdup(fn);
	return xasprintf("%.*s", (int)(at - metric), metric);
}

int history_parse_metric(struct history *h, const char *metric, const char *abi)
{
	/* a counter's id is its metric's and ":perf-stat.EVENT", whose event
	 * may hold the separator ("perf-stat.instructions") */
	const char *mark = strstr(metric, PERF_STAT_MARK);
	if (mark && !mark[strlen(PERF_STAT_MARK)])
		return error("history: METRIC '%s': no event after '%s'", term_str(metric),
			     PERF_STAT_MARK);
	char *copy = mark ? xasprintf("%.*s", (int)(mark - metric), metric) : split_share(h, metric);
	if (!copy)
		return -1;
	const char *sep = strchr(copy, '/') ? "/" : ".";
	char *part[4] = { 0 }, *save = NULL;
	size_t n = 0;
	for (char *p = strtok_r(copy, sep, &save); p; p = strtok_r(NULL, sep, &save))
		if (n < ARRAY_SIZE(part))
			part[n++] = p;
		else
			n++;
	int ret = 0;
	if (n == 3 && !(abi && strcmp(abi, part[0]))) {
		h->abi = xstrdup(part[0]), h->test = xstrdup(part[1]), h->name = xstrdup(part[2]);
	} else if (n == 2 && abi) {
		h->abi = xstrdup(abi), h->test = xstrdup(part[0]), h->name = xstrdup(part[1]);
	} else if (n == 3) {
		ret = error("history: METRIC '%s' is of ABI %s, not --abi %s", term_str(metric),
			    term_str(part[0]), term_str(abi));
	} else {
		ret = error("history: METRIC is abi.test.name as compare prints it "
			    "(aarch64.lat_syscall.null), or test.name with --abi: not '%s'",
			    term_str(metric));
	}
	free(copy);
	if (ret == 0 && mark) {
		char *name = xasprintf("%s%s", h->name, mark);
		free(h->name);
		h->name = name;
	}
	if (ret == 0 && h->share.fn) {  /* the share is the metric history follows */
		h->share.abi = h->abi, h->share.test = h->test, h->share.name = h->name;
		h->name = xasprintf("%s:%s.%s", h->share.name, h->share.children ? "children" : "self",
				    h->share.fn);
		h->share.metric = h->name;
		h->filter.share = &h->share;
	}
	return ret;
}

/* Is the kernel's series the metric of h? */
static const struct metric_series *find_metric(const struct history *h, const struct side *s)
{
	return side_metric(s, h->abi, h->test, h->name);
}

/*
 * Compares point b (CAND) with point a (BASE) by compare's rule, for h's
 * metric only: the result, and compare's warnings into b unless keep_warnings
 * is false.
 */
static struct cand_cmp compare_pair(struct history *h, struct history_point *a,
				    struct history_point *b, bool keep_warnings)
{
	struct compare_opts o = h->opts;
	o.metric_globs = NULL;
	o.only_abi = h->abi, o.only_test = h->test, o.only_name = h->name;
	o.logs = false;
	o.perf_stat_all = true;         /* a counter's row, changed or not */
	struct side pair[2] = { a->side, b->side };      /* borrowed, as compare does */
	struct comparison c;
	compare_sides(&c, pair, 2, &o);
	struct cand_cmp out = { NAN, NAN, NAN, CHANGE_ABSENT, 0, NAN };
	for (size_t i = 0; i < c.nrows; i++) {
		const struct metric_row *r = &c.rows[i];
		if (!strcmp(r->abi, h->abi) && !strcmp(r->test, h->test) && !strcmp(r->name, h->name))
			out = r->cmp[1];
	}
	if (keep_warnings) {
		b->warnings = c.warnings;
		b->nwarnings = c.nwarnings;
		c.warnings = NULL;
		c.nwarnings = 0;
	}
	comparison_free(&c);
	return out;
}

int history_build(struct history *h, struct history_db *db)
{
	if (db_kernels(db, &h->filter, &h->kernels, &h->nkernels))
		return EXIT_DATAERR;
	if (h->by_version)
		db_kernels_sort_version(h->kernels, h->nkernels);
	size_t nk = h->nkernels;
	h->points = xcalloc(nk ? nk : 1, sizeof(*h->points));
	h->unit = "";
	size_t last = SIZE_MAX, first = SIZE_MAX, with = 0;
	for (size_t i = 0; i < nk; i++, h->n++) {
		struct history_point *p = &h->points[i];
		*p = (struct history_point){ .kernel = &h->kernels[i], .prev = SIZE_MAX,
					     .median = NAN, .lo = NAN, .hi = NAN,
					     .cmp = { NAN, NAN, NAN, CHANGE_ABSENT, 0, NAN } };
		p->total = p->cmp;
		char *label = xasprintf("%s:kernel=%s", db->path, h->kernels[i].kernel_id);
		int rc = db_load_side(db, h->kernels[i].id, &h->filter, &p->side, label);
		free(label);
		if (rc || (!h->mixed && side_check_alike(&p->side))) {
			h->n++;
			return EXIT_DATAERR;
		}
		p->series = find_metric(h, &p->side);
		if (!p->series)
			continue;
		if (!with++) {
			first = i;
			h->unit = p->series->unit;
			h->higher_better = p->series->higher_better;
		}
		p->median = stats_median(p->series->obs, p->series->n);
		stats_interval(p->series->obs, p->series->n, &p->lo, &p->hi);
		if (last != SIZE_MAX) {
			p->prev = last;
			p->cmp = compare_pair(h, &h->points[last], p, true);
			p->change = p->cmp.change == CHANGE_IMPROVED || p->cmp.change == CHANGE_REGRESSED;
			h->nchanges += p->change;
			p->total = last == first ? p->cmp : compare_pair(h, &h->points[first], p, false);
		}
		last = i;
	}
	if (!with)
		return error("%s: no kernel has a PASS boot with metric %s.%s.%s%s", db->path,
			     term_str(h->abi), term_str(h->test), term_str(h->name),
			     h->filter.target || h->filter.clock || h->filter.variant ?
			     " among the boots the filter takes" : ""), EXIT_DATAERR;
	return EXIT_PASS;
}

void history_free(struct history *h)
{
	for (size_t i = 0; i < h->n; i++) {
		struct history_point *p = &h->points[i];
		side_free(&p->side);
		for (size_t k = 0; k < p->nwarnings; k++)
			free(p->warnings[k]);
		free(p->warnings);
	}
	db_kernels_free(h->kernels, h->nkernels);
	free(h->points), free(h->abi), free(h->test), free(h->name);
	if (h->share.fn)
		free((char *)h->share.name);
	free((char *)h->share.fn);
	*h = (struct history){ 0 };
}

/* The kernel's name in reports: its version, else its kernel id. */
static const char *kernel_name(const struct db_kernel *k)
{
	return *k->version ? k->version : k->kernel_id;
}

void history_text(const struct history *h, FILE *out)
{
	char v[32], lo[32], hi[32], pbuf[16];
	fprintf(out, "metric: %s.%s.%s (%s, %s is better)\n", term_str(h->abi), term_str(h->test),
		term_str(h->name), term_str(h->unit), h->higher_better ? "higher" : "lower");
	fprintf(out, "boots: target %s, clock %s, variant %s; kernels in order of their %s\n",
		h->filter.target ? term_str(h->filter.target) : "any",
		h->filter.clock ? term_str(h->filter.clock) : "any",
		h->filter.variant ? term_str(h->filter.variant) : "any",
		h->by_version ? "version" : "first boot");
	fprintf(out, "change point: Welch p < %g and |change| >= %g %% against the kernel before "
		"(compare's rule)\n\n", h->opts.alpha, h->opts.threshold_pct);
	fprintf(out, "  %-3s %-28s %-12s %-20s %5s %10s  %-21s %8s %8s  %s\n", "#", "kernel", "sha256",
		"first boot", "n", "median", "interval (mean ± sd)", "change", "p", "verdict");
	for (size_t i = 0; i < h->n; i++) {
		const struct history_point *p = &h->points[i];
		fprintf(out, "  %-3zu %-28s %-12.12s %-20s ", i + 1, term_str(kernel_name(p->kernel)),
			*p->kernel->sha256 ? p->kernel->sha256 : "-", term_str(p->kernel->first));
		if (!p->series) {
			fprintf(out, "%5d %10s  %-21s %8s %8s  %s\n", 0, "-", "-", "-", "-",
				"no PASS boot with the metric");
			continue;
		}
		char interval[80];
		snprintf(interval, sizeof(interval), "%s .. %s", fmt_value(p->lo, lo, sizeof(lo)),
			 fmt_value(p->hi, hi, sizeof(hi)));
		fprintf(out, "%5zu %10s  %-21s ", p->series->n, fmt_value(p->median, v, sizeof(v)),
			interval);
		if (p->prev == SIZE_MAX) {
			fprintf(out, "%8s %8s  %s\n", "-", "-", "first");
			continue;
		}
		char pct[32];
		snprintf(pct, sizeof(pct), "%+.2f%%", p->cmp.pct_change);
		fprintf(out, "%8s %8s  %s%s\n", pct, stats_fmt_p(p->cmp.p_welch, pbuf, sizeof(pbuf)),
			change_name(p->cmp.change), p->change ? "  <- change point" : "");
	}
	fprintf(out, "\n%zu change point%s", h->nchanges, h->nchanges == 1 ? "" : "s");
	for (size_t i = 0, k = 0; i < h->n; i++) {
		const struct history_point *p = &h->points[i];
		if (!p->change)
			continue;
		fprintf(out, "%s%s -> %s %+.2f%% (p %s, %s)", k++ ? "; " : ": ",
			term_str(kernel_name(h->points[p->prev].kernel)), term_str(kernel_name(p->kernel)),
			p->cmp.pct_change, stats_fmt_p(p->cmp.p_welch, pbuf, sizeof(pbuf)),
			change_name(p->cmp.change));
	}
	fputc('\n', out);
	for (size_t i = h->n; i-- > 0;) {   /* the last kernel with the metric against the first */
		const struct history_point *p = &h->points[i];
		if (!p->series || p->prev == SIZE_MAX)
			continue;
		size_t f = 0;
		while (!h->points[f].series)
			f++;
		fprintf(out, "since the first: %s -> %s %+.2f%% (p %s, %s)\n",
			term_str(kernel_name(h->points[f].kernel)), term_str(kernel_name(p->kernel)),
			p->total.pct_change, stats_fmt_p(p->total.p_welch, pbuf, sizeof(pbuf)),
			change_name(p->total.change));
		break;
	}
}

/* A double, or null when it is not finite. */
static struct json_object *num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

/* A string, or null. */
static struct json_object *str_or_null(const char *s)
{
	return s ? json_cstring_utf8(s) : NULL;
}

/* kernels[i] of the JSON report. */
static struct json_object *point_json(const struct history_point *p)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "kernel_id", json_cstring_utf8(p->kernel->kernel_id));
	json_object_object_add(o, "version", json_cstring_utf8(p->kernel->version));
	json_object_object_add(o, "sha256", str_or_null(*p->kernel->sha256 ? p->kernel->sha256 : NULL));
	json_object_object_add(o, "first_boot", json_cstring_utf8(p->kernel->first));
	json_object_object_add(o, "boots", json_object_new_int((int)p->side.nboots));
	json_object_object_add(o, "passed", json_object_new_int((int)p->side.npass));
	json_object_object_add(o, "n", json_object_new_int(p->series ? (int)p->series->n : 0));
	struct json_object *obs = json_object_new_array();
	for (size_t k = 0; p->series && k < p->series->n; k++)
		json_object_array_add(obs, num(p->series->obs[k]));
	json_object_object_add(o, "observations", obs);
	json_object_object_add(o, "median", num(p->median));
	json_object_object_add(o, "mean", num(p->series ? stats_mean(p->series->obs, p->series->n) : NAN));
	json_object_object_add(o, "interval", p->series ? json_object_new_array() : NULL);
	if (p->series) {
		struct json_object *iv;
		json_object_object_get_ex(o, "interval", &iv);
		json_object_array_add(iv, num(p->lo));
		json_object_array_add(iv, num(p->hi));
	}
	if (p->prev == SIZE_MAX) {
		json_object_object_add(o, "against", NULL);
		json_object_object_add(o, "against_first", NULL);
	} else {
		struct json_object *c = json_object_new_object();
		json_object_object_add(c, "index", json_object_new_int((int)p->prev));
		json_object_object_add(c, "pct_change", num(p->cmp.pct_change));
		json_object_object_add(c, "p_welch", num(p->cmp.p_welch));
		json_object_object_add(c, "p_mann_whitney", num(p->cmp.p_mwu));
		json_object_object_add(c, "verdict", json_object_new_string(change_name(p->cmp.change)));
		json_object_object_add(o, "against", c);
		struct json_object *t = json_object_new_object();
		json_object_object_add(t, "pct_change", num(p->total.pct_change));
		json_object_object_add(t, "p_welch", num(p->total.p_welch));
		json_object_object_add(t, "p_mann_whitney", num(p->total.p_mwu));
		json_object_object_add(t, "verdict", json_object_new_string(change_name(p->total.change)));
		json_object_object_add(o, "against_first", t);
	}
	json_object_object_add(o, "change_point", json_object_new_boolean(p->change));
	return o;
}

struct json_object *history_json(const struct history *h)
{
	struct json_object *root = json_object_new_object();
	json_object_object_add(root, "format", json_object_new_string("bootrig-history-1"));
	json_object_object_add(root, "bootrig_version", json_object_new_string(BOOTRIG_VERSION));
	char *id = xasprintf("%s.%s.%s", h->abi, h->test, h->name);
	struct json_object *m = json_object_new_object();
	json_object_object_add(m, "id", json_cstring_utf8(id));
	json_object_object_add(m, "abi", json_cstring_utf8(h->abi));
	json_object_object_add(m, "test", json_cstring_utf8(h->test));
	json_object_object_add(m, "name", json_cstring_utf8(h->name));
	json_object_object_add(m, "unit", json_cstring_utf8(h->unit));
	json_object_object_add(m, "better", json_object_new_string(h->higher_better ? "higher" : "lower"));
	json_object_object_add(root, "metric", m);
	free(id);
	struct json_object *f = json_object_new_object();
	json_object_object_add(f, "target", str_or_null(h->filter.target));
	json_object_object_add(f, "clock", str_or_null(h->filter.clock));
	json_object_object_add(f, "variant", str_or_null(h->filter.variant));
	json_object_object_add(root, "filter", f);
	json_object_object_add(root, "order", json_object_new_string(h->by_version ? "version" : "first_boot"));
	json_object_object_add(root, "alpha", json_object_new_double(h->opts.alpha));
	json_object_object_add(root, "threshold_pct", json_object_new_double(h->opts.threshold_pct));
	json_object_object_add(root, "test", json_object_new_string("welch"));
	struct json_object *ks = json_object_new_array(), *cps = json_object_new_array();
	for (size_t i = 0; i < h->n; i++) {
		json_object_array_add(ks, point_json(&h->points[i]));
		if (h->points[i].change)
			json_object_array_add(cps, json_object_new_int((int)i));
	}
	json_object_object_add(root, "kernels", ks);
	json_object_object_add(root, "change_points", cps);
	return root;
}

/*
 * The length of the suffix every kernel name shares, from a '-' on
 * ("-cloud-arm64"), that leaves each of them something; 0 if none.
 */
static size_t common_suffix(const struct history *h)
{
	if (h->n < 2)
		return 0;
	const char *first = kernel_name(h->points[0].kernel);
	size_t len = strlen(first), best = 0;
	for (size_t k = 1; k < len; k++) {          /* candidate: first + k */
		if (first[k] != '-')
			continue;
		size_t sl = len - k;
		bool all = true;
		for (size_t i = 1; i < h->n && all; i++) {
			const char *name = kernel_name(h->points[i].kernel);
			size_t nl = strlen(name);
			all = nl > sl && !strcmp(name + nl - sl, first + k);
		}
		if (all) {
			best = sl;
			break;
		}
	}
	return best;
}

void history_svg(const struct history *h, FILE *out)
{
	struct chart_group *g = xcalloc(h->n ? h->n : 1, sizeof(*g));
	char **sub = xcalloc(h->n ? h->n : 1, sizeof(*sub)), **label = xcalloc(h->n ? h->n : 1, sizeof(*label));
	size_t suffix = common_suffix(h);
	for (size_t i = 0; i < h->n; i++) {
		const struct history_point *p = &h->points[i];
		const char *name = kernel_name(p->kernel);
		label[i] = xasprintf("%.*s", (int)(strlen(name) - suffix), name);
		if (p->prev == SIZE_MAX || !p->series)
			sub[i] = xasprintf("n=%zu", p->series ? p->series->n : 0);
		else
			sub[i] = xasprintf("n=%zu %+.1f%%", p->series->n, p->cmp.pct_change);
		g[i] = (struct chart_group){
			.label = label[i], .sublabel = sub[i],
			.values = p->series ? p->series->obs : NULL, .n = p->series ? p->series->n : 0,
			.colour = p->change ? "#c2185b" : "#1565c0",
			.flag = p->change ? "change point" : NULL,
			.class = p->change ? "change-point" : "kernel",
		};
	}
	const char *name0 = h->n ? kernel_name(h->points[0].kernel) : "";
	/* Short enough for three groups' width: the kernels' shared suffix,
	 * else which way is better. */
	char *title = suffix ? xasprintf("%s.%s.%s, kernels *%s", h->abi, h->test, h->name,
					 name0 + strlen(name0) - suffix)
			     : xasprintf("%s.%s.%s (%s is better)", h->abi, h->test, h->name,
					 h->higher_better ? "higher" : "lower");
	struct chart_spec spec = { .title = title, .unit = h->unit, .groups = g, .ngroups = h->n,
				   .threshold_pct = h->opts.threshold_pct };
	chart_svg(&spec, out);
	free(title);
	for (size_t i = 0; i < h->n; i++)
		free(sub[i]), free(label[i]);
	free(sub), free(label);
	free(g);
}
