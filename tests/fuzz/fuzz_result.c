/*
 * fuzz_result.c: libFuzzer target for the one reader of results files
 * (compare/results.h: result_json_parse(), result_boot_record(), the one
 * loader side_add_boot() and a side's metric index). Input: the bytes of a
 * result.json. Invariants: a file accepted holds no NaN or Infinity
 * anywhere (every number in its tree is finite), every metric its boot
 * record gives has a finite observation, and a side fed the record twice
 * (as a PASS boot) finds each metric again by its identity.
 */
#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

/* Is every number at or below v finite? */
static int all_finite(struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_double:
		return isfinite(json_object_get_double(v));
	case json_type_object: {
		json_object_object_foreach(v, key, val) {
			(void)key;
			if (!all_finite(val))
				return 0;
		}
		return 1;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(v); i++)
			if (!all_finite(json_object_array_get_idx(v, i)))
				return 0;
		return 1;
	default:
		return 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_object *root;
	if (result_json_parse("fuzz/result.json", (const char *)data, size, &root) < 0)
		return 0;
	if (!all_finite(root) || !json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN))
		abort();
	struct side side = { 0 };
	struct boot_record r;
	result_boot_record(root, "fuzz", &r);
	r.verdict = "PASS";     /* so its metrics are observed */
	for (int pass = 0; pass < 2; pass++)
		side_add_boot(&side, &r);
	for (size_t i = 0; i < r.nmetrics; i++) {
		const struct side_observation *o = &r.metrics[i];
		if (!isfinite(o->obs))
			abort();
		const struct metric_series *m = side_metric(&side, o->abi, o->test, o->name);
		if (!m || strcmp(m->abi, o->abi) || strcmp(m->test, o->test) || strcmp(m->name, o->name))
			abort();
	}
	result_boot_record_release(&r);
	for (size_t i = 0; i < side.nmetrics; i++)
		if (side.metrics[i].n != 2 * (side.metrics[i].n / 2))
			abort();       /* each metric seen as often on both passes */
	side_free(&side);
	json_object_put(root);
	return 0;
}
