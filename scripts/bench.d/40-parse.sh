#!/bin/sh
# 40-parse: console parsing speed, in MB/s over a 100 MB console log, through
# the protocol decoder alone and through the whole judge (judge_feed: line
# assembly, crash detection, decoder), beside two baselines timed in the
# same run over the same file: `grep -c @@BR` and `wc -l`. Target: the
# judge at >= 200 MB/s.
#
# The log (build/bench/console-100M.log) is made by tests/tools/br-genlog:
# a real Debian cloud-arm64 boot log's kernel lines
# (tests/fuzz/seeds/common/real-cloud-arm64-nofs-panic.log) and a full run
# of protocol records per boot, with the damage a serial console does
# (cuts, flips, lost lines, CRLF, ANSI, NUL), repeated to 100 MB. The tools
# are built here with the release flags (-O2, no sanitizers) against the
# release objects of `make` (build/host).
#
# BENCH_PARSE_MB changes the size (default 100).
set -u
cd "$(dirname "$0")/../.."
. scripts/bench-lib.sh

mb=${BENCH_PARSE_MB:-100}
out=build/bench
mkdir -p "$out"
# The release objects but main() (and the plugin modules), as the Makefile lists them.
objs=$(for o in $(make_var HOST_LIB_OBJS); do [ -f "$o" ] && echo "$o"; done)
[ -n "$objs" ] || { echo "40-parse: run make first (no build/host objects)" >&2; exit 1; }
for tool in br-genlog parse-bench; do
	# shellcheck disable=SC2046,SC2086
	${CC:-gcc} -std=c11 -D_GNU_SOURCE -O2 $(make_var INCLUDES) \
		$(make_var PKG_CFLAGS) -o "$out/$tool" "tests/tools/$tool.c" $objs \
		$(make_var HOST_LIBS) 2>"$out/$tool.err" ||
		{ echo "40-parse: cannot build $tool:"; head -n 5 "$out/$tool.err"; exit 1; }
done

log=$out/console-${mb}M.log
if [ ! -s "$log" ] || [ "$out/br-genlog" -nt "$log" ]; then
	"$out/br-genlog" --kernel-log tests/fuzz/seeds/common/real-cloud-arm64-nofs-panic.log \
		--damage --seed 40 --size $((mb * 1000000)) -o "$log" >"$out/genlog.out" ||
		{ echo "40-parse: cannot write $log"; exit 1; }
fi
bytes=$(wc -c <"$log")
echo "   log: $log, $(cat "$out/genlog.out" 2>/dev/null || echo "$bytes bytes")"

# Best wall time of 3 runs of a command, in seconds. The output goes to a
# file: GNU grep stops at the first match when it writes to /dev/null.
elapsed() {
	best=
	for _ in 1 2 3; do
		t0=$(date +%s.%N)
		"$@" >"$out/elapsed.out" 2>&1
		t1=$(date +%s.%N)
		best=$(echo "$t0 $t1 ${best:-1e9}" | awk '{ d = $2 - $1; printf "%.4f", d < $3 ? d : $3 }')
	done
	echo "$best"
}

# The best of 3 runs of parse-bench MODE (its line with the highest MB/s).
bench_best() {
	for _ in 1 2 3; do "$out/parse-bench" "$1" "$log"; done | sort -k6 -g | tail -n 1
}

cat "$log" >/dev/null   # warm the page cache for the baselines
grep_s=$(elapsed grep -c @@BR "$log")
wc_s=$(elapsed wc -l "$log")
dec=$(bench_best decoder)
jud=$(bench_best judge)

rate() { echo "$bytes $1" | awk '{ printf "%.1f", $1 / 1e6 / $2 }'; }
grep_r=$(rate "$grep_s")
wc_r=$(rate "$wc_s")
dec_r=$(echo "$dec" | awk '{ print $6 }')
jud_r=$(echo "$jud" | awk '{ print $6 }')

printf '   %-34s %10s %12s %14s\n' "reader" "MB/s" "vs grep -c" "records"
printf '   %-34s %10s %12s %14s\n' "wc -l (baseline)" "$wc_r" "$(ratio "$wc_r" "$grep_r")" "-"
printf '   %-34s %10s %12s %14s\n' "grep -c @@BR (baseline)" "$grep_r" "1.00" "-"
printf '   %-34s %10s %12s %14s\n' "protocol decoder (lines)" "$dec_r" "$(ratio "$dec_r" "$grep_r")" \
	"$(echo "$dec" | awk '{ print $8 }')"
printf '   %-34s %10s %12s %14s\n' "judge_feed (4 KiB chunks)" "$jud_r" "$(ratio "$jud_r" "$grep_r")" \
	"$(echo "$jud" | awk '{ print $8 }')"
verdict=$(echo "$jud_r" | awk '{ print ($1 >= 200) ? "met" : "NOT met" }')
echo "   target: judge >= 200 MB/s: $verdict"
