#!/bin/sh
# t-guest-init.sh: the PID-1 init's behaviour, in its test mode
# (`init --root DIR --cmdline ARGS`, records on stdout), with small shell
# scripts standing in for test binaries so that each case is exact:
# framing of child output (records, LOG, escapes, long lines, reserved
# kinds), exit codes and signals, the watchdog, missing binaries, knobs
# and argv, command-line overrides, the built-in plan, a bad plan, and
# the ABI probe outcomes (ok, ENOEXEC, exit status, missing probe).
# Every output is checked with the host decoder (br-decode).
. "$(dirname "$0")/lib.sh"
set -u

INIT=$TOP/build/guest/x86_64/init
DECODE=$TOP/build/tests/tools/br-decode
PROBE=$TOP/build/guest/x86_64/probe
for f in "$INIT" "$DECODE" "$PROBE"; do
	[ -x "$f" ] || { not_ok "prerequisite $f" "missing: run make all unit"; exit 1; }
done
tmp=$(mktemp -d /tmp/t-guest-init.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# script ROOT ABI NAME BODY: an executable shell script standing for a test.
script() {
	mkdir -p "$1/bench/$2"
	printf '#!/bin/sh\n%s\n' "$4" >"$1/bench/$2/$3"
	chmod +x "$1/bench/$2/$3"
}

# run NAME ROOT CMDLINE: init's records in $tmp/NAME.log, decoded in
# $tmp/NAME.dec (br-decode's status in $tmp/NAME.decrc), init's in NAME.rc.
run() {
	timeout 60 "$INIT" --root "$2" --cmdline "$3" >"$tmp/$1.log" 2>"$tmp/$1.err"
	echo $? >"$tmp/$1.rc"
	"$DECODE" "$tmp/$1.log" >"$tmp/$1.dec" 2>&1
	echo $? >"$tmp/$1.decrc"
}

# has NAME ERE: the decoded output has a line matching ERE.
has() { grep -Eq -- "$2" "$tmp/$1.dec"; }
count() { grep -Ec -- "$2" "$tmp/$1.dec"; }
expect() {
	if has "$2" "$3"; then ok "$1"; else not_ok "$1" "no line /$3/ in $tmp/$2.dec"; cat "$tmp/$2.dec" | sed 's/^/# /' | head -40; fi
}
decodes() {
	if [ "$(cat "$tmp/$1.decrc")" = 0 ]; then ok "$1: every record decodes, BEGIN..END, nothing lost"
	else not_ok "$1: records decode" "$(grep -E '^(problem|#)' "$tmp/$1.dec" | head -5)"; fi
}

# 1. Framing and results, one root with a script per behaviour.
r=$tmp/root1
mkdir -p "$r/etc/bootrig" "$r/bench/x86_64"
cp "$PROBE" "$r/bench/x86_64/probe"
script "$r" x86_64 metric 'echo "METRIC abi=x86_64 test=metric name=a unit=us better=lower n=2 median=1.5000 min=1.0000 max=2.0000 mean=1.5000 stddev=0.7071 samples=1.0000,2.0000"; echo "NEWKIND key=v"'
script "$r" x86_64 exit3 'echo "about to fail"; exit 3'
script "$r" x86_64 segv 'kill -SEGV $$'
script "$r" x86_64 hang 'echo started; sleep 987654; echo never'
script "$r" x86_64 args 'echo "argv: $*"'
script "$r" x86_64 noisy 'printf "END tests=99 passed=99\n"; printf "tab\there 100%% caf\303\251\n"; printf "METRIC bad field\n"; head -c 6000 /dev/zero | tr "\\0" x; echo; printf "no newline at the end"'
printf 'suite=unit\ntests=metric,exit3,segv,hang,args,noisy,absent\nsamples=5\ntest_timeout=2\n# a comment\n\n' \
	>"$r/etc/bootrig/plan"
start=$(date +%s)
run framing "$r" "quiet bootrig.knob.foo=bar bootrig.knob.slow_null=10"
took=$(( $(date +%s) - start ))
decodes framing
expect "BEGIN names the native ABI and the plan's source" framing '^0 BEGIN proto=1 init=[0-9.]+ arch=x86_64 plan=cmdline$'
expect "SYSINFO carries uname, cpus, memory, uptime and the command line" framing \
	'^1 SYSINFO release=[^ ]+ version=[^ ]+ machine=x86_64 cpus=[1-9][0-9]* memtotal_kb=[1-9][0-9]* uptime=[0-9]+\.[0-9]+ cmdline=quiet\\x20bootrig'
expect "ABI record for the probe that exits 0" framing '^2 ABI abi=x86_64 status=ok$'
expect "PLAN from the file" framing '^3 PLAN suite=unit repeat=1 samples=5 abis=x86_64 tests=metric,exit3,segv,hang,args,noisy,absent min_samples=3 ci_target=1 clock_overhead_ns=[0-9]+ clock_res_ns=[1-9][0-9]* clock_noise_ppm=[0-9]+$'
expect "a child's METRIC line becomes a METRIC record" framing \
	'^[0-9]+ METRIC abi=x86_64 test=metric name=a unit=us better=lower n=2 median=1.5000 .*samples=1.0000,2.0000$'
expect "an unknown kind from a child is passed on" framing '^[0-9]+ NEWKIND key=v$'
expect "exit 0 is PASS" framing '^[0-9]+ RESULT abi=x86_64 test=metric status=PASS ms=[0-9]+$'
expect "other output of a child is a LOG record" framing '^[0-9]+ LOG abi=x86_64 test=exit3 text=about\\x20to\\x20fail$'
expect "a non-zero exit is FAIL with the status" framing '^[0-9]+ RESULT abi=x86_64 test=exit3 status=FAIL reason=exit\\x203 ms='
expect "a crash signal is FAIL with the signal" framing '^[0-9]+ RESULT abi=x86_64 test=segv status=FAIL reason=signal\\x2011 ms='
expect "the watchdog kills a hung test: TIMEOUT" framing '^[0-9]+ RESULT abi=x86_64 test=hang status=TIMEOUT reason=watchdog ms=(19|2[0-9])[0-9][0-9]$'
expect "output before the hang is kept" framing '^[0-9]+ LOG abi=x86_64 test=hang text=started$'
if [ "$took" -lt 30 ] && ! pgrep -f 'sleep 987654' >/dev/null; then ok "the hung test's process group is gone (init took ${took}s)"
else not_ok "the hung test's process group is gone" "took ${took}s; $(pgrep -af 'sleep 987654')"; fi
expect "argv is the path, abi=, samples=, min_samples=, ci=, every bootrig.knob.* and the boot's clock" framing \
	'^[0-9]+ LOG abi=x86_64 test=args text=argv:\\x20abi=x86_64\\x20samples=5\\x20min_samples=3\\x20ci_bp=100\\x20foo=bar\\x20slow_null=10\\x20clock_res_ns=[1-9][0-9]*\\x20clock_noise_ppm=[0-9]+$'
expect "a child cannot print init's own kinds (END becomes LOG)" framing '^[0-9]+ LOG abi=x86_64 test=noisy text=END\\x20tests=99\\x20passed=99$'
expect "tabs, % and UTF-8 are escaped and come back intact" framing \
	'^[0-9]+ LOG abi=x86_64 test=noisy text=tab\\x09here\\x20100%\\x20caf\\xc3\\xa9$'
expect "a kind line with bad fields is a LOG" framing '^[0-9]+ LOG abi=x86_64 test=noisy text=METRIC\\x20bad\\x20field$'
n=$(grep -E '^[0-9]+ LOG abi=x86_64 test=noisy text=x+$' "$tmp/framing.dec" | sed 's/.*text=//' | tr -d '\n' | wc -c)
if [ "$n" -eq 6000 ]; then ok "a 6000-byte line is split over LOG records, no byte lost"
else not_ok "a 6000-byte line is split over LOG records" "got $n bytes of x"; fi
expect "a last line without newline is still framed" framing '^[0-9]+ LOG abi=x86_64 test=noisy text=no\\x20newline\\x20at\\x20the\\x20end$'
expect "a planned test without binary is FAIL reason=missing" framing '^[0-9]+ TEST abi=x86_64 test=absent status=start$'
expect "  ... and its RESULT" framing '^[0-9]+ RESULT abi=x86_64 test=absent status=FAIL reason=missing ms=0$'
expect "END counts tests and records" framing "^([0-9]+) END tests=7 passed=3 failed=3 timeout=1 records=\\1$"
if [ "$(count framing ' END ')" = 1 ]; then ok "exactly one END"; else not_ok "exactly one END"; fi
if [ "$(cat "$tmp/framing.rc")" = 1 ]; then ok "test mode exits 1 when a test failed"; else not_ok "test mode exit status" "$(cat "$tmp/framing.rc")"; fi
awk 'length($0) > 4095 { bad = 1 } END { exit bad }' "$tmp/framing.log" &&
	ok "no record line is longer than 4096 bytes" || not_ok "no record line is longer than 4096 bytes"

# 2. Command-line overrides: bootrig.abi, bootrig.only, bootrig.repeat, bootrig.samples, bootrig.suite.
run cmdline "$r" "bootrig.abi=x86_64 bootrig.only=args,metric bootrig.repeat=2 bootrig.samples=7 bootrig.suite=quick"
decodes cmdline
expect "the command line overrides the plan" cmdline '^[0-9]+ PLAN suite=quick repeat=2 samples=7 abis=x86_64 tests=args,metric min_samples=3 ci_target=1 clock_overhead_ns=[0-9]+ clock_res_ns=[1-9][0-9]* clock_noise_ppm=[0-9]+$'
if [ "$(count cmdline 'TEST abi=x86_64 test=args')" = 2 ] && [ "$(count cmdline 'RESULT .*status=PASS')" = 4 ]; then
	ok "repeat=2 runs every planned test twice"; else not_ok "repeat=2 runs every planned test twice"; fi
expect "samples= from the command line reaches the test" cmdline 'text=argv:\\x20abi=x86_64\\x20samples=7\\x20min_samples=3\\x20ci_bp=100\\x20clock_res_ns=[1-9][0-9]*\\x20clock_noise_ppm=[0-9]+$'
if [ "$(cat "$tmp/cmdline.rc")" = 0 ]; then ok "test mode exits 0 when every test passed"; else not_ok "test mode exit 0" "$(cat "$tmp/cmdline.rc")"; fi

# 3. No plan file: the built-in plan.
r2=$tmp/root2
mkdir -p "$r2/bench/x86_64"
cp "$PROBE" "$r2/bench/x86_64/probe"
script "$r2" x86_64 lat_syscall 'echo "argv: $*"'
run builtin "$r2" ""
decodes builtin
expect "without a plan, BEGIN says plan=builtin" builtin '^0 BEGIN .* plan=builtin$'
expect "the built-in plan is the smoke suite" builtin '^[0-9]+ PLAN suite=smoke repeat=1 samples=11 abis=x86_64 tests=lat_syscall min_samples=3 ci_target=1 clock_overhead_ns=[0-9]+ clock_res_ns=[1-9][0-9]* clock_noise_ppm=[0-9]+$'

# 4. A bad plan: ERROR, then END, nothing run.
mkdir -p "$r2/etc/bootrig"
printf 'samples=abc\n' >"$r2/etc/bootrig/plan"
run badplan "$r2" ""
decodes badplan
expect "a bad value in the plan is an ERROR record" badplan '^2 ERROR reason=plan:\\x20bad\\x20samples=abc$'
expect "  ... followed by END" badplan '^3 END tests=0 passed=0 failed=0 timeout=0 records=3$'
printf 'samples=3\n' >"$r2/etc/bootrig/plan"
run badcmd "$r2" "bootrig.repeat=0"
expect "a bad value on the command line is an ERROR record" badcmd 'ERROR reason=plan:\\x20bad\\x20repeat=0$'

run badname "$r2" "bootrig.only=lat_syscall,../../bin/sh"
expect "a test name that is a path is refused" badname 'ERROR reason=plan:\\x20bad\\x20only=\(list\\x20of\\x20test\\x20names\)$'
if grep -q ' TEST ' "$tmp/badname.dec"; then not_ok "  ... and nothing runs"; else ok "  ... and nothing runs"; fi

# 5. ABI probes: ok, ENOEXEC (not an ELF), a probe that fails, no probe.
r3=$tmp/root3
mkdir -p "$r3/bench/x86_64" "$r3/bench/arm" "$r3/bench/i386" "$r3/bench/aarch64" "$r3/etc/bootrig"
cp "$PROBE" "$r3/bench/x86_64/probe"
head -c 200 /dev/urandom | tr '\0#' 'ab' >"$r3/bench/arm/probe"
chmod +x "$r3/bench/arm/probe"
script "$r3" i386 probe 'exit 1'
printf 'tests=none\n' >"$r3/etc/bootrig/plan"
run probes "$r3" ""
decodes probes
expect "probe exits 0: ok" probes '^[0-9]+ ABI abi=x86_64 status=ok$'
expect "the kernel refuses the binary (ENOEXEC): unsupported" probes '^[0-9]+ ABI abi=arm status=unsupported reason=ENOEXEC$'
expect "a probe that exits 1: error with the reason" probes '^[0-9]+ ABI abi=i386 status=error reason=exit\\x201$'
expect "an ABI directory without probe: error" probes '^[0-9]+ ABI abi=aarch64 status=error reason=probe\\x20missing$'
expect "only ok ABIs are planned" probes '^[0-9]+ PLAN .* abis=x86_64 tests=none min_samples=3 ci_target=1 clock_overhead_ns=[0-9]+ clock_res_ns=[1-9][0-9]* clock_noise_ppm=[0-9]+$'

run noabi "$r3" "bootrig.abi=arm"
decodes noabi
expect "a plan whose ABIs the kernel refuses is an ERROR, not an empty pass" noabi \
	'^[0-9]+ ERROR reason=no\\x20runnable\\x20ABI\\x20for\\x20the\\x20plan$'

# 6. Not PID 1 and a bad option: usage, 64, nothing mounted.
"$INIT" --bogus >/dev/null 2>"$tmp/usage.err"
rc=$?
if [ $rc = 64 ] && grep -q usage "$tmp/usage.err"; then ok "an unknown option is a usage error (64)"; else not_ok "usage error" "rc=$rc"; fi

# 7. Boot time (bootrig.boot_time=1): the kernel's initcall_debug records,
# from its log buffer (in test mode ROOT/kernel-log stands for it), as
# INITCALLS records (each initcall F:US:RC), METRICs of (boot, phase) and a
# BOOTTIME record; the judge reads each item as a METRIC of (boot, initcall).
r4=$tmp/root4
mkdir -p "$r4/bench/x86_64" "$r4/etc/bootrig"
cp "$PROBE" "$r4/bench/x86_64/probe"
printf 'tests=\n' >"$r4/etc/bootrig/plan"
printf '%b' '<5>[    0.000000] Linux version 6.1.0 (a stand-in)\n' \
	'<7>[    0.100000] calling  foo_init+0x0/0x20 @ 1\n<7>[    0.100050] initcall foo_init+0x0/0x20 returned 0 after 50 usecs\n' \
	'<7>[    0.200000] calling  init+0x0/0x10 @ 1\n<7>[    0.200010] initcall init+0x0/0x10 returned 0 after 10 usecs\n' \
	'<7>[    0.300000] calling  init+0x0/0x10 @ 1\n<7>[    0.300020] initcall init+0x0/0x10 returned -19 after 20 usecs\n' \
	'<7>[    0.400000] calling  modx_init+0x0/0x10 [modx] @ 1\n<7>[    0.400030] initcall modx_init+0x0/0x10 [modx] returned 0 after 30 usecs\n' \
	'<7>[    0.500000] calling  bad_init+0x0/0x10 @ 1\n<7>[    0.500001] initcall bad_init+0x0/0x10 returned 0 after x usecs\n' \
	'<7>[    0.600000] calling  hung_init+0x0/0x10 @ 1\n' \
	'<7>[    0.650000] calling  ev\001l+0x0/0x1 @ 1\n<7>[    0.700000] initcall ev\001l+0x0/0x1 returned 0 after 5 usecs\n' \
	'<6>[    0.800000] Run /init as init process\n' >"$r4/kernel-log"
run boottime "$r4" "bootrig.boot_time=1"
decodes boottime
# the initcalls packed in INITCALLS records (calls=F:US:RC,...), in order
expect "boot time: the initcalls in one INITCALLS record, F:US:RC each, in order" boottime \
	'^[0-9]+ INITCALLS calls=foo_init:50:0,init:10:0,init#2:20:-19,modx_init:30:0,ev\\x01l:5:0$'
check "boot time: no initcall as a METRIC line (190 bytes each on the console)" test "$(count boottime 'METRIC abi=boot test=initcall')" = 0
# the host reads each item as the metric of (boot, initcall) it stands for
"$BOOTRIG" judge --format json "$tmp/boottime.log" >"$tmp/boottime.json" 2>"$tmp/boottime.jerr"
bm() { jq -c "[.metrics[] | select(.abi == \"boot\" and .test == \"initcall\") | $1]" "$tmp/boottime.json" 2>&1; }
check "boot time: judge: each item a metric of (boot, initcall), its usecs (n=1, every statistic)" \
	test "$(bm '[.name, .median, .min, .max, .n, .samples, .unit, .better]' | cut -c1-400)" = \
	'[["foo_init",50,50,50,1,[50],"us","lower"],["init",10,10,10,1,[10],"us","lower"],["init#2",20,20,20,1,[20],"us","lower"],["modx_init",30,30,30,1,[30],"us","lower"],["ev\u0001l",5,5,5,1,[5],"us","lower"]]'
check "boot time: judge: a function that comes again is FUNC#2, its return code kept (-19)" \
	test "$(bm 'select(.name == "init#2") | [.median, .return_code]')" = '[[20,-19]]'
check "boot time: judge: a module's initcall by its function" test "$(bm 'select(.name == "modx_init") | .median')" = '[30]'
check "boot time: judge: a function name's control byte is kept as text, escaped" \
	test "$(bm 'select(.name == "ev\u0001l") | .median')" = '[5]'
expect "boot time: phase kernel, to the first call (us)" boottime '^[0-9]+ METRIC abi=boot test=phase name=kernel .* median=100000\.0000 '
expect "boot time: phase initcalls, first call to last return" boottime '^[0-9]+ METRIC abi=boot test=phase name=initcalls .* median=600000\.0000 '
expect "boot time: phases init and total" boottime '^[0-9]+ METRIC abi=boot test=phase name=total '
expect "boot time: BOOTTIME counts 5 records, 1 malformed (dropped), 1 call that never returned" boottime \
	'^[0-9]+ BOOTTIME status=ok records=5 malformed=1 unmatched=1 lost=0 levels=0 levels_reason=the\\x20trace\\x20cannot\\x20be\\x20read'
check "boot time: the malformed record made no metric" test "$(count boottime 'name=bad_init')" = 0
# a log that wrapped before init read it (its first line gone): lost=1
sed -i 1d "$r4/kernel-log"
run wrapped "$r4" "bootrig.boot_time=1"
expect "boot time: a log without its first line (wrapped) says lost=1" wrapped '^[0-9]+ BOOTTIME status=ok records=5 .* lost=1 '
# no records at all (a kernel without initcall_debug): a reason, no metric
printf '<5>[    0.000000] Linux version 6.1.0\n<6>[    0.8] Run /init as init process\n' >"$r4/kernel-log"
run norec "$r4" "bootrig.boot_time=1"
decodes norec
expect "boot time: no initcall records is status=none with the reason" norec \
	'^[0-9]+ BOOTTIME status=none records=0 malformed=0 unmatched=0 lost=0 levels=0 levels_reason=no\\x20initcall\\x20records reason=no\\x20initcall\\x20records'
check "boot time: ... and no boot metric" test "$(count norec 'METRIC abi=boot')" = 0
rm "$r4/kernel-log"
run nolog "$r4" "bootrig.boot_time=1"
expect "boot time: a log that cannot be read: status=none, named" nolog '^[0-9]+ BOOTTIME status=none .*reason=the\\x20kernel.s\\x20log\\x20cannot\\x20be\\x20read$'
run notime "$r4" ""
check "boot time: off by default (no BOOTTIME record)" test "$(count notime 'BOOTTIME')" = 0
run badtime "$r4" "bootrig.boot_time=yes"
expect "boot time: boot_time=yes is a plan error" badtime 'ERROR reason=plan:\\x20bad\\x20boot_time=\(0\\x20or\\x201\)$'

# Levels: the kernel's trace events (trace_event=initcall:initcall_level,
# initcall:initcall_start; in test mode ROOT/kernel-trace stands for
# tracefs's trace) name each call's level; the k-th call of the log is the
# trace's next start of that function (one the log lacks, a console
# initcall before initcall_debug, is passed over); a module's is "module";
# a level name that is not [a-z0-9_] gives its calls no level.
printf '%b' '<5>[    0.000000] Linux version 6.1.0 (a stand-in)\n' \
	'<7>[    0.100000] calling  foo_init+0x0/0x20 @ 1\n<7>[    0.100050] initcall foo_init+0x0/0x20 returned 0 after 50 usecs\n' \
	'<7>[    0.200000] calling  init+0x0/0x10 @ 1\n<7>[    0.200010] initcall init+0x0/0x10 returned 0 after 10 usecs\n' \
	'<7>[    0.300000] calling  init+0x0/0x10 @ 1\n<7>[    0.300020] initcall init+0x0/0x10 returned -19 after 20 usecs\n' \
	'<7>[    0.400000] calling  bar_init+0x0/0x10 @ 1\n<7>[    0.400040] initcall bar_init+0x0/0x10 returned 0 after 40 usecs\n' \
	'<7>[    0.450000] calling  evil_init+0x0/0x10 @ 1\n<7>[    0.450001] initcall evil_init+0x0/0x10 returned 0 after 1 usecs\n' \
	'<7>[    0.500000] calling  modx_init+0x0/0x10 [modx] @ 9\n<7>[    0.500030] initcall modx_init+0x0/0x10 [modx] returned 0 after 30 usecs\n' \
	'<6>[    0.800000] Run /init as init process\n' >"$r4/kernel-log"
printf '%b' '# tracer: nop\n#\n' \
	'       swapper/0-0       [000] d....     0.010000: initcall_level: level=console\n' \
	'       swapper/0-0       [000] d....     0.010001: initcall_start: func=con_init+0x0/0x200\n' \
	'       swapper/0-1       [000] .....     0.099000: initcall_level: level=early\n' \
	'       swapper/0-1       [000] .....     0.099999: initcall_start: func=foo_init+0x0/0x20\n' \
	'       swapper/0-1       [000] .....     0.150000: initcall_level: level=core\n' \
	'       swapper/0-1       [000] .....     0.199999: initcall_start: func=init+0x0/0x10\n' \
	'       swapper/0-1       [000] .....     0.299999: initcall_start: func=init+0x0/0x10\n' \
	'       swapper/0-1       [000] .....     0.350000: initcall_level: level=device\n' \
	'       swapper/0-1       [000] .....     0.399999: initcall_start: func=bar_init+0x0/0x10\n' \
	'       swapper/0-1       [000] .....     0.420000: initcall_level: level=ev!l\n' \
	'       swapper/0-1       [000] .....     0.449999: initcall_start: func=evil_init+0x0/0x10\n' >"$r4/kernel-trace"
run levels "$r4" "bootrig.boot_time=1"
decodes levels
expect "boot time: levels: one INITCALLS record a level, level=NAME" levels \
	'^[0-9]+ INITCALLS level=early calls=foo_init:50:0$'
expect "boot time: levels: two calls of one level in one record" levels \
	'^[0-9]+ INITCALLS level=core calls=init:10:0,init#2:20:-19$'
expect "boot time: levels: the next level's record" levels '^[0-9]+ INITCALLS level=device calls=bar_init:40:0$'
expect "boot time: levels: a level name not [a-z0-9_]: its call has none" levels '^[0-9]+ INITCALLS calls=evil_init:1:0$'
expect "boot time: levels: a module's initcall is level module" levels '^[0-9]+ INITCALLS level=module calls=modx_init:30:0$'
expect "boot time: levels: a level's span, first call to last return (us)" levels \
	'^[0-9]+ METRIC abi=boot test=level name=core .* median=100020\.0000 '
expect "boot time: levels: early's span" levels '^[0-9]+ METRIC abi=boot test=level name=early .* median=50\.0000 '
check "boot time: levels: no span for a level without a call of the log's (console), nor module" \
	test "$(count levels 'test=level name=console')$(count levels 'test=level name=module')" = 00
expect "boot time: levels: BOOTTIME counts 3 levels" levels '^[0-9]+ BOOTTIME status=ok records=6 malformed=0 unmatched=0 lost=0 levels=3$'
"$BOOTRIG" judge --format json "$tmp/levels.log" >"$tmp/levels.json" 2>"$tmp/levels.jerr"
check "boot time: judge: each initcall metric's level in result.json (none where none was sent)" \
	test "$(jq -c '[.metrics[] | select(.test == "initcall") | [.name, .level]]' "$tmp/levels.json" 2>&1)" = \
	'[["foo_init","early"],["init","core"],["init#2","core"],["bar_init","device"],["evil_init",null],["modx_init","module"]]'
check "boot time: judge: boot_time.levels in result.json" \
	test "$(jq -c '[.boot_time.levels, .boot_time.levels_reason]' "$tmp/levels.json" 2>&1)" = '[3,null]'
# a trace without level events (a kernel booted without trace_event=): no level, a reason
printf '# tracer: nop\n#\n' >"$r4/kernel-trace"
run nolevels "$r4" "bootrig.boot_time=1"
expect "boot time: a trace without initcall events: levels=0 and why" nolevels \
	'^[0-9]+ BOOTTIME status=ok records=6 .* levels=0 levels_reason=no\\x20initcall\\x20trace\\x20events'
check "boot time: ... the items without a level" test "$(count nolevels 'INITCALLS level=')" = 0
rm "$r4/kernel-trace"
