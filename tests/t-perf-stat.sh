#!/bin/sh
# t-perf-stat: perf stat's counters per metric (initramfs/bench/perfstat.h,
# result.json's metrics[].perf_stat), on real boots of Debian's amd64 and
# cloud-arm64 kernels under icount (TCG: the same CPU model on any host):
#  - every metric of every ABI has a counting pass (ops, ns) and each of
#    perf stat's 16 events exactly once: counted (per operation, >= 0) or
#    absent with a reason (an errno name, not-counted); nothing dropped;
#  - the events count CPU 0 (scope cpu: the CPU the test is pinned to);
#    the software events (cpu-clock, context-switches, cpu-migrations,
#    page-faults, minor-faults, major-faults) are counted on both, and a
#    pass's cpu-clock is its time (within a factor of two per operation),
#    and a pass runs its metric's iters operations (calibrated the same);
#  - amd64 under TCG has no PMU: every hardware event is absent, ENOENT,
#    and the metric says counters=unavailable;
#  - arm64 under TCG has QEMU's PMU: cycles and instructions are counted,
#    the same as the metric's cycles= and instructions= per operation;
#  - the knob counters=0 (bootrig.knob.counters=0): every event absent,
#    "off", no pass, and the boot still PASSes; a suite with perf_stat =
#    false: no counting run, no perf_stat, and the same figures.
# Whether counting moves a figure (it must not, by 0.1 %) is measured by
# make bench (scripts/bench.d/18-perf-stat.sh), not here.
. "$(dirname "$0")/lib.sh"
set -u
RUN="$TOP/build/bootrig"        # the runner at full speed
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

sh "$TOP/scripts/fetch-kernels.sh" amd64 cloud-arm64 >/dev/null ||
	{ not_ok "fetch kernels" "scripts/fetch-kernels.sh failed"; exit 1; }

SW='["cpu-clock","context-switches","cpu-migrations","page-faults","minor-faults","major-faults"]'
HW='["cycles","instructions","branches","branch-misses","cache-references","cache-misses","stalled-cycles-frontend","stalled-cycles-backend","bus-cycles","ref-cycles"]'
# bench_metrics FILE: the metrics of the guest's benchmarks (not boot.*)
BM='[.metrics[] | select(.abi != "boot")]'

for flavour in amd64 cloud-arm64; do
	K=$(kernel_path "$flavour")
	"$RUN" run --kernel "$K" --clock icount --seed 1 -o "$tmp/$flavour" >"$tmp/$flavour.out" 2>&1
	rj=$(find "$tmp/$flavour" -name result.json | head -n 1)
	if [ -z "$rj" ]; then
		not_ok "$flavour: a boot writes result.json" "$(tail -n 3 "$tmp/$flavour.out")"
		continue
	fi
	expect "$flavour: the boot PASSes" "$rj" verdict PASS
	n=$(jq "$BM | length" "$rj")
	abis=$(jq -r "$BM | map(.abi) | unique | join(\",\")" "$rj")
	whole=$(jq -r --argjson sw "$SW" --argjson hw "$HW" "$BM | map(
		(.perf_stat // {}) as \$p | (\$sw + \$hw) as \$all
		| select((\$p.ops // 0) <= 0 or (\$p.ns // 0) <= 0 or \$p.dropped != 0
			 or (\$all | map(. as \$e | ((\$p.events // {}) | has(\$e)) == ((\$p.absent // {}) | has(\$e))) | any)
			 or ((\$p.events // {}) | to_entries | map(.value < 0) | any)
			 or ((\$p.absent // {}) | to_entries | map(.value | test(\"^(E[A-Z0-9]+|not-counted)\$\") | not) | any))
		| \"\(.abi).\(.test).\(.name)\") | join(\" \")" "$rj")
	if [ "$n" -gt 0 ] && [ -z "$whole" ]; then
		ok "$flavour: each of $n metrics ($abis) has a counting pass and all 16 events, counted or absent with a reason"
	else not_ok "$flavour: every metric's perf stat whole" "$n metrics; not whole: $whole"; fi
	sw=$(jq -r --argjson sw "$SW" "$BM | map(select(.perf_stat.events as \$e | \$sw | map(. as \$k | \$e | has(\$k)) | all | not)
		| \"\(.abi).\(.test).\(.name)\") | join(\" \")" "$rj")
	if [ "$n" -gt 0 ] && [ -z "$sw" ]; then ok "$flavour: the six software events are counted on every metric"
	else not_ok "$flavour: software events counted" "missing on: $sw"; fi
	tc=$(jq -r "$BM | map(.perf_stat as \$p | select(\$p.scope != \"cpu\" or (\$p.events[\"cpu-clock\"] // -1) as \$t
		| (\$p.ns / \$p.ops) as \$op | \$t < \$op / 2 or \$t > \$op * 2)
		| \"\(.abi).\(.test).\(.name): \(.perf_stat.scope) \(.perf_stat.events[\"cpu-clock\"]) vs \(.perf_stat.ns / .perf_stat.ops)\") | join(\"; \")" "$rj")
	if [ "$n" -gt 0 ] && [ -z "$tc" ]; then ok "$flavour: every pass counted CPU 0, its cpu-clock per operation its time per operation (within 2x)"
	else not_ok "$flavour: cpu-clock is the pass's time" "$tc"; fi
	# under icount a pass counts the operations its metric was timed at
	# (calibrated the same way: per-operation counts carry per-run costs)
	it=$(jq -r "$BM | map(select(.perf_stat.ops != .iters) | \"\(.abi).\(.test).\(.name) \(.iters) \(.perf_stat.ops)\") | join(\"; \")" "$rj")
	if [ "$n" -gt 0 ] && [ -z "$it" ]; then ok "$flavour: every pass counted its metric's iters operations a run"
	else not_ok "$flavour: a pass counts its metric's iters" "iters, ops: $it"; fi
	case $flavour in
	amd64)
		hw=$(jq -r --argjson hw "$HW" "$BM | map(select((.perf_stat.absent as \$a | \$hw | map(. as \$k | \$a[\$k] == \"ENOENT\") | all | not)
			or .counters != \"unavailable\") | \"\(.abi).\(.test).\(.name)\") | join(\" \")" "$rj")
		if [ "$n" -gt 0 ] && [ -z "$hw" ]; then
			ok "amd64 under TCG (no PMU): all 10 hardware events absent, ENOENT, counters=unavailable, on every metric"
		else not_ok "amd64: hardware events absent with ENOENT" "not so on: $hw"; fi
		;;
	cloud-arm64)
		hw=$(jq -r "$BM | map(.perf_stat as \$p | select(
			(\$p.events.cycles // -1) <= 0 or (\$p.events.instructions // -1) <= 0
			or ((\$p.events.cycles - .cycles) | fabs) > 0.1 or ((\$p.events.instructions - .instructions) | fabs) > 0.1)
			| \"\(.abi).\(.test).\(.name)\") | join(\" \")" "$rj")
		if [ "$n" -gt 0 ] && [ -z "$hw" ]; then
			ok "arm64 under TCG (QEMU's PMU): cycles and instructions counted on every metric, equal to its cycles= and instructions="
		else not_ok "arm64: cycles and instructions counted" "not so on: $hw"; fi
		;;
	esac
done

# counters=0: nothing opened, every event "off", the boot judged as ever
K=$(kernel_path cloud-arm64)
"$RUN" run --kernel "$K" --clock icount --seed 1 --append bootrig.knob.counters=0 -o "$tmp/off" >"$tmp/off.out" 2>&1
rj=$(find "$tmp/off" -name result.json | head -n 1)
if [ -n "$rj" ]; then
	expect "counters=0: the boot PASSes" "$rj" verdict PASS
	off=$(jq -r "$BM | map(select((.perf_stat.ops != null) or (.perf_stat.absent | length) != 16
		or (.perf_stat.absent | to_entries | map(.value == \"off\") | all | not)) | \"\(.abi).\(.test).\(.name)\") | join(\" \")" "$rj")
	n=$(jq "$BM | length" "$rj")
	if [ "$n" -gt 0 ] && [ -z "$off" ]; then ok "counters=0: every event of each of $n metrics absent, off, no pass"
	else not_ok "counters=0: every event off" "not so on: $off"; fi
else not_ok "counters=0: a boot writes result.json" "$(tail -n 3 "$tmp/off.out")"; fi

# compare: the counters are metrics of their own ("NAME:perf-stat.EVENT",
# one observation a boot, and :perf-stat.ipc where cycles counted), shown
# under their metric where they changed (all with --perf-stat-all), and
# they decide nothing. cloud-arm64, 3 seeds a side; the candidate's null
# syscall made 30 % slower (bootrig.knob.slow_null=30: user-mode spinning,
# so instructions per null rise with it, read and the rest do not).
"$RUN" run --kernel "$K" --repeat 3 -o "$tmp/base" >"$tmp/base.out" 2>&1
"$RUN" run --kernel "$K" --repeat 3 --append bootrig.knob.slow_null=30 -o "$tmp/cand" >"$tmp/cand.out" 2>&1
"$BOOTRIG" compare "$tmp/base" "$tmp/cand" >"$tmp/cmp.txt" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -Eq '^ +[0-9.]+ .*\+[0-9.]+%.* aarch64\.lat_syscall\.null:perf-stat\.instructions \(/op\)  regressed' "$tmp/cmp.txt" &&
	grep -q 'aarch64\.lat_syscall\.null:perf-stat\.cpu-clock (ns)' "$tmp/cmp.txt" &&
	! grep -q 'lat_syscall\.read:perf-stat' "$tmp/cmp.txt"; then
	ok "compare: null's instructions and cpu-clock per operation rose with it (shown under it); read's counters did not, not shown"
else not_ok "compare shows the counters that changed" "exit $rc: $(grep -E 'null|read' "$tmp/cmp.txt" | head -8)"; fi
row=$(grep -n 'aarch64\.lat_syscall\.null (us)' "$tmp/cmp.txt" | head -n 1 | cut -d: -f1)
next=$(grep -n 'aarch64\.lat_syscall\.null:perf-stat\.' "$tmp/cmp.txt" | head -n 1 | cut -d: -f1)
check "compare: the counters' rows follow their metric's" test -n "$row" -a "$((${row:-0} + 1))" = "${next:-0}"
"$BOOTRIG" compare "$tmp/base" "$tmp/cand" --perf-stat-all >"$tmp/cmp-all.txt" 2>&1
all=$(grep -o 'aarch64\.lat_syscall\.[a-z_]*:perf-stat\.[a-z-]*' "$tmp/cmp-all.txt" | sort -u | wc -l)
# 6 metrics x (6 software events + cycles + instructions + ipc)
check "compare --perf-stat-all: every counter of every aarch64 metric (54 rows, got $all)" test "$all" = 54
"$BOOTRIG" compare "$tmp/base" "$tmp/cand" --metric '*:perf-stat.instructions' --format json >"$tmp/cmp.json" 2>"$tmp/cmp-json.err"
rc=$?
j=$(jq -r '[.metrics[] | select(.perf_stat == true)] | length' "$tmp/cmp.json" 2>/dev/null)
plain=$(jq -r '[.metrics[] | select(.perf_stat != true)] | length' "$tmp/cmp.json" 2>/dev/null)
regressed=$(jq -c '.summary' "$tmp/cmp.json" 2>/dev/null)
if [ "$rc" = 0 ] && [ "${j:-0}" = 12 ] && [ "$plain" = 0 ]; then
	ok "compare --metric '*:perf-stat.instructions': the 12 instructions rows alone (JSON perf_stat true), null's regressed but none a regression: exit 0"
else not_ok "counter rows decide nothing" "exit $rc, $j rows, regressions $regressed: $(head -c 300 "$tmp/cmp-json.err")"; fi

# The history database keeps the counters: a boot's counters are metric
# rows of their own, so `history` follows one (METRIC:perf-stat.EVENT) and
# a side read from the database is the side read from result.json. The
# candidate's boots recorded as another kernel (their kernel.sha256 and id
# rewritten: one kernel file here, and history tells kernels by them).
cp -r "$tmp/cand" "$tmp/cand-k"
for f in $(find "$tmp/cand-k" -name result.json); do
	jq '.kernel.sha256 = ("c" * 64) | .kernel.id = "slow-null"' "$f" >"$f.new" && mv "$f.new" "$f"
done
D=$tmp/h.db
"$BOOTRIG" import --db "$D" "$tmp/base" "$tmp/cand-k" >"$tmp/imp.out" 2>&1
rc=$?
rows=$(sqlite3 "$D" "SELECT count(*) FROM metric WHERE name LIKE '%:perf-stat.%'" 2>&1)
want=$(cat "$tmp"/base/*/*/*/result.json "$tmp"/cand-k/*/*/*/result.json |
	jq -s '[.[].metrics[] | (.perf_stat.events // {} | length) + (if .perf_stat.events.cycles != null and .perf_stat.events.instructions != null then 1 else 0 end)] | add')
check "import: every counter of the 6 boots is a metric row ($rows rows, result.json has $want)" test "$rc" = 0 -a "$rows" = "$want"
"$BOOTRIG" history --db "$D" aarch64.lat_syscall.null:perf-stat.instructions >"$tmp/hist.txt" 2>&1
rc=$?
sed 's/^/# /' "$tmp/hist.txt"
if [ "$rc" = 0 ] && grep -q '^metric: aarch64\.lat_syscall\.null:perf-stat\.instructions (/op, lower is better)$' "$tmp/hist.txt" &&
	grep -Eq '^  2 .* 3 +[0-9.]+ .* \+[0-9.]+% +[<0-9.]+ +regressed  <- change point$' "$tmp/hist.txt" &&
	grep -q '^1 change point: ' "$tmp/hist.txt"; then
	ok "history METRIC:perf-stat.instructions: the slow-null kernel is its change point"
else not_ok "history of a counter" "exit $rc: $(tail -n 4 "$tmp/hist.txt")"; fi
"$BOOTRIG" history --db "$D" aarch64.lat_syscall.read:perf-stat.instructions >"$tmp/hist-read.txt" 2>&1
rc=$?
check "history of read's instructions: no change point (read was not slowed)" \
	test "$rc" = 0 -a "$(grep -c '^0 change points$' "$tmp/hist-read.txt")" = 1 -a "$(grep -c '^  2 ' "$tmp/hist-read.txt")" = 1
"$BOOTRIG" compare "db:$D:kernel=$(basename "$tmp"/base/*)" "db:$D:kernel=slow-null" --perf-stat-all >"$tmp/cmp-db.txt" 2>&1
grep 'aarch64\.' "$tmp/cmp-all.txt" >"$tmp/rows-dir.txt"
grep 'aarch64\.' "$tmp/cmp-db.txt" >"$tmp/rows-db.txt"
if [ "$(grep -c ':perf-stat\.' "$tmp/rows-db.txt")" -gt 0 ] && cmp -s "$tmp/rows-dir.txt" "$tmp/rows-db.txt"; then
	ok "compare of the database's sides: every row, counters too, as compare of the directories printed it"
else not_ok "compare db: sides' counters" "$(diff "$tmp/rows-dir.txt" "$tmp/rows-db.txt" | head -n 6)"; fi

# What the guest could not count has no rows, and compare says so once, by
# ABI and reason: amd64 under TCG has no PMU (every hardware event ENOENT);
# counters=0 opened nothing (every event off), on that side only.
"$BOOTRIG" compare "$tmp/amd64" "$tmp/amd64" >"$tmp/cmp-amd64.txt" 2>/dev/null
hw=$(echo "$HW" | jq -r 'join(", ")')
n=$(grep -c "^warning: perf stat could not count these on every side's boots, so they have no rows: x86_64: $hw (ENOENT); " "$tmp/cmp-amd64.txt")
check "compare, amd64 under TCG: one note names the hardware events not counted, x86_64's (ENOENT), for every side" test "$n" = 1
"$BOOTRIG" compare "$tmp/cloud-arm64" "$tmp/off" >"$tmp/cmp-off.txt" 2>/dev/null
all=$(echo "$SW" "$HW" | jq -rs 'add | join(", ")')
if grep -q "^warning: perf stat could not count these on CAND's boots, so they have no rows: aarch64: $all (off); " "$tmp/cmp-off.txt" &&
	grep -q "^warning: perf stat could not count these on BASE's boots, so they have no rows: aarch64: branches, " "$tmp/cmp-off.txt" &&
	! grep -q 'aarch64: cycles' "$tmp/cmp-off.txt"; then
	ok "compare against counters=0: CAND's every event off, BASE's the ones QEMU's PMU lacks (ENOENT), each side's own note"
else not_ok "compare notes each side's uncounted events" "$(grep 'perf stat could not' "$tmp/cmp-off.txt" | cut -c1-300)"; fi
