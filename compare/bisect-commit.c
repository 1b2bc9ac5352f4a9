/*
 * bisect-commit.c: one commit of a bisection (bisect-commit.h): its boots
 * counted from its results directory, more boots spawned (`bootrig run`,
 * each boot its own seed), its mark decided by bisect.c's rules.
 */
#include "bisect-commit.h"
#include "bisect-git.h"
#include "compare.h"
#include "results.h"
#include "textsafe.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The command line for this commit: --append, then --append-file's words. */
static char *cmdline_for(const struct bisection *b)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, b->append ? b->append : "");
	if (b->append_file) {
		char *path = b->append_file[0] == '/' ? xstrdup(b->append_file)
						      : xasprintf("%s/%s", b->tree, b->append_file);
		char *text = NULL;
		size_t len;
		if (read_file(path, &text, &len) == 0) {
			for (size_t i = 0; i < len; i++)
				if (text[i] == '\n' || text[i] == '\r' || text[i] == '\t')
					text[i] = ' ';
			char *t = text;
			while (*t == ' ')
				t++;
			size_t n = strlen(t);
			while (n && t[n - 1] == ' ')
				t[--n] = '\0';
			if (*t)
				strbuf_addf(&sb, "%s%s", sb.len ? " " : "", t);
		}
		free(text), free(path);
	}
	return sb.buf;
}

int bisect_count_boots(const struct bisection *b, const char *dir, struct step *s,
		       struct step_boots *sb, char **crash_title)
{
	if (crash_title)
		*crash_title = NULL;
	struct side side;
	memset(&side, 0, sizeof(side));
	*sb = (struct step_boots){ 0 };
	for (size_t i = 0; i < s->nverdicts; i++)
		free(s->verdicts[i]);
	free(s->verdicts), free(s->obs);
	s->verdicts = NULL, s->obs = NULL, s->nverdicts = s->nobs = 0;
	if (access(dir, F_OK) < 0)
		return 0;
	if (side_load(&side, dir, true) < 0)
		return -1;
	s->verdicts = xcalloc(side.nboots + 1, sizeof(*s->verdicts));
	const char **titles = xcalloc(side.nevents + 1, sizeof(*titles));
	for (size_t i = 0; i < side.nboots; i++) {
		const char *v = side.boots[i].verdict;
		s->verdicts[s->nverdicts++] = xstrdup(v);
		size_t nt = 0;
		for (size_t e = 0; e < side.nevents; e++)
			if (side.events[e].boot == i && event_is_kernel_failure(side.events[e].kind) &&
			    side.events[e].title && *side.events[e].title)
				titles[nt++] = side.events[e].title;
		if (crash_title && !*crash_title && nt && bisect_crash_verdict(v))
			*crash_title = xstrdup(titles[0]);
		bisect_count_boot(&b->o, sb, v, titles, nt);
	}
	free(titles);
	if (b->metric) {
		const char *unit;
		bool higher;
		side_values(&side, b->metric, &s->obs, &s->nobs, &unit, &higher);
	}
	sb->obs = s->obs;
	sb->nobs = s->nobs;
	s->nboots = sb->nboots, s->npass = sb->npass, s->ninfra = sb->ninfra;
	s->ncrash = sb->ncrash, s->nfail = sb->nfail, s->ntitle = sb->ntitle;
	side_free(&side);
	return 0;
}

/* Did the run options given to bisect choose the seeds (--seed)? */
static bool run_opts_seed(const struct bisection *b)
{
	for (size_t i = 0; i < b->nrun_opts; i++)
		if (!strcmp(b->run_opts[i], "--seed"))
			return true;
	return false;
}

/*
 * boot: spawns bootrig run for n more boots of image into results, whose
 * first is the commit's boot number first (1 for its first). Each boot has
 * its own seed, the boot's number (--seed first-(first+n-1)), unless the
 * run options choose the seeds: more boots of a commit are other boots, not
 * the same boot again (under icount one seed is one boot, byte for byte).
 * Its status.
 */
static int boot(const struct bisection *b, const char *image, const char *results,
		const char *cmdline, size_t first, size_t n, int log_fd)
{
	char **argv = xcalloc(b->nrun_opts + 18, sizeof(*argv));
	char count[32], seeds[64];
	snprintf(count, sizeof(count), "%zu", n);
	if (n > 1)
		snprintf(seeds, sizeof(seeds), "%zu-%zu", first, first + n - 1);
	else
		snprintf(seeds, sizeof(seeds), "%zu", first);
	size_t k = 0;
	argv[k++] = b->run_program ? (char *)b->run_program : "/proc/self/exe";
	argv[k++] = "run";
	argv[k++] = "--kernel";
	argv[k++] = (char *)image;
	argv[k++] = "--kernel-tree";            /* the commit built: kernel.git */
	argv[k++] = (char *)b->tree;
	argv[k++] = "--repeat";
	argv[k++] = count;
	if (!run_opts_seed(b)) {
		argv[k++] = "--seed";
		argv[k++] = seeds;
	}
	if (*cmdline) {
		argv[k++] = "--append";
		argv[k++] = (char *)cmdline;
	}
	for (size_t i = 0; i < b->nrun_opts; i++)
		argv[k++] = b->run_opts[i];
	argv[k++] = "-o";
	argv[k++] = (char *)results;
	argv[k] = NULL;
	int rc = bisect_spawn(argv, NULL, log_fd, NULL, true, 0);
	free(argv);
	return rc;
}

/* The end of a log file, for a message: its last line. */
static char *last_line(const char *path)
{
	char *text = NULL;
	size_t len;
	if (read_file(path, &text, &len) < 0)
		return xstrdup("");
	while (len && text[len - 1] == '\n')
		text[--len] = '\0';
	char *nl = strrchr(text, '\n');
	char *s = xstrdup(nl ? nl + 1 : text);
	free(text);
	return s;
}


void bisect_set_why(struct step *s, char *why)
{
	free(s->why);
	s->why = why;
}

int bisect_test_commit(struct bisection *b, struct step *s, size_t end_boots)
{
	char *dir = xasprintf("%s/%.12s", b->dir, s->sha);
	char *results = xasprintf("%s/results", dir);
	char *blog = xasprintf("%s/build.log", dir), *rlog = xasprintf("%s/run.log", dir);
	char *image = b->image[0] == '/' ? xstrdup(b->image) : xasprintf("%s/%s", b->tree, b->image);
	int rc = TEST_DONE;
	if (mkdir_p(dir, 0755) < 0) {
		error("cannot create %s: %s", dir, strerror(errno));
		rc = TEST_ERROR;
		goto out;
	}
	fprintf(stderr, "bisect: %s %.12s %s: building\n", s->role ? s->role : "testing", s->sha,
		term_str(s->subject));
	int fd = open(blog, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	int brc = fd < 0 ? -1 : bisect_spawn(b->build, b->tree, fd, NULL, true, b->build_timeout);
	if (fd >= 0)
		close(fd);
	if (bisect_stop_signal) {
		rc = TEST_INTERRUPTED;
		goto out;
	}
	struct stat st;
	if (brc != 0 || stat(image, &st) < 0) {
		s->mark = MARK_SKIP;
		bisect_set_why(s, brc == BISECT_SPAWN_TIMED_OUT
				   ? xasprintf("the build did not end within %g s (--build-timeout), stopped: "
					       "see %.12s/build.log", b->build_timeout, s->sha)
			   : brc != 0 ? xasprintf("the build failed (exit %d): see %.12s/build.log", brc, s->sha)
				      : xasprintf("the build made no %s", b->image));
		goto out;
	}
	char *cmdline = cmdline_for(b);
	struct step_boots sb;
	/* crash mode's bad end takes all its boots: how often it shows the
	 * crash is what a clean step is weighed against */
	bool all = end_boots && b->o.crash && s == &b->ends[1];
	fd = open(rlog, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
	for (;;) {
		if (bisect_count_boots(b, results, s, &sb, NULL) < 0) {
			s->mark = MARK_SKIP;
			bisect_set_why(s, xasprintf("its results cannot be read: see %.12s/results", s->sha));
			break;
		}
		char *why = NULL;
		size_t usable = sb.nboots - sb.ninfra;
		if (all && usable < end_boots && sb.nboots < b->o.max_boots)
			s->mark = MARK_NONE, why = xasprintf("%zu of %zu boots so far", usable, end_boots);
		else if (end_boots && !b->o.crash)
			s->mark = bisect_decide_end(&b->o, &sb, end_boots, &why);
		else if (b->o.crash)
			s->mark = bisect_decide_crash(&b->o, &sb, &why);
		else
			s->mark = bisect_decide_metric(&b->o, b->ends[0].obs, b->ends[0].nobs, b->ends[1].obs,
						       b->ends[1].nobs, &sb, &s->st, &why);
		bisect_set_why(s, why);
		if (s->mark != MARK_NONE)
			break;
		size_t n = bisect_next_batch(&b->o, &sb);
		if (all) {
			size_t left = b->o.max_boots - sb.nboots;
			n = end_boots - usable < left ? end_boots - usable : left;
		}
		fprintf(stderr, "bisect:   %zu boot%s (%zu so far)\n", n, n == 1 ? "" : "s", sb.nboots);
		int run_rc = boot(b, image, results, cmdline, sb.nboots + 1, n, fd);
		if (bisect_stop_signal) {
			rc = TEST_INTERRUPTED;
			break;
		}
		if (run_rc != 0 && run_rc != 1 && run_rc != 2 && run_rc != 125) {
			char *line = last_line(rlog);
			s->mark = MARK_SKIP;
			bisect_set_why(s, xasprintf("bootrig run exited %d: %s", run_rc, line));
			free(line);
			break;
		}
	}
	if (fd >= 0)
		close(fd);
	if (!b->o.crash && s->nobs && isnan(s->st.median)) {
		struct step_stats t;
		bisect_summarize(s->obs, s->nobs, &t);
		s->st.median = t.median, s->st.spread_pct = t.spread_pct;
	}
	free(cmdline);
out:
	free(dir), free(results), free(blog), free(rlog), free(image);
	return rc;
}
