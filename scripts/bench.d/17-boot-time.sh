#!/bin/sh
# 17-boot-time: what timing the boot costs the boot (issue 41: at most 1.10
# times an ordinary boot's host time).
#   Each kernel below booted through `bootrig run` as an ordinary boot is
#   (the smoke initramfs, built once beforehand, and its plan: the tests
#   run after the boot's report, as a user's boot runs them), TCG, icount
#   (the default), --seed 1: N boots plain (the baseline) and N with
#   --boot-time (initcall_debug log_buf_len=8M, the initcall trace events,
#   bootrig.boot_time=1: init reads the initcall records and their levels
#   and sends them packed), alternated, one
#   boot at a time, and prints:
#     host time   each boot's duration (host seconds, power-on to end,
#                 result.json "duration"), median and fastest per side,
#                 the ratio of the medians boot-time / plain (target <=
#                 1.10) and of the fastest (another host's load only adds
#                 to a boot: the fastest is the least disturbed);
#     initcalls   the initcall metrics (boot.initcall.*) of each boot-time
#                 boot, which show it timed them; none in one of them, or
#                 any in a plain boot, and the part says FAILED instead of
#                 a ratio.
# BENCH_BOOT_TIME_N changes N (default 3: about 3 minutes for both kernels
# on an idle 2-core host); BENCH_BOOT_TIME_KERNELS the Debian flavours
# (default "cloud-arm64 amd64"); BENCH_BOOT_TIME_APPEND=bootrig.only= boots
# with no test, the boot alone, where the cost is the largest share (the
# added seconds are printed either way).
set -u
cd "$(dirname "$0")/../.." || exit 1
. scripts/bench-lib.sh

n=${BENCH_BOOT_TIME_N:-3}
append=${BENCH_BOOT_TIME_APPEND-}
out=build/bench/boot-time
bench_out "$out"
bootrig=build/bootrig
[ -x "$bootrig" ] || { echo "17-boot-time: run make first" >&2; exit 1; }

# boot FLAVOUR SIDE I [--boot-time]: one boot into $out/FLAVOUR/SIDE/I; its
# duration and its count of initcall metrics appended to $out/FLAVOUR.SIDE.
boot() {
	dir=$out/$1/$2/$3
	"$bootrig" run --kernel "$kernel" --initramfs "$out/$1.img" ${append:+--append "$append"} \
		--seed 1 ${4:+"$4"} -o "$dir" >"$dir.log" 2>&1 ||
		{ echo "17-boot-time: $1 $2 boot $3: bootrig run exited $?: $(tail -n 2 "$dir.log")" >&2; return 1; }
	rj=$(find "$dir" -name result.json | head -n 1)
	[ -n "$rj" ] || { echo "17-boot-time: $1 $2 boot $3 wrote no result.json" >&2; return 1; }
	jq -r '"\(.duration) \([.metrics[] | select(.abi == "boot" and .test == "initcall")] | length)"' \
		"$rj" >>"$out/$1.$2"
}

for flavour in ${BENCH_BOOT_TIME_KERNELS:-cloud-arm64 amd64}; do
	kernel=$(bench_kernel "$flavour")
	[ -s "$kernel" ] || { echo "17-boot-time: no $flavour kernel" >&2; exit 1; }
	"$bootrig" build --kernel "$kernel" --suite smoke -o "$out/$flavour.img" >/dev/null ||
		{ echo "17-boot-time: bootrig build failed" >&2; exit 1; }
	mkdir -p "$out/$flavour/plain" "$out/$flavour/timed"
	: >"$out/$flavour.plain"
	: >"$out/$flavour.timed"
	i=1
	while [ $i -le "$n" ]; do
		boot "$flavour" plain $i || exit 1
		boot "$flavour" timed $i --boot-time || exit 1
		i=$((i + 1))
	done
	plain=$(awk '{print $1}' "$out/$flavour.plain" | median)
	timed=$(awk '{print $1}' "$out/$flavour.timed" | median)
	plain_min=$(sort -n "$out/$flavour.plain" | awk 'NR == 1 {print $1}')
	timed_min=$(sort -n "$out/$flavour.timed" | awk 'NR == 1 {print $1}')
	counts=$(awk '{print $2}' "$out/$flavour.timed" | sort -un | tr '\n' ' ')
	zero=$(awk '$2 == 0' "$out/$flavour.timed" | wc -l)
	stray=$(awk '$2 != 0' "$out/$flavour.plain" | wc -l)
	echo "-- $flavour: ${append:+--append $append, }the smoke suite's boot, $n boots a side, icount"
	printf '   %-44s %8s %8s\n' "host seconds a boot" "median" "fastest"
	printf '   %-44s %8.2f %8.2f\n' "plain ($n boots)" "$plain" "$plain_min"
	printf '   %-44s %8.2f %8.2f\n' "--boot-time ($n boots)" "$timed" "$timed_min"
	printf '   %-44s %8s   (%s)\n' "initcalls timed a boot-time boot" "${counts% }" \
		"$((n - zero)) of $n boots with initcalls; plain boots with any: $stray"
	if [ "$zero" -gt 0 ] || [ "$stray" -gt 0 ]; then
		echo "   ratio boot-time/plain: FAILED ($zero boot-time boots timed no initcall, $stray plain boots timed some)"
		exit 1
	fi
	printf '   %-44s %8s %8s   (target <= 1.10, the median; load now: %s)\n' "ratio boot-time/plain" \
		"$(ratio "$timed" "$plain")" "$(ratio "$timed_min" "$plain_min")" "$(cut -d' ' -f1-3 /proc/loadavg)"
	printf '   %-44s %8s\n' "seconds timing the boot adds (medians)" \
		"$(awk -v a="$timed" -v b="$plain" 'BEGIN { printf "%+.2f", a - b }')"
done
