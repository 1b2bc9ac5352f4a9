#!/bin/sh
# make demo: bootrig's main job, end to end, on real Debian kernels.
#
#   1. fetch Debian's cloud-arm64, amd64 and armmp-lpae kernels (cached);
#   2. build an image for each and boot it: each kernel's ABI table;
#   3. the A/B the seeds asked about: on the amd64 kernel, does turning the
#      x32 ABI on (syscall.x32=y) cost x86_64 anything? 5 boots a side;
#   4. the lmbench syscall table with %change and significance, and an HTML
#      report.
# Results go to $BOOTRIG_DEMO_DIR (default build/demo), replaced each run;
# the kernels stay in the cache, so a second run downloads nothing.
set -eu
cd "$(dirname "$0")/.."

bootrig=build/bootrig
out=${BOOTRIG_DEMO_DIR:-build/demo}
jobs=${BOOTRIG_DEMO_JOBS:-2}
started=$(date +%s)

step() { printf '\n== [%ss] %s\n' "$(($(date +%s) - started))" "$*"; }

rm -rf "$out"
mkdir -p "$out"

step "1/4 fetching Debian kernels into the cache"
sh scripts/fetch-kernels.sh cloud-arm64 amd64 armmp-lpae >"$out/kernels.txt"
sed 's/^/   /' "$out/kernels.txt"
arm64=$(awk '$1 == "cloud-arm64" { print $2 }' "$out/kernels.txt")
amd64=$(awk '$1 == "amd64" { print $2 }' "$out/kernels.txt")
armhf=$(awk '$1 == "armmp-lpae" { print $2 }' "$out/kernels.txt")

step "2/4 booting each kernel with every ABI its architecture can run"
"$bootrig" run --kernel "$arm64" --kernel "$amd64" --kernel "$armhf" \
	-j "$jobs" -o "$out/matrix"

step "3/4 A/B on the amd64 kernel: x32 off (default) against on (syscall.x32=y), 5 boots a side (seeds 1 to 5)"
"$bootrig" run --kernel "$amd64" --variant x32-off= --variant x32-on=syscall.x32=y \
	--repeat 5 -j "$jobs" -o "$out/ab"

step "4/4 what turning x32 on costs: the lmbench syscall set"
base=$(ls -d "$out"/ab/*/x32-off)
cand=$(ls -d "$out"/ab/*/x32-on)
# compare exits 1 when it finds a significant change: that is an answer,
# not a failure of the demo; 125 (no usable boots) is.
status=0
"$bootrig" compare "$base" "$cand" --metric '*.lat_syscall.*' || status=$?
[ "$status" -le 1 ] || exit "$status"
"$bootrig" compare "$base" "$cand" --format html -o "$out/report.html" >/dev/null || true
[ -s "$out/report.html" ] || { echo "demo: no HTML report written" >&2; exit 1; }

step "done"
echo "   results:     $out/matrix and $out/ab (console.log, console.tlog, result.json per boot)"
echo "   HTML report: $out/report.html"
