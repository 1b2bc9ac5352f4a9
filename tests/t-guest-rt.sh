#!/bin/sh
# t-guest-rt.sh: the freestanding runtime's self-test (initramfs/rt/selftest.c)
# on every ABI: natively for x86_64; i386 and x32 natively where the host
# kernel runs them, else in an x86_64 guest booted with syscall.x32=y;
# aarch64 and arm whole (exec included: qemu-user cannot exec a foreign
# binary) in an arm64 guest, Debian's cloud-arm64 kernel on a cortex-a57.
# Each "ok"/"FAIL"/"skip" line of the self-test becomes one TAP line.
# aarch64_ilp32 cannot run here; its self-test is file-checked (it runs,
# trapped, in the arm64 guest in t-guest-ilp32.sh).
. "$(dirname "$0")/lib.sh"
set -u

S=$TOP/build/guest-selftest
tmp=$(mktemp -d /tmp/t-guest-rt.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# What this host cannot run, an x86_64 guest booted with syscall.x32=y
# does (tests/lib.sh's gx_add/gx_boot): x32 where the host kernel refuses
# it, and i386 with its exec checks where i386 runs under qemu-i386.
gx=$tmp/gx
[ "$(abi_runner x32)" = none ] && gx_add "$gx" "$S/x32/rt-selftest"
[ -n "$(abi_runner i386)" ] && gx_add "$gx" "$S/i386/rt-selftest"
if [ -f "$gx/batch" ]; then
	why=$(gx_boot "$gx")
	if [ $? = 0 ]; then ok "the guest with syscall.x32=y ran the $(wc -l <"$gx/batch") self-tests this host cannot"
	else not_ok "the guest with syscall.x32=y runs what this host cannot" "$why"; fi
fi

selftest_tap x86_64 "$S/x86_64/rt-selftest"
# i386 natively, or whole (exec included) in the guest where the host
# kernel has IA-32 off (qemu-i386 could run it only without exec)
if [ -n "$(abi_runner i386)" ]; then
	selftest_tap i386-in-guest "$GX" --replay "$gx" "$S/i386/rt-selftest"
else
	selftest_tap i386 "$S/i386/rt-selftest"
fi
if [ "$(abi_runner x32)" = none ]; then
	selftest_tap x32-in-guest "$GX" --replay "$gx" "$S/x32/rt-selftest"
else
	selftest_tap x32 "$S/x32/rt-selftest"
fi
gxa=$tmp/gxa
gx_add "$gxa" "$S/aarch64/rt-selftest"
gx_add "$gxa" "$S/arm/rt-selftest"
why=$(gx_boot "$gxa" arm64)
if [ $? = 0 ]; then ok "the arm64 guest ran the aarch64 and arm self-tests"
else not_ok "the arm64 guest runs the aarch64 and arm self-tests" "$why"; fi
selftest_tap aarch64-in-guest "$GX" --replay "$gxa" "$S/aarch64/rt-selftest"
selftest_tap arm-in-guest "$GX" --replay "$gxa" "$S/arm/rt-selftest"
case $(file -b "$S/aarch64_ilp32/rt-selftest") in
"ELF 32-bit LSB executable, ARM aarch64"*) ok "aarch64_ilp32: the self-test is an ELF32 AArch64 executable" ;;
*) not_ok "aarch64_ilp32: self-test ELF class" "$(file -b "$S/aarch64_ilp32/rt-selftest")" ;;
esac
