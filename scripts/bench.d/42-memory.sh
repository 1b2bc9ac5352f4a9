#!/bin/sh
# 42-memory: peak memory (RSS) and time of `bootrig judge` and `bootrig
# logdiff` on a 1 GB console log, beside the same on a 256 MB log (its
# first 256 MB) as the baseline: the ratio column is 1 GB / 256 MB, so 1.00
# for RSS is memory that does not grow with the log. Target: peak RSS under
# 256 MB, independent of the log's size. logdiff compares the big log with
# a real PASS console (tests/fixtures/judge/pass-cloud-arm64.log).
#
# The log is made by tests/tools/br-genlog (kernel lines and a full run of
# protocol records per boot, repeated) and removed afterwards. Peak RSS is
# /usr/bin/time's "Maximum resident set size" of the release build.
# BENCH_MEMORY_MB changes the big log's size (default 1000).
set -u
cd "$(dirname "$0")/../.."
. scripts/bench-lib.sh

[ -x /usr/bin/time ] || { echo "42-memory: no /usr/bin/time (package time)" >&2; exit 1; }
make -s build/bootrig build/tests/tools/br-genlog > /dev/null || exit 1
mb=${BENCH_MEMORY_MB:-1000}
out=build/bench/memory
bench_out "$out"
trap 'rm -rf "$out"' EXIT
pass=tests/fixtures/judge/pass-cloud-arm64.log

build/tests/tools/br-genlog --size $((mb * 1000000)) --seed 42 -o "$out/big.log" > "$out/genlog.txt" ||
	{ echo "42-memory: cannot write $out/big.log"; exit 1; }
head -c 256000000 "$out/big.log" > "$out/small.log"
echo "   logs: $(cat "$out/genlog.txt"); the 256 MB one is its start"

# measure NAME CMD...: "<seconds> <peak RSS in MiB>" of CMD, output dropped.
measure() {
	name=$1
	shift
	/usr/bin/time -f '%e %M' -o "$out/$name.time" "$@" > /dev/null 2> "$out/$name.err"
	tail -n 1 "$out/$name.time" | awk '{ printf "%.2f %.1f", $1, $2 / 1024 }'
}
cat "$out/big.log" > /dev/null         # warm the page cache
j_small=$(measure judge-small build/bootrig judge "$out/small.log")
j_big=$(measure judge-big build/bootrig judge "$out/big.log")
d_small=$(measure logdiff-small build/bootrig logdiff "$pass" "$out/small.log")
d_big=$(measure logdiff-big build/bootrig logdiff "$pass" "$out/big.log")

row() {
	echo "$2 $3" | awk -v name="$1" '{
		printf "   %-22s %9.1f %9.1f %7.2f   %8.2f %8.2f %7.2f\n", name, $2, $4, $4 / $2, $1, $3, $3 / $1
	}'
}
printf '   %-22s %9s %9s %7s   %8s %8s %7s\n' "" "RSS 256MB" "RSS 1GB" "ratio" "s 256MB" "s 1GB" "ratio"
row "bootrig judge" "$j_small" "$j_big"
row "bootrig logdiff" "$d_small" "$d_big"
echo "$j_big $d_big" | awk '{
	worst = $2 > $4 ? $2 : $4
	printf "   target: peak RSS under 256 MB on the 1 GB log: %s (%.1f MiB at most)\n",
		worst < 256 ? "met" : "NOT met", worst
}'
