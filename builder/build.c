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
#include "util.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define DATA_FILE_SIZE 4096
/* zlib level 6 measured best here: 1% bigger than 9, half its time */
#define GZIP_LEVEL 6
#define LIST_MAX_INFLATED ((size_t)1 << 30)

struct entry {
	char *name;            /* without the leading '/' */
	uint32_t mode;         /* with the type bits */
	char *data;
	size_t len;
	uint32_t rdev_major, rdev_minor;
	char *source;          /* where it came from, for the manifest */
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
	return e;
}

/* Frees every entry and the list. */
static void release_entries(struct entries *es)
{
	for (size_t i = 0; i < es->n; i++) {
		free(es->v[i].name);
		free(es->v[i].data);
		free(es->v[i].source);
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
 * optional). Executable on the host: 0755, else 0644. 0 or 65.
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
	char *data;
	size_t len;
	if (read_file(src, &data, &len) < 0)
		return error("%s: %s", src, strerror(errno)), EXIT_DATAERR;
	uint32_t perm = (st.st_mode & S_IXUSR) ? 0755 : 0644;
	add_entry(es, dest, S_IFREG | perm, data, len, xstrdup(src));
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
	strbuf_addf(&sb, "\nsamples=%d\nrepeat=%d\ntest_timeout=%ld\n", s->samples, s->repeat,
		    timeout);
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

/* A number no other thread of this process gets: temporary names of cache
 * entries are "<path>.tmp.<pid>.<n>", since run -j builds in threads. */
static unsigned tmp_serial(void)
{
	static unsigned serial;
	return __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED);
}

/* Does the gzip member gz end with the CRC-32 and size of data? */
static bool gzip_trailer_matches(const char *gz, size_t gz_len, const char *data, size_t len)
{
	const unsigned char *t = (const unsigned char *)gz + gz_len - 8;
	uint32_t crc = (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 |
		       (uint32_t)t[3] << 24;
	uint32_t size = (uint32_t)t[4] | (uint32_t)t[5] << 8 | (uint32_t)t[6] << 16 |
			(uint32_t)t[7] << 24;
	return (unsigned char)gz[0] == 0x1f && (unsigned char)gz[1] == 0x8b &&
	       size == (uint32_t)len &&
	       crc == (uint32_t)crc32(crc32(0L, Z_NULL, 0), (const Bytef *)data, (uInt)len);
}

/*
 * Appends the gzip of the archive to image. The result depends only on
 * the archive's bytes (the gzip is deterministic), so it is kept in
 * bootrig_cache_dir()/initramfs/<sha256 of the archive>.gz: the archive of
 * a suite changes when the guest binaries do, not with each kernel, and
 * level 9 costs more than everything else of a build. A missing or short
 * entry is recompressed; cache write failures are ignored.
 */
static void gzip_cached(const char *cpio, size_t len, struct strbuf *image)
{
	char key[65];
	sha256_hex(cpio, len, key);
	char *dir = xasprintf("%s/initramfs", bootrig_cache_dir());
	char *path = xasprintf("%s/%s-%d.gz", dir, key, GZIP_LEVEL);
	char *cached;
	size_t cached_len;
	if (read_file(path, &cached, &cached_len) == 0) {
		/* trust it only if whole: its trailer has the archive's CRC-32 and size */
		if (cached_len > 18 && gzip_trailer_matches(cached, cached_len, cpio, len)) {
			strbuf_add(image, cached, cached_len);
			free(cached);
			free(path);
			free(dir);
			return;
		}
		free(cached);
	}
	size_t start = image->len;
	gzip_compress(cpio, len, GZIP_LEVEL, image);
	if (mkdir_p(dir, 0755) == 0) {
		char *tmp = xasprintf("%s.tmp.%ld.%u", path, (long)getpid(), tmp_serial());
		FILE *f = fopen(tmp, "wb");
		bool ok = f && fwrite(image->buf + start, 1, image->len - start, f) == image->len - start;
		if (f && fclose(f) != 0)
			ok = false;
		if (!ok || rename(tmp, path) < 0)
			unlink(tmp);
		free(tmp);
	}
	free(path);
	free(dir);
}

/* The image bytes: prefix (append_to) + our archive, gzip'd or not. */
static int render(const struct build_options *opt, const struct entries *es,
		  struct strbuf *image)
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
	struct cpio_writer w;
	cpio_writer_init(&w, source_date_epoch());
	for (size_t i = 0; i < es->n; i++) {
		const struct entry *e = &es->v[i];
		cpio_add(&w, e->name, e->mode, e->data, e->len, e->rdev_major, e->rdev_minor);
	}
	cpio_finish(&w);
	if (opt->compress)
		gzip_cached(w.out.buf, w.out.len, image);
	else
		strbuf_add(image, w.out.buf, w.out.len);
	strbuf_release(&w.out);
	return 0;
}

/* A JSON array of the n strings. */
static json_object *json_strings(char **v, size_t n)
{
	json_object *a = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

/* The manifest's "kernel" object. */
static json_object *manifest_kernel(const struct kernel *k)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "path", json_object_new_string(k->input));
	json_object_object_add(o, "image", json_object_new_string(k->image));
	json_object_object_add(o, "id", json_object_new_string(k->id));
	json_object_object_add(o, "arch", json_object_new_string(kernel_arch_name(k->arch)));
	json_object_object_add(o, "version", k->version ? json_object_new_string(k->version) : NULL);
	json_object_object_add(o, "sha256", json_object_new_string(k->sha256));
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
		json_object_object_add(f, "name", json_object_new_string(name));
		json_object_object_add(f, "mode", json_object_new_string(mode));
		json_object_object_add(f, "size", json_object_new_int64((int64_t)e->len));
		if (S_ISREG(e->mode)) {
			char sha[65];
			sha256_hex(e->data, e->len, sha);
			json_object_object_add(f, "sha256", json_object_new_string(sha));
		}
		if (e->source)
			json_object_object_add(f, "source", json_object_new_string(e->source));
		json_object_array_add(files, f);
		free(name);
	}
	return files;
}

/* IMAGE.json: what is in the image and what it was made from. */
static int write_manifest(const struct build_options *opt, const char *output,
			  const struct strbuf *image, const struct entries *es, char **abis,
			  size_t n_abis, const char *plan)
{
	const struct suite *s = opt->suite;
	json_object *m = json_object_new_object();
	char sha[65];
	sha256_hex(image->buf, image->len, sha);
	json_object_object_add(m, "format", json_object_new_string("bootrig-initramfs-1"));
	json_object_object_add(m, "bootrig_version", json_object_new_string(BOOTRIG_VERSION));
	json_object_object_add(m, "image", json_object_new_string(output));
	json_object_object_add(m, "size", json_object_new_int64((int64_t)image->len));
	json_object_object_add(m, "sha256", json_object_new_string(sha));
	json_object_object_add(m, "compression", json_object_new_string(opt->compress ? "gzip" : "none"));
	json_object_object_add(m, "source_date_epoch", json_object_new_int64(source_date_epoch()));
	json_object_object_add(m, "append_to", opt->append_to ? json_object_new_string(opt->append_to) : NULL);
	json_object_object_add(m, "kernel", manifest_kernel(opt->kernel));
	json_object_object_add(m, "target", json_object_new_string(opt->target->name));
	json_object_object_add(m, "abis", json_strings(abis, n_abis));
	json_object_object_add(m, "suite", json_object_new_string(s->name));
	json_object *p = json_object_new_object();
	json_object_object_add(p, "suite", json_object_new_string(s->name));
	json_object_object_add(p, "tests", json_strings(s->tests, s->n_tests));
	json_object_object_add(p, "abis", json_strings(abis, n_abis));
	json_object_object_add(p, "samples", json_object_new_int(s->samples));
	json_object_object_add(p, "repeat", json_object_new_int(s->repeat));
	json_object_object_add(p, "test_timeout", json_object_new_double(s->test_timeout));
	json_object_object_add(p, "text", json_object_new_string(plan));
	json_object_object_add(m, "plan", p);
	json_object_object_add(m, "files", manifest_files(es));
	const char *text = json_object_to_json_string_ext(m, JSON_C_TO_STRING_PRETTY |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
	char *path = xasprintf("%s.json", output);
	char *whole = xasprintf("%s\n", text);
	int rc = write_file_atomic_nosync(path, whole, strlen(whole)) < 0 ? EXIT_INFRA : 0;
	free(whole);
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
	rc = gather(opt, abis, n_abis, &es, &plan);
	if (!rc) {
		qsort(es.v, es.n, sizeof(*es.v), compare_entries);
		rc = render(opt, &es, &image);
	}
	/* The image can always be built again: no fsync (a millisecond). */
	if (!rc && write_file_atomic_nosync(output, image.buf, image.len) < 0)
		rc = EXIT_INFRA;
	if (!rc && opt->write_manifest)
		rc = write_manifest(opt, output, &image, &es, abis, n_abis, plan);
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
			strcmp(name, ".") ? name : "");
	else
		fprintf(ctx, "%s %9zu /%s\n", mode, e->size,
			strcmp(name, ".") ? (*name == '/' ? name + 1 : name) : "");
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
