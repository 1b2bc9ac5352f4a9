/*
 * test_kernel.c: kernel identification (builder/kernel.c) over synthetic
 * images: each header kind, a gzip'd Image, a build tree, the bzImage
 * version pointer in and out of bounds, and bad input (empty, text,
 * truncated, missing, a directory that is no tree); a kernel's text, data
 * and bss from a build tree's vmlinux (a synthetic ELF: size(1)'s sums),
 * from an arm64 Image's header, and a vmlinux cut off; and SHA-256 vectors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <unistd.h>
#include <zlib.h>

#include "cpio.h"
#include "exitcodes.h"
#include "kernel.h"
#include "sha256.h"
#include "spawn.h"
#include "util.h"

static char dir[64];

static char *write_tmp(const char *name, const void *data, size_t len)
{
	char *path = xasprintf("%s/%s", dir, name);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	mkdir_p(path, 0755);
	*slash = '/';
	assert_int_equal(write_file_atomic(path, data, len), 0);
	return path;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* A fake arm64 Image: the magic at 0x38 and a banner later on. */
static unsigned char *fake_arm64(size_t *len)
{
	*len = 8192;
	unsigned char *d = calloc(1, *len);
	memcpy(d + 0x38, "ARM\x64", 4);
	strcpy((char *)d + 4000, "Linux version %s\n");   /* a format string: not it */
	strcpy((char *)d + 5000, "Linux version 6.1.0-test-arm64 (me@host) #1 SMP\n");
	return d;
}

static void test_arm64_image_and_gzip(void **state)
{
	(void)state;
	size_t len;
	unsigned char *d = fake_arm64(&len);
	char *path = write_tmp("Image", d, len);
	struct kernel k;
	assert_int_equal(kernel_open(path, &k), 0);
	assert_int_equal(k.arch, KARCH_ARM64);
	assert_string_equal(kernel_arch_name(k.arch), "arm64");
	assert_string_equal(k.version, "6.1.0-test-arm64 (me@host) #1 SMP");
	char sha[65];
	sha256_hex(d, len, sha);
	assert_string_equal(k.sha256, sha);
	char *id = xasprintf("Image-%.8s", sha);
	assert_string_equal(k.id, id);
	free(id);
	kernel_release(&k);

	struct strbuf z = STRBUF_INIT;
	gzip_compress(d, len, 6, &z);
	char *gz = write_tmp("Image.gz", z.buf, z.len);
	assert_int_equal(kernel_open(gz, &k), 0);
	assert_int_equal(k.arch, KARCH_ARM64);
	assert_string_equal(k.version, "6.1.0-test-arm64 (me@host) #1 SMP");
	kernel_release(&k);
	/* a truncated gzip'd image still has its header inflated; a cut header not */
	char *cut = write_tmp("cut.gz", z.buf, 12);
	assert_int_equal(kernel_open(cut, &k), EXIT_DATAERR);
	free(cut);
	strbuf_release(&z);
	free(gz);
	free(path);
	free(d);
}

/* The identification cache must notice a rewritten file (same size). */
static void test_cache_follows_changes(void **state)
{
	(void)state;
	size_t len;
	unsigned char *d = fake_arm64(&len);
	char *path = write_tmp("Image-changing", d, len);
	struct kernel k1, k2, k3;
	assert_int_equal(kernel_open(path, &k1), 0);
	assert_int_equal(kernel_open(path, &k2), 0);   /* from the cache */
	assert_string_equal(k1.sha256, k2.sha256);
	assert_string_equal(k2.version, "6.1.0-test-arm64 (me@host) #1 SMP");
	memcpy(d + 5000 + 14, "7.2", 3);                 /* 6.1.0 -> 7.2.0 */
	free(write_tmp("Image-changing", d, len));
	assert_int_equal(kernel_open(path, &k3), 0);
	assert_string_not_equal(k1.sha256, k3.sha256);
	assert_string_equal(k3.version, "7.2.0-test-arm64 (me@host) #1 SMP");
	kernel_release(&k1);
	kernel_release(&k2);
	kernel_release(&k3);
	free(path);
	free(d);
}

static void test_zimage_and_tree(void **state)
{
	(void)state;
	unsigned char d[4096] = { 0 };
	put_le32(d + 0x24, 0x016f2818);
	char *path = write_tmp("linux/arch/arm/boot/zImage", d, sizeof(d));
	struct kernel k;
	char *tree = xasprintf("%s/linux", dir);
	assert_int_equal(kernel_open(tree, &k), 0);
	assert_int_equal(k.arch, KARCH_ARM);
	assert_string_equal(k.image, path);
	assert_true(!strncmp(k.id, "linux-", 6));
	kernel_release(&k);
	free(tree);
	free(path);
}

static void test_bzimage_version(void **state)
{
	(void)state;
	unsigned char d[8192] = { 0 };
	memcpy(d + 0x202, "HdrS", 4);
	d[0x206] = 0x0f;   /* boot protocol 2.15 */
	d[0x207] = 0x02;
	d[0x236] = 0x01;   /* XLF_KERNEL_64 */
	d[0x20e] = 0x00;
	d[0x20f] = 0x10;   /* version at 0x1000 + 0x200 */
	strcpy((char *)d + 0x1200, "6.1.0-57-amd64 (debian-kernel@lists.debian.org) #1 SMP");
	char *path = write_tmp("bzImage", d, sizeof(d));
	struct kernel k;
	assert_int_equal(kernel_open(path, &k), 0);
	assert_int_equal(k.arch, KARCH_X86_64);
	assert_string_equal(k.version, "6.1.0-57-amd64 (debian-kernel@lists.debian.org) #1 SMP");
	kernel_release(&k);
	/* a 32-bit kernel (no XLF_KERNEL_64) is refused */
	d[0x236] = 0x00;
	free(path);
	path = write_tmp("bzImage-32", d, sizeof(d));
	assert_int_equal(kernel_open(path, &k), EXIT_DATAERR);
	d[0x236] = 0x01;
	/* a pointer past the end: still x86_64, no version, no crash */
	d[0x20f] = 0xff;
	free(path);
	path = write_tmp("bzImage-bad", d, sizeof(d));
	assert_int_equal(kernel_open(path, &k), 0);
	assert_null(k.version);
	kernel_release(&k);
	free(path);
}

static void test_bad_input(void **state)
{
	(void)state;
	struct kernel k;
	char *empty = write_tmp("empty", "", 0);
	char *text = write_tmp("text", "hello, I am not a kernel\n", 25);
	size_t len;
	unsigned char *d = fake_arm64(&len);
	char *trunc = write_tmp("truncated", d, 0x30);   /* cut before the magic */
	char *missing = xasprintf("%s/no-such-file", dir);
	assert_int_equal(kernel_open(empty, &k), EXIT_DATAERR);
	assert_int_equal(kernel_open(text, &k), EXIT_DATAERR);
	assert_int_equal(kernel_open(trunc, &k), EXIT_DATAERR);
	assert_int_equal(kernel_open(missing, &k), EXIT_DATAERR);
	assert_int_equal(kernel_open(dir, &k), EXIT_DATAERR);   /* a dir, not a tree */
	unsigned char zboot[64] = "MZ\0\0zimg";
	memcpy(zboot + 24, "gzip", 4);
	char *efi = write_tmp("vmlinuz.efi", zboot, sizeof(zboot));
	assert_int_equal(kernel_open(efi, &k), EXIT_DATAERR);   /* EFI zboot: refused */
	free(efi);
	free(empty);
	free(text);
	free(trunc);
	free(missing);
	free(d);
}

/* A little ELF64 "vmlinux": .text (code, 1000), .rodata (200), .data (300),
 * .bss (400), .comment (not allocated, 50); size(1) says 1200 300 400. */
static unsigned char *fake_vmlinux(size_t *len)
{
	static const struct { uint32_t type; uint64_t flags, size; } secs[] = {
		{ SHT_NULL, 0, 0 },
		{ SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 1000 },
		{ SHT_PROGBITS, SHF_ALLOC, 200 },
		{ SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 300 },
		{ SHT_NOBITS, SHF_ALLOC | SHF_WRITE, 400 },
		{ SHT_PROGBITS, 0, 50 },
	};
	size_t n = sizeof(secs) / sizeof(secs[0]);
	*len = sizeof(Elf64_Ehdr) + n * sizeof(Elf64_Shdr);
	unsigned char *d = calloc(1, *len);
	Elf64_Ehdr e = { .e_type = ET_EXEC, .e_machine = EM_AARCH64, .e_version = EV_CURRENT,
			 .e_shoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
			 .e_shentsize = sizeof(Elf64_Shdr), .e_shnum = (Elf64_Half)n };
	memcpy(e.e_ident, ELFMAG, SELFMAG);
	e.e_ident[EI_CLASS] = ELFCLASS64, e.e_ident[EI_DATA] = ELFDATA2LSB;
	e.e_ident[EI_VERSION] = EV_CURRENT;
	memcpy(d, &e, sizeof(e));
	for (size_t i = 0; i < n; i++) {
		Elf64_Shdr h = { .sh_type = secs[i].type, .sh_flags = secs[i].flags,
				 .sh_size = secs[i].size };
		memcpy(d + sizeof(e) + i * sizeof(h), &h, sizeof(h));
	}
	return d;
}

static void test_kernel_size(void **state)
{
	(void)state;
	size_t len, vlen;
	unsigned char *img = fake_arm64(&len);
	img[16] = 0x00, img[17] = 0x30, img[18] = 0x12;        /* image_size 0x123000 */
	char *bare = write_tmp("size/Image", img, len);
	struct kernel k;
	assert_int_equal(kernel_open(bare, &k), 0);
	assert_true(k.size.text == -1 && k.size.data == -1 && k.size.bss == -1);
	assert_true(k.size.image == 0x123000);
	assert_string_equal(k.size.from, "Image header");
	assert_non_null(strstr(k.size.reason, "flat binary"));
	kernel_release(&k);
	assert_int_equal(kernel_open(bare, &k), 0);             /* the cache says the same */
	assert_true(k.size.text == -1 && k.size.image == 0x123000);
	assert_string_equal(k.size.from, "Image header");
	assert_non_null(strstr(k.size.reason, "flat binary"));
	kernel_release(&k);

	/* a build tree: its vmlinux, given the tree or the image in it */
	char *image = write_tmp("sz-tree/arch/arm64/boot/Image", img, len);
	unsigned char *v = fake_vmlinux(&vlen);
	char *vmlinux = write_tmp("sz-tree/vmlinux", v, vlen);
	char *tree = xasprintf("%s/sz-tree", dir);
	const char *inputs[] = { tree, image };
	for (int i = 0; i < 2; i++) {
		assert_int_equal(kernel_open(inputs[i], &k), 0);
		assert_true(k.size.text == 1200 && k.size.data == 300 && k.size.bss == 400);
		assert_string_equal(k.size.from, "vmlinux");
		assert_null(k.size.reason);
		kernel_release(&k);
	}
	/* a vmlinux cut off in its section headers: unknown, and why */
	free(write_tmp("sz-tree/vmlinux", v, vlen - 10));
	assert_int_equal(kernel_open(tree, &k), 0);
	assert_true(k.size.text == -1 && k.size.data == -1 && k.size.bss == -1);
	assert_non_null(strstr(k.size.reason, "cut off"));
	kernel_release(&k);
	/* a section count past any kernel's: refused, not read */
	((Elf64_Ehdr *)v)->e_shnum = 0;
	((Elf64_Shdr *)(v + sizeof(Elf64_Ehdr)))->sh_size = 1ull << 40;
	free(write_tmp("sz-tree/vmlinux", v, vlen));
	assert_int_equal(kernel_open(tree, &k), 0);
	assert_true(k.size.text == -1);
	assert_non_null(strstr(k.size.reason, "too many sections"));
	kernel_release(&k);
	free(tree), free(vmlinux), free(image), free(bare), free(v), free(img);
}

static void test_sha256_vectors(void **state)
{
	(void)state;
	char hex[65];
	sha256_hex("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	sha256_hex(two, strlen(two), hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* in pieces of odd sizes: the same */
	struct sha256 s;
	sha256_init(&s);
	for (size_t i = 0; i < strlen(two); i += 7)
		sha256_update(&s, two + i, strlen(two) - i < 7 ? strlen(two) - i : 7);
	sha256_final_hex(&s, hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

int main(void)
{
	strcpy(dir, "/tmp/test_kernel.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	setenv("XDG_CACHE_HOME", dir, 1);     /* the cache: dir/bootrig */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arm64_image_and_gzip),
		cmocka_unit_test(test_cache_follows_changes),
		cmocka_unit_test(test_zimage_and_tree),
		cmocka_unit_test(test_bzimage_version),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_kernel_size),
		cmocka_unit_test(test_sha256_vectors),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char *argv[] = { "rm", "-rf", dir, NULL };
	run_argv(argv, 30, -1, -1);
	return rc;
}
