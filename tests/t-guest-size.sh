#!/bin/sh
# t-guest-size.sh: the guest binaries stay small: each init <= 32 KiB, all
# test binaries of one ABI (probe included) <= 416 KiB together, every
# file static and stripped. Sizes are printed for the record. (The budget
# was 128 KiB until adaptive sampling: its stopping rule and clock sizing
# add about 1.3 KB to each of the 12 binaries, 138 KB for aarch64_ilp32,
# the largest; the image they make stays about 80 KiB compressed. It was
# 144 KiB until the profile pass (issue 31): its code (sampling, folding,
# symbol tables, its drain thread: about 9 KB a binary) and the symbol
# table each test binary now keeps (4-8 KB: the profile names its
# functions; on arm and arm64 half of it is mapping symbols) made 347 KiB
# for arm, the largest; the cloud-arm64 smoke image is 68 KiB compressed.
# It was 384 KiB until perf stat's counters (issue 44): the counting run
# and its table of 16 events, about 1.7 KB a binary, made 397,952 bytes
# for arm.)
. "$(dirname "$0")/lib.sh"
set -u

G=$TOP/build/guest
for abi in aarch64 x86_64 arm; do
	f=$G/$abi/init
	if [ ! -f "$f" ]; then not_ok "init for $abi" "missing $f"; continue; fi
	size=$(stat -c %s "$f")
	echo "# $abi/init: $size bytes"
	if [ "$size" -le 32768 ]; then ok "$abi init is $size bytes (<= 32 KiB)"
	else not_ok "$abi init <= 32 KiB" "$size bytes"; fi
done
for abi in x86_64 x32 i386 aarch64 aarch64_ilp32 arm; do
	total=0 files=0
	for f in "$G/$abi"/*; do
		[ -f "$f" ] && [ "$(basename "$f")" != init ] || continue
		total=$((total + $(stat -c %s "$f"))) files=$((files + 1))
	done
	echo "# $abi: $files binaries, $total bytes"
	if [ "$files" -ge 2 ] && [ "$total" -le 425984 ]; then ok "$abi test binaries: $files files, $total bytes (<= 416 KiB)"
	else not_ok "$abi test binaries <= 416 KiB" "$files files, $total bytes"; fi
done
