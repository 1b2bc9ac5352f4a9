#!/bin/sh
# 36-lava: what a LAVA lab costs over the embedded driver.
#   The local LAVA of tests/lava-host.sh (test-only, loopback; started here
#   if it is not running, stopped again after), then the amd64 smoke boot
#   (TCG, its initramfs built once beforehand) N times through
#   `bootrig run --lava` and N times through the embedded driver,
#   alternated: median wall time of `bootrig run` each and the ratio
#   lava/embedded (target: under 2x); and LAVA's own part of a LAVA boot,
#   apart from the boot: the run's wall time minus the boot's duration
#   (QEMU's start to its end, from the log), and queued_seconds, LAVA's
#   own start_time - submit_time of the job. BENCH_LAVA_N changes N (default 3).
set -u
cd "$(dirname "$0")/../.."
n=${BENCH_LAVA_N:-3}
bootrig=build/bootrig
[ -x "$bootrig" ] || { echo "36-lava: run make first" >&2; exit 1; }
why=$(sh tests/lava-host.sh check 2>&1) || { echo "   skipped: LAVA cannot run here: $why"; exit 0; }
out=$(mktemp -d /tmp/bench-lava.XXXXXX)
started=""
trap '[ -n "$started" ] && sh tests/lava-host.sh stop >/dev/null 2>&1; rm -rf "$out"' EXIT
if ! sh tests/lava-host.sh status >/dev/null 2>&1; then
	sh tests/lava-host.sh start >"$out/start.log" 2>&1 ||
		{ echo "36-lava: LAVA did not start: $(tail -n 3 "$out/start.log")" >&2; exit 1; }
	started=1
fi
eval "$(sh tests/lava-host.sh env)"
kernel=$(sh scripts/fetch-kernels.sh amd64 | awk '{print $2}')
"$bootrig" build --kernel "$kernel" --suite smoke -o "$out/smoke.img" >/dev/null ||
	{ echo "36-lava: bootrig build failed" >&2; exit 1; }

now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# boot [lava]: one boot; prints its wall time (and, through LAVA, appends
# wall - duration and queued_seconds to $out/overhead and $out/queued)
boot() {
	rm -rf "$out/b"
	t0=$(now)
	if [ -n "${1:-}" ]; then
		"$bootrig" run --kernel "$kernel" --initramfs "$out/smoke.img" --lava "$LAVA_URL" \
			--lava-token-file "$LAVA_TOKEN_FILE" -o "$out/b" >/dev/null 2>"$out/b.err"
	else
		"$bootrig" run --kernel "$kernel" --initramfs "$out/smoke.img" -o "$out/b" >/dev/null 2>"$out/b.err"
	fi
	rc=$?
	t1=$(now)
	[ $rc = 0 ] || { echo "36-lava: bootrig run exited $rc: $(tail -n 2 "$out/b.err")" >&2; return 1; }
	wall=$(echo "$t1 - $t0" | bc -l)
	if [ -n "${1:-}" ]; then
		r=$(find "$out/b" -name result.json | head -n 1)
		d=$(jq -r .duration "$r") q=$(jq -r .lava.queued_seconds "$r")
		echo "$wall - $d" | bc -l >>"$out/overhead"
		echo "$q" >>"$out/queued"
	fi
	echo "$wall"
}
: >"$out/lava" && : >"$out/embed" && : >"$out/overhead" && : >"$out/queued"
for _ in $(seq "$n"); do
	boot lava >>"$out/lava" || exit 1
	boot >>"$out/embed" || exit 1
done
l=$(median <"$out/lava") e=$(median <"$out/embed") o=$(median <"$out/overhead") q=$(median <"$out/queued")
printf '   amd64 smoke boot, median of %d: LAVA %.2f s, embedded %.2f s: %.2fx (target < 2x)\n' \
	"$n" "$l" "$e" "$(echo "$l / $e" | bc -l)"
printf '   LAVA apart from the boot (wall - boot duration): %.2f s; LAVA queued the job (start - submit time) %.2f s\n' \
	"$o" "$q"
