#!/bin/sh
# t-guest-rt.sh: the freestanding runtime's self-test (initramfs/rt/selftest.c)
# on every ABI the host can run: natively for x86_64 and i386 (i386 under
# qemu-i386 where the host kernel has IA-32 emulation off; x32 where
# the host kernel allows it, a SKIP where it does not), under qemu-user for
# aarch64 and arm (with --no-exec: qemu-user cannot exec a foreign binary).
# Each "ok"/"FAIL"/"skip" line of the self-test becomes one TAP line.
# aarch64_ilp32 cannot run here; its self-test is file-checked (it runs,
# trapped, in the arm64 guest in t-guest-ilp32.sh), and the x32 one runs
# in a real kernel in t-guest-boot.sh.
. "$(dirname "$0")/lib.sh"
set -u

S=$TOP/build/guest-selftest
tmp=$(mktemp -d /tmp/t-guest-rt.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# selftest ABI RUNNER ARGS...: runs it, one TAP line per check.
selftest() {
	abi=$1
	shift
	"$@" >"$tmp/$abi.out" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "$abi: ${line#ok }" ;;
		"FAIL "*) not_ok "$abi: ${line#FAIL }" ;;
		"skip "*) line=${line#skip }; skip "$abi: ${line%%: *}" "${line#*: }" ;;
		esac
	done <"$tmp/$abi.out"
	if [ $rc = 0 ] && grep -q '^done [0-9]* checks, 0 failed$' "$tmp/$abi.out"; then
		ok "$abi: the self-test ran to its end and exited 0"
	else
		not_ok "$abi: the self-test ran to its end" "exit $rc: $(tail -n 2 "$tmp/$abi.out")"
	fi
}

selftest x86_64 "$S/x86_64/rt-selftest"
# i386 natively, or under qemu-i386 where the host kernel has IA-32 off
if [ -n "$(abi_runner i386)" ]; then
	selftest i386 qemu-i386 "$S/i386/rt-selftest" --no-exec
else
	selftest i386 "$S/i386/rt-selftest"
fi
if "$TOP/build/guest/x32/probe" 2>/dev/null; then
	selftest x32 "$S/x32/rt-selftest"
else
	skip "x32: runtime self-test" "the host kernel refuses x32 (ENOEXEC); it runs in t-guest-boot.sh"
fi
selftest aarch64 qemu-aarch64 "$S/aarch64/rt-selftest" --no-exec
selftest arm qemu-arm "$S/arm/rt-selftest" --no-exec
case $(file -b "$S/aarch64_ilp32/rt-selftest") in
"ELF 32-bit LSB executable, ARM aarch64"*) ok "aarch64_ilp32: the self-test is an ELF32 AArch64 executable" ;;
*) not_ok "aarch64_ilp32: self-test ELF class" "$(file -b "$S/aarch64_ilp32/rt-selftest")" ;;
esac
