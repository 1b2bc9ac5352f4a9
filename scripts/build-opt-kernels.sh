#!/bin/sh
# Build the kernels of the -O2 against -Os experiment (README "-O2 against
# -Os"), from Debian's linux-source-6.1 (/usr/src/linux-source-6.1.tar.xz):
# one tinyconfig-based config per arch, built twice, once with
# CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE (-O2) and once with
# CONFIG_CC_OPTIMIZE_FOR_SIZE (-Os), nothing else different.
#
#   scripts/build-opt-kernels.sh [ARCH...]          (prints "ARCH-OPT TREE" a kernel)
#   scripts/build-opt-kernels.sh --print [ARCH...]  (the same, building nothing: exit 1
#                                                    if one is absent)
#
# ARCH: x86_64, arm64 (default both). Each TREE is a small build tree of
# its own: TREE/arch/ARCH/boot/{bzImage,Image} and TREE/vmlinux, so that
# `bootrig run --kernel TREE` boots the image and reads text, data and bss
# from vmlinux (result.json's kernel.size). The config is `make tinyconfig`
# plus what bootrig's init and benchmarks need (printk, the serial console,
# a gzip initramfs, devtmpfs, proc, sysfs, tmpfs, ELF binaries, futexes,
# epoll, timers, AF_UNIX and AF_INET, the 32-bit ABIs, kallsyms) and
# perf events (CONFIG_PERF_EVENTS: perf stat's counters; on arm64 the PMU
# driver too, which QEMU's PMU counts under TCG). Every option is checked
# in the final .config (one olddefconfig dropped fails the build).
#
# Cached under $cache/<key>/ (key: the source package's version, the arch,
# its fragment and the optimisation), so a second run builds nothing.
# Builds with make -j${BOOTRIG_KERNEL_JOBS:-2}, out of tree (O=), one
# unpacked source shared by all four.
set -eu

tarball=${BOOTRIG_LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
base=${BOOTRIG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bootrig}
cache=$base/opt-kernels
jobs=${BOOTRIG_KERNEL_JOBS:-2}

print=
if [ "${1:-}" = --print ]; then print=1; shift; fi
[ $# -gt 0 ] || set -- x86_64 arm64
for a in "$@"; do
	case $a in x86_64 | arm64) ;; *) echo "build-opt-kernels: no arch '$a' (x86_64, arm64)" >&2; exit 64 ;; esac
done
[ -r "$tarball" ] || { echo "build-opt-kernels: no $tarball (apt-get install linux-source-6.1)" >&2; exit 66; }

# shellcheck source=scripts/kernel-fragments.sh
. "$(dirname "$0")/kernel-fragments.sh"
common=$fragment_common
x86_64_fragment=$fragment_x86_64
arm64_fragment=$fragment_arm64

version=$(dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null || stat -c %s.%Y "$tarball")
src=$cache/src-$(printf '%s\n' "$version" | sha256sum | cut -c1-16)

# tree ARCH OPT: the cached tree's path (built or not)
tree() {
	eval "frag=\$${1}_fragment"
	key=$(printf '%s\n%s\n%s\n%s\n%s\n' "$version" "$1" "$common" "$frag" "$2" | sha256sum | cut -c1-16)
	echo "$cache/$key/$1-$2"
}
image_of() { case $1 in x86_64) echo arch/x86/boot/bzImage ;; arm64) echo arch/arm64/boot/Image ;; esac; }

missing=
for a in "$@"; do
	for o in O2 Os; do
		t=$(tree "$a" "$o")
		[ -s "$t/$(image_of "$a")" ] && [ -s "$t/vmlinux" ] || missing=1
	done
done
if [ -z "$missing" ] || [ -n "$print" ]; then
	for a in "$@"; do
		for o in O2 Os; do echo "$a-$o $(tree "$a" "$o")"; done
	done
	[ -z "$missing" ] || { echo "build-opt-kernels: not built yet ($cache)" >&2; exit 1; }
	exit 0
fi

mkdir -p "$cache"
# One build at a time per cache; the second finds the first's kernels.
exec 9>>"$cache/.lock"
flock 9

if [ ! -e "$src/.unpacked" ]; then
	rm -rf "$src"
	mkdir -p "$src"
	echo "build-opt-kernels: unpacking $tarball" >&2
	tar -xJf "$tarball" -C "$src" --strip-components=1
	: >"$src/.unpacked"
fi

# build ARCH OPT: configures and builds it in an O= directory, keeps the
# image and vmlinux in its tree, and removes the objects.
build() {
	t=$(tree "$1" "$2")
	img=$(image_of "$1")
	[ -s "$t/$img" ] && [ -s "$t/vmlinux" ] && return 0
	eval "frag=\$${1}_fragment"
	case $1 in
	x86_64) karch=x86_64 cross= target=bzImage ;;
	arm64) karch=arm64 cross=aarch64-linux-gnu- target=Image ;;
	esac
	case $2 in
	O2) opt='CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE=y' ;;
	Os) opt='CONFIG_CC_OPTIMIZE_FOR_SIZE=y' ;;
	esac
	obj=$cache/obj-$1-$2
	rm -rf "$obj"
	mkdir -p "$obj"
	start=$(date +%s)
	echo "build-opt-kernels: building $1 -$2 (make -j$jobs, $(date -u +%H:%M:%S))" >&2
	{ make -C "$src" O="$obj" -s ARCH=$karch CROSS_COMPILE=$cross tinyconfig &&
		printf '%s\n%s\n%s\n' "$common" "$frag" "$opt" >>"$obj/.config" &&
		make -C "$src" O="$obj" -s ARCH=$karch CROSS_COMPILE=$cross olddefconfig; } >"$obj/config.log" 2>&1 || {
		tail -n 20 "$obj/config.log" >&2
		echo "build-opt-kernels: the $1 -$2 config failed" >&2
		exit 1
	}
	lost=
	for o in $common $frag $opt; do
		grep -qx "$o" "$obj/.config" || lost="$lost ${o%=y}"
	done
	[ -z "$lost" ] || { echo "build-opt-kernels: the $1 -$2 config lost:$lost" >&2; exit 1; }
	make -C "$src" O="$obj" -s ARCH=$karch CROSS_COMPILE=$cross -j"$jobs" $target >"$obj/build.log" 2>&1 || {
		tail -n 30 "$obj/build.log" >&2
		echo "build-opt-kernels: $1 -$2 failed to build (log: $obj/build.log)" >&2
		exit 1
	}
	rm -rf "$t.tmp"
	mkdir -p "$t.tmp/$(dirname "$img")"
	cp "$obj/$img" "$t.tmp/$img"
	cp "$obj/vmlinux" "$obj/.config" "$t.tmp/"
	rm -rf "$t"
	mv "$t.tmp" "$t"
	rm -rf "$obj"
	echo "build-opt-kernels: $1 -$2 built in $(($(date +%s) - start)) s" >&2
}

for a in "$@"; do
	build "$a" O2
	build "$a" Os
done
for a in "$@"; do
	for o in O2 Os; do echo "$a-$o $(tree "$a" "$o")"; done
done
