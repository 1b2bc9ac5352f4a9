/*
 * report-text.c: the comparison as text for a terminal or a mail, in the
 * kernel test robot's form (one block per candidate:
 *     base ±%stddev   %change   cand ±%stddev   p-values   metric),
 * each changed metric followed by its profile's functions that changed
 * most (perf-profile.self.FUNC  base %  +change  cand %  p), and after
 * the rows the boot's initcalls that moved, the largest change in us first
 * (boot.initcall.FUNC  base us  %change  cand us  p),
 * then the lmbench-style table with BASE and every candidate side by side
 * (each as % of BASE), the ABI table, stage times, new failures, console
 * differences (--logs), the FAIL boots counted (--include-fail), boots
 * left out, warnings and the summary. A value FAIL boots' observations
 * are part of is marked "*", with a legend line under its block.
 * Colour (red regressed, green improved) only when asked (a terminal
 * without NO_COLOR). Every string from the results (paths, names, units,
 * titles, reasons, console lines) is printed through term_str (textsafe.h).
 */
#include "compare.h"
#include "stats.h"
#include "textsafe.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct painter {
	FILE *out;
	bool colour;
};

/* The colour that marks a change, or "". */
static const char *paint(const struct painter *pt, enum change ch)
{
	if (!pt->colour)
		return "";
	return ch == CHANGE_REGRESSED ? "\033[31m" : ch == CHANGE_IMPROVED ? "\033[32m" : "";
}

static const char *unpaint(const struct painter *pt, enum change ch)
{
	return pt->colour && (ch == CHANGE_REGRESSED || ch == CHANGE_IMPROVED) ? "\033[0m" : "";
}

/* "14.10 ±  0.6%" right-aligned in 16 columns, or "-" when absent; a
 * value that FAIL boots' observations are part of (--include-fail) is
 * marked "14.10* ±  0.6%" (fail_mark()), in the same columns. */
static void print_value(FILE *out, const struct side_stat *st)
{
	char v[32];
	if (!st->series) {
		fprintf(out, "%16s", "-");
		return;
	}
	fmt_value(st->mean, v, sizeof(v));
	int w = st->series->nfail ? 8 : 9;
	const char *mark = st->series->nfail ? "*" : "";
	if (isnan(st->stddev_pct) || st->series->n < 2)
		fprintf(out, "%*s%s        ", w, v, mark);
	else
		fprintf(out, "%*s%s ±%5.1f%%", w, v, mark, st->stddev_pct);
}

/* "*" after a value that FAIL boots' observations are part of, else "". */
static const char *fail_mark(const struct side_stat *st)
{
	return st->series && st->series->nfail ? "*" : "";
}

/* The legend of fail_mark() for BASE and candidate s (s 0: every side). */
static void print_fail_legend(const struct comparison *c, size_t s, FILE *out)
{
	char *legend = fail_legend(c, s);
	if (legend)
		fprintf(out, "* %s\n", term_str(legend));
	free(legend);
}

/* A p-value in 10 columns: "-" untested, "<0.0001" below the printable. */
static void print_p(FILE *out, double p)
{
	char v[16];
	fprintf(out, "  %8s", stats_fmt_p(p, v, sizeof(v)));
}

/* Row r's perf-profile lines for candidate s (compare.h, struct
 * profile_cmp): self, then children, the largest |change| first. */
static void print_profile(const struct metric_row *r, size_t s, FILE *out)
{
	for (int k = PROFILE_SELF; k <= PROFILE_CHILDREN; k++)
		for (int rank = 0; rank < (int)r->nprofile; rank++)
			for (size_t i = 0; i < r->nprofile; i++) {
				const struct profile_cmp *pc = &r->profile[i];
				char label[512], p[16];
				if (pc->kind != (enum profile_kind)k || pc->rank[s] != rank)
					continue;
				snprintf(label, sizeof(label), "perf-profile.%s.%s", profile_kind_name(pc->kind),
					 pc->function);
				stats_fmt_p(pc->p[s], p, sizeof(p));
				fprintf(out, "      %-40s %7.2f %%  %+7.2f  %7.2f %%   p%s%s",
					term_str(label), pc->mean[0], pc->change[s], pc->mean[s],
					*p == '<' ? "" : "=", p);
				if (pc->below[0] + pc->below[s])
					fprintf(out, "   (below the cut in %zu+%zu boots)", pc->below[0],
						pc->below[s]);
				fputc('\n', out);
			}
}

/* ", 5 seeds", ", 1 seed", ", 3 seeds + 2 unknown", ", seeds unknown"
 * (side_seeds()): the seeds a side's PASS boots ran, for its header. */
static const char *seeds_note(const struct side *side, char *buf, size_t size)
{
	size_t unknown, seeds = side_seeds(side, &unknown);
	if (!side_counted(side))
		snprintf(buf, size, "%s", "");
	else if (!seeds)
		snprintf(buf, size, ", seeds unknown");
	else if (unknown)
		snprintf(buf, size, ", %zu seed%s + %zu unknown", seeds, seeds == 1 ? "" : "s", unknown);
	else
		snprintf(buf, size, ", %zu seed%s", seeds, seeds == 1 ? "" : "s");
	return buf;
}

/*
 * A boot's initcalls are hundreds of metrics (run --boot-time): the text
 * shows those that changed on some candidate, and counts the rest (the
 * JSON, JUnit and HTML reports keep every one; --metric shows any).
 */
static bool row_hidden(const struct comparison *c, const struct metric_row *r)
{
	if (!row_is_initcall(r) || c->opts.only_name ||
	    (c->opts.metric_globs && c->opts.metric_globs[0]))  /* asked for: shown */
		return false;
	for (size_t s = 1; s < c->nsides; s++)
		if (r->cmp[s].change == CHANGE_IMPROVED || r->cmp[s].change == CHANGE_REGRESSED)
			return false;
	return true;
}

static size_t rows_hidden(const struct comparison *c)
{
	size_t n = 0;
	for (size_t i = 0; i < c->nrows; i++)
		n += row_hidden(c, &c->rows[i]);
	return n;
}

/* v with its sign, as fmt_value writes it ("+1550.0", "-500.0"; "0"; "-"
 * when it is not a finite number). */
static const char *fmt_signed(double v, char *buf, size_t size)
{
	char num[32];
	if (v == 0)
		snprintf(buf, size, "0");
	else
		snprintf(buf, size, "%s%s", isfinite(v) && v > 0 ? "+" : "",
			 fmt_value(v, num, sizeof(num)));
	return buf;
}

enum { MOVED_SHOWN = 10 };

/*
 * Candidate s's initcalls that moved (initcalls_moved()): the MOVED_SHOWN
 * largest changes in the form of the profile lines (metric, BASE, %change,
 * CAND, p), how many more moved, and what they add up to beside the change
 * of boot.phase.initcalls (first call to last return) when both sides
 * have it. Nothing when none moved.
 */
static void print_initcalls_moved(const struct comparison *c, size_t s, const struct painter *pt)
{
	FILE *out = pt->out;
	size_t n;
	struct initcall_move *m = initcalls_moved(c, s, &n);
	double sum = 0;
	if (n)
		fprintf(out, "\ninitcalls that moved (p < %g, past the threshold; the largest change "
			"first):\n", c->opts.alpha);
	for (size_t i = 0; i < n; i++) {
		const struct metric_row *r = m[i].row;
		char *label = xasprintf("boot.initcall.%s", r->name);
		char b[32], a[32], pct[32], p[16];
		sum += m[i].change;
		if (i < MOVED_SHOWN) {
			stats_fmt_p(r->cmp[s].p_welch, p, sizeof(p));
			fprintf(out, "%s      %-40s %10s %s  %8s  %10s %s   p%s%s  %s%s\n",
				paint(pt, r->cmp[s].change), term_str(label),
				fmt_value(r->stat[0].mean, b, sizeof(b)), term_str(r->unit),
				fmt_pct(r->cmp[s].pct_change, pct, sizeof(pct)),
				fmt_value(r->stat[s].mean, a, sizeof(a)), term_str(r->unit),
				*p == '<' ? "" : "=", p, change_name(r->cmp[s].change),
				unpaint(pt, r->cmp[s].change));
		}
		free(label);
	}
	if (n > MOVED_SHOWN)
		fprintf(out, "      (%zu more moved; --format json lists every one)\n", n - MOVED_SHOWN);
	const struct metric_row *phase = NULL;
	for (size_t i = 0; i < c->nrows && n && !phase; i++)
		if (!strcmp(c->rows[i].abi, "boot") && !strcmp(c->rows[i].test, "phase") &&
		    !strcmp(c->rows[i].name, "initcalls") && c->rows[i].stat[0].series &&
		    c->rows[i].stat[s].series)
			phase = &c->rows[i];
	char v[48], pv[48], these[48];
	if (n == 1)
		snprintf(these, sizeof(these), "this initcall");
	else
		snprintf(these, sizeof(these), "these %zu initcalls", n);
	if (phase)
		fprintf(out, "      %s: %s us of boot.phase.initcalls' %s us\n", these,
			fmt_signed(sum, v, sizeof(v)),
			fmt_signed(phase->stat[s].mean - phase->stat[0].mean, pv, sizeof(pv)));
	else if (n)
		fprintf(out, "      %s: %s us\n", these, fmt_signed(sum, v, sizeof(v)));
	free(m);
}

/* One candidate's block, in the kernel test robot's form. */
static void print_candidate(const struct comparison *c, size_t s, const struct painter *pt)
{
	FILE *out = pt->out;
	char tag[16], id[512];
	char cs[64], bs[64];
	fprintf(out, "\n%s %s (n=%zu%s) vs BASE %s (n=%zu%s)\n\n", side_tag(c, s, tag, sizeof(tag)),
		term_str(c->sides[s].label), side_counted(&c->sides[s]),
		seeds_note(&c->sides[s], cs, sizeof(cs)), term_str(c->sides[0].label),
		side_counted(&c->sides[0]), seeds_note(&c->sides[0], bs, sizeof(bs)));
	fprintf(out, "%16s %10s %16s  %8s  %8s  %s\n", "base ±%stddev", "%change",
		"cand ±%stddev", "p(Welch)", "p(MWU)", "metric");
	for (size_t i = 0; i < c->nrows; i++) {
		const struct metric_row *r = &c->rows[i];
		const struct cand_cmp *cmp = &r->cmp[s];
		if ((!r->stat[0].series && !r->stat[s].series) || row_hidden(c, r))
			continue;
		fputs(paint(pt, cmp->change), out);
		print_value(out, &r->stat[0]);
		if (!isfinite(cmp->pct_change))
			fprintf(out, " %10s ", "");
		else
			fprintf(out, " %+9.1f%% ", cmp->pct_change);
		print_value(out, &r->stat[s]);
		print_p(out, cmp->p_welch);
		print_p(out, cmp->p_mwu);
		fprintf(out, "  %s (%s)", term_str(row_id(r, id, sizeof(id))), term_str(r->unit));
		if (cmp->change != CHANGE_NOISE)
			fprintf(out, "  %s", change_name(cmp->change));
		else if (cmp->p_welch < c->opts.alpha && fabs(cmp->pct_change) >= c->opts.threshold_pct)
			fprintf(out, "  within the seeds' spread (%.1f%%)", cmp->floor_pct);
		fprintf(out, "%s\n", unpaint(pt, cmp->change));
		print_profile(r, s, out);
	}
	size_t hidden = rows_hidden(c);
	if (hidden)
		fprintf(out, "(%zu boot.initcall metrics did not change: not listed; --metric or "
			"--format json shows them)\n", hidden);
	print_fail_legend(c, s, out);
	print_initcalls_moved(c, s, pt);
}

/* The side-by-side table: BASE's value, each candidate's as % of BASE. */
static void print_table(const struct comparison *c, const struct painter *pt)
{
	FILE *out = pt->out;
	char tag[16], id[512], v[32];
	size_t width = 6;
	for (size_t i = 0; i < c->nrows; i++) {
		size_t len = strlen(term_str(row_id(&c->rows[i], id, sizeof(id)))) +
			     strlen(term_str(c->rows[i].unit)) + 3;
		if (len > width && !row_hidden(c, &c->rows[i]))
			width = len;
	}
	fprintf(out, "\n%-*s %10s", (int)width, "metric", "BASE");
	for (size_t s = 1; s < c->nsides; s++)
		fprintf(out, " %20s", side_tag(c, s, tag, sizeof(tag)));
	fputc('\n', out);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct metric_row *r = &c->rows[i];
		char label[600];
		if (row_hidden(c, r))
			continue;
		snprintf(label, sizeof(label), "%s (%s)", term_str(row_id(r, id, sizeof(id))),
			 term_str(r->unit));
		fmt_value(r->stat[0].mean, v, sizeof(v));
		fprintf(out, "%-*s %*s%s", (int)width, label, *fail_mark(&r->stat[0]) ? 9 : 10, v,
			fail_mark(&r->stat[0]));
		for (size_t s = 1; s < c->nsides; s++) {
			const struct cand_cmp *cmp = &r->cmp[s];
			char cell[64];
			fmt_value(r->stat[s].mean, v, sizeof(v));
			char mark = cmp->change == CHANGE_REGRESSED ? '-' :
				    cmp->change == CHANGE_IMPROVED ? '+' : ' ';
			if (!isfinite(cmp->pct_change))     /* none, or from a base of 0 */
				snprintf(cell, sizeof(cell), "%s%s%c", v, fail_mark(&r->stat[s]),
					 mark == ' ' ? '\0' : mark);
			else
				snprintf(cell, sizeof(cell), "%s%s (%5.1f%%)%c", v, fail_mark(&r->stat[s]),
					 100 + cmp->pct_change, mark);
			fprintf(out, " %s%20s%s", paint(pt, cmp->change), cell, unpaint(pt, cmp->change));
		}
		fputc('\n', out);
	}
	fputs("(+ improved, - regressed: significant and past the threshold)\n", out);
	print_fail_legend(c, 0, out);
}

/* The ABI table: each ABI's status per side, and whether it changed. */
static void print_abis(const struct comparison *c, FILE *out)
{
	char tag[16];
	if (!c->nabis)
		return;
	fprintf(out, "\n%-16s", "ABI");
	for (size_t s = 0; s < c->nsides; s++)
		fprintf(out, " %-12s", side_tag(c, s, tag, sizeof(tag)));
	fputc('\n', out);
	for (size_t k = 0; k < c->nabis; k++) {
		const struct abi_row *row = &c->abis[k];
		bool changed = false, worse = false;
		fprintf(out, "%-16s", term_str(row->abi));
		for (size_t s = 0; s < c->nsides; s++) {
			fprintf(out, " %-12s", term_str(row->status[s]));
			changed |= strcmp(row->status[s], row->status[0]) != 0;
			worse |= row->worse[s];
		}
		fprintf(out, "%s\n", worse ? "  regressed" : changed ? "  changed" : "");
	}
}

/* The median time each stage began, per side, for the boots that passed. */
static void print_stages(const struct comparison *c, FILE *out)
{
	char tag[16];
	bool any = false;
	for (size_t s = 0; s < c->nsides; s++)
		for (int i = 0; i < RESULT_STAGES; i++)
			any |= c->sides[s].nstages[i] > 0;
	if (!any)
		return;
	fprintf(out, "\n%-16s", "stage began (s)");
	for (size_t s = 0; s < c->nsides; s++)
		fprintf(out, " %-12s", side_tag(c, s, tag, sizeof(tag)));
	fputc('\n', out);
	for (int i = 0; i < RESULT_STAGES; i++) {
		bool reached = false;
		for (size_t s = 0; s < c->nsides; s++)
			reached |= c->sides[s].nstages[i] > 0;
		if (!reached)
			continue;
		fprintf(out, "%-16s", result_stage_names[i]);
		for (size_t s = 0; s < c->nsides; s++) {
			const struct side *side = &c->sides[s];
			if (side->nstages[i] == 0) {
				fprintf(out, " %-12s", "-");
				continue;
			}
			fprintf(out, " %-12.2f", stats_median(side->stages[i], side->nstages[i]));
		}
		fputc('\n', out);
	}
}

/* New kernel failure titles and failing verdicts, before anything else. */
static void print_failures(const struct comparison *c, const struct painter *pt)
{
	FILE *out = pt->out;
	char tag[16];
	for (size_t i = 0; i < c->nevents; i++) {
		const struct new_event *e = &c->events[i];
		if (i == 0)
			fputs("\nnew kernel failures (titles BASE never showed):\n", out);
		fprintf(out, "%s  %s [%s] %s (%u of %zu boots)%s\n", paint(pt, CHANGE_REGRESSED),
			side_tag(c, e->side, tag, sizeof(tag)), term_str(e->event->kind),
			term_str(e->event->title),
			e->boots, c->sides[e->side].nboots, unpaint(pt, CHANGE_REGRESSED));
	}
	for (size_t i = 0; i < c->nknown; i++) {
		const struct new_event *e = &c->known[i];
		if (i == 0)
			fputs("\nknown kernel failures (BASE showed the same title):\n", out);
		fprintf(out, "  %s [%s] %s (%u of %zu boots; BASE %u of %zu)\n",
			side_tag(c, e->side, tag, sizeof(tag)), term_str(e->event->kind),
			term_str(e->event->title), e->boots, c->sides[e->side].nboots, e->base_boots,
			c->sides[0].nboots);
	}
	for (size_t i = 0; i < c->nverdicts; i++) {
		const struct new_verdict *v = &c->verdicts[i];
		if (i == 0)
			fputs("\nnew failing verdicts (BASE never had them):\n", out);
		fprintf(out, "%s  %s %s in %u of %zu boots%s\n", paint(pt, CHANGE_REGRESSED),
			side_tag(c, v->side, tag, sizeof(tag)), term_str(v->verdict), v->boots,
			c->sides[v->side].nboots, unpaint(pt, CHANGE_REGRESSED));
	}
	for (size_t i = 0; i < c->ncases; i++) {
		const struct new_case *k = &c->cases[i];
		if (i == 0)
			fputs("\nnew KTAP failures (cases BASE never failed):\n", out);
		fprintf(out, "%s  %s %s%s%s failed in %u of %zu boots (BASE: %s)%s\n",
			paint(pt, CHANGE_REGRESSED), side_tag(c, k->side, tag, sizeof(tag)),
			term_str(k->kcase->suite), *k->kcase->suite ? "." : "", term_str(k->kcase->name),
			k->boots, c->sides[k->side].nboots, k->base_status, unpaint(pt, CHANGE_REGRESSED));
	}
}

/* With --logs: the normalized console lines one side has and the other lacks. */
static void print_log_lines(const struct comparison *c, FILE *out)
{
	char tag[16], tag2[16];
	if (!c->opts.logs)
		return;
	fprintf(out, "\nconsole lines one side prints (in most of its boots) and the other never does: %zu\n",
		c->nlog_lines);
	for (size_t i = 0; i < c->nlog_lines; i++) {
		const struct log_line *l = &c->log_lines[i];
		fprintf(out, "  only %s (not %s, %u boots): %s\n", side_tag(c, l->side, tag, sizeof(tag)),
			side_tag(c, l->against, tag2, sizeof(tag2)), l->boots, term_str(l->text));
	}
}

/* The boots that gave no observation, with why; with counted, the FAIL
 * boots that gave theirs (--include-fail). */
static void print_left_out(const struct comparison *c, bool counted, FILE *out)
{
	char tag[16];
	const struct boot_info *b;
	for (struct boot_walk w = { 0 }; (b = boot_walk_next(c, counted, &w));) {
		if (w.first)
			fputs(counted ? "\nFAIL boots counted in the statistics (--include-fail):\n"
				      : "\nboots left out of the statistics:\n", out);
		fprintf(out, "  %-5s %s %s #%d %s: %s\n", side_tag(c, w.side, tag, sizeof(tag)),
			term_str(b->kernel_id), term_str(b->variant), b->boot, term_str(b->verdict),
			*b->reason ? term_str(b->reason) : "(no reason given)");
	}
}

/* The whole text report, most important first; colour when asked. */
void report_text(const struct comparison *c, FILE *out, bool colour)
{
	struct painter pt = { out, colour };
	char tag[16];
	for (size_t s = 0; s < c->nsides; s++) {
		const struct side *side = &c->sides[s];
		fprintf(out, "%-5s %s: %zu boot%s, %zu PASS", side_tag(c, s, tag, sizeof(tag)),
			term_str(side->label), side->nboots, side->nboots == 1 ? "" : "s", side->npass);
		char *note = fail_causes_note(side, true);
		if (note)
			fprintf(out, ", %s counted", note);
		free(note);
		if (side->ncopies)
			fprintf(out, " (%zu cop%s counted once)", side->ncopies,
				side->ncopies == 1 ? "y of a boot" : "ies of boots");
		fputc('\n', out);
	}
	fprintf(out, "significant: Welch's t-test p < %g and |%%change| >= %g%% or, if larger, the "
		"seeds' spread (a side's max - min); each boot's median is one observation\n",
		c->opts.alpha, c->opts.threshold_pct);
	print_failures(c, &pt);
	for (size_t s = 1; s < c->nsides; s++)
		print_candidate(c, s, &pt);
	if (c->nrows)
		print_table(c, &pt);
	print_abis(c, out);
	print_stages(c, out);
	print_log_lines(c, out);
	print_left_out(c, true, out);
	print_left_out(c, false, out);
	for (size_t i = 0; i < c->nwarnings; i++)
		fprintf(out, "%swarning: %s\n", i ? "" : "\n", term_str(c->warnings[i]));
	fputc('\n', out);
	compare_summary(c, false, out);
	fputc('\n', out);
}
