#!/bin/sh
# tests/t-judge-memory.sh: the judge and logdiff in bounded memory.
#   `bootrig judge /dev/zero` (an endless input without a line end) ends, no
#   abort, with a message and INFRA_ERROR; judge and logdiff of a 300 MB
#   console log (tests/tools/br-genlog) stay under 256 MiB peak RSS, and the
#   judge still finds a panic at the end of such a log. Peak RSS is of the
#   release build (build/bootrig): ASan's own heap would be measured
#   otherwise. A memory bound, not a time: nothing here is timed.
. "$(dirname "$0")/lib.sh"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PASS_LOG=$TOP/tests/fixtures/judge/pass-cloud-arm64.log
GENLOG=$TOP/build/tests/tools/br-genlog
RELEASE=$TOP/build/bootrig
PANIC='[    7.800000] Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b'

# Each command runs under a 2 GiB address-space limit,
# so that a judge that grows with its input fails here instead of taking
# the machine's memory. peak_kb FILE: the peak RSS /usr/bin/time -v wrote.
bounded() { (ulimit -v 2097152 && exec /usr/bin/time -v "$@"); }
peak_kb() { sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$1"; }
if [ ! -x /usr/bin/time ]; then
	not_ok "judge /dev/zero" "no /usr/bin/time (package time)"
else
	timeout 600 sh -c 'ulimit -v 2097152 && exec /usr/bin/time -v "$0" judge /dev/zero' "$RELEASE" > "$T/zero.out" 2> "$T/zero.err"
	rc=$?
	kb=$(peak_kb "$T/zero.err")
	if [ "$rc" -ne 125 ] || ! grep -q "stopped reading /dev/zero at" "$T/zero.err"; then
		not_ok "judge /dev/zero ends with a message and INFRA_ERROR (125)" "exit $rc: $(head -c 400 "$T/zero.err")"
	else
		ok "judge /dev/zero ends with a message and INFRA_ERROR (125)"
	fi
	if [ -n "$kb" ] && [ "$kb" -lt 262144 ]; then ok "judge /dev/zero: peak RSS $kb KiB < 256 MiB"
	else not_ok "judge /dev/zero: peak RSS under 256 MiB" "peak RSS ${kb:-?} KiB"; fi

	# 300 MB of boots with records (br-genlog): the records kept are bounded
	"$GENLOG" --size 300000000 --seed 3 -o "$T/big.log" > "$T/genlog.out"
	bounded "$RELEASE" judge --format json "$T/big.log" > "$T/big.json" 2> "$T/big.err"
	rc=$?
	kb=$(peak_kb "$T/big.err")
	if [ "$rc" -eq 2 ] && [ -n "$kb" ] && [ "$kb" -lt 262144 ]; then
		ok "judge of a 300 MB log of boots and records: peak RSS $kb KiB < 256 MiB"
	else not_ok "judge of a 300 MB log of boots and records: peak RSS under 256 MiB" "exit $rc, peak RSS ${kb:-?} KiB"; fi

	# one boot that talks for 300 MB, then panics: the panic is found
	sed '/reboot: Power down/,$d' "$PASS_LOG" > "$T/talk.log"
	yes '[    7.100000] virtio_net virtio0 eth0: a kernel that talks a lot on its console' |
		head -c 300000000 >> "$T/talk.log"
	printf '%s\n' "$PANIC" >> "$T/talk.log"
	bounded "$RELEASE" judge "$T/talk.log" > "$T/talk.out" 2> "$T/talk.err"
	rc=$?
	kb=$(peak_kb "$T/talk.err")
	if [ "$rc" -eq 2 ] && head -n 1 "$T/talk.out" | grep -q "PANIC: kernel panic: Attempted to kill init!"; then
		ok "judge of a 300 MB boot finds the panic at its end"
	else not_ok "judge of a 300 MB boot finds the panic at its end" "exit $rc: $(head -n 1 "$T/talk.out")"; fi
	if [ -n "$kb" ] && [ "$kb" -lt 262144 ]; then ok "judge of a 300 MB boot: peak RSS $kb KiB < 256 MiB"
	else not_ok "judge of a 300 MB boot: peak RSS under 256 MiB" "peak RSS ${kb:-?} KiB"; fi
	rm -f "$T/talk.log"

	bounded "$RELEASE" logdiff "$PASS_LOG" "$T/big.log" > "$T/diff.out" 2> "$T/diff.err"
	rc=$?
	kb=$(peak_kb "$T/diff.err")
	if [ "$rc" -eq 1 ] && grep -q "^lines only in B: " "$T/diff.out"; then ok "logdiff against a 300 MB log: differences"
	else not_ok "logdiff against a 300 MB log: differences" "exit $rc: $(head -c 300 "$T/diff.err")"; fi
	if [ -n "$kb" ] && [ "$kb" -lt 262144 ]; then ok "logdiff against a 300 MB log: peak RSS $kb KiB < 256 MiB"
	else not_ok "logdiff against a 300 MB log: peak RSS under 256 MiB" "peak RSS ${kb:-?} KiB"; fi
fi
echo "1..$_tap_n"
