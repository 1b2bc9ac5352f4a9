/*
 * br-decode.c: decodes the result protocol in a console log, for tests.
 *
 *   br-decode [LOG]        (stdin when LOG is absent or "-")
 *
 * Prints each record the decoder trusts, one per line, values decoded
 * (bytes outside 0x21..0x7e shown as \xHH):
 *   7 METRIC abi=aarch64 test=lat_syscall name=null ...
 * and each problem:
 *   problem 12 corrupt CRC mismatch: @@BR 1 7 ...
 * then a summary line "# records=N corrupt=N repaired=N lost=N ...".
 * Exits 0 when the log holds BEGIN..END with no corrupt or lost record
 * (repairs are fine), 1 otherwise, 2 on a usage or read error.
 */
#include "protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints a value with unprintable bytes escaped, so one record is one line. */
static void print_value(const char *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];
		if (c > 0x20 && c < 0x7f && c != '\\')
			putchar(c);
		else
			printf("\\x%02x", c);
	}
}

static void on_record(void *ctx, const struct proto_record *rec)
{
	(void)ctx;
	printf("%llu %s", (unsigned long long)rec->seq, rec->kind_name);
	for (size_t i = 0; i < rec->nfields; i++) {
		printf(" %s=", rec->fields[i].key);
		print_value(rec->fields[i].value, rec->fields[i].value_len);
	}
	if (rec->repaired)
		printf(" (repaired)");
	putchar('\n');
}

static void on_problem(void *ctx, const struct proto_problem *p)
{
	(void)ctx;
	printf("problem %ld %s %s\n", p->line, proto_problem_name(p->kind), p->detail);
}

/* Feeds the stream line by line, with line numbers from 1 and time 0. */
static void feed_stream(struct decoder *d, FILE *in)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long lineno = 0;

	while ((n = getline(&line, &cap, in)) >= 0) {
		if (n > 0 && line[n - 1] == '\n')
			n--;
		decoder_feed_line(d, line, (size_t)n, ++lineno, 0.0);
	}
	free(line);
}

int main(int argc, char **argv)
{
	FILE *in = stdin;
	struct decoder *d;
	const struct proto_stats *st;
	bool good;

	if (argc > 2 || (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))) {
		fprintf(stderr, "usage: br-decode [CONSOLE_LOG]\n");
		return 2;
	}
	if (argc == 2 && strcmp(argv[1], "-") && !(in = fopen(argv[1], "rb"))) {
		perror(argv[1]);
		return 2;
	}
	d = decoder_new(on_record, on_problem, NULL);
	feed_stream(d, in);
	decoder_finish(d);
	st = decoder_stats(d);
	printf("# records=%llu", (unsigned long long)st->records);
	for (int k = 0; k < PROTO_PROBLEM_COUNT; k++)
		printf(" %s=%llu", proto_problem_name(k),
		       (unsigned long long)(k == PROTO_LOST ? st->lost : st->problems[k]));
	printf(" begin=%d end=%d\n", st->begin, st->end);
	good = st->begin && st->end && st->problems[PROTO_CORRUPT] == 0 && st->lost == 0 &&
	       st->problems[PROTO_LOST] == 0 && st->problems[PROTO_BAD_VERSION] == 0 &&
	       st->problems[PROTO_COUNT_MISMATCH] == 0 && st->problems[PROTO_TRUNCATED] == 0;
	if (in != stdin)
		fclose(in);
	decoder_free(d);
	return good ? 0 : 1;
}
