/*
 * result.c: result.json for one boot (result.h, runner/RESULTS.md).
 */
#include "result.h"
#include "backend.h"
#include "judge.h"
#include "kernel.h"
#include "results.h"
#include "textsafe.h"
#include "util.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

void result_format_time(time_t t, char buf[21])
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, 21, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Every string here may hold bytes from a file name or the user: made
 * valid UTF-8 (textsafe.h). */
static json_object *string_or_null(const char *s)
{
	return json_cstring_utf8(s);
}

static json_object *kernel_object(const struct result_info *info)
{
	json_object *k = json_object_new_object();
	json_object_object_add(k, "path", string_or_null(info->kernel_path));
	json_object_object_add(k, "id", string_or_null(info->kernel_id));
	json_object_object_add(k, "arch", string_or_null(info->kernel_arch));
	json_object_object_add(k, "version", string_or_null(info->kernel_version));
	if (info->kernel_sha256)
		json_object_object_add(k, "sha256", json_object_new_string(info->kernel_sha256));
	if (info->kernel_git_commit) {
		json_object *g = json_object_new_object();
		json_object_object_add(g, "commit", json_object_new_string(info->kernel_git_commit));
		if (info->kernel_git_describe)
			json_object_object_add(g, "describe", json_cstring_utf8(info->kernel_git_describe));
		if (info->kernel_git_url)
			json_object_object_add(g, "url", json_cstring_utf8(info->kernel_git_url));
		json_object_object_add(k, "git", g);
	}
	if (info->kernel_size)
		json_object_object_add(k, "size", kernel_size_json(info->kernel_size));
	return k;
}

/* The runner's part of result.json, in RESULTS.md's order. */
static void add_run_fields(json_object *o, const struct result_info *info)
{
	char started[21];
	result_format_time(info->started, started);
	json_object_object_add(o, "format", json_object_new_string("bootrig-result-1"));
	json_object_object_add(o, "bootrig_version", json_object_new_string(BOOTRIG_VERSION));
	json_object_object_add(o, "kernel", kernel_object(info));
	json_object_object_add(o, "variant", string_or_null(info->variant));
	json_object_object_add(o, "boot", json_object_new_int(info->boot));
	json_object_object_add(o, "append", string_or_null(info->append));
	if (info->initramfs) {
		json_object *img = json_object_new_object();
		json_object_object_add(img, "path", string_or_null(info->initramfs));
		json_object_object_add(img, "sha256", string_or_null(info->initramfs_sha256));
		json_object_object_add(o, "initramfs", img);
	}
	json_object_object_add(o, "backend", string_or_null(info->backend));
	json_object_object_add(o, "target", string_or_null(info->target));
	if (info->uri)
		json_object_object_add(o, "uri", json_cstring_utf8(info->uri));
	if (info->host_name) {
		json_object *h = json_object_new_object();
		json_object_object_add(h, "name", json_cstring_utf8(info->host_name));
		json_object_object_add(h, "uri", info->uri ? json_cstring_utf8(info->uri) : NULL);
		for (size_t i = 0; info->host_facts && i < MACHINE_MAX_FACTS &&
				   info->host_facts[i].key; i++)
			json_object_object_add(h, info->host_facts[i].key,
					       string_or_null(info->host_facts[i].value));
		json_object_object_add(o, "host", h);
	}
	if (info->n_attempts) {
		json_object *a = json_object_new_array();
		for (size_t i = 0; i < info->n_attempts; i++) {
			const struct result_attempt *at = &info->attempts[i];
			json_object *e = json_object_new_object();
			json_object_object_add(e, "host", at->host ? json_cstring_utf8(at->host) : NULL);
			json_object_object_add(e, "uri", at->uri ? json_cstring_utf8(at->uri) : NULL);
			json_object_object_add(e, "error", at->error ? json_cstring_utf8(at->error) : NULL);
			json_object_array_add(a, e);
		}
		json_object_object_add(o, "attempts", a);
	}
	json_object_object_add(o, "accelerator", string_or_null(info->accelerator));
	if (info->accelerator_reason)
		json_object_object_add(o, "accelerator_reason",
				       string_or_null(info->accelerator_reason));
	if (info->accelerator_fallback)
		json_object_object_add(o, "accelerator_fallback",
				       string_or_null(info->accelerator_fallback));
	json_object_object_add(o, "clock", string_or_null(info->clock));
	json_object_object_add(o, "seed", string_or_null(info->seed));
	json_object_object_add(o, "started", json_object_new_string(started));
	json_object_object_add(o, "duration", json_object_new_double(info->duration));
	if (info->console_recovered)
		json_object_object_add(o, "console_recovered_bytes",
				       json_object_new_int64((int64_t)info->console_recovered));
}

/* o as result.json's text into sb (emptied first). */
static void result_text(struct strbuf *sb, json_object *o)
{
	sb->len = 0;
	strbuf_add_json(sb, o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	strbuf_add(sb, "\n", 1);
}

/* Each metric's profile with data (functions or stacks) replaced by an
 * incomplete one saying why (the text was len bytes); how many. */
static size_t drop_profiles(json_object *o, size_t len)
{
	json_object *metrics = json_object_object_get(o, "metrics");
	size_t dropped = 0;
	for (size_t i = 0, n = metrics ? json_object_array_length(metrics) : 0; i < n; i++) {
		json_object *m = json_object_array_get_idx(metrics, i), *p;
		if (!json_object_object_get_ex(m, "profile", &p) ||
		    !(json_object_object_get(p, "functions") || json_object_object_get(p, "stacks")))
			continue;
		json_object *q = json_object_new_object();
		json_object_object_add(q, "status", json_object_new_string("incomplete"));
		char *why = xasprintf("left out of result.json: with the profiles it was %zu bytes, "
				      "over the %u its readers are written for", len,
				      (unsigned)RESULT_JSON_WRITE_MAX);
		json_object_object_add(q, "reason", json_object_new_string(why));
		free(why);
		json_object_object_add(m, "profile", q);
		dropped++;
	}
	return dropped;
}

int result_write(const char *dir, const struct result_info *info, const struct judge *j)
{
	json_object *o = json_object_new_object();
	add_run_fields(o, info);
	judge_to_json(j, o);
	/* The judge's fields follow; the runner's duration is the measured one. */
	json_object_object_add(o, "duration", json_object_new_double(info->duration));
	if (info->backend_section)
		json_object_object_add(o, info->backend ? info->backend : "backend",
				       info->backend_section);
	char *path = xasprintf("%s/result.json", dir);
	struct strbuf sb = STRBUF_INIT;
	result_text(&sb, o);
	if (sb.len > RESULT_JSON_WRITE_MAX && drop_profiles(o, sb.len))
		result_text(&sb, o);
	/* Still over: the metrics from the last, half of those left at a time. */
	json_object *metrics = json_object_object_get(o, "metrics");
	size_t left = metrics ? json_object_array_length(metrics) : 0, all = left;
	while (sb.len > RESULT_JSON_WRITE_MAX && left) {
		size_t cut = (left + 1) / 2;
		json_object_array_del_idx(metrics, left - cut, cut);
		left -= cut;
		json_object_object_add(o, "metrics_not_written", json_object_new_int64((int64_t)(all - left)));
		result_text(&sb, o);
	}
	if (left < all)
		warning("%s: %zu of %zu metrics not written: result.json would be over %u bytes", path,
			all - left, all, (unsigned)RESULT_JSON_WRITE_MAX);
	int rc = write_file_atomic(path, sb.buf, sb.len);
	int saved = errno;
	strbuf_release(&sb);
	free(path);
	json_object_put(o);
	errno = saved;
	return rc;
}
