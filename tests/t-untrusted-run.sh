#!/bin/sh
# t-untrusted-run.sh: `bootrig run` of the real amd64 kernel with a command
# line full of control bytes (issue 11, reproductions 5 and 6; the other
# commands are in t-untrusted.sh). Its stdout and stderr (event lines, the
# summary and its reasons) must be safe for a terminal, and result.json
# strict UTF-8 JSON, whatever becomes of the boot:
#   1. rdinit= a path with ESC, OSC 0 and 52, BEL, backspace, a raw 0x9b:
#      bytes an XML document cannot carry: a usage error (exit 64);
#   2. bootrig.samples= a value with the C1 controls CSI and OSC in UTF-8
#      and DEL, which libvirt takes: the kernel boots and echoes them, and
#      bootrig's init refuses the plan ("plan: bad samples=..."), so they
#      come back in an ERROR record, the FAIL's reason, the event line and
#      the summary; result.json writes them as \u escapes.
# --clock icount: TCG, so the boot does not depend on KVM working here.
. "$(dirname "$0")/lib.sh"
set -u
export LC_ALL=C

tmp=$(mktemp -d /tmp/t-untrusted-run.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
CHECK=$TOP/build/tests/tools/textcheck
x86=$(kernel_path amd64)

# term_ok NAME FILE...: every FILE is safe for a terminal.
term_ok() {
	name=$1; shift
	if out=$("$CHECK" term "$@"); then ok "$name"; else not_ok "$name" "$out"; fi
}
# results_ok NAME DIR: every result.json under DIR is strict UTF-8 JSON.
results_ok() {
	bad= n=0
	for r in "$2"/*/*/*/result.json; do
		[ -f "$r" ] || continue
		n=$((n + 1))
		out=$("$CHECK" json "$r") || bad="$bad $out"
	done
	if [ $n -gt 0 ] && [ -z "$bad" ]; then ok "$1"; else not_ok "$1" "$n files:$bad"; fi
}

esc=$(printf 'rdinit=/x\033]0;PWNED\007\033]52;c;ZXZpbA==\007\033[2J\233\010')
run esc --kernel "$x86" --append "$esc" --clock icount --timeout 60
term_ok "run, ESC in --append: stdout and stderr safe for a terminal" "$tmp/esc.out" "$tmp/esc.err"
if [ "$rc" -eq 64 ] && grep -q 'control character (0x1b' "$tmp/esc.err"; then
	ok "run, ESC in --append: exit 64 naming the byte"
else not_ok "run, ESC in --append: exit 64 naming the byte" "exit $rc: $(cat "$tmp/esc.err")"; fi

c1=$(printf 'bootrig.samples=\302\233\062J\302\235\060;PWNED\177')
run c1 --kernel "$x86" --append "$c1" --clock icount --timeout 60
if [ $rc = 1 ] && grep -q 'FAIL.*init error: plan: bad samples=' "$tmp/c1.err"; then
	ok "run, C1 in --append: init refuses the plan, naming the value"
else not_ok "run, C1 in --append: init refuses the plan, naming the value" \
	"exit $rc: $(tail -n 3 "$tmp/c1.err")"; fi
term_ok "run, C1 in --append: stdout and stderr safe for a terminal" "$tmp/c1.out" "$tmp/c1.err"
if grep -qF 'bad samples=\xc2\x9b2J\xc2\x9d0;PWNED\x7f' "$tmp/c1.out"; then
	ok "run, C1 in --append: the summary shows the reason, escaped"
else not_ok "run, C1 in --append: the summary shows the reason, escaped" "$(cat "$tmp/c1.out")"; fi
results_ok "run, C1 in --append: result.json strict UTF-8" "$tmp/c1"
r=$(echo "$tmp"/c1/*/default/1/result.json)
term_ok "run, C1 in --append: result.json safe for a terminal" "$r"
if grep -qF '\u009b2J\u009d0;PWNED\u007f' "$r"; then
	ok "run, C1 in --append: result.json writes C1 and DEL as \\u escapes"
else not_ok "run, C1 in --append: result.json writes C1 and DEL as \\u escapes" "$(grep reason "$r")"; fi
if grep -qF "$(printf '\302\233')" "$tmp"/c1/*/default/1/console.log; then
	ok "run, C1 in --append: console.log keeps the raw bytes"
else not_ok "run, C1 in --append: console.log keeps the raw bytes"; fi
check "no QEMU left" no_qemu_left "$pid"
