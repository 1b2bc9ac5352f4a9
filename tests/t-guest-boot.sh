#!/bin/sh
# t-guest-boot.sh: real Debian kernels boot our init in QEMU (TCG, direct
# qemu-system-*, no libvirt), with an initramfs of init + every ABI of the
# kernel's architecture packed here (cpio newc + gzip). For each machine:
# the ABI table the init reports, every planned test PASSes, every record
# decodes (br-decode), END arrives and the guest powers off by itself
# (QEMU exits 0 within its bounded timeout, "reboot: Power down").
#   arm64 cortex-a57 (cloud-arm64): aarch64 ok, arm ok, aarch64_ilp32
#       unsupported; every test family runs (short knobs)
#   arm64 a64fx, GICv3 (arm64): no AArch32 at EL0, so arm unsupported
#   amd64 q35 -cpu max: x86_64 ok, i386 ok, x32 unsupported
#   amd64 with syscall.x32=y: x32 ok too; threads run on all three
#   a bad plan: ERROR, END, and the guest still powers off
#   32-bit arm (armmp-lpae, cortex-a15): the arm init, arm ok
# The runtime's self-test (rt_selftest) runs in the guests as well: on x32
# it is the only place it can run.
. "$(dirname "$0")/lib.sh"
set -u

G=$TOP/build/guest
DECODE=$TOP/build/tests/tools/br-decode
KNOBS="bootrig.knob.sample_ms=1 bootrig.knob.reps=1 bootrig.knob.groups=2 bootrig.knob.loops=10"
tmp=$(mktemp -d /tmp/t-guest-boot.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
[ -x "$DECODE" ] || { not_ok "br-decode" "missing $DECODE: run make unit"; exit 1; }
sh "$TOP/scripts/fetch-kernels.sh" cloud-arm64 arm64 amd64 armmp-lpae >/dev/null ||
	{ not_ok "fetch kernels" "scripts/fetch-kernels.sh failed"; exit 1; }

# initramfs OUT NATIVE ABI...: /init, /bench/<abi>/* and an empty plan
# directory (the plan comes from the command line), packed as newc+gzip.
initramfs() {
	out=$1 native=$2
	shift 2
	st=$tmp/stage.$$
	rm -rf "$st"
	mkdir -p "$st/proc" "$st/sys" "$st/dev" "$st/tmp" "$st/etc/bootrig"
	cp "$G/$native/init" "$st/init"
	for abi in "$@"; do
		mkdir -p "$st/bench/$abi"
		for f in "$G/$abi"/*; do
			[ -f "$f" ] && [ "$(basename "$f")" != init ] && cp "$f" "$st/bench/$abi/"
		done
		cp "$TOP/build/guest-selftest/$abi/rt-selftest" "$st/bench/$abi/rt_selftest"
	done
	(cd "$st" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -n -9) >"$out"
	rm -rf "$st"
}

tests_of() {
	for f in "$G/$1"/*; do
		[ -f "$f" ] || continue
		case $(basename "$f") in probe | init) ;; *) basename "$f" ;; esac
	done
}

# boot NAME TIMEOUT QEMU-ARGS...: console in $tmp/NAME.log, decoded in
# $tmp/NAME.dec; QEMU's exit status and the seconds it took are kept.
boot() {
	name=$1 limit=$2
	shift 2
	start=$(date +%s)
	timeout "$limit" "$@" -accel tcg -m 512 -nographic -no-reboot -monitor none \
		</dev/null >"$tmp/$name.log" 2>&1
	echo $? >"$tmp/$name.rc"
	echo $(( $(date +%s) - start )) >"$tmp/$name.secs"
	"$DECODE" "$tmp/$name.log" >"$tmp/$name.dec" 2>&1
	echo $? >"$tmp/$name.decrc"
	echo "# $name: $(cat "$tmp/$name.secs") s, ABIs: $(grep -E '^[0-9]+ ABI ' "$tmp/$name.dec" |
		sed 's/^[0-9]* ABI abi=//; s/ status=/=/; s/ reason=.*//' | paste -sd' ' -)"
}

# verdicts NAME "OK-ABIS" "UNSUPPORTED-ABIS" "TESTS"
verdicts() {
	name=$1
	if [ "$(cat "$tmp/$name.rc")" = 0 ] && grep -aq 'reboot: Power down' "$tmp/$name.log"; then
		ok "$name: the guest powered off by itself ($(cat "$tmp/$name.secs") s)"
	else
		not_ok "$name: the guest powers off" "qemu/timeout exit $(cat "$tmp/$name.rc"); $(tail -c 400 "$tmp/$name.log")"
	fi
	if [ "$(cat "$tmp/$name.decrc")" = 0 ]; then ok "$name: every record decodes, BEGIN..END, nothing lost"
	else not_ok "$name: records decode" "$(grep -E '^(problem|#)' "$tmp/$name.dec" | head -5)"; fi
	for a in $2; do
		if grep -q "^[0-9]* ABI abi=$a status=ok$" "$tmp/$name.dec"; then ok "$name: ABI $a ok"
		else not_ok "$name: ABI $a ok" "$(grep " ABI abi=$a " "$tmp/$name.dec")"; fi
	done
	for a in $3; do
		if grep -q "^[0-9]* ABI abi=$a status=unsupported reason=ENOEXEC$" "$tmp/$name.dec"; then
			ok "$name: ABI $a unsupported (ENOEXEC)"
		else not_ok "$name: ABI $a unsupported" "$(grep " ABI abi=$a " "$tmp/$name.dec")"; fi
	done
	fails="" n=0
	for a in $2; do
		for t in $(echo "$4" | tr , ' '); do
			n=$((n + 1))
			# rt_selftest reports checks (LOG), the benchmarks METRIC records
			if [ "$t" = rt_selftest ]; then
				evidence="^[0-9]+ LOG abi=$a test=$t text=done\\\\x20[0-9]+\\\\x20checks,\\\\x200\\\\x20failed\$"
			else
				evidence="^[0-9]+ METRIC abi=$a test=$t name="
			fi
			grep -Eq "^[0-9]+ RESULT abi=$a test=$t status=PASS ms=[0-9]+$" "$tmp/$name.dec" &&
				grep -Eq "$evidence" "$tmp/$name.dec" ||
				fails="$fails $a/$t:$(grep " RESULT abi=$a test=$t " "$tmp/$name.dec" | sed 's/.*status=//')"
		done
	done
	if [ -z "$fails" ]; then ok "$name: all $n planned tests PASS (METRIC records; rt_selftest: 0 failed)"
	else not_ok "$name: planned tests PASS" "$fails"; fi
	if grep -Eq "^([0-9]+) END tests=$n passed=$n failed=0 timeout=0 records=" "$tmp/$name.dec"; then
		ok "$name: END tests=$n passed=$n"
	else not_ok "$name: END" "$(grep ' END ' "$tmp/$name.dec")"; fi
}

# 1. arm64, cortex-a57: the three arm64 ABIs, every test family.
initramfs "$tmp/arm64.cpio.gz" aarch64 aarch64 aarch64_ilp32 arm
all=$( (tests_of aarch64; echo rt_selftest) | paste -sd, -)
boot a57 300 qemu-system-aarch64 -M virt -cpu cortex-a57 \
	-kernel "$(kernel_path cloud-arm64)" -initrd "$tmp/arm64.cpio.gz" \
	-append "console=ttyAMA0 panic=-1 quiet bootrig.samples=3 bootrig.only=$all $KNOBS"
verdicts a57 "aarch64 arm" "aarch64_ilp32" "$all"
if grep -Eq '^[0-9]+ SYSINFO release=6\.1\.[^ ]*-cloud-arm64 .* machine=aarch64 cpus=1 memtotal_kb=[1-9][0-9]* uptime=[0-9]+\.[0-9]+ cmdline=console=ttyAMA0' "$tmp/a57.dec"; then
	ok "a57: SYSINFO names the kernel, the machine, memory, uptime and command line"
else not_ok "a57: SYSINFO" "$(grep ' SYSINFO ' "$tmp/a57.dec")"; fi

# 2. arm64 on a64fx: no AArch32, so the arm binaries are refused.
boot a64fx 240 qemu-system-aarch64 -M virt,gic-version=3 -cpu a64fx \
	-kernel "$(kernel_path arm64)" -initrd "$tmp/arm64.cpio.gz" \
	-append "console=ttyAMA0 panic=-1 quiet bootrig.samples=3 bootrig.only=lat_syscall $KNOBS"
verdicts a64fx "aarch64" "aarch64_ilp32 arm" "lat_syscall"

# 3. amd64: x32 is off by default in Debian's kernel.
initramfs "$tmp/amd64.cpio.gz" x86_64 x86_64 x32 i386
boot amd64 300 qemu-system-x86_64 -M q35 -cpu max \
	-kernel "$(kernel_path amd64)" -initrd "$tmp/amd64.cpio.gz" \
	-append "console=ttyS0 panic=-1 quiet bootrig.samples=3 bootrig.only=lat_syscall,tcp,rt_selftest $KNOBS"
verdicts amd64 "x86_64 i386" "x32" "lat_syscall,tcp,rt_selftest"

# 4. amd64 with syscall.x32=y: x32 runs; hackbench in thread mode on all.
boot amd64-x32 300 qemu-system-x86_64 -M q35 -cpu max \
	-kernel "$(kernel_path amd64)" -initrd "$tmp/amd64.cpio.gz" \
	-append "console=ttyS0 panic=-1 quiet syscall.x32=y bootrig.samples=2 bootrig.only=lat_syscall,hackbench,rt_selftest $KNOBS bootrig.knob.threads=1"
verdicts amd64-x32 "x86_64 x32 i386" "" "lat_syscall,hackbench,rt_selftest"

# 5. PID 1 never exits: a bad plan is an ERROR record, then END and power off.
boot badplan 240 qemu-system-aarch64 -M virt -cpu cortex-a57 \
	-kernel "$(kernel_path cloud-arm64)" -initrd "$tmp/arm64.cpio.gz" \
	-append "console=ttyAMA0 panic=-1 quiet bootrig.samples=lots"
if [ "$(cat "$tmp/badplan.rc")" = 0 ] && grep -aq 'reboot: Power down' "$tmp/badplan.log" &&
	! grep -aq 'Attempted to kill init' "$tmp/badplan.log"; then
	ok "badplan: init powered the guest off (no 'Attempted to kill init' panic)"
else
	not_ok "badplan: init powers off" "exit $(cat "$tmp/badplan.rc"); $(tail -c 300 "$tmp/badplan.log")"
fi
if [ "$(cat "$tmp/badplan.decrc")" = 0 ] &&
	grep -Eq '^[0-9]+ ERROR reason=plan:\\x20bad\\x20samples=lots$' "$tmp/badplan.dec" &&
	grep -Eq '^([0-9]+) END tests=0 passed=0 failed=0 timeout=0 records=' "$tmp/badplan.dec"; then
	ok "badplan: ERROR names the bad value, then END"
else
	not_ok "badplan: ERROR then END" "$(tail -n 4 "$tmp/badplan.dec")"
fi

# 6. A 32-bit arm kernel: the arm init as PID 1.
initramfs "$tmp/armhf.cpio.gz" arm arm
boot armmp 240 qemu-system-arm -M virt -cpu cortex-a15 \
	-kernel "$(kernel_path armmp-lpae)" -initrd "$tmp/armhf.cpio.gz" \
	-append "console=ttyAMA0 panic=-1 quiet bootrig.samples=3 bootrig.only=lat_syscall,rt_selftest $KNOBS"
verdicts armmp "arm" "" "lat_syscall,rt_selftest"
