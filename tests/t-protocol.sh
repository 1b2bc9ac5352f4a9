#!/bin/sh
# t-protocol.sh: the protocol decoder end to end through its test tools:
# br-decode over real console logs of Debian kernels (a full run of our
# init on cloud-arm64 and cloud-amd64, and a kernel that panics before any
# init), and over
# logs br-genlog writes with and without serial-console damage, where
# nothing decoded may differ from what was sent.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1

decode=build/tests/tools/br-decode
genlog=build/tests/tools/br-genlog
seeds=tests/fuzz/seeds/common
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-protocol.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=detect_leaks=1

for tool in "$decode" "$genlog"; do
	[ -x "$tool" ] || { not_ok "$tool is built" "run make unit"; exit 0; }
done

# A real boot of our init on the Debian cloud-arm64 kernel: 23 records,
# BEGIN..END, nothing wrong.
"$decode" "$seeds/real-cloud-arm64-guest.log" >"$tmp/guest.out" 2>&1
rc=$?
summary=$(tail -n 1 "$tmp/guest.out")
if [ "$rc" -eq 0 ] && [ "$summary" = "# records=23 corrupt=0 repaired=0 lost=0 duplicate=0 reordered=0 version=0 unknown_kind=0 count_mismatch=0 truncated=0 restart=0 after_end=0 duplicate_metric=0 begin=1 end=1" ]; then
	ok "real arm64 guest log: 23 records, BEGIN..END, no problem"
else
	not_ok "real arm64 guest log: 23 records, BEGIN..END, no problem" "exit $rc: $summary"
fi
line=$(grep '^7 METRIC' "$tmp/guest.out")
case $line in
"7 METRIC abi=aarch64 test=lat_syscall name=null unit=us better=lower n=5 median=34.9151 "*"samples=25.3348,58.2392,46.1060,34.3800,34.9151 iters=256 counters=unavailable")
	ok "real arm64 guest log: METRIC fields decoded" ;;
*) not_ok "real arm64 guest log: METRIC fields decoded" "got: $line" ;;
esac
if grep -q '^1 SYSINFO .*cmdline=console=ttyAMA0\\x20panic=-1$' "$tmp/guest.out"; then
	ok "real arm64 guest log: %XX escapes decoded"
else
	not_ok "real arm64 guest log: %XX escapes decoded" "$(grep '^1 SYSINFO' "$tmp/guest.out")"
fi

# The same on the Debian cloud-amd64 kernel (ttyS0: every line ends CRLF).
"$decode" "$seeds/real-cloud-amd64-guest.log" >"$tmp/amd64.out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && grep -q '^# records=23 corrupt=0 repaired=0 lost=0 .* begin=1 end=1$' "$tmp/amd64.out" &&
   grep -q '^3 ABI abi=x32 status=unsupported reason=ENOEXEC$' "$tmp/amd64.out"; then
	ok "real amd64 guest log (CRLF): 23 records, x32 unsupported"
else
	not_ok "real amd64 guest log (CRLF): 23 records, x32 unsupported" "exit $rc: $(tail -n 1 "$tmp/amd64.out")"
fi

# A kernel that panics before the init: no record, so not a good run.
"$decode" "$seeds/real-cloud-arm64-nofs-panic.log" >"$tmp/panic.out" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && grep -q '^# records=0 .* begin=0 end=0$' "$tmp/panic.out"; then
	ok "real kernel log without init: no record, exit 1"
else
	not_ok "real kernel log without init: no record, exit 1" "exit $rc: $(tail -n 1 "$tmp/panic.out")"
fi

# Clean generated runs: every record sent is decoded.
"$genlog" --kernel-log "$seeds/real-cloud-arm64-nofs-panic.log" --seed 5 \
	-o "$tmp/clean.log" >"$tmp/clean.gen" 2>&1
sent=$(awk '{ print $5 }' "$tmp/clean.gen")
"$decode" "$tmp/clean.log" >"$tmp/clean.out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && grep -q "^# records=$sent corrupt=0 repaired=0 lost=0 " "$tmp/clean.out"; then
	ok "generated clean run: all $sent records decoded"
else
	not_ok "generated clean run: all records decoded" "exit $rc, sent $sent: $(tail -n 1 "$tmp/clean.out")"
fi

# Damaged runs: cuts are repaired, damage is reported with line numbers,
# and every record decoded is one that was sent, byte for byte.
"$genlog" --kernel-log "$seeds/real-cloud-arm64-nofs-panic.log" --seed 11 --damage \
	--size 400000 --truth "$tmp/truth.log" -o "$tmp/damaged.log" >/dev/null 2>&1
"$decode" "$tmp/damaged.log" >"$tmp/damaged.out" 2>&1
rc=$?
"$decode" "$tmp/truth.log" >"$tmp/truth.out" 2>&1
repaired=$(tail -n 1 "$tmp/damaged.out" | sed -n 's/.* repaired=\([0-9]*\) .*/\1/p')
corrupt=$(tail -n 1 "$tmp/damaged.out" | sed -n 's/.* corrupt=\([0-9]*\) .*/\1/p')
if [ "$rc" -eq 1 ] && [ "${repaired:-0}" -gt 10 ] && [ "${corrupt:-0}" -gt 0 ]; then
	ok "generated damaged runs: $repaired records repaired, $corrupt corrupt reported, exit 1"
else
	not_ok "generated damaged runs: repairs and corruption reported" "exit $rc: $(tail -n 1 "$tmp/damaged.out")"
fi
grep -E '^[0-9]+ [A-Z]' "$tmp/truth.out" | sort -u >"$tmp/truth.set"
grep -E '^[0-9]+ [A-Z]' "$tmp/damaged.out" | sed 's/ (repaired)$//' | sort -u >"$tmp/damaged.set"
misread=$(comm -23 "$tmp/damaged.set" "$tmp/truth.set" | wc -l)
decoded=$(wc -l <"$tmp/damaged.set")
if [ "$misread" -eq 0 ] && [ "$decoded" -gt 100 ]; then
	ok "generated damaged runs: $decoded distinct records decoded, none differs from what was sent"
else
	not_ok "generated damaged runs: nothing misread" "$misread of $decoded decoded records were never sent"
fi
if grep -qE '^problem [0-9]+ corrupt (CRC mismatch|cut record never completed)' "$tmp/damaged.out"; then
	ok "generated damaged runs: problems carry line numbers"
else
	not_ok "generated damaged runs: problems carry line numbers" "$(grep -m 3 '^problem' "$tmp/damaged.out")"
fi

"$decode" "$tmp/does-not-exist" >/dev/null 2>&1
rc=$?
if [ "$rc" -eq 2 ]; then ok "br-decode: unreadable log exits 2"; else not_ok "br-decode: unreadable log exits 2" "exit $rc"; fi
