/*
 * parse-bench.c: how fast console text is read, for make bench
 * (scripts/bench.d/40-parse.sh).
 *
 *   parse-bench decoder|judge FILE
 *
 * Reads FILE into memory first (the disk is not measured), then times:
 *   decoder  lines split with memchr and fed to the protocol decoder;
 *   judge    judge_feed() in 4 KiB chunks, as a serial console delivers
 *            them, then judge_finish(): line assembly, crash detection and
 *            the decoder together. Writing the result (judge_to_json(),
 *            which turns every kept record into JSON, and freeing it all)
 *            is done once per boot, not per console byte: it is timed
 *            apart and printed after the records.
 * Prints one line: "<mode> <MB> MB <seconds> s <MB/s> MB/s <records> records",
 * and for judge " <seconds> s result". MB is 10^6 bytes.
 */
#include "judge.h"
#include "protocol.h"
#include "util.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Feeds every line of text to a decoder; returns the records it yielded. */
static uint64_t run_decoder(const char *text, size_t len)
{
	struct decoder *d = decoder_new(NULL, NULL, NULL);
	const char *p = text, *end = text + len;
	long lineno = 0;
	uint64_t records;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		decoder_feed_line(d, p, n, ++lineno, 0.0);
		p += n + 1;
	}
	decoder_finish(d);
	records = decoder_stats(d)->records;
	decoder_free(d);
	return records;
}

/* Feeds text to a judge in console-sized chunks; returns the records the
 * judge's decoder counted (from its JSON "protocol" object). *secs gets
 * the time of feed and finish, *result_secs that of the JSON and frees. */
static uint64_t run_judge(const char *text, size_t len, double *secs, double *result_secs)
{
	struct judge_limits limits;
	struct judge *j;
	double t = 0;

	judge_default_limits(&limits);
	for (int s = 0; s < STAGE_COUNT; s++)
		limits.stage[s] = 0;
	limits.silence = 0;
	double start = now_monotonic();
	j = judge_new(&limits);
	for (size_t off = 0; off < len; off += 4096) {
		size_t n = len - off < 4096 ? len - off : 4096;
		judge_feed(j, text + off, n, t);
		t += 1e-4;
	}
	judge_finish(j, t);
	*secs = now_monotonic() - start;
	start = now_monotonic();
	json_object *obj = json_object_new_object(), *proto, *records;
	uint64_t n = 0;
	judge_to_json(j, obj);
	if (json_object_object_get_ex(obj, "protocol", &proto) &&
	    json_object_object_get_ex(proto, "records", &records))
		n = (uint64_t)json_object_get_int64(records);
	json_object_put(obj);
	judge_free(j);
	*result_secs = now_monotonic() - start;
	return n;
}

int main(int argc, char **argv)
{
	char *text;
	size_t len;
	double start, secs, result_secs = -1;
	uint64_t records;

	if (argc != 3 || (strcmp(argv[1], "decoder") && strcmp(argv[1], "judge")))
		die_status(64, "usage: parse-bench decoder|judge FILE");
	if (read_file(argv[2], &text, &len) < 0)
		die("parse-bench: cannot read %s", argv[2]);
	if (!strcmp(argv[1], "decoder")) {
		start = now_monotonic();
		records = run_decoder(text, len);
		secs = now_monotonic() - start;
	} else {
		records = run_judge(text, len, &secs, &result_secs);
	}
	printf("%s %.1f MB %.3f s %.1f MB/s %llu records", argv[1], (double)len / 1e6, secs,
	       (double)len / 1e6 / secs, (unsigned long long)records);
	if (result_secs >= 0)
		printf(" %.3f s result", result_secs);
	printf("\n");
	free(text);
	return 0;
}
