/*
 * json-parse-all.c: parses each file named on the command line with json-c
 * and nothing else: the floor that `bootrig compare` is measured against
 * in scripts/bench.d/50-compare.sh. Prints how many files parsed.
 */
#include <json-c/json.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int parsed = 0;
	for (int i = 1; i < argc; i++) {
		struct json_object *o = json_object_from_file(argv[i]);
		if (!o) {
			fprintf(stderr, "json-parse-all: %s: %s\n", argv[i], json_util_get_last_err());
			return 65;
		}
		parsed++;
		json_object_put(o);
	}
	printf("%d\n", parsed);
	return 0;
}
