#!/bin/sh
# 50-compare: `bootrig compare` of 2 x 100 boots (200 result.json files,
# 12 metrics each, written by tests/tools/mkresults), against two floors
# measured here on the same files: reading them (cat) and parsing them with
# json-c alone (tests/tools/json-parse-all). Target: under 1 s.
set -eu
cd "$(dirname "$0")/../.."
. scripts/bench-lib.sh
make -s build/bootrig build/tests/tools/mkresults >/dev/null
tmp=$(mktemp -d /tmp/bootrig-bench-compare.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
# the floor is built like build/bootrig (-O2, no sanitizer)
# shellcheck disable=SC2046
${CC:-cc} -O2 -o "$tmp/json-parse-all" tests/tools/json-parse-all.c $(pkg-config --cflags --libs json-c)

metrics=""
for abi in x86_64 i386; do
	for m in null:0.44 read:1.5 write:1.5 stat:20 fstat:3.4 open_close:27; do
		metrics="$metrics $abi:lat_syscall:${m%%:*}:us:lower:${m#*:}:3"
	done
done
# shellcheck disable=SC2086
ASAN_OPTIONS=detect_leaks=0 build/tests/tools/mkresults "$tmp/a" k-base default 100 1 $metrics --abi x86_64=ok --abi i386=ok
# shellcheck disable=SC2086
ASAN_OPTIONS=detect_leaks=0 build/tests/tools/mkresults "$tmp/b" k-cand default 100 2 $metrics --abi x86_64=ok --abi i386=ok
files=$(find "$tmp" -name result.json | sort)
echo "   $(echo "$files" | wc -l) result.json files, $(cat $files | wc -c) bytes"

# shellcheck disable=SC2086
t_cat=$(best_of 5 cat $files)
# shellcheck disable=SC2086
t_json=$(best_of 5 "$tmp/json-parse-all" $files)
t_text=$(best_of 5 build/bootrig compare "$tmp/a" "$tmp/b")
t_html=$(best_of 5 build/bootrig compare "$tmp/a" "$tmp/b" --format html)
awk -v c="$t_cat" -v j="$t_json" -v t="$t_text" -v h="$t_html" 'BEGIN {
	printf "   %-40s %8.3f s\n", "cat (read the files)", c
	printf "   %-40s %8.3f s\n", "json-c parse only (baseline)", j
	printf "   %-40s %8.3f s   %5.2fx json-c   %s\n", "bootrig compare, text", t, t / j, (t < 1 ? "under 1 s: ok" : "OVER 1 s")
	printf "   %-40s %8.3f s   %5.2fx json-c\n", "bootrig compare, html", h, h / j
}'
