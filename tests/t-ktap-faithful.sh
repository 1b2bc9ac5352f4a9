#!/bin/sh
# t-ktap-faithful.sh: KTAP out, faithful (issue 29): what a KTAP reader
# concludes from `bootrig judge --format ktap` equals what it concludes from
# the console it was made from. The reader is the kernel's own, unmodified:
# tools/testing/kunit/kunit_parser.py of Debian's linux-source-6.1 (the
# source scripts/build-kunit-kernel.sh --source unpacks), called by
# tests/tools/ktap_agree.py as `kunit.py parse` calls it; the KUnit kernels'
# consoles are held to the same in t-kunit.sh. Nothing boots.
#   1. every log of the kernel's tools/testing/kunit/test_data: the same
#      status for every test and suite, the same names, plans and nesting
#      (a crashed suite stays crashed: its plan is kept; a suite-level
#      SKIP stays SKIPPED; nested suites stay nested);
#   2. hand-made documents for what test_data lacks: TODO and SKIP at every
#      level, "not ok # SKIP", a lower-case "# skip" (kunit.py: no SKIP),
#      other directives and data after '#', numbers as they were, a document that ended
#      between its results or deep inside, a subtest closed before its plan,
#      the example of Documentation/dev-tools/ktap.rst;
#   3. the text: two spaces a level (ktap.rst), the reason a suite is
#      incomplete as a diagnostic, a result name as it was (no invented
#      suite), kunit.py's ends of output ("Kernel panic - not syncing:
#      VFS:") in a diagnostic defused, a suite the console ended inside
#      with no plan "not ok" with its reason;
#   4. compare --format ktap: an ABI or metric that neither BASE nor a
#      candidate has is no case of that candidate's, no NaN anywhere, and
#      kunit.py reads it.
. "$(dirname "$0")/lib.sh"
set -u

tmp=$(mktemp -d /tmp/t-ktap-faithful.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
AGREE=$TOP/tests/tools/ktap_agree.py

if ! src=$(sh "$TOP/scripts/build-kunit-kernel.sh" --source 2>"$tmp/src.err"); then
	not_ok "kunit.py against bootrig's KTAP" "no linux-source-6.1 (scripts/install-deps.sh installs it): $(tail -n 1 "$tmp/src.err")"
	exit 1
fi
KUNIT=$src/tools/testing/kunit

# agree NAME LOG: judge --format ktap of LOG, and kunit.py's verdicts on both
agree() {
	"$BOOTRIG" judge --format ktap "$2" >"$tmp/out.ktap" 2>"$tmp/judge.err"
	if python3 "$AGREE" "$KUNIT" "$2" "$tmp/out.ktap" >"$tmp/agree.out" 2>&1; then
		ok "$1: kunit.py concludes the same of the original and of judge --format ktap"
	else
		not_ok "$1: kunit.py concludes the same of the original and of judge --format ktap" \
			"$(cat "$tmp/agree.out" "$tmp/judge.err")
$(head -n 40 "$tmp/out.ktap")"
	fi
}

# --- 1. the kernel's test_data ------------------------------------------------
n=0
for f in "$KUNIT"/test_data/*.log; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	agree "test_data/$(basename "$f")" "$f"
done
[ "$n" -ge 20 ] && ok "test_data: all $n logs compared" || not_ok "test_data: all logs compared" "only $n"

# --- 2. what test_data lacks --------------------------------------------------
doc() { printf "$2" >"$tmp/$1.log"; agree "$1" "$tmp/$1.log"; }
doc todo-skip 'KTAP version 1\n1..3\n  KTAP version 1\n  # Subtest: a\n  1..3\n  not ok 1 x # TODO later\n  not ok 2 y # SKIP no\n  ok 3 z # SKIP yes\nok 1 a # SKIP the whole suite\nnot ok 2 b # TODO t\nok 3 c # skip lower case\n'
doc numbers 'KTAP version 1\n1..3\nok 1 a\nok 3 b\nnot ok 3 c\n'
doc directives 'KTAP version 1\n1..3\nnot ok 1 t # TIMEOUT 30 seconds\nok 2 check return code # rcode=0\nnot ok 3 x # XFAIL\n'
doc ended-between 'KTAP version 1\n1..3\n  KTAP version 1\n  # Subtest: a\n  1..1\n  ok 1 x\nok 1 a\n'
doc ended-deep 'KTAP version 1\n1..1\n  KTAP version 1\n  # Subtest: s\n  1..2\n  ok 1 x\n    KTAP version 1\n    # Subtest: deep\n    1..2\n    ok 1 d\n'
doc closed-early 'KTAP version 1\n1..2\n  KTAP version 1\n  # Subtest: s\n  1..3\n  ok 1 x\nok 1 s\nok 2 t\n'
doc nested-unnamed 'KTAP version 1\n1..2\n  KTAP version 1\n  1..2\n    KTAP version 1\n    1..2\n    not ok 1 test_1\n    ok 2 test_2\n  not ok 1 test_3\n  ok 2 test_4 # SKIP\nnot ok 1 example_test_1\nok 2 example_test_2\n'
agree "ktap.rst's example" "$TOP/tests/fixtures/ktap/ktap-rst-example.log"

# --- 3. the text --------------------------------------------------------------
"$BOOTRIG" judge --format ktap "$KUNIT/test_data/test_kernel_panic_interrupt.log" >"$tmp/panic.ktap" 2>/dev/null
if grep -q '^  # the output ended inside string-stream-test: 1 of 3 planned results$' "$tmp/panic.ktap" &&
	grep -q '^  1\.\.3$' "$tmp/panic.ktap" && grep -q '^not ok 3 string-stream-test$' "$tmp/panic.ktap"; then
	ok "a crashed suite: its plan kept, not ok, the reason a diagnostic"
else
	not_ok "a crashed suite: its plan kept, not ok, the reason a diagnostic" "$(cat "$tmp/panic.ktap")"
fi
if grep -q '^  # Kernel  panic - not syncing: VFS:' "$tmp/panic.ktap" &&
	! grep -q 'Kernel panic - not syncing: VFS:' "$tmp/panic.ktap"; then
	ok "kunit.py's end of output in a diagnostic is defused (its first space doubled)"
else
	not_ok "kunit.py's end of output defused" "$(cat "$tmp/panic.ktap")"
fi
# indentation: two spaces a level, from the version line to the result
"$BOOTRIG" judge --format ktap "$tmp/ended-deep.log" >"$tmp/deep.ktap" 2>/dev/null
if grep -q '^  KTAP version 1$' "$tmp/deep.ktap" && grep -q '^    KTAP version 1$' "$tmp/deep.ktap" &&
	grep -q '^    ok 1 d$' "$tmp/deep.ktap" && ! grep -q '^\(  \)* [^ ]' "$tmp/deep.ktap"; then
	ok "two spaces a level (Documentation/dev-tools/ktap.rst)"
else
	not_ok "two spaces a level" "$(cat "$tmp/deep.ktap")"
fi
"$BOOTRIG" judge --format ktap "$KUNIT/test_data/test_is_test_passed-kselftest.log" >"$tmp/ks.ktap" 2>/dev/null
if grep -q '^ok 1 selftests: membarrier: membarrier_test_single_thread$' "$tmp/ks.ktap" &&
	grep -q '^ok 2 selftests: membarrier: membarrier_test_multi_thread$' "$tmp/ks.ktap" &&
	! grep -q 'unnamed\|Subtest: selftests' "$tmp/ks.ktap"; then
	ok "kselftest results stay results of the document, with their numbers (no invented suite)"
else
	not_ok "kselftest results stay results of the document" "$(cat "$tmp/ks.ktap")"
fi
printf 'KTAP version 1\n1..2\nok 1 z\n  KTAP version 1\n  # Subtest: a\n  ok 1 x\n  ok 2 y\n' >"$tmp/noplan.log"
"$BOOTRIG" judge --format ktap "$tmp/noplan.log" >"$tmp/noplan.ktap" 2>/dev/null
if grep -q '^  # the output ended inside a (2 results)$' "$tmp/noplan.ktap" &&
	grep -q '^not ok 2 a$' "$tmp/noplan.ktap" &&
	! sed -n '/# Subtest: a$/,/^not ok 2 a$/p' "$tmp/noplan.ktap" | grep -q '^  1\.\.'; then
	ok "a suite without a plan the console ended inside: not ok, its reason, no plan invented"
else
	not_ok "a suite without a plan the console ended inside" "$(cat "$tmp/noplan.ktap")"
fi

# --- 4. compare --format ktap -------------------------------------------------
MK=$TOP/build/tests/tools/mkresults
M=x86_64:lat:null:us:lower
"$MK" "$tmp/c/base" kb default 3 1 $M:10:1 --abi x86_64=ok >/dev/null
"$MK" "$tmp/c/one" k1 default 3 2 $M:10:1 --abi x86_64=ok >/dev/null
"$MK" "$tmp/c/two" k2 default 3 3 $M:10:1 i386:lat:null:us:lower:20:1 --abi x86_64=ok --abi i386=error >/dev/null
# three_sides FORMAT FILE CAND1-PART NO-NAN-EVIDENCE: compare's report of
# the three sides in FORMAT: CAND1's part (CAND1-PART, from FILE) has no
# case of i386, which only CAND2 has; no NaN anywhere, and a change with
# a side missing printed as the evidence says.
three_sides() {
	if [ -s "$3" ] && ! grep -q 'i386' "$3" && grep -q 'i386' "$2"; then
		ok "compare --format $1: an ABI and a metric neither BASE nor CAND1 has are no cases of CAND1's"
	else
		not_ok "compare --format $1: absent on both sides is no case" "$(cat "$2" "$tmp/cmp.err")"
	fi
	if [ -s "$2" ] && ! grep -qi 'nan' "$2" && grep -q -- "$4" "$2"; then
		ok "compare --format $1: no NaN (a change with a side missing is '-')"
	else
		not_ok "compare --format $1: no NaN" "$(grep -i 'nan\|change\|message' "$2")"
	fi
}
"$BOOTRIG" compare "$tmp/c/base" "$tmp/c/one" "$tmp/c/two" --format ktap >"$tmp/cmp.ktap" 2>"$tmp/cmp.err"
# CAND1's part: the lines between its header and CAND2's
sed -n '/# Subtest: CAND1/,/# Subtest: CAND2/p' "$tmp/cmp.ktap" >"$tmp/cand1.ktap"
three_sides ktap "$tmp/cmp.ktap" "$tmp/cand1.ktap" 'change -'
python3 "$KUNIT/kunit.py" parse "$tmp/cmp.ktap" >"$tmp/cmp.parsed" 2>&1
if grep -q 'Testing complete' "$tmp/cmp.parsed" && ! grep -qi 'error\|crashed' "$tmp/cmp.parsed"; then
	ok "compare --format ktap of three sides: kunit.py reads it without an error"
else
	not_ok "compare --format ktap of three sides: kunit.py reads it" "$(tail -n 20 "$tmp/cmp.parsed")"
fi

# --- 5. compare --format junit of the same sides: no NaN, no other's case --
"$BOOTRIG" compare "$tmp/c/base" "$tmp/c/one" "$tmp/c/two" --format junit -o "$tmp/cmp.xml" 2>"$tmp/cmp.err"
sed -n '/<testsuite name="CAND1/,/<\/testsuite>/p' "$tmp/cmp.xml" >"$tmp/cand1.xml"
three_sides junit "$tmp/cmp.xml" "$tmp/cand1.xml" '(-, p(Welch)'
if junit_valid "$tmp/cmp.xml"; then ok "compare --format junit of three sides validates against both schemas"
else not_ok "compare --format junit of three sides validates" "$JUNIT_ERR"; fi
