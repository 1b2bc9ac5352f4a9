#!/bin/sh
# 41-judge-corpus: how well the judge finds and names kernel crash reports.
#   The corpus is tests/fixtures/crash/*.log: real reports (kernel
#   documentation, syzbot, lkml, our own QEMU boots of Debian kernels) and
#   clean boots, each with the events it must give. Two detectors, same
#   corpus, same invocation:
#     naive   the usual CI grep: a log "crashed" when a line matches
#             Kernel panic|Oops|BUG:|WARNING:|Call Trace|Call trace|
#             Unable to handle|INFO: task|UBSAN:|general protection (baseline);
#     judge   bootrig's judge (judge/judge.c + judge/crash*.c), through
#             build/tests/tools/judge-corpus --stats;
#   for each: crash logs detected, clean logs flagged, and for the judge the
#   titles that are exact and the functions it names right; the ratio
#   column is judge / naive.
#   The detector was tuned on most of this corpus, so its 100 % there is a
#   regression bar, not a forecast: the ho-*, ho2-* and ho3-* fixtures were
#   written before the detector first saw them (first runs: 8/12, 5/8 and
#   5/6 titles exact, 25/26 reports detected) and fixed after.
#   Then throughput: seconds to judge a 16 MiB console log (kernel lines,
#   reports and records, tests/tools/br-genlog) with `bootrig judge`,
#   against `grep -cE` of the naive pattern over the same file (baseline).
#   Last, syzkaller's report corpus (scripts/crash-titles.sh).
set -u
cd "$(dirname "$0")/../.."
. scripts/bench-lib.sh

make -s build/tests/tools/judge-corpus build/tests/tools/br-genlog build/bootrig > /dev/null || exit 1
out=build/bench/judge-corpus
bench_out "$out"
pattern='Kernel panic|Oops|BUG:|WARNING:|Call Trace|Call trace|Unable to handle|INFO: task|UBSAN:|general protection'

crash=0 clean=0 naive_hit=0 naive_flag=0
for f in tests/fixtures/crash/*.log; do
	sed '/^# /d' "$f" > "$out/body"
	if grep -q '^# EVENT: none' "$f"; then
		clean=$((clean + 1))
		grep -aqE "$pattern" "$out/body" && naive_flag=$((naive_flag + 1))
	else
		crash=$((crash + 1))
		grep -aqE "$pattern" "$out/body" && naive_hit=$((naive_hit + 1))
	fi
done

build/tests/tools/judge-corpus --stats tests/fixtures/crash/*.log > "$out/stats"
judge_hit=$(sed -n 's/^crashes detected: *\([0-9]*\) of.*/\1/p' "$out/stats")
judge_flag=$(sed -n 's/^clean logs flagged: *\([0-9]*\) of.*/\1/p' "$out/stats")
titles=$(sed -n 's/^titles exact: *//p' "$out/stats")
functions=$(sed -n 's/^functions right: *//p' "$out/stats")

pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f%%", b ? 100 * a / b : 0 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b) printf "%.2f", a / b; else printf "-" }'; }

echo "   corpus (tuned on: the judge was fixed on it, a regression bar, not a forecast): $crash crash logs, $clean clean logs ($(sed -n 's/^fixtures: *//p' "$out/stats"))"
printf '   %-28s %-16s %-16s %s\n' "" naive judge "judge/naive"
printf '   %-28s %-16s %-16s %s\n' "crash logs detected" "$naive_hit ($(pct "$naive_hit" "$crash"))" \
	"$judge_hit ($(pct "$judge_hit" "$crash"))" "$(ratio "$judge_hit" "$naive_hit")"
printf '   %-28s %-16s %-16s %s\n' "clean logs flagged" "$naive_flag ($(pct "$naive_flag" "$clean"))" \
	"$judge_flag ($(pct "$judge_flag" "$clean"))" "$(ratio "$judge_flag" "$naive_flag")"
printf '   %-28s %-16s %s\n' "titles exact" "-" "$titles"
printf '   %-28s %-16s %s\n' "titles naming the function" "-" "$functions"

# Throughput on a big console log.
sed '/^# /d' tests/fixtures/crash/clean-boot-cloud-arm64.log > "$out/kernel.log"
build/tests/tools/br-genlog --kernel-log "$out/kernel.log" --size 16777216 --seed 7 \
	-o "$out/big.log" > "$out/genlog.txt"
t0=$(date +%s.%N)
grep -acE "$pattern" "$out/big.log" > /dev/null
t1=$(date +%s.%N)
build/bootrig judge "$out/big.log" > "$out/big.judge"
t2=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v g="$(cat "$out/genlog.txt")" 'BEGIN {
	printf "   16 MiB console (%s):\n", g
	printf "   %-28s %.3f s\n", "grep -cE naive (baseline)", b - a
	printf "   %-28s %.3f s (%.0f MiB/s)   ratio %.1f\n", "bootrig judge", c - b, 16 / (c - b), (c - b) / (b - a)
}'

# Real logs nobody here wrote: syzkaller's own report test data with the
# title syzbot gives each (../shared/corpus/syzkaller-report, or any
# directory in its format: BOOTRIG_SYZ_CORPUS), judged log by log
# (scripts/crash-titles.sh): crashes found, clean logs left clean, titles
# equal to syzbot's (or one of its ALT titles, ignoring case).
syz=${BOOTRIG_SYZ_CORPUS:-../shared/corpus/syzkaller-report/logs}
if [ -d "$syz" ]; then
	echo "   syzkaller's report corpus ($syz; its held-back half measures whether the rules generalize):"
	sh scripts/crash-titles.sh "$syz" build/bootrig | sed 's/^/   /'
else
	echo "   syzkaller's report corpus: no $syz (set BOOTRIG_SYZ_CORPUS)"
fi
