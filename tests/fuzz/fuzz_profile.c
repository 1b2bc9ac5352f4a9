/*
 * fuzz_profile.c: libFuzzer target for the metrics' profiles from end to
 * end. Input: console bytes (PROFILE, PFUNC and PSTACK records among the
 * others), judged whole; the judge's JSON, made a boot's result.json as
 * runner/result.c writes it, is read back by the one reader of results
 * files (compare/results.h: result_json_parse, result_boot_record), its
 * profiles pooled into a side (side_add_boot) and drawn as a flame graph
 * (flame.h). Invariants: the reader accepts what the judge wrote (a boot
 * bootrig wrote is one it can read); every profile it gives holds shares
 * of 0 to 100, counts of 0 to 2^63 and each function once
 * (boot_profile_fault); the flame graph has no NaN or Inf in it.
 */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "judge.h"
#include "results.h"
#include "textsafe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct judge_limits limits;
	judge_default_limits(&limits);
	struct judge *j = judge_new(&limits);
	judge_feed(j, (const char *)data, size, 1);
	judge_machine_stopped(j, 2);
	judge_finish(j, 3);
	json_object *o = json_object_new_object();
	json_object_object_add(o, "format", json_object_new_string("bootrig-result-1"));
	json_object_object_add(o, "kernel", json_object_new_object());
	judge_to_json(j, o);
	judge_free(j);
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_json(&sb, o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	json_object_put(o);
	struct json_object *root;
	if (result_json_parse("fuzz/result.json", sb.buf, sb.len, &root) < 0)
		abort();        /* the judge wrote what the reader refuses */
	strbuf_release(&sb);
	struct boot_record r;
	result_boot_record(root, "fuzz", &r);
	r.verdict = "PASS";     /* so its profiles are pooled */
	for (size_t i = 0; i < r.nprofiles; i++) {
		char *fault = boot_profile_fault(&r.profiles[i]);
		if (fault)
			abort();
	}
	struct side side = { 0 };
	side_add_boot(&side, &r);
	side_add_boot(&side, &r);
	for (size_t i = 0; i < side.nprofiles; i++) {
		char *svg = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&svg, &len);
		if (!f)
			abort();
		flame_svg(f, &side.profiles[i], &side.profiles[i], "fz");
		fclose(f);
		if (strstr(svg, "nan") || strstr(svg, "inf"))
			abort();
		free(svg);
	}
	side_free(&side);
	result_boot_record_release(&r);
	json_object_put(root);
	return 0;
}
