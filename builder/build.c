/*
 * build.c: the initramfs for a kernel, a target and a suite (build.h).
 *
 * The file is divided as:
 *   - the entry list: what goes into the image, with every parent
 *     directory, sorted by name so that two builds are byte-identical;
 *   - gathering: /init, the probes and tests per ABI, the data file, the
 *     plan, /dev/console and the user's extra files;
 *   - writing: cpio, gzip, the optional --append-to prefix, then the
 *     manifest (json-c), each through a temporary file and a rename;
 *   - --list, over the bounds-checked reader of cpio.c.
 */
#include "build.h"
#include "config.h"
#include "cpio.h"
#include "exitcodes.h"
#include "kernel.h"
#include "sha256.h"
#include "textsafe.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DATA_FILE_SIZE 4096
/* libdeflate's level 6: the size of gzip -9's output in a fifth of the time
 * (make bench, 20-build) */
#define GZIP_LEVEL 6
#define LIST_MAX_INFLATED ((size_t)1 << 30)
#define CACHE_FORMAT "bootrig-initramfs-cache 1"
#define CACHE_RECORDS_KEPT 64

struct entry {
	char *name;            /* without the leading '/' */
	uint32_t mode;         /* with the type bits */
	char *data;            /* bytes made here (the plan...); NULL for a host file */
	size_t len;
	uint32_t rdev_major, rdev_minor;
	char *source;          /* a host file: its path, read when the archive is made */
	char *stamp;           /* a host file: its stat_stamp() when gathered */
	bool settled;          /* a host file: its stamp can key a cache (util.h) */
	char sha256[65];       /* regular files: of the bytes in the image, once known */
};

struct entries {
	struct entry *v;
	size_t n;
};

void build_options_init(struct build_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->compress = true;
	opt->write_manifest = true;
}

/* ---- the entry list ---------------------------------------------------- */

static struct entry *find_entry(struct entries *es, const char *name)
{
	for (size_t i = 0; i < es->n; i++)
		if (!strcmp(es->v[i].name, name))
			return &es->v[i];
	return NULL;
}

/* Adds name (and its parent directories); takes data and source. */
static struct entry *add_entry(struct entries *es, const char *name, uint32_t mode, char *data,
			       size_t len, char *source)
{
	char *dir = xstrdup(name);
	for (char *slash = strchr(dir, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (*dir && !find_entry(es, dir))
			add_entry(es, dir, S_IFDIR | 0755, NULL, 0, NULL);
		*slash = '/';
	}
	free(dir);
	es->v = xrealloc(es->v, (es->n + 1) * sizeof(*es->v));
	struct entry *e = &es->v[es->n++];
	*e = (struct entry){ .name = xstrdup(name), .mode = mode, .data = data, .len = len,
			     .source = source };
	if (data && S_ISREG(mode))
		sha256_hex(data, len, e->sha256);
	return e;
}

/* Frees every entry and the list. */
static void release_entries(struct entries *es)
{
	for (size_t i = 0; i < es->n; i++) {
		free(es->v[i].name);
		free(es->v[i].data);
		free(es->v[i].source);
		free(es->v[i].stamp);
	}
	free(es->v);
}

/* qsort order: by name, byte-wise (parents sort before children). */
static int compare_entries(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

/* ---- gathering --------------------------------------------------------- */

/*
 * Adds the host file src as dest (a path in the image, leading '/'
 * optional). Executable on the host: 0755, else 0644. Only stat()ed here:
 * its bytes are read when the archive is made, which a cached image saves
 * (see "the image cache"). 0 or 65.
 */
static int add_host_file(struct entries *es, const char *src, const char *dest)
{
	while (*dest == '/')
		dest++;
	if (!*dest)
		return error("--add %s: the destination must name a file", src), EXIT_DATAERR;
	if (find_entry(es, dest))
		return error("%s: /%s is already in the image", src, dest), EXIT_DATAERR;
	struct stat st;
	if (stat(src, &st) < 0)
		return error("%s: %s", src, strerror(errno)), EXIT_DATAERR;
	if (!S_ISREG(st.st_mode))
		return error("%s: not a regular file", src), EXIT_DATAERR;
	if (access(src, R_OK) < 0)
		return error("%s: %s", src, strerror(errno)), EXIT_DATAERR;
	uint32_t perm = (st.st_mode & S_IXUSR) ? 0755 : 0644;
	struct entry *e = add_entry(es, dest, S_IFREG | perm, NULL, (size_t)st.st_size,
				    xstrdup(src));
	e->stamp = stat_stamp(&st);
	e->settled = !stat_changed_lately(&st);
	return 0;
}

/* A guest binary build/guest/<abi>/<name> as dest. 0 or 65. */
static int add_guest_binary(struct entries *es, const char *abi, const char *name,
			    const char *dest)
{
	char *src = xasprintf("%s/%s/%s", bootrig_guest_dir(), abi, name);
	int rc = 0;
	if (access(src, R_OK) != 0) {
		error("%s: missing guest binary for ABI %s (run 'make guest')", src, abi);
		rc = EXIT_DATAERR;
	} else {
		rc = add_host_file(es, src, dest);
	}
	free(src);
	return rc;
}

/* The plan init reads (initramfs/PROTOCOL.md): key=value lines. */
static char *plan_text(const struct suite *s, char **abis, size_t n_abis)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "suite=%s\ntests=", s->name);
	for (size_t i = 0; i < s->n_tests; i++)
		strbuf_addf(&sb, "%s%s", i ? "," : "", s->tests[i]);
	strbuf_addstr(&sb, "\nabis=");
	for (size_t i = 0; i < n_abis; i++)
		strbuf_addf(&sb, "%s%s", i ? "," : "", abis[i]);
	/* init reads whole seconds, at least 1 */
	long timeout = (long)s->test_timeout;
	if ((double)timeout < s->test_timeout || timeout < 1)
		timeout++;
	strbuf_addf(&sb, "\nsamples=%d\nmin_samples=%d\nci_target=%.4f\nrepeat=%d\ntest_timeout=%ld\n",
		    s->samples, s->min_samples, s->ci_target, s->repeat, timeout);
	if (s->profile)
		strbuf_addstr(&sb, "profile=1\n");
	if (s->boot_time)
		strbuf_addstr(&sb, "boot_time=1\n");
	/* always written: a plan with counting off is the same size as one
	 * with it on (make bench boots both and compares their figures) */
	strbuf_addf(&sb, "perf_stat=%d\n", s->perf_stat ? 1 : 0);
	return sb.buf;
}

/* 4 KiB of a fixed pattern: the syscall tests stat and open it. */
static char *data_file(void)
{
	char *d = xmalloc(DATA_FILE_SIZE);
	for (size_t i = 0; i < DATA_FILE_SIZE; i++)
		d[i] = (char)('a' + i % 26);
	return d;
}

/* The ABIs to build for: opt->abis (each checked against the target) or all. */
static int chosen_abis(const struct build_options *opt, char ***abis, size_t *n)
{
	const struct target *t = opt->target;
	if (!opt->abis) {
		*abis = t->abis;
		*n = t->n_abis;
		return 0;
	}
	for (size_t i = 0; i < opt->n_abis; i++) {
		bool found = false;
		for (size_t j = 0; j < t->n_abis; j++)
			found |= !strcmp(opt->abis[i], t->abis[j]);
		if (!found)
			return error("ABI '%s' is not one of target %s's (%s arch)", opt->abis[i],
				     t->name, t->arch), EXIT_USAGE;
	}
	*abis = opt->abis;
	*n = opt->n_abis;
	return 0;
}

/* Every entry of the image for opt, unsorted. 0 or an exit status. */
static int gather(const struct build_options *opt, char **abis, size_t n_abis,
		  struct entries *es, char **plan)
{
	const struct suite *s = opt->suite;
	int rc = add_guest_binary(es, opt->target->abis[0], "init", "init");
	for (size_t a = 0; !rc && a < n_abis; a++) {
		char *dest = xasprintf("bench/%s/probe", abis[a]);
		rc = add_guest_binary(es, abis[a], "probe", dest);
		free(dest);
		for (size_t t = 0; !rc && t < s->n_tests; t++) {
			dest = xasprintf("bench/%s/%s", abis[a], s->tests[t]);
			rc = add_guest_binary(es, abis[a], s->tests[t], dest);
			free(dest);
		}
	}
	if (rc)
		return rc;
	add_entry(es, "bench/data/file", S_IFREG | 0644, data_file(), DATA_FILE_SIZE, NULL);
	*plan = plan_text(s, abis, n_abis);
	add_entry(es, "etc/bootrig/plan", S_IFREG | 0644, xstrdup(*plan), strlen(*plan), NULL);
	struct entry *console = add_entry(es, "dev/console", S_IFCHR | 0600, NULL, 0, NULL);
	console->rdev_major = 5;
	console->rdev_minor = 1;
	for (size_t i = 0; !rc && i < opt->n_extra_files; i++) {
		const char *spec = opt->extra_files[i];
		const char *colon = strrchr(spec, ':');
		if (!colon || colon == spec || !colon[1]) {
			error("--add '%s': expected SRC:DEST", spec);
			return EXIT_USAGE;
		}
		char *src = strndup(spec, (size_t)(colon - spec));
		rc = add_host_file(es, src, colon + 1);
		free(src);
	}
	return rc;
}

/* ---- writing ----------------------------------------------------------- */

/* $SOURCE_DATE_EPOCH, or 0. */
static uint32_t source_date_epoch(void)
{
	const char *s = getenv("SOURCE_DATE_EPOCH");
	if (!s || !*s)
		return 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end || v > UINT32_MAX) {
		warning("SOURCE_DATE_EPOCH='%s' is not a time; using 0", s);
		return 0;
	}
	return (uint32_t)v;
}

/* Sizes the writer's buffer for the whole archive: one allocation. */
static void reserve_archive(struct cpio_writer *w, const struct entries *es)
{
	size_t total = 1024;   /* the trailer and the 512-byte padding */
	for (size_t i = 0; i < es->n; i++)
		total += 110 + strlen(es->v[i].name) + 4 + es->v[i].len + 3;
	strbuf_grow(&w->out, total);
}

/*
 * Reads the host file of e into dst (e->len bytes): a file that is not
 * that long any more is an error, and one whose stamp moved is no longer
 * settled (its bytes may not be the ones the stamp names). 0 or 65.
 */
static int read_source(struct entry *e, char *dst)
{
	int fd = open(e->source, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return error("%s: %s", e->source, strerror(errno)), EXIT_DATAERR;
	size_t got = 0;
	ssize_t n = 1;
	while (got < e->len && n > 0) {
		n = read(fd, dst + got, e->len - got);
		if (n < 0 && errno == EINTR)
			n = 1;
		else if (n > 0)
			got += (size_t)n;
	}
	int saved_errno = errno;
	struct stat st;
	int rc = EXIT_DATAERR;
	if (n < 0)
		error("%s: %s", e->source, strerror(saved_errno));
	else if (got < e->len || fstat(fd, &st) < 0 || st.st_size != (off_t)e->len)
		error("%s: changed while bootrig read it; build again", e->source);
	else
		rc = 0;
	close(fd);
	if (!rc) {
		char *now = stat_stamp(&st);
		e->settled &= !strcmp(now, e->stamp) && !stat_changed_lately(&st);
		free(now);
	}
	return rc;
}

/* The uncompressed archive of the sorted entries, host files read straight
 * into it; fills the sha256 of every regular file. 0 or 65. */
static int make_archive(struct entries *es, struct strbuf *archive)
{
	struct cpio_writer w;
	cpio_writer_init(&w, source_date_epoch());
	reserve_archive(&w, es);
	int rc = 0;
	for (size_t i = 0; !rc && i < es->n; i++) {
		struct entry *e = &es->v[i];
		char *space = cpio_add_space(&w, e->name, e->mode, e->len, e->rdev_major,
					     e->rdev_minor);
		if (e->data)
			memcpy(space, e->data, e->len);
		else if (e->source && !(rc = read_source(e, space)))
			sha256_hex(space, e->len, e->sha256);
	}
	cpio_finish(&w);
	*archive = w.out;
	return rc;
}

/* ---- the image cache --------------------------------------------------- */

/*
 * The gzip'd archive of a suite changes when the guest binaries do, not
 * with each kernel, and making it (reading ~400 KB, hashing it for the
 * manifest, deflating) is most of a build. So it is kept in
 * bootrig_cache_dir()/initramfs/<key>, where the key is the sha256 of
 * everything the archive is made of: each entry's name, mode, device and
 * size, and its bytes' sha256, or for a host file its stat stamp (util.h):
 * a hit reads none of the guest binaries. The key also names libdeflate's
 * version and level, so a hit gives the bytes a fresh build would. A host
 * file changed lately keys nothing: that build neither reads nor writes
 * the cache.
 *
 * A record is text, then the gzip:
 *   bootrig-initramfs-cache 1 <key> <sha256 of all that follows this line>
 *   <sha256 of each regular file, in entry order, a line each>
 *   gzip <size> <sha256 of the gzip>
 *   <the gzip member>
 * It is used only when all of it checks: a damaged record, or one under
 * another key's name, is made again. A hit touches its record; a store
 * removes the least recently used beyond CACHE_RECORDS_KEPT (each is
 * ~85 KB: a developer rebuilding the guest all day fills no disk).
 */

/* Can the entries key the cache: is every host file's stamp settled? */
static bool entries_settled(const struct entries *es)
{
	for (size_t i = 0; i < es->n; i++)
		if (es->v[i].source && !es->v[i].settled)
			return false;
	return true;
}

/* The cache key of the sorted entries. */
static void cache_key(const struct entries *es, char key[65])
{
	struct strbuf recipe = STRBUF_INIT;
	strbuf_addf(&recipe, "%s libdeflate %s level %d mtime %u\n", CACHE_FORMAT,
		    LIBDEFLATE_VERSION_STRING, GZIP_LEVEL, source_date_epoch());
	for (size_t i = 0; i < es->n; i++) {
		const struct entry *e = &es->v[i];
		strbuf_addf(&recipe, "%zu:%s %o %u:%u %zu %s\n", strlen(e->name), e->name,
			    e->mode, e->rdev_major, e->rdev_minor, e->len,
			    e->source ? e->stamp : e->sha256);
	}
	sha256_hex(recipe.buf, recipe.len, key);
	strbuf_release(&recipe);
}

static char *cache_dir(void)
{
	return xasprintf("%s/initramfs", bootrig_cache_dir());
}

static char *cache_record_path(const char *key)
{
	return xasprintf("%s/initramfs/%s", bootrig_cache_dir(), key);
}

struct aged_record {
	char *path;
	struct timespec used;
};

static int compare_newest_first(const void *a, const void *b)
{
	const struct timespec *x = &((const struct aged_record *)a)->used;
	const struct timespec *y = &((const struct aged_record *)b)->used;
	if (x->tv_sec != y->tv_sec)
		return x->tv_sec < y->tv_sec ? 1 : -1;
	return (x->tv_nsec < y->tv_nsec) - (x->tv_nsec > y->tv_nsec);
}

/* Removes the records beyond the CACHE_RECORDS_KEPT last used (their
 * mtime), leaving other processes' temporary files alone. */
static void cache_prune(void)
{
	char *dir = cache_dir();
	DIR *d = opendir(dir);
	struct aged_record *v = NULL;
	size_t n = 0;
	for (struct dirent *de; d && (de = readdir(d));) {
		struct stat st;
		char *path = xasprintf("%s/%s", dir, de->d_name);
		if (strlen(de->d_name) == 64 && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			v = xrealloc(v, (n + 1) * sizeof(*v));
			v[n++] = (struct aged_record){ path, st.st_mtim };
		} else {
			free(path);
		}
	}
	if (d)
		closedir(d);
	qsort(v, n, sizeof(*v), compare_newest_first);
	for (size_t i = 0; i < n; i++) {
		if (i >= CACHE_RECORDS_KEPT)
			unlink(v[i].path);
		free(v[i].path);
	}
	free(v);
	free(dir);
}

/* Is p the 64 lower-case hex digits of a sha256 and then c? */
static bool sha256_then(const char *p, const char *end, char c)
{
	return end - p >= 65 && strspn(p, "0123456789abcdef") == 64 && p[64] == c;
}

/* The record's body (after its first line) if that line is
 * "CACHE_FORMAT key sha256" and the sha256 is the body's; else NULL. */
static const char *checked_body(const char *rec, const char *end, const char *key)
{
	size_t head = sizeof(CACHE_FORMAT);   /* the format and a space */
	if ((size_t)(end - rec) < head + 65 + 65 || memcmp(rec, CACHE_FORMAT " ", head) ||
	    memcmp(rec + head, key, 64) || rec[head + 64] != ' ' ||
	    !sha256_then(rec + head + 65, end, '\n'))
		return NULL;
	const char *body = rec + head + 65 + 65;
	char sha[65];
	sha256_hex(body, (size_t)(end - body), sha);
	return memcmp(sha, rec + head + 65, 64) ? NULL : body;
}

/*
 * The record under key, checked whole: on a hit, appends the gzip to
 * image, fills each regular entry's sha256 and gz_sha, and returns true.
 */
static bool cache_lookup(const char *key, struct entries *es, struct strbuf *image,
			 char gz_sha[65])
{
	char *path = cache_record_path(key), *rec;
	size_t len;
	int found = read_file(path, &rec, &len);
	if (found == 0)
		utimensat(AT_FDCWD, path, NULL, 0);   /* used now: pruned last */
	free(path);
	if (found < 0)
		return false;
	const char *end = rec + len, *shas = checked_body(rec, end, key), *p = shas;
	bool ok = p != NULL;
	for (size_t i = 0; ok && i < es->n; i++) {
		if (!S_ISREG(es->v[i].mode))
			continue;
		ok = sha256_then(p, end, '\n');
		p += 65;
	}
	size_t gz_len = 0;
	int used = 0;
	ok = ok && sscanf(p, "gzip %zu %64[0-9a-f]\n%n", &gz_len, gz_sha, &used) == 2 && used &&
	     strlen(gz_sha) == 64 && (size_t)(end - p - used) == gz_len;
	if (ok) {
		strbuf_add(image, p + used, gz_len);
		for (size_t i = 0; i < es->n; i++) {
			if (!S_ISREG(es->v[i].mode))
				continue;
			memcpy(es->v[i].sha256, shas, 64);
			es->v[i].sha256[64] = '\0';
			shas += 65;
		}
	}
	free(rec);
	return ok;
}

/* Keeps gz (with the entries' sha256) under key; failures are ignored. */
static void cache_store(const char *key, const struct entries *es, const char *gz,
			size_t gz_len, const char *gz_sha)
{
	struct strbuf body = STRBUF_INIT, rec = STRBUF_INIT;
	for (size_t i = 0; i < es->n; i++)
		if (S_ISREG(es->v[i].mode))
			strbuf_addf(&body, "%s\n", es->v[i].sha256);
	strbuf_addf(&body, "gzip %zu %s\n", gz_len, gz_sha);
	strbuf_add(&body, gz, gz_len);
	char sha[65];
	sha256_hex(body.buf, body.len, sha);
	strbuf_addf(&rec, "%s %s %s\n", CACHE_FORMAT, key, sha);
	strbuf_add(&rec, body.buf, body.len);
	char *path = cache_record_path(key);
	write_cache_file(path, rec.buf, rec.len);
	free(path);
	strbuf_release(&body);
	strbuf_release(&rec);
}

/* Appends the gzip'd archive of es to image, from the cache or made (and
 * then kept); gz_sha: its sha256, *cache: what the cache did. 0 or 65. */
static int append_gzip(struct entries *es, struct strbuf *image, char gz_sha[65],
		       enum image_cache *cache)
{
	char key[65];
	bool keyed = entries_settled(es);
	if (keyed)
		cache_key(es, key);
	*cache = IMAGE_CACHE_HIT;
	if (keyed && cache_lookup(key, es, image, gz_sha))
		return 0;
	struct strbuf archive;
	int rc = make_archive(es, &archive);
	*cache = IMAGE_CACHE_UNSETTLED;
	if (!rc) {
		size_t start = image->len;
		gzip_compress(archive.buf, archive.len, GZIP_LEVEL, image);
		sha256_hex(image->buf + start, image->len - start, gz_sha);
		/* read_source() unsettles a file that changed while it was read */
		if (keyed && entries_settled(es)) {
			cache_store(key, es, image->buf + start, image->len - start, gz_sha);
			cache_prune();
			*cache = IMAGE_CACHE_MADE;
		}
	}
	strbuf_release(&archive);
	return rc;
}

/* The image bytes: prefix (append_to) + our archive, gzip'd or not;
 * image_sha: their sha256. */
static int render(const struct build_options *opt, struct entries *es, struct strbuf *image,
		  char image_sha[65], enum image_cache *cache)
{
	if (opt->append_to) {
		char *prefix;
		size_t len;
		if (read_file(opt->append_to, &prefix, &len) < 0)
			return error("%s: %s", opt->append_to, strerror(errno)), EXIT_DATAERR;
		char err[256];
		if (cpio_walk((unsigned char *)prefix, len, LIST_MAX_INFLATED, NULL, NULL, err,
			      sizeof(err)) < 0) {
			free(prefix);
			return error("%s: not an initramfs: %s", opt->append_to, err), EXIT_DATAERR;
		}
		strbuf_add(image, prefix, len);
		free(prefix);
		static const char zeros[4];
		if (image->len % 4)   /* the kernel reads a newc header only on 4 bytes */
			strbuf_add(image, zeros, 4 - image->len % 4);
	}
	size_t start = image->len;
	int rc;
	*cache = IMAGE_CACHE_OFF;
	if (opt->compress) {
		rc = append_gzip(es, image, image_sha, cache);
	} else {
		struct strbuf archive;
		rc = make_archive(es, &archive);
		strbuf_add(image, archive.buf, archive.len);
		strbuf_release(&archive);
	}
	/* the gzip's sha256 is the image's when nothing came before it */
	if (!rc && (start || !opt->compress))
		sha256_hex(image->buf, image->len, image_sha);
	return rc;
}

/* A JSON array of the n strings. */
static json_object *json_strings(char **v, size_t n)
{
	json_object *a = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_cstring_utf8(v[i]));
	return a;
}

/* The manifest's "kernel" object. */
static json_object *manifest_kernel(const struct kernel *k)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "path", json_cstring_utf8(k->input));
	json_object_object_add(o, "image", json_cstring_utf8(k->image));
	json_object_object_add(o, "id", json_cstring_utf8(k->id));
	json_object_object_add(o, "arch", json_cstring_utf8(kernel_arch_name(k->arch)));
	json_object_object_add(o, "version", k->version ? json_cstring_utf8(k->version) : NULL);
	json_object_object_add(o, "sha256", json_cstring_utf8(k->sha256));
	json_object_object_add(o, "size", kernel_size_json(&k->size));
	return o;
}

/* The manifest's "files": name, mode, size, and sha256 of regular files. */
static json_object *manifest_files(const struct entries *es)
{
	json_object *files = json_object_new_array();
	for (size_t i = 0; i < es->n; i++) {
		const struct entry *e = &es->v[i];
		json_object *f = json_object_new_object();
		char *name = xasprintf("/%s", e->name);
		char mode[16];
		snprintf(mode, sizeof(mode), "%06o", e->mode);
		json_object_object_add(f, "name", json_cstring_utf8(name));
		json_object_object_add(f, "mode", json_cstring_utf8(mode));
		json_object_object_add(f, "size", json_object_new_int64((int64_t)e->len));
		if (S_ISREG(e->mode))
			json_object_object_add(f, "sha256", json_cstring_utf8(e->sha256));
		if (e->source)
			json_object_object_add(f, "source", json_cstring_utf8(e->source));
		json_object_array_add(files, f);
		free(name);
	}
	return files;
}

/* IMAGE.json: what is in the image and what it was made from. */
static int write_manifest(const struct build_options *opt, const char *output,
			  const struct strbuf *image, const char *sha, const struct entries *es,
			  char **abis, size_t n_abis, const char *plan)
{
	const struct suite *s = opt->suite;
	json_object *m = json_object_new_object();
	json_object_object_add(m, "format", json_cstring_utf8("bootrig-initramfs-1"));
	json_object_object_add(m, "bootrig_version", json_cstring_utf8(BOOTRIG_VERSION));
	json_object_object_add(m, "image", json_cstring_utf8(output));
	json_object_object_add(m, "size", json_object_new_int64((int64_t)image->len));
	json_object_object_add(m, "sha256", json_cstring_utf8(sha));
	json_object_object_add(m, "compression", json_cstring_utf8(opt->compress ? "gzip" : "none"));
	json_object_object_add(m, "source_date_epoch", json_object_new_int64(source_date_epoch()));
	json_object_object_add(m, "append_to", opt->append_to ? json_cstring_utf8(opt->append_to) : NULL);
	json_object_object_add(m, "kernel", manifest_kernel(opt->kernel));
	json_object_object_add(m, "target", json_cstring_utf8(opt->target->name));
	json_object_object_add(m, "abis", json_strings(abis, n_abis));
	json_object_object_add(m, "suite", json_cstring_utf8(s->name));
	json_object *p = json_object_new_object();
	json_object_object_add(p, "suite", json_cstring_utf8(s->name));
	json_object_object_add(p, "tests", json_strings(s->tests, s->n_tests));
	json_object_object_add(p, "abis", json_strings(abis, n_abis));
	json_object_object_add(p, "samples", json_object_new_int(s->samples));
	json_object_object_add(p, "min_samples", json_object_new_int(s->min_samples));
	json_object_object_add(p, "ci_target", json_object_new_double(s->ci_target));
	json_object_object_add(p, "repeat", json_object_new_int(s->repeat));
	json_object_object_add(p, "test_timeout", json_object_new_double(s->test_timeout));
	json_object_object_add(p, "text", json_cstring_utf8(plan));
	json_object_object_add(m, "plan", p);
	json_object_object_add(m, "files", manifest_files(es));
	struct strbuf whole = STRBUF_INIT;
	strbuf_add_json(&whole, m, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	strbuf_add(&whole, "\n", 1);
	char *path = xasprintf("%s.json", output);
	int rc = write_file_atomic_nosync(path, whole.buf, whole.len) < 0 ? EXIT_INFRA : 0;
	strbuf_release(&whole);
	free(path);
	json_object_put(m);
	return rc;
}

int build_initramfs(const struct build_options *opt, const char *output)
{
	char **abis;
	size_t n_abis;
	int rc = chosen_abis(opt, &abis, &n_abis);
	if (rc)
		return rc;
	struct entries es = { NULL, 0 };
	char *plan = NULL;
	struct strbuf image = STRBUF_INIT;
	char sha[65] = "";
	rc = gather(opt, abis, n_abis, &es, &plan);
	if (!rc) {
		qsort(es.v, es.n, sizeof(*es.v), compare_entries);
		enum image_cache cache = IMAGE_CACHE_OFF;
		rc = render(opt, &es, &image, sha, &cache);
		if (opt->cache_outcome)
			*opt->cache_outcome = cache;
	}
	/* The image can always be built again: no fsync (a millisecond). */
	if (!rc && write_file_atomic_nosync(output, image.buf, image.len) < 0)
		rc = EXIT_INFRA;
	if (!rc && opt->write_manifest)
		rc = write_manifest(opt, output, &image, sha, &es, abis, n_abis, plan);
	strbuf_release(&image);
	release_entries(&es);
	free(plan);
	return rc;
}

/* ---- --list ------------------------------------------------------------ */

/* "drwxr-xr-x" from a mode. */
static void mode_string(uint32_t mode, char out[11])
{
	char type = '?';
	switch (mode & S_IFMT) {
	case S_IFREG: type = '-'; break;
	case S_IFDIR: type = 'd'; break;
	case S_IFLNK: type = 'l'; break;
	case S_IFCHR: type = 'c'; break;
	case S_IFBLK: type = 'b'; break;
	case S_IFIFO: type = 'p'; break;
	case S_IFSOCK: type = 's'; break;
	}
	out[0] = type;
	const char *rwx = "rwxrwxrwx";
	for (int i = 0; i < 9; i++)
		out[1 + i] = (mode & (1u << (8 - i))) ? rwx[i] : '-';
	out[10] = '\0';
}

/* One --list line to the FILE ctx: mode, size (or major,minor), /name. */
static void list_entry(const struct cpio_entry *e, void *ctx)
{
	char mode[11];
	mode_string(e->mode, mode);
	const char *name = e->name;
	while (name[0] == '.' && name[1] == '/')
		name += 2;
	if (S_ISCHR(e->mode) || S_ISBLK(e->mode))
		fprintf(ctx, "%s %4u,%-4u /%s\n", mode, e->rdev_major, e->rdev_minor,
			strcmp(name, ".") ? term_str(name) : "");
	else
		fprintf(ctx, "%s %9zu /%s\n", mode, e->size,
			strcmp(name, ".") ? term_str(*name == '/' ? name + 1 : name) : "");
}

int build_list(const char *image, FILE *out)
{
	char *data;
	size_t len;
	if (read_file(image, &data, &len) < 0)
		return error("%s: %s", image, strerror(errno)), EXIT_DATAERR;
	char err[256];
	long n = cpio_walk((unsigned char *)data, len, LIST_MAX_INFLATED, list_entry, out, err,
			   sizeof(err));
	free(data);
	if (n < 0)
		return error("%s: not a valid initramfs: %s", image, err), EXIT_DATAERR;
	return 0;
}
