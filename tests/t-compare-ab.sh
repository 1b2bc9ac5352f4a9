#!/bin/sh
# t-compare-ab: real A/B comparisons on the Debian amd64 kernel, booted by
# `bootrig run` (libvirt, QEMU/TCG), 5 boots a side, smoke suite
# (lat_syscall on every ABI), as four variants of one run:
#   base   the default command line (x32 disabled, Debian's default)
#   same   the default again: an A/A pair, which must show no change
#   x32    syscall.x32=y: x32 becomes ok; the lmbench table with p-values
#   slow   bootrig.knob.slow_null=30: the guest's null syscall made 30%
#          slower, which compare must report as a regression (exit 1)
# QEMU runs with its instruction-counting clock, bootrig's default for a
# TCG target (targets.cfg `icount`, result.json "clock": "icount"): on this
# shared host wall-clock TCG timings spread 50-100% from boot to boot, so
# only a deterministic clock makes "a 30% change is found, an A/A pair is
# not" a test that means something. The statistics are the same either way.
# The boots run repeat by repeat (base/1, same/1, x32/1, slow/1, base/2...),
# so host load drifts alike on every side.
. "$(dirname "$0")/lib.sh"
set -u
tmp=$(mktemp -d /tmp/t-compare-ab.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
export NO_COLOR=1
FIX="$TOP/tests/fixtures/compare"
RUN="$TOP/build/bootrig"        # the runner at full speed; compare is checked sanitized
kernel=$(kernel_path amd64)
if [ ! -f "$kernel" ]; then
	not_ok "the Debian amd64 kernel is available" "scripts/fetch-kernels.sh amd64 failed"
	echo "1..$_tap_n"
	exit 0
fi

R="$tmp/results"
"$RUN" run --kernel "$kernel" --suite smoke --repeat 5 -j 2 \
	--variant base= --variant same= --variant x32=syscall.x32=y \
	--variant slow=bootrig.knob.slow_null=30 -o "$R" >"$tmp/run.log" 2>&1
grep -E '^ +[a-z0-9.-]+ +(base|same|x32|slow) +[0-9]+ +[A-Z_]+ ' "$tmp/run.log" | grep -v ' PASS ' | sed 's/^/# not PASS: /'
K=$(ls -d "$R"/*/ | head -1)
K=${K%/}
usable=0
for side in base same x32 slow; do
	n=$(grep -l '"verdict": *"PASS"' "$K/$side"/*/result.json 2>/dev/null | wc -l)
	[ "$n" -ge 3 ] && usable=$((usable + 1))
	echo "# $side: $n of 5 boots PASS"
done
if [ $usable -eq 4 ]; then ok "bootrig run: 4 sides x 5 boots, at least 3 PASS on each"
else not_ok "bootrig run: 4 sides x 5 boots" "$(tail -5 "$tmp/run.log")"; fi
clocks=$(cat "$K"/*/*/result.json | tr -d ' \n' | grep -o '"clock":"[a-z]*"' | sort | uniq -c | tr -s ' ')
if [ "$clocks" = ' 20 "clock":"icount"' ]; then ok "every boot ran on the icount clock (the TCG default)"
else not_ok "every boot ran on the icount clock" "$clocks"; fi
R=$K
# --- x32 enabled vs default: the lmbench table, and x32 becomes ok ---
"$BOOTRIG" compare "$R/base" "$R/x32" >"$tmp/x32.txt" 2>"$tmp/x32.err"
rc=$?
sed 's/^/# /' "$tmp/x32.txt"
rows=0
for m in null read write stat fstat open_close; do
	grep -Eq "^ +[0-9.]+ ± *[0-9.]+% +[-+][0-9.]+% +[0-9.]+ ± *[0-9.]+% +(<0\.0001|[01]\.[0-9]+) +(<0\.0001|[01]\.[0-9]+) +x86_64\.lat_syscall\.$m \(us\)" "$tmp/x32.txt" &&
		rows=$((rows + 1))
done
if [ $rc -le 1 ] && [ $rows -eq 6 ]; then ok "x32 A/B: null read write stat fstat open_close with %change and p-values"
else not_ok "x32 A/B table" "rc=$rc, $rows of 6 rows"; fi
if grep -Eq '^x32 +unsupported +ok +changed' "$tmp/x32.txt" && grep -q 'x32.lat_syscall.null (us)' "$tmp/x32.txt"; then
	ok "x32 A/B: x32 unsupported -> ok, its metrics appear"
else not_ok "x32 A/B: ABI table"; fi

# --- the known change: 30% slower null is a significant regression, exit 1 ---
"$BOOTRIG" compare "$R/base" "$R/slow" --metric 'x86_64.*' >"$tmp/slow.txt" 2>&1
rc=$?
line=$(grep -F 'x86_64.lat_syscall.null (us)' "$tmp/slow.txt" | head -1)
echo "# $line"
if [ $rc -eq 1 ] && echo "$line" | grep -q 'regressed$'; then ok "slow_null=30: null regressed, exit 1"
else not_ok "slow_null=30: null regressed, exit 1" "rc=$rc: $line"; fi

# --- two identical sides: nothing significant at p < 0.01 ---
# (a boot that FAILed for its own reasons is a new failing verdict, exit 1:
# the metrics are what this checks)
"$BOOTRIG" compare "$R/base" "$R/same" --format json -o "$tmp/same.json" 2>/dev/null
rc=$?
"$BOOTRIG" compare "$R/base" "$R/same" 2>/dev/null | grep -E 'regressed$|improved$' | sed 's/^/# /'
if [ $rc -le 1 ] && python3 - "$tmp/same.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["summary"]
assert s["regressed"] == 0 and s["improved"] == 0, s
assert sum(1 for m in d["metrics"] if m["changes"][0]["p_welch"] is not None) >= 12
PY
then ok "A/A (default twice): 12 metrics tested, none significant at p < 0.01"
else not_ok "A/A (default twice): none significant" "rc=$rc"; fi

# --- all three candidates at once: JUnit and HTML of the real data ---
"$BOOTRIG" compare "$R/base" "$R/same" "$R/x32" "$R/slow" --format junit -o "$tmp/ab.xml"
if junit_valid "$tmp/ab.xml"; then ok "JUnit of the real A/B validates (junit-10.xsd and JUnit.xsd)"
else not_ok "JUnit of the real A/B validates" "$JUNIT_ERR"; fi
"$BOOTRIG" compare "$R/base" "$R/same" "$R/x32" "$R/slow" --format html -o "$tmp/ab.html"
CHROME=$(command -v chromium || true)
if [ -z "$CHROME" ]; then
	not_ok "real A/B HTML renders in Chromium" "chromium not installed"
else
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
		--user-data-dir="$tmp/chrome" --dump-dom "file://$tmp/ab.html" >"$tmp/dom" 2>"$tmp/chrome.err"
	# a chart per row: the 18 metrics, and a counter's row (NAME:perf-stat.EVENT)
	# where a candidate changed it (slow's null: its cpu-clock, instructions)
	"$BOOTRIG" compare "$R/base" "$R/same" "$R/x32" "$R/slow" --format json -o "$tmp/ab.json"
	rows=$(jq '.metrics | length' "$tmp/ab.json")
	plain=$(jq '[.metrics[] | select(.perf_stat != true)] | length' "$tmp/ab.json")
	nsvg=$(grep -c '<svg' "$tmp/ab.html")
	ready=$(sed -n 's/.*data-bootrig-ready="\([0-9]*\)".*/\1/p' "$tmp/dom" | head -1)
	if [ "$plain" = 18 ] && [ "$nsvg" = "$rows" ] && [ "${ready:-x}" = "$rows" ] && ! grep -q 'Uncaught' "$tmp/chrome.err"; then
		ok "real A/B HTML: a chart per row rendered (18 metrics, $((rows - 18)) counters that changed), no console error"
	else not_ok "real A/B HTML" "svg=$nsvg ready=$ready rows=$rows metrics=$plain"; fi
	[ -n "${KEEP_SHOT:-}" ] && timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$tmp/chrome" --window-size=1100,2400 --screenshot="$KEEP_SHOT" \
		"file://$tmp/ab.html" >/dev/null 2>&1
fi

# --- --logs on real consoles: two boots of one kernel print the same lines ---
"$BOOTRIG" compare "$R/base" "$R/same" --logs >"$tmp/logs.txt" 2>&1
n=$(sed -n 's/^console lines one side prints.*: \([0-9]*\)$/\1/p' "$tmp/logs.txt")
grep '^  only' "$tmp/logs.txt" | sed 's/^/# /'
[ "${n:-99}" -le 3 ] && ok "--logs: A/A consoles differ in ${n} normalized lines" ||
	not_ok "--logs: A/A consoles" "${n:-?} lines"
echo "1..$_tap_n"
