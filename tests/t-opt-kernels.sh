#!/bin/sh
# t-opt-kernels: the -O2 against -Os experiment of docs/experiments.md, run
# as the page writes it, on its kernels: linux-source-6.1 built from one
# tinyconfig-based config twice, -O2 and -Os, for x86_64 and arm64
# (scripts/build-opt-kernels.sh, cached as the KUnit kernels are), each
# booted 3 times (seeds 1 to 3, icount) and compared:
#  - every boot PASSes, and its kernel.size comes from the tree's vmlinux,
#    -Os's text smaller than -O2's;
#  - compare gives each lat_syscall metric of the arch's own ABI a row
#    with its change and p, and under it (--perf-stat-all) each software
#    counter on both arches and cycles and instructions on arm64 (QEMU's
#    PMU), each with its p; on x86_64 one note names the hardware events
#    not counted (ENOENT: no PMU under TCG);
#  - the page's two tables are what compare printed: each metric's verdict
#    and its change within a point (icount makes a boot of one kernel and
#    seed the same boot, but a kernel built again is other bytes).
# make check runs arm64, the arch whose hardware counters the guest has
# (two kernel builds, some nine minutes of both cores when not cached; the
# four would take CI past its 45 minutes); `sh tests/t-opt-kernels.sh
# x86_64 arm64` runs both, as docs/experiments.md's tables were made (and
# t-perf-stat checks the no-PMU note on Debian's amd64 kernel every run).
# limit: 2400
. "$(dirname "$0")/lib.sh"
set -u
RUN="$TOP/build/bootrig"        # the runner at full speed
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
page=$TOP/docs/experiments.md

[ $# -gt 0 ] || set -- arm64
if ! sh "$TOP/scripts/build-opt-kernels.sh" "$@" >"$tmp/kernels" 2>"$tmp/build.err"; then
	not_ok "the -O2 and -Os kernels build for $* (scripts/build-opt-kernels.sh)" "$(tail -n 5 "$tmp/build.err")"
	echo "1..$_tap_n"
	exit 0
fi
ok "the -O2 and -Os kernels build from linux-source-6.1 for $* (scripts/build-opt-kernels.sh)"
tree() { awk -v k="$1" '$1 == k {print $2}' "$tmp/kernels"; }

SW='["cpu-clock","context-switches","cpu-migrations","page-faults","minor-faults","major-faults"]'
for arch in "$@"; do
	case $arch in x86_64) abi=x86_64 ;; arm64) abi=aarch64 ;; *) not_ok "arch $arch" "x86_64 or arm64"; continue ;; esac
	for o in O2 Os; do
		"$RUN" run --kernel "$(tree "$arch-$o")" --repeat 3 -j 2 -o "$tmp/opt/$arch-$o" \
			>"$tmp/$arch-$o.out" 2>&1
	done
	pass=$(cat "$tmp"/opt/$arch-O2/*/*/*/result.json "$tmp"/opt/$arch-Os/*/*/*/result.json 2>/dev/null |
		jq -rs 'map(select(.verdict == "PASS" and .kernel.size.from == "vmlinux")) | length')
	check "$arch: -O2 and -Os each boot 3 times, PASS, kernel.size from vmlinux ($pass of 6)" test "$pass" = 6
	o2=$(jq -r .kernel.size.text "$(find "$tmp/opt/$arch-O2" -name result.json | head -n 1)")
	os=$(jq -r .kernel.size.text "$(find "$tmp/opt/$arch-Os" -name result.json | head -n 1)")
	check "$arch: -Os's text is smaller than -O2's ($os < $o2 bytes)" test "${os:-0}" -lt "${o2:-0}"

	"$BOOTRIG" compare "$tmp/opt/$arch-O2" "$tmp/opt/$arch-Os" --metric "$abi.*" >"$tmp/$arch.cmp" 2>/dev/null
	"$BOOTRIG" compare "$tmp/opt/$arch-O2" "$tmp/opt/$arch-Os" --metric "$abi.*" --perf-stat-all \
		>"$tmp/$arch-all.cmp" 2>/dev/null
	miss=
	for m in null read write stat fstat open_close; do
		grep -Eq "[-+][0-9.]+%.* (<0\.0001|[01]\.[0-9]+) .* $abi\.lat_syscall\.$m \(us\)" "$tmp/$arch.cmp" || miss="$miss $m"
		events=$(echo "$SW" | jq -r '.[]')
		[ "$arch" = arm64 ] && events="$events cycles instructions"
		for e in $events; do
			grep -Eq " (<0\.0001|[01]\.[0-9]+) .* $abi\.lat_syscall\.$m:perf-stat\.$e " "$tmp/$arch-all.cmp" ||
				miss="$miss $m:$e"
		done
	done
	check "$arch: compare has each metric's change and p, and under it each counter's${miss:+ (missing:$miss)}" test -z "$miss"
	if [ "$arch" = x86_64 ]; then
		check "x86_64: one note names the hardware events not counted (ENOENT)" \
			grep -q "^warning: perf stat could not count these on every side's boots, so they have no rows: x86_64: cycles, instructions, .* (ENOENT)" "$tmp/$arch.cmp"
	fi

	# the page's table: the metric rows of the ```text block after its
	# "<!-- t-opt-kernels: ARCH -->" marker
	awk -v m="<!-- t-opt-kernels: $arch -->" '$0 == m {on = 1; next}
		on && /^```text$/ {in_block = 1; next} in_block && /^```$/ {exit} in_block {print}' "$page" |
		grep -E "^ +[0-9.]+ .* $abi\." >"$tmp/$arch.page"
	grep -E "^ +[0-9.]+ .* $abi\." "$tmp/$arch.cmp" >"$tmp/$arch.rows"
	# each metric row of the page (not its counters': whether a counter's
	# row shows depends on its own test) is a row compare printed, with the
	# same verdict and its change within a point: a kernel built again is not
	# the same bytes (its build's time and id), and a counter of one boot
	# moved 0.6 % so on a rebuilt arm64 kernel; a row whose boots spread more
	# than 5 % a side (arm64's open_close: -31.5 % on one build, -59.1 % on
	# the next) is no figure to hold
	bad=$(awk '{ v = "-"; if ($NF == "regressed" || $NF == "improved") { v = $NF; NF-- }
		     m = $(NF - 1) " " $NF }
		m ~ /:perf-stat\./ { next }
		FNR == NR && ($3 + 0 > 5 || $7 + 0 > 5) { next }
		FNR == NR { want[m] = $4 " " v; next }
		m in want { got[m] = $4 " " v }
		END { for (m in want) { split(want[m], w, " "); split(got[m], g, " ")
			if (!(m in got) || w[2] != g[2] || w[1] - g[1] > 1 || g[1] - w[1] > 1)
				printf "%s: page %s, printed %s; ", m, want[m], (m in got) ? got[m] : "none" } }' \
		"$tmp/$arch.page" "$tmp/$arch.rows")
	if [ -s "$tmp/$arch.page" ] && [ -z "$bad" ]; then
		ok "$arch: docs/experiments.md's table is what compare printed (each metric's verdict, its change within a point)"
	else not_ok "$arch: docs/experiments.md's table" "${bad:-no table} $(diff "$tmp/$arch.page" "$tmp/$arch.rows" | head -n 6)"; fi
	sed 's/^/# /' "$tmp/$arch.cmp"
	echo "# $arch text/data/bss: -O2 $(jq -r '.kernel.size | "\(.text) \(.data) \(.bss)"' "$(find "$tmp/opt/$arch-O2" -name result.json | head -n 1)"), -Os $(jq -r '.kernel.size | "\(.text) \(.data) \(.bss)"' "$(find "$tmp/opt/$arch-Os" -name result.json | head -n 1)")"
done
echo "1..$_tap_n"
