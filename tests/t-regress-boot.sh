#!/bin/sh
# t-regress-boot: a boot-time regression on a real tree, found as a kernel
# developer would find it. scripts/build-kunit-kernel.sh --slowinit builds,
# from linux-source-6.1 (cached, beside the KUnit kernels), the good kernel
# and kunit-slowinit: the same source with kernel/ksysfs.c's ksysfs_init (a
# core_initcall) doing 2^22 iterations of work first, a loop, not a sleep.
# bootrig boots each with --boot-time, 3 seeds a side (QEMU through libvirt,
# TCG with the icount clock; run under the QEMU lock), then:
#   - compare: boot.initcall.ksysfs_init regressed, p < 0.01, and it is the
#     first line of "initcalls that moved"; boot.phase.total moved by the
#     same amount as that initcall, within 10 %; the good kernel against
#     itself moves no initcall;
#   - bisect --metric boot.initcall.ksysfs_init --boot-time on a git tree of
#     6 commits whose build takes the slow kernel from c4 on names c4.
# limit: 900
. "$(dirname "$0")/lib.sh"
set -u
RUN="$TOP/build/bootrig"        # the boots at full speed; compare and bisect sanitized
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
export NO_COLOR=1

if ! sh "$TOP/scripts/build-kunit-kernel.sh" --slowinit >"$tmp/kernels" 2>"$tmp/build.err"; then
	not_ok "the good and slowinit kernels build from linux-source-6.1" "$(tail -n 20 "$tmp/build.err")"
	exit 0
fi
ok "the good and slowinit kernels build from linux-source-6.1 (scripts/build-kunit-kernel.sh --slowinit)"
REGRESS_GOOD=$(awk '$1 == "good" {print $2}' "$tmp/kernels")
REGRESS_SLOW=$(awk '$1 == "slowinit" {print $2}' "$tmp/kernels")
export REGRESS_GOOD REGRESS_SLOW

for side in good slow; do
	eval k=\$REGRESS_$(echo $side | tr a-z A-Z)
	"$RUN" run --kernel "$k" --boot-time --repeat 3 -j 2 -o "$tmp/$side" >"$tmp/$side.out" 2>&1
	n=$(find "$tmp/$side" -name result.json | wc -l)
	pass=$(find "$tmp/$side" -name result.json -exec jq -r .verdict {} + | grep -c '^PASS$')
	[ "$n" = 3 ] && [ "$pass" = 3 ] && ok "$side: 3 --boot-time boots PASS" ||
		not_ok "$side: 3 --boot-time boots PASS" "$n result.json, $pass PASS: $(tail -n 3 "$tmp/$side.out")"
done
f=$(find "$tmp/good" -name result.json | head -n 1)
check "the good kernel's initcalls are named by function (kallsyms), ksysfs_init among them" \
	test "$(jq '[.metrics[] | select(.abi == "boot" and .test == "initcall" and .name == "ksysfs_init")] | length' "$f")" = 1

"$BOOTRIG" compare "$tmp/good" "$tmp/slow" >"$tmp/cmp.txt" 2>"$tmp/cmp.err"
crc=$?
"$BOOTRIG" compare --format json "$tmp/good" "$tmp/slow" >"$tmp/cmp.json" 2>>"$tmp/cmp.err"
sed -n '/^initcalls that moved/,/^ *these /p' "$tmp/cmp.txt" | sed 's/^/# /'
first=$(sed -n '/^initcalls that moved/{n;p;q}' "$tmp/cmp.txt")
if [ $crc = 1 ] && echo "$first" | grep -Eq '^ +boot\.initcall\.ksysfs_init .* p<0\.0(0[0-9]*|1)[0-9]* +regressed$'; then
	ok "compare: ksysfs_init is the first initcall that moved, regressed, p < 0.01"
else not_ok "compare: ksysfs_init first among the initcalls that moved" "exit $crc: $first $(head -c 300 "$tmp/cmp.err")"; fi
p=$(jq -r '[.metrics[] | select(.id == "boot.initcall.ksysfs_init")][0].changes[0].p_welch' "$tmp/cmp.json" 2>&1)
check "compare JSON: ksysfs_init's p-value below 0.01 ($p)" awk -v p="$p" 'BEGIN { exit !(p + 0 == p && p < 0.01) }'
# the regression is the boot's: boot.phase.total moved as the initcall did
delta() { # ID: the change of its mean, CAND - BASE
	jq -r --arg id "$1" '[.metrics[] | select(.id == $id)][0] | .sides[1].mean - .sides[0].mean' \
		"$tmp/cmp.json" 2>/dev/null
}
di=$(delta boot.initcall.ksysfs_init) dt=$(delta boot.phase.total)
echo "# ksysfs_init +$di us, boot.phase.total +$dt us"
check "boot.phase.total moved by ksysfs_init's change within 10 % (+$dt us against +$di us)" \
	awk -v i="$di" -v t="$dt" 'BEGIN { exit !(i > 100000 && t > 0.9 * i && t < 1.1 * i) }'
"$BOOTRIG" compare "$tmp/good" "$tmp/good" >"$tmp/same.txt" 2>&1
check "compare: the good kernel against itself moves no initcall" sh -c "! grep -q '^initcalls that moved' '$tmp/same.txt'"

# bisect: the slow kernel from c4 on
R=$tmp/tree
kernel_switch_tree "$R" REGRESS_GOOD REGRESS_SLOW slow 4
"$BOOTRIG" bisect --tree "$R" --good c1 --bad c6 --build sh build.sh --image image \
	--metric 'boot.initcall.ksysfs_init' --boot-time --boots 2 -o "$tmp/bisect-state" \
	>"$tmp/bisect.out" 2>"$tmp/bisect.err"
rc=$?
sed 's/^/# /' "$tmp/bisect.out"
if [ $rc = 0 ] && grep -qx "first bad commit: $(git -C "$R" rev-parse c4) commit 4" "$tmp/bisect.out"; then
	ok "bisect --metric boot.initcall.ksysfs_init --boot-time names c4"
else not_ok "bisect --metric boot.initcall.ksysfs_init names c4" "rc=$rc: $(tail -n 3 "$tmp/bisect.err")"; fi
echo "1..$_tap_n"
