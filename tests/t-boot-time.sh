#!/bin/sh
# t-boot-time: bootrig run --boot-time on Debian's amd64 and cloud-arm64
# kernels (libvirt, TCG, icount): the kernel boots with initcall_debug and
# init reads its initcall records from the log buffer (initramfs/
# init-boottime.c). First, with the fake backend, the command line of
# --boot-time and of a suite's boot_time = true, and that suite's plan.
# Then for each kernel:
#  - a boot with ignore_loglevel as well, so the console shows the lines
#    the kernel wrote: every "initcall ... returned" line of the console is
#    one metric boot.initcall.FUNC (their counts equal, and result.json's
#    boot_time.records), nothing malformed, the boot PASSes, the phases
#    are in order (kernel <= init <= total, initcalls within total), every
#    initcall has its level (from the kernel's trace events), core to late
#    are there, and a level's initcalls add up within its span;
#  - one seed booted twice (--seed 1 --repeat 2): every initcall's figure
#    and every phase the same in both (icount: the same boot), and compare
#    over them lists the boot metrics like any other, nothing changed.
# limit: 900
. "$(dirname "$0")/lib.sh"
set -u
RUN="$TOP/build/bootrig"        # the runner at full speed; judge and compare sanitized
tmp=$(mktemp -d /tmp/t-boot-time.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

sh "$TOP/scripts/fetch-kernels.sh" amd64 cloud-arm64 >/dev/null ||
	{ not_ok "fetch kernels" "scripts/fetch-kernels.sh failed"; exit 1; }

# The command line and the plan, with the fake backend (no QEMU): --boot-time
# appends initcall_debug log_buf_len=8M bootrig.boot_time=1; a suite's
# boot_time = true puts boot_time=1 in the guest's plan and appends the same
FAKE=$TOP/build/bootrig-fake
{ head -c 56 /dev/zero; printf 'ARMd'; head -c 8 /dev/zero; printf 'Linux version 6.1.0-fake #1\n'; } >"$tmp/Image"
echo initrd >"$tmp/initrd.img"
BOOTRIG_FAKE_CONSOLE=$TOP/tests/fixtures/judge/pass-cloud-arm64.log "$FAKE" run --kernel "$tmp/Image" \
	--initramfs "$tmp/initrd.img" --append quiet --boot-time -o "$tmp/fake" >/dev/null 2>"$tmp/err"
BT_ARGS="initcall_debug log_buf_len=8M trace_event=initcall:initcall_level,initcall:initcall_start bootrig.boot_time=1"
expect "run --boot-time: initcall_debug log_buf_len=8M, the initcall trace events, bootrig.boot_time=1 on the command line" \
	"$(ls "$tmp"/fake/*/default/1/result.json)" append "console=ttyAMA0 panic=-1 quiet $BT_ARGS"
printf 'suites = ( { name = "bt"; tests = [ "lat_syscall" ]; boot_time = true; } );\n' >"$tmp/bt.cfg"
a64=$(kernel_path cloud-arm64)
"$BOOTRIG" build --kernel "$a64" --config "$tmp/bt.cfg" --suite bt -o "$tmp/bt.img" >/dev/null 2>"$tmp/err"
gzip -dc "$tmp/bt.img" 2>/dev/null | cpio -i --quiet --to-stdout etc/bootrig/plan >"$tmp/bt.plan" 2>/dev/null
check "a suite with boot_time = true: boot_time=1 in the guest's plan" grep -qx boot_time=1 "$tmp/bt.plan"
BOOTRIG_FAKE_CONSOLE=$TOP/tests/fixtures/judge/pass-cloud-arm64.log "$FAKE" run --kernel "$tmp/Image" \
	--config "$tmp/bt.cfg" --suite bt -o "$tmp/fake-suite" >/dev/null 2>"$tmp/err"
expect "run --suite with boot_time = true: the same arguments, without --boot-time" \
	"$(ls "$tmp"/fake-suite/*/default/1/result.json 2>/dev/null | head -n 1)" append \
	"console=ttyAMA0 panic=-1 $BT_ARGS"

for flavour in amd64 cloud-arm64; do
	K=$(kernel_path "$flavour")
	"$RUN" run --kernel "$K" --boot-time --append ignore_loglevel -o "$tmp/$flavour-log" \
		>"$tmp/$flavour-log.out" 2>&1
	rj=$(find "$tmp/$flavour-log" -name result.json | head -n 1)
	if [ -z "$rj" ]; then
		not_ok "$flavour: a --boot-time boot writes result.json" "$(tail -n 3 "$tmp/$flavour-log.out")"
		continue
	fi
	expect "$flavour: the --boot-time boot PASSes" "$rj" verdict PASS
	con=${rj%result.json}console.log
	lines=$(grep -Ec 'initcall .* returned -?[0-9]+ after [0-9]+ usecs' "$con")
	metrics=$(jq '[.metrics[] | select(.abi == "boot" and .test == "initcall")] | length' "$rj")
	records=$(jq '.boot_time.records' "$rj")
	if [ "$lines" -gt 100 ] && [ "$metrics" = "$lines" ] && [ "$records" = "$lines" ]; then
		ok "$flavour: every initcall the kernel ran is a metric ($lines returned lines, $metrics metrics)"
	else not_ok "$flavour: every initcall is a metric" "console $lines, metrics $metrics, records $records"; fi
	expect "$flavour: boot_time.status ok" "$rj" boot_time.status ok
	expect "$flavour: no malformed record" "$rj" boot_time.malformed 0
	phases=$(jq -r '[.metrics[] | select(.abi == "boot" and .test == "phase")] | map({(.name): .median}) | add
		| if .kernel > 0 and .kernel <= .init and .init <= .total and .initcalls <= .total
		  then "ok" else tostring end' "$rj")
	check "$flavour: the phases in order: kernel <= init <= total, initcalls within total ($phases)" \
		test "$phases" = ok
	# levels, from the kernel's trace events: every initcall has one, the
	# levels from core to late are there, and the sum of a level's
	# initcalls is within the level's span (its first call to last return)
	levels=$(jq -r '([.metrics[] | select(.abi == "boot" and .test == "level") | {(.name): .median}] | add) as $span
		| [.metrics[] | select(.abi == "boot" and .test == "initcall")] as $ic
		| [$ic | group_by(.level)[] | {level: .[0].level, sum: (map(.median) | add)}] as $g
		| if ($ic | map(select(.level == null)) | length) > 0 then "initcalls without a level"
		  elif (["core", "postcore", "arch", "subsys", "fs", "device", "late"] - ($span | keys)) != []
		  then "levels missing: \($span | keys)"
		  elif ($g | map(select(.level != "module" and .sum > $span[.level])) | length) > 0
		  then "sums past spans: \($g | map(select(.level != "module" and .sum > $span[.level])))"
		  else "ok \($span | keys | length)" end' "$rj" 2>&1)
	check "$flavour: every initcall has its level; a level's initcalls add up within its span ($levels)" \
		test "${levels%% *}" = ok
	expect "$flavour: boot_time.levels counts the levels" "$rj" boot_time.levels "${levels#ok }"

	"$RUN" run --kernel "$K" --boot-time --seed 1 --repeat 2 -o "$tmp/$flavour-seed" \
		>"$tmp/$flavour-seed.out" 2>&1
	set -- $(find "$tmp/$flavour-seed" -name result.json | sort)
	if [ $# != 2 ]; then
		not_ok "$flavour: one seed booted twice" "$# result.json: $(tail -n 3 "$tmp/$flavour-seed.out")"
		continue
	fi
	a=$(jq -c '[.metrics[] | select(.abi == "boot") | [.test, .name, .median]]' "$1")
	b=$(jq -c '[.metrics[] | select(.abi == "boot") | [.test, .name, .median]]' "$2")
	n=$(echo "$a" | jq length)
	if [ "$n" -gt 100 ] && [ "$a" = "$b" ]; then
		ok "$flavour: one seed, two boots: all $n boot figures the same"
	else not_ok "$flavour: one seed, two boots: the same figures" "$n figures; differ: $(printf '%s\n%s\n' "$a" "$b" | head -c 300)"; fi
	"$BOOTRIG" compare --format json "$tmp/$flavour-seed" "$tmp/$flavour-seed" >"$tmp/$flavour-cmp.json" 2>"$tmp/$flavour-cmp.err"
	rc=$?
	rows=$(jq '[.metrics[] | select(.abi == "boot")] | length' "$tmp/$flavour-cmp.json" 2>/dev/null)
	if [ $rc = 0 ] && [ "$rows" = "$n" ]; then ok "$flavour: compare lists the $rows boot metrics, none changed"
	else not_ok "$flavour: compare over the boot metrics" "exit $rc, $rows rows: $(head -c 300 "$tmp/$flavour-cmp.err")"; fi
done
