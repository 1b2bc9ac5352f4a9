#!/bin/sh
# t-run-results.sh: a result is never lost, replaced or pooled by mistake.
#   -o on a full disk                       INFRA_ERROR (125), never PASS
#   a second run on a results directory     waits for the lock, or refuses
#                                           with --no-wait; never interleaves
#   a rerun into the same -o                its boots numbered after the old
#   compare of boots run differently        refused, naming what differs
#   --append past COMMAND_LINE_SIZE         exit 64 naming the limit
#   a kernel whose file name is not UTF-8   boots, staged under a safe name
#   libvirt's capability probes             their QEMUs reaped, no zombies
. "$(dirname "$0")/lib.sh"
set -u

tmp=$(mktemp -d /tmp/t-run-results.XXXXXX)
cleanup() {
	umount "$tmp/full" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
arm64=$(kernel_path cloud-arm64)
"$BOOTRIG" build --kernel "$arm64" -o "$tmp/arm64.img" >/dev/null 2>&1 ||
	not_ok "an image for the arm64 kernel" "bootrig build failed"

# --- a full disk ---------------------------------------------------------------
mkdir -p "$tmp/full"
if mount -t tmpfs -o size=48k tmpfs "$tmp/full" 2>/dev/null; then
	"$BOOTRIG" run --kernel "$arm64" --initramfs "$tmp/arm64.img" -o "$tmp/full/r" \
		>"$tmp/full.out" 2>"$tmp/full.err"
	rc=$?
	[ "$rc" -eq 125 ] && ok "full disk: exit 125" || not_ok "full disk: exit 125" "exit $rc"
	if grep -q ' PASS ' "$tmp/full.out"; then
		not_ok "full disk: the summary says no PASS" "$(cat "$tmp/full.out")"
	else
		ok "full disk: the summary says no PASS"
	fi
	check "full disk: the summary says INFRA_ERROR" grep -q INFRA_ERROR "$tmp/full.out"
	check "full disk: the reason names the file and the error" \
		grep -q "cannot write .*: No space left on device" "$tmp/full.out"
	umount "$tmp/full"
else
	skip "full disk" "cannot mount a tmpfs here"
fi

# --- two runs on one results directory ----------------------------------------
"$BOOTRIG" run --kernel "$arm64" --initramfs "$tmp/arm64.img" -o "$tmp/cc" \
	>"$tmp/a.out" 2>"$tmp/a.err" &
a=$!
i=0
while ! pgrep -f "guest=bootrig-$a-" >/dev/null && kill -0 $a 2>/dev/null && [ $i -lt 1200 ]; do
	sleep 0.1
	i=$((i + 1))
done
"$BOOTRIG" run --kernel "$arm64" --initramfs "$tmp/arm64.img" -o "$tmp/cc" \
	>"$tmp/c.out" 2>"$tmp/c.err" &
c=$!
"$BOOTRIG" run --kernel "$arm64" --initramfs "$tmp/arm64.img" --no-wait -o "$tmp/cc" \
	>"$tmp/b.out" 2>"$tmp/b.err"
rc=$?
[ "$rc" -eq 125 ] && ok "busy results directory, --no-wait: exit 125" ||
	not_ok "busy results directory, --no-wait: exit 125" "exit $rc"
check "busy results directory, --no-wait: says why" grep -q "being written by another bootrig run" "$tmp/b.err"
wait $a
rc_a=$?
wait $c
rc_c=$?
[ "$rc_a" -eq 0 ] && [ "$rc_c" -eq 0 ] && ok "the waiting run ran after the first: both PASS" ||
	not_ok "the waiting run ran after the first: both PASS" "exits $rc_a and $rc_c"
check "the waiting run said it waited" grep -q "waiting for .*another bootrig run writes it" "$tmp/c.err"
expect "the first run's boot 1 is intact" "$(echo "$tmp"/cc/*/default/1/result.json)" verdict PASS
expect "the second run's boot is numbered 2" "$(echo "$tmp"/cc/*/default/2/result.json)" boot 2

# --- a rerun with another command line ---------------------------------------
"$BOOTRIG" run --kernel "$arm64" --initramfs "$tmp/arm64.img" --append quiet -o "$tmp/cc" \
	>"$tmp/d.out" 2>"$tmp/d.err"
expect "a rerun is numbered after the existing boots" "$(echo "$tmp"/cc/*/default/3/result.json)" boot 3
expect "boot 1 was not replaced" "$(echo "$tmp"/cc/*/default/1/result.json)" append "console=ttyAMA0 panic=-1"
"$BOOTRIG" compare "$tmp"/cc/*/default "$tmp"/cc/*/default >"$tmp/cmp.out" 2>"$tmp/cmp.err"
rc=$?
[ "$rc" -eq 65 ] && ok "compare refuses boots run with different command lines" ||
	not_ok "compare refuses boots run with different command lines" "exit $rc"
check "compare says which" grep -q "different kernel command lines" "$tmp/cmp.err"
"$BOOTRIG" compare --mixed "$tmp"/cc/*/default "$tmp"/cc/*/default >"$tmp/mixed.out" 2>&1
rc=$?
[ "$rc" -le 1 ] && ok "compare --mixed pools them" || not_ok "compare --mixed pools them" "exit $rc"

# --- limits said out loud ------------------------------------------------------
long=$(head -c 3000 /dev/zero | tr '\0' x)
"$BOOTRIG" run --kernel "$arm64" --initramfs "$tmp/arm64.img" --append "bootrig.pad=$long" \
	-o "$tmp/long" >"$tmp/long.out" 2>"$tmp/long.err"
rc=$?
[ "$rc" -eq 64 ] && ok "--append past the limit: exit 64" || not_ok "--append past the limit: exit 64" "exit $rc"
check "--append past the limit: names it" grep -q "at most 2047" "$tmp/long.err"
check "--append past the limit: nothing booted" test ! -e "$tmp/long/"*/default/1

odd=$(printf 'vmlinuz-\377\376')
cp "$arm64" "$tmp/$odd"
"$BOOTRIG" run --kernel "$tmp/$odd" --initramfs "$tmp/arm64.img" -o "$tmp/odd" \
	>"$tmp/odd.out" 2>"$tmp/odd.err"
rc=$?
[ "$rc" -eq 0 ] && ok "a kernel whose name is not UTF-8 boots" ||
	not_ok "a kernel whose name is not UTF-8 boots" "exit $rc; $(tail -n 2 "$tmp/odd.err")"
check "... staged under a safe name" test -L "$(echo "$tmp"/odd/*/kernel)"

# --- every child reaped ----------------------------------------------------------
# On a fresh embedded root libvirt probes each emulator's capabilities with a
# QEMU it daemonizes and kills: bootrig, the subreaper, must collect it.
# A zombie child seen again 3 s after it was first seen was not reaped.
XDG_CACHE_HOME="$tmp/fresh" "$BOOTRIG" run --kernel "$arm64" --initramfs "$tmp/arm64.img" \
	-o "$tmp/fresh-r" >"$tmp/fresh.out" 2>"$tmp/fresh.err" &
f=$!
stale=""
: >"$tmp/zombies"
while kill -0 $f 2>/dev/null; do
	now=$(date +%s)
	kids=$(pgrep -d, -P $f)
	if [ -n "$kids" ]; then
		ps -o pid=,stat=,comm= -p "$kids" 2>/dev/null | awk -v t="$now" '$2 ~ /^Z/ { print $1, t }' >>"$tmp/zombies"
	fi
	stale=$(awk '{ if (!($1 in first)) first[$1] = $2; if ($2 - first[$1] >= 3) print $1 }' "$tmp/zombies" | head -n 1)
	[ -n "$stale" ] && break
	sleep 0.5
done
wait $f
rc=$?
[ "$rc" -eq 0 ] && ok "a run on a fresh embedded root PASSes" || not_ok "a run on a fresh embedded root PASSes" "exit $rc"
[ -z "$stale" ] && ok "every child reaped, the capability probes' included" ||
	not_ok "every child reaped, the capability probes' included" "zombie $stale stayed: $(cat "$tmp/zombies" | head -n 3)"
