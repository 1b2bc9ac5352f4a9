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
#   run      `run --profile` appends bootrig.profile=1 to the command line
#            (the fake backend's result.json), a suite's profile = true puts
#            profile=1 in the plan; each backend carries the line: LAVA's
#            job (--lava-job-only), libvirt's domain.xml and the guest's
#            /proc/cmdline, a simulated board's kernel command line
# The last two boot QEMU (Debian's cloud-arm64 kernel, TCG): run the group
# under flock /tmp/bootrig-qemu.lock.
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
# profile NAME SAMPLES F K OTHER [INTERRUPT]: the PROFILE header (an older
# guest's, without interrupt=, when INTERRUPT is not given)
profile() {
	rec PROFILE abi=x86_64 test=lat_syscall name="$1" event=cpu-clock period_ns=50000 \
		samples="$2" lost=0 functions="$3" stacks="$4" stacks_other="$5" ${6+interrupt="$6"}
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
jq_is "judge: the profile's header (status, event, period, samples, lost, stacks_other; interrupt 0 when an older guest does not say)" \
	'.metrics[0].profile | [.status, .event, .period_ns, .samples, .lost, .stacks_other, .interrupt]' \
	'["ok","cpu-clock",50000,4000,0,1000,0]'
jq_is "judge: functions in order, shares in percent of samples (4 decimals at most)" \
	'[.metrics[0].profile.functions[] | [.name, .self, .children, .self_samples, .children_samples]]' \
	'[["do_sys_openat2",1.25,45.5,50,1820],["memchr_inv",21.4,22.5,856,900],["main_[u]",0.075,100,3,4000]]'
jq_is "judge: the folded stacks with their samples" \
	'[.metrics[0].profile.stacks[] | [.stack, .samples]]' \
	'[["main_[u];entry_SYSCALL_64;do_syscall_64;do_sys_openat2",2880],["main_[u];entry_SYSCALL_64;memchr_inv",120]]'
jq_is "judge: a metric without a profile has no profile object; nothing counted as not read" \
	'[(.metrics[1] | has("profile")), (.protocol | has("profile_not_read"))]' '[false,false]'
irq_body() {
	metric open_close 2.5
	profile open_close 300 1 1 0 "$IRQ"
	pfunc open_close f 1 1
	pstack open_close 300 'f'
}
IRQ=212; log "$tmp/irq.log" irq_body; judge "$tmp/irq.log"
jq_is "judge: interrupt= (samples of interrupt work, outside samples) is kept" \
	'.metrics[0].profile | [.status, .samples, .interrupt]' '["ok",300,212]'
IRQ=x12; log "$tmp/irq.log" irq_body; judge "$tmp/irq.log"
jq_is "judge: a malformed interrupt= makes the profile incomplete, kept, still PASS" \
	'[.verdict, .metrics[0].profile.status, .metrics[0].profile.functions[0].name]' '["PASS","incomplete","f"]'
cut_body() {
	metric open_close 2.5
	rec PROFILE abi=x86_64 test=lat_syscall name=open_close event=cpu-clock period_ns=50000 \
		samples=3 lost=0 functions=1 stacks=1 stacks_other=0 interrupt=0 cut_self="$CUT" cut_children=1
	pfunc open_close f 1 1
	pstack open_close 3 'f'
}
CUT=1; log "$tmp/cut.log" cut_body; judge "$tmp/cut.log"
jq_is "judge: cut_self= and cut_children= (what a function not listed has at most) kept as shares" \
	'.metrics[0].profile | [.status, .cut_self, .cut_children]' '["ok",33.3333,33.3333]'
CUT=4; log "$tmp/cut.log" cut_body; judge "$tmp/cut.log"
jq_is "judge: a cut above samples makes the profile incomplete, without a cut" \
	'.metrics[0].profile | [.status, has("cut_self")]' '["incomplete",false]'
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

# --- the history database: schema 6, a function's share in history ---
MK=$TOP/build/tests/tools/mkresults
q() { sqlite3 "$1" "$2" 2>&1; }
br() {
	"$BOOTRIG" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
OC=x86_64:lat_syscall:open_close:us:lower:10:1
"$MK" "$tmp/r" k-a default 3 1 $OC >/dev/null
"$MK" "$tmp/r" k-b default 3 2 $OC >/dev/null
# addprof FILE SELF: metrics[0] gets a profile whose memchr_inv has that self
# share ("" leaves memchr_inv out: 0 % in that boot)
addprof() {
	if [ -n "$2" ]; then fns="[{\"name\":\"do_sys_openat2\",\"self\":1.25,\"children\":45.5,\"self_samples\":50,\"children_samples\":1820},
		{\"name\":\"memchr_inv\",\"self\":$2,\"children\":30,\"self_samples\":1,\"children_samples\":1200}]"
	else fns='[{"name":"do_sys_openat2","self":1.25,"children":45.5,"self_samples":50,"children_samples":1820}]'; fi
	jq --argjson fns "$fns" '.metrics[0].profile = {status: "ok", event: "cpu-clock", period_ns: 50000,
		samples: 4000, lost: 2, functions: $fns,
		stacks: [{stack: "main_[u];do_sys_openat2", samples: 3000}, {stack: "main_[u];memchr_inv", samples: 900}],
		stacks_other: 100}' "$1" >"$1.new" && mv "$1.new" "$1"
}
addprof "$tmp/r/k-a/default/1/result.json" 1
addprof "$tmp/r/k-a/default/2/result.json" 1.02
addprof "$tmp/r/k-a/default/3/result.json" ""
addprof "$tmp/r/k-b/default/1/result.json" 21.4
addprof "$tmp/r/k-b/default/2/result.json" 21.41
addprof "$tmp/r/k-b/default/3/result.json" 21.42
DB=$tmp/h.db
br import --db "$DB" "$tmp/r"
v=$(q "$DB" 'PRAGMA user_version')
rows=$(q "$DB" "SELECT (SELECT count(*) FROM profile) || ' ' || (SELECT count(*) FROM profile_function) || ' ' || (SELECT count(*) FROM profile_stack)")
[ $rc -eq 0 ] && [ "$v" = 6 ] && [ "$rows" = "6 11 12" ] &&
	ok "import: schema 6; each boot's profile, its functions and stacks recorded (6 11 12 rows)" ||
	not_ok "import of profiled boots" "rc=$rc v=$v rows=$rows $(cat "$tmp/err")"
row=$(q "$DB" "SELECT p.event || '|' || p.period_ns || '|' || p.samples || '|' || p.lost || '|' || p.stacks_other || '|' || f.fn || '|' || f.self || '|' || f.children || '|' || s.stack || '|' || s.samples FROM profile p JOIN profile_function f ON f.boot = p.boot AND f.seq = p.seq AND f.rank = 0 JOIN profile_stack s ON s.boot = p.boot AND s.seq = p.seq AND s.rank = 1 JOIN boot b ON b.id = p.boot WHERE b.path LIKE '%/k-a/default/1/result.json'")
[ "$row" = "cpu-clock|50000.0|4000.0|2.0|100.0|do_sys_openat2|1.25|45.5|main_[u];memchr_inv|900.0" ] &&
	ok "a profile's rows: header, first function, second stack" || not_ok "a profile's rows" "$row"
br history --db "$DB" --format json x86_64.lat_syscall.open_close:self.memchr_inv
got=$(jq -c '[.metric.id, .metric.unit, .metric.better, [.kernels[].observations], .change_points]' "$tmp/out" 2>&1)
[ $rc -eq 0 ] && [ "$got" = '["x86_64.lat_syscall.open_close:self.memchr_inv","%","lower",[[1,1.02,0],[21.4,21.41,21.42]],[1]]' ] &&
	ok "history: a function's self share per boot (0 where the profile lacks it), a change point" ||
	not_ok "history of a function's share" "rc=$rc $got $(cat "$tmp/err")"
br history --db "$DB" x86_64.lat_syscall.open_close:children.memchr_inv
if [ $rc -eq 0 ] && grep -q "^metric: x86_64.lat_syscall.open_close:children.memchr_inv (%, lower is better)" "$tmp/out" &&
   grep -q "^0 change points" "$tmp/out"; then ok "history: a children share in text, no change"
else not_ok "history: a children share" "rc=$rc $(cat "$tmp/out" "$tmp/err")"; fi
br history --db "$DB" --format json x86_64.lat_syscall.open_close:children.memchr_inv
got=$(jq -c '[.kernels[].observations]' "$tmp/out" 2>&1)
[ "$got" = '[[30,30,0],[30,30,30]]' ] && ok "history: the children share per boot" ||
	not_ok "history: the children share per boot" "$got $(cat "$tmp/err")"
br history --db "$DB" x86_64.lat_syscall.open_close:self.
[ $rc -eq 64 ] && grep -q "no function after" "$tmp/err" && ok "history: ':self.' without a function is a usage error" ||
	not_ok "history: ':self.' without a function" "rc=$rc $(cat "$tmp/err")"
br history --db "$DB" x86_64.lat_syscall.open_close
[ $rc -eq 0 ] && grep -q "^metric: x86_64.lat_syscall.open_close (us, lower is better)" "$tmp/out" &&
	ok "history: the metric itself, as before" || not_ok "history: the metric itself" "rc=$rc $(cat "$tmp/err")"

# a version 3 database (before the profile tables): read as it is, upgraded by import
cp "$DB" "$tmp/v3.db"
sqlite3 "$tmp/v3.db" 'DROP TABLE profile_function; DROP TABLE profile_stack; DROP TABLE profile; PRAGMA user_version = 3'
br history --db "$tmp/v3.db" x86_64.lat_syscall.open_close
h1=$rc
br history --db "$tmp/v3.db" x86_64.lat_syscall.open_close:self.memchr_inv
v=$(q "$tmp/v3.db" 'PRAGMA user_version')
[ $h1 -eq 0 ] && [ $rc -eq 65 ] && grep -q "no kernel has a PASS boot with metric" "$tmp/err" && [ "$v" = 3 ] &&
	ok "a version 3 database: history reads it as it is (no profiles), leaves it at 3" ||
	not_ok "reading a version 3 database" "h1=$h1 rc=$rc v=$v $(cat "$tmp/err")"
"$MK" "$tmp/r2" k-c default 2 3 $OC >/dev/null
addprof "$tmp/r2/k-c/default/1/result.json" 5
addprof "$tmp/r2/k-c/default/2/result.json" 5.5
br import --db "$tmp/v3.db" "$tmp/r2"
v=$(q "$tmp/v3.db" 'PRAGMA user_version')
rows=$(q "$tmp/v3.db" "SELECT count(*) FROM profile")
br history --db "$tmp/v3.db" --format json x86_64.lat_syscall.open_close:self.memchr_inv
got=$(jq -c '[.kernels[].observations]' "$tmp/out" 2>&1)
[ "$v" = 6 ] && [ "$rows" = 2 ] && [ "$got" = '[[],[],[5,5.5]]' ] &&
	ok "a version 3 database: import upgrades it to 6 and records the new boots' profiles" ||
	not_ok "migration 3 -> 6" "v=$v rows=$rows got=$got $(cat "$tmp/err")"

# --- run --profile: bootrig.profile=1 on every boot's command line ---
# build/bootrig-fake (bootrig with the fake backend, no QEMU): result.json's
# append, the line every backend boots
FAKE=$TOP/build/bootrig-fake
{ head -c 56 /dev/zero; printf 'ARMd'; head -c 8 /dev/zero; printf 'Linux version 6.1.0-fake #1\n'; } >"$tmp/Image"
echo initrd >"$tmp/initrd.img"
for p in "" --profile; do
	BOOTRIG_FAKE_CONSOLE=$TOP/tests/fixtures/judge/pass-cloud-arm64.log "$FAKE" run --kernel "$tmp/Image" \
		--initramfs "$tmp/initrd.img" --append quiet $p -o "$tmp/fake$p" >/dev/null 2>"$tmp/err"
	echo "$?:$(jq -r .append "$tmp/fake$p"/*/default/1/result.json 2>&1)" >"$tmp/fake$p.append"
done
[ "$(cat "$tmp/fake.append")" = "0:console=ttyAMA0 panic=-1 quiet" ] &&
[ "$(cat "$tmp/fake--profile.append")" = "0:console=ttyAMA0 panic=-1 quiet bootrig.profile=1" ] &&
	ok "run --profile: bootrig.profile=1 appended to the command line (and not without it)" ||
	not_ok "run --profile: the command line" "$(cat "$tmp/fake.append" "$tmp/fake--profile.append" "$tmp/err")"
# a suite with profile = true: profile=1 in the plan of the image built
printf 'suites = ( { name = "prof"; tests = [ "lat_syscall" ]; profile = true; } );\n' >"$tmp/prof.cfg"
a64=$(kernel_path cloud-arm64)
for s in smoke prof; do
	"$BOOTRIG" build --kernel "$a64" --config "$tmp/prof.cfg" --suite $s -o "$tmp/$s.img" >/dev/null 2>"$tmp/err"
	gzip -dc "$tmp/$s.img" 2>/dev/null | cpio -i --quiet --to-stdout etc/bootrig/plan >"$tmp/$s.plan" 2>/dev/null
done
grep -qx profile=1 "$tmp/prof.plan" && ! grep -q profile "$tmp/smoke.plan" &&
	ok "a suite with profile = true: profile=1 in the guest's plan (not in the others')" ||
	not_ok "a suite's profile = true in the plan" "$(cat "$tmp/prof.plan" "$tmp/err")"
# LAVA: the job's QEMU -append carries it (--lava-job-only: nothing submitted)
"$BOOTRIG" run --kernel "$a64" --lava http://127.0.0.1:1/ --lava-job-only --profile -o "$tmp/lava" \
	>/dev/null 2>"$tmp/err"
rc=$?
job=$(echo "$tmp"/lava/*/default/1/job.yaml)
[ $rc -eq 0 ] && grep -q -- '-append \\"console=ttyAMA0 panic=-1 bootrig.profile=1\\"' "$job" &&
	ok "run --profile on LAVA: the job's -append ends with bootrig.profile=1" ||
	not_ok "run --profile on LAVA" "rc=$rc $(grep append "$job" 2>&1) $(tail -3 "$tmp/err")"

# The real boots (QEMU: run this group under flock /tmp/bootrig-qemu.lock).
# libvirt: the domain's <cmdline> and the guest's own /proc/cmdline
"$BOOTRIG" run --kernel "$a64" --profile -o "$tmp/lv" >/dev/null 2>"$tmp/err"
rc=$?
d=$(echo "$tmp"/lv/*/default/1)
if [ $rc -eq 0 ] && grep -q "<cmdline>console=ttyAMA0 panic=-1 bootrig.profile=1</cmdline>" "$d/domain.xml" &&
   [ "$(jq -r .sysinfo.cmdline "$d/result.json")" = "console=ttyAMA0 panic=-1 bootrig.profile=1" ]; then
	ok "run --profile on libvirt: domain.xml's <cmdline> and the guest's /proc/cmdline, PASS"
else not_ok "run --profile on libvirt" "rc=$rc $(grep cmdline "$d/domain.xml" 2>&1) $(tail -3 "$tmp/err")"; fi
# a board (configs/boards/sim-arm64-tftp: U-Boot in QEMU): the kernel's own
# "Kernel command line:" in the console
export XDG_CACHE_HOME="$tmp/c"
"$BOOTRIG" run --board sim-arm64-tftp --kernel "$a64" --profile -o "$tmp/board" >/dev/null 2>"$tmp/err"
rc=$?
for b in "$XDG_CACHE_HOME"/bootrig/boards/*; do
	[ -d "$b" ] && sh "$TOP/configs/boards/sim-board.sh" off "$b"
done
d=$(echo "$tmp"/board/*/default/1)
[ $rc -eq 0 ] && grep -q "Kernel command line: .*panic=-1 bootrig.profile=1" "$d/console.log" &&
	ok "run --profile on a board: the kernel's command line holds bootrig.profile=1, PASS" ||
	not_ok "run --profile on a board" "rc=$rc $(grep 'command line' "$d/console.log" 2>&1) $(tail -3 "$tmp/err")"
echo "1..$_tap_n"
