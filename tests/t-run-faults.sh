#!/bin/sh
# t-run-faults.sh: `bootrig run` when things go wrong, on real kernels
# through libvirt's embedded driver. Each fault must get its verdict and
# exit status, keep the whole console, and leave no QEMU behind:
#   init=/does-not-exist                     PANIC with the kernel's title
#   arm64 a64fx on GICv2, earlycon           PANIC (oops + panic), ended at once
#   the same, quiet, no earlycon             BOOT_FAIL or HANG by the timeout
#   a truncated kernel image                 BOOT_FAIL
#   QEMU killed during the boot              INFRA_ERROR, exit 125
#   a bad --connect URI                      INFRA_ERROR, exit 125
#   SIGINT / SIGTERM during a -j 2 matrix    finished boots kept, 130 / 143
#   bootrig itself SIGKILLed                 its guardian kills QEMU
. "$(dirname "$0")/lib.sh"
set -u

tmp=$(mktemp -d /tmp/t-run-faults.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
a64=$(kernel_path cloud-arm64)
arm64=$(kernel_path arm64)

boot_dir() { echo "$tmp/$1/$2"-*/"$3/$4"; }
# wait_for PID PATTERN...: until a file matches each glob pattern (the
# kernel id's hash is only known once the directory exists), while bootrig
# PID lives (a guest boots in seconds; bounded at 240 s so a broken run
# fails instead of hanging the suite).
wait_for() {
	i=0 p=$1
	shift
	for f in "$@"; do
		# shellcheck disable=SC2086 # $f is a glob, expanded on purpose
		while ! ls $f >/dev/null 2>&1 && kill -0 "$p" 2>/dev/null && [ $i -lt 2400 ]; do
			sleep 0.1
			i=$((i + 1))
		done
	done
}
# wait_qemu PID: until that bootrig has a QEMU running (same bounds).
wait_qemu() {
	i=0
	while ! pgrep -f "guest=bootrig-$1-" >/dev/null && kill -0 "$1" 2>/dev/null && [ $i -lt 2400 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# A target whose kernel never prints: a64fx has no GICv2 CPU interface.
cat >"$tmp/gicv2.cfg" <<'EOF'
targets = ( { name = "a64fx-gicv2"; arch = "arm64"; abis = [ "aarch64", "aarch64_ilp32", "arm" ];
  emulator = "/usr/bin/qemu-system-aarch64"; qemu_arch = "aarch64"; machine = "virt";
  cpu = "a64fx"; console = "ttyAMA0"; memory_mb = 512; vcpus = 1; append = "";
  timeouts = { firmware = 60.0; kernel = 180.0; init = 120.0; results = 1800.0;
               end = 30.0; poweroff = 30.0; silence = 300.0; }; } );
EOF
gic="--config $tmp/gicv2.cfg --target a64fx-gicv2"

# --- init=/does-not-exist ------------------------------------------------------
# An initramfs whose /init cannot be executed, so the kernel goes on to
# the init= it was given.
mkdir -p "$tmp/badinit"
printf 'not a program\n' >"$tmp/badinit/init"
chmod 755 "$tmp/badinit/init"
(cd "$tmp/badinit" && echo init | cpio -o -H newc >"$tmp/badinit.cpio" 2>/dev/null)
run noinit --kernel "$a64" --initramfs "$tmp/badinit.cpio" --append init=/does-not-exist
r=$(boot_dir noinit cloud-arm64.vmlinuz default 1)/result.json
[ $rc = 2 ] && ok "init=/does-not-exist: exit 2" || not_ok "init=/does-not-exist: exit 2" "exit $rc"
expect "init=/does-not-exist: PANIC" "$r" verdict PANIC
expect "init=/does-not-exist: the panic's title" "$r" events.0.title \
	"kernel panic: Requested init /does-not-exist failed (error -NUM)."
check "init=/does-not-exist: the log kept to the panic" grep -q "Requested init /does-not-exist failed" \
	"$(dirname "$r")/console.log"
check "init=/does-not-exist: no QEMU left" no_qemu_left "$pid"

# --- a64fx on GICv2: with earlycon it oopses; quiet, it prints nothing -----
run gicv2 --kernel "$arm64" $gic --variant early=earlycon --variant quiet=quiet --timeout 15 -j 2
[ $rc = 2 ] && ok "a64fx on GICv2: exit 2" || not_ok "a64fx on GICv2: exit 2" "exit $rc: $(tail -n 3 "$tmp/gicv2.err")"
r=$(boot_dir gicv2 arm64.vmlinuz early 1)/result.json
expect "a64fx GICv2 earlycon: PANIC" "$r" verdict PANIC
kinds=$("$JGET" "$r" events.0.kind)+$("$JGET" "$r" events.1.kind)
[ "$kinds" = "oops+panic" ] && ok "a64fx GICv2 earlycon: the oops and the panic" ||
	not_ok "a64fx GICv2 earlycon: the oops and the panic" "events: $kinds"
if tail -n 1 "$(dirname "$r")/console.log" | grep -q -- "---\[ end Kernel panic"; then
	ok "a64fx GICv2 earlycon: ended at 'end Kernel panic', log kept whole"
else not_ok "a64fx GICv2 earlycon: ended at 'end Kernel panic'" "$(tail -n 2 "$(dirname "$r")/console.log")"; fi
dur=$("$JGET" "$r" duration)
[ "${dur%%.*}" -lt 15 ] && ok "a64fx GICv2 earlycon: stopped before any timeout (${dur%%.*} s)" ||
	not_ok "a64fx GICv2 earlycon: stopped before any timeout" "duration $dur"
r=$(boot_dir gicv2 arm64.vmlinuz quiet 1)/result.json
v=$("$JGET" "$r" verdict)
case $v in BOOT_FAIL | HANG) ok "a64fx GICv2 quiet: $v by the timeout" ;;
*) not_ok "a64fx GICv2 quiet: BOOT_FAIL or HANG" "verdict '$v'" ;; esac
check "a64fx GICv2: no QEMU left" no_qemu_left "$pid"

# --- a truncated kernel image ---------------------------------------------------
head -c 3000000 "$a64" >"$tmp/Image-truncated"
run trunc --kernel "$tmp/Image-truncated" --timeout 10
r=$(boot_dir trunc Image-truncated default 1)/result.json
expect "truncated kernel: BOOT_FAIL" "$r" verdict BOOT_FAIL
[ $rc = 2 ] && ok "truncated kernel: exit 2" || not_ok "truncated kernel: exit 2" "exit $rc"
check "truncated kernel: no QEMU left" no_qemu_left "$pid"

# --- QEMU killed during the boot ---------------------------------------------
"$BOOTRIG" run --kernel "$arm64" $gic --variant quiet=quiet --timeout 120 -o "$tmp/killed" \
	>"$tmp/killed.out" 2>"$tmp/killed.err" &
pid=$!
wait_qemu $pid
pkill -KILL -f "guest=bootrig-$pid-"
wait $pid
rc=$?
r=$(boot_dir killed arm64.vmlinuz quiet 1)/result.json
[ $rc = 125 ] && ok "QEMU killed: exit 125" || not_ok "QEMU killed: exit 125" "exit $rc: $(tail -n 3 "$tmp/killed.err")"
expect "QEMU killed: INFRA_ERROR" "$r" verdict INFRA_ERROR
check "QEMU killed: console.log written" test -f "$(dirname "$r")/console.log"

# --- a bad URI ------------------------------------------------------------------
run baduri --kernel "$a64" --connect "qemu+unix:///system?socket=$tmp/no-such.sock"
r=$(boot_dir baduri cloud-arm64.vmlinuz default 1)/result.json
[ $rc = 125 ] && ok "bad --connect: exit 125" || not_ok "bad --connect: exit 125" "exit $rc"
expect "bad --connect: INFRA_ERROR recorded" "$r" verdict INFRA_ERROR
if grep -q "no-such.sock" "$tmp/baduri.err"; then ok "bad --connect: the error names the socket"
else not_ok "bad --connect: the error names the socket" "$(cat "$tmp/baduri.err")"; fi

# --- SIGINT and SIGTERM during a -j 2 matrix ----------------------------------
# early (panics in a second) x 2, then quiet (never ends) x 2.
for sig in INT TERM; do
	"$BOOTRIG" run --kernel "$arm64" $gic --variant early=earlycon --variant quiet=quiet \
		--repeat 2 -j 2 --timeout 300 -o "$tmp/sig$sig" >"$tmp/sig$sig.out" 2>"$tmp/sig$sig.err" &
	pid=$!
	wait_for $pid "$tmp/sig$sig/arm64.vmlinuz-*/early/1/result.json" \
		"$tmp/sig$sig/arm64.vmlinuz-*/early/2/result.json" \
		"$tmp/sig$sig/arm64.vmlinuz-*/quiet/2/domain.xml"
	wait_qemu $pid
	kill -$sig $pid
	wait $pid
	rc=$?
	want=130; [ $sig = TERM ] && want=143
	[ $rc = $want ] && ok "SIG$sig during -j 2: exit $want" || not_ok "SIG$sig during -j 2: exit $want" \
		"exit $rc; bootrig's stderr ended:
$(tail -n 15 "$tmp/sig$sig.err")"
	expect "SIG$sig: finished boots keep their results" \
		"$(boot_dir sig$sig arm64.vmlinuz early 2)/result.json" verdict PANIC
	if [ ! -e "$(boot_dir sig$sig arm64.vmlinuz quiet 1)/result.json" ]; then
		ok "SIG$sig: interrupted boots write no result"
	else not_ok "SIG$sig: interrupted boots write no result"; fi
	check "SIG$sig: no QEMU left" no_qemu_left "$pid"
done

# --- bootrig SIGKILLed: the guardian kills QEMU -------------------------------
"$BOOTRIG" run --kernel "$arm64" $gic --variant quiet=quiet --timeout 300 -o "$tmp/sigkill" \
	>/dev/null 2>&1 &
pid=$!
wait_qemu $pid
kill -KILL $pid
wait $pid
i=0
while ! no_qemu_left $pid && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "bootrig SIGKILLed: no QEMU outlives it" no_qemu_left "$pid"
