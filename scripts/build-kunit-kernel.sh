#!/bin/sh
# Build the two KUnit kernels bootrig's KTAP reader is proven on, from
# Debian's linux-source-6.1 (/usr/src/linux-source-6.1.tar.xz).
#
#   scripts/build-kunit-kernel.sh            (prints "good PATH" and "bad PATH")
#   scripts/build-kunit-kernel.sh --print    (the same, building nothing: exit 1 if absent)
#   scripts/build-kunit-kernel.sh --source   (unpacks only; prints the source tree, whose
#                                             tools/testing/kunit/kunit.py the tests run)
#   scripts/build-kunit-kernel.sh --slowinit (prints "good PATH" and "slowinit PATH")
#
# Both are x86_64 bzImages of a minimal config: `make tinyconfig` plus what
# bootrig's init needs (scripts/kernel-fragments.sh: 64-bit, the x32 and
# i386 ABIs, printk, the 8250 serial console on ttyS0, a gzip initramfs,
# devtmpfs, proc, sysfs, tmpfs, ELF binaries, futexes, AF_INET for lo, ACPI
# to power off, kallsyms so that an initcall_debug record names its
# function, not its address, perf events) and CONFIG_KUNIT
# with a few suites built in (kunit's example suite, with its skipped case,
# the list and cmdline suites), so the kernel prints KTAP on the console at
# boot before it starts init:
#   kunit-good   the source as Debian ships it: every case passes (one skips)
#   kunit-bad    the same with one expected value in lib/list-test.c changed
#                (the patch below): list-kunit-test's list_test_list_add fails
#   kunit-slowinit  (built only when asked: --slowinit) the good source with
#                a busy loop of 2^22 iterations in kernel/ksysfs.c's
#                ksysfs_init, a core_initcall (slow_patch below): one
#                initcall that does more work, not a sleep, for a boot-time
#                regression on a real tree (tests/t-regress-boot.sh); its file
#                name holds that patch's hash, so a change of it rebuilds
# They are cached under $cache/<key>/ (key: the source package's version and
# the config fragment and the patch below, so a change of either rebuilds)
# and a second run builds nothing. Builds with make -j${BOOTRIG_KUNIT_JOBS:-2}.
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
tarball=${BOOTRIG_LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
base=${BOOTRIG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bootrig}
cache=$base/kunit
jobs=${BOOTRIG_KUNIT_JOBS:-2}

[ -r "$tarball" ] || { echo "build-kunit-kernel: no $tarball (apt-get install linux-source-6.1)" >&2; exit 66; }
# The options set on top of tinyconfig; each is checked in the final .config
# (an option olddefconfig dropped for a missing dependency fails the build).
# shellcheck source=scripts/kernel-fragments.sh
. "$here/kernel-fragments.sh"
fragment="$fragment_common
$fragment_x86_64
CONFIG_RUNTIME_TESTING_MENU=y
CONFIG_KUNIT=y
CONFIG_KUNIT_EXAMPLE_TEST=y
CONFIG_LIST_KUNIT_TEST=y
CONFIG_CMDLINE_KUNIT_TEST=y"

# The failing variant: list_test_list_add expects the wrong last entry.
patch_text='--- a/lib/list-test.c
+++ b/lib/list-test.c
@@ -54,7 +54,7 @@ static void list_test_list_add(struct kunit *test)
 	/* should be [list] -> b -> a */
 	KUNIT_EXPECT_PTR_EQ(test, list.next, &b);
 	KUNIT_EXPECT_PTR_EQ(test, b.prev, &list);
-	KUNIT_EXPECT_PTR_EQ(test, b.next, &a);
+	KUNIT_EXPECT_PTR_EQ(test, b.next, &list);
 }
 
 static void list_test_list_add_tail(struct kunit *test)
'

# The slow variant: ksysfs_init does 2^22 iterations of work first.
slow_patch='--- a/kernel/ksysfs.c
+++ b/kernel/ksysfs.c
@@ -240,10 +240,21 @@
 	.attrs = kernel_attrs,
 };
 
+/* More work, not a sleep: the initcall bootrig'"'"'s boot-time regression slows. */
+static noinline void __init ksysfs_busy(void)
+{
+	volatile unsigned long n;
+
+	for (n = 0; n < (1UL << 22); n++)
+		;
+}
+
 static int __init ksysfs_init(void)
 {
 	int error;
 
+	ksysfs_busy();
+
 	kernel_kobj = kobject_create_and_add("kernel", NULL);
 	if (!kernel_kobj) {
 		error = -ENOMEM;
'

version=$(dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null || stat -c %s.%Y "$tarball")
key=$(printf '%s\n%s\n%s\n' "$version" "$fragment" "$patch_text" | sha256sum | cut -c1-16)
out=$cache/$key
good=$out/kunit-good.bzImage
bad=$out/kunit-bad.bzImage
slow=$out/kunit-slowinit-$(printf '%s' "$slow_patch" | sha256sum | cut -c1-8).bzImage
src=$cache/src-$key
mkdir -p "$cache"
# One build at a time per cache (two at once would share a tree); the
# second finds the first's images there.
exec 9>>"$cache/.lock"
flock 9

# unpack: the source under $src, once (a stamp says it is whole).
unpack() {
	[ -e "$src/.unpacked" ] && return 0
	rm -rf "$src"
	mkdir -p "$src"
	echo "build-kunit-kernel: unpacking $tarball" >&2
	tar -xJf "$tarball" -C "$src" --strip-components=1
	cp "$src/lib/list-test.c" "$src/.list-test.c.orig"
	: >"$src/.unpacked"
}

# pristine: the files the variants patch, as unpacked (kernel/ksysfs.c's copy
# is made here for a tree unpacked before it was patched, only while the
# file is as shipped), put back.
pristine() {
	if [ ! -e "$src/.ksysfs.c.orig" ]; then
		! grep -q ksysfs_busy "$src/kernel/ksysfs.c" ||
			{ echo "build-kunit-kernel: $src/kernel/ksysfs.c is patched and has no copy: rm -rf $src" >&2; exit 1; }
		cp "$src/kernel/ksysfs.c" "$src/.ksysfs.c.orig"
	fi
	cp "$src/.list-test.c.orig" "$src/lib/list-test.c"
	cp "$src/.ksysfs.c.orig" "$src/kernel/ksysfs.c"
}

if [ "${1:-}" = --source ]; then
	unpack
	echo "$src"
	exit 0
fi

mode=${1:-}
if [ "$mode" = --slowinit ]; then
	if [ -s "$good" ] && [ -s "$slow" ]; then
		echo "good $good"
		echo "slowinit $slow"
		exit 0
	fi
elif [ -s "$good" ] && [ -s "$bad" ]; then
	echo "good $good"
	echo "bad $bad"
	exit 0
fi
if [ "${1:-}" = --print ]; then
	echo "build-kunit-kernel: not built yet ($out)" >&2
	exit 1
fi

unpack

# build NAME PATH: the kernel with the source as it is now, copied to PATH.
build() {
	start=$(date +%s)
	echo "build-kunit-kernel: building kunit-$1 (make -j$jobs, $(date -u +%H:%M:%S))" >&2
	make -C "$src" -s ARCH=x86_64 -j"$jobs" bzImage >"$src/build-$1.log" 2>&1 || {
		tail -n 30 "$src/build-$1.log" >&2
		echo "build-kunit-kernel: kunit-$1 failed to build (log: $src/build-$1.log)" >&2
		exit 1
	}
	mkdir -p "$out"
	cp "$src/arch/x86/boot/bzImage" "$2.tmp"
	mv "$2.tmp" "$2"
	echo "build-kunit-kernel: kunit-$1 built in $(($(date +%s) - start)) s" >&2
}

if [ ! -e "$src/.config-done" ]; then
	# (the overrides of tinyconfig's choices are reported as warnings: kept in config.log)
	{ make -C "$src" -s ARCH=x86_64 tinyconfig && printf '%s\n' "$fragment" >>"$src/.config" &&
		make -C "$src" -s ARCH=x86_64 olddefconfig; } >"$src/config.log" 2>&1 || {
		tail -n 20 "$src/config.log" >&2
		echo "build-kunit-kernel: the config failed (log: $src/config.log)" >&2
		exit 1
	}
	missing=
	for opt in $fragment; do
		grep -qx "$opt" "$src/.config" || missing="$missing ${opt%=y}"
	done
	[ -z "$missing" ] || { echo "build-kunit-kernel: the config lost:$missing" >&2; exit 1; }
	: >"$src/.config-done"
fi

if [ ! -s "$good" ]; then
	pristine
	build good "$good"
fi
pristine
if [ "$mode" = --slowinit ]; then
	printf '%s' "$slow_patch" | patch -s -p1 -d "$src"
	build slowinit "$slow"
	pristine
	echo "good $good"
	echo "slowinit $slow"
	exit 0
fi
printf '%s' "$patch_text" | patch -s -p1 -d "$src"
build bad "$bad"
pristine

echo "good $good"
echo "bad $bad"
