/*
 * jget.c: print one value of a JSON file, for the shell tests.
 *
 *   jget FILE PATH      PATH: keys and array indexes joined by '.', e.g.
 *                       abis.aarch64.status or events.0.title; "" = the root
 *
 * A string prints as itself, anything else as compact JSON, an array's
 * length with PATH ending in ".#". Exit 0; 1 when PATH is not there;
 * 2 when the file is not JSON.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Steps into o by one path segment; NULL when absent. */
static json_object *step(json_object *o, const char *seg)
{
	if (json_object_is_type(o, json_type_array)) {
		char *end;
		long i = strtol(seg, &end, 10);
		if (*end || i < 0 || (size_t)i >= json_object_array_length(o))
			return NULL;
		return json_object_array_get_idx(o, (size_t)i);
	}
	json_object *next;
	return json_object_object_get_ex(o, seg, &next) ? next : NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: jget FILE PATH\n");
		return 2;
	}
	json_object *root = json_object_from_file(argv[1]);
	if (!root) {
		fprintf(stderr, "jget: %s: not JSON\n", argv[1]);
		return 2;
	}
	json_object *o = root;
	char *path = strdup(argv[2]);
	for (char *seg = strtok(path, "."); seg && o; seg = strtok(NULL, ".")) {
		if (!strcmp(seg, "#")) {
			printf("%zu\n", json_object_is_type(o, json_type_array) ? json_object_array_length(o) : 0);
			free(path);
			json_object_put(root);
			return 0;
		}
		o = step(o, seg);
	}
	free(path);
	if (!o && strcmp(argv[2], "")) {
		json_object_put(root);
		return 1;
	}
	if (json_object_is_type(o, json_type_string))
		printf("%s\n", json_object_get_string(o));
	else
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(root);
	return 0;
}
