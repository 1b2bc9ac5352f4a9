#!/bin/sh
# t-compare: `bootrig compare` over synthetic results trees (written by
# tests/tools/mkresults exactly as runner/RESULTS.md says) and the small
# hand-kept fixtures in tests/fixtures/compare: verdicts and exit statuses,
# the threshold and alpha, --metric, new failures, ABI changes, bad input,
# and every format (JSON parsed, JUnit validated against the Jenkins
# schema, HTML rendered by headless Chromium).
. "$(dirname "$0")/lib.sh"
set -u
MK="$TOP/build/tests/tools/mkresults"
FIX="$TOP/tests/fixtures/compare"
tmp=$(mktemp -d /tmp/t-compare.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
export NO_COLOR=1 ASAN_OPTIONS=detect_leaks=1

# mk DIR KERNEL SEED [args]: 5 boots of a kernel with the usual ABI table
mk() {
	d=$1 k=$2 seed=$3
	shift 3
	"$MK" "$tmp/$d" "$k" default 5 "$seed" --abi x86_64=ok --abi x32=unsupported "$@"
}
NULL=x86_64:lat_syscall:null:us:lower
READ=x86_64:lat_syscall:read:us:lower
BW=x86_64:bw_pipe:bw:MB/s:higher

# compare ARGS...: runs the tool, output in $tmp/out, status in $rc
compare() {
	"$BOOTRIG" compare "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
# has TEXT: the last output holds TEXT (a fixed string)
has() { grep -qF -- "$1" "$tmp/out"; }

# --- A/A: the same distribution on both sides is not a change ---
mk a1 k-a 11 $NULL:14.1:2 $READ:20:2 $BW:900:2
mk a2 k-b 12 $NULL:14.1:2 $READ:20:2 $BW:900:2
compare "$tmp/a1" "$tmp/a2"
if [ $rc -eq 0 ] && has "0 regressed, 0 improved"; then ok "identical sides: exit 0, nothing significant"
else not_ok "identical sides: exit 0, nothing significant" "rc=$rc $(tail -1 "$tmp/out")"; fi
if has "x86_64.lat_syscall.null (us)" && has "x86_64.bw_pipe.bw (MB/s)"; then ok "every metric has a row"
else not_ok "every metric has a row"; fi

# --- a known 30% slowdown of null is a significant regression ---
mk slow k-slow 13 $NULL:18.33:2 $READ:20:2 $BW:900:2
compare "$tmp/a1" "$tmp/slow"
line=$(grep -F "x86_64.lat_syscall.null" "$tmp/out" | head -1)
if [ $rc -eq 1 ] && echo "$line" | grep -q "regressed"; then ok "30% slower null: regressed, exit 1"
else not_ok "30% slower null: regressed, exit 1" "rc=$rc line: $line"; fi
# the robot's columns: base ±stddev%, %change, cand ±stddev%, p-values, metric
if echo "$line" | grep -Eq '^ +[0-9.]+ ± +[0-9.]+% +\+[23][0-9]\.[0-9]% +[0-9.]+ ± +[0-9.]+% +(<0\.0001|0\.00[0-9]+) +[0-9.]+ +x86_64'; then
	ok "kernel test robot row: base ±%stddev %change cand ±%stddev p metric"
else not_ok "kernel test robot row" "$line"; fi
if grep -F "x86_64.lat_syscall.read" "$tmp/out" | head -1 | grep -q "regressed"; then
	not_ok "unchanged read is not flagged"
else ok "unchanged read is not flagged"; fi

# --- direction: lower null is an improvement, lower bandwidth a regression ---
mk fast k-fast 14 $NULL:11:2 $READ:20:2 $BW:700:2
compare "$tmp/a1" "$tmp/fast"
if grep -F "lat_syscall.null" "$tmp/out" | head -1 | grep -q improved &&
   grep -F "bw_pipe.bw" "$tmp/out" | head -1 | grep -q regressed && [ $rc -eq 1 ]; then
	ok "better=lower/higher decide improved vs regressed"
else not_ok "better=lower/higher decide improved vs regressed" "rc=$rc"; fi

# --- threshold and alpha ---
mk tiny1 k-t1 15 $NULL:14.1:0.1
mk tiny2 k-t2 16 $NULL:14.5:0.1
compare "$tmp/tiny1" "$tmp/tiny2"
[ $rc -eq 0 ] && ok "a significant 2.8% change is below the 5% threshold" ||
	not_ok "a significant 2.8% change is below the 5% threshold" "rc=$rc"
compare "$tmp/tiny1" "$tmp/tiny2" --threshold 1
[ $rc -eq 1 ] && ok "--threshold 1 reports it" || not_ok "--threshold 1 reports it" "rc=$rc"
compare "$tmp/tiny1" "$tmp/tiny2" --threshold 1 --alpha 1e-12
[ $rc -eq 0 ] && ok "--alpha 1e-12 does not" || not_ok "--alpha 1e-12 does not" "rc=$rc"

# --- the seeds' noise floor: a change within a side's own spread is not one ---
# BASE's five seeds span 12% of their mean; +11% is significant (p < 0.01)
# and past 5%, but within what the seeds alone move it; +15% is past both
mk wide1 k-w1 17 $NULL:9.4/9.7/10/10.3/10.6:0
mk wide2 k-w2 18 $NULL:10.5/10.8/11.1/11.4/11.7:0
mk wide3 k-w3 19 $NULL:10.9/11.2/11.5/11.8/12.1:0
compare "$tmp/wide1" "$tmp/wide2"
line=$(grep -F "x86_64.lat_syscall.null" "$tmp/out" | head -1)
if [ $rc -eq 0 ] && echo "$line" | grep -q "within the seeds' spread (12.0%)"; then
	ok "+11% within BASE's 12% seed spread: not changed, named, exit 0"
else not_ok "+11% within the seeds' spread" "rc=$rc line: $line"; fi
compare "$tmp/wide1" "$tmp/wide2" --format json
fl=$("$JGET" "$tmp/out" metrics.0.changes.0.floor_pct) th=$("$JGET" "$tmp/out" metrics.0.changes.0.threshold_pct)
check "compare --format json: floor_pct the seeds' 12% spread, threshold_pct the floor (above 5) ($fl, $th)" \
	awk -v f="$fl" -v t="$th" 'BEGIN { exit !(f > 11.999 && f < 12.001 && t == f) }'
compare "$tmp/wide1" "$tmp/wide3"
line=$(grep -F "x86_64.lat_syscall.null" "$tmp/out" | head -1)
if [ $rc -eq 1 ] && echo "$line" | grep -q "regressed"; then ok "+15%, past the seeds' 12% spread: regressed"
else not_ok "+15% past the seeds' spread: regressed" "rc=$rc line: $line"; fi

# --- scripts/noise-floor.sh and aa-pairs.sh, the README's noise-floor figures ---
# 20 seeds of one kernel: read's medians cycle 10, 10.1, ... 10.4 (spread
# 4 % of 10.2 over any 10 seeds); bw's seeds 6-10 run far above 1-5, so
# pair 0 is flagged once (improved: exit 0), pair 1 (seeds 11-20, alike) not
"$MK" "$tmp/nf" k-nf default 20 1 --seeds 1 $READ:10/10.1/10.2/10.3/10.4:0 \
	$BW:900/901/902/901/900/1800/1801/1802/1801/1800/900/901/900/901/900/901/900/901/900/901:0
sh "$TOP/scripts/noise-floor.sh" "$tmp/nf" 10 >"$tmp/out" 2>"$tmp/err"
check "noise-floor.sh: read over seeds 1-10, spread 3.92 % of its mean" grep -qF "| x86_64.lat_syscall.read | us | 10 | 10.2 | 3.92 |" "$tmp/out"
sh "$TOP/scripts/aa-pairs.sh" "$tmp/nf" "$BOOTRIG" >"$tmp/out" 2>"$tmp/err"
check "aa-pairs.sh: pair 0's bandwidth flagged, pair 1 clean, the total" sh -c \
	"grep -q 'pair 0: seeds 1-5 vs 6-10: exit 0, flagged 1 of 2' '$tmp/out' &&
	 grep -q 'pair 1: seeds 11-15 vs 16-20: exit 0, flagged 0 of 2' '$tmp/out' &&
	 grep -q 'A/A over 2 pairs: flagged 1 of 4 metric comparisons' '$tmp/out'"
sh "$TOP/scripts/noise-floor.sh" "$tmp/a1" 10 >"$tmp/out" 2>"$tmp/err"
rc=$?
check "noise-floor.sh: a tree without seeds fails, named (exit $rc)" sh -c "[ $rc = 1 ] && grep -q 'no PASS boot of seeds 1-10' '$tmp/err'"

# --- boot time's initcalls: the text lists those that changed, counts the rest ---
IC=boot:initcall
mk bt1 k-bt1 21 $IC:slow_init:us:lower:100:1 $IC:same_init:us:lower:50:1 $IC:other_init:us:lower:70:1 boot:phase:total:us:lower:1000:1
mk bt2 k-bt2 22 $IC:slow_init:us:lower:160:1 $IC:same_init:us:lower:50:1 $IC:other_init:us:lower:70:1 boot:phase:total:us:lower:1060:1
compare "$tmp/bt1" "$tmp/bt2"
if [ $rc = 1 ] && grep -q 'boot.initcall.slow_init (us)  regressed' "$tmp/out" && ! has "same_init" &&
   has "(2 boot.initcall metrics did not change: not listed; --metric or --format json shows them)" &&
   has "boot.phase.total (us)"; then
	ok "boot.initcall rows: the one that moved listed (regressed), the 2 unchanged counted, the phases listed"
else not_ok "boot.initcall rows in the text" "rc=$rc $(grep -c initcall "$tmp/out") initcall lines"; fi
compare "$tmp/bt1" "$tmp/bt2" --metric 'boot.initcall.*'
check "--metric 'boot.initcall.*' lists the unchanged ones too" has "boot.initcall.same_init (us)"
compare "$tmp/bt1" "$tmp/bt2" --format json
check "--format json keeps every initcall" test "$("$JGET" "$tmp/out" metrics.2.name)" = other_init

# --- --metric selects by abi.test.name glob ---
compare "$tmp/a1" "$tmp/slow" --metric '*.read'
if [ $rc -eq 0 ] && ! has "lat_syscall.null" && has "lat_syscall.read"; then ok "--metric '*.read' keeps only read"
else not_ok "--metric '*.read' keeps only read" "rc=$rc"; fi

# --- new kernel failure and failing verdict; the boot is left out ---
mk crash k-crash 17 $NULL:14.1:2 --boot '2=PANIC:panic:Kernel panic - not syncing: Attempted to kill init!'
mk crash2 k-crash2 24 $NULL:14.1:2 --boot '1=PANIC:panic:Kernel panic - not syncing: Attempted to kill init!' \
	--boot '4=PANIC:panic:Kernel panic - not syncing: Attempted to kill init!'
compare "$tmp/a1" "$tmp/crash2"
has "(2 of 5 boots)" && ok "a panic in two boots counts two boots" || not_ok "a panic in two boots counts two boots"

# the same crash on both sides is one identity: not new, each side's count
compare "$tmp/crash" "$tmp/crash2"
if has "known kernel failures (BASE showed the same title):" &&
   has "  CAND [panic] Kernel panic - not syncing: Attempted to kill init! (2 of 5 boots; BASE 1 of 5)" &&
   ! has "new kernel failures (titles"; then
	ok "the same title on BASE: a known crash, 2 of 5 boots against BASE's 1 of 5, not new"
else not_ok "a crash BASE showed too" "rc=$rc $(grep -A2 -i 'kernel failures' "$tmp/out")"; fi
"$BOOTRIG" compare "$tmp/crash" "$tmp/crash2" --format json -o "$tmp/known.json" 2>/dev/null
if [ "$(jq -c '[.known_events[] | [.side, .kind, .boots, .base_boots]], (.new_events | length)' "$tmp/known.json" | tr -d '\n')" = '[[1,"panic",2,1]]0' ]; then
	ok "compare --format json: known_events (side, kind, boots, base_boots), no new_events"
else not_ok "compare --format json: known_events" "$(jq -c '.known_events, .new_events' "$tmp/known.json")"; fi
compare "$tmp/a1" "$tmp/crash"
if [ $rc -eq 1 ] && has "[panic] Kernel panic - not syncing: Attempted to kill init! (1 of 5 boots)" &&
   has "CAND  k-crash default #2 PANIC" && has "CAND $tmp/crash (n=4, seeds unknown)"; then
	ok "a new panic: exit 1, listed, its boot left out (n=4)"
else not_ok "a new panic: exit 1, listed, its boot left out" "rc=$rc"; fi
compare "$tmp/crash" "$tmp/crash"
[ $rc -eq 0 ] && ok "a panic BASE has too is not new" || not_ok "a panic BASE has too is not new" "rc=$rc"

# A console cut mid-report: the cut report is the failure, not the cut.
mk cut k-cut 31 $NULL:14.1:2 --boot '3=PANIC:truncated:console ended mid-report'
compare "$tmp/a1" "$tmp/cut"
if ! has "[truncated]" && ! has "console ended mid-report (1 of" && has "CAND  k-cut default #3 PANIC"; then
	ok "a truncated event is not a new kernel failure of its own; its boot is still left out"
else not_ok "a truncated event is not a new kernel failure" "rc=$rc: $(head -c 600 "$tmp/out")"; fi

# --- the ABI table: x32 unsupported -> ok is a change, ok -> error a regression ---
"$MK" "$tmp/x32" k-x32 default 5 18 $NULL:14.1:2 --abi x86_64=ok --abi x32=ok
compare "$tmp/a1" "$tmp/x32"
if [ $rc -eq 0 ] && grep -Eq '^x32 +unsupported +ok +changed' "$tmp/out"; then ok "ABI table: x32 unsupported -> ok"
else not_ok "ABI table: x32 unsupported -> ok" "rc=$rc"; fi
compare "$tmp/x32" "$tmp/a1"
if [ $rc -eq 1 ] && grep -Eq '^x32 +ok +unsupported +regressed' "$tmp/out"; then ok "ABI table: x32 ok -> unsupported regresses"
else not_ok "ABI table: x32 ok -> unsupported regresses" "rc=$rc"; fi

# --- several candidates side by side, each as % of BASE ---
compare "$tmp/a1" "$tmp/a2" "$tmp/slow"
if has "CAND1" && has "CAND2" && grep -F "x86_64.lat_syscall.null (us)" "$tmp/out" | tail -1 | grep -Eq '\((1[23][0-9]\.[0-9])%\)-'; then
	ok "multi-column table: CAND2 null at ~130% of BASE, marked regressed"
else not_ok "multi-column table" "$(grep -F 'null (us)' "$tmp/out" | tail -1)"; fi

# --- small samples warn ---
"$MK" "$tmp/two" k-two default 2 19 $NULL:14.1:2 --abi x86_64=ok
compare "$tmp/a1" "$tmp/two"
grep -q "has 2 passing boots" "$tmp/err" && ok "n < 3 warns" || not_ok "n < 3 warns"

# --- exit statuses for unusable and bad input ---
"$MK" "$tmp/infra" k-infra default 3 20 --boot '1=INFRA_ERROR' --boot '2=INFRA_ERROR' --boot '3=INFRA_ERROR'
compare "$tmp/a1" "$tmp/infra"
[ $rc -eq 125 ] && ok "a side with only INFRA_ERROR boots: 125" || not_ok "only INFRA_ERROR: 125" "rc=$rc"
mkdir -p "$tmp/empty"
compare "$tmp/a1" "$tmp/empty"
[ $rc -eq 125 ] && ok "a side without any result.json: 125" || not_ok "no result.json: 125" "rc=$rc"
compare "$tmp/a1" "$tmp/does-not-exist"
[ $rc -eq 65 ] && ok "a missing directory: 65" || not_ok "missing directory: 65" "rc=$rc"
mkdir -p "$tmp/bad/k/default/1" && printf '{"format": "bootrig-result-1", "verdict": ' >"$tmp/bad/k/default/1/result.json"
compare "$tmp/a1" "$tmp/bad"
if [ $rc -eq 65 ] && grep -q "bad/k/default/1/result.json: not valid JSON" "$tmp/err"; then ok "a truncated result.json: 65, named"
else not_ok "truncated result.json: 65" "rc=$rc $(cat "$tmp/err")"; fi
# fields of the wrong type are ignored, not trusted: no crash, the boot still counts
mkdir -p "$tmp/odd/k/default/1"
cat >"$tmp/odd/k/default/1/result.json" <<'JSON'
{ "format": "bootrig-result-1", "verdict": "PASS", "kernel": "not an object", "boot": "one",
  "metrics": [ 7, { "abi": "x86_64", "test": "lat_syscall", "name": "null", "median": "fast" },
               { "abi": "x86_64", "test": "lat_syscall", "name": "read", "samples": [20.1, 19.9, 20.0] } ],
  "abis": [ "x86_64" ], "events": { "kind": "panic" }, "stages": [ 1, 2 ] }
JSON
compare "$tmp/a1" "$tmp/odd"
if [ $rc -le 1 ] && has "CAND  $tmp/odd: 1 boot, 1 PASS" && grep -F "x86_64.lat_syscall.read" "$tmp/out" | head -1 | grep -q " 20.00 "; then
	ok "odd field types are ignored; a median comes from the samples when missing"
else not_ok "odd field types" "rc=$rc $(cat "$tmp/err" | head -3)"; fi
compare "$tmp/a1"
[ $rc -eq 64 ] && ok "one side only: 64" || not_ok "one side only: 64" "rc=$rc"
compare "$tmp/a1" "$tmp/a2" --format yaml
[ $rc -eq 64 ] && ok "--format yaml: 64" || not_ok "--format yaml: 64" "rc=$rc"
compare "$tmp/a1" "$tmp/a2" --alpha 2
[ $rc -eq 64 ] && ok "--alpha 2: 64" || not_ok "--alpha 2: 64" "rc=$rc"
compare --help
if [ $rc -eq 0 ] && has "--threshold PCT" && has "--format FMT"; then ok "--help from the option table"
else not_ok "--help" "rc=$rc"; fi

# --- the hand-written fixture (RESULTS.md's example, two boots a side) ---
compare "$FIX/aarch64-base" "$FIX/aarch64-cand"
if has "aarch64.lat_syscall.null (us)" && has "aarch64_ilp32" && grep -Eq '^ +14\.[0-9]+ ± +[0-9.]+% +-12\.[0-9]%' "$tmp/out"; then
	ok "fixture: aarch64 null 14.1 -> 12.4 us is -12%"
else not_ok "fixture: aarch64 null -12%" "$(grep null "$tmp/out")"; fi

# --- colour only on request: never with NO_COLOR or into a file ---
compare "$tmp/a1" "$tmp/slow"
if grep -q "$(printf '\033')" "$tmp/out"; then not_ok "no colour escapes off a terminal"
else ok "no colour escapes off a terminal"; fi

# --- colour on a terminal (script(1) gives the tool a pty), never with NO_COLOR ---
if command -v script >/dev/null 2>&1; then
	env -u NO_COLOR script -qec "$BOOTRIG compare $tmp/a1 $tmp/slow" /dev/null >"$tmp/tty" 2>&1
	if grep -q "$(printf '\033')\[31m" "$tmp/tty"; then ok "a terminal gets red for a regression"
	else not_ok "a terminal gets red for a regression"; fi
	NO_COLOR=1 script -qec "$BOOTRIG compare $tmp/a1 $tmp/slow" /dev/null >"$tmp/tty" 2>&1
	if grep -q "$(printf '\033')\[3" "$tmp/tty"; then not_ok "NO_COLOR is honoured on a terminal"
	else ok "NO_COLOR is honoured on a terminal"; fi
else
	not_ok "colour on a terminal" "script(1) not installed"
fi

# --- JSON: parses, carries the numbers ---
compare "$tmp/a1" "$tmp/slow" --format json -o "$tmp/r.json"
if [ $rc -eq 1 ] && python3 - "$tmp/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "bootrig-compare-1"
m = [m for m in d["metrics"] if m["id"] == "x86_64.lat_syscall.null"][0]
c = m["changes"][0]
assert c["verdict"] == "regressed" and 20 < c["pct_change"] < 40 and c["p_welch"] < 0.01
assert len(m["sides"][0]["observations"]) == 5
assert d["summary"]["exit_code"] == 1 and d["summary"]["regressed"] >= 1
PY
then ok "JSON: bootrig-compare-1 with the regression, p and observations"
else not_ok "JSON report"; fi

# --- JUnit: validates against Jenkins xUnit's and Ant's schemas; a failure per regression ---
compare "$tmp/a1" "$tmp/crash" "$tmp/slow" --format junit -o "$tmp/r.xml"
if junit_valid "$tmp/r.xml"; then ok "JUnit validates (junit-10.xsd and JUnit.xsd, unmodified)"
else not_ok "JUnit validates" "$JUNIT_ERR"; fi
nf=$(grep -c '<failure ' "$tmp/r.xml")
# crash side: new panic event + PANIC verdict + PANIC boot = 3; slow side: null regressed = 1
[ "$nf" -eq 4 ] && ok "JUnit: 4 failures (panic event, verdict, boot; null)" || not_ok "JUnit failures" "got $nf"
grep -q 'testcase classname="metrics.x86_64.lat_syscall" name="null"' "$tmp/r.xml" &&
	ok "JUnit: a testcase per metric" || not_ok "JUnit: a testcase per metric"
# an INFRA_ERROR boot is an <error> with its reason; times are the boots'
# durations and the measuring tests' ms; every count is the cases'
"$MK" "$tmp/ierr" vmlinuz-infra default 3 7 aarch64:lat_syscall:null:us:lower:14:2 --abi aarch64=ok \
	--boot '3=INFRA_ERROR'
f=$(echo "$tmp"/ierr/vmlinuz-infra/default/3/result.json)
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['reason']='libvirt: the domain did not start'; json.dump(d, open(sys.argv[1], 'w'))" "$f"
compare "$FIX/aarch64-base" "$FIX/aarch64-cand" "$tmp/ierr" --format junit -o "$tmp/t.xml"
if junit_valid "$tmp/t.xml" && python3 - "$tmp/t.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites" and not root.attrib, root.attrib
s1, s2 = root.findall("testsuite")
for su in (s1, s2):
    cases = su.findall("testcase")
    want = {"tests": len(cases), "failures": sum(c.find("failure") is not None for c in cases),
            "errors": sum(c.find("error") is not None for c in cases),
            "skipped": sum(c.find("skipped") is not None for c in cases)}
    assert all(int(su.get(k)) == v for k, v in want.items()), (su.attrib, want)
boots = {c.get("name"): c for c in s1.findall("testcase") if c.get("classname") == "boots"}
assert [c.get("time") for c in boots.values()] == ["12.520", "12.520"], boots
assert s1.get("time") == "25.040" and s1.get("timestamp") == "2026-11-29T23:30:01", s1.attrib
null = [c for c in s1.findall("testcase") if c.get("name") == "null"][0]
assert null.get("time") == "1.624", null.attrib            # 812 ms in each of 2 boots
err = [c for c in s2.findall("testcase") if c.get("name") == "vmlinuz-infra/default/3"][0].find("error")
assert err.get("type") == "infrastructure" and err.get("message") == "INFRA_ERROR: libvirt: the domain did not start", err.attrib
assert int(s2.get("errors")) == 1 and not s2.findall("testcase/skipped[@message='INFRA_ERROR']")
PY
then ok "JUnit: INFRA_ERROR an <error> with its reason, boot and test times, computed counts"
else not_ok "JUnit: errors, times, counts" "$JUNIT_ERR $(cat "$tmp/t.xml" | head -30)"; fi

# --- HTML: one file, strings escaped, renders in headless Chromium with its charts ---
"$MK" "$tmp/evil" k-evil default 3 21 '<script>x:lat<b>:null:us:lower:14:2' --abi x86_64=ok \
	--boot '3=PANIC:panic:<img src=x onerror=alert(1)>'
compare "$tmp/a1" "$tmp/evil" "$tmp/slow" --format html -o "$tmp/r.html"
if ! grep -q '<script>x\|<img src' "$tmp/r.html" && grep -q '&lt;script&gt;x' "$tmp/r.html"; then
	ok "HTML escapes every string from the results"
else not_ok "HTML escaping"; fi
if grep -Eq '(src|href)="(https?:)?//' "$tmp/r.html"; then not_ok "HTML is self-contained"
else ok "HTML is self-contained (no external src/href)"; fi
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
	not_ok "HTML renders in Chromium" "chromium not installed (scripts/install-deps.sh)"
else
	nsvg=$(grep -c '<svg' "$tmp/r.html")
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
		--user-data-dir="$tmp/chrome" --dump-dom "file://$tmp/r.html" >"$tmp/dom" 2>"$tmp/chrome.err"
	ready=$(sed -n 's/.*data-bootrig-ready="\([0-9]*\)".*/\1/p' "$tmp/dom" | head -1)
	if [ "${ready:-x}" = "$nsvg" ] && [ "$nsvg" -ge 3 ] && ! grep -q 'Uncaught\|CONSOLE.*[Ee]rror' "$tmp/chrome.err"; then
		ok "HTML runs in Chromium: $nsvg SVG charts, no console error"
	else not_ok "HTML runs in Chromium" "ready=$ready svg=$nsvg $(grep -i error "$tmp/chrome.err" | head -3)"; fi
	ncircle=$(grep -o '<circle' "$tmp/dom" | wc -l)
	[ "$ncircle" -ge 13 ] && ok "charts draw every boot as a dot ($ncircle)" || not_ok "chart dots" "$ncircle"
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/chrome" \
		--window-size=1000,1400 --screenshot="$tmp/shot.png" "file://$tmp/r.html" >/dev/null 2>&1
	size=$(stat -c %s "$tmp/shot.png" 2>/dev/null || echo 0)
	[ "$size" -gt 20000 ] && ok "screenshot is not blank ($size bytes)" || not_ok "screenshot" "$size bytes"
	[ -n "${KEEP_SHOT:-}" ] && cp "$tmp/shot.png" "$KEEP_SHOT"
fi

# --- HTML summary: the new KTAP failures its list shows, in the text report's words ---
mk kt1 k-kt1 26 $NULL:14.1:2 --case string-stream:string_stream_append:ok --case :lone_case:ok
mk kt2 k-kt2 27 $NULL:14.1:2 --case string-stream:string_stream_append:fail --case :lone_case:ok
compare "$tmp/kt1" "$tmp/kt2"
tail -n 2 "$tmp/out" >"$tmp/kt.sum"
compare "$tmp/kt1" "$tmp/kt2" --format html -o "$tmp/kt.html"
summary=$(grep -o '<p id="summary">[^<]*' "$tmp/kt.html")
missing=$(while IFS= read -r l; do case $summary in *"$l"*) ;; *) echo "$l" ;; esac; done <"$tmp/kt.sum")
if [ $rc -eq 1 ] && grep -qx '1 new KTAP failure' "$tmp/kt.sum" && [ -z "$missing" ] &&
   grep -q 'KTAP case string-stream.string_stream_append failed' "$tmp/kt.html"; then
	ok "HTML summary: '1 new KTAP failure' as the text report says it, beside the list's case"
else not_ok "HTML summary names the new KTAP failures" "rc=$rc text: $(cat "$tmp/kt.sum") html: $summary"; fi

# --- --logs: console lines one side prints and the other never does ---
mk l1 k-l1 22 $NULL:14.1:2 --console "$(printf '[    0.000000] Linux version 6.1.0-57-amd64\n[    0.100000] probe at 0xffff888000001000 took 12 ms\n')"
mk l2 k-l2 23 $NULL:14.1:2 --console "$(printf '[    0.000000] Linux version 6.1.0-57-cloud-amd64\n[    0.200000] probe at 0xffff888000009000 took 15 ms\n')"
compare "$tmp/l1" "$tmp/l2" --logs
if has "only CAND (not BASE, 5 boots): Linux version 6.1.0-57-cloud-amd64" && ! has "probe at"; then
	ok "--logs: the version line differs, the noisy probe line does not"
else not_ok "--logs" "$(grep only "$tmp/out")"; fi

# --- the boots' own sampling (issue 14): n pooled, interval, unmet target ---
mk s1 k-s1 24 $NULL:14.1:2
mk s2 k-s2 25 $NULL:14.1:2
# every CAND boot took its 5 samples without reaching +-1 %; boot 2 the widest
for f in "$tmp"/s2/*/default/*/result.json; do
	ci=12.5; case $f in */default/2/result.json) ci=31.25 ;; esac
	sed -i "s/\"instructions\":null/\"instructions\":null, \"ci\":$ci, \"ci_target\":1.0, \"stop\":\"max\"/" "$f"
done
for f in "$tmp"/s1/*/default/*/result.json; do
	sed -i 's/"instructions":null/"instructions":null, "ci":0.5, "ci_target":1.0, "stop":"target"/' "$f"
done
compare "$tmp/s1" "$tmp/s2"
cat "$tmp/err" >>"$tmp/out"
if has "$tmp/s2: x86_64.lat_syscall.null: 5 of 5 boots took the most samples without reaching ±1 % (widest ±31.25 %, 25 samples pooled)" &&
   ! has "$tmp/s1: x86_64.lat_syscall.null"; then
	ok "compare: a side whose boots did not settle within their target is warned about, the other is not"
else not_ok "compare: unmet sampling target warning" "$(cat "$tmp/out")"; fi
compare "$tmp/s1" "$tmp/s2" --format json -o "$tmp/s.json"
got=$("$JGET" "$tmp/s.json" metrics.0.sides.1.samples) unmet=$("$JGET" "$tmp/s.json" metrics.0.sides.1.unmet)
ci=$("$JGET" "$tmp/s.json" metrics.0.sides.1.ci_max_pct) base_ci=$("$JGET" "$tmp/s.json" metrics.0.sides.0.ci_max_pct)
if [ "$got" = 25 ] && [ "$unmet" = 5 ] && [ "$ci" = 31.25 ] && [ "$base_ci" = 0.5 ]; then
	ok "compare --json: samples pooled over the boots (25), unmet 5, widest interval per side"
else not_ok "compare --json: pooled sampling" "samples=$got unmet=$unmet ci_max=$ci base=$base_ci"; fi
compare "$tmp/a1" "$tmp/a2" --format json -o "$tmp/old.json"
# ci_max_pct there and null (not absent, nor the side missing)
if [ "$(jq -c '.metrics[0].sides[0] | [.unmet, has("ci_max_pct"), .ci_max_pct]' "$tmp/old.json")" = '[0,true,null]' ]; then
	ok "compare --json: logs without ci/stop read as before (unmet 0, no interval)"
else not_ok "compare --json: old logs" "$(head -c 400 "$tmp/old.json")"; fi

echo "1..$_tap_n"
