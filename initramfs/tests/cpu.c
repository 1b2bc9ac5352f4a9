/*
 * cpu: small integer kernels whose speed depends on the size of pointers
 * and longs, so LP64 and ILP32 (x32, aarch64_ilp32) differ where data
 * structures are pointer-heavy. Each operation is one pass of a kernel
 * over a fixed input (made once, deterministically), in microseconds.
 *
 *   sort_long  sort 16384 longs (quicksort + insertion sort)
 *   sort_ptr   sort 16384 pointers to records by the record's key
 *   hash       build a chained hash table of 16384 pointer-linked nodes,
 *              then 16384 hits and 16384 misses
 *   lz         compress 64 KiB of text-like data with an LZ77 compressor
 *              whose match table holds pointers (checked by decompressing)
 */
#include "bench.h"

#define NELEM 16384
#define LZ_INPUT (64u << 10)
#define LZ_HASH_BITS 12

struct record {
	long key;
	struct record *link;
	long payload[2];
};

struct cpu_ctx {
	long *longs_in, *longs;
	struct record *records;
	struct record **ptrs_in, **ptrs;
	struct record **buckets;  /* hash: NELEM buckets */
	struct record *nodes;     /* hash: NELEM nodes */
	unsigned char *text, *packed, *unpacked;
	const unsigned char **lz_table;
	size_t packed_len;
	long sink;
	const char *bad;          /* a self-check that failed */
};

/* Sorting: one quicksort body for two element types. ------------------- */

#define DEFINE_SORT(NAME, T, LESS)                                              \
	static void NAME##_insertion(T *a, long n)                              \
	{                                                                       \
		for (long i = 1; i < n; i++) {                                  \
			T x = a[i];                                             \
			long j = i;                                             \
			for (; j > 0 && LESS(x, a[j - 1]); j--)                 \
				a[j] = a[j - 1];                                \
			a[j] = x;                                               \
		}                                                               \
	}                                                                       \
	static void NAME(T *a, long n)                                          \
	{                                                                       \
		while (n > 16) {                                                \
			T pivot = a[n / 2], t;                                  \
			long i = 0, j = n - 1;                                  \
			for (;;) {                                              \
				while (LESS(a[i], pivot))                       \
					i++;                                    \
				while (LESS(pivot, a[j]))                       \
					j--;                                    \
				if (i >= j)                                     \
					break;                                  \
				t = a[i]; a[i] = a[j]; a[j] = t;                \
				i++;                                            \
				j--;                                            \
			}                                                       \
			/* Recurse into the smaller side, loop on the other. */ \
			if (j + 1 < n - j - 1) {                                \
				NAME(a, j + 1);                                 \
				a += j + 1;                                     \
				n -= j + 1;                                     \
			} else {                                                \
				NAME(a + j + 1, n - j - 1);                     \
				n = j + 1;                                      \
			}                                                       \
		}                                                               \
		NAME##_insertion(a, n);                                         \
	}

#define LESS_LONG(x, y) ((x) < (y))
#define LESS_RECORD(x, y) ((x)->key < (y)->key)
DEFINE_SORT(sort_longs, long, LESS_LONG)
typedef struct record *record_ptr;
DEFINE_SORT(sort_records, record_ptr, LESS_RECORD)

/* sort_long: copy the input, sort it. */
static uint64_t loop_sort_long(void *ctx, unsigned long iters)
{
	struct cpu_ctx *c = ctx;
	for (unsigned long k = 0; k < iters; k++) {
		memcpy(c->longs, c->longs_in, NELEM * sizeof *c->longs);
		sort_longs(c->longs, NELEM);
	}
	for (long i = 1; i < NELEM; i++)
		if (c->longs[i - 1] > c->longs[i])
			c->bad = "sort_long: not sorted";
	return 0;
}

/* sort_ptr: copy the pointer array, sort it by the records' keys. */
static uint64_t loop_sort_ptr(void *ctx, unsigned long iters)
{
	struct cpu_ctx *c = ctx;
	for (unsigned long k = 0; k < iters; k++) {
		memcpy(c->ptrs, c->ptrs_in, NELEM * sizeof *c->ptrs);
		sort_records(c->ptrs, NELEM);
	}
	for (long i = 1; i < NELEM; i++)
		if (c->ptrs[i - 1]->key > c->ptrs[i]->key)
			c->bad = "sort_ptr: not sorted";
	return 0;
}

/* Hash table. ----------------------------------------------------------- */

/* The bucket of key (multiplicative hashing). */
static unsigned long bucket_of(long key)
{
	return ((unsigned long)key * 2654435761ul) % NELEM;
}

/* hash: insert every node, look up every key and as many absent ones. */
static uint64_t loop_hash(void *ctx, unsigned long iters)
{
	struct cpu_ctx *c = ctx;
	long found = 0;
	for (unsigned long k = 0; k < iters; k++) {
		memset(c->buckets, 0, NELEM * sizeof *c->buckets);
		for (long i = 0; i < NELEM; i++) {
			struct record *n = &c->nodes[i];
			unsigned long h = bucket_of(n->key);
			n->link = c->buckets[h];
			c->buckets[h] = n;
		}
		found = 0;
		for (long i = 0; i < 2 * NELEM; i++) {
			long key = i < NELEM ? c->nodes[i].key : -i;
			for (struct record *n = c->buckets[bucket_of(key)]; n; n = n->link)
				if (n->key == key) {
					found++;
					break;
				}
		}
	}
	if (found != NELEM)
		c->bad = "hash: wrong number of hits";
	c->sink = found;
	return 0;
}

/* LZ77 compression. ------------------------------------------------------ */
/* Format: a token byte, the literal count (bits 4-7, 15 = more bytes
 * follow) and match length - 4 (bits 0-3, same); the literals; a 16-bit
 * offset when a match follows; the last sequence has no match. */

/* Writes a length continuation (after a field of 15). */
static unsigned char *put_length(unsigned char *out, size_t len)
{
	for (; len >= 255; len -= 255)
		*out++ = 255;
	*out++ = (unsigned char)len;
	return out;
}

/* Emits one sequence: literals [lit, lit+nlit), then a match of mlen >= 4
 * bytes at offset off (mlen 0: none). */
static unsigned char *put_sequence(unsigned char *out, const unsigned char *lit, size_t nlit,
				   size_t off, size_t mlen)
{
	size_t m = mlen ? mlen - 4 : 0;
	*out++ = (unsigned char)((nlit < 15 ? nlit : 15) << 4 | (m < 15 ? m : 15));
	if (nlit >= 15)
		out = put_length(out, nlit - 15);
	memcpy(out, lit, nlit);
	out += nlit;
	if (mlen) {
		*out++ = (unsigned char)off;
		*out++ = (unsigned char)(off >> 8);
		if (m >= 15)
			out = put_length(out, m - 15);
	}
	return out;
}

/* Reads 4 bytes as an integer (any alignment). */
static uint32_t read32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Compresses in[0..n) into out; returns the compressed length. The table
 * remembers, per hash of 4 bytes, the last position (a pointer) seen. */
static size_t lz_compress(const unsigned char *in, size_t n, unsigned char *out,
			  const unsigned char **table)
{
	const unsigned char *ip = in, *anchor = in, *end = in + n, *limit = end - 8;
	unsigned char *op = out;
	memset(table, 0, sizeof *table << LZ_HASH_BITS);
	while (ip < limit) {
		uint32_t seq = read32(ip);
		uint32_t h = (seq * 2654435761u) >> (32 - LZ_HASH_BITS);
		const unsigned char *ref = table[h];
		table[h] = ip;
		if (!ref || ip - ref > 65535 || read32(ref) != seq) {
			ip++;
			continue;
		}
		size_t len = 4;
		while (ip + len < limit && ip[len] == ref[len])
			len++;
		op = put_sequence(op, anchor, (size_t)(ip - anchor), (size_t)(ip - ref), len);
		ip += len;
		anchor = ip;
	}
	op = put_sequence(op, anchor, (size_t)(end - anchor), 0, 0);
	return (size_t)(op - out);
}

/* Reads a length continuation after a field of 15. */
static size_t get_length(const unsigned char **pp, size_t len)
{
	unsigned char b;
	do {
		b = *(*pp)++;
		len += b;
	} while (b == 255);
	return len;
}

/* Decompresses in[0..n) into out; returns the length produced. */
static size_t lz_decompress(const unsigned char *in, size_t n, unsigned char *out)
{
	const unsigned char *ip = in, *end = in + n;
	unsigned char *op = out;
	while (ip < end) {
		unsigned token = *ip++;
		size_t nlit = token >> 4, m = token & 15;
		if (nlit == 15)
			nlit = get_length(&ip, nlit);
		memcpy(op, ip, nlit);
		op += nlit;
		ip += nlit;
		if (ip >= end)
			break;
		size_t off = (size_t)ip[0] | (size_t)ip[1] << 8;
		ip += 2;
		if (m == 15)
			m = get_length(&ip, m);
		for (size_t i = 0; i < m + 4; i++, op++)
			*op = *(op - off);
	}
	return (size_t)(op - out);
}

/* lz: compress the text once per operation. */
static uint64_t loop_lz(void *ctx, unsigned long iters)
{
	struct cpu_ctx *c = ctx;
	for (unsigned long k = 0; k < iters; k++)
		c->packed_len = lz_compress(c->text, LZ_INPUT, c->packed, c->lz_table);
	return 0;
}

/* Text-like input: words from a small vocabulary, deterministic. */
static void make_text(unsigned char *text, size_t n)
{
	static const char *const words[] = {
		"the ", "kernel ", "boots ", "on ", "every ", "abi ", "and ", "measures ",
		"latency ", "of ", "a ", "system ", "call ", "pipe ", "signal ", "fork ",
	};
	uint32_t seed = 12345;
	size_t i = 0;
	while (i < n) {
		const char *w = words[bench_random(&seed) % 16];
		for (; *w && i < n; w++)
			text[i++] = (unsigned char)*w;
	}
}

/* Allocates and fills every input. */
static void setup(struct bench *b, struct cpu_ctx *c)
{
	uint32_t seed = 2463534242u;
	c->longs_in = rt_alloc(NELEM * sizeof(long));
	c->longs = rt_alloc(NELEM * sizeof(long));
	c->records = rt_alloc(NELEM * sizeof(struct record));
	c->ptrs_in = rt_alloc(NELEM * sizeof(struct record *));
	c->ptrs = rt_alloc(NELEM * sizeof(struct record *));
	c->buckets = rt_alloc(NELEM * sizeof(struct record *));
	c->nodes = rt_alloc(NELEM * sizeof(struct record));
	c->text = rt_alloc(LZ_INPUT);
	c->packed = rt_alloc(LZ_INPUT + LZ_INPUT / 8 + 64);
	c->unpacked = rt_alloc(LZ_INPUT + 64);
	c->lz_table = rt_alloc(sizeof(*c->lz_table) << LZ_HASH_BITS);
	if (!c->longs_in || !c->longs || !c->records || !c->ptrs_in || !c->ptrs || !c->buckets ||
	    !c->nodes || !c->text || !c->packed || !c->unpacked || !c->lz_table)
		bench_fail(b, "out of memory");
	for (long i = 0; i < NELEM; i++) {
		c->longs_in[i] = (long)(bench_random(&seed) >> 1);
		c->records[i].key = (long)(bench_random(&seed) >> 1);
		c->ptrs_in[i] = &c->records[i];
		c->nodes[i].key = i * 7 + 1;
	}
	make_text(c->text, LZ_INPUT);
}

int main(int argc, char **argv)
{
	struct bench b;
	struct cpu_ctx c;

	bench_init(&b, argc, argv, "cpu");
	memset(&c, 0, sizeof c);
	setup(&b, &c);
	bench_latency(&b, "sort_long", "us", loop_sort_long, &c);
	bench_latency(&b, "sort_ptr", "us", loop_sort_ptr, &c);
	bench_latency(&b, "hash", "us", loop_hash, &c);
	bench_latency(&b, "lz", "us", loop_lz, &c);
	if (!c.bad && (lz_decompress(c.packed, c.packed_len, c.unpacked) != LZ_INPUT ||
		       memcmp(c.unpacked, c.text, LZ_INPUT) != 0))
		c.bad = "lz: the data does not decompress to the input";
	if (c.bad)
		bench_fail(&b, "self-check failed: %s", c.bad);
	bench_log(&b, "cpu: lz packed %u bytes into %lu", LZ_INPUT, (unsigned long)c.packed_len);
	return 0;
}
