#!/bin/sh
# 18-perf-stat: does counting move a figure? (issue 44: every figure within
# 0.1 % with perf stat's counters on against off, under icount.)
#   Counting cannot move a figure by construction: init runs the counting
#   run (each test again, knob count_only=1, its PERFSTAT records) only
#   after the plan's last test was timed (initramfs/bench/bench.h), so every
#   METRIC is on the console before the first PERFSTAT, and under icount
#   what a boot printed before cannot depend on what it does after. The
#   part checks that order in each boot, and measures:
#   each kernel below boots the suite three times through `bootrig run`,
#   TCG, icount (the default), --seed 1, the same command line: "on" as
#   configured (perf_stat = true), "off" with the suite's perf_stat =
#   false (no counting run), and F "floor" boots like off but with
#   test_timeout = 121, 122, ... (a watchdog no test comes near: a plan
#   one byte different, as on's is from off's, and nothing else). It
#   prints each metric's median on and off, the change, and its floor: the
#   largest change of a floor boot from off, what one byte of the
#   initramfs alone does to the figure (under icount a boot is the same
#   boot only for the same bytes: the image's and the command line's move
#   where the kernel's memory lands and what its random numbers are, and
#   lat_proc's fork and exec follow them by up to a few percent). Then how
#   many metrics are within 0.1 % and how many of the others changed
#   less than their floor, and each boot's host seconds on and off (the
#   counting run's cost: every test runs a second time, calibrated with
#   one run a step and counted over two sub-runs); a boot with counting on
#   whose metrics have no perf stat, or a PERFSTAT before a METRIC, or one
#   with counting off that has one, and the part says FAILED.
# BENCH_PERF_STAT_SUITE the suite (default lmbench: lat_syscall, lat_pipe,
# lat_ctx, lat_proc, lat_sig; about 4 minutes for both kernels on an idle
# 2-core host); BENCH_PERF_STAT_FLOORS F (default 3);
# BENCH_PERF_STAT_KERNELS the Debian flavours (default
# "cloud-arm64 amd64").
set -u
cd "$(dirname "$0")/../.." || exit 1
. scripts/bench-lib.sh

suite=${BENCH_PERF_STAT_SUITE:-lmbench}
out=build/bench/perf-stat
bench_out "$out"
bootrig=build/bootrig
[ -x "$bootrig" ] || { echo "18-perf-stat: run make first" >&2; exit 1; }
printf 'suites = ( { name = "%s"; perf_stat = true; } );\n' "$suite" >"$out/on.cfg"
printf 'suites = ( { name = "%s"; perf_stat = false; } );\n' "$suite" >"$out/off.cfg"
floors=${BENCH_PERF_STAT_FLOORS:-3}
sides="on off"
i=1
while [ "$i" -le "$floors" ]; do
	printf 'suites = ( { name = "%s"; perf_stat = false; test_timeout = %d; } );\n' "$suite" \
		$((120 + i)) >"$out/floor$i.cfg"
	sides="$sides floor$i"
	i=$((i + 1))
done

for flavour in ${BENCH_PERF_STAT_KERNELS:-cloud-arm64 amd64}; do
	kernel=$(bench_kernel "$flavour")
	[ -s "$kernel" ] || { echo "18-perf-stat: no $flavour kernel" >&2; exit 1; }
	for side in $sides; do
		dir=$out/$flavour-$side
		"$bootrig" run --kernel "$kernel" --config "$out/$side.cfg" --suite "$suite" --seed 1 \
			-o "$dir" >"$dir.log" 2>&1 ||
			{ echo "18-perf-stat: $flavour $side: bootrig run exited $?: $(tail -n 2 "$dir.log")" >&2; exit 1; }
		rj=$(find "$dir" -name result.json | head -n 1)
		[ -n "$rj" ] || { echo "18-perf-stat: $flavour $side wrote no result.json" >&2; exit 1; }
		jq -r .duration "$rj" >"$out/$flavour.$side.secs"
		jq -r '.metrics[] | select(.abi != "boot")
			| "\(.abi).\(.test).\(.name) \(.median) \(if .perf_stat.ops then 1 else 0 end)"' "$rj" |
			sort >"$out/$flavour.$side"
		# the order: the last METRIC's line before the first PERFSTAT's
		con=${rj%result.json}console.log
		last=$(grep -n ' METRIC ' "$con" | tail -n 1 | cut -d: -f1)
		first=$(grep -n ' PERFSTAT ' "$con" | head -n 1 | cut -d: -f1)
		if [ "$side" = on ] && { [ -z "$first" ] || [ "${last:-0}" -ge "$first" ]; }; then
			echo "   FAILED: $flavour on: a PERFSTAT (line ${first:-none}) not after the last METRIC (line ${last:-none})"
			exit 1
		fi
	done
	echo "-- $flavour: the $suite suite, one boot each, icount, --seed 1; perf stat's counters on / off;"
	echo "   floor: the largest change of $floors boots with a plan one byte different from off's (test_timeout);"
	echo "   in the boot with counting on, every METRIC before the first PERFSTAT"
	printf '   %-34s %12s %12s %9s %9s\n' "metric" "on" "off" "change" "floor"
	cp "$out/$flavour.off" "$out/$flavour.joined"
	i=1
	while [ "$i" -le "$floors" ]; do
		join "$out/$flavour.joined" "$out/$flavour.floor$i" >"$out/$flavour.j" && mv "$out/$flavour.j" "$out/$flavour.joined"
		i=$((i + 1))
	done
	join "$out/$flavour.on" "$out/$flavour.joined" | awk '
		# metric, median on, a pass on (1/0), median off, a pass off,
		# then the median and pass of each floor boot
		{ d = ($4 ? ($2 / $4 - 1) * 100 : 0); a = d < 0 ? -d : d
		  fa = 0
		  for (k = 6; k < NF; k += 2) {
			  f = ($4 ? ($k / $4 - 1) * 100 : 0); f = f < 0 ? -f : f
			  if (f > fa) fa = f
			  if ($(k + 1) != 0) stray++ }
		  printf "   %-34s %12s %12s %+8.3f%% %8.3f%%\n", $1, $2, $4, d, fa
		  n++; if (a <= 0.1) within++; else if (a <= fa) floor++
		  if (a > worst) { worst = a; which = $1 }
		  if ($3 != 1) nopass++; if ($5 != 0) stray++ }
		END { printf "   %-34s %d of %d (largest change %.3f %%: %s)\n", "within 0.1 % (target: all)",
			      within, n, worst, (which == "" ? "-" : which)
		      printf "   %-34s %d of %d\n", "the others within their floor", floor, n - within
		      if (nopass || stray || !n) {
			      printf "   FAILED: %d metrics counted without a pass, %d with counting off had one\n", nopass, stray
			      exit 1 } }' || exit 1
	printf '   %-34s %6.2f s on, %6.2f s off: %s (host seconds a boot: what the counting run costs)\n' \
		"host time" "$(cat "$out/$flavour.on.secs")" "$(cat "$out/$flavour.off.secs")" \
		"$(ratio "$(cat "$out/$flavour.on.secs")" "$(cat "$out/$flavour.off.secs")")"
done
