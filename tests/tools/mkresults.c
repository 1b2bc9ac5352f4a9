/*
 * mkresults.c: writes a synthetic results tree, RESULTS_DIR/<kernel-id>/
 * <variant>/<n>/result.json as runner/RESULTS.md describes it, for the
 * compare tests and benchmark. Each boot's metric median is drawn from a
 * normal distribution (seeded, so a tree is reproducible).
 *
 *   mkresults DIR KERNEL_ID VARIANT BOOTS SEED [option|metric]...
 *     abi:test:name:unit:better:mean:sdpct   a metric (better: lower|higher)
 *     abi:test:name:unit:better:v1/v2/...:0  boot K's median is exactly v[(K-1) % count]
 *     --abi NAME=STATUS                       an ABI table entry (every boot)
 *     --boot K=VERDICT[:KIND:TITLE]           boot K's verdict and an event (KIND
 *                                             empty: TITLE is the reason, no event)
 *     --console TEXT                          console.log text (every boot)
 *     --case SUITE:CASE:STATUS                a ktap.cases entry (every boot; STATUS
 *                                             after the last ':', CASE may hold ':')
 *     --seeds FIRST                           icount boots: boot K's seed is FIRST+K-1
 *     --all-metrics                           every boot's metrics, whatever its verdict
 *                                             (else a boot that did not PASS has none)
 */
#include "util.h"

#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;

/* xorshift64*: uniform in (0, 1). */
static double uniform(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return ((double)((rng_state * 2685821657736338717ull) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

struct metric_spec {
	char *abi, *test, *name, *unit, *better;
	double mean, sdpct;
	const char *list;       /* "v1/v2/...": each boot's median, or NULL */
};

static int parse_metric(char *arg, struct metric_spec *m)
{
	char *f[7];
	for (int i = 0; i < 7; i++) {
		f[i] = strsep(&arg, ":");
		if (!f[i])
			return -1;
	}
	*m = (struct metric_spec){ f[0], f[1], f[2], f[3], f[4], atof(f[5]), atof(f[6]),
				   strchr(f[5], '/') ? f[5] : NULL };
	return 0;
}

/* The value number k (0-based, cycling) of a "v1/v2/..." list. */
static double list_value(const char *list, int k)
{
	int count = 1;
	for (const char *p = list; *p; p++)
		count += *p == '/';
	const char *p = list;
	for (int i = 0; i < k % count; i++)
		p = strchr(p, '/') + 1;
	return atof(p);
}

static struct json_object *metric_json(const struct metric_spec *m, int boot)
{
	struct json_object *o = json_object_new_object(), *samples = json_object_new_array();
	double median = m->list ? list_value(m->list, boot - 1) : m->mean * (1 + m->sdpct / 100 * normal());
	json_object_object_add(o, "abi", json_object_new_string(m->abi));
	json_object_object_add(o, "test", json_object_new_string(m->test));
	json_object_object_add(o, "name", json_object_new_string(m->name));
	json_object_object_add(o, "unit", json_object_new_string(m->unit));
	json_object_object_add(o, "better", json_object_new_string(m->better));
	json_object_object_add(o, "n", json_object_new_int(5));
	json_object_object_add(o, "median", json_object_new_double(median));
	json_object_object_add(o, "min", json_object_new_double(median * 0.99));
	json_object_object_add(o, "max", json_object_new_double(median * 1.01));
	json_object_object_add(o, "mean", json_object_new_double(median));
	json_object_object_add(o, "stddev", json_object_new_double(median * 0.007));
	for (int i = -2; i <= 2; i++)
		json_object_array_add(samples, json_object_new_double(median * (1 + 0.005 * i)));
	json_object_object_add(o, "samples", samples);
	json_object_object_add(o, "cycles", NULL);
	json_object_object_add(o, "instructions", NULL);
	return o;
}

/* A "ktap" section with one case per "SUITE:CASE:STATUS" of specs[0..n)
 * (STATUS after the last ':'), counted as the judge counts them. */
static struct json_object *ktap_json(char *const *specs, int n)
{
	struct json_object *k = json_object_new_object(), *cases = json_object_new_array();
	int counts[3] = { 0 };
	for (int i = 0; i < n; i++) {
		const char *colon = strchr(specs[i], ':'), *last = strrchr(specs[i], ':');
		if (!colon || last == colon)
			die("--case SUITE:CASE:STATUS");
		struct json_object *c = json_object_new_object();
		json_object_object_add(c, "suite", json_object_new_string_len(specs[i], (int)(colon - specs[i])));
		json_object_object_add(c, "case", json_object_new_string_len(colon + 1, (int)(last - colon - 1)));
		json_object_object_add(c, "status", json_object_new_string(last + 1));
		json_object_object_add(c, "diagnostics", json_object_new_string(""));
		json_object_object_add(c, "line", json_object_new_int(i + 1));
		json_object_array_add(cases, c);
		counts[!strcmp(last + 1, "ok") ? 0 : !strcmp(last + 1, "skip") ? 2 : 1]++;
	}
	json_object_object_add(k, "ok", json_object_new_int(counts[0]));
	json_object_object_add(k, "fail", json_object_new_int(counts[1]));
	json_object_object_add(k, "skip", json_object_new_int(counts[2]));
	json_object_object_add(k, "failure", NULL);
	json_object_object_add(k, "suites", json_object_new_array());
	json_object_object_add(k, "cases", cases);
	json_object_object_add(k, "problems", json_object_new_array());
	return k;
}

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: mkresults DIR KERNEL_ID VARIANT BOOTS SEED [metric|option]...\n");
		return 64;
	}
	const char *dir = argv[1], *kid = argv[2], *variant = argv[3];
	int boots = atoi(argv[4]);
	rng_state = strtoull(argv[5], NULL, 10) * 0x9e3779b97f4a7c15ull + 1;
	struct metric_spec *metrics = xcalloc((size_t)argc, sizeof(*metrics));   /* one an argument at most */
	int nmetrics = 0;
	struct { int boot; char *verdict, *kind, *title; } fails[16];
	char *abis[16], *cases[64], *console = NULL;
	int nabis = 0, nfails = 0, ncases = 0, first_seed = 0, all_metrics = 0;
	for (int i = 6; i < argc; i++) {
		if (!strcmp(argv[i], "--abi") && i + 1 < argc && nabis < 16)
			abis[nabis++] = argv[++i];
		else if (!strcmp(argv[i], "--boot") && i + 1 < argc && nfails < 16) {
			char *rest = argv[++i], *eq = strchr(rest, '=');
			if (!eq)
				die("--boot K=VERDICT[:KIND:TITLE]");
			fails[nfails].boot = atoi(rest);
			rest = eq + 1;
			fails[nfails].verdict = strsep(&rest, ":");
			fails[nfails].kind = rest ? strsep(&rest, ":") : NULL;
			fails[nfails++].title = rest ? rest : "";
		}
		else if (!strcmp(argv[i], "--case") && i + 1 < argc && ncases < 64)
			cases[ncases++] = argv[++i];
		else if (!strcmp(argv[i], "--console") && i + 1 < argc)
			console = argv[++i];
		else if (!strcmp(argv[i], "--all-metrics"))
			all_metrics = 1;
		else if (!strcmp(argv[i], "--seeds") && i + 1 < argc)
			first_seed = atoi(argv[++i]);
		else if (parse_metric(argv[i], &metrics[nmetrics]) == 0)
			nmetrics++;
		else {
			fprintf(stderr, "mkresults: bad argument %s\n", argv[i]);
			return 64;
		}
	}
	for (int b = 1; b <= boots; b++) {
		char *bdir = xasprintf("%s/%s/%s/%d", dir, kid, variant, b);
		if (mkdir_p(bdir, 0755) < 0)
			die("cannot create %s", bdir);
		const char *verdict = "PASS", *kind = NULL, *title = NULL;
		for (int f = 0; f < nfails; f++)
			if (fails[f].boot == b)
				verdict = fails[f].verdict, kind = fails[f].kind, title = fails[f].title;
		struct json_object *root = json_object_new_object(), *kernel = json_object_new_object();
		json_object_object_add(root, "format", json_object_new_string("bootrig-result-1"));
		json_object_object_add(root, "bootrig_version", json_object_new_string("0.1.0"));
		json_object_object_add(kernel, "path", json_object_new_string(kid));
		json_object_object_add(kernel, "id", json_object_new_string(kid));
		json_object_object_add(kernel, "arch", json_object_new_string("x86_64"));
		json_object_object_add(root, "kernel", kernel);
		json_object_object_add(root, "variant", json_object_new_string(variant));
		json_object_object_add(root, "boot", json_object_new_int(b));
		if (first_seed > 0) {
			char seed[16];
			snprintf(seed, sizeof(seed), "%d", first_seed + b - 1);
			json_object_object_add(root, "seed", json_object_new_string(seed));
			json_object_object_add(root, "clock", json_object_new_string("icount"));
		}
		json_object_object_add(root, "verdict", json_object_new_string(verdict));
		json_object_object_add(root, "exit_code", json_object_new_int(strcmp(verdict, "PASS") ? 2 : 0));
		json_object_object_add(root, "reason", json_object_new_string(title ? title : ""));
		struct json_object *stages = json_object_new_object();
		json_object_object_add(stages, "firmware", json_object_new_double(0));
		json_object_object_add(stages, "kernel", json_object_new_double(0.4 + 0.01 * uniform()));
		json_object_object_add(stages, "init", json_object_new_double(4.9 + 0.2 * uniform()));
		json_object_object_add(root, "stages", stages);
		struct json_object *events = json_object_new_array();
		if (kind && *kind) {
			struct json_object *e = json_object_new_object();
			json_object_object_add(e, "kind", json_object_new_string(kind));
			json_object_object_add(e, "title", json_object_new_string(title));
			json_object_array_add(events, e);
		}
		json_object_object_add(root, "events", events);
		struct json_object *abi = json_object_new_object();
		for (int a = 0; a < nabis; a++) {
			char *eq = strchr(abis[a], '=');
			if (!eq)
				die("--abi NAME=STATUS");
			char *name = xasprintf("%.*s", (int)(eq - abis[a]), abis[a]);
			struct json_object *st = json_object_new_object();
			json_object_object_add(st, "status", json_object_new_string(eq + 1));
			json_object_object_add(abi, name, st);
			free(name);
		}
		json_object_object_add(root, "abis", abi);
		if (ncases)
			json_object_object_add(root, "ktap", ktap_json(cases, ncases));
		struct json_object *ms = json_object_new_array();
		for (int m = 0; m < nmetrics && (all_metrics || !strcmp(verdict, "PASS")); m++)
			json_object_array_add(ms, metric_json(&metrics[m], b));
		json_object_object_add(root, "metrics", ms);
		const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY);
		char *path = xasprintf("%s/result.json", bdir);
		if (write_file_atomic(path, text, strlen(text)) < 0)
			return 1;
		free(path);
		if (console) {
			path = xasprintf("%s/console.log", bdir);
			if (write_file_atomic(path, console, strlen(console)) < 0)
				return 1;
			free(path);
		}
		json_object_put(root);
		free(bdir);
	}
	free(metrics);
	return 0;
}
