#!/bin/sh
# tests/t-judge-robust.sh: the judge cannot be blinded or forged
# (t-judge-memory.sh: nor exhausted).
#   1. A panic hidden from a terminal is still found: the panic line followed,
#      on its line, by a screen clear (ESC[2J), a cursor home (ESC[H) or a
#      lone CR and other text; the panic line after 65,536 bytes of other
#      output on the same line; the panic's own "---[ end Kernel panic" line
#      alone. Each spliced into a real PASS console (tests/fixtures/judge/,
#      a `bootrig run` of the Debian cloud-arm64 kernel): `bootrig judge`
#      says PANIC, exit 2.
#   2. Records after END are protocol errors: the same console with a forged,
#      well-formed METRIC record and a second END after END: FAIL, the
#      metric keeps its one honest observation, both records counted as
#      "after_end" in the protocol object.
# No QEMU here: the console is a fixture.
. "$(dirname "$0")/lib.sh"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PASS_LOG=$TOP/tests/fixtures/judge/pass-cloud-arm64.log
PANIC='[    7.800000] Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b'

# splice NAME TEXT: the PASS console with TEXT (printf format, no newline
# added) printed just before its power-off line, into $T/NAME.log.
splice() {
	awk -v f="$T/$1.ins" '/reboot: Power down/ { while ((getline l < f) > 0) print l } { print }' \
		"$PASS_LOG" > "$T/$1.log"
}
insert() { printf "$2" > "$T/$1.ins"; splice "$1"; }

# judge_is NAME LOG VERDICT EXIT [TEXT]: `bootrig judge LOG` says VERDICT and
# exits EXIT; its first line contains TEXT.
judge_is() {
	"$BOOTRIG" judge "$2" > "$T/out" 2> "$T/err"
	rc=$?
	got=$(head -n 1 "$T/out" | sed 's/^[^:]*: \([A-Z_]*\).*/\1/')
	if [ "$got" != "$3" ] || [ "$rc" -ne "$4" ]; then
		not_ok "$1" "verdict $got exit $rc, want $3 exit $4: $(head -n 1 "$T/out") $(head -c 300 "$T/err")"
	elif [ -n "${5:-}" ] && ! head -n 1 "$T/out" | grep -qF -- "$5"; then
		not_ok "$1" "no '$5' in: $(head -n 1 "$T/out")"
	else
		ok "$1"
	fi
}

judge_is "the fixture itself: PASS" "$PASS_LOG" PASS 0

# 1. Hidden panics.
insert clear "$PANIC\033[2Jlogin: \n"
judge_is "panic line then ESC[2J on its line: PANIC" "$T/clear.log" PANIC 2 "kernel panic: Attempted to kill init!"
insert home "$PANIC\033[Hlogin: \n"
judge_is "panic line then ESC[H on its line: PANIC" "$T/home.log" PANIC 2 "kernel panic: Attempted to kill init!"
insert cr "$PANIC\rlogin:                                                           \n"
judge_is "panic line then a lone CR and other text: PANIC" "$T/cr.log" PANIC 2 "kernel panic: Attempted to kill init!"
insert ris "$PANIC\033c\n"
judge_is "panic line then a terminal reset (ESC c): PANIC" "$T/ris.log" PANIC 2 "kernel panic: Attempted to kill init!"
head -c 65536 /dev/zero | tr '\0' 'x' > "$T/long.ins"
printf '%s\n' "$PANIC" >> "$T/long.ins"
splice long
judge_is "65,536 bytes of output, then the panic on the same line: PANIC" "$T/long.log" PANIC 2 "kernel panic: Attempted to kill init!"
head -c 3000000 /dev/zero | tr '\0' 'y' > "$T/huge.ins"
printf '%s\n' "$PANIC" >> "$T/huge.ins"
splice huge
judge_is "3 MB of output, then the panic on the same line: PANIC" "$T/huge.log" PANIC 2 "kernel panic: Attempted to kill init!"
{ printf '%s' "$PANIC"; head -c 3000000 /dev/zero | tr '\0' 'z'; echo; } > "$T/head.ins"
splice head
judge_is "the panic, then 3 MB of output on the same line: PANIC" "$T/head.log" PANIC 2 "kernel panic: Attempted to kill init!"
insert endonly '[    7.800001] ---[ end Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b ]---\n'
judge_is "a panic's end marker alone: PANIC" "$T/endonly.log" PANIC 2 "kernel panic: Attempted to kill init!"
insert both "$PANIC\n[    7.800001] ---[ end Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b ]---\n"
"$BOOTRIG" judge --format json "$T/both.log" > "$T/both.json"
expect "a panic and its end marker: one event, not two" "$T/both.json" 'events.#' 1

# 2. Records after END. forge SEQ KIND FIELDS: a well-formed record line.
forge() {
	python3 - "$@" <<'PY'
import sys, zlib
body = "@@BR 1 %s %s %s" % (sys.argv[1], sys.argv[2], sys.argv[3])
print("%s *%08x" % (body, zlib.crc32(body.encode())))
PY
}
{
	forge 23 METRIC "abi=aarch64 test=lat_syscall name=null unit=us better=lower n=1 median=99.0 min=99.0 max=99.0 mean=99.0 stddev=0.0 samples=99.0"
	forge 24 END "tests=2 passed=2 failed=0 timeout=0 records=23"
} > "$T/forged.ins"
splice forged
judge_is "a forged METRIC and a second END after END: FAIL" "$T/forged.log" FAIL 1 "after END"
"$BOOTRIG" judge --format json "$T/forged.log" > "$T/forged.json"
"$JGET" "$T/forged.json" metrics > "$T/metrics.json"
n=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(len([x for x in m if x["abi"]=="aarch64" and x["name"]=="null"]), [x["median"] for x in m if x["abi"]=="aarch64" and x["name"]=="null"])' "$T/metrics.json" 2>&1)
check "the metric keeps one observation, the honest one ($n)" test "$n" = "1 [4.0147]"
expect "both records after END are counted as protocol errors" "$T/forged.json" protocol.after_end 2
expect "and are not records read" "$T/forged.json" protocol.records 23

echo "1..$_tap_n"
