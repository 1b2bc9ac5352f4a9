#!/bin/sh
# t-compare-fail: `bootrig compare --include-fail` over synthetic results
# (tests/tools/mkresults --all-metrics: a boot that did not PASS keeps its
# metrics, as a real FAIL boot's result.json does). Without the option a
# FAIL boot's metrics stay out, as always, and compare says so in one line
# naming the option; with it a FAIL boot that failed for something other
# than its metrics (a KUnit case: the reason the judge itself writes for
# tests/fixtures/ktap's failing log; a kernel report) counts as a PASS boot
# does, marked in the text, JSON and HTML reports, the same from a history
# database. Never counted: PANIC and HANG boots, a FAIL of the metrics' own
# (a benchmark that failed, damaged records), and a KUnit FAIL whose guest
# tests did not all PASS. No guest is booted.
. "$(dirname "$0")/lib.sh"
set -u
MK="$TOP/build/tests/tools/mkresults"
# the real path: the database keeps each result.json's
tmp=$(cd "$(mktemp -d)" && pwd -P)
trap 'rm -rf "$tmp"' EXIT INT TERM
export NO_COLOR=1 ASAN_OPTIONS=detect_leaks=1
NULL=x86_64:lat_syscall:null:us:lower

# compare ARGS...: runs the tool, output in $tmp/out, stderr in $tmp/err, status in $rc
compare() {
	"$BOOTRIG" compare "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
has() { grep -qF -- "$1" "$tmp/out"; }
# jq_is JSONFILE FILTER WANT: the filter's compact output is WANT
jq_is() { [ "$(jq -c "$2" "$1")" = "$3" ]; }

# The judge's own reason for a boot whose KUnit case failed.
KTAP=$("$BOOTRIG" judge --format json "$TOP/tests/fixtures/ktap/is_test_passed-failure.log" 2>/dev/null |
	jq -r '.ktap.failure')
case $KTAP in
"KUnit case "*" failed") ok "the judge's reason for a failed KUnit case: $KTAP" ;;
*) not_ok "the judge's reason for a failed KUnit case" "got '$KTAP'" ;;
esac
HINT="metrics of FAIL boots left out of the statistics: CAND 1 FAIL boot (KTAP case failed); --include-fail counts them"
LEGEND="* includes FAIL boots (--include-fail): CAND 1 FAIL boot (KTAP case failed)"

# BASE: 4 PASS boots, null exactly 10, 10.2, 9.8, 10 (mean 10).
# CAND: boots 1-3 PASS (11, 11.2, 11.1), boot 4 FAIL for its KUnit case
# (14), boot 5 PANIC (50): mean 11.1 over the PASS boots, 11.825 with boot 4.
"$MK" "$tmp/base" k-base default 4 1 --abi x86_64=ok "$NULL:10/10.2/9.8/10:0"
"$MK" "$tmp/cand" k-cand default 5 2 --abi x86_64=ok --all-metrics --case kunit:one:ok \
	--boot "4=FAIL::$KTAP" --boot "5=PANIC:panic:Kernel panic - not syncing: boom" \
	"$NULL:11/11.2/11.1/14/50:0"

# --- without --include-fail: left out, as before, and said in one line ---
compare "$tmp/base" "$tmp/cand"
if has "CAND $tmp/cand (n=3" && has "11.10" && has "CAND  k-cand default #4 FAIL: $KTAP" && ! has "*"; then
	ok "without --include-fail: the FAIL boot's metrics are left out (n=3, mean 11.10, listed left out)"
else not_ok "without --include-fail: FAIL boot left out" "$(cat "$tmp/out")"; fi
n_err=$(grep -cF -- "--include-fail counts them" "$tmp/err")
if [ "$n_err" = 1 ] && grep -qF "warning: $HINT" "$tmp/err" && has "warning: $HINT"; then
	ok "without --include-fail: one line says FAIL boots' metrics were left out and names the option"
else not_ok "the hint line" "stderr: $(cat "$tmp/err")"; fi
compare "$tmp/base" "$tmp/cand" --format json -o "$tmp/no.json"
if jq_is "$tmp/no.json" '[.include_fail, [.sides[] | .fail_included, .fail_left_out],
	.metrics[0].sides[1].observations, .metrics[0].sides[1].fail_included,
	[.sides[1].left_out[].boot], .sides[1].fail_counted]' \
	'[false,[0,0,0,1],[11,11.2,11.1],0,[4,5],[]]'; then
	ok "without --include-fail, JSON: include_fail false, fail_left_out 1, 3 observations, boot 4 left out"
else not_ok "JSON without --include-fail" "$(jq -c '[.include_fail, [.sides[] | .fail_included, .fail_left_out], .metrics[0].sides[1]]' "$tmp/no.json")"; fi

# --- with --include-fail: counted, marked, said in the header ---
compare "$tmp/base" "$tmp/cand" --include-fail
row=$(grep -F "x86_64.lat_syscall.null (us)" "$tmp/out" | head -1)
if has "CAND  $tmp/cand: 5 boots, 3 PASS, 1 FAIL boot (KTAP case failed) counted" &&
   has "CAND $tmp/cand (n=4" && echo "$row" | grep -Eq ' 11\.8[23]\* ±'; then
	ok "--include-fail: the header counts the FAIL boot, n=4, the candidate's mean 11.825 marked *"
else not_ok "--include-fail text" "$(head -12 "$tmp/out")"; fi
if [ "$(grep -cxF -- "$LEGEND" "$tmp/out")" = 2 ] && echo "$row" | grep -Eq '^ +10\.00 ±'; then
	ok "--include-fail: the legend line under the candidate's rows and the table; BASE unmarked"
else not_ok "--include-fail legend" "$(cat "$tmp/out")"; fi
if has "FAIL boots counted in the statistics (--include-fail):" &&
   has "CAND  k-cand default #4 FAIL: $KTAP" && ! grep -qF -- "--include-fail counts them" "$tmp/err"; then
	ok "--include-fail: the FAIL boot listed as counted; no hint line"
else not_ok "--include-fail boot lists" "$(cat "$tmp/out" "$tmp/err")"; fi
compare "$tmp/base" "$tmp/cand" --include-fail --format json -o "$tmp/yes.json"
if jq_is "$tmp/yes.json" '[.include_fail, [.sides[] | .fail_included, .fail_left_out],
	.metrics[0].sides[1].observations, .metrics[0].sides[1].fail_included,
	.metrics[0].sides[1].n, .metrics[0].sides[0].fail_included,
	[.sides[1].fail_counted[] | .boot, .verdict, .fail_cause]]' \
	'[true,[0,0,1,0],[11,11.2,11.1,14],1,4,0,[4,"FAIL","KTAP case failed"]]' &&
   python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["metrics"][0]["sides"][1]["mean"]; sys.exit(abs(m-11.825) > 1e-9)' "$tmp/yes.json"; then
	ok "--include-fail, JSON: the observation mkresults wrote (14), mean 11.825, fail_included per side and metric"
else not_ok "JSON with --include-fail" "$(jq -c '[.sides[1] | .fail_included, .fail_counted], .metrics[0].sides[1]' "$tmp/yes.json")"; fi

# --- a PANIC boot never counts ---
if jq_is "$tmp/yes.json" '[.sides[1].left_out[] | .boot, .verdict, .fail_cause]' '[5,"PANIC",null]' &&
   ! jq -e '.metrics[0].sides[1].observations | index(50)' "$tmp/yes.json" >/dev/null; then
	ok "--include-fail: the PANIC boot stays left out, its 50 in no observation"
else not_ok "PANIC boot" "$(jq -c '.sides[1].left_out, .metrics[0].sides[1].observations' "$tmp/yes.json")"; fi
"$MK" "$tmp/hang" k-hang default 4 3 --abi x86_64=ok --all-metrics \
	--boot "4=HANG::$KTAP" "$NULL:11/11.2/11.1/40:0"
compare "$tmp/base" "$tmp/hang" --include-fail --format json -o "$tmp/hang.json"
if jq_is "$tmp/hang.json" '[.sides[1].fail_included, .metrics[0].sides[1].n, .sides[1].left_out[0].verdict]' \
	'[0,3,"HANG"]'; then
	ok "--include-fail: a HANG boot never counts, even with a KUnit reason"
else not_ok "HANG boot" "$(jq -c '.sides[1]' "$tmp/hang.json")"; fi

# --- a FAIL of the metrics' own never counts ---
for why in "test x86_64/lat_syscall FAIL: exit 3" \
	   "records damaged: 2 corrupt, 0 lost, 0 other (bad version, count mismatch, restart)"; do
	rm -rf "$tmp/own"
	"$MK" "$tmp/own" k-own default 4 4 --abi x86_64=ok --all-metrics --boot "4=FAIL::$why" \
		"$NULL:11/11.2/11.1/40:0"
	compare "$tmp/base" "$tmp/own" --include-fail --format json -o "$tmp/own.json"
	compare "$tmp/base" "$tmp/own"
	if jq_is "$tmp/own.json" '[.sides[1].fail_included, .metrics[0].sides[1].n, .metrics[0].sides[1].fail_included,
		.sides[1].left_out[0].fail_cause]' '[0,3,0,null]' && ! grep -qF -- "--include-fail" "$tmp/err"; then
		ok "a FAIL of the metrics' own ('${why%%:*}'): never counted, no hint"
	else not_ok "a FAIL of the metrics' own ('${why%%:*}')" "$(jq -c '.sides[1]' "$tmp/own.json") $(cat "$tmp/err")"; fi
done
# The judge names the first cause only: a KUnit FAIL whose benchmark failed too is the metrics' own.
rm -rf "$tmp/own"
"$MK" "$tmp/own" k-own default 4 5 --abi x86_64=ok --all-metrics --boot "4=FAIL::$KTAP" "$NULL:11/11.2/11.1/40:0"
python3 - "$tmp/own/k-own/default/4/result.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["tests"] = [{"abi": "x86_64", "test": "lat_syscall", "status": "TIMEOUT", "reason": "", "ms": 9}]
json.dump(d, open(sys.argv[1], "w"))
PY
compare "$tmp/base" "$tmp/own" --include-fail --format json -o "$tmp/own.json"
if jq_is "$tmp/own.json" '[.sides[1].fail_included, .metrics[0].sides[1].n]' '[0,3]'; then
	ok "a KUnit FAIL whose guest test timed out too: not counted"
else not_ok "a KUnit FAIL with a failed test" "$(jq -c '.sides[1]' "$tmp/own.json")"; fi

# --- a kernel report is a cause other than the metrics ---
"$MK" "$tmp/warn" k-warn default 4 6 --abi x86_64=ok --all-metrics \
	--boot "4=FAIL:warning:kernel reported: WARNING in foo" "$NULL:11/11.2/11.1/12:0"
compare "$tmp/base" "$tmp/warn" --include-fail
if has "1 FAIL boot (kernel report) counted" && has "* includes FAIL boots (--include-fail): CAND 1 FAIL boot (kernel report)" &&
   has "CAND $tmp/warn (n=4"; then
	ok "--include-fail: a FAIL for a kernel report (WARNING) counts, its cause said"
else not_ok "a kernel report FAIL" "$(head -8 "$tmp/out")"; fi

# --- sides without FAIL boots: the text the same with the option or without ---
"$MK" "$tmp/plain" k-plain default 4 7 --abi x86_64=ok "$NULL:11/11.2/11.1/11:0"
compare "$tmp/base" "$tmp/plain"
cp "$tmp/out" "$tmp/plain.without"
compare "$tmp/base" "$tmp/plain" --include-fail
if cmp -s "$tmp/out" "$tmp/plain.without" && ! has "*"; then
	ok "no FAIL boot on either side: --include-fail changes nothing in the text"
else not_ok "no FAIL boot: same text" "$(diff "$tmp/plain.without" "$tmp/out" | head)"; fi

# --- HTML: the same mark and legend ---
compare "$tmp/base" "$tmp/cand" --include-fail --format html -o "$tmp/yes.html"
compare "$tmp/base" "$tmp/cand" --format html -o "$tmp/no.html"
if grep -qF 'title="includes FAIL boots">11.8' "$tmp/yes.html" && grep -qF "<p class=\"fail-included\">$LEGEND</p>" "$tmp/yes.html" &&
   grep -qF '<th>FAIL counted</th>' "$tmp/yes.html" && ! grep -qF 'title="includes FAIL boots"' "$tmp/no.html" &&
   xmllint --html --noout "$tmp/yes.html" 2>/dev/null; then
	ok "HTML: the marked cell, the legend, the FAIL counted column; none without the option"
else not_ok "HTML marker" "$(grep -o 'fail-included[^<]*' "$tmp/yes.html" | head -3)"; fi

# --- JSON: every field the report writes is documented in compare/SCHEMA.md ---
undocumented=$(python3 - "$tmp/yes.json" "$TOP/compare/SCHEMA.md" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
schema = open(sys.argv[2]).read()
keys = set(d)
for s in d["sides"]:
    keys |= set(s)
    for e in s["left_out"] + s["fail_counted"]:
        keys |= set(e)
for m in d["metrics"]:
    keys |= set(m)
    for s in m["sides"]:
        keys |= set(s or {})
print(" ".join(sorted(k for k in keys if '"%s"' % k not in schema)))
PY
)
if [ -z "$undocumented" ] && jq -e '.format == "bootrig-compare-1"' "$tmp/yes.json" >/dev/null; then
	ok "JSON: bootrig-compare-1, every field (fail_included, fail_left_out, fail_counted, fail_cause, include_fail) in SCHEMA.md"
else not_ok "JSON fields documented" "not in SCHEMA.md: $undocumented"; fi

# --- a database side gives the same figures ---
"$BOOTRIG" import --db "$tmp/h.db" "$tmp/base" "$tmp/cand" >/dev/null 2>"$tmp/err" ||
	not_ok "import" "$(cat "$tmp/err")"
"$BOOTRIG" compare "db:$tmp/h.db:kernel=k-base" "db:$tmp/h.db:kernel=k-cand" --include-fail \
	--format json >"$tmp/db.json" 2>/dev/null
if [ "$(jq -c '[.metrics, [.sides[] | .fail_included, .fail_left_out, [.fail_counted[].fail_cause]]]' "$tmp/db.json")" = \
     "$(jq -c '[.metrics, [.sides[] | .fail_included, .fail_left_out, [.fail_counted[].fail_cause]]]' "$tmp/yes.json")" ]; then
	ok "--include-fail over a history database: the same metrics and counts as over the directories"
else not_ok "database side" "$(jq -c '.sides[1]' "$tmp/db.json")"; fi

# --- the option is in --help ---
if "$BOOTRIG" compare --help 2>&1 | grep -q -- "--include-fail"; then ok "compare --help lists --include-fail"
else not_ok "compare --help lists --include-fail"; fi
echo "1..$_tap_n"
