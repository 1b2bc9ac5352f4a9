#!/bin/sh
# t-untrusted-run.sh: `bootrig run` of the real amd64 kernel with a command
# line full of control bytes (issue 11, reproductions 5 and 6; the other
# commands are in t-untrusted.sh). Its stdout and stderr (event lines, the
# summary and its reasons) must be safe for a terminal, and result.json
# strict UTF-8 JSON, whatever becomes of the boot:
#   1. rdinit= a path with ESC, OSC 0 and 52, BEL, backspace, a raw 0x9b:
#      bytes an XML document cannot carry (libvirt may refuse the domain);
#   2. rdinit= a path with the C1 controls CSI and OSC as UTF-8 and DEL,
#      which libvirt takes: the kernel panics "Requested init ... failed",
#      echoing them on the console; the panic's title is made clean.
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
results_ok "run, ESC in --append: result.json strict UTF-8" "$tmp/esc"

c1=$(printf 'rdinit=/y\302\233\062J\302\235\060;PWNED\177')
run c1 --kernel "$x86" --append "$c1" --clock icount --timeout 60
if [ $rc = 2 ] && grep -q 'PANIC.*Requested init' "$tmp/c1.err"; then
	ok "run, C1 in --append: the kernel panics on the missing init"
else not_ok "run, C1 in --append: the kernel panics on the missing init" \
	"exit $rc: $(tail -n 3 "$tmp/c1.err")"; fi
term_ok "run, C1 in --append: stdout and stderr safe for a terminal" "$tmp/c1.out" "$tmp/c1.err"
results_ok "run, C1 in --append: result.json strict UTF-8" "$tmp/c1"
r=$(echo "$tmp"/c1/*/default/1/result.json)
"$JGET" "$r" events.0.title >"$tmp/title"
term_ok "run, C1 in --append: the panic's title made clean" "$tmp/title"
if grep -qF "$(printf '\302\233')" "$tmp"/c1/*/default/1/console.log; then
	ok "run, C1 in --append: console.log keeps the raw bytes"
else not_ok "run, C1 in --append: console.log keeps the raw bytes"; fi
check "no QEMU left" no_qemu_left "$pid"
