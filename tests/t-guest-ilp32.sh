#!/bin/sh
# t-guest-ilp32.sh: our aarch64_ilp32 binaries run for real, without an
# ILP32 kernel. In the arm64 guest (cloud-arm64 kernel, QEMU TCG), init
# runs the LP64 loader initramfs/ilp32_trap.c as the aarch64 test
# "ilp32_trap": it maps each ILP32 ELF below 4 GiB, traps every system
# call the ILP32 code makes (seccomp SECCOMP_RET_TRAP by instruction
# pointer), checks it against the ABI written in
# initramfs/rt/arch/aarch64_ilp32.h and performs it the way openEuler's
# ILP32 kernel would. Checked here:
#   - the ILP32 runtime self-test runs to "done N checks, 0 failed", exit 0,
#     with no ABI violation (fork, execve of itself through the loader,
#     signals through the restorer, threads, files past 4 GiB, TCP...)
#   - lat_syscall runs to its end, exit 0, no violation; its records come
#     out as LOG text only: no METRIC record for any ABI in this boot
#   - rt-selftest-wrong (ftruncate64's 64-bit length in one register, the
#     RT_ILP32_WRONG_PAIRS build) is caught: an ABI violation on
#     ftruncate64, the 4 GiB check FAILs, exit 86
#   - ilp32_trap PASSes, END arrives, the guest powers off
# Boots QEMU: run under flock /tmp/bootrig-qemu.lock like the other
# guest groups.
. "$(dirname "$0")/lib.sh"
set -u

G=$TOP/build/guest
S=$TOP/build/guest-selftest
DECODE=$TOP/build/tests/tools/br-decode
tmp=$(mktemp -d /tmp/t-guest-ilp32.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for f in "$DECODE" "$S/aarch64/ilp32_trap" "$S/aarch64_ilp32/rt-selftest-wrong"; do
	[ -x "$f" ] || { not_ok "build" "missing $f: run make all unit"; exit 1; }
done
sh "$TOP/scripts/fetch-kernels.sh" cloud-arm64 >/dev/null ||
	{ not_ok "fetch kernels" "scripts/fetch-kernels.sh failed"; exit 1; }

# The image: the aarch64 init and probe, the loader as the one aarch64
# test, the ILP32 programs beside their probe.
st=$tmp/stage
mkdir -p "$st/proc" "$st/sys" "$st/dev" "$st/tmp" "$st/etc/bootrig" "$st/bench/aarch64" \
	"$st/bench/aarch64_ilp32"
cp "$G/aarch64/init" "$st/init"
cp "$G/aarch64/probe" "$S/aarch64/ilp32_trap" "$st/bench/aarch64/"
cp "$G/aarch64_ilp32/probe" "$G/aarch64_ilp32/lat_syscall" "$st/bench/aarch64_ilp32/"
cp "$S/aarch64_ilp32/rt-selftest" "$st/bench/aarch64_ilp32/rt_selftest"
cp "$S/aarch64_ilp32/rt-selftest-wrong" "$st/bench/aarch64_ilp32/rt_selftest_wrong"
(cd "$st" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -n -9) >"$tmp/ilp32.cpio.gz"

timeout 600 qemu-system-aarch64 -M virt -cpu cortex-a57 -accel tcg -m 512 -nographic -no-reboot \
	-monitor none -kernel "$(kernel_path cloud-arm64)" -initrd "$tmp/ilp32.cpio.gz" \
	-append "console=ttyAMA0 panic=-1 quiet bootrig.only=ilp32_trap bootrig.samples=3 bootrig.test_timeout=480 bootrig.knob.sample_ms=1 bootrig.knob.reps=1" \
	</dev/null >"$tmp/boot.log" 2>&1
rc=$?
"$DECODE" "$tmp/boot.log" >"$tmp/boot.dec" 2>&1
decrc=$?
# the LOG texts, unescaped
sed -n 's/^[0-9]* LOG abi=aarch64 test=ilp32_trap text=//p' "$tmp/boot.dec" | sed 's/\\x20/ /g' >"$tmp/log.txt"
[ "${V:-}" ] && cat "$tmp/log.txt" >&2

if [ $rc = 0 ] && grep -aq 'reboot: Power down' "$tmp/boot.log"; then ok "the guest powered off by itself"
else not_ok "the guest powers off" "qemu/timeout exit $rc; $(tail -c 400 "$tmp/boot.log")"; fi
if [ $decrc = 0 ]; then ok "every record decodes, BEGIN..END"
else not_ok "records decode" "$(grep -E '^(problem|#)' "$tmp/boot.dec" | head -5)"; fi
if grep -q '^[0-9]* ABI abi=aarch64_ilp32 status=unsupported reason=ENOEXEC$' "$tmp/boot.dec"; then
	ok "the kernel itself refuses ILP32 (ENOEXEC): only the loader runs it"
else not_ok "aarch64_ilp32 unsupported" "$(grep ' ABI abi=aarch64_ilp32 ' "$tmp/boot.dec")"; fi

# has NAME REGEX: a line of the loader's LOG text matches.
has() {
	if grep -Eq "$2" "$tmp/log.txt"; then ok "$1"
	else not_ok "$1" "no line matches /$2/; last lines: $(tail -n 4 "$tmp/log.txt" | tr '\n' '|')"; fi
}
has "rt_selftest (ILP32) runs to its end: 0 failed" '^ilp32_trap: rt_selftest: done [0-9]+ checks, 0 failed$'
has "rt_selftest (ILP32) exits 0 with no ABI violation" '^ilp32_trap: rt_selftest: exit 0 violations none$'
has "rt_selftest (ILP32): execve of itself went through the loader" '^ilp32_trap: rt_selftest: ok execve of ourselves$'
has "rt_selftest (ILP32): signals returned through the restorer" '^ilp32_trap: rt_selftest: ok handler runs and returns through the restorer$'
has "rt_selftest (ILP32): threads ran on their own stacks" '^ilp32_trap: rt_selftest: ok threads run and join'
has "rt_selftest (ILP32): ftruncate64 past 4 GiB, as pairs" '^ilp32_trap: rt_selftest: ok ftruncate and stat past 4 GiB$'
has "lat_syscall (ILP32) reported its measurements (as LOG text)" '^ilp32_trap: lat_syscall: METRIC abi=aarch64_ilp32 test=lat_syscall '
has "lat_syscall (ILP32) exits 0 with no ABI violation" '^ilp32_trap: lat_syscall: exit 0 violations none$'
if grep -q ' METRIC ' "$tmp/boot.dec"; then
	not_ok "no METRIC record: the trapped timings are never metrics" "$(grep ' METRIC ' "$tmp/boot.dec" | head -2)"
else ok "no METRIC record: the trapped timings are never metrics"; fi
has "the wrong wrapper is caught: ftruncate64's length in one register" '^ilp32_trap: rt_selftest_wrong: ilp32_trap: ABI violation: rt_selftest_wrong: ftruncate64\(46\): x1 is a pair.s pad and holds 0x12a05f200$'
has "the wrong wrapper fails the 4 GiB check" '^ilp32_trap: rt_selftest_wrong: FAIL ftruncate and stat past 4 GiB'
has "the wrong wrapper's run exits 86 (violations)" '^ilp32_trap: rt_selftest_wrong: exit 86 violations yes$'
has "the loader's verdict is pass" '^ilp32_trap: verdict pass '
if grep -Eq '^[0-9]+ RESULT abi=aarch64 test=ilp32_trap status=PASS ms=[0-9]+$' "$tmp/boot.dec" &&
	grep -Eq '^[0-9]+ END tests=1 passed=1 failed=0 timeout=0 records=' "$tmp/boot.dec"; then
	ok "ilp32_trap PASS, END tests=1 passed=1"
else not_ok "ilp32_trap PASS and END" "$(grep -E ' (RESULT|END) ' "$tmp/boot.dec")"; fi
