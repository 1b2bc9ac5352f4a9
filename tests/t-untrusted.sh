#!/bin/sh
# t-untrusted.sh: text from a guest or a file never reaches a terminal raw,
# and every JSON bootrig writes is valid UTF-8 (issue 11, reproductions 5
# and 6). Hostile bytes (OSC 0 window title, OSC 52 clipboard, ESC[2J, a raw
# 0x9b CSI, U+009D as UTF-8, BEL, backspace, DEL, CR, invalid UTF-8, an
# overlong and a surrogate) are put where each command reads text:
#   1. console lines, a panic whose title carries them, and protocol
#      records whose values are %XX-encoded (%1B...): `bootrig judge` (text,
#      json) and `bootrig logdiff` against a clean log (text, json);
#   2. result.json metric names, units, ABIs, event titles, kernel and
#      variant directory names: `bootrig compare` (text, json, junit, html);
#   3. cpio member names (and /../../etc/evil): `bootrig build --list`.
# Every stdout and stderr must pass `textcheck term` (no C0 but newline
# and tab, no DEL, no C1, nothing that is not UTF-8), every JSON output
# `textcheck json` (strict UTF-8, one document), and the hostile text must
# still be shown, escaped (\x1b). The boot itself: t-untrusted-run.sh.
. "$(dirname "$0")/lib.sh"
set -u
export LC_ALL=C

tmp=$(mktemp -d /tmp/t-untrusted.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
CHECK=$TOP/build/tests/tools/textcheck
REC=$TOP/build/tests/tools/br-record
MKRES=$TOP/build/tests/tools/mkresults
FIX=$TOP/tests/fixtures/crash

# The hostile text: no NUL, no newline, no '/' or ':' (it also names files
# and mkresults fields). HK, for kernel lines, lacks what blinds the judge
# to a line (ESC[2J, a lone CR: reproduction 3, tested in t-judge.sh).
HK=$(printf 'x\033]0;PWNED\007\033]52;c;ZXZpbA==\007\233[31m\302\235\0337\010\177\377\376\300\257\355\240\200\\q')
H=$HK$(printf '\033[2J\r')

# term_ok NAME FILE...: every FILE is safe for a terminal.
term_ok() {
	name=$1; shift
	if out=$("$CHECK" term "$@"); then ok "$name"; else not_ok "$name" "$out"; fi
}
# json_ok NAME FILE: FILE is one JSON document in strict UTF-8.
json_ok() {
	if out=$("$CHECK" json "$2"); then ok "$1"; else not_ok "$1" "$out"; fi
}
# shown NAME FILE [TEXT]: the hostile text is in FILE, escaped: TEXT,
# 'PWNED\x07' by default (the judge drops ESC and the byte after it from a
# console line, but not the BEL; logdiff's normalized lines lose the BEL too).
shown() {
	want=${3:-'PWNED\x07'}
	if grep -qF "$want" "$2"; then ok "$1"
	else not_ok "$1" "no '$want' in $2: $(head -c 600 "$2")"; fi
}

# --- 1. console logs: judge and logdiff -----------------------------------
sed '/^# /d' "$FIX/clean-boot-amd64.log" >"$tmp/clean.log"
# A kernel that prints the bytes, then panics with them in its title.
{
	sed -n '1,40p' "$tmp/clean.log"
	printf '[    1.000000] hostile: %s\n' "$HK"
	printf '[    1.100000] raw OSC \235 0;PWNED\234 and \2332J, then ESC[2J: \033[2J\n'
	printf '[    2.000000] Kernel panic - not syncing: %s\n' "$HK"
	printf '[    2.000100] ---[ end Kernel panic - not syncing: %s ]---\n' "$HK"
} >"$tmp/panic.log"
# A guest whose records carry the bytes %XX-encoded in every string field.
{
	sed -n '1,40p' "$tmp/clean.log"
	"$REC" 0 BEGIN proto=1 init=1 arch=x86_64 plan=builtin
	"$REC" 1 SYSINFO "release=$H" "version=$H" machine=x86_64 cpus=1 memtotal_kb=1000 \
		uptime=1.0 "cmdline=$H"
	"$REC" 2 ABI abi=x86_64 status=error "reason=$H"
	"$REC" 3 ABI "abi=$H" status=ok
	"$REC" 4 PLAN "suite=$H" repeat=1 samples=1 abis=x86_64 "tests=$H"
	"$REC" 5 TEST abi=x86_64 "test=$H" status=start
	"$REC" 6 METRIC abi=x86_64 "test=$H" "name=$H" "unit=$H" better=lower n=1 median=1.0 \
		min=1.0 max=1.0 mean=1.0 stddev=0.0 samples=1.0 "counters=$H"
	"$REC" 7 LOG abi=x86_64 "test=$H" "text=$H"
	"$REC" 8 RESULT abi=x86_64 "test=$H" status=FAIL "reason=$H" ms=1
	"$REC" 9 ERROR "reason=$H"
	"$REC" 10 END tests=1 passed=0 failed=1 timeout=0 records=10
	printf '[    3.000000] reboot: Power down\n'
} >"$tmp/records.log"

for log in panic records; do
	"$BOOTRIG" judge "$tmp/$log.log" >"$tmp/j-$log.out" 2>"$tmp/j-$log.err"
	term_ok "judge $log.log: stdout and stderr safe for a terminal" "$tmp/j-$log.out" "$tmp/j-$log.err"
	shown "judge $log.log: the hostile text shown, escaped" "$tmp/j-$log.out"
	"$BOOTRIG" judge --format json "$tmp/$log.log" >"$tmp/j-$log.json" 2>"$tmp/j-$log.jerr"
	json_ok "judge --format json $log.log: strict UTF-8 JSON" "$tmp/j-$log.json"
	term_ok "judge --format json $log.log: safe for a terminal" "$tmp/j-$log.json" "$tmp/j-$log.jerr"
	"$BOOTRIG" logdiff "$tmp/clean.log" "$tmp/$log.log" >"$tmp/d-$log.out" 2>"$tmp/d-$log.err"
	term_ok "logdiff clean $log.log: stdout and stderr safe" "$tmp/d-$log.out" "$tmp/d-$log.err"
	want='PWNED\x07'
	[ $log = panic ] && want='\x9b[31m\xc2\x9d'      # in the lines only B has
	shown "logdiff clean $log.log: the hostile text shown, escaped" "$tmp/d-$log.out" "$want"
	"$BOOTRIG" logdiff --format json "$tmp/clean.log" "$tmp/$log.log" >"$tmp/d-$log.json" \
		2>"$tmp/d-$log.jerr"
	json_ok "logdiff --format json clean $log.log: strict UTF-8 JSON" "$tmp/d-$log.json"
	term_ok "logdiff --format json clean $log.log: safe for a terminal" "$tmp/d-$log.json" \
		"$tmp/d-$log.jerr"
done
expect "judge panic.log: PANIC" "$tmp/j-panic.json" verdict PANIC
# The title is a summary: made without the control bytes (the raw bytes
# stay in the console log).
"$JGET" "$tmp/j-panic.json" events.0.title >"$tmp/title"
term_ok "panic title: made clean of controls" "$tmp/title"
if grep -q "^kernel panic: x.*PWNED" "$tmp/title"; then ok "panic title: the text kept"
else not_ok "panic title: the text kept" "$(od -c "$tmp/title" | head -n 5)"; fi
expect "judge records.log: FAIL" "$tmp/j-records.json" verdict FAIL
# Invalid bytes become U+FFFD, one per byte; what is valid UTF-8 stays.
rel=$("$JGET" "$tmp/j-records.json" sysinfo.release | od -An -tx1 | tr -d ' \n')
case $rel in
*efbfbd*) ok "JSON: an invalid byte becomes U+FFFD" ;;
*) not_ok "JSON: an invalid byte becomes U+FFFD" "$rel" ;;
esac
if grep -qF '\u009d' "$tmp/j-records.json" && grep -qF '\u001b' "$tmp/j-records.json"; then
	ok "JSON: C0 and C1 controls written as \\u escapes"
else not_ok "JSON: C0 and C1 controls written as \\u escapes" "$(grep release "$tmp/j-records.json")"; fi

# --- 2. result.json from anywhere: compare ---------------------------------
m="x86_64:lat_$H:null$H:us$H:lower:2.0:1"
"$MKRES" "$tmp/base" "k$H-1" "v$H" 2 1 "$m" --abi "x86_64=ok" --abi "i$H=ok" >/dev/null
"$MKRES" "$tmp/cand" "k$H-2" "v$H" 2 2 "$m" --abi "x86_64=ok" --abi "i$H=error$H" \
	--boot "2=PANIC:panic:Kernel panic - $H" >/dev/null
for f in text json junit html; do
	"$BOOTRIG" compare --format $f "$tmp/base" "$tmp/cand" >"$tmp/c.$f" 2>"$tmp/c-$f.err"
	term_ok "compare --format $f: stdout and stderr safe for a terminal" "$tmp/c.$f" "$tmp/c-$f.err"
done
shown "compare text: the hostile metric shown, escaped" "$tmp/c.text"
json_ok "compare --format json: strict UTF-8 JSON" "$tmp/c.json"
junit_valid "$tmp/c.junit" && ok "compare --format junit of hostile names: valid (junit-10.xsd, JUnit.xsd)" ||
	not_ok "compare --format junit of hostile names: valid" "$JUNIT_ERR"
"$BOOTRIG" compare --logs "$tmp/base" "$tmp/cand" >"$tmp/c-logs.out" 2>"$tmp/c-logs.err"
term_ok "compare --logs: stdout and stderr safe" "$tmp/c-logs.out" "$tmp/c-logs.err"

# --- 3. cpio member names: build --list ------------------------------------
# newc_entry NAME MODE: one empty member of a newc cpio archive.
newc_entry() {
	n=$(($(printf %s "$1" | wc -c) + 1))
	printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X' \
		1 "$2" 0 0 1 0 0 0 0 0 0 "$n" 0
	printf '%s\0' "$1"
	pad=$(( (4 - (110 + n) % 4) % 4 ))
	[ $pad -gt 0 ] && head -c $pad /dev/zero
	return 0
}
{
	newc_entry "init" 33261
	newc_entry "evil$H" 33188
	newc_entry "/../../etc/evil" 33188
	newc_entry "TRAILER!!!" 0
} | gzip -n >"$tmp/evil.img"
"$BOOTRIG" build --list "$tmp/evil.img" >"$tmp/l.out" 2>"$tmp/l.err"
term_ok "build --list: member names safe for a terminal" "$tmp/l.out" "$tmp/l.err"
if grep -qF 'evilx\x1b]0;PWNED' "$tmp/l.out" && grep -qF '/../../etc/evil' "$tmp/l.out"; then
	ok "build --list: every member listed, escaped"
else not_ok "build --list: every member listed, escaped" "$(cat "$tmp/l.out" "$tmp/l.err")"; fi
# A file name that is not UTF-8 in an error message.
"$BOOTRIG" build --list "$tmp/no-such-$H.img" >"$tmp/l2.out" 2>"$tmp/l2.err"
term_ok "build --list: a missing file's hostile name in the error" "$tmp/l2.out" "$tmp/l2.err"
shown "build --list: the error names the file, escaped" "$tmp/l2.err"
