#!/bin/sh
# 12-hackbench-peer: bootrig's hackbench beside rt-tests' own, same kernel,
#   same boot, same clock (issue 14: "make bench runs Debian's rt-tests
#   hackbench beside ours and prints the ratio").
#   One boot of cloud-arm64 under TCG with -icount shift=3,sleep=off
#   (qemu-system-aarch64 -M virt -cpu cortex-a57, 1 GiB, one CPU) with an
#   initramfs of the bench's own: initramfs/peer.c as PID 1, Debian's
#   rt-tests and libc6 for arm64 (apt-get download, unpacked as
#   they install) and our build/guest/aarch64/hackbench. peer runs, R rounds
#   (BENCH_PEER_RUNS, default 3), each once:
#     rt-tests  /usr/bin/hackbench -P -g 10 -f 20 -l 10 -s 100
#     bootrig   /bench/hackbench groups=10 fds=20 loops=10 datasize=100 (one sample)
#   i.e. 10 groups of 20 senders and 20 receivers (400 tasks), socketpairs,
#   processes, 10 loops of 100 bytes. Printed: each one's own figure (rt-tests'
#   "Time:", our METRIC time), the guest seconds from fork to reap (what the
#   program costs as a whole: rt-tests is a dynamic glibc process whose 400
#   tasks are forks of it), medians over the rounds, and bootrig / rt-tests.
set -u
cd "$(dirname "$0")/../.."
. scripts/bench-lib.sh

runs=${BENCH_PEER_RUNS:-3}
out=build/bench/hackbench-peer
cache=${BOOTRIG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bootrig}/bench/peer-arm64
peer=build/guest-selftest/aarch64/peer
ours=build/guest/aarch64/hackbench
bench_out "$out"
mkdir -p "$cache"
kernel=$(bench_kernel cloud-arm64)
for f in "$kernel" "$peer" "$ours"; do
	[ -s "$f" ] || { echo "12-hackbench-peer: missing $f (run make)" >&2; exit 1; }
done

# Debian's packages, once: rt-tests and what its hackbench links.
for pkg in rt-tests libc6; do
	ls "$cache/${pkg}"_*_arm64.deb >/dev/null 2>&1 && continue
	(cd "$cache" && apt-get download -q -o APT::Sandbox::User=root "$pkg:arm64" >/dev/null) || {
		echo "12-hackbench-peer: apt-get download $pkg:arm64 failed" >&2; exit 1; }
done

stage=$out/root
mkdir -p "$stage/peer" "$stage/bench" "$stage/dev" "$stage/proc" "$stage/tmp"
for deb in "$cache"/*_arm64.deb; do dpkg-deb -x "$deb" "$stage"; done
rm -rf "$stage/usr/share" "$stage/usr/lib/aarch64-linux-gnu/gconv"
[ -x "$stage/usr/bin/hackbench" ] || { echo "12-hackbench-peer: no usr/bin/hackbench in rt-tests" >&2; exit 1; }
cp "$peer" "$stage/init"
cp "$ours" "$stage/bench/hackbench"
cat >"$stage/peer/plan" <<'EOF'
rt-tests /usr/bin/hackbench -P -g 10 -f 20 -l 10 -s 100
bootrig /bench/hackbench abi=aarch64 groups=10 fds=20 loops=10 datasize=100 samples=1 min_samples=1 pin=0
EOF
echo "$runs" >"$stage/peer/runs"
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 >"$out/initrd.gz"

t0=$(date +%s.%N)
timeout -k 5 1800 qemu-system-aarch64 -M virt -cpu cortex-a57 -m 1024 -smp 1 -accel tcg \
	-icount shift=3,sleep=off -nographic -no-reboot -kernel "$kernel" -initrd "$out/initrd.gz" \
	-append "console=ttyAMA0 panic=-1 quiet" -serial "file:$out/console.log" \
	-monitor none -display none </dev/null >/dev/null 2>&1
rc=$?
t1=$(date +%s.%N)
if [ $rc != 0 ] || ! grep -q '^PEER done' "$out/console.log"; then
	echo "12-hackbench-peer: the boot failed (qemu exit $rc); console: $out/console.log" >&2
	tail -n 5 "$out/console.log" | tr -cd '[:print:]\n' >&2
	exit 1
fi

# Per run: "LABEL own guest" (own: the program's figure; guest: fork to reap).
tr -d '\r' <"$out/console.log" | awk '
	/^Time: / { own = $2 }
	/METRIC / && / name=time / { for (i = 1; i <= NF; i++) if ($i ~ /^median=/) own = substr($i, 8) }
	/^PEER label=/ {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		if (f["status"] != 0) { print "FAILED", f["label"], f["status"]; exit }
		print f["label"], own, f["guest_s"]; own = ""
	}' >"$out/runs"
if grep -q '^FAILED' "$out/runs" || [ "$(wc -l <"$out/runs")" -ne $((2 * runs)) ]; then
	echo "12-hackbench-peer: a run failed: $(head -n 3 "$out/runs"); console: $out/console.log" >&2
	exit 1
fi
awk -v runs="$runs" -v host="$(echo "$t1 $t0" | awk '{ printf "%.1f", $1 - $2 }')" '
	function median(list,   a, c, i, j, t) {
		c = split(substr(list, 2), a, " ")
		for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return (c % 2) ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
	}
	{ own[$1] = own[$1] " " $2; guest[$1] = guest[$1] " " $3 }
	END {
		printf "hackbench, 400 tasks (10 groups x 20 senders + 20 receivers), socketpairs, processes, 10 loops of 100 B;\n"
		printf "cloud-arm64 under TCG icount, one boot (%s s of host time), %d rounds, medians in guest seconds:\n", host, runs
		printf "   %-10s %10s %14s\n", "", "own time", "fork to reap"
		printf "   %-10s %10.3f %14.3f\n", "rt-tests", median(own["rt-tests"]), median(guest["rt-tests"])
		printf "   %-10s %10.3f %14.3f\n", "bootrig", median(own["bootrig"]), median(guest["bootrig"])
		printf "   %-10s %10.3f %14.3f   (bootrig / rt-tests)\n", "ratio",
			median(own["bootrig"]) / median(own["rt-tests"]), median(guest["bootrig"]) / median(guest["rt-tests"])
	}' "$out/runs"
