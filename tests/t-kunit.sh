#!/bin/sh
# t-kunit.sh: KUnit on a real kernel. scripts/build-kunit-kernel.sh builds
# (once, cached) two x86_64 kernels from linux-source-6.1 with KUnit suites
# built in: kunit-good (every case passes, one skips) and kunit-bad (a patch
# in lib/list-test.c makes list_test_list_add fail). bootrig boots both
# (QEMU through libvirt: run under the QEMU lock):
#   - result.json's ktap lists every KUnit case the console printed, with
#     suite, case and status; the good boot PASSes, the bad one FAILs with
#     the case named, and that case is "fail" while the others stay "ok";
#   - `bootrig compare good bad` names it as a new failure (exit 1); good
#     against good, and bad against bad, find none (exit 0); imported into a
#     history database, the two boots compare (db:FILE:kernel=...) as their
#     directories do, byte for byte in every format;
#   - the kernel's own tools/testing/kunit/kunit.py parse accepts `bootrig
#     judge --format ktap` of both boots and `bootrig compare --format ktap`:
#     exit 0 and no failure for the good ones, exit 1 and the case [FAILED]
#     for the bad ones (so the parse can fail); and kunit.py concludes of
#     the judge's KTAP what it concludes of the console itself, status by
#     status for every suite and case (tests/tools/ktap_agree.py).
# The kernel build takes long the first time (see docs/ktap-kcidb.md).
. "$(dirname "$0")/lib.sh"
set -u

tmp=$(mktemp -d /tmp/t-kunit.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

if ! sh "$TOP/scripts/build-kunit-kernel.sh" >"$tmp/kernels" 2>"$tmp/build.err"; then
	not_ok "the KUnit kernels build" "$(tail -n 20 "$tmp/build.err")"
	exit 0
fi
ok "the KUnit kernels build (scripts/build-kunit-kernel.sh)"
good=$(awk '$1 == "good" {print $2}' "$tmp/kernels")
bad=$(awk '$1 == "bad" {print $2}' "$tmp/kernels")
src=$(sh "$TOP/scripts/build-kunit-kernel.sh" --source)
kunit_py=$src/tools/testing/kunit/kunit.py
[ -f "$kunit_py" ] && ok "kunit.py is in the source ($kunit_py)" ||
	not_ok "kunit.py is in the source" "no $kunit_py"

# a second run builds nothing: it only prints the cached paths
if sh "$TOP/scripts/build-kunit-kernel.sh" --print >"$tmp/again" 2>&1 &&
	cmp -s "$tmp/kernels" "$tmp/again"; then
	ok "a second run finds both kernels in the cache"
else
	not_ok "a second run finds both kernels in the cache" "$(cat "$tmp/again")"
fi

run good --kernel "$good"
good_rc=$rc
run bad --kernel "$bad"
bad_rc=$rc
gj=$(find "$tmp/good" -name result.json | head -n 1)
bj=$(find "$tmp/bad" -name result.json | head -n 1)
[ -n "$gj" ] && [ -n "$bj" ] && ok "both boots wrote result.json" ||
	{ not_ok "both boots wrote result.json" "$(cat "$tmp/good.err" "$tmp/bad.err")"; exit 0; }

[ "$good_rc" -eq 0 ] && ok "kunit-good: exit 0" ||
	not_ok "kunit-good: exit 0" "exit $good_rc: $(cat "$tmp/good.err")"
expect "kunit-good: PASS" "$gj" verdict PASS
expect "kunit-good: no case failed" "$gj" ktap.fail 0
# ktap.failure there and null (not absent, nor ktap missing)
f=$(jq -c '.ktap | [has("failure"), .failure]' "$gj" 2>&1)
[ "$f" = '[true,null]' ] && ok "kunit-good: no failure (null)" || not_ok "kunit-good: no failure (null)" "ktap: $f"
[ "$bad_rc" -eq 1 ] && ok "kunit-bad: exit 1" ||
	not_ok "kunit-bad: exit 1" "exit $bad_rc: $(cat "$tmp/bad.err")"
expect "kunit-bad: FAIL" "$bj" verdict FAIL
expect "kunit-bad: the reason names the case" "$bj" reason \
	"KUnit case list-kunit-test.list_test_list_add failed"
expect "kunit-bad: one case failed" "$bj" ktap.fail 1

# every case line of the console (a result at the suites' level: indented
# once) is listed, in order, with its status
cases() { # RESULT_JSON -> "suite case status" lines
	n=$("$JGET" "$1" "ktap.cases.#")
	i=0
	while [ "$i" -lt "$n" ]; do
		printf '%s %s %s\n' "$("$JGET" "$1" "ktap.cases.$i.suite")" \
			"$("$JGET" "$1" "ktap.cases.$i.case")" "$("$JGET" "$1" "ktap.cases.$i.status")"
		i=$((i + 1))
	done
}
console_cases() { # CONSOLE_LOG -> "case status" lines of the once-indented results
	tr -d '\r' <"$1" |
		sed -n 's/^\[[ 0-9.]*\] \{5\}\(not ok\|ok\) [0-9]* \(- \)\{0,1\}\([^ #]*\)\( # SKIP.*\)\{0,1\}$/\3 \1\4/p' |
		sed 's/ not ok$/ fail/; s/ ok # SKIP.*$/ skip/; s/ ok$/ ok/'
}
for side in good bad; do
	j=$(find "$tmp/$side" -name result.json | head -n 1)
	cases "$j" >"$tmp/$side.cases"
	console_cases "$(dirname "$j")/console.log" >"$tmp/$side.console"
	n=$(wc -l <"$tmp/$side.console")
	if [ "$n" -ge 10 ] && cut -d' ' -f2- "$tmp/$side.cases" | cmp -s - "$tmp/$side.console"; then
		ok "kunit-$side: result.json lists each of the $n KUnit cases of the console"
	else
		not_ok "kunit-$side: result.json lists each of the $n KUnit cases of the console" \
			"$(diff "$tmp/$side.console" "$tmp/$side.cases" | head -n 20)"
	fi
done
grep -qx "example example_skip_test skip" "$tmp/good.cases" &&
	ok "kunit-good: example_skip_test is skip" ||
	not_ok "kunit-good: example_skip_test is skip" "$(cat "$tmp/good.cases")"
grep -qx "list-kunit-test list_test_list_add fail" "$tmp/bad.cases" &&
	[ "$(grep -c ' fail$' "$tmp/bad.cases")" -eq 1 ] &&
	ok "kunit-bad: list_test_list_add fails, no other case does" ||
	not_ok "kunit-bad: list_test_list_add fails, no other case does" "$(cat "$tmp/bad.cases")"
grep -qx "list-kunit-test list_test_list_add ok" "$tmp/good.cases" &&
	ok "kunit-good: list_test_list_add is ok" ||
	not_ok "kunit-good: list_test_list_add is ok" "$(cat "$tmp/good.cases")"
grep -q "EXPECTATION FAILED at lib/list-test.c" "$bj" &&
	ok "kunit-bad: the failed expectation is in the case's diagnostics" ||
	not_ok "kunit-bad: the failed expectation is in the case's diagnostics"

# compare: the case is a new failure of bad against good, and only there
"$BOOTRIG" compare "$tmp/good" "$tmp/bad" >"$tmp/cmp.txt" 2>"$tmp/cmp.err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "list-kunit-test.list_test_list_add failed in 1 of 1 boots (BASE: ok)" "$tmp/cmp.txt" &&
	ok "compare good bad: exit 1, the case named as a new failure" ||
	not_ok "compare good bad: exit 1, the case named as a new failure" "exit $rc: $(cat "$tmp/cmp.txt")"
"$BOOTRIG" compare "$tmp/good" "$tmp/bad" --format json >"$tmp/cmp.json" 2>/dev/null
expect "compare --format json: new_ktap_failures names the case" "$tmp/cmp.json" \
	new_ktap_failures.0.case list_test_list_add
expect "compare --format json: one new KTAP failure" "$tmp/cmp.json" summary.new_ktap_failures 1
"$BOOTRIG" compare "$tmp/bad" "$tmp/bad" >"$tmp/same.txt" 2>/dev/null
rc=$?
[ "$rc" -eq 0 ] && ! grep -q "new KTAP failure" "$tmp/same.txt" &&
	ok "compare bad bad: a case failing on both sides is no new failure (exit 0)" ||
	not_ok "compare bad bad: a case failing on both sides is no new failure (exit 0)" \
		"exit $rc: $(cat "$tmp/same.txt")"

# the history database: good and bad imported, compare db: says what
# compare of the directories says, byte for byte in every format (the side
# names aside): the KUnit cases of a real kernel kept and read back by the
# one loader (t-compare-db checks the same on fixtures)
real=$(cd "$tmp" && pwd -P)     # the database keeps result.json's real path
"$BOOTRIG" import --db "$tmp/k.db" "$real/good" "$real/bad" >/dev/null 2>"$tmp/import.err"
gk=$(jq -r .kernel.id "$gj") bk=$(jq -r .kernel.id "$bj")
differ=""
for fmt in text json ktap junit html; do
	"$BOOTRIG" compare "$real/good" "$real/bad" --format $fmt >"$tmp/dir.$fmt" 2>&1
	"$BOOTRIG" compare "db:$tmp/k.db:kernel=$gk" "db:$tmp/k.db:kernel=$bk" --format $fmt 2>&1 |
		sed "s|db:$tmp/k.db:kernel=$gk|$real/good|g; s|db:$tmp/k.db:kernel=$bk|$real/bad|g" >"$tmp/db.$fmt"
	cmp -s "$tmp/dir.$fmt" "$tmp/db.$fmt" || differ="$differ $fmt: $(diff "$tmp/dir.$fmt" "$tmp/db.$fmt" | head -4)"
done
[ -z "$differ" ] && grep -q "list_test_list_add" "$tmp/db.text" &&
	ok "compare db: of the imported boots = compare good bad, in every format, the new failure included" ||
	not_ok "compare db: of the imported boots = compare good bad" "$differ $(cat "$tmp/import.err")"

# kunit.py parse: KTAP of judge and compare, accepted, failures caught
parse() { # NAME KTAP_FILE WANT_RC PATTERN: kunit.py's exit and summary
	python3 "$kunit_py" parse <"$2" >"$tmp/$1.parsed" 2>&1
	prc=$?
	if [ "$prc" -eq "$3" ] && grep -q "$4" "$tmp/$1.parsed" &&
		! grep -qi "error\|crashed\|could not find\|no tests run" "$tmp/$1.parsed"; then
		ok "kunit.py parse: $1: exit $3, '$4'"
	else
		not_ok "kunit.py parse: $1: exit $3, '$4'" "exit $prc: $(tail -n 15 "$tmp/$1.parsed")"
	fi
}
"$BOOTRIG" judge --format ktap "$(dirname "$gj")/console.log" >"$tmp/good.ktap"
parse "judge good" "$tmp/good.ktap" 0 "Testing complete. Ran [0-9]* tests: passed: [0-9]*, skipped: 2$"
"$BOOTRIG" judge --format ktap "$(dirname "$bj")/console.log" >"$tmp/bad.ktap"
parse "judge bad" "$tmp/bad.ktap" 1 "\[FAILED\] list_test_list_add"
# faithful: kunit.py concludes of judge --format ktap what it concludes of
# the console itself, for every suite and case (tests/tools/ktap_agree.py)
for side in good bad; do
	j=$(find "$tmp/$side" -name result.json | head -n 1)
	if python3 "$TOP/tests/tools/ktap_agree.py" "$src/tools/testing/kunit" \
		"$(dirname "$j")/console.log" "$tmp/$side.ktap" >"$tmp/$side.agree" 2>&1; then
		ok "kunit-$side: kunit.py concludes the same of the console and of judge --format ktap"
	else
		not_ok "kunit-$side: kunit.py concludes the same of the console and of judge --format ktap" \
			"$(cat "$tmp/$side.agree")"
	fi
done
"$BOOTRIG" compare "$tmp/good" "$tmp/bad" --format ktap >"$tmp/cmp.ktap" 2>/dev/null
parse "compare good bad" "$tmp/cmp.ktap" 1 "\[FAILED\] list-kunit-test.list_test_list_add"
"$BOOTRIG" compare "$tmp/good" "$tmp/good" --format ktap >"$tmp/same.ktap" 2>/dev/null
parse "compare good good" "$tmp/same.ktap" 0 "Testing complete. Ran [0-9]* tests: passed: [0-9]*"
no_qemu_left "$pid" && ok "no QEMU left" || not_ok "no QEMU left"
