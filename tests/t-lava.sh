#!/bin/sh
# t-lava.sh: bootrig on a LAVA lab (runner/lava/) against a real LAVA
# (Debian 12's lava-server and lava-dispatcher 2023.01 on loopback, made by
# tests/lava-host.sh: device type qemu, device qemu-01, user bootrig):
#   --lava-job-only   job.yaml per boot, parsed back by python3-yaml and
#                     checked by LAVA's own job schema (lava_common), nothing
#                     submitted, exit 0
#   a LAVA board      a board config with backend = "lava": job.yaml deploys
#                     to tftp with its DTB and boots u-boot (LAVA's schema
#                     checks it); a job name over 200 characters is cut
#   bad input         an unreachable server, a wrong token, a missing token
#                     file, an unknown device type, a job LAVA refuses (no
#                     token: its message shown), --lava with --board, a
#                     remote server and no way to give it the files: each
#                     exit 125 or 64, no result.json with a verdict but
#                     INFRA_ERROR
#   --lava-serve      the dispatcher downloads the boot files from bootrig's
#                     server over HTTP: PASS; the server ends with the run
#   a bad deploy URL  LAVA fails the job before any kernel: INFRA_ERROR with
#                     LAVA's message, the job id and URL in result.json
#   three kernels     the demo's Debian kernels (cloud-arm64, amd64,
#                     armmp-lpae) through LAVA's qemu device type, submitted
#                     at once: each ABI table equals the embedded driver's
#                     for the same kernel and initramfs
#   a panic           init=/does-not-exist: PANIC with the judge's title,
#                     though LAVA calls the job Incomplete
#   Ctrl-C            cancels the submitted job in LAVA; exit 130
#   a bootrig dying   mid-run (gdb makes it call exit()): its atexit handler
#                     cancels the job (lava.c's emergency_stop)
# Without LAVA on the machine every case that needs it is skipped with the
# reason. LAVA's QEMU boots: run this group under the QEMU lock.
# holds: lava (the one tests/lava-host.sh instance: t-readme stops it)
. "$(dirname "$0")/lib.sh"
set -u

tmp=$(mktemp -d /tmp/t-lava.XXXXXX)
started_lava=""
cleanup() {
	[ -n "$started_lava" ] && sh "$TOP/tests/lava-host.sh" stop >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
boot_dir() { echo "$tmp/$1/$2"-*/"$3/$4"; }
# verdicts_only NAME VERDICT: every result.json of run NAME says VERDICT
verdicts_only() {
	for r in $(find "$tmp/$1" -name result.json); do
		[ "$("$JGET" "$r" verdict)" = "$2" ] || return 1
	done
	return 0
}

a64=$(kernel_path cloud-arm64)
x86=$(kernel_path amd64)
arm=$(kernel_path armmp-lpae)
PY=/usr/bin/python3

# job_check LABEL JOB [ARG...]: the python checks on stdin (d: the job, parsed;
# sys.argv[2...]: the ARGs) pass on JOB, and LAVA's own schema accepts it
job_check() {
	label=$1 file=$2
	shift 2
	if ! $PY -c 'import yaml' 2>/dev/null; then
		skip "$label" "python3-yaml is not installed"
		return
	fi
	checks=$(cat)
	out=$($PY - "$file" "$@" 2>&1 <<EOF
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
$checks
try:
    from lava_common.schemas import validate
except ImportError:
    print("parsed; lava_common absent")
    sys.exit(0)
validate(d, strict=True, extra_context_variables=[])
print("parsed and valid")
EOF
)
	case $out in
	parsed*) ok "$label ($out)" ;;
	*) not_ok "$label" "$out" ;;
	esac
}

# --- --lava-job-only: no server needed -------------------------------------------
run jobonly --kernel "$a64" --lava http://127.0.0.1:1/ --lava-job-only --repeat 2 --timeout 50
[ $rc = 0 ] && ok "--lava-job-only: exit 0" || not_ok "--lava-job-only: exit 0" "exit $rc: $(cat "$tmp/jobonly.err")"
n=$(grep -c '/job.yaml$' "$tmp/jobonly.out")
[ "$n" = 2 ] && ok "--lava-job-only: prints both job files" || not_ok "--lava-job-only: prints both job files" "$(cat "$tmp/jobonly.out")"
[ -z "$(find "$tmp/jobonly" -name result.json)" ] && ok "--lava-job-only: no result.json" ||
	not_ok "--lava-job-only: no result.json"
job=$(boot_dir jobonly cloud-arm64.vmlinuz default 1)/job.yaml
job_check "--lava-job-only: job.yaml parses back and has the job's shape" "$job" <<'EOF'
assert d["device_type"] == "qemu", d
acts = [list(a)[0] for a in d["actions"]]
assert acts == ["deploy", "boot", "test"], acts
dep, boot, test = (a[k] for a, k in zip(d["actions"], acts))
assert dep["to"] == "tmpfs" and dep["images"]["kernel"]["url"].startswith("file:///"), dep
assert boot["method"] == "qemu" and "prompts" not in boot, boot
assert boot["timeout"]["seconds"] == 50 + 50, boot      # firmware + kernel, each capped by --timeout 50
m = test["monitors"][0]
assert m["start"] == "@@BR 1 0 BEGIN " and m["fixupdict"]["unsupported"] == "skip", m
import re
end = "@@BR 1 22 END tests=2 passed=2 failed=0 timeout=0 records=22 *27bd9374"
assert re.search(m["end"], end) and not re.search(m["end"], end[:-3]), m["end"]
abi = "@@BR 1 3 ABI abi=aarch64_ilp32 status=unsupported reason=ENOEXEC *00000000"
g = re.search(m["pattern"], abi)
assert g and g.group("result") == "unsupported" and not re.search(m["pattern"], abi[:40]), m
assert '-append "console=ttyAMA0 panic=-1"' in d["context"]["extra_options"], d["context"]
EOF
# a LAVA lab's board (backend = "lava" in a board config): deploy to tftp with
# the board's DTB, boot u-boot; LAVA's own schema accepts it
printf 'fake dtb\n' >"$tmp/board.dtb"
printf 'boards = ( { name = "lab-rpi4"; arch = "arm64"; backend = "lava";\n  device_type = "bcm2711-rpi-4-b"; dtb = "%s"; } );\n' "$tmp/board.dtb" >"$tmp/lab.cfg"
run labboard --kernel "$a64" --config "$tmp/lab.cfg" --board lab-rpi4 --lava http://127.0.0.1:1/ --lava-job-only
job=$(boot_dir labboard cloud-arm64.vmlinuz default 1)/job.yaml
[ $rc = 0 ] || not_ok "a LAVA board's job: exit 0" "exit $rc: $(cat "$tmp/labboard.err")"
job_check "a LAVA board's job: tftp, its DTB, u-boot" "$job" "$tmp/board.dtb" <<'EOF'
assert d["device_type"] == "bcm2711-rpi-4-b", d
acts = [list(a)[0] for a in d["actions"]]
assert acts == ["deploy", "boot", "test"], acts
dep, boot = d["actions"][0]["deploy"], d["actions"][1]["boot"]
assert dep["to"] == "tftp" and dep["dtb"]["url"] == "file://" + sys.argv[2], dep
assert dep["kernel"]["url"].startswith("file:///") and dep["ramdisk"]["url"].startswith("file:///"), dep
assert boot["method"] == "u-boot" and boot["commands"] == "ramdisk", boot
EOF
printf 'boards = ( { name = "lab-x"; backend = "lava";\n  power = { on = [ "true" ]; off = [ "true" ]; }; } );\n' >"$tmp/lab2.cfg"
run labbad --kernel "$a64" --config "$tmp/lab2.cfg" --board lab-x --lava http://127.0.0.1:1/ --lava-job-only
[ $rc = 78 ] && grep -q "lab2.cfg:2: board 'lab-x': 'power': a LAVA board's" "$tmp/labbad.err" &&
	ok "a LAVA board with a power group: exit 78 at file:line" ||
	not_ok "a LAVA board with a power group: exit 78 at file:line" "exit $rc: $(cat "$tmp/labbad.err")"

# a job name over LAVA's 200 characters is cut, keeping its end
long=$(printf 'v%.0s' $(seq 210))
run longname --kernel "$a64" --variant "$long=" --lava http://127.0.0.1:1/ --lava-job-only
name=$(sed -n 's/^job_name: "\(.*\)"$/\1/p' $(boot_dir longname cloud-arm64.vmlinuz "$long" 1)/job.yaml 2>/dev/null)
case $name in
...*"vvv #1") cut_ok=1 ;;
*) cut_ok="" ;;
esac
[ $rc = 0 ] && [ ${#name} -le 200 ] && [ -n "$cut_ok" ] &&
	ok "a job name over 200 characters: cut to ${#name}, its end kept" ||
	not_ok "a job name over 200 characters: cut, its end kept" "exit $rc, ${#name}: $name"

# the files of a LAVA server not on this machine: --lava-serve or --lava-url-prefix
run remote --kernel "$a64" --lava http://192.0.2.1:8000/
[ $rc = 64 ] && grep -q "give --lava-serve ADDR\[:PORT\].* or --lava-url-prefix URL" "$tmp/remote.err" &&
	ok "a remote LAVA server without --lava-serve or --lava-url-prefix: exit 64 naming both" ||
	not_ok "a remote LAVA server without --lava-serve or --lava-url-prefix: exit 64 naming both" "exit $rc: $(cat "$tmp/remote.err")"
run badpath --kernel "$a64" --lava http://127.0.0.1:1/ --lava-job-only --append 'init="/x"\'
[ $rc = 64 ] && grep -q "quote or a backslash" "$tmp/badpath.err" &&
	ok "--lava-job-only: a command line the dispatcher cannot quote: exit 64" ||
	not_ok "--lava-job-only: a command line the dispatcher cannot quote: exit 64" "exit $rc: $(cat "$tmp/badpath.err")"
run noboard --kernel "$a64" --lava http://127.0.0.1:1/ --board sim-arm64-tftp
[ $rc = 64 ] && ok "--lava with --board: exit 64" || not_ok "--lava with --board: exit 64" "exit $rc"
run notoken --kernel "$a64" --lava http://127.0.0.1:1/ --lava-token-file "$tmp/no-such-token"
[ $rc = 64 ] && grep -q "cannot read the LAVA token file" "$tmp/notoken.err" &&
	ok "a missing token file: exit 64" || not_ok "a missing token file: exit 64" "exit $rc: $(cat "$tmp/notoken.err")"
run unreach --kernel "$a64" --lava http://127.0.0.1:1/
[ $rc = 125 ] && grep -q "cannot reach the LAVA server" "$tmp/unreach.err" &&
	ok "an unreachable server: exit 125 with the reason" ||
	not_ok "an unreachable server: exit 125 with the reason" "exit $rc: $(cat "$tmp/unreach.err")"
check "an unreachable server: no verdict but INFRA_ERROR" verdicts_only unreach INFRA_ERROR

# --- a real LAVA ------------------------------------------------------------------
why=$(sh "$TOP/tests/lava-host.sh" check 2>&1) || {
	for c in "a wrong token" "an unknown device type" "a job LAVA refuses" "--lava-serve" "a bad deploy URL" \
		 "three kernels' ABI tables" "a panic" "a bootrig that dies mid-run" "Ctrl-C cancels"; do
		skip "$c" "LAVA cannot run here: $why"
	done
	exit 0
}
if ! sh "$TOP/tests/lava-host.sh" status >/dev/null 2>&1; then
	sh "$TOP/tests/lava-host.sh" start >"$tmp/lava-start.log" 2>&1 || {
		not_ok "LAVA starts (tests/lava-host.sh start)" "$(tail -n 5 "$tmp/lava-start.log")"
		exit 0
	}
	started_lava=1
fi
eval "$(sh "$TOP/tests/lava-host.sh" env)"
L="--lava $LAVA_URL --lava-token-file $LAVA_TOKEN_FILE"
# last_job: LAVA's answer on the last job submitted (JSON)
last_job() {
	curl -s -H "Authorization: Token $(cat "$LAVA_TOKEN_FILE")" "${LAVA_URL%/}/api/v0.2/jobs/?ordering=-id&limit=1"
}
# wait_started ERR PID: until bootrig PID said "started" in ERR (its job is
# submitted), or ended; 2 minutes at most
wait_started() {
	for i in $(seq 1 600); do
		grep -q "started" "$1" 2>/dev/null && break
		kill -0 "$2" 2>/dev/null || break
		sleep 0.2
	done
}

printf 'not-a-token\n' >"$tmp/bad-token"
run badtoken --kernel "$a64" --lava "$LAVA_URL" --lava-token-file "$tmp/bad-token"
[ $rc = 125 ] && grep -q "refused the token" "$tmp/badtoken.err" &&
	ok "a wrong token: exit 125 with LAVA's answer" ||
	not_ok "a wrong token: exit 125 with LAVA's answer" "exit $rc: $(cat "$tmp/badtoken.err")"
check "a wrong token: no verdict but INFRA_ERROR" verdicts_only badtoken INFRA_ERROR

printf 'targets = ( { name = "arm64-virt"; device_type = "no-such-type"; } );\n' >"$tmp/type.cfg"
run badtype --kernel "$a64" --config "$tmp/type.cfg" $L
[ $rc = 125 ] && grep -q "no device type 'no-such-type'" "$tmp/badtype.err" &&
	ok "an unknown device type: exit 125 naming it" ||
	not_ok "an unknown device type: exit 125 naming it" "exit $rc: $(cat "$tmp/badtype.err")"
check "an unknown device type: no verdict but INFRA_ERROR" verdicts_only badtype INFRA_ERROR

printf 'targets = ( { name = "arm64-virt"; backend = "lavva"; } );\n' >"$tmp/backend.cfg"
run badbackend --kernel "$a64" --config "$tmp/backend.cfg"
[ $rc = 78 ] && grep -q "backend.cfg:1: 'backend' is \"lavva\"" "$tmp/badbackend.err" &&
	ok "a wrong backend in a target: exit 78 at file:line" ||
	not_ok "a wrong backend in a target: exit 78 at file:line" "exit $rc: $(cat "$tmp/badbackend.err")"

# LAVA refuses a job from a user it does not know: without a token the
# server answers its API (open() passes) but refuses the submission
run refused --kernel "$a64" --lava "$LAVA_URL"
[ $rc = 125 ] && grep -q "LAVA refused the job.*HTTP 40[13]: .*[Aa]uthentication credentials" "$tmp/refused.err" &&
	ok "a job LAVA refuses: exit 125 with LAVA's message" ||
	not_ok "a job LAVA refuses: exit 125 with LAVA's message" "exit $rc: $(cat "$tmp/refused.err")"
check "a job LAVA refuses: no verdict but INFRA_ERROR" verdicts_only refused INFRA_ERROR

# --- --lava-serve: the dispatcher downloads the files from bootrig over HTTP ------
run serve --kernel "$a64" $L --lava-serve 127.0.0.1:0
d=$(boot_dir serve cloud-arm64.vmlinuz default 1)
[ $rc = 0 ] && ok "--lava-serve: a boot reaches PASS" || not_ok "--lava-serve: a boot reaches PASS" "exit $rc: $(tail -n 5 "$tmp/serve.err")"
expect "--lava-serve: PASS" "$d/result.json" verdict PASS
grep -q 'url: "http://127.0.0.1:[0-9]*/[0-9a-f]\{32\}/' "$d/job.yaml" &&
	grep -q 'http://127.0.0.1:[0-9]*/[0-9a-f]\{32\}/' "$d/lava-log.yaml" &&
	ok "--lava-serve: the job's URLs are bootrig's, and the dispatcher fetched them" ||
	not_ok "--lava-serve: the job's URLs are bootrig's, and the dispatcher fetched them" "$(grep url: "$d/job.yaml")"
port=$(sed -n 's|.*url: "http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$d/job.yaml" | head -n 1)
if [ -z "$port" ]; then
	not_ok "--lava-serve: the server stopped with the run" "no port in job.yaml"
elif curl -s -o /dev/null --max-time 5 "http://127.0.0.1:$port/"; then
	not_ok "--lava-serve: the server stopped with the run" "port $port still answers"
else
	ok "--lava-serve: the server stopped with the run (port $port closed)"
fi

# --- a bad deploy URL: LAVA fails the job before any kernel -------------------------
run deploy --kernel "$a64" $L --lava-url-prefix file:///nonexistent
r=$(boot_dir deploy cloud-arm64.vmlinuz default 1)/result.json
[ $rc = 125 ] && ok "a bad deploy URL: exit 125" || not_ok "a bad deploy URL: exit 125" "exit $rc: $(tail -n 3 "$tmp/deploy.err")"
expect "a bad deploy URL: INFRA_ERROR" "$r" verdict INFRA_ERROR
case $("$JGET" "$r" reason) in
"LAVA job "*" Incomplete: "*"does not exist or is not readable"*) ok "a bad deploy URL: LAVA's reason" ;;
*) not_ok "a bad deploy URL: LAVA's reason" "$("$JGET" "$r" reason)" ;;
esac
expect "a bad deploy URL: result.json backend" "$r" backend lava
expect "a bad deploy URL: the job's health" "$r" lava.health Incomplete
id=$("$JGET" "$r" lava.job_id)
expect "a bad deploy URL: the job's URL" "$r" lava.job_url "${LAVA_URL%/}/scheduler/job/$id"

# --- three kernels: the ABI tables through LAVA equal the embedded driver's --------
run emb --kernel "$a64" --kernel "$x86" --kernel "$arm"
emb_rc=$rc
run lava --kernel "$a64" --kernel "$x86" --kernel "$arm" $L
lava_rc=$rc
[ $lava_rc = 0 ] && ok "three kernels through LAVA: exit 0 (all PASS)" ||
	not_ok "three kernels through LAVA: exit 0 (all PASS)" "exit $lava_rc: $(tail -n 8 "$tmp/lava.out")"
# submitted at once: the three "started" (the job is in LAVA's queue) come
# before the first verdict
third=$(grep -n '\] started$' "$tmp/lava.err" | sed -n '3s/:.*//p')
verdict=$(grep -n '\] [A-Z_]* in [0-9.]*s' "$tmp/lava.err" | sed -n '1s/:.*//p')
[ -n "$third" ] && [ -n "$verdict" ] && [ "$third" -lt "$verdict" ] &&
	ok "three kernels: the three jobs submitted at once" ||
	not_ok "three kernels: the three jobs submitted at once" "$(head -n 8 "$tmp/lava.err")"
for flavour in cloud-arm64 amd64 armmp-lpae; do
	e=$(boot_dir emb "$flavour.vmlinuz" default 1)/result.json
	l=$(boot_dir lava "$flavour.vmlinuz" default 1)/result.json
	if [ $emb_rc != 0 ] || [ ! -s "$e" ]; then
		not_ok "$flavour: the ABI table through LAVA equals the embedded driver's" "the embedded run failed: exit $emb_rc"
		continue
	fi
	ea=$("$JGET" "$e" abis); la=$("$JGET" "$l" abis 2>&1)
	[ -n "$ea" ] && [ "$ea" = "$la" ] && ok "$flavour: the ABI table through LAVA equals the embedded driver's ($la)" ||
		not_ok "$flavour: the ABI table through LAVA equals the embedded driver's" "embedded $ea, LAVA $la"
	expect "$flavour: PASS through LAVA" "$l" verdict PASS
	d=$(dirname "$l")
	check "$flavour: console.log, console.tlog, job.yaml and LAVA's log kept" \
		test -s "$d/console.log" -a -s "$d/console.tlog" -a -s "$d/job.yaml" -a -s "$d/lava-log.yaml"
	# seconds from the dispatcher's QEMU start (under load its first line
	# came at 10.06 s once): any stamp below 1000 s, never the host's clock
	first=$(head -n 1 "$d/console.tlog" | cut -c1-13)
	case $first in
	"[0"[0-9][0-9][0-9].*"]") ok "$flavour: console.tlog stamped from the log's dt ($first)" ;;
	*) not_ok "$flavour: console.tlog stamped from the log's dt" "$first" ;;
	esac
done

# --- a panic: judged from the console, not from LAVA's Incomplete ------------------
mkdir -p "$tmp/badinit"
printf 'not a program\n' >"$tmp/badinit/init"
chmod 755 "$tmp/badinit/init"
(cd "$tmp/badinit" && echo init | cpio -o -H newc >"$tmp/badinit.cpio" 2>/dev/null)
run panic --kernel "$a64" --initramfs "$tmp/badinit.cpio" --append init=/does-not-exist $L
r=$(boot_dir panic cloud-arm64.vmlinuz default 1)/result.json
[ $rc = 2 ] && ok "a panic through LAVA: exit 2" || not_ok "a panic through LAVA: exit 2" "exit $rc: $(tail -n 3 "$tmp/panic.err")"
expect "a panic through LAVA: PANIC" "$r" verdict PANIC
expect "a panic through LAVA: the judge's title" "$r" events.0.title \
	"kernel panic: Requested init /does-not-exist failed (error -NUM)."

# --- a bootrig that dies mid-run cancels its job (emergency_stop) ------------------
# The job's deploy hangs on a port that accepts and never answers (no QEMU
# starts); gdb makes bootrig call exit() as a die() would: its atexit
# handler must cancel the job in LAVA.
if ! command -v gdb >/dev/null 2>&1; then
	skip "a bootrig that dies mid-run cancels its job" "gdb is not installed (it makes bootrig exit mid-run)"
else
	$PY -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(50)
print(s.getsockname()[1], flush=True); time.sleep(300)' >"$tmp/hang.port" &
hang=$!
	for i in $(seq 1 50); do [ -s "$tmp/hang.port" ] && break; sleep 0.1; done
	"$BOOTRIG" run --kernel "$a64" $L --lava-url-prefix "http://127.0.0.1:$(cat "$tmp/hang.port")" \
		-o "$tmp/die" >"$tmp/die.out" 2>"$tmp/die.err" &
	pid=$!
	wait_started "$tmp/die.err" $pid
	for i in $(seq 1 100); do     # the job is in LAVA's hands (its deploy hangs)
		case $(last_job) in *'"state":"Running"'*|*'"state": "Running"'*) break ;; esac
		sleep 0.3
	done
	gdb -p $pid -batch -ex 'call (void)exit(3)' >"$tmp/die.gdb" 2>&1
	wait $pid
	rc=$?
	kill $hang 2>/dev/null
	canceled=""
	for i in $(seq 1 60); do
		case $(last_job) in *'"health":"Canceled"'*|*'"health": "Canceled"'*) canceled=1; break ;; esac
		sleep 0.5
	done
	[ $rc = 3 ] && [ -n "$canceled" ] && ok "a bootrig that dies mid-run cancels its job" ||
		not_ok "a bootrig that dies mid-run cancels its job" "exit $rc; $(last_job | cut -c1-300)"
fi

# --- Ctrl-C cancels the submitted job ----------------------------------------------
# this run's own job: the one LAVA numbered after the newest before it (the
# case before leaves its own job Canceled, so the newest job alone proves
# nothing when the interrupted run submitted none)
before=$(last_job | $PY -c 'import json, sys; r = json.load(sys.stdin)["results"]; print(r[0]["id"] if r else 0)')
"$BOOTRIG" run --kernel "$a64" $L -o "$tmp/intr" >"$tmp/intr.out" 2>"$tmp/intr.err" &
pid=$!
wait_started "$tmp/intr.err" $pid
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
[ $rc = 130 ] && ok "Ctrl-C: exit 130" || not_ok "Ctrl-C: exit 130" "exit $rc: $(tail -n 3 "$tmp/intr.err")"
d=$(boot_dir intr cloud-arm64.vmlinuz default 1)
[ ! -e "$d/result.json" ] && ok "Ctrl-C: no result for the interrupted boot" || not_ok "Ctrl-C: no result for the interrupted boot"
# the jobs after $before: exactly one, this run's, canceled (or being)
ours=$(curl -s -H "Authorization: Token $(cat "$LAVA_TOKEN_FILE")" \
	"${LAVA_URL%/}/api/v0.2/jobs/?ordering=-id&limit=20" | $PY -c '
import json, sys
jobs = [j for j in json.load(sys.stdin)["results"] if j["id"] > int(sys.argv[1])]
print(" ".join("%d:%s:%s" % (j["id"], j["state"], j["health"]) for j in jobs))' "$before")
case $ours in
*' '*|'') not_ok "Ctrl-C: the LAVA job is canceled" "jobs submitted after $before: '$ours' (want this run's one)" ;;
*:Canceling:*|*:Canceled) ok "Ctrl-C: this run's own LAVA job ($ours) is canceled" ;;
*) not_ok "Ctrl-C: the LAVA job is canceled" "this run's job: $ours" ;;
esac
