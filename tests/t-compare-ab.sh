#!/bin/sh
# t-compare-ab: real A/B comparisons on the Debian amd64 kernel under
# QEMU/TCG, 5 boots a side, smoke suite (lat_syscall on every ABI):
#   base   the default command line (x32 disabled, Debian's default)
#   same   the default again: an A/A pair, which must show no regression
#   x32    --append syscall.x32=y: x32 becomes ok, lmbench table with p-values
#   slow   --append bootrig.knob.slow_null=30: the guest's null syscall made
#          30% slower, which compare must report as a regression (exit 1)
# The four sides boot side by side, one round at a time (one boot of each
# at once), so that whatever else loads the host loads every side alike:
# boots of one side in a row would turn host load drifting into a "change".
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

"$RUN" build --kernel "$kernel" --suite smoke -o "$tmp/initramfs.img" >"$tmp/build.log" 2>&1 ||
	not_ok "bootrig build the smoke initramfs" "$(tail -3 "$tmp/build.log")"
R="$tmp/results"
for round in 1 2 3 4 5; do
	for side in base same x32 slow; do
		case $side in
		x32) append="syscall.x32=y" ;;
		slow) append="bootrig.knob.slow_null=30" ;;
		*) append="" ;;
		esac
		"$RUN" run --kernel "$kernel" --initramfs "$tmp/initramfs.img" ${append:+--append "$append"} \
			-o "$R/$side/$round" >"$tmp/run-$side-$round.log" 2>&1 &
	done
	wait
done
npass=$(grep -l '"verdict": *"PASS"' $(find "$R" -name result.json) 2>/dev/null | wc -l)
if [ "$npass" -eq 20 ]; then ok "20 real boots, all PASS"
else not_ok "20 real boots, all PASS" "$npass PASS; $(cat "$tmp"/run-*.log | grep -v 'stage\|started' | tail -5)"; fi

# --- x32 enabled vs default: the lmbench table, and x32 becomes ok ---
"$BOOTRIG" compare "$R/base" "$R/x32" >"$tmp/x32.txt" 2>"$tmp/x32.err"
rc=$?
sed 's/^/# /' "$tmp/x32.txt"
rows=0
for m in null read write stat fstat open_close; do
	grep -Eq "^ +[0-9.]+ ± +[0-9.]+% +[-+][0-9.]+% +[0-9.]+ ± +[0-9.]+% +(<0\.0001|[01]\.[0-9]+) +[01<][0-9.]* +x86_64\.lat_syscall\.$m \(us\)" "$tmp/x32.txt" &&
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
"$BOOTRIG" compare "$R/base" "$R/same" >"$tmp/same.txt" 2>&1
rc=$?
grep -E 'regressed|improved' "$tmp/same.txt" | sed 's/^/# /'
[ $rc -eq 0 ] && ok "A/A (default twice): no significant change, exit 0" ||
	not_ok "A/A (default twice): no significant change" "rc=$rc"

# --- all three candidates at once: JUnit and HTML of the real data ---
"$BOOTRIG" compare "$R/base" "$R/same" "$R/x32" "$R/slow" --format junit -o "$tmp/ab.xml"
if xmllint --noout --schema "$FIX/junit.xsd" "$tmp/ab.xml" 2>"$tmp/xmllint"; then ok "JUnit of the real A/B validates"
else not_ok "JUnit of the real A/B validates" "$(head -3 "$tmp/xmllint")"; fi
"$BOOTRIG" compare "$R/base" "$R/same" "$R/x32" "$R/slow" --format html -o "$tmp/ab.html"
CHROME=$(command -v chromium || true)
if [ -z "$CHROME" ]; then
	skip "real A/B HTML renders in Chromium" "chromium not installed"
else
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
		--user-data-dir="$tmp/chrome" --dump-dom "file://$tmp/ab.html" >"$tmp/dom" 2>"$tmp/chrome.err"
	nsvg=$(grep -c '<svg' "$tmp/ab.html")
	ready=$(sed -n 's/.*data-bootrig-ready="\([0-9]*\)".*/\1/p' "$tmp/dom" | head -1)
	if [ "$nsvg" -eq 18 ] && [ "${ready:-x}" = 18 ] && ! grep -q 'Uncaught' "$tmp/chrome.err"; then
		ok "real A/B HTML: 18 metric charts rendered, no console error"
	else not_ok "real A/B HTML" "svg=$nsvg ready=$ready"; fi
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
