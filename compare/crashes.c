/*
 * crashes.c: `history --crashes`: every crash title of a history
 * database over its kernels, open or fixed (crashes.h has the rule).
 *
 * The database gives the runs (kernel, variant, target) and, per run, the
 * kernel events' (kind, title) with their boot counts (db.h); this file
 * folds them into one identity per (kind, title), in kernel order, and
 * prints them as text or JSON.
 */
#include "crashes.h"
#include "exitcodes.h"
#include "results.h"
#include "textsafe.h"
#include "util.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* Where one identity was last seen in one run's tests (variant, target). */
struct seen {
	const char *variant, *target;   /* the rows' (kept until the end of build) */
	size_t last;                    /* kernel position */
};

struct building {
	struct crash_identity *id;
	struct seen *seen;
	size_t nseen;
};

/* The position of kernel id in ch->kernels, or SIZE_MAX. */
static size_t kernel_pos(const struct crash_history *ch, long long id)
{
	for (size_t i = 0; i < ch->nkernels; i++)
		if (ch->kernels[i].id == id)
			return i;
	return SIZE_MAX;
}

static void crash_key(const void *ctx, size_t i, const char *key[3])
{
	const struct crash_history *ch = ctx;
	key[0] = ch->crashes[i].kind, key[1] = ch->crashes[i].title, key[2] = "";
}

/* Kernels after position last that ran the tests (variant, target). */
static size_t ran_since(const struct crash_history *ch, const struct db_run *runs, size_t nruns,
			const struct seen *s)
{
	size_t n = 0;
	for (size_t i = 0; i < nruns; i++) {
		size_t pos = kernel_pos(ch, runs[i].kernel);
		n += pos != SIZE_MAX && pos > s->last && !strcmp(runs[i].variant, s->variant) &&
		     !strcmp(runs[i].target, s->target);
	}
	return n;
}

int crash_history_build(struct crash_history *ch, struct history_db *db)
{
	struct db_run *runs = NULL;
	struct db_crash_row *rows = NULL;
	size_t nruns = 0, nrows = 0;
	if (db_kernels(db, &ch->filter, &ch->kernels, &ch->nkernels) ||
	    db_runs(db, &ch->filter, &runs, &nruns) || db_crash_rows(db, &ch->filter, &rows, &nrows)) {
		db_runs_free(runs, nruns);
		return EXIT_DATAERR;
	}
	if (ch->by_version)
		db_kernels_sort_version(ch->kernels, ch->nkernels);
	if (ch->fixed_after < 1)
		ch->fixed_after = 1;
	struct triple_index index = { 0 };
	struct building *b = xcalloc(nrows + 1, sizeof(*b));
	ch->crashes = xcalloc(nrows + 1, sizeof(*ch->crashes));
	/* Rows come in order of their first boot: identities in order of
	 * first appearance, as far as boots are recorded in time order. */
	for (size_t r = 0; r < nrows; r++) {
		size_t pos = kernel_pos(ch, rows[r].kernel);
		if (pos == SIZE_MAX)
			continue;
		const char *key[3] = { rows[r].kind, rows[r].title, "" };
		size_t i = triple_index_find(&index, key, crash_key, ch);
		if (i == SIZE_MAX) {
			i = ch->n++;
			ch->crashes[i] = (struct crash_identity){ .kind = xstrdup(rows[r].kind),
				.title = xstrdup(rows[r].title), .first = pos, .last = pos };
			triple_index_add(&index, i, crash_key, ch);
		}
		struct crash_identity *c = &ch->crashes[i];
		c->boots += rows[r].boots;
		if (pos < c->first)
			c->first = pos;
		if (pos > c->last)
			c->last = pos;
		struct building *bi = &b[i];
		size_t s = 0;
		while (s < bi->nseen && (strcmp(bi->seen[s].variant, rows[r].variant) ||
					 strcmp(bi->seen[s].target, rows[r].target)))
			s++;
		if (s == bi->nseen) {
			bi->seen = xrealloc(bi->seen, (bi->nseen + 1) * sizeof(*bi->seen));
			bi->seen[bi->nseen++] = (struct seen){ rows[r].variant, rows[r].target, pos };
		} else if (pos > bi->seen[s].last) {
			bi->seen[s].last = pos;
		}
	}
	/* Kernels per identity: distinct positions over its rows. */
	for (size_t i = 0; i < ch->n; i++) {
		bool *on = xcalloc(ch->nkernels + 1, sizeof(*on));
		for (size_t r = 0; r < nrows; r++) {
			size_t pos = kernel_pos(ch, rows[r].kernel);
			if (pos != SIZE_MAX && !strcmp(rows[r].kind, ch->crashes[i].kind) &&
			    !strcmp(rows[r].title, ch->crashes[i].title) && !on[pos]) {
				on[pos] = true;
				ch->crashes[i].kernels++;
			}
		}
		free(on);
		struct crash_identity *c = &ch->crashes[i];
		c->open = false;
		c->since = SIZE_MAX;
		for (size_t s = 0; s < b[i].nseen; s++) {
			size_t since = ran_since(ch, runs, nruns, &b[i].seen[s]);
			if (since < c->since)
				c->since = since;
			if (since < (size_t)ch->fixed_after)
				c->open = true;
		}
		if (c->since == SIZE_MAX)
			c->since = 0;
		free(b[i].seen);
	}
	free(b);
	triple_index_free(&index);
	db_runs_free(runs, nruns);
	db_crash_rows_free(rows, nrows);
	return EXIT_PASS;
}

void crash_history_free(struct crash_history *ch)
{
	for (size_t i = 0; i < ch->n; i++)
		free(ch->crashes[i].kind), free(ch->crashes[i].title);
	free(ch->crashes);
	db_kernels_free(ch->kernels, ch->nkernels);
	ch->crashes = NULL, ch->kernels = NULL, ch->n = ch->nkernels = 0;
}

/* A kernel's name in the reports: its version's first word, else its id. */
static const char *kernel_name(const struct db_kernel *k)
{
	return *k->version ? k->version : k->kernel_id;
}

void crash_history_text(const struct crash_history *ch, const char *db_path, FILE *out)
{
	fprintf(out, "crashes in %s: %zu title%s over %zu kernel%s (order: %s; fixed: gone from the "
		"last %d kernel%s that ran its tests)\n", term_str(db_path), ch->n, ch->n == 1 ? "" : "s",
		ch->nkernels, ch->nkernels == 1 ? "" : "s", ch->by_version ? "version" : "first boot",
		ch->fixed_after, ch->fixed_after == 1 ? "" : "s");
	if (!ch->n)
		return;
	fprintf(out, "%-6s  %-10s %6s %8s  %-28s %-28s %s\n", "status", "kind", "boots", "kernels",
		"first", "last", "title");
	for (size_t i = 0; i < ch->n; i++) {
		const struct crash_identity *c = &ch->crashes[i];
		fprintf(out, "%-6s  %-10s %6lld %8zu  ", c->open ? "open" : "fixed", term_str(c->kind),
			c->boots, c->kernels);
		fprintf(out, "%-28s ", term_str(kernel_name(&ch->kernels[c->first])));
		fprintf(out, "%-28s ", term_str(kernel_name(&ch->kernels[c->last])));
		fprintf(out, "%s\n", term_str(c->title));
	}
}

struct json_object *crash_history_json(const struct crash_history *ch)
{
	struct json_object *root = json_object_new_object(), *kernels = json_object_new_array();
	struct json_object *crashes = json_object_new_array();
	json_object_object_add(root, "format", json_cstring_utf8("bootrig-crashes-1"));
	json_object_object_add(root, "order", json_object_new_string(ch->by_version ? "version" : "first_boot"));
	json_object_object_add(root, "fixed_after", json_object_new_int(ch->fixed_after));
	for (size_t i = 0; i < ch->nkernels; i++) {
		struct json_object *k = json_object_new_object();
		json_object_object_add(k, "version", json_cstring_utf8(ch->kernels[i].version));
		json_object_object_add(k, "kernel_id", json_cstring_utf8(ch->kernels[i].kernel_id));
		json_object_object_add(k, "sha256", json_cstring_utf8(ch->kernels[i].sha256));
		json_object_array_add(kernels, k);
	}
	json_object_object_add(root, "kernels", kernels);
	for (size_t i = 0; i < ch->n; i++) {
		const struct crash_identity *c = &ch->crashes[i];
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "kind", json_cstring_utf8(c->kind));
		json_object_object_add(o, "title", json_cstring_utf8(c->title));
		json_object_object_add(o, "status", json_object_new_string(c->open ? "open" : "fixed"));
		json_object_object_add(o, "boots", json_object_new_int64(c->boots));
		json_object_object_add(o, "kernels", json_object_new_int64((int64_t)c->kernels));
		json_object_object_add(o, "first", json_object_new_int64((int64_t)c->first));
		json_object_object_add(o, "last", json_object_new_int64((int64_t)c->last));
		json_object_object_add(o, "kernels_since", json_object_new_int64((int64_t)c->since));
		json_object_array_add(crashes, o);
	}
	json_object_object_add(root, "crashes", crashes);
	return root;
}
