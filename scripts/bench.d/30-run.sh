#!/bin/sh
# 30-run: what `bootrig run` costs over booting by hand, and what -j buys.
#   1. the arm64 smoke boot (cloud-arm64, cortex-a57, TCG, the smoke
#      initramfs built once beforehand) through `bootrig run` (embedded
#      libvirt driver, live console, judge, results), beside the same boot
#      as one plain qemu-system-aarch64 command writing the serial port to
#      a file; N of each, alternated, median wall time, ratio run/qemu
#      (target <= 1.10);
#   2. a 6-boot matrix (--repeat 6) at -j 1 and at -j 2, N of each,
#      alternated: median wall times and the speedup -j1/-j2 (target >= 1.8
#      on an otherwise idle 2-core host); beside it what this host gives
#      two plain qemu processes: the same 6 boots by hand one at a time and
#      two at a time (3 each), N of each, alternated: what two TCG guests on
#      two cores gain on this host without bootrig (they can slow each
#      other: shared caches, hyperthreads, the host's own work; and a lone
#      guest can run slower than two, seen here: by hand above 2.0);
#      bootrig's speedup is printed as a share of it too;
#   3. what the benchmark clock costs: the same smoke boot through `bootrig
#      run` with --clock icount (the TCG default) and --clock wall, N of
#      each, alternated: median wall times and the ratio icount/wall.
#   4. what the smoke suite costs over booting at all: the smoke boot (every
#      ABI, lat_syscall) through `bootrig run`, start to exit, beside the
#      same kernel and initramfs with --append bootrig.only= (init starts,
#      probes the ABIs, runs no test and powers off), N of each, alternated:
#      the ratio smoke / no tests (target <= 1.5, issue 14).
# Boots 1 and 2 run on the default clock (icount); the plain qemu boot of 1
# gets the same -icount options, so the ratio compares like with like.
# BENCH_RUN_N changes N (default 3).
set -u
cd "$(dirname "$0")/../.."
. scripts/bench-lib.sh

n=${BENCH_RUN_N:-3}
out=build/bench/run
bench_out "$out"
kernel=$(bench_kernel cloud-arm64)
bootrig=build/bootrig
[ -x "$bootrig" ] || { echo "30-run: run make first" >&2; exit 1; }
"$bootrig" build --kernel "$kernel" --suite smoke -o "$out/smoke.img" >/dev/null ||
	{ echo "30-run: bootrig build failed" >&2; exit 1; }


run_bootrig() {
	rm -rf "$out/r"
	t0=$(now)
	"$bootrig" run --kernel "$kernel" --initramfs "$out/smoke.img" ${1:+--clock "$1"} ${2:+--append "$2"} \
		-o "$out/r" >/dev/null 2>"$out/run.err"
	rc=$?
	t1=$(now)
	[ $rc = 0 ] || { echo "30-run: bootrig run exited $rc: $(tail -n 2 "$out/run.err")" >&2; return 1; }
	echo "$t1 - $t0" | bc -l
}
# run_qemu [NAME]: one plain boot, its serial port to $out/NAME.log (qemu.log)
run_qemu() {
	log="$out/${1:-qemu}.log"
	t0=$(now)
	timeout -k 5 300 qemu-system-aarch64 -M virt -cpu cortex-a57 -m 512 -smp 1 -accel tcg \
		-icount shift=3,sleep=off \
		-display none -monitor none -nodefaults -serial "file:$log" -no-reboot \
		-kernel "$kernel" -initrd "$out/smoke.img" -append "console=ttyAMA0 panic=-1" >/dev/null 2>&1
	t1=$(now)
	grep -q '@@BR 1 [0-9]* END ' "$log" || { echo "30-run: the plain boot did not reach END" >&2; return 1; }
	echo "$t1 - $t0" | bc -l
}

# alternate A B CMD_A CMD_B: n runs of each command, taken in turns so that
# the host's drift falls on both; their times into $out/t-A and $out/t-B.
alternate() {
	: >"$out/t-$1"
	: >"$out/t-$2"
	i=0
	while [ $i -lt "$n" ]; do
		$3 >>"$out/t-$1" || exit 1
		$4 >>"$out/t-$2" || exit 1
		i=$((i + 1))
	done
}
alternate qemu run run_qemu run_bootrig
q=$(median <"$out/t-qemu")
r=$(median <"$out/t-run")
printf '   %-44s %8.2f s\n' "plain qemu-system-aarch64 (median of $n)" "$q"
printf '   %-44s %8.2f s\n' "bootrig run (median of $n)" "$r"
printf '   %-44s %8.3f   (target <= 1.10)\n' "ratio bootrig/qemu" "$(echo "$r / $q" | bc -l)"

matrix() {
	rm -rf "$out/m$1"
	t0=$(now)
	"$bootrig" run --kernel "$kernel" --initramfs "$out/smoke.img" --repeat 6 -j "$1" -o "$out/m$1" \
		>/dev/null 2>"$out/m$1.err" || { echo "30-run: -j $1 matrix failed" >&2; return 1; }
	t1=$(now)
	echo "$t1 - $t0" | bc -l
}
# plain_boots K: the 6 boots as plain qemu commands, K chains at once
# (6/K boots one after the other in each); the wall time of all of them.
plain_boots() {
	t0=$(now)
	k=0
	pids=
	while [ $k -lt "$1" ]; do
		(i=0; while [ $i -lt $((6 / $1)) ]; do run_qemu "plain$k" >/dev/null || exit 1; i=$((i + 1)); done) &
		pids="$pids $!"
		k=$((k + 1))
	done
	failed=0
	for p in $pids; do wait "$p" || failed=1; done
	[ $failed = 0 ] || { echo "30-run: a plain boot failed" >&2; return 1; }
	t1=$(now)
	echo "$t1 - $t0" | bc -l
}
alternate j1 j2 "matrix 1" "matrix 2"
alternate p1 p2 "plain_boots 1" "plain_boots 2"
j1=$(median <"$out/t-j1")
j2=$(median <"$out/t-j2")
p1=$(median <"$out/t-p1")
p2=$(median <"$out/t-p2")
speedup=$(echo "$j1 / $j2" | bc -l)
ceiling=$(echo "$p1 / $p2" | bc -l)
printf '   %-44s %8.2f s\n' "6 boots, -j 1 (median of $n)" "$j1"
printf '   %-44s %8.2f s\n' "6 boots, -j 2 (median of $n)" "$j2"
printf '   %-44s %8.3f   (target >= 1.8; load now: %s)\n' "speedup -j1/-j2" "$speedup" \
	"$(cut -d' ' -f1-3 /proc/loadavg)"
printf '   %-44s %8.2f s\n' "6 plain qemu boots, 1 at a time (median)" "$p1"
printf '   %-44s %8.2f s\n' "6 plain qemu boots, 2 at a time (median)" "$p2"
printf '   %-44s %8.3f   (%s)\n' "speedup by hand" "$ceiling" "two plain qemu on this host"
printf '   %-44s %8.3f\n' "bootrig's speedup / by hand" "$(echo "$speedup / $ceiling" | bc -l)"

# pair A B LABEL_A LABEL_B RATIO_LABEL [NOTE]: the medians of $out/t-A and
# t-B and their ratio A/B.
pair() {
	a=$(median <"$out/t-$1")
	b=$(median <"$out/t-$2")
	printf '   %-44s %8.2f s\n' "$3 (median of $n)" "$a"
	printf '   %-44s %8.2f s\n' "$4 (median of $n)" "$b"
	printf '   %-44s %8.3f%s\n' "$5" "$(echo "$a / $b" | bc -l)" "${6:+   ($6)}"
}
alternate icount wall "run_bootrig icount" "run_bootrig wall"
pair icount wall "smoke boot, --clock icount" "smoke boot, --clock wall" "ratio icount/wall (the clock's cost)"

alternate smoke notest "run_bootrig" "run_bootrig icount bootrig.only="
pair smoke notest "smoke boot, bootrig run" "no-test boot (bootrig.only=)" "ratio smoke / no tests" "target <= 1.5"
