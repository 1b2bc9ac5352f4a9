#!/bin/sh
# t-run.sh: `bootrig run` through libvirt's embedded driver (no daemon) on
# real Debian kernels, each with the smoke initramfs bootrig builds itself:
# arm64 on cortex-a57 and on a64fx (virt, GICv3), armmp-lpae, amd64 with
# and without syscall.x32=y. Every boot must PASS with the right ABI table,
# lay its results out as runner/RESULTS.md says, and leave no QEMU behind.
# Also the command line's usage errors.
. "$(dirname "$0")/lib.sh"
set -u

tmp=$(mktemp -d /tmp/t-run.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

a64=$(kernel_path cloud-arm64)
arm=$(kernel_path armmp-lpae)
x86=$(kernel_path amd64)

# boot_dir RUN KERNEL_FILE_BASE VARIANT: the boot's results directory.
boot_dir() { echo "$tmp/$1/$2"-*/"$3/1"; }

# --- arm64 (cortex-a57) and armmp-lpae, two at once -------------------------
run a57 --kernel "$a64" --kernel "$arm" -j 2
if [ $rc = 0 ]; then ok "arm64 + armmp-lpae -j 2: exit 0"
else not_ok "arm64 + armmp-lpae -j 2: exit 0" "exit $rc: $(tail -n 5 "$tmp/a57.err")"; fi
d=$(boot_dir a57 cloud-arm64.vmlinuz default)
r=$d/result.json
expect "cortex-a57: PASS" "$r" verdict PASS
expect "cortex-a57: aarch64 ok" "$r" abis.aarch64.status ok
expect "cortex-a57: arm ok" "$r" abis.arm.status ok
expect "cortex-a57: aarch64_ilp32 unsupported" "$r" abis.aarch64_ilp32.status unsupported
expect "result.json: backend libvirt" "$r" backend libvirt
expect "result.json: accelerator tcg" "$r" accelerator tcg
expect "result.json: clock icount (the TCG default)" "$r" clock icount
expect "result.json: target arm64-virt" "$r" target arm64-virt
expect "result.json: boot 1, variant default" "$r" variant default
case $("$JGET" "$r" uri) in
"qemu:///embed?root="*) ok "result.json: the embedded driver's URI" ;;
*) not_ok "result.json: the embedded driver's URI" "uri: $("$JGET" "$r" uri)" ;;
esac
case $("$JGET" "$r" append) in
"console=ttyAMA0 panic=-1"*) ok "result.json: the command line with panic=-1" ;;
*) not_ok "result.json: the command line with panic=-1" "$("$JGET" "$r" append)" ;;
esac
if [ -n "$("$JGET" "$r" metrics.0.median)" ] && [ "$("$JGET" "$r" metrics.#)" -gt 0 ]; then
	ok "result.json: metrics with samples ($("$JGET" "$r" metrics.#))"
else not_ok "result.json: metrics with samples" "$(head -c 300 "$r")"; fi
# Adaptive sampling (issue 14): every metric says how many samples it took
# and the interval they reached; on icount most stop at the minimum.
nm=$("$JGET" "$r" metrics.#) bad="" at_min=0 i=0
while [ "$i" -lt "${nm:-0}" ]; do
	mn=$("$JGET" "$r" metrics.$i.n) ns=$("$JGET" "$r" metrics.$i.samples.#)
	ci=$("$JGET" "$r" metrics.$i.ci) tg=$("$JGET" "$r" metrics.$i.ci_target) st=$("$JGET" "$r" metrics.$i.stop)
	name=$("$JGET" "$r" metrics.$i.abi).$("$JGET" "$r" metrics.$i.name)
	if [ "$mn" != "$ns" ] || [ "$mn" -lt 3 ] || [ "$mn" -gt 5 ] || [ -z "$ci" ] || [ "$tg" != 1.0 ]; then
		bad="$bad $name(n=$mn samples=$ns ci=$ci target=$tg)"
	fi
	case $st in
	target) awk -v c="$ci" 'BEGIN { exit !(c <= 1) }' || bad="$bad $name(stop=target ci=$ci)" ;;
	max) [ "$mn" = 5 ] || bad="$bad $name(stop=max n=$mn)" ;;
	*) bad="$bad $name(stop=$st)" ;;
	esac
	[ "$mn" = 3 ] && at_min=$((at_min + 1))
	i=$((i + 1))
done
if [ "${nm:-0}" -gt 0 ] && [ -z "$bad" ]; then
	ok "result.json: every metric's n (3..5), its interval ci and ci_target 1, stop=target within it"
else not_ok "result.json: every metric's n, ci, ci_target and stop" "$bad"; fi
if [ $((2 * at_min)) -gt "${nm:-0}" ]; then ok "icount: $at_min of $nm metrics stopped at the minimum (3)"
else not_ok "icount: most metrics stop at the minimum" "$at_min of $nm at n=3"; fi
expect "result.json: the plan's min_samples" "$r" plan.min_samples 3
case $("$JGET" "$r" plan.clock_noise_ppm) in
0|[0-9]|[0-9][0-9]|[0-9][0-9][0-9]|1000) ok "result.json: the boot's clock measured quiet on icount" ;;
*) not_ok "result.json: the boot's clock measured quiet on icount" "noise $("$JGET" "$r" plan.clock_noise_ppm) ppm" ;;
esac
if grep -q "Linux version" "$d/console.log" && grep -q "@@BR 1 [0-9]* END " "$d/console.log"; then
	ok "console.log: the whole console, kernel to END"
else not_ok "console.log: the whole console, kernel to END" "$(tail -n 3 "$d/console.log")"; fi
lines_log=$(wc -l <"$d/console.log")
lines_tlog=$(wc -l <"$d/console.tlog")
bad_tlog=$(grep -cvE '^\[[0-9]{4}\.[0-9]{6}\] ' "$d/console.tlog")
if [ "$lines_log" = "$lines_tlog" ] && [ "$bad_tlog" = 0 ]; then
	ok "console.tlog: one stamped line per console line ($lines_tlog)"
else not_ok "console.tlog: one stamped line per console line" \
	"log $lines_log lines, tlog $lines_tlog, $bad_tlog unstamped"; fi
if grep -q "<memballoon model='none'/>" "$d/domain.xml" && grep -q "cortex-a57" "$d/domain.xml" &&
   ! grep -q "<interface" "$d/domain.xml"; then ok "domain.xml: minimal devices, the target's CPU"
else not_ok "domain.xml: minimal devices, the target's CPU" "$(cat "$d/domain.xml")"; fi
ls "$d"/*.tmp.* >/dev/null 2>&1 && not_ok "no temporary files left" "$(ls "$d")" ||
	ok "no temporary files left"
r=$(boot_dir a57 armmp-lpae.vmlinuz default)/result.json
expect "armmp-lpae: PASS" "$r" verdict PASS
expect "armmp-lpae: arm ok" "$r" abis.arm.status ok
if grep -q "armmp-lpae.*PASS.*arm=ok" "$tmp/a57.out"; then ok "summary table: kernel, verdict, ABIs"
else not_ok "summary table: kernel, verdict, ABIs" "$(cat "$tmp/a57.out")"; fi
check "no QEMU left after the arm runs" no_qemu_left "$pid"

# The icount clock: in domain.xml through libvirt's QEMU namespace, and
# on the command line libvirt gave QEMU (the embedded driver's log of it).
if grep -q "xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'" "$d/domain.xml" &&
   grep -q "<qemu:arg value='-icount'/>" "$d/domain.xml" &&
   grep -q "<qemu:arg value='shift=3,sleep=off'/>" "$d/domain.xml"; then
	ok "domain.xml: -icount shift=3,sleep=off as a qemu:arg"
else not_ok "domain.xml: -icount shift=3,sleep=off as a qemu:arg" "$(tail -n 8 "$d/domain.xml")"; fi
root=$("$JGET" "$r" uri | sed 's/.*root=//')
qlog=$(cat "$root/log/qemu/bootrig-$pid-"*.log 2>/dev/null | tr -d '\\\n')
if echo "$qlog" | grep -q -e '-accel tcg' && echo "$qlog" | grep -q -e '-icount shift=3,sleep=off'; then
	ok "QEMU ran with -accel tcg -icount shift=3,sleep=off"
else not_ok "QEMU ran with -icount" "$(ls "$root/log/qemu/" 2>&1 | tail -n 3)"; fi
# ... and deterministic (runner/backend.h): QEMU's -seed, the RTC at a fixed
# date on guest time (libvirt's own <clock>, -rtc on QEMU's command line).
if echo "$qlog" | grep -q -e '-seed 1' && echo "$qlog" | grep -q -e '-rtc base=2026-01-01T00:00:00,clock=vm' &&
   grep -q "<clock offset='absolute' start='1767225600'>" "$d/domain.xml"; then
	ok "QEMU ran with -seed 1 and -rtc base=2026-01-01T00:00:00,clock=vm"
else not_ok "QEMU ran with -seed 1 and a fixed RTC on guest time" "$(echo "$qlog" | grep -o -e '-seed [^ ]*' -e '-rtc [^ ]*')"; fi
expect "result.json: seed 1 (the default under icount)" "$r" seed 1

# --- arm64 on a64fx (virt, gic-version=3), on the wall clock ----------------
run a64fx --kernel "$a64" --target arm64-a64fx --clock wall
r=$(boot_dir a64fx cloud-arm64.vmlinuz default)/result.json
# The emulated a64fx's 256-byte cache lines exceed ARCH_DMA_MINALIGN: the
# kernel warns in arch_setup_dma_ops for each DMA device. The target lists
# that WARNING as a known issue (configs/targets.cfg), so the boot PASSes
# with the warnings kept as "expected" events.
expect "a64fx: PASS" "$r" verdict PASS
if grep -q '"expected": *true' "$r" && grep -q 'WARNING in arch_setup_dma_ops' "$r"; then
	ok "a64fx: the DMA WARNING is kept, marked expected"
else not_ok "a64fx: the DMA WARNING is kept, marked expected" "$("$JGET" "$r" events | head -c 300)"; fi
expect "a64fx: aarch64 ok" "$r" abis.aarch64.status ok
expect "a64fx: arm unsupported (no AArch32 at EL0)" "$r" abis.arm.status unsupported
if grep -q "<gic version='3'/>" "$(dirname "$r")/domain.xml" &&
   grep -q ">a64fx<" "$(dirname "$r")/domain.xml"; then ok "a64fx: domain.xml has GICv3 and the a64fx model"
else not_ok "a64fx: domain.xml has GICv3 and the a64fx model" "$(cat "$(dirname "$r")/domain.xml")"; fi
check "no QEMU left after a64fx" no_qemu_left "$pid"
expect "--clock wall: result.json clock wall" "$r" clock wall
grep -q '"seed": *null' "$r" && ok "--clock wall: result.json seed null" ||
	not_ok "--clock wall: result.json seed null" "$(grep '"seed"' "$r")"
if ! grep -q "qemu:" "$(dirname "$r")/domain.xml"; then ok "--clock wall: no -icount in domain.xml"
else not_ok "--clock wall: no -icount in domain.xml" "$(grep qemu: "$(dirname "$r")/domain.xml")"; fi

# --- the order of the boots: repeat by repeat, results where they were ------
# (an unreachable URI: every boot is written at once, in the plan's order)
run order --kernel "$a64" --variant a= --variant b= --repeat 2 --connect test:///no/such/file.xml
seq=$(sed -n 's/.*\[cloud-arm64[^ ]* \([ab]\) \([0-9]\)\] INFRA_ERROR.*/\1\2/p' "$tmp/order.err" | tr '\n' ' ')
if [ $rc = 125 ] && [ "$seq" = "a1 b1 a2 b2 " ]; then ok "boots run repeat by repeat: a/1 b/1 a/2 b/2"
else not_ok "boots run repeat by repeat" "exit $rc, order '$seq'"; fi
rows=$(sed -n 's/^cloud-arm64[^ ]* *\([ab]\) *\([0-9]\) .*/\1\2/p' "$tmp/order.out" | tr '\n' ' ')
n=$(ls -d "$tmp"/order/cloud-arm64*/[ab]/[12]/result.json 2>/dev/null | wc -l)
if [ "$rows" = "a1 a2 b1 b2 " ] && [ "$n" = 4 ]; then ok "summary by variant and boot; RESULTS/<kernel>/<variant>/<n>/"
else not_ok "summary order and result paths" "rows '$rows', $n result.json"; fi

# --- amd64, with and without syscall.x32=y ---------------------------------
run x86 --kernel "$x86" --variant default= --variant x32=syscall.x32=y -j 2
if [ $rc = 0 ]; then ok "amd64 two variants -j 2: exit 0"
else not_ok "amd64 two variants -j 2: exit 0" "exit $rc: $(tail -n 5 "$tmp/x86.err")"; fi
r=$(boot_dir x86 amd64.vmlinuz default)/result.json
expect "amd64: PASS" "$r" verdict PASS
expect "amd64: x86_64 ok" "$r" abis.x86_64.status ok
expect "amd64: i386 ok" "$r" abis.i386.status ok
expect "amd64: x32 unsupported by default" "$r" abis.x32.status unsupported
r=$(boot_dir x86 amd64.vmlinuz x32)/result.json
expect "amd64 syscall.x32=y: PASS" "$r" verdict PASS
expect "amd64 syscall.x32=y: x32 ok" "$r" abis.x32.status ok
expect "amd64 syscall.x32=y: variant recorded" "$r" variant x32
check "no QEMU left after amd64" no_qemu_left "$pid"

# --- every icount boot of a kernel is the same boot ---------------------------
# Two boots at once of one kernel (x86: its SMBIOS UUID fixed too, not the
# domain's): the same console, byte for byte; with --seed random, two that
# differ (KASLR, the RTC's date); --seed 007 goes to QEMU and result.json
# as 7 (QEMU reads a leading 0 as octal); --repeat N boots the seeds 1 to
# N, --seed A-B or a list one boot per seed, --seed boot boot n the seed n;
# compare counts each side's seeds and warns of a side of one seed.
run same --kernel "$x86" --repeat 2 -j 2 --seed 1
d1=$(boot_dir same amd64.vmlinuz default) d2=${d1%/1}/2
if [ $rc = 0 ] && [ -s "$d1/console.log" ] && cmp -s "$d1/console.log" "$d2/console.log"; then
	ok "icount: two boots of amd64 at once, the same console byte for byte ($(wc -c <"$d1/console.log") bytes)"
else not_ok "icount: two boots, the same console" "exit $rc; $(diff "$d1/console.log" "$d2/console.log" | head -n 4)"; fi
if grep -q "<qemu:arg value='type=1,uuid=b0071600-0000-4000-8000-000000000001'/>" "$d1/domain.xml"; then
	ok "x86 under icount: QEMU's SMBIOS UUID fixed in domain.xml"
else not_ok "x86 under icount: the SMBIOS UUID fixed" "$(grep qemu:arg "$d1/domain.xml")"; fi
run random --kernel "$x86" --repeat 2 -j 2 --seed random --append bootrig.only=
d1=$(boot_dir random amd64.vmlinuz default) d2=${d1%/1}/2
if [ $rc = 0 ] && [ -s "$d1/console.log" ] && ! cmp -s "$d1/console.log" "$d2/console.log" &&
   ! grep -q -e "-seed" -e "uuid=b0071600" "$d1/domain.xml"; then
	ok "--seed random: two boots that differ, no -seed"
else not_ok "--seed random: two boots that differ, no -seed" "exit $rc; $(grep -c . "$d1/console.log") lines"; fi
grep -q '"seed": *null' "$d1/result.json" && ok "--seed random: result.json seed null" ||
	not_ok "--seed random: result.json seed null" "$(grep '"seed"' "$d1/result.json")"
expect "--seed random: still the icount clock" "$d1/result.json" clock icount
run seven --kernel "$arm" --seed 007 --append bootrig.only=
d=$(boot_dir seven armmp-lpae.vmlinuz default)
if grep -q "<qemu:arg value='-seed'/>" "$d/domain.xml" && grep -q "<qemu:arg value='7'/>" "$d/domain.xml"; then
	ok "--seed 007: -seed 7 in domain.xml (QEMU would read 007 as octal)"
else not_ok "--seed 007: -seed 7 in domain.xml" "$(grep qemu:arg "$d/domain.xml")"; fi
expect "--seed 007: result.json seed 7" "$d/result.json" seed 7
# --repeat 2: seeds 1 and 2; --seed 6,9: two boots, seeds 6 and 9 (no test
# in the guest: quick)
run perboot --kernel "$arm" --repeat 2 -j 2 --append bootrig.only=
d=$(boot_dir perboot armmp-lpae.vmlinuz default)
seeds="$("$JGET" "$d/result.json" seed) $("$JGET" "${d%/1}/2/result.json" seed)"
if [ $rc = 0 ] && [ "$seeds" = "1 2" ] && grep -q "<qemu:arg value='2'/>" "${d%/1}/2/domain.xml"; then
	ok "--repeat 2: boot 1 has seed 1, boot 2 seed 2"
else not_ok "--repeat 2: seeds 1 and 2" "exit $rc, seeds '$seeds'"; fi
run list --kernel "$arm" -j 2 --seed 6,9 --append bootrig.only=
d=$(boot_dir list armmp-lpae.vmlinuz default)
seeds="$("$JGET" "$d/result.json" seed) $("$JGET" "${d%/1}/2/result.json" seed)"
if [ $rc = 0 ] && [ "$seeds" = "6 9" ] && [ ! -e "${d%/1}/3" ]; then
	ok "--seed 6,9: two boots, seeds 6 and 9"
else not_ok "--seed 6,9: two boots, seeds 6 and 9" "exit $rc, seeds '$seeds'"; fi
# compare: each side's seeds in its header; a side of one seed is warned of
"$BOOTRIG" compare "$tmp/same" "$tmp/perboot" >"$tmp/seeds.txt" 2>/dev/null
if grep -q "^CAND $tmp/perboot (n=2, 2 seeds) vs BASE $tmp/same (n=2, 1 seed)$" "$tmp/seeds.txt" &&
   grep -q "^warning: $tmp/same: its 2 passing boots ran one seed (1): .*p weighs nothing" "$tmp/seeds.txt" &&
   ! grep -q "warning: $tmp/perboot: .*one seed" "$tmp/seeds.txt"; then
	ok "compare: each side's seeds counted (2 seeds, 1 seed), the side of one seed warned of"
else not_ok "compare: the seeds of each side" "$(grep -e '(n=' -e seed "$tmp/seeds.txt")"; fi
"$BOOTRIG" compare "$tmp/same" "$tmp/perboot" --format json 2>/dev/null >"$tmp/seeds.json"
if [ "$("$JGET" "$tmp/seeds.json" sides.0.seeds) $("$JGET" "$tmp/seeds.json" sides.1.seeds)" = "1 2" ]; then
	ok "compare --format json: sides[].seeds 1 and 2"
else not_ok "compare --format json: sides[].seeds" "$(grep -o '"seeds[^,]*' "$tmp/seeds.json")"; fi
check "no QEMU left after the seeded runs" no_qemu_left "$pid"

# --- a figure does not move with the boot's schedule ---------------------------
# One kernel, one seed, three boots: as it is, after an idle second before
# the first test (bootrig.idle=1000), and printing every initcall during
# boot: every metric does the same work a sub-run (iters: calibration
# under icount is the fastest of 3 runs a step, doubling) and its figure
# moves by under 1 % (it moved by up to 9 %: cloud-arm64's arm fstat took
# 86 or 91 operations a sub-run, by what ran before it).
run sched --kernel "$a64" --seed 1 -j 2 --variant base= --variant idle=bootrig.idle=1000 \
	--variant loud="initcall_debug ignore_loglevel"
fig() { jq -r '.metrics[] | "\(.abi).\(.test).\(.name) \(.iters) \(.median)"' "$1/result.json" | sort; }
b=$(boot_dir sched cloud-arm64.vmlinuz base)
i=$(boot_dir sched cloud-arm64.vmlinuz idle)
l=$(boot_dir sched cloud-arm64.vmlinuz loud)
fig "$b" >"$tmp/sched.base"; fig "$i" >"$tmp/sched.idle"; fig "$l" >"$tmp/sched.loud"
n=$(wc -l <"$tmp/sched.base")
worst=$(join "$tmp/sched.base" "$tmp/sched.idle" | join - "$tmp/sched.loud" | awk '
	$2 != $4 || $2 != $6 { print "iters " $1; bad = 1; exit }
	{ for (k = 5; k <= 7; k += 2) { d = ($k - $3) / $3 * 100; d = d < 0 ? -d : d; if (d > w) { w = d; at = $1 } } }
	END { if (!bad) printf "%.2f %s\n", w, at }')
# when init began the tests (its LOG line), ms since boot: idle a second later
at() { sed -n 's/.*test=init text=tests%20start%20at%20\([0-9]*\)%20ms.*/\1/p' "$1/console.log" | head -n 1; }
tb=$(at "$b") ti=$(at "$i")
echo "# schedule: $n metrics, tests from ${tb:-?} ms and ${ti:-?} ms, the largest move $worst %"
if [ $rc -le 1 ] && [ "$n" -ge 12 ] && [ -n "$tb" ] && [ -n "$ti" ] && [ "$ti" -ge $((tb + 1000)) ] &&
	echo "$worst" | awk '$1 ~ /^[0-9.]+$/ && $1 < 1 { ok = 1 } END { exit !ok }'; then
	ok "one seed, a boot idle 1 s longer and one printing its initcalls: the same iters, every figure within 1 % ($worst)"
else not_ok "the figures do not move with the boot's schedule" "exit $rc, $n metrics: $worst"; fi

# --- a console flood -------------------------------------------------------------
# initcall_debug (shown by ignore_loglevel) prints two lines for each of the
# kernel's initcalls, about 100 KB, and bootrig.only= runs no test. The
# embedded driver's console is QEMU's serial log read as it grows: it must
# come whole and live, none of it recovered after the domain (a console
# stream over the pty lost up to 2.6 KB at QEMU's exit here), every line
# stamped in order in console.tlog.
run flood --kernel "$a64" --append "initcall_debug ignore_loglevel bootrig.only="
d=$(boot_dir flood cloud-arm64.vmlinuz default)
expect "initcall_debug flood: PASS" "$d/result.json" verdict PASS
rec=$("$JGET" "$d/result.json" console_recovered_bytes)
calls=$(grep -c "initcall .* returned" "$d/console.log")
if [ -z "$rec" ] && [ "${calls:-0}" -gt 500 ] && grep -q "reboot: Power down" "$d/console.log"; then
	ok "initcall_debug flood: console.log whole and live ($calls initcalls)"
else not_ok "initcall_debug flood: console.log whole and live" "$calls initcall lines, recovered '$rec'"; fi
if [ "$(wc -l <"$d/console.log")" = "$(wc -l <"$d/console.tlog")" ] &&
   awk '{ t = substr($1, 2) + 0; if (t < last) exit 1; last = t }' "$d/console.tlog"; then
	ok "initcall_debug flood: every line stamped, in order"
else not_ok "initcall_debug flood: every line stamped, in order" \
	"$(wc -l <"$d/console.log") lines, $(wc -l <"$d/console.tlog") stamped"; fi
check "no QEMU left after the flood" no_qemu_left "$pid"

# --- usage ---------------------------------------------------------------------
"$BOOTRIG" run --help >"$tmp/help" 2>&1
if [ $? = 0 ] && grep -q -- "--variant NAME=ARGS" "$tmp/help"; then ok "run --help: exit 0, the options"
else not_ok "run --help: exit 0, the options" "$(cat "$tmp/help")"; fi
"$BOOTRIG" run --kernel "$a64" >/dev/null 2>&1
rc=$?; [ $rc = 64 ] && ok "no -o: exit 64" || not_ok "no -o: exit 64" "exit $rc"
"$BOOTRIG" run --kernel "$a64" --connect qemu:///system --board b -o "$tmp/u" >/dev/null 2>&1
rc=$?; [ $rc = 64 ] && ok "--connect with --board: exit 64" || not_ok "--connect with --board: exit 64" "exit $rc"
"$BOOTRIG" run --kernel "$a64" --clock tsc -o "$tmp/u" >/dev/null 2>&1
rc=$?; [ $rc = 64 ] && ok "--clock tsc: exit 64" || not_ok "--clock tsc: exit 64" "exit $rc"
for s in x -1 1.5 18446744073709551616 '' boots 5-3 1, ,1 1-2-3 0-100000; do
	"$BOOTRIG" run --kernel "$a64" --seed "$s" -o "$tmp/u" >"$tmp/seed.err" 2>&1
	rc=$?
	if [ $rc = 64 ] && grep -q -- "--seed wants a number" "$tmp/seed.err"; then ok "--seed '$s': exit 64, what it wants"
	else not_ok "--seed '$s': exit 64" "exit $rc: $(head -n 2 "$tmp/seed.err")"; fi
done
"$BOOTRIG" run --kernel "$a64" --seed 3,3 -o "$tmp/u" >"$tmp/seed.err" 2>&1
rc=$?; if [ $rc = 64 ] && grep -q "names seed 3 twice" "$tmp/seed.err"; then ok "--seed 3,3: exit 64, seed 3 twice"
else not_ok "--seed 3,3: exit 64" "exit $rc: $(head -n 2 "$tmp/seed.err")"; fi
"$BOOTRIG" run --kernel "$a64" --seed 1-3 --repeat 2 -o "$tmp/u" >"$tmp/seed.err" 2>&1
rc=$?; if [ $rc = 64 ] && grep -q "names 3 seeds, one boot each, and --repeat asks for 2" "$tmp/seed.err"; then
	ok "--seed 1-3 --repeat 2: exit 64, the counts"
else not_ok "--seed 1-3 --repeat 2: exit 64" "exit $rc: $(head -n 2 "$tmp/seed.err")"; fi
"$BOOTRIG" run --kernel "$a64" --repeat 0 -o "$tmp/u" >/dev/null 2>&1
rc=$?; [ $rc = 64 ] && ok "--repeat 0: exit 64" || not_ok "--repeat 0: exit 64" "exit $rc"
"$BOOTRIG" run --kernel "$a64" --variant "a/b=x" -o "$tmp/u" >/dev/null 2>&1
rc=$?; [ $rc = 64 ] && ok "a variant name with '/': exit 64" || not_ok "a variant name with '/': exit 64" "exit $rc"
"$BOOTRIG" run --kernel "$tmp/missing" -o "$tmp/u" >/dev/null 2>&1
rc=$?; [ $rc = 65 ] && ok "a missing kernel: exit 65" || not_ok "a missing kernel: exit 65" "exit $rc"
