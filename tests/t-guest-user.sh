#!/bin/sh
# t-guest-user.sh: every guest binary of every ABI, run as an ordinary
# process: natively for x86_64 and i386 (i386 under qemu-i386 where the
# host kernel has IA-32 emulation off), x32 natively where the host kernel
# runs it, else in an x86_64 guest booted with syscall.x32=y, which then
# also runs init's test mode over native x86_64, x32 and i386 binaries
# (tests/lib.sh's gx_add, gx_boot); under qemu-user for aarch64 and arm;
# aarch64_ilp32, which qemu-user cannot run, is checked with file(1).
#   1. file(1): each ABI's binaries are the right ELF, static, stripped
#      (probe and init) or with their symbol table but no debug sections
#      (the test binaries: the profile pass names their functions)
#   2. each test binary alone (samples=3): exits 0, prints METRIC lines
#   3. the same binaries through init's test mode, with init built for the
#      machine (native x86_64 init; aarch64 and arm inits under qemu-user,
#      their children through small qemu wrappers): every record decodes
#      (br-decode), each test PASSes with at least one METRIC, all > 0.
. "$(dirname "$0")/lib.sh"
set -u

G=$TOP/build/guest
DECODE=$TOP/build/tests/tools/br-decode
KNOBS="sample_ms=1 reps=1 groups=2 loops=10"   # short runs; hackbench small
tmp=$(mktemp -d /tmp/t-guest-user.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
[ -x "$DECODE" ] || { not_ok "br-decode" "missing $DECODE: run make unit"; exit 1; }

# tests_of ABI: the test binaries of an ABI (everything but probe and init).
tests_of() {
	for f in "$G/$1"/*; do
		[ -f "$f" ] || continue
		case $(basename "$f") in probe | init) ;; *) basename "$f" ;; esac
	done
}
elf_kind() {
	case $1 in
	x86_64) echo 'ELF 64-bit LSB executable, x86-64' ;;
	x32) echo 'ELF 32-bit LSB executable, x86-64' ;;
	i386) echo 'ELF 32-bit LSB executable, Intel 80386' ;;
	aarch64) echo 'ELF 64-bit LSB executable, ARM aarch64' ;;
	aarch64_ilp32) echo 'ELF 32-bit LSB executable, ARM aarch64' ;;
	arm) echo 'ELF 32-bit LSB executable, ARM, EABI5' ;;
	esac
}

# 1. file(1) on every binary.
for abi in x86_64 x32 i386 aarch64 aarch64_ilp32 arm; do
	bad="" n=0
	for f in "$G/$abi"/*; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		desc=$(file -b "$f")
		case $(basename "$f") in probe | init) strip=", stripped" ;; *) strip="not stripped" ;; esac
		case $desc in *debug_info*) bad="$bad $(basename "$f"): debug sections;" ;; esac
		case $desc in "$(elf_kind "$abi")"*"statically linked"*"$strip"*) ;; *) bad="$bad $(basename "$f"): $desc;" ;; esac
	done
	if [ "$n" -ge 2 ] && [ -z "$bad" ]; then ok "file: the $n $abi binaries are '$(elf_kind "$abi")', static, stripped but for the tests' symbols"
	else not_ok "file: $abi binaries" "n=$n$bad"; fi
done

# stage ROOT ABI [WRAPPER]: DIR/bench/ABI with the ABI's binaries, or with
# scripts that run them through WRAPPER (qemu-user) when given.
stage() {
	mkdir -p "$1/bench/$2"
	for f in "$G/$2"/*; do
		[ -f "$f" ] && [ "$(basename "$f")" != init ] || continue
		if [ -n "${3:-}" ]; then
			printf '#!/bin/sh\nexec %s %s "$@"\n' "$3" "$f" >"$1/bench/$2/$(basename "$f")"
			chmod +x "$1/bench/$2/$(basename "$f")"
		else
			cp "$f" "$1/bench/$2/"
		fi
	done
}

# What this host cannot run goes to one x86_64 guest booted with
# syscall.x32=y (tests/lib.sh's gx_add/gx_boot): x32's binaries where the
# host kernel refuses x32 (Debian's has it off unless syscall.x32=y), and
# init's test mode over native x86_64, x32 and i386 binaries where the
# host runs x32 or i386 only another way (qemu-i386 cannot exec).
gx=$tmp/gx
# init_cmdline "ABIS": the command line of init's test mode for those ABIs
init_cmdline() {
	only=$(for a in $1; do tests_of "$a"; done | sort -u | paste -sd, -)
	echo "console=ttyS0 bootrig.samples=3 bootrig.only=$only bootrig.knob.sample_ms=1 bootrig.knob.reps=1 bootrig.knob.groups=2 bootrig.knob.loops=10"
}
if [ "$(abi_runner x32)" = none ]; then
	gx_add "$gx" "$G/x32/probe"
	for t in $(tests_of x32); do
		# shellcheck disable=SC2086
		gx_add "$gx" "$G/x32/$t" "abi=x32" samples=3 $KNOBS
	done
	# shellcheck disable=SC2086
	gx_add "$gx" "$G/x32/hackbench" "abi=x32" samples=2 $KNOBS threads=1
fi
if [ -n "$(abi_runner x32)$(abi_runner i386)" ]; then
	groot=$tmp/root-guest
	for a in x86_64 x32 i386; do stage "$groot" "$a"; done
	gx_add "$gx" "$G/x86_64/init" --root "$groot" --cmdline "$(init_cmdline "x86_64 x32 i386")"
fi
if [ -f "$gx/batch" ]; then
	why=$(gx_boot "$gx")
	if [ $? = 0 ]; then ok "the guest with syscall.x32=y ran the $(wc -l <"$gx/batch") commands this host cannot"
	else not_ok "the guest with syscall.x32=y runs what this host cannot" "$why"; fi
fi

# 2. Each test binary alone.
for abi in x86_64 x32 i386 aarch64 arm; do
	r=$(abi_runner "$abi")
	if [ "$r" = none ]; then
		echo "# $abi: in the guest (the host kernel refuses it)"
		r="$GX --replay $gx"
	fi
	if $r "$G/$abi/probe"; then ok "$abi probe exits 0"; else not_ok "$abi probe exits 0"; fi
	for t in $(tests_of "$abi"); do
		# shellcheck disable=SC2086
		$r "$G/$abi/$t" "abi=$abi" samples=3 $KNOBS >"$tmp/$abi.$t.out" 2>"$tmp/$abi.$t.err"
		rc=$?
		m=$(grep -c "^METRIC abi=$abi test=$t name=" "$tmp/$abi.$t.out")
		if [ $rc = 0 ] && [ "$m" -ge 1 ] && grep -Eq ' n=[1-3] ' "$tmp/$abi.$t.out"; then
			ok "$abi $t alone: exit 0, $m METRIC lines"
		else
			not_ok "$abi $t alone" "exit $rc, $m METRIC lines; $(head -c 300 "$tmp/$abi.$t.err")"
		fi
	done
	# threads over the runtime's clone trampoline and futex join
	if [ -f "$G/$abi/hackbench" ]; then
		# shellcheck disable=SC2086
		timeout 120 $r "$G/$abi/hackbench" "abi=$abi" samples=2 $KNOBS threads=1 >"$tmp/$abi.thr.out" 2>&1
		rc=$?
		if [ $rc = 0 ] && grep -q '^METRIC ' "$tmp/$abi.thr.out"; then ok "$abi hackbench threads=1 (clone threads, futex join)"
		else not_ok "$abi hackbench threads=1" "exit $rc: $(tail -c 300 "$tmp/$abi.thr.out")"; fi
	fi
done

# through_init NAME INIT-RUNNER INIT ROOT "OK-ABIS" "UNSUPPORTED-ABIS"
through_init() {
	name=$1 irun=$2 init=$3 root=$4 want_ok=$5 want_unsup=$6
	# shellcheck disable=SC2086
	timeout 600 $irun "$init" --root "$root" --cmdline "$(init_cmdline "$want_ok")" \
		>"$tmp/$name.log" 2>"$tmp/$name.err"
	"$DECODE" "$tmp/$name.log" >"$tmp/$name.dec" 2>&1
	if [ $? = 0 ]; then ok "$name: every record decodes, BEGIN..END, nothing lost or corrupt"
	else not_ok "$name: records decode" "$(grep -E '^(problem|#)' "$tmp/$name.dec" | head -5)"; fi
	for a in $want_ok; do
		if grep -q "^[0-9]* ABI abi=$a status=ok$" "$tmp/$name.dec"; then ok "$name: ABI $a ok"
		else not_ok "$name: ABI $a ok" "$(grep " ABI abi=$a " "$tmp/$name.dec")"; fi
		for t in $(tests_of "$a"); do
			m=$(grep -c "^[0-9]* METRIC abi=$a test=$t name=" "$tmp/$name.dec")
			if grep -q "^[0-9]* RESULT abi=$a test=$t status=PASS ms=" "$tmp/$name.dec" && [ "$m" -ge 1 ]; then
				ok "$name: $a $t PASS with $m METRIC records"
			else
				not_ok "$name: $a $t" "$(grep " RESULT abi=$a test=$t " "$tmp/$name.dec"), $m METRIC"
			fi
		done
	done
	for a in $want_unsup; do
		if grep -q "^[0-9]* ABI abi=$a status=unsupported reason=ENOEXEC$" "$tmp/$name.dec"; then
			ok "$name: ABI $a unsupported (ENOEXEC)"
		else not_ok "$name: ABI $a unsupported" "$(grep " ABI abi=$a " "$tmp/$name.dec")"; fi
	done
	zero=$(grep ' METRIC ' "$tmp/$name.dec" | grep -E ' median=0(\.0*)? ' | head -3)
	if [ -z "$zero" ]; then ok "$name: every METRIC median is above zero"
	else not_ok "$name: a METRIC median is zero" "$zero"; fi
}

# 3a. x86_64 machine: x86_64 and i386 (and x32 when the host runs it).
root=$tmp/root-x86
stage "$root" x86_64
stage "$root" i386 "$(abi_runner i386)"    # qemu-i386 where IA-32 is off
stage "$root" x32
if [ "$(abi_runner x32)" != none ]; then
	through_init init-x86_64 "" "$G/x86_64/init" "$root" "x86_64 x32 i386" ""
else
	through_init init-x86_64 "" "$G/x86_64/init" "$root" "x86_64 i386" "x32"
fi
# ... and in the guest, all three native, where the host runs one of them
# only another way
if [ -n "${groot:-}" ]; then
	through_init init-x86_64-guest "$GX --replay $gx" "$G/x86_64/init" "$groot" "x86_64 x32 i386" ""
fi

# 3b. arm64 machine under qemu-user: aarch64 and arm, ILP32 refused.
root=$tmp/root-arm64
stage "$root" aarch64 qemu-aarch64
stage "$root" arm qemu-arm
stage "$root" aarch64_ilp32
through_init init-aarch64 qemu-aarch64 "$G/aarch64/init" "$root" "aarch64 arm" "aarch64_ilp32"

# 3c. The arm init (a 32-bit arm machine) under qemu-arm, on one test.
root=$tmp/root-arm
mkdir -p "$root/bench/arm"
printf '#!/bin/sh\nexec qemu-arm %s "$@"\n' "$G/arm/probe" >"$root/bench/arm/probe"
printf '#!/bin/sh\nexec qemu-arm %s "$@"\n' "$G/arm/lat_syscall" >"$root/bench/arm/lat_syscall"
chmod +x "$root/bench/arm/probe" "$root/bench/arm/lat_syscall"
timeout 300 qemu-arm "$G/arm/init" --root "$root" --cmdline "bootrig.samples=3 bootrig.knob.sample_ms=1" \
	>"$tmp/init-arm.log" 2>&1
"$DECODE" "$tmp/init-arm.log" >"$tmp/init-arm.dec" 2>&1
if [ $? = 0 ] && grep -q '^0 BEGIN proto=1 .* arch=arm ' "$tmp/init-arm.dec" &&
	grep -q 'RESULT abi=arm test=lat_syscall status=PASS' "$tmp/init-arm.dec"; then
	ok "the arm init (qemu-arm) runs the smoke plan; its records decode"
else
	not_ok "the arm init (qemu-arm)" "$(tail -3 "$tmp/init-arm.dec")"
fi
