/*
 * fuzz_judge.c: libFuzzer target for the console judge (judge/judge.c).
 * Input: console bytes, fed in chunks of varying size (as a serial line
 * delivers them) with growing host times, asking judge_should_stop() after
 * each like a runner does; then the machine stops, the verdict is decided
 * and the result JSON is built and printed to a string. Invariants: the
 * verdict is one of the six, its exit code is the contract's, the reason is
 * a string, and a PASS has an empty reason (or --provoke's note).
 */
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct judge_limits limits;
	struct judge *j;
	json_object *obj;
	enum verdict v;
	uint32_t rng = 2166136261u ^ (uint32_t)size;
	size_t off = 0;
	double t = 0;

	judge_default_limits(&limits);
	j = judge_new(&limits);
	while (off < size) {
		size_t chunk;
		rng = rng * 1103515245u + 12345u;
		chunk = 1 + (rng >> 16) % 97;
		if (chunk > size - off)
			chunk = size - off;
		judge_feed(j, (const char *)data + off, chunk, t);
		off += chunk;
		t += 0.001 * (double)((rng >> 8) & 255);
		(void)judge_stage(j);
		if (judge_should_stop(j, t))
			break;
	}
	if (size && (data[size - 1] & 1))
		judge_machine_stopped(j, t);
	v = judge_finish(j, t + 0.5);
	if (judge_finish(j, t + 1) != v)
		abort();
	if ((unsigned)v > VERDICT_INFRA_ERROR || !judge_reason(j) || !verdict_name(v))
		abort();
	/* A PASS says nothing, but for a --provoke boot that provoked nothing
	 * ("provoke KIND: STATUS: WHY": never silently). */
	if (v == VERDICT_PASS && ((judge_reason(j)[0] && strncmp(judge_reason(j), "provoke ", 8)) ||
				  verdict_exit_code(v) != 0))
		abort();
	obj = json_object_new_object();
	judge_to_json(j, obj);
	if (!json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN))
		abort();
	json_object_put(obj);
	judge_free(j);
	return 0;
}
