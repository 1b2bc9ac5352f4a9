#!/bin/sh
# t-profile-host: the host side of a metric's profile (issue 31), no boot:
#   judge    console logs carrying PROFILE, PFUNC and PSTACK records (made by
#            br-record, real CRCs) -> `bootrig judge --format json` -> each
#            metric's "profile" object (runner/RESULTS.md): shares, counts,
#            status ok; unavailable; incomplete when a PFUNC is missing, the
#            counts do not add up, or a guest floods PFUNC records (kept to
#            the announced count, the rest counted), and the verdict stays
#            PASS in every case
#   history  a profiled result.json imported into a history database (schema
#            4: profile, profile_function, profile_stack), `bootrig history`
#            printing a function's share (abi.test.name:self.FUNC); a version
#            3 database read as it is and upgraded by import
. "$(dirname "$0")/lib.sh"
set -u
REC=$TOP/build/tests/tools/br-record
tmp=$(mktemp -d /tmp/t-profile-host.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
export NO_COLOR=1

# --- making logs ---
seq=0
rec() {
	kind=$1; shift
	"$REC" "$seq" "$kind" "$@"
	seq=$((seq + 1))
}
metric() {  # metric NAME MEDIAN
	rec METRIC abi=x86_64 test=lat_syscall name="$1" unit=us better=lower n=3 median="$2" \
		min="$2" max="$2" mean="$2" stddev=0 samples="$2,$2,$2"
}
# profile NAME SAMPLES F K OTHER: the PROFILE header
profile() {
	rec PROFILE abi=x86_64 test=lat_syscall name="$1" event=cpu-clock period_ns=50000 \
		samples="$2" lost=0 functions="$3" stacks="$4" stacks_other="$5"
}
pfunc() { rec PFUNC abi=x86_64 test=lat_syscall name="$1" fn="$2" self="$3" children="$4"; }
pstack() { rec PSTACK abi=x86_64 test=lat_syscall name="$1" n="$2" stack="$3"; }
# log FILE BODY-FUNCTION: a whole passing boot around the body's records
log() {
	seq=0
	{
		echo "[    0.000000] Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org) #1 SMP"
		rec BEGIN proto=1 init=0.1.0 arch=x86_64 plan=file
		rec TEST abi=x86_64 test=lat_syscall status=start
		"$2"
		rec RESULT abi=x86_64 test=lat_syscall status=PASS ms=100
		rec END tests=1 passed=1 failed=0 timeout=0 records=$seq
		echo "[    9.000000] reboot: Power down"
	} > "$1"
}
# judge LOG: its JSON in $tmp/j.json, status in rc
judge() {
	"$BOOTRIG" judge --format json "$1" > "$tmp/j.json" 2> "$tmp/err"
	rc=$?
}
jq_is() {  # jq_is NAME FILTER WANT
	got=$(jq -c "$2" "$tmp/j.json" 2>&1)
	[ "$got" = "$3" ] && ok "$1" || not_ok "$1" "got $got, want $3"
}

# --- a good profile ---
good_body() {
	metric open_close 2.5
	profile open_close 4000 3 2 1000
	pfunc open_close do_sys_openat2 50 1820
	pfunc open_close memchr_inv 856 900
	pfunc open_close main_[u] 3 4000
	pstack open_close 2880 'main_[u];entry_SYSCALL_64;do_syscall_64;do_sys_openat2'
	pstack open_close 120 'main_[u];entry_SYSCALL_64;memchr_inv'
	metric null 0.1
}
log "$tmp/good.log" good_body
judge "$tmp/good.log"
jq_is "judge: a profiled boot still PASSes" '.verdict' '"PASS"'
jq_is "judge: the profile's header (status, event, period, samples, lost, stacks_other)" \
	'.metrics[0].profile | [.status, .event, .period_ns, .samples, .lost, .stacks_other]' \
	'["ok","cpu-clock",50000,4000,0,1000]'
jq_is "judge: functions in order, shares in percent of samples (4 decimals at most)" \
	'[.metrics[0].profile.functions[] | [.name, .self, .children, .self_samples, .children_samples]]' \
	'[["do_sys_openat2",1.25,45.5,50,1820],["memchr_inv",21.4,22.5,856,900],["main_[u]",0.075,100,3,4000]]'
jq_is "judge: the folded stacks with their samples" \
	'[.metrics[0].profile.stacks[] | [.stack, .samples]]' \
	'[["main_[u];entry_SYSCALL_64;do_syscall_64;do_sys_openat2",2880],["main_[u];entry_SYSCALL_64;memchr_inv",120]]'
jq_is "judge: a metric without a profile has no profile object; nothing counted as not read" \
	'[(.metrics[1] | has("profile")), (.protocol | has("profile_not_read"))]' '[false,false]'
thirds_body() {
	metric open_close 2.5
	profile open_close 3 1 1 0
	pfunc open_close f 1 1
	pstack open_close 3 'f'
}
log "$tmp/thirds.log" thirds_body
judge "$tmp/thirds.log"
jq_is "judge: a share of 1/3 is 33.3333" '.metrics[0].profile.functions[0].self' '33.3333'

# --- unavailable ---
unavail_body() {
	metric open_close 2.5
	rec PROFILE abi=x86_64 test=lat_syscall name=open_close status=unavailable reason=ENOSYS
}
log "$tmp/unavail.log" unavail_body
judge "$tmp/unavail.log"
jq_is "judge: an unavailable profile: status and reason, no data, PASS" \
	'[.verdict, .metrics[0].profile]' '["PASS",{"status":"unavailable","reason":"ENOSYS"}]'

# --- incomplete ---
missing_body() {
	metric open_close 2.5
	profile open_close 4000 3 1 1120
	pfunc open_close do_sys_openat2 50 1820
	pfunc open_close memchr_inv 856 900
	pstack open_close 2880 'main_[u];do_sys_openat2'
}
log "$tmp/missing.log" missing_body
judge "$tmp/missing.log"
jq_is "judge: a PFUNC missing: incomplete, kept (2 functions), PASS" \
	'[.verdict, .metrics[0].profile.status, (.metrics[0].profile.functions | length)]' \
	'["PASS","incomplete",2]'
sum_body() {
	metric open_close 2.5
	profile open_close 4000 1 1 10
	pfunc open_close do_sys_openat2 50 1820
	pstack open_close 2880 'main_[u];do_sys_openat2'
}
log "$tmp/sum.log" sum_body
judge "$tmp/sum.log"
jq_is "judge: stacks and stacks_other that do not add up to samples: incomplete" \
	'[.verdict, .metrics[0].profile.status]' '["PASS","incomplete"]'
order_body() {
	metric open_close 2.5
	profile open_close 4000 1 1 1120
	pfunc open_close do_sys_openat2 2000 1820
	pstack open_close 2880 'main_[u];do_sys_openat2'
}
log "$tmp/order.log" order_body
judge "$tmp/order.log"
jq_is "judge: a function whose self exceeds its children: incomplete" \
	'.metrics[0].profile.status' '"incomplete"'
flood_body() {
	metric open_close 2.5
	profile open_close 100 2 1 0
	i=0
	while [ $i -lt 300 ]; do
		pfunc open_close "fn$i" 1 1
		i=$((i + 1))
	done
	pstack open_close 100 'main_[u];fn0'
	rec PFUNC abi=x86_64 test=lat_syscall name=other fn=x self=1 children=1
}
log "$tmp/flood.log" flood_body
judge "$tmp/flood.log"
jq_is "judge: a flood of 300 PFUNC for 2 announced: 2 kept, 299 counted not read, incomplete, PASS" \
	'[.verdict, .metrics[0].profile.status, (.metrics[0].profile.functions | length), .protocol.profile_not_read]' \
	'["PASS","incomplete",2,299]'
orphan_body() {
	profile open_close 4000 0 0 4000
	metric open_close 2.5
}
log "$tmp/orphan.log" orphan_body
judge "$tmp/orphan.log"
jq_is "judge: a PROFILE before any METRIC of its name is not read (counted), PASS" \
	'[.verdict, (.metrics[0] | has("profile")), .protocol.profile_not_read]' '["PASS",false,1]'
