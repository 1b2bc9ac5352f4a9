/*
 * fold.h: the profile's aggregate (profile.h takes the samples; this is
 * the pure part the self-test checks on every ABI): folded stacks with
 * their counts, self and children counts per function, and the PROFILE,
 * PFUNC and PSTACK lines of initramfs/PROTOCOL.md with their bounds.
 *
 * A function is a number, 0..nids-1 (profile.c maps kernel symbols, the
 * binary's own symbols, "[kernel]" and "[unknown]_[u]" to numbers); a
 * stack is a list of them, root first. A sample's stack counts:
 *   - once for its folded stack (identical lists share one entry);
 *   - self for its leaf (the last function);
 *   - children for every distinct function in it (once per sample, even
 *     when it recurs), so self <= children <= samples.
 * Memory is reserved once (fold_init) and returned by fold_free; when the
 * stack table or its frame store is full, a sample still counts for its
 * functions and in `samples`, and its stack goes to stacks_other.
 */
#ifndef BOOTRIG_FOLD_H
#define BOOTRIG_FOLD_H

#include "rt.h"

#define FOLD_MAX_FUNCS 80      /* PFUNC records: top by self and by children */
#define FOLD_MAX_STACKS 100    /* PSTACK records: top by count */
/* The longest line a test prints for one record: init adds the framing
 * ("@@BR 1 SEQ " and the CRC) and escapes values within RECORD_MAX (4096)
 * bytes; escaped bytes are counted as 3. */
#define FOLD_LINE_MAX 3900

struct fold_stack {
	uint32_t hash, off, len;   /* frames at arena[off..off+len-1] */
	uint32_t count;
	uint32_t seq;              /* order first seen (ties) */
};

struct fold {
	uint32_t nids;
	uint32_t *self, *children, *stamp;   /* per function */
	uint32_t stamp_now;
	struct fold_stack *stacks;           /* open addressing, cap a power of 2 */
	uint32_t nstacks, cap;
	uint32_t *arena;
	uint32_t arena_len, arena_cap;
	uint32_t samples, unstored;          /* unstored: stacks that did not fit */
	size_t mem_size;
	void *mem;
};

/* fold_init: an empty aggregate for functions 0..nids-1, room for
 * max_stacks distinct stacks (rounded up to a power of 2, the table at
 * most half full) and arena_frames frames. -ENOMEM on failure. */
long fold_init(struct fold *f, uint32_t nids, uint32_t max_stacks, uint32_t arena_frames);
void fold_free(struct fold *f);
/* fold_add: one sample (count times) with the stack ids[0..n-1], root
 * first (n >= 1; ids < nids). */
void fold_add(struct fold *f, const uint32_t *ids, uint32_t n, uint32_t count);

/* fold_name_fn: a function's name (into buf, or a constant string). */
typedef const char *(*fold_name_fn)(void *ctx, uint32_t id, char *buf, size_t size);
/* fold_out_fn: one line (with its newline). */
typedef void (*fold_out_fn)(void *ctx, const char *line, size_t n);

/* What a PROFILE line says besides the aggregate. */
struct fold_head {
	const char *abi, *test, *name, *event;
	uint64_t period_ns, lost;
	uint64_t interrupt;     /* samples in interrupt work, not in the aggregate */
};

/* fold_emit: the PROFILE line, then at most FOLD_MAX_FUNCS PFUNC lines
 * (the union of the top by self and the top by children, taken in turn;
 * printed by children count, then self, descending), then at most
 * FOLD_MAX_STACKS PSTACK lines (by count, descending; ties in the order
 * first seen); stacks_other = samples - the kept stacks' counts; cut_self
 * and cut_children = the largest self and children count of the functions
 * not printed (0: all were), what a function the list lacks is at most. A stack
 * too long for FOLD_LINE_MAX loses frames at its root for one "...".
 * Uses a scratch allocation of its own; -ENOMEM when that fails (nothing
 * printed). */
long fold_emit(const struct fold *f, const struct fold_head *h, fold_name_fn name, void *name_ctx,
	       fold_out_fn out, void *out_ctx);

/* fold_escaped_len: the bytes s takes once init escapes it (bytes other
 * than 0x21..0x7e, and '%', become %XX). */
size_t fold_escaped_len(const char *s);

/* ------------------------------------------------------------------ */
/* The kernel's records (the 64-bit layout every ABI reads).            */

#define FOLD_DEPTH 64          /* frames kept per context (kernel, user) */

/* fold_ring_record: the record at tail of a ring's data area
 * (data[0..size-1], size a power of 2; positions count up for ever, as
 * data_head and data_tail do) copied whole into rec (a record may wrap
 * past the end); its length, or 0 when there is none before head or it
 * is corrupt (shorter than its header, past head, or longer than
 * rec_size). */
size_t fold_ring_record(const uint8_t *data, uint64_t size, uint64_t tail, uint64_t head, uint8_t *rec,
			size_t rec_size);

/* A sample of PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN:
 * the callchain split by its context markers into kernel frames and user
 * frames, leaf first each; frames after the first of a context are
 * return addresses and are stored less 1 (inside the call). A sample
 * with no callchain has its ip as the one frame of the context misc
 * names. */
struct fold_sample {
	uint64_t ip;
	uint32_t pid, tid;
	uint32_t nk, nu;
	uint64_t kf[FOLD_DEPTH], uf[FOLD_DEPTH];
};
/* fold_parse_sample: a PERF_RECORD_SAMPLE record (rec[0..len-1], header
 * included) into s; false when it is too short. */
bool fold_parse_sample(const uint8_t *rec, size_t len, struct fold_sample *s);

#endif
