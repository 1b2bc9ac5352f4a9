#!/bin/sh
# t-compare-logdiff: `bootrig logdiff` on real console logs: two boots of the same
# Debian amd64 kernel, and one of the cloud-amd64 build, each booted under
# QEMU (TCG) without an initramfs until the kernel panics for want of a
# root. The same kernel twice gives a near-empty diff, with none of the
# timestamp or address noise; two kernels give their version lines.
. "$(dirname "$0")/lib.sh"
set -u
tmp=$(mktemp -d /tmp/t-compare-logdiff.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
export NO_COLOR=1

# boot FLAVOUR LOG: the kernel's console until its panic (or 300 s)
boot() {
	timeout 300 qemu-system-x86_64 -accel tcg -m 512 -nographic -no-reboot -monitor none \
		-kernel "$(kernel_path "$1")" -append 'console=ttyS0 panic=-1' \
		-serial "file:$2" -display none >/dev/null 2>&1
}
boot amd64 "$tmp/a1.log" &
p1=$!
boot cloud-amd64 "$tmp/c1.log" &
p2=$!
boot amd64 "$tmp/a2.log"
wait $p1 $p2
for f in a1 a2 c1; do
	grep -q "Kernel panic" "$tmp/$f.log" || { not_ok "boot $f reached its panic" "$(tail -3 "$tmp/$f.log")"; echo "1..$_tap_n"; exit 0; }
done
ok "three real boots reached their panic"

"$BOOTRIG" logdiff "$tmp/a1.log" "$tmp/a2.log" >"$tmp/same" 2>&1
rc=$?
sed 's/^/# /' "$tmp/same" | grep -E '^# (lines only|[-+] )'
ndiff=$(grep -cE '^[-+] ' "$tmp/same")
if [ $rc -le 1 ] && [ "$ndiff" -le 8 ]; then ok "same kernel twice: near-empty diff ($ndiff lines)"
else not_ok "same kernel twice: near-empty diff" "rc=$rc, $ndiff lines"; fi
if [ $rc -gt 1 ] || grep -E '^[-+] ' "$tmp/same" | grep -Eq '\[ *[0-9]+\.[0-9]+\]|0x[0-9a-f]{4}|ffff[0-9a-f]{8}'; then
	not_ok "no timestamp or address in the differences" "rc=$rc"
else ok "no timestamp or address in the differences"; fi
if [ $rc -gt 1 ] || grep -q "kernel failures only" "$tmp/same"; then
	not_ok "the same panic on both sides is matched by title" "rc=$rc"
else ok "the same panic on both sides is matched by title"; fi
grep -Eq '^panic +[0-9.]+ +[0-9.]+$' "$tmp/same" && ok "milestones side by side (panic time)" ||
	not_ok "milestones side by side"

"$BOOTRIG" logdiff "$tmp/a1.log" "$tmp/c1.log" >"$tmp/two" 2>&1
rc=$?
grep -E '^[-+] .*Linux version' "$tmp/two" | sed 's/^/# /'
if [ $rc -eq 1 ] && grep -Eq '^\+ +[0-9]+: Linux version 6\.1\.[0-9]+-[0-9]+-cloud-amd64 ' "$tmp/two" &&
   grep -Eq '^- +[0-9]+: Linux version 6\.1\.[0-9]+-[0-9]+-amd64 ' "$tmp/two"; then
	ok "two kernels: their version lines are among the differences"
else not_ok "two kernels: version lines" "rc=$rc"; fi
n2=$(grep -cE '^[-+] ' "$tmp/two")
[ "$n2" -gt "$ndiff" ] && ok "two kernels differ more than one kernel twice ($n2 > $ndiff)" ||
	not_ok "two kernels differ more" "$n2 vs $ndiff"

# a new crash in B is reported first, by its title
cp "$tmp/a2.log" "$tmp/oops.log"
cat >>"$tmp/oops.log" <<'LOG'
[    3.100000] BUG: kernel NULL pointer dereference, address: 0000000000000008
[    3.100001] #PF: supervisor read access in kernel mode
[    3.100002] #PF: error_code(0x0000) - not-present page
[    3.100003] Oops: 0000 [#1] PREEMPT SMP NOPTI
[    3.100004] CPU: 0 PID: 1 Comm: swapper/0 Not tainted 6.1.0-57-amd64 #1
[    3.100005] RIP: 0010:bootrig_test_fault+0x12/0x40
[    3.100006] Call Trace:
[    3.100007]  <TASK>
[    3.100008]  do_one_initcall+0x41/0x200
[    3.100009]  </TASK>
[    3.100010] ---[ end trace 0000000000000000 ]---
LOG
"$BOOTRIG" logdiff "$tmp/a1.log" "$tmp/oops.log" >"$tmp/oops" 2>&1
rc=$?
first=$(grep -n "kernel failures only in B" "$tmp/oops" | cut -d: -f1)
lines=$(grep -n "^lines only in" "$tmp/oops" | head -1 | cut -d: -f1)
if [ $rc -eq 1 ] && [ -n "$first" ] && [ "$first" -lt "${lines:-0}" ] &&
   grep -q '^+ \[oops\] .*bootrig_test_fault' "$tmp/oops"; then
	ok "a new oops comes first, with its title"
else not_ok "a new oops comes first" "rc=$rc $(grep '^+ \[' "$tmp/oops")"; fi

"$BOOTRIG" logdiff --format json "$tmp/a1.log" "$tmp/c1.log" >"$tmp/two.json"
if python3 - "$tmp/two.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "bootrig-logdiff-1"
assert any("cloud-amd64" in l["text"] for l in d["b"]["only_here"])
assert "panic" in d["a"]["milestones"]
PY
then ok "--format json: bootrig-logdiff-1"
else not_ok "--format json"; fi

mkdir -p "$tmp/res/k/default/1"
cp "$tmp/c1.log" "$tmp/res/k/default/1/console.log"
"$BOOTRIG" logdiff "$tmp/a1.log" "$tmp/res" >"$tmp/dir" 2>&1
grep -q "^B $tmp/res/k/default/1/console.log" "$tmp/dir" && ok "a results directory stands for its first boot" ||
	not_ok "results directory as input" "$(head -2 "$tmp/dir")"
"$BOOTRIG" logdiff "$tmp/a1.log" >/dev/null 2>&1
[ $? -eq 64 ] && ok "one log only: 64" || not_ok "one log only: 64"
"$BOOTRIG" logdiff "$tmp/a1.log" "$tmp/missing.log" >/dev/null 2>&1
[ $? -eq 65 ] && ok "a missing log: 65" || not_ok "a missing log: 65"
echo "1..$_tap_n"
