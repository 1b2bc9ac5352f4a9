/*
 * util.h: what every part of the host tool uses: messages in one voice,
 * allocation that cannot return NULL, whole-file reads and atomic writes
 * (spawning programs from an argv, never through a shell: spawn.h).
 *
 * Messages (usage.h, which says how an error travels) go to stderr as
 * "bootrig: ...". die() exits; error() returns -1 so a caller can write
 * `return error("...")`. A message is written by textsafe.h's terminal
 * rule (newlines and tabs kept), so its arguments are given raw, file
 * names and guest text included (never through term_str, which would
 * escape them twice).
 */
#ifndef BOOTRIG_UTIL_H
#define BOOTRIG_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* die(), error(), warning(): usage.h, with the error convention. */
#include "usage.h"

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
__attribute__((format(printf, 1, 2)))
char *xasprintf(const char *fmt, ...);

/* libconfig.so exports its own strbuf_release() and calls it through the
 * PLT, so ours would interpose on it and crash its parser: our symbol gets
 * another name, the source keeps the familiar one. */
#define strbuf_release bootrig_strbuf_release

/* Growable byte buffer: once anything was added, buf is NUL-terminated
 * (STRBUF_INIT leaves buf NULL and len 0: strbuf_add(sb, "", 0) makes an
 * empty string). */
struct strbuf {
	char *buf;
	size_t len, alloc;
};
#define STRBUF_INIT { NULL, 0, 0 }
/* Room for extra more bytes (and the NUL) without another allocation. */
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t n);
void strbuf_addstr(struct strbuf *sb, const char *s);
__attribute__((format(printf, 2, 3)))
void strbuf_addf(struct strbuf *sb, const char *fmt, ...);
void strbuf_release(struct strbuf *sb);

/*
 * read_file: the whole file into *out (NUL-terminated, *len without it).
 * Returns 0, or -1 with errno set; a missing file is not reported here.
 */
int read_file(const char *path, char **out, size_t *len);

/*
 * read_file_max: read_file for untrusted input: at most max bytes are
 * read (never more, so /dev/zero ends), and a longer file fails with
 * errno EFBIG and nothing kept. 0, or -1 with errno set.
 */
int read_file_max(const char *path, char **out, size_t *len, size_t max);

/*
 * read_file_chunks: opens path and hands each block it reads, into buf of
 * size bytes, to sink(ctx, data, n) until the end of the file (a read a
 * signal interrupts is retried). The file is closed either way. Returns
 * 0, or -1 with errno set when path cannot be opened or read (what sink
 * had by then is the caller's to drop).
 */
int read_file_chunks(const char *path, void *buf, size_t size,
		     void (*sink)(void *ctx, const void *data, size_t n), void *ctx);

/*
 * open_tmp_beside: creates a new temporary file "path.tmp.PID.N" in path's
 * directory, for writing and a later rename over path: O_CREAT | O_EXCL |
 * O_NOFOLLOW, so a file or symlink planted at that name is never opened
 * (the next N is tried). Returns the descriptor and, in *tmp, the name to
 * free (set on failure too); -1 with errno on failure.
 */
int open_tmp_beside(const char *path, char **tmp);

/*
 * write_file_atomic: write data to path through open_tmp_beside(), fsync
 * and rename, so the path holds the whole file or nothing, and a symlink
 * at path or at the temporary name is replaced, never followed: every
 * file bootrig writes goes through here. Its OS calls go through
 * oscall.h's table (a test fails any one of them); a signal's EINTR is
 * retried. Returns 0 or error()'s -1 (errno set): path then holds what it
 * held before, and no temporary file is left.
 */
int write_file_atomic(const char *path, const void *data, size_t len);

/*
 * write_file_atomic_nosync: the same, without the fsync: for what can be
 * made again (an image, its manifest). Readers still see the whole file or
 * none; only a power cut may lose it. Saves a millisecond a file.
 */
int write_file_atomic_nosync(const char *path, const void *data, size_t len);

/*
 * write_cache_file: write_file_atomic_nosync for a cache entry: the parent
 * directory is made, and nothing is printed, since an entry that cannot be
 * written is only a missed optimisation. 0 or -1.
 */
int write_cache_file(const char *path, const void *data, size_t len);

/* A number no other call in this process gets: temporary files are named
 * "<path>.tmp.<pid>.<n>", since run -j builds in threads. */
unsigned tmp_serial(void);

/*
 * Caches keyed on a file's stat() rather than its bytes, as git's index
 * does. stat_stamp: device, inode, size, mtime and ctime in nanoseconds
 * (ctime changes on every write and cannot be set back), as a string to
 * free. But a file's times move in clock ticks (4 ms, or a whole second on
 * some filesystems): a file rewritten in the tick it was read keeps its
 * stamp. stat_changed_lately says the stamp is too young to key a cache on
 * (ctime within STAT_SETTLE_SECONDS of now); the content is then hashed.
 */
#define STAT_SETTLE_SECONDS 2
struct stat;
char *stat_stamp(const struct stat *st);
bool stat_changed_lately(const struct stat *st);

/* mkdir -p (its mkdir calls through oscall.h); returns 0 or -1 with errno set. */
int mkdir_p(const char *path, mode_t mode);

/* Monotonic time in seconds. */
double now_monotonic(void);

/* Running another program (run_argv and the rest): lib/spawn.h. */

/* Where the guest binaries (build/guest) and configs/ are, found from the
 * executable's own path or $BOOTRIG_DATADIR; see lib/paths.c. */
const char *bootrig_guest_dir(void);
const char *bootrig_configs_dir(void);
/* The running executable's directory, malloc'd ("." when unknown). */
char *bootrig_exe_dir(void);
/* $BOOTRIG_CACHE, else $XDG_CACHE_HOME/bootrig, else ~/.cache/bootrig. */
const char *bootrig_cache_dir(void);

#endif
