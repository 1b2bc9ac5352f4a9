#!/bin/sh
# 20-build: how fast `bootrig build` makes the arm64 full-suite initramfs
# (cloud-arm64 kernel: aarch64, aarch64_ilp32 and arm, 11 tests each) and
# how big it is, beside the kernel test robot's packer timed in the same
# run over the same staging tree (our image unpacked):
#     find . | cpio -o -H newc | gzip -n -9
# Rows (median of N runs, and the ratio robot/ours: > 1 means we are faster):
#   in-process, cold   kernel_open + build_initramfs, image cache emptied
#                      before each run: every guest binary read and hashed,
#                      cpio, libdeflate level 6
#   in-process, warm   the same with the image cache (builder/build.c: the
#                      image of a suite changes with the guest binaries,
#                      not with each kernel, and is kept under what stat()
#                      says of them)
#   command, cold      the whole `bootrig build` process, image cache
#                      emptied before each run (the kernel's is kept: the
#                      robot does not identify kernels either)
#   command, warm      the whole process as a user or CI job runs it for
#                      each kernel: exec, dynamic loading (libvirt and
#                      libguestfs are plugin modules, not loaded by build),
#                      configs, the kernel's header, the build
# The headline is the whole command, warm, against the robot's packer: what
# a user or a CI job waits for on every kernel but the first. Targets:
# image <= 300 KiB; >= 5x faster than the robot.
# BENCH_BUILD_N changes N (default 15).
set -u
cd "$(dirname "$0")/../.."
. scripts/bench-lib.sh

n=${BENCH_BUILD_N:-15}
out=build/bench/build
bench_out "$out"
mkdir "$out/stage"
kernel=$(bench_kernel cloud-arm64)
export XDG_CACHE_HOME="$PWD/$out/xdg"
# The bench tool is not build/bootrig: show it where the data is.
mkdir -p "$out/data"
ln -s "$PWD/build/guest" "$out/data/guest"
ln -s "$PWD/configs" "$out/data/configs"
# The release objects but main() (and the plugin modules), as the Makefile lists them.
objs=$(for o in $(make_var HOST_LIB_OBJS); do [ -f "$o" ] && echo "$o"; done)
[ -n "$objs" ] && [ -x build/bootrig ] || { echo "20-build: run make first" >&2; exit 1; }
# shellcheck disable=SC2046,SC2086
${CC:-gcc} -std=c11 -D_GNU_SOURCE -O2 $(make_var INCLUDES) -DBOOTRIG_VERSION='"bench"' \
	$(make_var PKG_CFLAGS) -o "$out/build-bench" tests/tools/build-bench.c $objs \
	$(make_var HOST_LIBS) 2>"$out/cc.err" ||
	{ echo "20-build: cannot build the bench tool:"; head -n 5 "$out/cc.err"; exit 1; }

# Our image, and the staging tree the robot packs.
build/bootrig build --kernel "$kernel" --suite full -o "$out/ours.img" >/dev/null || exit 1
(cd "$out/stage" && gzip -dc ../ours.img | cpio -idm --quiet 2>/dev/null)

# timed [--fresh DIR] CMD...: median and min ms of n runs (spawned by the
# bench tool; DIR removed before each, untimed).
timed() { "$out/build-bench" --time "$n" "$@"; }
set -- $(timed sh -c "cd $out/stage && find . | cpio -o -H newc --quiet | gzip -n -9 >../robot.img")
[ $# = 2 ] || exit 1
robot=$1 robot_min=$2
bench() { BOOTRIG_DATADIR="$PWD/$out/data" "$out/build-bench" "$kernel" full "$out/bench.img" "$n" "$1"; }
set -- $(bench cold)
[ $# = 3 ] || { echo "20-build: the bench tool failed"; exit 1; }
cold=$1 cold_min=$2
set -- $(bench warm)
[ $# = 3 ] || { echo "20-build: the bench tool failed"; exit 1; }
warm=$1 warm_min=$2 size=$3
set -- $(timed --fresh "$XDG_CACHE_HOME/bootrig/initramfs" build/bootrig build --kernel "$kernel" --suite full -o "$out/cmd.img")
[ $# = 2 ] || exit 1
command_cold=$1 command_cold_min=$2
set -- $(timed build/bootrig build --kernel "$kernel" --suite full -o "$out/cmd.img")
[ $# = 2 ] || exit 1
command=$1 command_min=$2
robot_size=$(stat -c %s "$out/robot.img")
cmp -s "$out/bench.img" "$out/ours.img" && cmp -s "$out/cmd.img" "$out/ours.img" ||
	{ echo "20-build: the builds are not byte-identical"; exit 1; }

headline=$(ratio "$robot" "$command")
verdict=$(echo "$headline" | awk '{print ($1 >= 5) ? "meets" : "MISSES"}')
printf '   bootrig build (whole command, warm) %s ms vs the robot'"'"'s packer %s ms: %sx faster (%s the >= 5x target)\n' \
	"$command" "$robot" "$headline" "$verdict"
printf '   arm64 full-suite initramfs (%s, 3 ABIs x 11 tests), median of %d runs\n' \
	"$(basename "$kernel")" "$n"
printf '   %-44s %9s %9s %10s\n' "packer" "median ms" "min ms" "robot/ours"
row() { printf '   %-44s %9s %9s %10s\n' "$1" "$2" "$3" "$(ratio "$robot" "$2")"; }
row "robot: find | cpio -o -H newc | gzip -n -9" "$robot" "$robot_min"
row "bootrig in-process, cold (libdeflate level 6)" "$cold" "$cold_min"
row "bootrig in-process, warm image cache" "$warm" "$warm_min"
row "bootrig build command, cold image cache" "$command_cold" "$command_cold_min"
row "bootrig build command, warm" "$command" "$command_min"
printf '   image: %d bytes (%.1f KiB, target <= 300 KiB); the robot'"'"'s: %d bytes\n' \
	"$size" "$(echo "$size" | awk '{print $1 / 1024}')" "$robot_size"
