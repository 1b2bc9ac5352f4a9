#!/bin/sh
# 35-hosts: what a libvirt daemon's host costs over the embedded driver.
#   One real libvirtd on loopback TCP (tests/libvirtd-host.sh: test-only,
#   auth_tcp "none", in a mount namespace that hides our files from it, so
#   every file reaches it as an upload), then:
#   1. upload rate: a fresh file of BENCH_HOSTS_MB (default 64) MiB of
#      random bytes, booted as the initramfs of the amd64 kernel on a fresh
#      pool: bootrig's own "uploaded ... MB/s" line for it (virStorageVolUpload
#      over a virStream; that boot's verdict does not matter);
#   2. the amd64 smoke boot (TCG, its initramfs built once beforehand) N
#      times through qemu+tcp://127.0.0.1:PORT/system (files already
#      uploaded) and N times through the embedded driver, alternated: median
#      wall time of `bootrig run` each, and the ratio tcp/embedded.
# BENCH_HOSTS_N changes N (default 3).
set -u
cd "$(dirname "$0")/../.."
. scripts/bench-lib.sh
. tests/libvirtd-host.sh

n=${BENCH_HOSTS_N:-3}
mb=${BENCH_HOSTS_MB:-64}
out=$(mktemp -d /tmp/bench-hosts.XXXXXX)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/bootrig
port=$((18000 + $$ % 1000))
uri=qemu+tcp://127.0.0.1:$port/system
trap '[ -s "$out/d/pid" ] && kill "$(cat "$out/d/pid")"; rm -rf "$out"' EXIT
kernel=$(bench_kernel amd64)
bootrig=build/bootrig
[ -x "$bootrig" ] || { echo "35-hosts: run make first" >&2; exit 1; }
mkdir -p "$out/d" "$out/r"
"$bootrig" build --kernel "$kernel" --suite smoke -o "$out/r/smoke.img" >/dev/null ||
	{ echo "35-hosts: bootrig build failed" >&2; exit 1; }
start_daemon "$out/d" "$port" "$cache $out/r" ||
	{ echo "35-hosts: libvirtd did not start: $(tail -n 3 "$out/d/out")" >&2; exit 1; }

# 1. upload rate
head -c $((mb * 1048576)) /dev/urandom >"$out/r/big.img"
"$bootrig" run --kernel "$kernel" --initramfs "$out/r/big.img" --connect "$uri" --timeout 20 \
	-o "$out/r/up" >/dev/null 2>"$out/up.err"
rate=$(sed -n 's/^bootrig: host .*: uploaded .*big.img as .* bytes, \([0-9.]*\) MB\/s)$/\1/p' "$out/up.err")
[ -n "$rate" ] || { echo "35-hosts: no upload line: $(tail -n 3 "$out/up.err")" >&2; exit 1; }
printf '   upload: %d MiB of random bytes into the pool: %s MB/s\n' "$mb" "$rate"

# 2. a boot through qemu+tcp against the embedded driver
boot() {
	rm -rf "$out/r/b"
	t0=$(now)
	"$bootrig" run --kernel "$kernel" --initramfs "$out/r/smoke.img" ${1:+--connect "$1"} \
		-o "$out/r/b" >/dev/null 2>"$out/b.err"
	rc=$?
	t1=$(now)
	[ $rc = 0 ] || { echo "35-hosts: bootrig run exited $rc: $(tail -n 2 "$out/b.err")" >&2; return 1; }
	echo "$t1 - $t0" | bc -l
}
boot "$uri" >/dev/null || exit 1     # uploads the kernel and image once
: >"$out/tcp" && : >"$out/embed"
for _ in $(seq "$n"); do
	boot "$uri" >>"$out/tcp" || exit 1
	boot "" >>"$out/embed" || exit 1
done
tcp=$(median <"$out/tcp")
embed=$(median <"$out/embed")
printf '   amd64 smoke boot, median of %d: qemu+tcp %.2f s, embedded %.2f s, ratio tcp/embedded %.2f\n' \
	"$n" "$tcp" "$embed" "$(echo "$tcp / $embed" | bc -l)"
