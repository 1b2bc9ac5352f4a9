/*
 * br-record.c: prints one protocol record line (initramfs/PROTOCOL.md), as
 * the guest's init would, for tests that need records with given values.
 *
 *   br-record SEQ KIND key=value...
 *
 * Values are taken as raw bytes and escaped by proto_encode() (%XX), so a
 * value may hold anything a guest could send: ESC, BEL, invalid UTF-8.
 */
#include "protocol.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc < 3)
		die_status(64, "usage: br-record SEQ KIND key=value...");
	const char **fields = xcalloc((size_t)(argc - 3) * 2 + 1, sizeof(*fields));
	size_t n = 0;
	for (int i = 3; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		if (!eq)
			die_status(64, "br-record: '%s' is not key=value", argv[i]);
		*eq = '\0';
		fields[n++] = argv[i];
		fields[n++] = eq + 1;
	}
	char line[PROTO_MAX_LINE + 1];
	size_t len = proto_encode(line, sizeof(line), strtoull(argv[1], NULL, 10), argv[2], fields);
	if (!len)
		die_status(65, "br-record: the record does not fit in %d bytes", PROTO_MAX_LINE);
	fwrite(line, 1, len, stdout);
	free(fields);
	return 0;
}
