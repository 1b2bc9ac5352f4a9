/*
 * kernel.c: identifying a KERNEL argument (see kernel.h).
 *
 * The file is divided as:
 *   - image headers: arm64 Image, arm zImage, x86 bzImage, maybe gzip'd;
 *     the version from the bzImage header or the "Linux version " banner;
 *   - Debian packages: `dpkg-deb --fsys-tarfile` (spawned with an argv)
 *     streams the data tar; we read ./boot/vmlinuz-* out of it with a small
 *     tar reader and keep it in bootrig_cache_dir()/kernels/<deb sha256>/;
 *   - build trees: arch/{arm64,arm,x86}/boot/{Image,zImage,bzImage};
 *   - kernel_open(), which ties them together.
 */
#include "kernel.h"
#include "kernel-internal.h"
#include "exitcodes.h"
#include "sha256.h"
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <lzma.h>
#include <zlib.h>

#define ARM64_MAGIC 0x644d5241u          /* "ARM\x64" at 0x38 */
#define ZIMAGE_MAGIC 0x016f2818u         /* at 0x24 */
#define MAX_INFLATED (512u << 20)        /* a gzip'd kernel bigger than this is refused */

const char *kernel_arch_name(enum kernel_arch a)
{
	switch (a) {
	case KARCH_ARM64: return "arm64";
	case KARCH_X86_64: return "x86_64";
	case KARCH_ARM: return "arm";
	default: return "unknown";
	}
}

/* A little-endian 32-bit value at p. */
static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int file_sha256(const char *path, char hex[65]);

/* ---- image headers ---------------------------------------------------- */

/* The arch the header of data says, or KARCH_UNKNOWN. */
static enum kernel_arch header_arch(const unsigned char *data, size_t len)
{
	if (len >= 0x40 && le32(data + 0x38) == ARM64_MAGIC)
		return KARCH_ARM64;
	if (len >= 0x28 && le32(data + 0x24) == ZIMAGE_MAGIC)
		return KARCH_ARM;
	if (len >= 0x210 && !memcmp(data + 0x202, "HdrS", 4))
		return KARCH_X86_64;
	return KARCH_UNKNOWN;
}

/* A copy of the printable text at p (at most max bytes, up to NUL/newline). */
static char *copy_line(const unsigned char *p, size_t max)
{
	size_t n = 0;
	while (n < max && n < 256 && p[n] >= 0x20 && p[n] < 0x7f)
		n++;
	if (!n)
		return NULL;
	char *s = xmalloc(n + 1);
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

/* bzImage: boot protocol 2.12+ says in xloadflags (0x236) bit 0 whether
 * the kernel has a 64-bit entry point; older headers cannot tell (true). */
static bool bzimage_is_64bit(const unsigned char *data, size_t len)
{
	unsigned protocol = (unsigned)(data[0x206] | data[0x207] << 8);
	if (protocol < 0x020c || len < 0x238)
		return true;
	return data[0x236] & 1;
}

/* bzImage: the string at kernel_version (0x20e) + 0x200, bounds-checked. */
static char *bzimage_version(const unsigned char *data, size_t len)
{
	size_t off = (size_t)(data[0x20e] | data[0x20f] << 8);
	if (!off || off + 0x200 >= len)
		return NULL;
	return copy_line(data + off + 0x200, len - off - 0x200);
}

/* The "Linux version X" banner in data: X, or NULL. */
static char *banner_version(const unsigned char *data, size_t len)
{
	static const char banner[] = "Linux version ";
	const size_t blen = sizeof(banner) - 1;
	const unsigned char *p = data, *end = data + len;
	while ((p = memmem(p, (size_t)(end - p), banner, blen))) {
		p += blen;
		/* The real banner has a digit next; format strings ("%s") do not. */
		if (p < end && *p >= '0' && *p <= '9')
			return copy_line(p, (size_t)(end - p));
	}
	return NULL;
}

/* The decoded bytes of kernel_gunzip() and kernel_unxz(), which grow by
 * doubling up to MAX_INFLATED. */
struct decoded {
	unsigned char *buf;
	size_t cap, used;
};

static struct decoded decoded_for(size_t input_len)
{
	size_t cap = input_len * 4 + 4096;
	return (struct decoded){ xmalloc(cap), cap, 0 };
}

/* Room for more: false when the buffer is full at MAX_INFLATED. */
static bool decoded_room(struct decoded *d)
{
	if (d->used < d->cap)
		return true;
	if (d->cap >= MAX_INFLATED)
		return false;
	d->cap *= 2;
	d->buf = xrealloc(d->buf, d->cap);
	return true;
}

/* Hands the bytes to the caller: 0, or -1 (and freed) when there are none. */
static int decoded_take(struct decoded *d, unsigned char **out, size_t *out_len)
{
	if (d->used == 0) {
		free(d->buf);
		return -1;
	}
	*out = d->buf;
	*out_len = d->used;
	return 0;
}

/*
 * Inflates the gzip stream at data into *out (at most MAX_INFLATED bytes;
 * trailing bytes after the stream are ignored). 0, or -1 when it is not
 * a gzip stream at all (a truncated one keeps what was inflated).
 */
int kernel_gunzip(const unsigned char *data, size_t len, unsigned char **out, size_t *out_len)
{
	z_stream z = { 0 };
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return -1;
	struct decoded d = decoded_for(len);
	z.next_in = (unsigned char *)data;
	z.avail_in = len > UINT32_MAX ? UINT32_MAX : (uInt)len;
	int rc = Z_OK;
	while (rc == Z_OK && decoded_room(&d)) {
		z.next_out = d.buf + d.used;
		z.avail_out = (uInt)(d.cap - d.used);
		rc = inflate(&z, Z_NO_FLUSH);
		d.used = d.cap - z.avail_out;
	}
	inflateEnd(&z);
	return decoded_take(&d, out, out_len);
}

/*
 * Decodes the xz stream at data into *out (at most MAX_INFLATED bytes; what
 * follows the stream, like a zImage's size word, is ignored). 0, or -1
 * when nothing decoded.
 */
int kernel_unxz(const unsigned char *data, size_t len, unsigned char **out, size_t *out_len)
{
	lzma_stream z = LZMA_STREAM_INIT;
	if (lzma_stream_decoder(&z, MAX_INFLATED, 0) != LZMA_OK)
		return -1;
	struct decoded d = decoded_for(len);
	z.next_in = data;
	z.avail_in = len;
	lzma_ret rc = LZMA_OK;
	while (rc == LZMA_OK && decoded_room(&d)) {
		z.next_out = d.buf + d.used;
		z.avail_out = d.cap - d.used;
		rc = lzma_code(&z, LZMA_FINISH);
		d.used = d.cap - z.avail_out;
	}
	lzma_end(&z);
	return decoded_take(&d, out, out_len);
}

/* The banner inside the payload at data[0..len) compressed by fn, if any. */
static char *payload_version(const unsigned char *data, size_t len,
			     int (*fn)(const unsigned char *, size_t, unsigned char **, size_t *))
{
	unsigned char *raw;
	size_t raw_len;
	if (fn(data, len, &raw, &raw_len) < 0)
		return NULL;
	char *v = banner_version(raw, raw_len);
	free(raw);
	return v;
}

/* The version in a zImage: the banner inside its gzip'd or xz'd payload. */
static char *zimage_version(const unsigned char *data, size_t len)
{
	static const unsigned char xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0x00 };
	static const unsigned char gz[] = { 0x1f, 0x8b, 0x08 };
	const unsigned char *p = data, *end = data + len;
	while ((p = memmem(p, (size_t)(end - p), xz, sizeof(xz)))) {
		char *v = payload_version(p, (size_t)(end - p), kernel_unxz);
		if (v)
			return v;
		p++;
	}
	p = data;
	while ((p = memmem(p, (size_t)(end - p), gz, sizeof(gz)))) {
		unsigned char *raw;
		size_t raw_len;
		if (kernel_gunzip(p, (size_t)(end - p), &raw, &raw_len) == 0) {
			char *v = banner_version(raw, raw_len);
			free(raw);
			if (v)
				return v;
		}
		p++;
	}
	return banner_version(data, len);
}

/*
 * Identifies the image bytes: sets k->arch and k->version. A gzip'd image
 * is inflated first. 0, or 65 with the error printed.
 */
static int identify_image(const char *path, const unsigned char *data, size_t len,
			  struct kernel *k)
{
	unsigned char *raw = NULL;
	size_t raw_len = 0;
	if (len >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
		if (kernel_gunzip(data, len, &raw, &raw_len) < 0) {
			error("%s: a corrupt gzip stream, not a kernel image", path);
			return EXIT_DATAERR;
		}
		data = raw;
		len = raw_len;
	}
	k->arch = header_arch(data, len);
	if (k->arch == KARCH_X86_64 && !bzimage_is_64bit(data, len)) {
		free(raw);
		error("%s: a 32-bit x86 kernel (its bzImage header has no XLF_KERNEL_64); "
		      "bootrig boots x86_64 kernels", path);
		return EXIT_DATAERR;
	}
	if (k->arch == KARCH_X86_64)
		k->version = bzimage_version(data, len);
	else if (k->arch == KARCH_ARM)
		k->version = zimage_version(data, len);
	else if (k->arch == KARCH_ARM64)
		k->version = banner_version(data, len);
	/* EFI zboot (CONFIG_EFI_ZBOOT): QEMU's -kernel and U-Boot's booti take
	 * the Image inside, not this EFI wrapper */
	bool zboot = len >= 32 && !memcmp(data, "MZ", 2) && !memcmp(data + 4, "zimg", 4);
	free(raw);
	if (k->arch == KARCH_UNKNOWN && zboot) {
		error("%s: an EFI zboot image, which bootrig cannot boot: give the build "
		      "tree's arch/arm64/boot/Image", path);
		return EXIT_DATAERR;
	}
	if (k->arch == KARCH_UNKNOWN) {
		error("%s: not a kernel image (no arm64 Image, arm zImage or x86 bzImage header%s)",
		      path, len == 0 ? "; the file is empty" : "");
		return EXIT_DATAERR;
	}
	return 0;
}

/* ---- Debian packages -------------------------------------------------- */

/* Reads exactly n bytes from fd; 0, or -1 at end of file or error. */
static int read_full(int fd, void *buf, size_t n)
{
	char *p = buf;
	while (n) {
		ssize_t r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* A tar header's octal number field. */
static unsigned long long tar_octal(const char *field, size_t n)
{
	unsigned long long v = 0;
	for (size_t i = 0; i < n && field[i] >= '0' && field[i] <= '7'; i++)
		v = v * 8 + (unsigned)(field[i] - '0');
	return v;
}

/* Reads and drops n bytes of fd. 0 or -1. */
static int skip_bytes(int fd, unsigned long long n)
{
	char buf[65536];
	while (n) {
		size_t take = n < sizeof(buf) ? (size_t)n : sizeof(buf);
		if (read_full(fd, buf, take) < 0)
			return -1;
		n -= take;
	}
	return 0;
}

/*
 * Streams a tar from fd and writes the first regular file named
 * ./boot/vmlinuz-* (or boot/vmlinuz-*) to dest; its base name goes to
 * *name. GNU long names ('L') are followed; pax headers are skipped.
 * 0 found, 1 not in the archive, -1 a read or write error.
 */
static int tar_extract_vmlinuz(int fd, const char *dest, char **name)
{
	char hdr[512];
	char *long_name = NULL;
	while (read_full(fd, hdr, sizeof(hdr)) == 0) {
		if (!hdr[0])
			break;   /* end-of-archive block */
		unsigned long long size = tar_octal(hdr + 124, 12);
		unsigned long long padded = (size + 511) & ~511ull;
		char type = hdr[156];
		char short_name[101];
		memcpy(short_name, hdr, 100);
		short_name[100] = '\0';
		const char *entry = long_name ? long_name : short_name;
		if (type == 'L') {
			free(long_name);
			long_name = size < 4096 ? xcalloc(1, padded + 1) : NULL;
			if (!long_name || read_full(fd, long_name, padded) < 0)
				return free(long_name), -1;
			continue;
		}
		const char *base = entry + (!strncmp(entry, "./", 2) ? 2 : 0);
		if ((type == '0' || type == '\0') && !strncmp(base, "boot/vmlinuz-", 13)) {
			*name = xstrdup(base + 5);
			free(long_name);
			int out = open(dest, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
			if (out < 0)
				return -1;
			char buf[65536];
			int rc = 0;
			for (unsigned long long left = size; left && !rc;) {
				size_t take = left < sizeof(buf) ? (size_t)left : sizeof(buf);
				rc = read_full(fd, buf, take) < 0 || write(out, buf, take) != (ssize_t)take;
				left -= take;
			}
			if (close(out) < 0)
				rc = -1;
			return rc ? -1 : 0;
		}
		free(long_name);
		long_name = NULL;
		if (skip_bytes(fd, padded) < 0)
			break;
	}
	free(long_name);
	return 1;
}

/*
 * Takes the vmlinuz out of deb into cache_dir/vmlinuz (and its name into
 * cache_dir/name) by streaming `dpkg-deb --fsys-tarfile deb`. 0 or 65.
 */
static int extract_from_deb(const char *deb, const char *cache_dir)
{
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return error("%s: cannot make a pipe: %s", deb, strerror(errno)), EXIT_INFRA;
	char *argv[] = { "dpkg-deb", "--fsys-tarfile", (char *)deb, NULL };
	struct spawn sp = SPAWN_INIT(argv);
	sp.fd[1] = pipefd[1];
	sp.fd[2] = SPAWN_DEVNULL;
	int started = spawn_start(&sp);
	close(pipefd[1]);
	if (started < 0) {
		close(pipefd[0]);
		return EXIT_INFRA;
	}
	char *tmp = xasprintf("%s/vmlinuz.tmp.%ld.%u", cache_dir, (long)getpid(), tmp_serial());
	char *final = xasprintf("%s/vmlinuz", cache_dir);
	char *name = NULL;
	int found = tar_extract_vmlinuz(pipefd[0], tmp, &name);
	if (found == 0)
		spawn_kill(&sp, SIGTERM);   /* we have what we need; it may still be writing */
	else
		skip_bytes(pipefd[0], UINT64_MAX);   /* let it finish: its status tells */
	close(pipefd[0]);
	int status = spawn_wait(&sp, -1);
	int rc = 0;
	if (found != 0) {
		bool ran = found == 1 && status == 0;
		error("%s: %s", deb, ran ? "a Debian package without a kernel (no ./boot/vmlinuz-*)"
					: "not a readable Debian package (dpkg-deb --fsys-tarfile failed)");
		unlink(tmp);
		rc = EXIT_DATAERR;
	} else if (rename(tmp, final) < 0) {
		error("cannot rename %s: %s", tmp, strerror(errno));
		unlink(tmp);
		rc = EXIT_INFRA;
	} else {
		char *name_path = xasprintf("%s/name", cache_dir);
		if (write_file_atomic(name_path, name, strlen(name)) < 0)
			rc = EXIT_INFRA;
		free(name_path);
	}
	free(name);
	free(tmp);
	free(final);
	return rc;
}

/*
 * A .deb: the vmlinuz from the cache (extracting it the first time);
 * sets k->image and *base (the vmlinuz's name). 0 or an exit status.
 */
static int open_deb(const char *deb, struct kernel *k, char **base)
{
	char sha[65];
	if (file_sha256(deb, sha) < 0)
		return error("%s: cannot read: %s", deb, strerror(errno)), EXIT_DATAERR;
	char *dir = xasprintf("%s/kernels/%s", bootrig_cache_dir(), sha);
	char *image = xasprintf("%s/vmlinuz", dir);
	char *name_path = xasprintf("%s/name", dir);
	int rc = 0;
	if (access(image, R_OK) != 0 || access(name_path, R_OK) != 0) {
		if (mkdir_p(dir, 0755) < 0)
			rc = (error("cannot create %s: %s", dir, strerror(errno)), EXIT_INFRA);
		else
			rc = extract_from_deb(deb, dir);
	}
	size_t len;
	if (!rc && read_file(name_path, base, &len) < 0)
		rc = (error("cannot read %s: %s", name_path, strerror(errno)), EXIT_INFRA);
	if (!rc)
		k->image = image;
	else
		free(image);
	free(dir);
	free(name_path);
	return rc;
}

/* ---- build trees ------------------------------------------------------ */

/* The image in a kernel build tree, or NULL (error printed). */
static char *tree_image(const char *tree)
{
	static const char *const images[] = {
		"arch/arm64/boot/Image", "arch/arm/boot/zImage", "arch/x86/boot/bzImage",
		"arch/arm64/boot/Image.gz",
	};
	for (size_t i = 0; i < ARRAY_SIZE(images); i++) {
		char *p = xasprintf("%s/%s", tree, images[i]);
		if (access(p, R_OK) == 0)
			return p;
		free(p);
	}
	error("%s: a directory, but not a built kernel tree (no arch/arm64/boot/Image, "
	      "arch/arm/boot/zImage or arch/x86/boot/bzImage)", tree);
	return NULL;
}

/* The first line git prints for `git -C tree ARGS...` (run_argv, no shell,
 * 30 s at most), or NULL when git fails, prints nothing, or a line that is
 * not printable ASCII-or-UTF-8 text without controls. */
static char *git_line(const char *tree, const char *a1, const char *a2, const char *a3,
		      const char *a4, const char *a5)
{
	FILE *out = tmpfile();
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	char *line = NULL;
	if (out && null >= 0) {
		char *const argv[] = { "git", "-C", (char *)tree, (char *)a1, (char *)a2, (char *)a3,
				       (char *)a4, (char *)a5, NULL };
		char buf[512];
		if (run_argv(argv, 30, fileno(out), null) == 0 && fseek(out, 0, SEEK_SET) == 0 &&
		    fgets(buf, sizeof(buf), out)) {
			buf[strcspn(buf, "\n")] = '\0';
			bool text = *buf != '\0';
			for (const unsigned char *c = (const unsigned char *)buf; *c; c++)
				text &= *c >= 0x20 && *c != 0x7f;
			line = text ? xstrdup(buf) : NULL;
		}
	}
	if (out)
		fclose(out);
	if (null >= 0)
		close(null);
	return line;
}

/* The git commit, name and remote of a tree that is a git work tree. */
static void tree_git(const char *tree, struct kernel *k)
{
	char *top = git_line(tree, "rev-parse", "--show-toplevel", NULL, NULL, NULL);
	if (!top)
		return;   /* not a git work tree: nothing to say */
	free(top);
	k->git_commit = git_line(tree, "rev-parse", "--verify", "HEAD^{commit}", NULL, NULL);
	if (k->git_commit && (strlen(k->git_commit) != 40 ||
			      strspn(k->git_commit, "0123456789abcdef") != 40)) {
		free(k->git_commit);   /* a SHA-256 repository: not KCIDB's hash */
		k->git_commit = NULL;
	}
	if (!k->git_commit)
		return;
	k->git_describe = git_line(tree, "describe", "--always", "--tags", "--dirty", NULL);
	k->git_url = git_line(tree, "config", "--get", "remote.origin.url", NULL, NULL);
}

int kernel_set_tree(struct kernel *k, const char *tree)
{
	struct kernel g = { 0 };
	char *top = git_line(tree, "rev-parse", "--show-toplevel", NULL, NULL, NULL);
	if (!top) {
		error("--kernel-tree %s: not a git work tree", tree);
		return EXIT_USAGE;
	}
	free(top);
	char *vmlinux = xasprintf("%s/vmlinux", tree);
	if (access(vmlinux, R_OK) == 0)
		kernel_size_read(k, tree);      /* the sizes of what it built */
	free(vmlinux);
	tree_git(tree, &g);
	if (!g.git_commit) {    /* no commit yet, or a SHA-256 one: nothing to record */
		warning("--kernel-tree %s: no SHA-1 commit to record", tree);
		return 0;
	}
	free(k->git_commit), free(k->git_describe), free(k->git_url);
	k->git_commit = g.git_commit, k->git_describe = g.git_describe, k->git_url = g.git_url;
	return 0;
}

/* ---- the identification cache ---------------------------------------- */

/*
 * Hashing a 30 MB kernel on every build would cost more than the build, so,
 * as git's index does, a file's sha256 is kept under a key made of what
 * stat() says (stat_stamp() in util.h), and what the image header says is
 * kept under the image's sha256. Both live in bootrig_cache_dir()/kernels/
 * and are only an optimisation: a missing or unreadable entry means the
 * work is done again.
 */

static char *cache_path(const char *kind, const char *key)
{
	return xasprintf("%s/kernels/%s/%s", bootrig_cache_dir(), kind, key);
}

/* Stores text under kind/key; failures are ignored (it is a cache). */
void kernel_cache_put(const char *kind, const char *key, const char *text)
{
	char *path = cache_path(kind, key);
	write_cache_file(path, text, strlen(text));
	free(path);
}

/* The text stored under kind/key, or NULL. */
char *kernel_cache_get(const char *kind, const char *key)
{
	char *path = cache_path(kind, key), *text = NULL;
	size_t len;
	if (read_file(path, &text, &len) < 0)
		text = NULL;
	free(path);
	return text;
}

/* The sha256 of the file at path, from the stat-keyed cache or computed. */
static int file_sha256(const char *path, char hex[65])
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -1;
	char *stamp = stat_stamp(&st);
	char *keyed = xasprintf("%s %s", path, stamp);
	char key[65];
	sha256_hex(keyed, strlen(keyed), key);
	free(keyed);
	free(stamp);
	char *cached = kernel_cache_get("sha256", key);
	bool hit = cached && strlen(cached) == 64 && strspn(cached, "0123456789abcdef") == 64;
	if (hit)
		memcpy(hex, cached, 65);
	free(cached);
	if (hit)
		return 0;
	if (sha256_file(path, hex) < 0)
		return -1;
	if (!stat_changed_lately(&st))
		kernel_cache_put("sha256", key, hex);
	return 0;
}

/* Sets k->arch and k->version from the cache entry of k->sha256; 0 if hit. */
static int ident_from_cache(struct kernel *k)
{
	char *text = kernel_cache_get("ident", k->sha256);
	if (!text)
		return -1;
	char *nl = strchr(text, '\n');
	int rc = -1;
	if (nl) {
		*nl = '\0';
		for (enum kernel_arch a = KARCH_ARM64; a <= KARCH_ARM; a++)
			if (!strcmp(text, kernel_arch_name(a)))
				k->arch = a;
		char *version = nl + 1, *end = strchr(version, '\n');
		if (end)
			*end = '\0';
		k->version = *version ? xstrdup(version) : NULL;
		rc = k->arch == KARCH_UNKNOWN ? -1 : 0;
	}
	free(text);
	return rc;
}

/* Identifies k->image (reading it) and caches what it found. 0 or 65. */
static int identify_file(const char *input, struct kernel *k)
{
	char *data = NULL;
	size_t len = 0;
	if (read_file(k->image, &data, &len) < 0) {
		error("%s: %s", k->image, strerror(errno));
		return EXIT_DATAERR;
	}
	int rc = identify_image(input, (unsigned char *)data, len, k);
	free(data);
	if (!rc) {
		char *text = xasprintf("%s\n%s\n", kernel_arch_name(k->arch),
				       k->version ? k->version : "");
		kernel_cache_put("ident", k->sha256, text);
		free(text);
	}
	return rc;
}

/* ---- kernel_open ------------------------------------------------------ */

static bool is_deb(const char *path)
{
	char magic[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool ar = read_full(fd, magic, 8) == 0 && !memcmp(magic, "!<arch>\n", 8);
	close(fd);
	return ar;
}

/* "name-1a2b3c4d", with anything outside [A-Za-z0-9._+-] made '_'. */
static char *make_id(const char *base, const char *sha)
{
	char *id = xasprintf("%s-%.8s", base, sha);
	for (char *p = id; *p; p++)
		if (!(((*p | 32) >= 'a' && (*p | 32) <= 'z') || (*p >= '0' && *p <= '9') ||
		      strchr("._+-", *p)))
			*p = '_';
	return id;
}

/* The last path component of p, without a trailing slash. */
static char *base_name(const char *p)
{
	char *copy = xstrdup(p);
	size_t n = strlen(copy);
	while (n > 1 && copy[n - 1] == '/')
		copy[--n] = '\0';
	char *slash = strrchr(copy, '/');
	char *base = xstrdup(slash && slash[1] ? slash + 1 : copy);
	free(copy);
	return base;
}

int kernel_open(const char *input, struct kernel *k)
{
	memset(k, 0, sizeof(*k));
	k->input = xstrdup(input);
	struct stat st;
	if (stat(input, &st) < 0) {
		error("%s: %s", input, strerror(errno));
		kernel_release(k);
		return EXIT_DATAERR;
	}
	char *base = NULL;
	int rc = 0;
	if (S_ISDIR(st.st_mode)) {
		k->image = tree_image(input);
		rc = k->image ? 0 : EXIT_DATAERR;
		base = base_name(input);
		if (!rc)
			tree_git(input, k);
	} else if (is_deb(input)) {
		rc = open_deb(input, k, &base);
	} else {
		k->image = xstrdup(input);
		base = base_name(input);
	}
	if (!rc && file_sha256(k->image, k->sha256) < 0)
		rc = (error("%s: %s", k->image, strerror(errno)), EXIT_DATAERR);
	if (!rc && ident_from_cache(k) < 0)
		rc = identify_file(input, k);
	if (!rc) {
		k->id = make_id(base, k->sha256);
		kernel_size_read(k, S_ISDIR(st.st_mode) ? input : NULL);
	}
	free(base);
	if (rc)
		kernel_release(k);
	return rc;
}

void kernel_release(struct kernel *k)
{
	free(k->input);
	free(k->image);
	free(k->id);
	free(k->version);
	free(k->git_commit), free(k->git_describe), free(k->git_url);
	free(k->size.reason);
	memset(k, 0, sizeof(*k));
}
