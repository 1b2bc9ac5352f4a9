#!/bin/sh
# t-board.sh: `bootrig run --board` on the simulated boards of
# configs/boards/ (QEMU running Debian's U-Boot, serial on a unix socket,
# power commands that start and stop QEMU), on real Debian kernels:
#   sim-arm64-tftp   cloud-arm64 Image over TFTP, booti     PASS, the ABI table
#   sim-arm-tftp     armmp-lpae zImage over TFTP, bootz     PASS
#   sim-arm64-sd     an SD image (extlinux), sysboot        PASS
#   the same, boot method self (U-Boot's autoboot)         PASS, nothing typed
# and its faults:
#   the serial line dropped mid-boot (fault injection)      PASS, gap in console.tlog
#   a TFTP file missing (staging off)                       BOOT_FAIL quoting U-Boot,
#                                                           each attempt kept
#   a power-on command that fails                           INFRA_ERROR, 125
#   a board locked by another process                       --no-wait: 125 at once;
#                                                           without: waits, then runs
#   a board config with a typo                              78, FILE:LINE
. "$(dirname "$0")/lib.sh"
set -u

# The kernels come from the shared cache, fetched once.
arm64=$(kernel_path cloud-arm64)
arm=$(kernel_path armmp-lpae)
tmp=$(mktemp -d /tmp/t-board.XXXXXX)
# Locks, board state (serial sockets, TFTP roots, SD images) go here.
export XDG_CACHE_HOME="$tmp/c"
cache="$XDG_CACHE_HOME/bootrig"
cleanup() {
	for d in "$cache"/boards/*; do
		[ -d "$d" ] && sh "$TOP/configs/boards/sim-board.sh" off "$d"
	done
	[ -n "${holder:-}" ] && kill "$holder" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# run NAME ARGS...: bootrig run into $tmp/NAME; rc, out and err kept.
run() {
	name=$1; shift
	"$BOOTRIG" run "$@" -o "$tmp/$name" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	echo "# $name: exit $rc at $(date +%T)"
	dir=$(echo "$tmp/$name"/*/default/1)
}
expect_rc() {
	if [ "$rc" -eq "$2" ]; then ok "$1"; else
		not_ok "$1" "exit $rc, want $2: $(tail -n 3 "$tmp/$name.err" | tr '\n' ' ')"; fi
}
expect_match() {
	got=$("$JGET" "$2" "$3" 2>&1)
	case $got in *"$4"*) ok "$1" ;; *) not_ok "$1" "$3 is '$got', want it to hold '$4'" ;; esac
}
has() {   # has NAME FILE TEXT: the file holds TEXT
	if grep -qF -- "$3" "$2" 2>/dev/null; then ok "$1"; else not_ok "$1" "'$3' not in $2"; fi
}

# ---- sim-arm64-tftp: PASS with the ABI table
run arm64 --board sim-arm64-tftp --kernel "$arm64"
expect_rc "sim-arm64-tftp: exit 0" 0
expect "sim-arm64-tftp: PASS" "$dir/result.json" verdict PASS
expect "sim-arm64-tftp: backend board" "$dir/result.json" backend board
expect "sim-arm64-tftp: target is the board" "$dir/result.json" target sim-arm64-tftp
expect "sim-arm64-tftp: aarch64 ok" "$dir/result.json" abis.aarch64.status ok
expect "sim-arm64-tftp: arm ok" "$dir/result.json" abis.arm.status ok
expect "sim-arm64-tftp: aarch64_ilp32 unsupported" "$dir/result.json" abis.aarch64_ilp32.status unsupported
expect "sim-arm64-tftp: one attempt" "$dir/result.json" board.attempts 1
if "$JGET" "$dir/result.json" board.firmware_seconds | grep -qE '^[0-9]+\.[0-9]+$'; then
	ok "sim-arm64-tftp: firmware time recorded"
else
	not_ok "sim-arm64-tftp: firmware time recorded" "$("$JGET" "$dir/result.json" board)"
fi
has "sim-arm64-tftp: autoboot interrupted" "$dir/console.log" "Hit any key to stop autoboot"
has "sim-arm64-tftp: booti typed" "$dir/console.log" "=> booti \${kernel_addr_r} \${ramdisk_addr_r}:\${filesize} \${fdtcontroladdr}"
has "sim-arm64-tftp: kernel over TFTP" "$dir/console.log" "Filename 'bootrig/kernel'."
has "sim-arm64-tftp: console.tlog stamped" "$dir/console.tlog" "] Starting kernel ..."
has "sim-arm64-tftp: power log kept" "$dir/power.log" "bootrig: power on:"

# ---- sim-arm-tftp: PASS with bootz
run arm --board sim-arm-tftp --kernel "$arm"
expect_rc "sim-arm-tftp: exit 0" 0
expect "sim-arm-tftp: PASS" "$dir/result.json" verdict PASS
expect "sim-arm-tftp: arm ok" "$dir/result.json" abis.arm.status ok
has "sim-arm-tftp: bootz typed" "$dir/console.log" "=> bootz \${kernel_addr_r}"

# ---- sim-arm64-sd: PASS from the SD image's extlinux.conf
run sd --board sim-arm64-sd --kernel "$arm64"
expect_rc "sim-arm64-sd: exit 0" 0
expect "sim-arm64-sd: PASS" "$dir/result.json" verdict PASS
expect "sim-arm64-sd: method" "$dir/result.json" board.method u-boot-extlinux
has "sim-arm64-sd: extlinux.conf read" "$dir/console.log" "Retrieving file: /extlinux/extlinux.conf"

# ---- boot method self: the same card, U-Boot's own autoboot finds it
sed -e 's/name = "sim-arm64-sd";/name = "t-self";/' -e 's/method = "u-boot-extlinux";/method = "self";/' \
    "$TOP/configs/boards/sim-arm64-sd.cfg" >"$tmp/self.cfg"
run self --config "$tmp/self.cfg" --board t-self --kernel "$arm64"
expect_rc "method self: exit 0" 0
expect "method self: PASS" "$dir/result.json" verdict PASS
has "method self: U-Boot's distro boot found the card" "$dir/console.log" "Found /extlinux/extlinux.conf"
if grep -qF "=> sysboot" "$dir/console.log"; then
	not_ok "method self: nothing typed" "bootrig typed at U-Boot"
else
	ok "method self: nothing typed"
fi

# ---- the serial line dropped after the kernel started: the run goes on
BOOTRIG_FAULT_SERIAL_DROP=0.2:0.5 run drop --board sim-arm64-tftp --kernel "$arm64"
expect_rc "serial drop: exit 0" 0
expect "serial drop: PASS" "$dir/result.json" verdict PASS
expect_match "serial drop: gap noted in result.json" "$dir/result.json" board.notes.0 "serial lost at "
has "serial drop: gap in console.tlog" "$dir/console.tlog" "[bootrig: serial lost at "
if grep -qF "[bootrig:" "$dir/console.log"; then
	not_ok "serial drop: console.log stays raw" "a bootrig note is in console.log"
else
	ok "serial drop: console.log stays raw"
fi

# ---- a TFTP file missing: BOOT_FAIL with U-Boot's words, attempts kept
sed -e 's/name = "sim-arm64-tftp";/name = "t-missing";/' \
    -e 's/method = "u-boot-tftp";/method = "u-boot-tftp"; stage = false;/' \
    "$TOP/configs/boards/sim-arm64-tftp.cfg" >"$tmp/missing.cfg"
run missing --config "$tmp/missing.cfg" --board t-missing --kernel "$arm64"
expect_rc "missing TFTP file: exit 2" 2
expect "missing TFTP file: BOOT_FAIL" "$dir/result.json" verdict BOOT_FAIL
expect_match "missing TFTP file: U-Boot quoted" "$dir/result.json" reason "TFTP error: 'File not found'"
expect "missing TFTP file: retried once" "$dir/result.json" board.attempts 2
expect_match "missing TFTP file: attempt 1 kept" "$dir/attempt-1/attempt.json" reason "File not found"
has "missing TFTP file: attempt 1 console kept" "$dir/attempt-1/console.log" "TFTP error: 'File not found'"

# ---- a power-on command that fails: INFRA_ERROR
cat >"$tmp/fail.cfg" <<EOF
boards = ( {
  name = "t-power-fail";
  serial = { uri = "unix:$tmp/none.sock"; };
  power = { on = [ "sh", "-c", "echo relay stuck >&2; exit 3" ]; off = [ "true" ]; timeout = 10.0; };
  boot = { method = "u-boot-tftp"; tftp_root = "$tmp/tftp"; serverip = "10.0.2.2"; };
} );
EOF
run power --config "$tmp/fail.cfg" --board t-power-fail --kernel "$arm64"
expect_rc "power-on fails: exit 125" 125
expect "power-on fails: INFRA_ERROR" "$dir/result.json" verdict INFRA_ERROR
expect "power-on fails: reason" "$dir/result.json" reason "power on: 'sh' exited 3"
has "power-on fails: its stderr kept" "$dir/power.log" "relay stuck"

# ---- a busy board: --no-wait refuses at once, otherwise bootrig waits
mkdir -p "$cache/locks"
lock="$cache/locks/t-power-fail.lock"
# The holder: a process that keeps the lock (fd 9) until it is killed.
(exec 9>"$lock"; flock 9; exec sleep 600) &
holder=$!
i=0
while flock -n "$lock" true 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
run busy --no-wait --config "$tmp/fail.cfg" --board t-power-fail --kernel "$arm64"
expect_rc "locked board, --no-wait: exit 125" 125
has "locked board, --no-wait: says busy" "$tmp/busy.err" "board 't-power-fail' is busy"
expect_match "locked board, --no-wait: INFRA_ERROR reason" "$dir/result.json" reason "is busy (--no-wait)"
[ -f "$dir/power.log" ] && not_ok "locked board, --no-wait: power untouched" "power.log exists" ||
	ok "locked board, --no-wait: power untouched"
# Without --no-wait: waits until the holder goes, then runs (and fails on power).
"$BOOTRIG" run --config "$tmp/fail.cfg" --board t-power-fail --kernel "$arm64" \
	-o "$tmp/wait" >"$tmp/wait.out" 2>"$tmp/wait.err" &
waiter=$!
i=0
while ! grep -q "waiting for it" "$tmp/wait.err" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
has "locked board: the second bootrig waits" "$tmp/wait.err" "board 't-power-fail' is busy (locked by"
kill "$holder"; wait "$holder" 2>/dev/null; holder=
wait "$waiter"; rc=$?
name=wait
expect_rc "locked board: runs once released (power fails: 125)" 125
expect "locked board: then the power-on ran" "$(echo "$tmp"/wait/*/default/1)/result.json" reason "power on: 'sh' exited 3"

# ---- a serial line that never appears: INFRA_ERROR after appear_timeout
cat >"$tmp/noline.cfg" <<EOF
boards = ( {
  name = "t-no-line";
  serial = { uri = "unix:$tmp/never.sock"; appear_timeout = 1.0; };
  power = { on = [ "true" ]; off = [ "true" ]; };
  boot = { method = "u-boot-tftp"; tftp_root = "$tmp/tftp"; serverip = "10.0.2.2"; };
} );
EOF
run noline --config "$tmp/noline.cfg" --board t-no-line --kernel "$arm64"
expect_rc "serial line absent: exit 125" 125
expect_match "serial line absent: reason" "$dir/result.json" reason "did not appear within 1 s"

# ---- a typo in a board's config: 78 with FILE:LINE
sed -e 's/name = "t-power-fail";/name = "t-power-fail"; retires = 2;/' "$tmp/fail.cfg" >"$tmp/typo.cfg"
run typo --config "$tmp/typo.cfg" --board t-power-fail --kernel "$arm64"
expect_rc "config typo: exit 78" 78
has "config typo: FILE:LINE" "$tmp/typo.err" "$tmp/typo.cfg:2: board 't-power-fail': unknown key 'retires'"
