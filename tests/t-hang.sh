#!/bin/sh
# t-hang.sh: `bootrig run` never waits forever on its backend (issue 27).
#   - a stand-in emulator that never answers (libvirt's start of the
#     domain never returns): with --op-timeout 8 the boot ends INFRA_ERROR
#     naming the operation, the run exits within its deadline, no process
#     of it is left (the stand-in killed by PID);
#   - SIGTERM, then SIGINT, during that hang (default --op-timeout 120):
#     the run ends within 10 s with 143 / 130, no process left;
#   - two boots starting at once (-j 2, the sanitized build, libvirt's
#     embedded driver forking both launchers from two threads) 20 times
#     in a row: no hang, every boot judged (issue 27's t-provoke hang).
# limit: 1200
. "$(dirname "$0")/lib.sh"
set -u

tmp=$(mktemp -d /tmp/t-hang.XXXXXX)
trap 'pkill -f "$tmp/" 2>/dev/null; rm -rf "$tmp"' EXIT
k=$(kernel_path amd64)

# The stand-in: an "emulator" that becomes a process that never answers,
# its command line marked "$tmp/stand-in" (pgrep finds it).
cat >"$tmp/qemu-hang" <<EOT
#!/bin/sh
exec sh -c 'while :; do sleep 1; done' "$tmp/stand-in"
EOT
chmod +x "$tmp/qemu-hang"
cat >"$tmp/hang.cfg" <<EOT
targets = ( { name = "x86-hang"; arch = "x86_64"; abis = [ "x86_64", "x32", "i386" ];
  emulator = "$tmp/qemu-hang"; qemu_arch = "x86_64"; machine = "q35";
  cpu = "max"; console = "ttyS0"; memory_mb = 512; vcpus = 1; append = "";
  timeouts = { firmware = 60.0; kernel = 240.0; init = 120.0; results = 1800.0;
               end = 30.0; poweroff = 30.0; silence = 300.0; }; } );
EOT
hang="--config $tmp/hang.cfg --target x86-hang --kernel $k"

# left PID: what of that run still lives (its stand-in, its QEMUs, itself).
left() { pgrep -af "$tmp/stand-in|guest=bootrig-$1-" | grep -v pgrep; kill -0 "$1" 2>/dev/null && echo "bootrig $1"; }

# 1. The operation's deadline.
start=$(date +%s)
run deadline $hang --op-timeout 8
secs=$(($(date +%s) - start))
r=$(echo "$tmp"/deadline/*/default/1/result.json)
if [ "$rc" = 125 ] && [ "$secs" -lt 40 ]; then ok "a start that never returns: exit 125 after $secs s (--op-timeout 8)"
else not_ok "hung start bounded" "exit $rc after $secs s: $(tail -n 3 "$tmp/deadline.err")"; fi
expect "the boot is INFRA_ERROR" "$r" verdict INFRA_ERROR
reason=$("$JGET" "$r" reason 2>&1)
case $reason in
"backend operation 'prepare' did not return in 8 s"* | "backend operation 'power on' did not return in 8 s"*)
	ok "its reason names the operation: $reason" ;;
*) not_ok "reason names the operation" "reason: $reason" ;;
esac
sleep 1
l=$(left "$pid")
if [ -z "$l" ]; then ok "no process of that run is left (the stand-in was killed by PID)"
else not_ok "processes left after the deadline" "$l"; fi

# 2. A signal during the hang.
for sig in TERM INT; do
	"$BOOTRIG" run $hang -o "$tmp/sig-$sig" >"$tmp/sig-$sig.out" 2>"$tmp/sig-$sig.err" &
	pid=$!
	i=0   # until the stand-in runs (libvirt is in its start)
	while ! pgrep -f "$tmp/stand-in" >/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 1
	start=$(date +%s)
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	secs=$(($(date +%s) - start))
	want=$([ $sig = TERM ] && echo 143 || echo 130)
	if [ "$rc" = "$want" ] && [ "$secs" -le 10 ]; then ok "SIG$sig while a backend call hangs: exit $rc in $secs s"
	else not_ok "SIG$sig during the hang" "exit $rc (want $want) after $secs s: $(tail -n 3 "$tmp/sig-$sig.err")"; fi
	sleep 1
	l=$(left "$pid")
	if [ -z "$l" ]; then ok "SIG$sig: no process of that run is left"
	else not_ok "SIG$sig: processes left" "$l"; pkill -f "$tmp/stand-in"; fi
	if ls "$tmp/sig-$sig"/*/default/1/result.json >/dev/null 2>&1; then
		not_ok "SIG$sig: the unfinished boot has no result.json" "$(ls -R "$tmp/sig-$sig")"
	else ok "SIG$sig: the unfinished boot wrote no result (the directory stays consistent)"; fi
done

# 3. Two boots starting at once, 20 times. --timeout 3 ends each boot soon
# after its start, which is what this is about.
bad=""
for n in $(seq 20); do
	start=$(date +%s)
	timeout -k 5 120 "$BOOTRIG" run --kernel "$k" -r 2 -j 2 --timeout 3 -o "$tmp/j2-$n" \
		>"$tmp/j2-$n.out" 2>"$tmp/j2-$n.err"
	rc=$?
	secs=$(($(date +%s) - start))
	v=$(for f in "$tmp/j2-$n"/*/default/*/result.json; do "$JGET" "$f" verdict; done | sort | tr '\n' ' ')
	case $rc:$v in
	124:* | 137:*) bad="$bad run $n hung ($secs s);" ;;
	*INFRA_ERROR* | *:) bad="$bad run $n: exit $rc, verdicts '$v': $(tail -n 2 "$tmp/j2-$n.err" | tr '\n' ' ');" ;;
	esac
	rm -rf "$tmp/j2-$n"
done
if [ -z "$bad" ]; then ok "two boots starting at once (-j 2, sanitized build): 20 runs in a row, none hung, every boot judged"
else not_ok "concurrent starts" "$bad"; fi
