/*
 * report-junit.c: the comparison as JUnit XML, the form CI systems
 * (Jenkins, GitLab, GitHub Actions) show as test results. One <testsuite>
 * per candidate; in it a <testcase> per metric (classname
 * "metrics.<abi>.<test>", name the metric), per ABI ("abis"), per boot
 * ("boots") and per new kernel failure or failing verdict ("failures").
 * A <failure> marks a significant regression past the threshold, an ABI
 * that stopped working, a boot that did not PASS, or a new failure; an
 * INFRA_ERROR boot is an <error type="infrastructure"> with its reason (the
 * kernel is not blamed); an untested or absent metric is <skipped>.
 *
 * Times are real: a boot's is its result.json duration, a metric's the time
 * of the guest test that measured it (tests[].ms) summed over the
 * candidate's boots, a suite's the sum of its boots' durations; unknown is
 * 0. The counts are the cases written. The output validates against both
 * Jenkins xUnit's junit-10.xsd and Ant's JUnit.xsd, vendored unmodified in
 * tests/junit/ (its README says what the two allow together): no attribute
 * on <testsuites>; each <testsuite> with package, id, timestamp (the first
 * boot's start, UTC, no zone) and hostname; <properties>, the cases,
 * <system-out> and <system-err> in that order; times with 3 decimals.
 */
#include "compare.h"
#include "exitcodes.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One test case, as the suite's counters need to know it. */
enum outcome { OUT_PASS, OUT_FAIL, OUT_ERROR, OUT_SKIP };

struct suite {
	struct strbuf body;     /* the test cases, written as they come */
	unsigned tests, failures, errors, skipped;
};

/* A time in seconds as both schemas take it: 3 decimals, 0 when unknown. */
static double junit_time(double s)
{
	return isfinite(s) && s > 0 ? s : 0;
}

/* Appends s to sb escaped for XML (via xml_escape and a memory stream). */
static void add_escaped(struct strbuf *sb, const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		die_status(EXIT_INFRA, "out of memory");
	xml_escape(f, s);
	fclose(f);
	strbuf_add(sb, buf, len);
	free(buf);
}

/* Adds a test case; message/detail only for a failure or a skip. */
static void add_case(struct suite *su, const char *classname, const char *name, double time,
		     enum outcome out, const char *message, const char *detail)
{
	struct strbuf *b = &su->body;
	su->tests++;
	strbuf_addstr(b, "    <testcase classname=\"");
	add_escaped(b, classname);
	strbuf_addstr(b, "\" name=\"");
	add_escaped(b, name);
	strbuf_addf(b, "\" time=\"%.3f\"", junit_time(time));
	if (out == OUT_PASS) {
		strbuf_addstr(b, "/>\n");
		return;
	}
	const char *tag = out == OUT_FAIL ? "failure" : out == OUT_ERROR ? "error" : "skipped";
	su->failures += out == OUT_FAIL;
	su->errors += out == OUT_ERROR;
	su->skipped += out == OUT_SKIP;
	strbuf_addf(b, ">\n      <%s message=\"", tag);
	add_escaped(b, message);
	strbuf_addf(b, "\"%s>", out == OUT_FAIL ? " type=\"regression\"" :
		    out == OUT_ERROR ? " type=\"infrastructure\"" : "");
	add_escaped(b, detail ? detail : "");
	strbuf_addf(b, "</%s>\n    </testcase>\n", tag);
}

/* A case per metric BASE or this candidate has: failure when regressed,
 * skipped when untested or absent on a side (its %change then "-"). */
static void metric_cases(const struct comparison *c, size_t s, struct suite *su)
{
	for (size_t i = 0; i < c->nrows; i++) {
		const struct metric_row *r = &c->rows[i];
		const struct cand_cmp *cmp = &r->cmp[s];
		if (!metric_here(r, s))
			continue;
		char classname[512], base[32], cand[32], pct[32], pw[16], pm[16];
		snprintf(classname, sizeof(classname), "metrics.%s.%s", r->abi, r->test);
		fmt_value(r->stat[0].mean, base, sizeof(base));
		fmt_value(r->stat[s].mean, cand, sizeof(cand));
		char *msg = xasprintf("%s: %s -> %s %s (%s, p(Welch)=%s, p(MWU)=%s)",
				      change_name(cmp->change), base, cand, r->unit,
				      fmt_pct(cmp->pct_change, pct, sizeof(pct)),
				      stats_fmt_p(cmp->p_welch, pw, sizeof(pw)),
				      stats_fmt_p(cmp->p_mwu, pm, sizeof(pm)));
		enum outcome out = cmp->change == CHANGE_REGRESSED ? OUT_FAIL :
			cmp->change == CHANGE_UNTESTED || cmp->change == CHANGE_ABSENT ? OUT_SKIP :
			OUT_PASS;
		add_case(su, classname, r->name, r->stat[s].series ? r->stat[s].series->test_s : NAN,
			 out, msg, msg);
		free(msg);
	}
}

/* A case per ABI BASE or this candidate reports: failure when it was ok
 * on BASE and is not here. */
static void abi_cases(const struct comparison *c, size_t s, struct suite *su)
{
	for (size_t k = 0; k < c->nabis; k++) {
		const struct abi_row *row = &c->abis[k];
		if (!abi_here(row, s))
			continue;
		char *msg = xasprintf("%s on BASE, %s here", row->status[0], row->status[s]);
		add_case(su, "abis", row->abi, NAN, row->worse[s] ? OUT_FAIL : OUT_PASS, msg, msg);
		free(msg);
	}
}

/* A case per boot: failure unless PASS, an error for INFRA_ERROR. */
static void boot_cases(const struct comparison *c, size_t s, struct suite *su)
{
	const struct side *side = &c->sides[s];
	for (size_t i = 0; i < side->nboots; i++) {
		const struct boot_info *b = &side->boots[i];
		char *name = xasprintf("%s/%s/%d", b->kernel_id, b->variant, b->boot);
		char *msg = xasprintf("%s: %s", b->verdict, b->reason);
		enum outcome out = b->passed ? OUT_PASS :
			!strcmp(b->verdict, "INFRA_ERROR") ? OUT_ERROR : OUT_FAIL;
		add_case(su, "boots", name, b->duration, out, msg, b->dir);
		free(name), free(msg);
	}
}

/* A failing case per new kernel failure title and per new failing verdict. */
static void failure_cases(const struct comparison *c, size_t s, struct suite *su)
{
	for (size_t i = 0; i < c->nevents; i++) {
		const struct new_event *e = &c->events[i];
		if (e->side != s)
			continue;
		char *msg = xasprintf("new %s in %u of %zu boots: %s", e->event->kind, e->boots,
				      c->sides[s].nboots, e->event->title);
		add_case(su, "failures", e->event->title, NAN, OUT_FAIL, msg, msg);
		free(msg);
	}
	for (size_t i = 0; i < c->nverdicts; i++) {
		const struct new_verdict *v = &c->verdicts[i];
		if (v->side != s)
			continue;
		char *msg = new_verdict_message(c, v);
		add_case(su, "failures", v->verdict, NAN, OUT_FAIL, msg, msg);
		free(msg);
	}
	for (size_t i = 0; i < c->ncases; i++) {
		const struct new_case *k = &c->cases[i];
		if (k->side != s)
			continue;
		char *name = xasprintf("%s%s%s", k->kcase->suite, *k->kcase->suite ? "." : "",
				       k->kcase->name);
		char *msg = xasprintf("KTAP case %s failed in %u of %zu boots; BASE: %s", name,
				      k->boots, c->sides[s].nboots, k->base_status);
		add_case(su, "failures", name, NAN, OUT_FAIL, msg, msg);
		free(name), free(msg);
	}
}

/* Is st an RFC 3339 time in UTC ("YYYY-MM-DDTHH:MM:SS[.frac]Z") whose first
 * 19 characters are a valid xs:dateTime? */
static bool utc_stamp(const char *st)
{
	unsigned y, mo, d, h, mi, se;
	char t, z;
	size_t n = st ? strlen(st) : 0;
	if (n < 20 || st[n - 1] != 'Z' || strspn(st, "0123456789-:T.Z") != n ||
	    sscanf(st, "%4u-%2u-%2u%c%2u:%2u:%2u%c", &y, &mo, &d, &t, &h, &mi, &se, &z) != 8)
		return false;
	return st[4] == '-' && st[7] == '-' && t == 'T' && st[13] == ':' && st[16] == ':' &&
	       (z == 'Z' || z == '.') && mo >= 1 && mo <= 12 && d >= 1 && d <= 28 + 3 &&
	       h < 24 && mi < 60 && se < 60;
}

/* The side's first boot start as Ant's timestamp (UTC, no zone) into buf;
 * the report's own time when no boot says when it started. */
static const char *side_timestamp(const struct side *side, char *buf, size_t size)
{
	const char *first = NULL;
	for (size_t i = 0; i < side->nboots; i++) {
		const char *st = side->boots[i].started;
		/* RFC 3339 in UTC sorts as text */
		if (utc_stamp(st) && (!first || strcmp(st, first) < 0))
			first = st;
	}
	if (first) {
		snprintf(buf, size, "%.19s", first);
		return buf;
	}
	time_t now = time(NULL);
	struct tm tm;
	strftime(buf, size, "%Y-%m-%dT%H:%M:%S", gmtime_r(&now, &tm));
	return buf;
}

/* The host every boot of the side ran on, else "localhost" (Ant's word for
 * unknown; boots of several hosts are in the boots' names' directories). */
static const char *side_hostname(const struct side *side)
{
	const char *hosts[2];
	size_t n = side_hosts(side, hosts, 2);
	return n == 1 && *hosts[0] ? hosts[0] : "localhost";
}

/* The sum of the side's known boot durations (s). */
static double side_time(const struct side *side)
{
	double t = 0;
	for (size_t i = 0; i < side->nboots; i++)
		t += junit_time(side->boots[i].duration);
	return t;
}

void report_junit(const struct comparison *c, FILE *out)
{
	struct suite *suites = xcalloc(c->nsides, sizeof(*suites));
	for (size_t s = 1; s < c->nsides; s++) {
		metric_cases(c, s, &suites[s]);
		abi_cases(c, s, &suites[s]);
		boot_cases(c, s, &suites[s]);
		failure_cases(c, s, &suites[s]);
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n", out);
	for (size_t s = 1; s < c->nsides; s++) {
		const struct side *side = &c->sides[s];
		char tag[16], stamp[32];
		fprintf(out, "  <testsuite name=\"%s vs BASE: ", side_tag(c, s, tag, sizeof(tag)));
		xml_escape(out, side->label);
		fprintf(out, "\" package=\"bootrig.compare\" id=\"%zu\" timestamp=\"%s\" hostname=\"",
			s - 1, side_timestamp(side, stamp, sizeof(stamp)));
		xml_escape(out, side_hostname(side));
		fprintf(out, "\" tests=\"%u\" failures=\"%u\" errors=\"%u\" skipped=\"%u\" time=\"%.3f\">\n"
			"    <properties>\n      <property name=\"base\" value=\"",
			suites[s].tests, suites[s].failures, suites[s].errors, suites[s].skipped,
			side_time(side));
		xml_escape(out, c->sides[0].label);
		fputs("\"/>\n      <property name=\"candidate\" value=\"", out);
		xml_escape(out, side->label);
		fprintf(out, "\"/>\n      <property name=\"alpha\" value=\"%g\"/>\n"
			"      <property name=\"threshold_pct\" value=\"%g\"/>\n    </properties>\n",
			c->opts.alpha, c->opts.threshold_pct);
		fwrite(suites[s].body.buf ? suites[s].body.buf : "", 1, suites[s].body.len, out);
		fputs("    <system-out/>\n    <system-err/>\n  </testsuite>\n", out);
		strbuf_release(&suites[s].body);
	}
	fputs("</testsuites>\n", out);
	free(suites);
}
