#!/bin/sh
# 15-startup: what a bootrig command costs before it does any work, now that
# libvirt and libguestfs are plugin modules (lib/module.h) loaded only by
# `run` and `build --sd-image`. Baselines built here, in the same run:
#   empty, linked as bootrig was   int main(void){return 0;} linked with
#                                  libvirt, libguestfs and bootrig's own
#                                  libraries (~60 shared objects)
#   empty, core libraries          the same with bootrig's core libraries
#                                  only (libconfig json-c zlib crypto lzma)
# Rows: median and min ms of N runs, and the ratio "as bootrig was" / row
# (> 1: faster than any program that links libvirt and libguestfs).
# BENCH_STARTUP_N changes N (default 30).
set -u
cd "$(dirname "$0")/../.." || exit 1
. scripts/bench-lib.sh

n=${BENCH_STARTUP_N:-30}
out=build/bench/startup
mkdir -p "$out"
[ -x build/bootrig ] && [ -f build/modules/virt.so ] || { echo "15-startup: run make first" >&2; exit 1; }
objs=$(for o in $(make_var HOST_LIB_OBJS); do [ -f "$o" ] && echo "$o"; done)
printf 'int main(void) { return 0; }\n' >"$out/empty.c"
# shellcheck disable=SC2046,SC2086
{ ${CC:-gcc} -O2 -o "$out/empty-as-was" "$out/empty.c" -Wl,--no-as-needed \
	$(make_var VIRT_LIBS) $(make_var GUESTFS_LIBS) $(make_var HOST_LIBS) &&
  ${CC:-gcc} -O2 -o "$out/empty-core" "$out/empty.c" -Wl,--no-as-needed $(make_var HOST_LIBS) &&
  ${CC:-gcc} -std=c11 -D_GNU_SOURCE -O2 $(make_var INCLUDES) -DBOOTRIG_VERSION='"bench"' \
	$(make_var PKG_CFLAGS) -o "$out/timer" tests/tools/build-bench.c $objs $(make_var HOST_LIBS); } \
	2>"$out/cc.err" || { echo "15-startup: cannot build the baselines:"; head -n 5 "$out/cc.err"; exit 1; }

kernel=$(bench_kernel cloud-arm64)
cmp=tests/fixtures/compare
export XDG_CACHE_HOME="$PWD/$out/xdg"
build/bootrig build --kernel "$kernel" -o "$out/warm.img" >/dev/null || exit 1

# timed CMD...: "median min" ms of n runs.
timed() { "$out/timer" --time "$n" "$@"; }
libs() { ldd "$1" | grep -c '=>'; }
set -- $(timed "$out/empty-as-was"); was=$1 was_min=$2
printf '   %-44s %9s %9s %6s %8s\n' "program (median of $n runs)" "median ms" "min ms" "libs" "was/row"
row() { printf '   %-44s %9s %9s %6s %8s\n' "$1" "$2" "$3" "$4" "$(ratio "$was" "$2")"; }
row "empty, linked as bootrig was (baseline)" "$was" "$was_min" "$(libs "$out/empty-as-was")"
set -- $(timed "$out/empty-core")
row "empty, core libraries (the floor)" "$1" "$2" "$(libs "$out/empty-core")"
set -- $(timed build/bootrig --version)
version=$1
row "bootrig --version" "$1" "$2" "$(libs build/bootrig)"
set -- $(timed build/bootrig compare "$cmp/aarch64-base" "$cmp/aarch64-cand")
row "bootrig compare (the fixtures, 2 boots a side)" "$1" "$2" "$(libs build/bootrig)"
set -- $(timed build/bootrig build --kernel "$kernel" -o "$out/warm.img")
row "bootrig build (smoke, warm cache)" "$1" "$2" "$(libs build/bootrig)"
printf '   start-up: %sx faster than a program linking libvirt and libguestfs (target: build,\n' \
	"$(ratio "$was" "$version")"
printf '   judge, compare start in a few ms, loading neither)\n'
