#!/bin/sh
# tests/t-judge.sh: the judge over real console logs.
#   1. the crash corpus (tests/fixtures/crash/*.log): every fixture's events,
#      kinds and titles exactly (build/tests/tools/judge-corpus), and the
#      corpus's size and coverage of every event kind;
#   2. `bootrig judge` on saved logs: each verdict with its exit status,
#      --format json, console.tlog times, printk times, usage and read errors;
#   3. two live boots of a real Debian kernel under QEMU (TCG) whose crash the
#      judge must name: the a64fx GICv3 oops + idle-task panic, and the VFS
#      panic of a kernel without a root;
#   4. syzkaller's own report logs (tests/fixtures/syzkaller): 96 crashes
#      titled as syzbot titles them, 5 clean logs clean (scripts/crash-titles.sh,
#      which make bench runs on the whole shared corpus).
. "$(dirname "$0")/lib.sh"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FIX=$TOP/tests/fixtures/crash
CORPUS=$TOP/build/tests/tools/judge-corpus
JGET=$TOP/build/tests/tools/jget
GENLOG=$TOP/build/tests/tools/br-genlog

# A fixture without its "# " header lines: what a console really printed.
body() { sed '/^# /d' "$FIX/$1.log" > "$T/$1.log"; }

# judge_is NAME LOG VERDICT EXIT [TEXT]: `bootrig judge LOG` says VERDICT,
# exits EXIT, and its text report contains TEXT.
judge_is() {
	name=$1 log=$2 want=$3 want_rc=$4 text=${5:-}
	"$BOOTRIG" judge "$log" > "$T/out" 2> "$T/err"
	rc=$?
	got=$(head -n 1 "$T/out" | sed 's/^[^:]*: \([A-Z_]*\).*/\1/')
	if [ "$got" != "$want" ] || [ "$rc" -ne "$want_rc" ]; then
		not_ok "$name" "verdict $got exit $rc, want $want exit $want_rc: $(head -n 1 "$T/out") $(cat "$T/err")"
	elif [ -n "$text" ] && ! grep -qF -- "$text" "$T/out"; then
		not_ok "$name" "no '$text' in: $(cat "$T/out")"
	else
		ok "$name"
	fi
}

# 1. The corpus, one TAP line per fixture (diagnostics kept).
"$CORPUS" "$FIX"/*.log > "$T/corpus.tap" 2>&1
corpus_rc=$?
seen=0 failed=0
while IFS= read -r l; do
	case $l in
	"ok "*) ok "corpus: ${l#* - }"; seen=$((seen + 1)) ;;
	"not ok "*) not_ok "corpus: ${l#* - }"; seen=$((seen + 1)) failed=$((failed + 1)) ;;
	"#"*) echo "$l" ;;
	esac
done < "$T/corpus.tap"
# the whole run: its plan met, and its exit status what its lines say (a
# crash half-way judges the rest of the fixtures never)
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$T/corpus.tap" | head -n 1)
want_rc=0
[ "$failed" -gt 0 ] && want_rc=1
if [ "${plan:-x}" = "$seen" ] && [ "$seen" -eq "$(ls "$FIX"/*.log | wc -l)" ] && [ "$corpus_rc" -eq "$want_rc" ]; then
	ok "corpus: judge-corpus ran to its end ($seen of plan ${plan:-none}, exit $corpus_rc)"
else not_ok "corpus: judge-corpus ran to its end" "plan ${plan:-none}, $seen results, exit $corpus_rc: $(tail -n 3 "$T/corpus.tap")"; fi
n=$(ls "$FIX"/*.log | wc -l)
if [ "$n" -ge 60 ]; then ok "corpus holds $n logs (>= 60)"; else not_ok "corpus holds $n logs" "want >= 60"; fi
missing=
for kind in panic oops bug warning kasan kfence kmsan kcsan ubsan lockdep rcu_stall \
	soft_lockup hard_lockup hung_task kmemleak reboot firmware_error truncated; do
	grep -q "^# EVENT: $kind |" "$FIX"/*.log || missing="$missing $kind"
done
clean=$(grep -l '^# EVENT: none' "$FIX"/*.log | wc -l)
if [ -z "$missing" ] && [ "$clean" -ge 6 ]; then
	ok "corpus covers every event kind and has $clean clean logs"
else
	not_ok "corpus coverage" "kinds missing:${missing:- none}; clean logs: $clean"
fi

# 2. `bootrig judge` on saved logs.
body boot-a64fx-cloud-arm64
judge_is "a64fx oops then idle-task panic: PANIC, both events" "$T/boot-a64fx-cloud-arm64.log" \
	PANIC 2 "Internal error in has_useable_gicv3_cpuif (+1 more events)"
grep -qF "2. panic (fatal), line 55: kernel panic: Attempted to kill the idle task!" "$T/out" &&
	grep -qF "| pc : has_useable_gicv3_cpuif+0x3c/0x84" "$T/out"
check "the text report lists the panic and the oops' excerpt" test $? -eq 0

"$BOOTRIG" judge --format json "$T/boot-a64fx-cloud-arm64.log" > "$T/a64fx.json"
check "--format json: PANIC, exit_code 2" test "$("$JGET" "$T/a64fx.json" verdict) $("$JGET" "$T/a64fx.json" exit_code)" = "PANIC 2"
check "--format json: two events, oops then panic, with the function" test \
	"$("$JGET" "$T/a64fx.json" events.#) $("$JGET" "$T/a64fx.json" events.0.kind) $("$JGET" "$T/a64fx.json" events.1.kind) $("$JGET" "$T/a64fx.json" events.0.function)" = \
	"2 oops panic has_useable_gicv3_cpuif"
check "printk times: stages.kernel is the banner's printk time" test \
	"$("$JGET" "$T/a64fx.json" times) $("$JGET" "$T/a64fx.json" stages.kernel)" = "printk 0.0"

"$GENLOG" -o "$T/pass.log" > /dev/null
judge_is "a full protocol run that powers off: PASS" "$T/pass.log" PASS 0
# The same run with a WARNING spliced in after the kernel banner (cut before its
# stack: syzbot's "WARNING in corrupted").
body doc-warning-module-put
awk -v w="$T/doc-warning-module-put.log" '{ print } /Linux version/ { while ((getline l < w) > 0) print l }' \
	"$T/pass.log" > "$T/warn.log"
judge_is "a clean run with a WARNING: FAIL, the WARNING named" "$T/warn.log" FAIL 1 \
	"kernel reported: WARNING in corrupted"
sed '/END tests=/,$d' "$T/pass.log" > "$T/cut.log"
judge_is "a run whose console stops mid-results: HANG" "$T/cut.log" HANG 2 \
	"the console ended in the results stage"
sed 's/status=PASS ms=812/status=FAIL reason=exit%203 ms=812/' "$T/pass.log" > "$T/bad.log"
judge_is "a record whose CRC no longer matches: FAIL" "$T/bad.log" FAIL 1 "corrupt"
body clean-boot-amd64
judge_is "a clean kernel boot without bootrig's init: BOOT_FAIL" "$T/clean-boot-amd64.log" BOOT_FAIL 2 \
	"the kernel never reached the init (no BEGIN record)"
body boot-uboot-bad-image-arm64
judge_is "U-Boot refusing the image: BOOT_FAIL with the firmware's words" \
	"$T/boot-uboot-bad-image-arm64.log" BOOT_FAIL 2 "firmware: Bad Linux ARM64 Image magic!"
: > "$T/empty.log"
judge_is "an empty log: BOOT_FAIL, no console output" "$T/empty.log" BOOT_FAIL 2 "no console output"
body boot-reboot-cloud-arm64
judge_is "a second kernel banner: PANIC with the unexpected reboot listed" \
	"$T/boot-reboot-cloud-arm64.log" PANIC 2 "reboot (fatal), line 38: unexpected kernel reboot"

# console.tlog: host times from the stamps, stages at the banner's and BEGIN's stamps.
awk '{ printf "[%011.6f] %s\n", NR * 0.25, $0 }' "$T/pass.log" > "$T/console.tlog"
"$BOOTRIG" judge --format json "$T/console.tlog" > "$T/tlog.json"
check "console.tlog: PASS with host times (kernel 0.25 s, init 2.0 s)" test \
	"$("$JGET" "$T/tlog.json" verdict) $("$JGET" "$T/tlog.json" times) $("$JGET" "$T/tlog.json" stages.kernel) $("$JGET" "$T/tlog.json" stages.init)" = \
	"PASS tlog 0.25 2.0"
printf 'no kernel here\njust text\n' > "$T/plain.log"
"$BOOTRIG" judge --format json "$T/plain.log" > "$T/plain.json"
check "a log without times: times none, stage times null" test \
	"$("$JGET" "$T/plain.json" times) $("$JGET" "$T/plain.json" stages)" = 'none {"firmware":null}'

"$BOOTRIG" judge "$T/does-not-exist.log" > /dev/null 2>&1
check "a missing log exits 66" test $? -eq 66
"$BOOTRIG" judge "$T" > /dev/null 2>&1
check "an unreadable log (a directory) exits 65" test $? -eq 65
"$BOOTRIG" judge > /dev/null 2>&1
check "no log: usage, exit 64" test $? -eq 64
"$BOOTRIG" judge --format xml "$T/pass.log" > /dev/null 2>&1
check "--format xml: usage, exit 64" test $? -eq 64
"$BOOTRIG" judge --help > "$T/help" 2>&1 && grep -q -- "--format text|json" "$T/help"
check "--help prints the options from the table" test $? -eq 0

# 3. Live boots of a real kernel (TCG). A kernel that panicked early may not
# reboot (the a64fx one spins), so QEMU is stopped once the panic has ended,
# or after 120 s at most; the judge then reads what the console printed.
boot_until_panic() {
	log=$1
	shift
	qemu-system-aarch64 -M virt -accel tcg -m 512 -nographic -no-reboot "$@" \
		< /dev/null > "$log" 2>&1 &
	qpid=$!
	waited=0
	while kill -0 "$qpid" 2> /dev/null && [ "$waited" -lt 120 ] &&
		! grep -q -- '---\[ end Kernel panic' "$log"; do
		sleep 1
		waited=$((waited + 1))
	done
	kill "$qpid" 2> /dev/null
	wait "$qpid" 2> /dev/null
}
kernel=$(kernel_path cloud-arm64 2>/dev/null)
if [ ! -s "$kernel" ] || ! command -v qemu-system-aarch64 > /dev/null; then
	# a fetch that failed is a failure, not a smaller test
	not_ok "live a64fx boot" "no cloud-arm64 kernel or qemu-system-aarch64 (scripts/fetch-kernels.sh, install-deps.sh)"
	not_ok "live boot without root" "no cloud-arm64 kernel or qemu-system-aarch64"
else
	boot_until_panic "$T/live-a64fx.log" -cpu a64fx -kernel "$kernel" \
		-append 'console=ttyAMA0 earlycon panic=-1'
	judge_is "live boot, -cpu a64fx (GICv2): PANIC naming the GICv3 probe oops" "$T/live-a64fx.log" PANIC 2 \
		"Internal error in has_useable_gicv3_cpuif (+1 more events)"
	boot_until_panic "$T/live-vfs.log" -cpu cortex-a57 -kernel "$kernel" -append 'console=ttyAMA0 panic=-1'
	judge_is "live boot without initramfs or root: PANIC, VFS panic" "$T/live-vfs.log" PANIC 2 \
		"kernel panic: VFS: Unable to mount root fs on unknown-block(NUM,NUM)"
fi

# 4. A real `bootrig run` (libvirt, TCG) of the cloud-arm64 kernel with
# bootrig's initramfs: `bootrig judge` over its saved console.tlog gives the
# run's own verdict and stage times (to the microsecond the tlog keeps), and
# over console.log the same verdict.
# syzkaller's own report logs (tests/fixtures/syzkaller/README.md): each
# crash found and titled as syzbot titles it, each clean log clean, as
# scripts/crash-titles.sh counts them (and it counts a miss: a log whose
# TITLE is changed is not syzbot's title any more)
syz=$TOP/tests/fixtures/syzkaller/logs
out=$(sh "$TOP/scripts/crash-titles.sh" "$syz" "$BOOTRIG" 2>&1)
check "syzkaller's logs: 96 crashes found and titled as syzbot does, 5 clean logs clean" test \
	"$(printf '%s\n' "$out" | sed -n 's/^\(found\|clean\|titles\): \([0-9]* of [0-9]*\).*/\2/p' | tr '\n' ,)" = \
	"96 of 96,5 of 5,96 of 96,"
mkdir -p "$T/syz" && cp "$syz"/* "$T/syz/" && sed -i '1,/^$/s/^TITLE: \(.*\)/TITLE: \1 in nowhere/' "$T/syz/44"
out=$(sh "$TOP/scripts/crash-titles.sh" "$T/syz" "$BOOTRIG" 2>&1)
check "crash-titles.sh counts a title that is not syzbot's as a miss" test \
	"$(printf '%s\n' "$out" | sed -n 's/^titles: \([0-9]* of [0-9]*\).*/\1/p')" = "95 of 96"

if [ ! -s "$kernel" ] || [ ! -d "$TOP/build/guest/aarch64" ]; then
	not_ok "judge of a bootrig run's saved console" "no cloud-arm64 kernel or guest binaries (make all)"
else
	"$BOOTRIG" build --kernel "$kernel" -o "$T/img.cpio.gz" > "$T/build.out" 2>&1 &&
		timeout 600 "$BOOTRIG" run --kernel "$kernel" --initramfs "$T/img.cpio.gz" \
			-o "$T/res" > "$T/run.out" 2>&1
	boot=$(dirname "$(find "$T/res" -name result.json | head -n 1)")
	if [ ! -f "$boot/result.json" ]; then
		not_ok "judge of a bootrig run's saved console" "no result.json: $(tail -n 3 "$T/run.out" "$T/build.out")"
	else
		"$BOOTRIG" judge --format json "$boot/console.tlog" > "$T/saved.json"
		"$BOOTRIG" judge "$boot/console.log" > "$T/saved.txt"
		stages() { "$JGET" "$1" stages | tr '{},' '\n\n\n' | awk -F: 'NF == 2 { printf "%s=%.6f ", $1, $2 }'; }
		run_v=$("$JGET" "$boot/result.json" verdict)
		check "bootrig judge console.tlog: the run's verdict ($run_v) and stage times" test \
			"$("$JGET" "$T/saved.json" verdict) $(stages "$T/saved.json")" = "$run_v $(stages "$boot/result.json")"
		check "bootrig judge console.log: the run's verdict" test \
			"$(head -n 1 "$T/saved.txt" | sed 's/^[^:]*: \([A-Z_]*\).*/\1/')" = "$run_v"
	fi
fi
