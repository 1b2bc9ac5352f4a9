#!/bin/sh
# t-hostile.sh: hostile input holds (issue 28). A guest's console, a results
# file or a database another program wrote can neither crash, hang, mislead
# nor redirect bootrig. One test (or a few) per reproduction of the issue,
# numbered as there:
#   1  17 nested KTAP subtests: judge and logdiff end, ASan clean
#   2  two medians 1e17 and 1e17+16: compare --format html and history --svg end
#   3  a symlink planted at -o's (and --svg's, export -o's) temporary name
#   4  compare --by-host: a host name's ESC, BEL, 0x9b never reach the terminal
#   5  a symlink inside a results directory: each boot counted once
#   6  NaN / Infinity in a result.json: refused, the file and field named
#   7  history and compare db: never write the database
#   8  --db '', :memory:, file: URIs refused (exit 64)
#   9  /dev/zero as results, a console.log or an import: bounded, clear errors;
#      40,000 metrics and 2,048 KTAP suites read whole (how fast: make bench,
#      scripts/bench.d/52-hostile.sh)
#  10  a later "1..0" does not end the KTAP document
#  11  U+FFFE / U+FFFF: the JUnit report and the SVG stay well-formed XML
#  12  judge --format ktap: a diagnostic stays one, no invented "unnamed"
#      suite, U+2028 escaped
#  13  a NaN sample: import refuses it naming the file, as compare does
#  14  NULLs in a database without NOT NULLs: history and compare db: no crash
#  15  a report written to /dev/full: an error and a failing exit status
#  16  a metric named null[1] is itself, not an fnmatch pattern
# Then issue 45's (the second round), numbered 45.N as there:
#  45.1 a profile stack of 100,000 frames: the flame graph draws 256, says so
#  45.2 20,000 stacks: linear, at most 5,000 frames drawn, the rest said
#  45.3 600 metrics with control-byte units, 50 such profiles: result.json
#       stays under the readers' 64 MiB (profiles left out, said)
#  45.4 PSTACK n=2^64-1 (the stacks' sum wraps), interrupt=2^64-1: incomplete
#       (interrupt beside samples, outside them, is not a fault)
#  45.5 a profile's share of -501 or 352 %, a count of 1e308 or -4, a function
#       twice, in a result.json or a database (a non-number too): refused;
#       an incomplete profile's share of 500 % is written as 100 (readable)
#  45.6 bidirectional controls in a host, metric and KTAP case name: escaped
#  45.7 a NUL byte in a PFUNC's fn or a PSTACK's stack: incomplete; a name
#       listed twice: one function, its counts added
#  45.8 a flame label cut on a UTF-8 character boundary; event= (empty) on a
#       PROFILE record: named, the record's numbers kept
#  45.8 a database of user_version -1 or 8: import, history and compare db:
#       name the file, the version found and the versions known (exit 65)
#  45.8 a copied boot directory (cp -r 1 9): one boot, as import keys it
#       (compare, import, export count it once and say so); a boot repeated
#       on purpose is two
#  45.9 the pages' schema version is a new database's: tests/t-history.sh
# Nothing here boots.
. "$(dirname "$0")/lib.sh"
set -u
export LC_ALL=C NO_COLOR=1
MK=$TOP/build/tests/tools/mkresults
CHECK=$TOP/build/tests/tools/textcheck
tmp=$(mktemp -d /tmp/t-hostile.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
cd "$tmp" || exit 1

# br [-t SECONDS] ARGS...: bootrig ARGS under a time limit (default 60 s),
# stdout in $tmp/out, stderr in $tmp/err, status in rc (124: timed out).
br() {
	t=60
	if [ "$1" = -t ]; then t=$2; shift 2; fi
	timeout -k 5 "$t" "$BOOTRIG" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
# sane: the last br neither crashed, timed out nor tripped a sanitizer.
sane() {
	[ $rc -lt 124 ] && ! grep -qE 'AddressSanitizer|runtime error|LeakSanitizer' "$tmp/err"
}
why() { printf 'rc=%s\n%s' "$rc" "$(head -c 1500 "$tmp/err")"; }
err_has() { grep -qF -- "$1" "$tmp/err"; }

# --- 1. 17 nested KTAP levels ----------------------------------------------
{ printf 'KTAP version 1\n'; for i in $(seq 16); do printf '# Subtest: s%d\n' "$i"; done; } >deep.log
{ printf 'KTAP version 1\n1..1\n'; for i in $(seq 20); do printf '# Subtest: s%d\n1..1\n' "$i"; done
  for i in $(seq 20 -1 1); do printf 'ok 1 s%d\n' "$i"; done; } >deep2.log
for f in deep deep2; do
	br judge $f.log
	if sane && [ $rc -le 2 ]; then ok "1: judge $f.log ends (exit $rc)"; else not_ok "1: judge $f.log" "$(why)"; fi
	br judge --format json $f.log
	if sane && grep -q 'nested deeper than 16 levels' out; then ok "1: judge --format json $f.log: the depth is a problem"
	else not_ok "1: judge json $f.log" "$(why)"; fi
done
br logdiff deep.log deep2.log
if sane; then ok "1: logdiff of the two ends (exit $rc)"; else not_ok "1: logdiff" "$(why)"; fi

# --- 2. an axis below the numbers' precision --------------------------------
M2=x86_64:lat:m:us:lower
"$MK" c2/base kb default 3 1 $M2:100000000000000000/100000000000000000/100000000000000000:0 >/dev/null
"$MK" c2/cand kc default 3 1 $M2:100000000000000016/100000000000000016/100000000000000016:0 >/dev/null
br -t 10 compare c2/base c2/cand --format html -o c2.html
if sane && [ $rc -le 1 ] && [ "$(grep -c '<svg' c2.html)" -ge 1 ]; then ok "2: compare --format html ends"
else not_ok "2: compare --format html" "$(why)"; fi
br -t 30 import --db c2.db c2
br -t 10 history --db c2.db x86_64.lat.m --svg c2.svg
if sane && [ $rc -eq 0 ] && xmllint --noout c2.svg 2>/dev/null; then ok "2: history --svg ends, well-formed"
else not_ok "2: history --svg" "$(why)"; fi

# --- 3. a symlink planted at the temporary name ------------------------------
mkdir -p o3
echo precious >victim
# plant PATH CMD...: CMD (exec'd, so it keeps the shell's pid) with symlinks
# to victim at PATH.tmp.<pid>.0..3 and PATH itself
plant() {
	p=$1; shift
	timeout -k 5 10 sh -c 'for n in 0 1 2 3; do ln -s "$1" "$2.tmp.$$.$n"; done; ln -sf "$1" "$2"; shift 2; exec "$@"' \
		sh "$tmp/victim" "$p" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
}
planted_ok() {
	if [ "$(cat victim)" = precious ] && [ -f "$2" ] && [ ! -L "$2" ]; then ok "3: $1: victim untouched, a new file"
	else not_ok "3: $1" "victim: $(head -c 80 victim); $(ls -l "$2"); $(why)"; echo precious >victim; fi
	rm -f "$2".tmp.*
}
plant o3/report.json "$BOOTRIG" compare c2/base c2/cand --format json -o o3/report.json
planted_ok "compare -o" o3/report.json
plant o3/h.svg "$BOOTRIG" history --db c2.db x86_64.lat.m --svg o3/h.svg
planted_ok "history --svg" o3/h.svg
plant o3/k.json "$BOOTRIG" export --kcidb -o o3/k.json c2/base
planted_ok "export -o" o3/k.json

# --- 4. a host name with terminal controls -----------------------------------
# by_host DIR NAME: sides DIR/a and DIR/b of 2 boots each on host NAME (a
# JSON string's inside, for sed: \\u001b for ESC), compared --by-host
by_host() {
	"$MK" "$1/a" ka default 2 1 $M2:10:1 >/dev/null
	"$MK" "$1/b" kb default 2 2 $M2:10:1 >/dev/null
	for f in "$1"/*/*/*/*/result.json; do
		sed "s/^  \"variant\"/  \"host\":{\"name\":\"$2\"},\\n  \"variant\"/" "$f" >x && mv x "$f"
	done
	br compare --by-host "$1/a" "$1/b"
}
by_host c4 'evil\\u001b]0;PWNED\\u0007\\u009b31m'
if sane && [ $rc -eq 0 ] && "$CHECK" term out >/dev/null && grep -qF 'PWNED' out; then ok "4: --by-host: the host name escaped"
else not_ok "4: --by-host" "$(why) $("$CHECK" term out)"; fi

# --- 5. a symlink inside a results directory ---------------------------------
"$MK" c5/a ka default 1 1 $M2:10/10:0 >/dev/null
"$MK" c5/b kb default 1 1 $M2:11/11:0 >/dev/null
ln -s .. c5/b/kb/x
ln -s default c5/b/kb/latest
br compare c5/a c5/b --format json
n=$(jq -c '[.sides[].boots]' out 2>/dev/null)
if sane && [ $rc -eq 0 ] && [ "$n" = "[1,1]" ]; then ok "5: a symlinked directory counts its boot once (exit 0)"
else not_ok "5: symlinked directories" "$(why) $n"; fi
br export --kcidb -o c5.json c5/b
dups=$(jq -r '.tests[].id' c5.json 2>/dev/null | sort | uniq -d | head -3)
if sane && [ $rc -eq 0 ] && [ -z "$dups" ]; then ok "5: export --kcidb: no duplicate test ids"
else not_ok "5: export duplicates" "$(why) $dups"; fi

# --- 6. NaN and Infinity in a result.json -----------------------------------
"$MK" c6 k6 default 1 1 $M2:10:1 >/dev/null
f6=c6/k6/default/1/result.json
sed 's/"median":[^,]*/"median":Infinity/' $f6 >c6inf.json
mkdir -p c6i/k/default/1 && cp c6inf.json c6i/k/default/1/result.json
br export --kcidb -o c6.json c6i
if sane && [ $rc -eq 65 ] && err_has 'result.json' && err_has 'metrics[0].median' && [ ! -e c6.json ]; then
	ok "6: export --kcidb refuses \"median\": Infinity, naming file and field (65)"
else not_ok "6: Infinity" "$(why)"; fi
mkdir -p c6n/k/default/1
sed 's/^  "boot":/  "duration":NaN,\n  "boot":/' $f6 >c6n/k/default/1/result.json
br compare c6 c6n
if sane && [ $rc -eq 65 ] && err_has 'duration' && err_has 'finite'; then ok "6: compare refuses \"duration\": NaN (65)"
else not_ok "6: NaN" "$(why)"; fi
mkdir -p c6g/k/default/1
{ cat $f6; echo '{"more": 1}'; } >c6g/k/default/1/result.json
br compare c6 c6g
if sane && [ $rc -eq 65 ] && err_has 'more after the document'; then ok "6 (minor): trailing garbage after result.json's object refused"
else not_ok "6: trailing garbage" "$(why)"; fi

# --- 7. read-only commands never write -------------------------------------
sqlite3 foreign.db 'CREATE TABLE t (x); INSERT INTO t VALUES (1);'
s1=$(sha256sum <foreign.db)
br history --db foreign.db x86_64.lat.m
if [ $rc -eq 65 ] && [ "$(sqlite3 foreign.db 'PRAGMA journal_mode')" = delete ] && [ "$s1" = "$(sha256sum <foreign.db)" ] &&
   [ ! -e foreign.db-wal ]; then ok "7: history on another program's database: unchanged, not WAL (65)"
else not_ok "7: history on a foreign database" "$(why) journal=$(sqlite3 foreign.db 'PRAGMA journal_mode')"; fi
br compare "db:foreign.db:kernel=kb" c2/base
if [ $rc -eq 65 ] && [ "$s1" = "$(sha256sum <foreign.db)" ]; then ok "7: compare db: on it: unchanged (65)"
else not_ok "7: compare db: on a foreign database" "$(why)"; fi
: >empty.db
br history --db empty.db x86_64.lat.m
if [ $rc -eq 65 ] && [ ! -s empty.db ]; then ok "7: history on a 0-byte file writes no schema (65)"
else not_ok "7: 0-byte database" "$(why) size=$(wc -c <empty.db)"; fi
cp c2.db ro.db
sqlite3 ro.db 'PRAGMA journal_mode = DELETE' >/dev/null
s2=$(sha256sum <ro.db)
br history --db ro.db x86_64.lat.m
if [ $rc -eq 0 ] && [ "$(sqlite3 ro.db 'PRAGMA journal_mode')" = delete ] && [ "$s2" = "$(sha256sum <ro.db)" ]; then
	ok "7: history on a bootrig database leaves its journal mode and bytes"
else not_ok "7: history leaves the database" "$(why)"; fi
# a writer holds the lock: a reader does not wait for it
python3 -c 'import sqlite3,time; c=sqlite3.connect("ro.db",isolation_level=None); c.execute("BEGIN IMMEDIATE"); time.sleep(6)' &
sleep 1
br -t 4 history --db ro.db x86_64.lat.m
if [ $rc -eq 0 ]; then ok "7: history reads while a writer holds the write lock"
else not_ok "7: history behind a writer" "$(why)"; fi
wait

# --- 8. --db must be a file's path ------------------------------------------
for d in '' ':memory:' 'file:x8.db?mode=memory' 'file:x8.db'; do
	br import --db "$d" c2
	if [ $rc -eq 64 ] && [ ! -e x8.db ]; then ok "8: import --db '$d' refused (64)"; else not_ok "8: import --db '$d'" "$(why)"; fi
done
br history --db ':memory:' x86_64.lat.m
if [ $rc -eq 64 ]; then ok "8: history --db :memory: refused (64)"; else not_ok "8: history --db :memory:" "$(why)"; fi
br run --kernel /nonexistent --db 'file:x8.db' -o r8
if [ $rc -eq 64 ] && [ ! -e x8.db ]; then ok "8: run --db file: refused (64)"; else not_ok "8: run --db file:" "$(why)"; fi

# --- 9. unbounded input ------------------------------------------------------
for c in "compare c2/base /dev/zero" "import --db z.db /dev/zero" "export --kcidb -o z.json /dev/zero"; do
	# shellcheck disable=SC2086
	br -t 30 $c
	if sane && [ "$rc" -eq 65 ] && grep -q 'larger than' err && [ ! -e z.db ]; then ok "9: $c: refused, bounded (65)"
	else not_ok "9: $c" "$(why)"; fi
done
"$MK" c9/a ka default 2 1 $M2:10:1 --console 'hello' >/dev/null
"$MK" c9/b kb default 2 2 $M2:10:1 --console 'hello' >/dev/null
ln -sf /dev/zero c9/b/kb/default/1/console.log
br -t 60 compare --logs c9/a c9/b
if sane && [ "$rc" -le 1 ] && grep -q 'console.log' err; then ok "9: compare --logs with console.log -> /dev/zero: bounded, said"
else not_ok "9: compare --logs /dev/zero" "$(why)"; fi
python3 - <<'PY'
import json, os
def tree(d, kid, v):
    os.makedirs(f"{d}/{kid}/default/1", exist_ok=True)
    ms = [{"abi": "x86_64", "test": "t", "name": f"m{i}", "unit": "us", "better": "lower",
           "n": 1, "median": v + i, "samples": [v + i]} for i in range(40000)]
    r = {"format": "bootrig-result-1", "kernel": {"id": kid}, "variant": "default", "boot": 1,
         "verdict": "PASS", "metrics": ms}
    json.dump(r, open(f"{d}/{kid}/default/1/result.json", "w"))
tree("c9m/a", "ka", 10.0)
tree("c9m/b", "kb", 10.0)
PY
br -t 120 compare c9m/a c9m/b
if sane && [ $rc -le 1 ] && [ "$(grep -c '^x86_64\.t\.m' out)" -eq 40000 ]; then ok "9: 40,000 metrics compared, each on its line"
else not_ok "9: 40,000 metrics" "$(why)"; fi
{ printf 'Linux version 6.1.0\nKTAP version 1\n1..2048\n'
  for i in $(seq 2048); do printf '    KTAP version 1\n    # Subtest: s%d\n    1..1\n    ok 1 c\nok %d s%d\n' "$i" "$i" "$i"; done; } >many.log
br -t 120 judge --format ktap many.log
if sane && [ "$(grep -c '# Subtest: s' out)" -eq 2048 ]; then ok "9: judge --format ktap with 2,048 suites: each written"
else not_ok "9: 2,048 suites" "$(why)"; fi

# --- 10. a later 1..0 ---------------------------------------------------------
printf 'Linux version 6.1.0\nKTAP version 1\n1..3\nok 1 a\n1..0\nnot ok 2 b\nnot ok 3 c\n' >plan0.log
br judge --format json plan0.log
f=$(jq -r '.ktap.fail' out 2>/dev/null)
if sane && [ "$f" = 2 ]; then ok "10: a later \"1..0\" does not end the document (2 failures)"
else not_ok "10: 1..0" "$(why) fail=$f"; fi

# --- 11. characters XML 1.0 does not allow ------------------------------------
"$MK" c11/a "k$(printf '\357\277\276')a" default 2 1 $M2:10:1 --boot 2=PANIC:panic:"$(printf 'boom \357\277\277 \001')" >/dev/null
"$MK" c11/b kb default 2 2 $M2:10:1 >/dev/null
br compare c11/b c11/a --format junit -o c11.xml
if sane && xmllint --noout c11.xml 2>xerr; then ok "11: compare --format junit: well-formed with U+FFFE, U+FFFF, 0x01"
else not_ok "11: junit" "$(why) $(cat xerr)"; fi
br import --db c11.db c11
br history --db c11.db x86_64.lat.m --svg c11.svg
if sane && xmllint --noout c11.svg 2>xerr; then ok "11: history --svg: well-formed"
else not_ok "11: svg" "$(why) $(cat xerr)"; fi

# --- 12. judge --format ktap --------------------------------------------------
printf 'Linux version 6.1.0\nKTAP version 1\n1..2\n    KTAP version 1\n    # Subtest: real\n    1..1\n    #Subtest: fake\n    not ok 1 c\nnot ok 1 real\nok 2\n' >k12.log
printf 'Linux version 6.1.0\nKTAP version 1\n1..1\nok 1 a\342\200\250b\n' >k12u.log
br judge --format ktap k12.log
if sane && ! grep -q '# Subtest: fake' out && ! grep -q unnamed out; then ok "12: a diagnostic stays a diagnostic, no invented \"unnamed\""
else not_ok "12: ktap structure" "$(why) $(cat out)"; fi
br judge --format ktap k12u.log
if sane && ! grep -q "$(printf '\342\200\250')" out && grep -qF 'a\xe2\x80\xa8b' out; then ok "12: U+2028 escaped"
else not_ok "12: U+2028" "$(why) $(cat out)"; fi

# --- 13. a NaN sample --------------------------------------------------------
mkdir -p c13/k/default/1
sed '0,/"samples":\[/s/"samples":\[/"samples":[NaN,/' $f6 >c13/k/default/1/result.json
br import --db c13.db c13
if [ $rc -eq 65 ] && err_has 'c13/k/default/1/result.json' && err_has 'samples[0]'; then
	ok "13: import refuses a NaN sample, naming the file and field (65)"
else not_ok "13: import NaN sample" "$(why)"; fi
br compare c6 c13
if [ $rc -eq 65 ]; then ok "13: compare refuses it alike (65)"; else not_ok "13: compare NaN sample" "$(why)"; fi

# --- 14. NULLs where our schema has NOT NULL ----------------------------------
cp c2.db n14.db
sqlite3 n14.db "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, 'NOT NULL', '') WHERE type = 'table'; PRAGMA writable_schema = OFF;" 2>/dev/null
sqlite3 n14.db "UPDATE metric SET better = NULL, unit = NULL; UPDATE stage SET name = NULL; UPDATE abi SET name = NULL, status = NULL; UPDATE event SET kind = NULL, title = NULL;" 2>&1 | head -2
br history --db n14.db x86_64.lat.m
if sane; then ok "14: history on NULL columns (exit $rc)"; else not_ok "14: history NULLs" "$(why)"; fi
br compare "db:n14.db:kernel=kb" "db:n14.db:kernel=kc"
if sane; then ok "14: compare db: on NULL columns (exit $rc)"; else not_ok "14: compare db: NULLs" "$(why)"; fi

# --- 15. write errors ---------------------------------------------------------
printf 'Linux version 6.1.0\n' >one.log
timeout 30 "$BOOTRIG" judge one.log >/dev/full 2>err
rc=$?
if [ $rc -eq 125 ] && err_has 'cannot write'; then ok "15: judge > /dev/full: said, exit 125"; else not_ok "15: judge > /dev/full" "$(why)"; fi
timeout 30 "$BOOTRIG" compare c2/base c2/cand >/dev/full 2>err
rc=$?
if [ $rc -eq 125 ] && err_has 'cannot write'; then ok "15: compare > /dev/full: said, exit 125"; else not_ok "15: compare > /dev/full" "$(why)"; fi

# --- 16. a metric id is not a pattern ------------------------------------------
M16='x86_64:lat:null[1]:us:lower'
"$MK" c16 k1 default 3 1 "$M16:10/10/10:0" >/dev/null
"$MK" c16 k2 default 3 2 "$M16:15/15/15:0" >/dev/null
br compare c16/k1 c16/k2
grep -q 'regressed' out && cmp_ok=1 || cmp_ok=0
br import --db c16.db c16
br history --db c16.db 'x86_64.lat.null[1]'
if sane && [ $cmp_ok = 1 ] && grep -q '+50' out && ! grep -q 'nan' out; then ok "16: history of null[1] says +50 % as compare does"
else not_ok "16: null[1]" "$(why) $(cat out)"; fi

# --- minor: --help lists the exits -------------------------------------------
"$BOOTRIG" judge --help >h 2>&1
if grep -q 125 h; then ok "minor: judge --help lists exit 125"; else not_ok "minor: judge --help" "$(cat h)"; fi
"$BOOTRIG" export --help >h 2>&1
if grep -qE '(^|[^0-9])64: usage' h; then ok "minor: export --help lists exit 64"; else not_ok "minor: export --help" "$(cat h)"; fi
# minor: a refused import leaves no database it made
br import --db made.db c6i
if [ $rc -eq 65 ] && [ ! -e made.db ]; then ok "minor: a refused import leaves no new database"
else not_ok "minor: refused import" "$(why) $(ls made.db* 2>&1)"; fi
# minor: 0x01 in KTAP names, unclosed unnamed levels
printf 'Linux version 6.1.0\nKTAP version 1\n1..1\n  KTAP version 1\n  1..2\n    KTAP version 1\n    # Subtest: a\001b\n    1..1\n    ok 1 c\n  ok 1 a\001b\n' >k01.log
br judge --format json k01.log
if sane && "$CHECK" json out >/dev/null && ! grep -q 'u0001' out; then ok "minor: no \\u0001 from 0x01 names or unclosed unnamed levels"
else not_ok "minor: \\u0001" "$(why) $(grep -n u0001 out | head -3)"; fi

# --- found by fuzz_result: numbers past an integer's range ---------------------
mkdir -p cf/k/default/1
sed 's/"n":[0-9]*/"n":1e308/; s/^  "boot":[0-9]*/  "boot":1e20/' $f6 >cf/k/default/1/result.json
br compare c6 cf
if sane && [ $rc -le 1 ]; then ok "fuzz: \"n\": 1e308 and \"boot\": 1e20 read without overflow (exit $rc)"
else not_ok "fuzz: huge n and boot" "$(why)"; fi
br import --db cf.db cf
if sane && [ $rc -eq 0 ]; then ok "fuzz: and imported alike"; else not_ok "fuzz: import huge boot" "$(why)"; fi

# --- issue 45: the second round ------------------------------------------------
# prof_side DIR KERNEL PY-STACKS: one boot's result.json whose metric's
# profile has the stacks the Python expression PY-STACKS makes (a list of
# [stack, samples]), samples their sum
prof_side() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, os, sys
d, kid, expr = sys.argv[1:4]
stacks = [{"stack": s, "samples": n} for s, n in eval(expr)]
prof = {"status": "ok", "event": "cpu-clock", "period_ns": 50000,
        "samples": sum(s["samples"] for s in stacks), "lost": 0, "interrupt": 0,
        "functions": [{"name": "f", "self": 1, "children": 1}], "stacks": stacks, "stacks_other": 0}
os.makedirs(f"{d}/{kid}/default/1", exist_ok=True)
json.dump({"format": "bootrig-result-1", "kernel": {"id": kid}, "variant": "default", "boot": 1,
           "verdict": "PASS", "metrics": [{"abi": "x86_64", "test": "lat", "name": "m", "unit": "us",
           "better": "lower", "n": 1, "median": 10, "samples": [10], "profile": prof}]},
          open(f"{d}/{kid}/default/1/result.json", "w"))
PY
}
# flame NAME PY-STACKS: both sides that profile, compare --format html -o
# NAME.html; its frames counted in nf
flame() {
	prof_side "$1/a" ka "$2"
	prof_side "$1/b" kb "$2"
	br compare "$1/a" "$1/b" --format html -o "$1.html"
	nf=$(grep -c '<g class="frame">' "$1.html" 2>/dev/null)
}
# 45.1: a stack of 100,000 frames; 45.2: 20,000 distinct stacks
flame p1 '[[";".join("f%d" % i for i in range(100000)), 5]]'
if sane && [ $rc -le 1 ] && grep -q 'stacks deeper than 256 frames' p1.html && [ "$nf" -eq 256 ]; then
	ok "45.1: a stack of 100,000 frames: drawn to 256, the cut said (exit $rc)"
else not_ok "45.1: 100,000 frames" "$(why) frames: $nf"; fi
flame p2 '[["r;f%d" % i, 1] for i in range(20000)]'
if sane && [ $rc -le 1 ] && grep -q '20000 frames not drawn' p2.html && [ "$nf" -eq 1 ]; then
	ok "45.2: 20,000 stacks of 0.04 px: their caller drawn, what is not said"
else not_ok "45.2: 20,000 stacks" "$(why) frames: $nf"; fi
flame p2c '[["r;f%04d" % i, 1] for i in range(6000)]'
if sane && [ $rc -le 1 ] && grep -q '1001 frames not drawn' p2c.html && [ "$nf" -eq 5000 ] &&
   xmllint --html --noout p2c.html 2>/dev/null; then
	ok "45.2: 6,001 frames wide enough: 5,000 drawn, the rest said"
else not_ok "45.2: the frames' cap" "$(why) frames: $nf"; fi
# 45.8: a label cut where a two-byte character's second byte is
flame p8 '[["a" * 121 + "\u00e9\u00e9", 1]]'
if sane && grep -q "<text[^>]*>a\{121\}</text>" p8.html && ! grep -q "$(printf '\357\277\275')" p8.html; then
	ok "45.8: a flame label is cut on a character boundary"
else not_ok "45.8: label cut" "$(why) $(grep -o '<text[^>]*>a*[^<]*</text>' p8.html | od -c | tail -3)"; fi

# plog FILE 'KIND key=value...'...: a passing boot's console whose test
# x86_64/lat prints these records (values without spaces; %00 a NUL byte)
plog() {
	f=$1; shift
	n=0
	{
		echo "[    0.000000] Linux version 6.1.0 #1 SMP"
		for r in "rec BEGIN proto=1 init=0.1.0 arch=x86_64 plan=file" "rec TEST abi=x86_64 test=lat status=start" \
			 "$@" "rec RESULT abi=x86_64 test=lat status=PASS ms=100"; do
			# shellcheck disable=SC2086
			set -- ${r#rec }
			k=$1; shift
			"$TOP/build/tests/tools/br-record" $n "$k" "$@"
			n=$((n + 1))
		done
		"$TOP/build/tests/tools/br-record" $n END tests=1 passed=1 failed=0 timeout=0 records=$n
		echo "[    9.000000] reboot: Power down"
	} | python3 -c '
import sys, zlib   # a value'"'"'s %00 (br-record wrote %2500) as a NUL byte, the CRC made again
for l in sys.stdin:
    if "%2500" in l:
        t = l[:l.rindex(" *")].replace("%2500", "%00")
        l = "%s *%08x\n" % (t, zlib.crc32(t.encode()))
    sys.stdout.write(l)' >"$f"
}
PM='abi=x86_64 test=lat name=m'
# phdr SAMPLES FUNCTIONS STACKS OTHER INTERRUPT: the PROFILE record of m
phdr() { echo "rec PROFILE $PM event=cpu-clock period_ns=50000 samples=$1 lost=0 functions=$2 stacks=$3 stacks_other=$4 interrupt=$5"; }
PMETRIC="rec METRIC $PM unit=us better=lower n=1 median=1 min=1 max=1 mean=1 stddev=0 samples=1"
# incomplete NAME WANT FILE RECORD...: plog FILE RECORD..., judged: its
# profile is incomplete with a reason holding WANT
incomplete() {
	name=$1 want=$2
	shift 2
	plog "$@"
	br judge --format json "$1"
	prof=$(jq -c '.metrics[0].profile | [.status, .reason]' out 2>/dev/null)
	case $prof in *incomplete*"$want"*) ok "$name ($prof)" ;; *) not_ok "$name" "$(why) $prof" ;; esac
}
# 45.4: a stack's n of 2^64-1 wraps the stacks' sum back to samples; interrupt past samples
incomplete "45.4: PSTACK n=2^64-1: incomplete, said" "18446744073709551615 samples in a profile of 100" \
	p4.log "$PMETRIC" "$(phdr 100 1 2 0 0)" "rec PFUNC $PM fn=f self=1 children=1" \
	"rec PSTACK $PM n=18446744073709551615 stack=a;b" "rec PSTACK $PM n=101 stack=a;c"
incomplete "45.4: interrupt=2^64-1: incomplete, not clamped" "samples, lost, interrupt or period_ns past 2^63-1" \
	p4i.log "$PMETRIC" "$(phdr 100 1 1 0 18446744073709551615)" "rec PFUNC $PM fn=f self=1 children=1" \
	"rec PSTACK $PM n=100 stack=a;b"
# interrupt work is counted apart from samples (the guest folds none of it):
# 250 of it beside 100 samples is a profile like any other
plog p4j.log "$PMETRIC" "$(phdr 100 1 1 0 250)" "rec PFUNC $PM fn=f self=1 children=1" "rec PSTACK $PM n=100 stack=a;b"
br judge --format json p4j.log
if sane && [ "$(jq -c '.metrics[0].profile | [.status, .interrupt]' out)" = '["ok",250]' ]; then
	ok "45.4: interrupt=250 beside 100 samples (outside them): ok, kept"
else not_ok "45.4: interrupt outside samples" "$(why) $(jq -c '.metrics[0].profile | [.status, .reason]' out)"; fi
# 45.7: a NUL byte in a function's name or a stack; a function listed twice
incomplete "45.7: fn=x%00y: incomplete, said" "PFUNC record's fn holds a NUL byte" \
	p7.log "$PMETRIC" "$(phdr 100 2 1 0 0)" "rec PFUNC $PM fn=x%00y self=1 children=1" \
	"rec PFUNC $PM fn=g self=1 children=1" "rec PSTACK $PM n=100 stack=a;b"
incomplete "45.7: stack=a;b%00c: incomplete, said" "PSTACK record's stack holds a NUL byte" \
	p7s.log "$PMETRIC" "$(phdr 100 1 1 0 0)" "rec PFUNC $PM fn=g self=1 children=1" "rec PSTACK $PM n=100 stack=a;b%00c"
# a name listed twice (kallsyms names are not unique: two static functions,
# an inline's out-of-line copies): one function, its counts added (children at
# most samples), not the last entry silently
plog p7d.log "$PMETRIC" "$(phdr 100 3 1 0 0)" "rec PFUNC $PM fn=g self=1 children=60" \
	"rec PFUNC $PM fn=g self=5 children=50" "rec PFUNC $PM fn=h self=2 children=2" "rec PSTACK $PM n=100 stack=a;b"
br judge --format json p7d.log
if sane && [ "$(jq -c '.metrics[0].profile | [.status, [.functions[] | [.name, .self_samples, .children_samples]]]' out)" = '["ok",[["g",6,100],["h",2,2]]]' ]; then
	ok "45.7: a function listed twice: one entry, self 1+5, children 60+50 at most the 100 samples"
else not_ok "45.7: a function listed twice" "$(why) $(jq -c '.metrics[0].profile | [.status, .reason, .functions]' out)"; fi
# 45.8: an empty event= is named as what is wrong, and the numbers the
# record had are kept (they were reported as 0)
plog p8e.log "$PMETRIC" "rec PROFILE $PM event= period_ns=50000 samples=100 lost=0 functions=1 stacks=1 stacks_other=0 interrupt=0" \
	"rec PFUNC $PM fn=f self=1 children=1" "rec PSTACK $PM n=100 stack=a;b"
br judge --format json p8e.log
if sane && [ "$(jq -c '.metrics[0].profile | [.status, .reason, .period_ns, .samples]' out)" = \
	'["incomplete","the PROFILE record'"'"'s event is missing or not what it must be",50000,100]' ]; then
	ok "45.8: event= (empty): incomplete, the event named, period_ns and samples as sent"
else not_ok "45.8: event= empty" "$(why) $(jq -c '.metrics[0].profile | [.status, .reason, .period_ns, .samples]' out)"; fi
# INITCALLS (run --boot-time's packed initcalls): an item that does not
# parse or a name again is dropped and counted in boot_time.malformed,
# never a made-up metric; the rest are read
plog pic.log "rec INITCALLS calls=a:1:0,a:2:0,b::0,c:1:x,d:99999999999999999999:0,e%00f:1:0,:1:0,h:1:99999999999,g:7:-12" \
	"rec BOOTTIME status=ok records=9 malformed=1 unmatched=0 lost=0"
br judge --format json pic.log
if sane && [ "$(jq -c '[[.metrics[] | select(.abi == "boot") | [.name, .median, .return_code]], .boot_time.malformed]' out)" = \
	'[[["a",1,0],["g",7,-12]],8]' ]; then
	ok "INITCALLS: a name again, no usecs, a bad code, 2^66 usecs, a NUL, no name, an rc past int: dropped, 7 + the guest's 1 malformed"
else not_ok "INITCALLS: hostile items" "$(why) $(jq -c '[.metrics, .boot_time]' out | cut -c1-400)"; fi
# 45.6: bidirectional controls in a host name (compare --by-host), a
# metric's name (compare) and a KTAP case (judge)
by_host b6 'ev\\u202eil\\u2066x\\u200f'
if sane && [ $rc -eq 0 ] && "$CHECK" term out >/dev/null && grep -qF 'ev\xe2\x80\xaeil\xe2\x81\xa6x\xe2\x80\x8f' out; then
	ok "45.6: --by-host: U+202E, U+2066, U+200F in a host name escaped"
else not_ok "45.6: --by-host bidi" "$(why) $("$CHECK" term out)"; fi
prof_side b6p/a ka '[["r", 1]]'
prof_side b6p/b kb '[["r", 1]]'
sed -i 's/"name": "m"/"name": "m\\u202d1"/' b6p/*/*/*/*/result.json
br compare b6p/a b6p/b
if sane && "$CHECK" term out >/dev/null && grep -qF 'm\xe2\x80\xad1' out; then ok "45.6: compare: U+202D in a metric's name escaped"
else not_ok "45.6: compare bidi" "$(why) $("$CHECK" term out)"; fi
printf 'Linux version 6.1.0\nKTAP version 1\n1..1\nnot ok 1 a\342\200\256b\n' >b6.log
br judge b6.log
b6t=$(cat out err)
br judge --format json b6.log
if sane && ! printf '%s' "$b6t" | grep -q "$(printf '\342\200\256')" && grep -qF 'a\u202eb' out; then
	ok "45.6: judge: U+202E in a KTAP case escaped in text and JSON"
else not_ok "45.6: judge bidi" "$(why) $b6t"; fi
# 45.5: a profile's shares and counts out of range, a function twice: in a
# result.json (compare and import refuse it, naming the field) and in a
# database (compare db: and history refuse it)
prof_side r5/a ka '[["r;s", 4]]'
for e in 'self -501:s/"self": 1,/"self": -501,/' 'children 352:s/"children": 1}/"children": 352}/' \
	 'lost 1e308:s/"lost": 0/"lost": 1e308/' 'a stack of -4 samples:s/"samples": 4}/"samples": -4}/' \
	 'a function twice:s/\("functions": \[\)\([^]]*\)\]/\1\2, \2]/' \
	 'a cut of 250 %:s/"lost": 0/"lost": 0, "cut_self": 250/'; do
	rm -rf r5/b && prof_side r5/b kb '[["r;s", 4]]'
	sed -i "${e#*:}" r5/b/kb/default/1/result.json
	br compare --profile-all r5/a r5/b
	c_rc=$rc c_err=$(cat err)
	br import --db r5.db r5/b
	if sane && [ $c_rc -eq 65 ] && [ $rc -eq 65 ] && printf '%s' "$c_err" | grep -q 'metrics\[0\]\.profile\.' &&
	   grep -q 'not a share\|not a count\|listed twice' err; then
		ok "45.5: ${e%%:*}: compare and import refuse it, naming the field"
	else not_ok "45.5: ${e%%:*}" "$(why) compare: $c_rc $c_err"; fi
done
rm -f r5.db
br import --db r5.db r5/a
sqlite3 r5.db "UPDATE profile_function SET self = -501" && br history --db r5.db 'x86_64.lat.m:self.f'
h_rc=$rc h_err=$(cat err)
br compare 'db:r5.db:kernel=ka' r5/a
if sane && [ $rc -eq 65 ] && err_has 'self -501' && err_has 'not a share' && [ $h_rc -eq 65 ] &&
   printf '%s' "$h_err" | grep -q 'not a share'; then ok "45.5: compare db: and history refuse a share of -501 % in the database"
else not_ok "45.5: db share" "$(why)"; fi
sqlite3 r5.db "UPDATE profile_function SET self = 'x'" && br compare 'db:r5.db:kernel=ka' r5/a
if sane && [ $rc -eq 65 ] && err_has 'not a share'; then ok "45.5: compare db: a non-number in a REAL column is not read as 0"
else not_ok "45.5: db text in REAL" "$(why)"; fi
rm -f r5.db
br import --db r5.db r5/a
sqlite3 r5.db "UPDATE profile SET cut_children = -3" && br compare 'db:r5.db:kernel=ka' r5/a
if sane && [ $rc -eq 65 ] && err_has 'cut_children -3' && err_has 'not a share'; then
	ok "45.5: compare db: refuses a profile's cut of -3 % in the database"
else not_ok "45.5: db cut" "$(why)"; fi
# 45.3: a console whose records fit the judge's bounds but whose JSON does
# not fit the readers' (each control byte is %XX in a record, \u00XX in
# JSON): 600 metrics with 1,300-byte units, 50 profiles with 1,300-byte names
python3 - >c3.log <<'PY'
import zlib, sys
seq = 0
def rec(kind, **f):
    global seq
    t = "@@BR 1 %d %s" % (seq, kind) + "".join(
        " %s=%s" % (k, "".join(c if 0x21 <= ord(c) <= 0x7e and c != "%" else "%%%02X" % ord(c) for c in str(v)))
        for k, v in f.items())
    seq += 1
    sys.stdout.write("%s *%08x\n" % (t, zlib.crc32(t.encode())))
print("[    0.000000] Linux version 6.1.0 #1 SMP")
rec("BEGIN", proto=1, init="0.1.0", arch="x86_64", plan="file")
rec("TEST", abi="x86_64", test="lat", status="start")
ctl = "\x01" * 1290
for m in range(600):
    rec("METRIC", abi="x86_64", test="lat", name="m%d" % m, unit=ctl, better="lower", n=1, median=1, min=1,
        max=1, mean=1, stddev=0, samples=1)
    if m < 50:
        rec("PROFILE", abi="x86_64", test="lat", name="m%d" % m, event="cpu-clock", period_ns=1, samples=100,
            lost=0, functions=80, stacks=100, stacks_other=0, interrupt=0)
        for i in range(80):
            rec("PFUNC", abi="x86_64", test="lat", name="m%d" % m, fn="%s%d" % (ctl, i), self=1, children=1)
        for i in range(100):
            rec("PSTACK", abi="x86_64", test="lat", name="m%d" % m, n=1, stack="%s%d" % (ctl, i))
rec("RESULT", abi="x86_64", test="lat", status="PASS", ms=100)
rec("END", tests=1, passed=1, failed=0, timeout=0, records=seq)
print("[    9.000000] reboot: Power down")
PY
{ head -c 56 /dev/zero; printf 'ARMd'; head -c 8 /dev/zero; printf 'Linux version 6.1.0-fake #1\n'; } >c3.Image
BOOTRIG_FAKE_CONSOLE=$tmp/c3.log timeout 120 "$TOP/build/bootrig-fake" run --kernel c3.Image -o c3 >/dev/null 2>c3.err
f3=$(ls c3/*/default/1/result.json 2>/dev/null)
size3=$(wc -c <"${f3:-/dev/null}")
br compare c3 c3
if sane && [ $rc -le 1 ] && [ "$size3" -gt 1000000 ] && [ "$size3" -le $((56 << 20)) ] &&
   [ "$(jq -r '[.verdict, .metrics[0].profile.status, (.metrics[0].profile.reason | test("left out of result.json"))] | @tsv' "$f3")" = "PASS	incomplete	true" ]; then
	ok "45.3: a boot of 600 control-byte units and 50 profiles: $size3 bytes, the profiles left out and said, compare reads it"
else not_ok "45.3: result.json bounded after escaping" "$(why) size=$size3 $(head -c 300 c3.err)"; fi
# 45.5 (the writer's side): an incomplete profile whose function claims 500
# of 100 samples is written with a share a reader accepts (100), so the boot
# stays readable
plog p5w.log "$PMETRIC" "$(phdr 100 1 1 0 0)" "rec PFUNC $PM fn=g self=5 children=500" "rec PSTACK $PM n=100 stack=a;b"
BOOTRIG_FAKE_CONSOLE=$tmp/p5w.log timeout 60 "$TOP/build/bootrig-fake" run --kernel c3.Image -o p5w >/dev/null 2>p5w.err
br compare p5w p5w
if sane && [ $rc -le 1 ] && [ "$(jq -c '.metrics[0].profile | [.status, .functions[0].children, .functions[0].children_samples]' p5w/*/default/1/result.json)" = '["incomplete",100,500]' ]; then
	ok "45.5: an incomplete profile's share is written at most 100 (its count as it came): compare reads the boot"
else not_ok "45.5: the writer's shares" "$(why) $(cat p5w.err | head -3)"; fi
# 45.8: a database whose user_version is -1 (no bootrig writes it) or 8
# (newer): import, history and compare db: each refuse it naming the file,
# the version found and the versions known (exit 65)
"$MK" r8 k8 default 3 1 $M2:10:1 >/dev/null
for v in -1 8; do
	rm -f r8v.db && br import --db r8v.db r8 && sqlite3 r8v.db "PRAGMA user_version = $v"
	for c in "import --db r8v.db r8" "history --db r8v.db x86_64.lat.m" "compare db:r8v.db:kernel=k8 r8"; do
		# shellcheck disable=SC2086
		br $c
		if sane && [ $rc -eq 65 ] && err_has "r8v.db: history database schema version $v; this bootrig reads versions 1 to"; then
			ok "45.8: user_version $v: ${c%% *} refuses it, the file and versions named (65)"
		else not_ok "45.8: user_version $v: ${c%% *}" "$(why)"; fi
	done
done
# 45.8: a plain copy of a boot's directory (cp -r 1 9) is the boot again, as
# import already knew (its key is the sha256 of result.json's bytes): compare,
# import and export count it once, listed by its first path, and say what
# they left out; a boot repeated on purpose (the same result.json but its
# boot number) stays a boot of its own
"$MK" r8c k1 default 3 1 $M2:10:1 >/dev/null
cp -r r8c/k1/default/1 r8c/k1/default/9
mkdir r8c/k1/default/10
sed 's/^  "boot":1,/  "boot":10,/' r8c/k1/default/1/result.json >r8c/k1/default/10/result.json
br compare r8c r8c
if sane && [ $rc -eq 0 ] && grep -qxF 'BASE  r8c: 4 boots, 4 PASS (1 copy of a boot counted once)' out; then
	ok "45.8: compare: a copied boot directory counted once, said in the header; a repeated boot kept"
else not_ok "45.8: compare a copy" "$(why) $(head -2 out)"; fi
br compare r8c r8c --format json
if sane && [ "$(jq -c '[.sides[] | [.boots, .copies]]' out)" = '[[4,1],[4,1]]' ]; then
	ok "45.8: compare --format json: sides[].copies 1, boots 4"
else not_ok "45.8: compare json copies" "$(why) $(jq -c '[.sides[] | [.boots, .copies]]' out)"; fi
rm -f r8c.db && br import --db r8c.db r8c
if sane && [ $rc -eq 0 ] && grep -qxF 'r8c.db: 4 boots recorded, 0 already there, 1 copy of a boot counted once' out &&
   [ "$(sqlite3 r8c.db 'SELECT path FROM boot ORDER BY id' | sed 's|.*/r8c/k1/default/||; s|/result.json$||' | tr '\n' ' ')" = '1 2 3 10 ' ]; then
	ok "45.8: import: the copy counted once (its first path kept), said"
else not_ok "45.8: import a copy" "$(why) $(cat out) $(sqlite3 r8c.db 'SELECT path FROM boot' | tr '\n' ' ')"; fi
br export --kcidb -o r8c.json r8c
if sane && [ $rc -eq 0 ] && [ "$(jq '[.tests[] | select(.path == "boot")] | length' r8c.json)" = 4 ] &&
   [ -z "$(jq -r '.tests[].id' r8c.json | sort | uniq -d)" ]; then
	ok "45.8: export --kcidb: the copy exported once, no duplicate test ids"
else not_ok "45.8: export a copy" "$(why) $(jq -r '.tests[].id' r8c.json | sort | uniq -c | sort -rn | head -2)"; fi
