#!/bin/sh
# t-provoke.sh: `bootrig run --provoke KIND` on real Debian kernels: each
# kind makes the kernel print its report from bootrig's module
# (initramfs/provoke/, built against Debian's linux-headers by
# scripts/build-provoke.sh), and the judge must give the verdict, the
# syzbot-style title and the guilty function listed below, or report the
# kind unsupported with the reason listed (so that an unsupported kind
# cannot hide a regression: which kinds each kernel cannot do is part of
# the expectation). Every kind on amd64 and arm64; on armmp-lpae the kinds
# whose report arm prints in its own format. One `bootrig run` per kernel,
# two boots at once. PROVOKE_RESULTS=DIR keeps the results there.
. "$(dirname "$0")/lib.sh"
set -u

tmp=${PROVOKE_RESULTS:-}
if [ -z "$tmp" ]; then
	tmp=$(mktemp -d /tmp/t-provoke.XXXXXX)
	trap 'rm -rf "$tmp"' EXIT
fi
mkdir -p "$tmp"

# FLAVOURS KIND VERDICT FUNCTION TITLE   (FUNCTION "-": the title names none)
# FLAVOURS KIND unsupported - REASON     (REASON: a part of result.json's provoke.reason)
# FLAVOURS: the kernels (comma-separated) the line holds for
# rcu-stall: amd64's preemptible RCU lets one CPU stall (a reader holds the
# grace period); arm64's is not preemptible, and these guests have one CPU.
# A stall is titled by the syscall its stack entered (syzkaller's anchor):
# amd64's stack has __do_sys_finit_module ("finit_module"), arm64's only
# __arm64_sys_finit_module, whose one stripped prefix leaves "sys_finit_module".
cat >"$tmp/expected" <<'END'
amd64,arm64,armmp-lpae bug PANIC provoke_bug kernel BUG in provoke_bug
amd64,arm64,armmp-lpae warning FAIL provoke_warning WARNING in provoke_warning
amd64,arm64,armmp-lpae null PANIC provoke_null BUG: unable to handle kernel NULL pointer dereference in provoke_null
amd64,arm64,armmp-lpae bad-paging PANIC provoke_bad_paging BUG: unable to handle kernel paging request in provoke_bad_paging
amd64 gpf PANIC provoke_gpf general protection fault in provoke_gpf
amd64 undef PANIC provoke_undef invalid opcode in provoke_undef
amd64 divide PANIC provoke_divide divide error in provoke_divide
amd64 soft-lockup FAIL finit_module BUG: soft lockup in finit_module
arm64 soft-lockup FAIL sys_finit_module BUG: soft lockup in sys_finit_module
amd64 hard-lockup unsupported - no NMI watchdog: writing 1 to /proc/sys/kernel/nmi_watchdog: ENOTSUPP
amd64,arm64 hung-task FAIL provoke_hung_task INFO: task hung in provoke_hung_task
amd64 rcu-stall FAIL finit_module INFO: rcu detected stall in finit_module
arm64 rcu-stall unsupported - non-preemptible RCU (CONFIG_PREEMPT_RCU is not set) on one CPU
amd64,arm64 sleep-atomic unsupported - CONFIG_DEBUG_ATOMIC_SLEEP is not set
amd64,arm64 sched-atomic FAIL provoke_sched_atomic BUG: scheduling while atomic in provoke_sched_atomic
amd64 stack-overflow PANIC finit_module BUG: stack guard page was hit in finit_module
amd64,arm64 refcount FAIL provoke_put_underflow WARNING: refcount bug in provoke_put_underflow
amd64,arm64 list-corruption PANIC provoke_list_corruption BUG: corrupted list in provoke_list_corruption
amd64,arm64 usercopy PANIC provoke_copy_exposure BUG: bad usercopy in provoke_copy_exposure
amd64,arm64 double-free FAIL provoke_double_free BUG: Object already free
amd64,arm64,armmp-lpae panic PANIC - kernel panic: provoke: panic requested
amd64,arm64 sysrq-c PANIC - kernel panic: sysrq triggered crash
arm64 gpf unsupported - x86-64 only
arm64 undef PANIC provoke_undef Internal error in provoke_undef
arm64,armmp-lpae divide unsupported - integer division by zero does not trap on this arch
arm64 hard-lockup unsupported - no NMI watchdog: writing 1 to /proc/sys/kernel/nmi_watchdog
arm64 stack-overflow PANIC provoke_recurse kernel stack overflow in provoke_recurse
armmp-lpae undef PANIC provoke_undef Internal error in provoke_undef
END

# for_flavour FLAVOUR: the expectation lines of FLAVOUR, it first.
for_flavour() { awk -v f="$1" '("," $1 ",") ~ ("," f ",") { $1 = f; print }' "$tmp/expected"; }

# check_kind FLAVOUR KIND VERDICT FUNCTION TITLE...: one boot's result.json.
check_kind() {
	flavour=$1 kind=$2 verdict=$3 fn=$4
	shift 4
	want=$*
	r=$(echo "$tmp/$flavour/$flavour".vmlinuz-*/"$kind"/1/result.json)
	if [ ! -f "$r" ]; then
		not_ok "$flavour $kind: a result" "no $r"
		return
	fi
	if [ "$verdict" = unsupported ]; then
		status=$("$JGET" "$r" provoke.status)
		reason=$("$JGET" "$r" provoke.reason)
		case "$status:$reason" in
		"unsupported:"*"$want"*) ok "$flavour $kind: unsupported ($reason)" ;;
		*) not_ok "$flavour $kind: unsupported ($want)" \
			"provoke $status: $reason; verdict $("$JGET" "$r" verdict): $("$JGET" "$r" reason)" ;;
		esac
		expect "$flavour $kind: PASS, the reason says unsupported" "$r" verdict PASS
		return
	fi
	got=$("$JGET" "$r" verdict)/$("$JGET" "$r" events.0.title)/$("$JGET" "$r" events.0.function)
	[ "$fn" = - ] && fn=
	if [ "$got" = "$verdict/$want/$fn" ]; then ok "$flavour $kind: $verdict, $want"
	else not_ok "$flavour $kind: $verdict, $want" "got $got (reason: $("$JGET" "$r" reason))"; fi
}

for flavour in amd64 arm64 armmp-lpae; do
	for_flavour "$flavour" >"$tmp/expected-$flavour"
	if ! sh "$TOP/scripts/build-provoke.sh" "$flavour" >"$tmp/build-$flavour.log" 2>&1; then
		not_ok "$flavour: scripts/build-provoke.sh builds the module" "$(tail -n 5 "$tmp/build-$flavour.log")"
		continue
	fi
	ok "$flavour: scripts/build-provoke.sh builds the module"
	k=$(kernel_path "$flavour")
	# shellcheck disable=SC2046
	run "$flavour" --kernel "$k" $(awk '{ printf " --provoke %s", $2 }' "$tmp/expected-$flavour") -j 2
	case $rc in
	1 | 2) ok "$flavour: bootrig run --provoke exits with the worst verdict's status ($rc)" ;;
	*) not_ok "$flavour: bootrig run --provoke exits 1 or 2" "exit $rc: $(tail -n 5 "$tmp/$flavour.err")" ;;
	esac
	while read -r f kind verdict fn title; do
		check_kind "$f" "$kind" "$verdict" "$fn" "$title"
	done <"$tmp/expected-$flavour"
	no_qemu_left "$pid" && ok "$flavour: no QEMU left" || not_ok "$flavour: no QEMU left"
done

# Crashes as identities over kernels (history --crashes): the arm64
# kernel's provoked boots (every kind a variant, each crash its title) and
# a boot of another kernel of the same target (cloud-arm64, no test) in one
# database: the warning's title on 1 kernel, open. Then a third kernel
# (6.1.0-47-cloud-arm64) runs the warning variant's tests without the
# provocation (--variant warning=): the warning is fixed, the kinds that
# kernel did not run stay open.
A64=$(echo "$tmp/arm64/arm64".vmlinuz-*)
K47=$(sh "$TOP/scripts/fetch-kernels.sh" --version 6.1.0-47 cloud-arm64 2>/dev/null | awk '{print $2}')
if [ -d "$A64" ] && [ -f "$K47" ]; then
	D=$tmp/crashes.db
	run plain --kernel "$(kernel_path cloud-arm64)" --append bootrig.only= --db "$D"
	"$BOOTRIG" import --db "$D" "$tmp/arm64" >/dev/null 2>&1
	"$BOOTRIG" history --db "$D" --crashes >"$tmp/cr1.txt" 2>&1
	crc=$?
	sed 's/^/# /' "$tmp/cr1.txt"
	line=$(grep -E ' WARNING in provoke_warning$' "$tmp/cr1.txt")
	if [ $crc = 0 ] && echo "$line" | grep -Eq '^open +warning +1 +1 +6\.1\.[0-9-]+-arm64 +6\.1\.[0-9-]+-arm64 +WARNING in provoke_warning$' &&
	   grep -q '^crashes in .*over 2 kernels' "$tmp/cr1.txt"; then
		ok "history --crashes: the provoked warning's title, 1 boot, 1 kernel, open (2 kernels)"
	else not_ok "history --crashes: the provoked warning, open" "exit $crc: $line"; fi
	run fixed --kernel "$K47" --variant warning=bootrig.only= --db "$D"
	"$BOOTRIG" history --db "$D" --crashes --format json >"$tmp/cr2.json" 2>&1
	st=$(jq -r '[.crashes[] | select(.title == "WARNING in provoke_warning") | .status] | join(",")' "$tmp/cr2.json")
	bug=$(jq -r '[.crashes[] | select(.title == "kernel BUG in provoke_bug") | .status] | join(",")' "$tmp/cr2.json")
	if [ "$st" = fixed ] && [ "$bug" = open ] && [ "$(jq '.kernels | length' "$tmp/cr2.json")" = 3 ]; then
		ok "history --crashes: a third kernel runs the warning's tests without it: fixed; the bug it did not run stays open"
	else not_ok "history --crashes: fixed after a third kernel" "warning '$st', bug '$bug'"; fi
else
	not_ok "history --crashes on real boots: the arm64 boots and 6.1.0-47-cloud-arm64" "no $A64 or $K47"
fi

# Usage: an unknown kind is refused, `list` lists them, --variant excludes it.
"$BOOTRIG" run --kernel x --provoke nosuch -o "$tmp/u" >"$tmp/u.out" 2>&1
check "an unknown kind: exit 64" [ $? = 64 ]
check "an unknown kind: the kinds listed" grep -q 'kinds: bug, warning, null' "$tmp/u.out"
"$BOOTRIG" run --provoke list >"$tmp/l.out" 2>&1
check "--provoke list: exit 0, every kind" grep -q 'sysrq-c, flaky-panic$' "$tmp/l.out"
"$BOOTRIG" run --kernel x --provoke bug --variant a=b -o "$tmp/u" >"$tmp/v.out" 2>&1
check "--provoke with --variant: exit 64" [ $? = 64 ]
