#!/bin/sh
# t-bench-guest.sh: the guest benchmark binaries (initramfs/tests/*.c over
# initramfs/bench/bench.c) keep their contract on every ABI this host can
# run: natively x86_64 and i386 (i386 under qemu-i386 where the host kernel
# has IA-32 emulation off, its lat_proc also in a guest, where exec works),
# under qemu-user aarch64 and arm, x32 natively where the host kernel has
# it, else in an x86_64 guest booted with syscall.x32=y (aarch64_ilp32 is
# file-checked only; it runs, trapped, in t-guest-ilp32.sh).
#   - every binary exits 0 and prints only METRIC lines and free text;
#   - every METRIC line is well formed: the fields in PROTOCOL.md's order,
#     n = the number of samples, fixed-point numbers, min <= median <= max,
#     min <= mean <= max, the median is the samples' median, the ABI and
#     test names are the ones given;
#   - each family reports exactly its metric names;
#   - the knobs work: slow_null (a LOG line with the spin units), file=,
#     procs= / size= (lat_ctx's name), max= (lat_mem_rd's sizes), pipe= and
#     threads= (hackbench), and bad knobs fail with exit 1 and a message;
#   - hackbench's throughput is tasks x loops x datasize / 1024 / time, and
#     a run cut to fit its time budget names its metrics for its loops;
#   - the counting run (count_only=1, x86_64 natively): every family prints
#     one PERFSTAT per metric name and no METRIC, each with its pass and
#     all 16 of perf stat's events counted or absent with a reason; with
#     counters=0 every event is absent, off.
# Small knobs keep it quick (sample_ms=2 reps=1, tiny hackbench, max=256k).
. "$(dirname "$0")/lib.sh"
set -u

G=$TOP/build/guest
tmp=$(mktemp -d /tmp/t-bench-guest.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
FAST="samples=3 sample_ms=2 reps=1"

# The metric names each family must print, in order.
expected_names() {
	case $1 in
	lat_syscall) echo "null read write stat fstat open_close" ;;
	lat_pipe) echo "pipe" ;;
	lat_ctx) echo "ctx_2p_0k" ;;
	lat_proc) echo "fork exec" ;;
	lat_sig) echo "install catch" ;;
	lat_pagefault) echo "pagefault" ;;
	hackbench) echo "time throughput" ;;
	lat_mem_rd) echo "lat_4k lat_8k lat_16k lat_32k lat_64k lat_128k lat_256k" ;;
	bw_mem) echo "read write copy" ;;
	cpu) echo "sort_long sort_ptr hash lz" ;;
	tcp) echo "stream" ;;
	esac
}
knobs_for() {
	case $1 in
	hackbench) echo "groups=1 fds=4 loops=20" ;;
	lat_mem_rd) echo "max=256k" ;;
	bw_mem) echo "size=256k" ;;
	lat_pagefault) echo "region=1m" ;;
	esac
}

# wellformed FILE ABI TEST: checks every METRIC line of FILE; prints the
# problems (nothing when all is well).
wellformed() {
	awk -v abi="$2" -v test="$3" '
	function bad(why) { print "line " NR ": " why ": " substr($0, 1, 160); }
	function num(x) { return x ~ /^-?[0-9]+\.[0-9]+$/ }
	/^METRIC / {
		want = "^METRIC abi=[^ ]+ test=[^ ]+ name=[a-z0-9_]+ unit=[^ ]+ better=(lower|higher) n=[0-9]+ median=[^ ]+ min=[^ ]+ max=[^ ]+ mean=[^ ]+ stddev=[^ ]+ samples=[^ ]+ (ci=[0-9]+\.[0-9]{4} )?ci_target=[0-9]+\.[0-9]{4} stop=(target|max|fixed) iters=[0-9]+$"
		if ($0 !~ want) { bad("fields"); next }
		delete f
		for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = substr($i, length(kv[1]) + 2) }
		if (f["abi"] != abi) bad("abi " f["abi"])
		if (f["test"] != test) bad("test " f["test"])
		c = split(f["samples"], s, ",")
		if (c != f["n"]) bad("n=" f["n"] " but " c " samples")
		if (c >= 2 && !("ci" in f)) bad("n=" c " but no ci=")
		if (f["stop"] == "target" && !(f["ci"] + 0 <= f["ci_target"] + 0)) bad("stop=target but ci " f["ci"] " > ci_target " f["ci_target"])
		for (i = 1; i <= c; i++) if (!num(s[i])) bad("sample " s[i])
		split("median min max mean stddev", keys, " ")
		for (k in keys) if (!num(f[keys[k]])) bad(keys[k] " not fixed point")
		if (!(f["min"] + 0 <= f["median"] + 0 && f["median"] + 0 <= f["max"] + 0)) bad("min <= median <= max")
		if (!(f["min"] + 0 <= f["mean"] + 0.0001 && f["mean"] + 0 <= f["max"] + 0.0001)) bad("min <= mean <= max")
		for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (s[j] + 0 < s[i] + 0) { t = s[i]; s[i] = s[j]; s[j] = t }
		med = (c % 2) ? s[(c + 1) / 2] : (s[c / 2] + s[c / 2 + 1]) / 2
		if (med - f["median"] > 0.0001 || f["median"] - med > 0.0001) bad("median " f["median"] " != " med)
	}' "$1"
}

# run_family RUNNER ABI TEST: runs one family with small knobs and checks it.
run_family() {
	runner=$1 abi=$2 t=$3
	out=$tmp/$abi.$t
	# shellcheck disable=SC2046
	timeout 300 $runner "$G/$abi/$t" "abi=$abi" $FAST $(knobs_for "$t") >"$out.out" 2>"$out.err"
	rc=$?
	if [ $rc != 0 ]; then not_ok "$abi $t runs" "exit $rc: $(head -c 300 "$out.err")"; return; fi
	problems=$(wellformed "$out.out" "$abi" "$t")
	if [ -n "$problems" ]; then not_ok "$abi $t records well formed" "$(echo "$problems" | head -3)"; return; fi
	names=$(awk '/^METRIC /{ for (i = 2; i <= NF; i++) if ($i ~ /^name=/) printf "%s%s", (n++ ? " " : ""), substr($i, 6) }' "$out.out")
	want=$(expected_names "$t")
	if [ "${runner#qemu-}" != "$runner" ] && [ "$t" = lat_proc ] && [ "$names" = fork ] &&
		grep -q 'exec metric left out.*ENOEXEC' "$out.out"; then
		want=fork        # qemu-user cannot exec a foreign binary without binfmt_misc
	fi
	if [ "$names" = "$want" ]; then ok "$abi $t: $(grep -c '^METRIC ' "$out.out") well-formed metrics ($names)"
	else not_ok "$abi $t metric names" "got '$names', want '$want'"; fi
}

families=$(cd "$TOP/initramfs/tests" && ls *.c | sed 's/\.c$//')
# What this host cannot run goes to one x86_64 guest booted with
# syscall.x32=y (tests/lib.sh's gx_add/gx_boot): x32's families where the
# host kernel refuses x32, and i386's lat_proc where i386 runs under
# qemu-i386 (which cannot exec, so its exec metric is measured there).
gx=$tmp/gx
for abi in i386 x32; do
	case $(abi_runner "$abi") in
	none) for t in $families; do
		# shellcheck disable=SC2046
		gx_add "$gx" "$G/$abi/$t" "abi=$abi" $FAST $(knobs_for "$t")
	done ;;
	qemu-*) gx_add "$gx" "$G/$abi/lat_proc" "abi=$abi" $FAST ;;
	esac
done
if [ -f "$gx/batch" ]; then
	why=$(gx_boot "$gx")
	if [ $? = 0 ]; then ok "the guest with syscall.x32=y ran the $(wc -l <"$gx/batch") commands this host cannot"
	else not_ok "the guest with syscall.x32=y runs what this host cannot" "$why"; fi
fi
for abi in x86_64 i386 x32 aarch64 arm; do
	if [ ! -x "$G/$abi/lat_syscall" ]; then not_ok "$abi binaries built" "missing $G/$abi"; continue; fi
	r=$(abi_runner "$abi")
	if [ "$r" = none ]; then
		echo "# $abi: in the guest (this host kernel refuses it)"
		r="$GX --replay $gx"
	fi
	for t in $families; do run_family "$r" "$abi" "$t"; done
	case $r in qemu-i386)
		echo "# i386 lat_proc in the guest, where exec works"
		run_family "$GX --replay $gx" "$abi" lat_proc ;;
	esac
done

# aarch64_ilp32: no qemu-user runs it; every binary is a 32-bit AArch64 ELF.
bad=
for t in $families; do
	file -b "$G/aarch64_ilp32/$t" | grep -q 'ELF 32-bit LSB executable, ARM aarch64' || bad="$bad $t"
done
if [ -z "$bad" ]; then ok "aarch64_ilp32: every family is an ELF 32-bit ARM aarch64 executable"
else not_ok "aarch64_ilp32 ELF class" "not ILP32:$bad"; fi

# Knobs. ---------------------------------------------------------------
X=$G/x86_64
"$X/lat_syscall" $FAST slow_null=100 >"$tmp/slow.out" 2>&1
if grep -Eq 'slow_null=100: [1-9][0-9]* extra spin units per null call' "$tmp/slow.out" &&
	[ "$(grep -c '^METRIC ' "$tmp/slow.out")" = 6 ]; then
	ok "slow_null=100 adds calibrated spin units to null and still reports all six metrics"
else not_ok "slow_null knob" "$(head -c 300 "$tmp/slow.out")"; fi

echo "data" >"$tmp/file"
"$X/lat_syscall" $FAST "file=$tmp/file" >"$tmp/file.out" 2>&1
if [ $? = 0 ] && ! grep -q 'is missing' "$tmp/file.out"; then ok "file=PATH is used for stat/fstat/open_close"
else not_ok "file= knob" "$(head -c 300 "$tmp/file.out")"; fi
"$X/lat_syscall" $FAST >"$tmp/nofile.out" 2>&1
if [ -e /bench/data/file ] || grep -q '/bench/data/file is missing; using /tmp/' "$tmp/nofile.out"; then
	ok "without /bench/data/file, lat_syscall says which /tmp file it uses"
else not_ok "missing file LOG line" "$(head -c 300 "$tmp/nofile.out")"; fi

"$X/lat_ctx" $FAST procs=3 size=16k >"$tmp/ctx.out" 2>&1
if grep -q '^METRIC .* name=ctx_3p_16k ' "$tmp/ctx.out"; then ok "lat_ctx procs=3 size=16k reports ctx_3p_16k"
else not_ok "lat_ctx knobs" "$(head -c 300 "$tmp/ctx.out")"; fi

# lat_ctx's figure is the lap less its pipe overhead; it stops on that
# difference's interval, not the lap's (CI once saw stop=target beside
# ci=1.7086 > 1: the lap had met the target, the smaller difference had not).
: >"$tmp/ctx-many.out"
for i in $(seq 50); do "$X/lat_ctx" $FAST >>"$tmp/ctx-many.out" 2>&1; done
bad=$(awk '/^METRIC/ { delete f; for (i = 1; i <= NF; i++) { split($i, a, "="); f[a[1]] = a[2] }
	if (f["stop"] == "target" && !(f["ci"] + 0 <= f["ci_target"] + 0)) print }' "$tmp/ctx-many.out")
runs=$(grep -c '^METRIC .* name=ctx_2p_0k ' "$tmp/ctx-many.out")
if [ "$runs" = 50 ] && [ -z "$bad" ]; then ok "lat_ctx: in 50 runs, stop=target only where the reported figure's interval meets the target"
else not_ok "lat_ctx stop on the derived figure" "$runs of 50 reported; $(printf '%s' "$bad" | head -c 300)"; fi

"$X/lat_mem_rd" $FAST max=1m stride=128 >"$tmp/mem.out" 2>&1
names=$(grep -o ' name=[a-z0-9_]*' "$tmp/mem.out" | tr -d ' ' | tr '\n' ' ')
if [ "$names" = "name=lat_4k name=lat_8k name=lat_16k name=lat_32k name=lat_64k name=lat_128k name=lat_256k name=lat_512k name=lat_1m " ]; then
	ok "lat_mem_rd max=1m reports every power of two from 4k to 1m"
else not_ok "lat_mem_rd sizes" "got: $names"; fi

for mode in "pipe=1" "threads=1" "threads=1 pipe=1"; do
	timeout 60 "$X/hackbench" samples=2 groups=2 fds=5 loops=10 datasize=64 $mode >"$tmp/hb.out" 2>&1
	rc=$?
	# throughput = 20 tasks x 10 loops x 64 bytes / 1024 / time, sample by
	# sample, within what time's 4 decimals allow
	check=$(awk '/^METRIC .*name=time /{ for (i = 2; i <= NF; i++) if ($i ~ /^samples=/) n = split(substr($i, 9), t, ",") }
		/^METRIC .*name=throughput /{ for (i = 2; i <= NF; i++) if ($i ~ /^samples=/) m = split(substr($i, 9), k, ",") }
		END { if (!n || n != m) { print "no samples"; exit }
			for (i = 1; i <= n; i++) { want = 20 * 10 * 64 / 1024 / t[i]; d = k[i] - want
				if (d < 0) d = -d; if (d > want * (0.00006 / t[i] + 0.0001) + 0.001) print "sample " i ": " k[i] " != " want } }' "$tmp/hb.out")
	if [ $rc = 0 ] && [ -z "$check" ] && grep -q "$(echo "$mode" | grep -q threads && echo thread || echo process) mode" "$tmp/hb.out"; then
		ok "hackbench $mode: runs, throughput = tasks x loops x datasize / 1024 / time"
	else not_ok "hackbench $mode" "exit $rc; $check; $(head -c 300 "$tmp/hb.out")"; fi
done

# Without loops=, a run that would not fit a third of budget_s= runs fewer
# loops and names its metrics for the count; either way names and LOG agree.
timeout 120 "$X/hackbench" samples=1 budget_s=1 >"$tmp/hbr.out" 2>&1
rc=$?
n=$(sed -n 's/.*running \([0-9]*\) loops (knob loops= to force a count).*/\1/p' "$tmp/hbr.out")
names=$(grep -o ' name=[a-z0-9_]*' "$tmp/hbr.out" | tr -d ' ' | tr '\n' ' ')
if [ -n "$n" ]; then want="name=time_l$n name=throughput_l$n "; else want="name=time name=throughput "; fi
if [ $rc = 0 ] && [ "$names" = "$want" ]; then ok "hackbench budget_s=1: ${n:-100} loops run, metrics named $names"
else not_ok "hackbench loop reduction" "exit $rc, names '$names', want '$want'"; fi

for bad in "samples=0" "samples=abc" "sample_ms=" "reps=0" "slow_null=-5"; do
	"$X/lat_syscall" "$bad" >"$tmp/bad.out" 2>"$tmp/bad.err"
	rc=$?
	if [ $rc = 1 ] && grep -q "bad knob" "$tmp/bad.err" && ! grep -q '^METRIC' "$tmp/bad.out"; then
		ok "bad knob $bad: exit 1, '$(head -n 1 "$tmp/bad.err")'"
	else not_ok "bad knob $bad" "exit $rc, stderr: $(head -c 200 "$tmp/bad.err")"; fi
done

# The counting run (count_only=1): PERFSTAT records, one per metric, no
# METRIC; each event counted (NAME:COUNT) or absent (NAME:REASON), all 16.
EVENTS="cpu-clock task-clock context-switches cpu-migrations page-faults minor-faults major-faults cycles instructions branches branch-misses cache-references cache-misses stalled-cycles-frontend stalled-cycles-backend bus-cycles ref-cycles"
for t in $families; do
	# shellcheck disable=SC2046
	timeout 300 "$X/$t" abi=x86_64 $FAST $(knobs_for "$t") count_only=1 >"$tmp/count.$t" 2>&1
	rc=$?
	names=$(awk '/^PERFSTAT /{ for (i = 2; i <= NF; i++) if ($i ~ /^name=/) printf "%s%s", (n++ ? " " : ""), substr($i, 6) }' "$tmp/count.$t")
	bad=$(awk -v events="$EVENTS" '
		BEGIN { split(events, e, " "); for (i in e) known[e[i]] = 1 }
		/^METRIC / { print "a METRIC line"; next }
		/^PERFSTAT / { delete seen; got = 0
			if ($0 !~ / perf_ops=[1-9][0-9]* perf_ns=[1-9][0-9]* perf_scope=(cpu|task)( |$)/) print "no pass: " substr($0, 1, 120)
			for (i = 2; i <= NF; i++) if ($i ~ /^perf(_absent)?=/) {
				n = split(substr($i, index($i, "=") + 1), items, ",")
				for (k = 1; k <= n; k++) { split(items[k], kv, ":")
					if (!(kv[1] in known) || kv[1] in seen || kv[2] == "") print "item " items[k]
					seen[kv[1]] = 1; got++ } }
			if (got != 16) print got " events, not 16: " substr($0, 1, 120) }' "$tmp/count.$t")
	if [ $rc = 0 ] && [ "$names" = "$(expected_names "$t")" ] && [ -z "$bad" ]; then
		ok "x86_64 $t count_only=1: one PERFSTAT per metric ($names), each with its pass and all 16 events"
	else not_ok "x86_64 $t count_only=1" "exit $rc; names '$names'; $(printf '%s' "$bad" | head -3)"; fi
done
"$X/lat_syscall" $FAST count_only=1 counters=0 >"$tmp/count-off.out" 2>&1
if [ "$(grep -c '^PERFSTAT ' "$tmp/count-off.out")" = 6 ] && ! grep -q 'perf_ops=\| perf=' "$tmp/count-off.out" &&
	[ "$(grep -o '[a-z-]*:off' "$tmp/count-off.out" | wc -l)" = 96 ]; then
	ok "count_only=1 counters=0: six PERFSTAT records, every event absent, off, no pass"
else not_ok "counters=0" "$(head -c 300 "$tmp/count-off.out")"; fi
