#!/bin/sh
# t-history: the history database (SQLite) and `bootrig history`.
#   cheap    synthetic results trees (tests/tools/mkresults): the schema
#            (user_version, and the one the pages state; foreign keys, WAL),
#            every field recorded, import
#            idempotence (again, and from a copy), four imports of many boots
#            at once into one new database (none lost), compare's sides read
#            from the database, history's change points, JSON and SVG; bad
#            input: a missing, corrupt, foreign or newer database and a
#            corrupt or missing results directory give a clear error and exit
#            65 (usage 64), and write no row
#   real     Debian's stable cloud-arm64 kernels 6.1.0-47, -50 and -57
#            (scripts/fetch-kernels.sh --version), booted by two `bootrig run
#            --db` at once into one database (TCG with the icount clock: the
#            figures are instruction counts, the same on a loaded host), and
#            `bootrig history` shows their null-syscall figures and the drop
#            from -47 to -57: history's change points are compare's
#            significant steps over the same boots
# The real part boots 9 guests, two at a time (about 3 minutes): run the
# group under flock /tmp/bootrig-qemu.lock.
. "$(dirname "$0")/lib.sh"
set -u
MK="$TOP/build/tests/tools/mkresults"
JGET=$TOP/build/tests/tools/jget
tmp=$(mktemp -d /tmp/t-history.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
export NO_COLOR=1
NULL=x86_64:lat_syscall:null:us:lower
READ=x86_64:lat_syscall:read:us:lower
q() { sqlite3 "$1" "$2" 2>&1; }
# bootrig ARGS...: output in $tmp/out, $tmp/err, status in rc
br() {
	"$BOOTRIG" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
err_has() { grep -qF -- "$1" "$tmp/err"; }

# --- the schema and what a boot records ---
"$MK" "$tmp/r" k-a default 5 1 $NULL:10:1 $READ:20:1 --abi x86_64=ok --abi x32=unsupported >/dev/null
"$MK" "$tmp/r" k-b default 5 2 $NULL:10.05:1 $READ:20:1 --abi x86_64=ok --abi x32=unsupported >/dev/null
"$MK" "$tmp/r" k-c default 5 3 $NULL:12:1 $READ:20:1 --abi x86_64=ok --abi x32=unsupported \
	--boot 5=PANIC:panic:'kernel panic: Attempted to kill init!' >/dev/null
DB=$tmp/h.db
br import --db "$DB" "$tmp/r"
if [ $rc -eq 0 ] && grep -qx "$DB: 15 boots recorded, 0 already there" "$tmp/out"; then ok "import: 15 boots recorded"
else not_ok "import: 15 boots recorded" "rc=$rc $(cat "$tmp/out" "$tmp/err")"; fi
v=$(q "$DB" 'PRAGMA user_version'); j=$(q "$DB" 'PRAGMA journal_mode')
t=$(q "$DB" "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name)")
if [ "$v" = 6 ] && [ "$j" = wal ] && [ "$t" = "abi boot event kernel ktap_case metric profile profile_function profile_stack sample stage test uncounted" ]; then
	ok "schema: user_version 6, WAL, the thirteen tables"
else not_ok "schema" "user_version=$v journal=$j tables=$t"; fi
# The schema version the pages state (README.md, the manual's pages, the
# manual page, compare/SCHEMA.md, ARCHITECTURE.md and db.h's contract) is
# the one a new database has, so they cannot drift from what import writes:
# every statement of one ("user_version`, 5", "schema version 5", "(schema
# 5"), and one at least in each page that describes the database.
st=0 stale=
for f in README.md docs/*.md bootrig.1 compare/SCHEMA.md ARCHITECTURE.md compare/db.h; do
	for n in $(grep -ohE 'user_version[^0-9A-Za-z]{0,6}[0-9]+|schema version [0-9]+|\(schema [0-9]+' "$TOP/$f" | grep -oE '[0-9]+$'); do
		st=$((st + 1))
		[ "$n" = "$v" ] || stale="$stale $f:$n"
	done
done
missing=
for f in docs/history.md bootrig.1 compare/SCHEMA.md ARCHITECTURE.md compare/db.h; do
	grep -qE 'user_version[^0-9A-Za-z]{0,6}[0-9]+|schema version [0-9]+|\(schema [0-9]+' "$TOP/$f" || missing="$missing $f"
done
if [ -n "$v" ] && [ -z "$stale" ] && [ -z "$missing" ]; then ok "the pages' $st statements of the schema version are $v, a new database's"
else not_ok "the pages state the schema version" "a new database: user_version $v; stale:$stale; stating none:$missing"; fi
fk=$(sqlite3 "$DB" "PRAGMA foreign_keys = ON; INSERT INTO abi (boot, name, status) VALUES (999999, 'x', 'ok');" 2>&1)
case $fk in *"FOREIGN KEY constraint failed"*) ok "schema: foreign keys (an ABI row of no boot is refused)" ;;
*) not_ok "schema: foreign keys" "$fk" ;; esac
row=$(q "$DB" "SELECT b.verdict || '|' || b.title || '|' || b.variant || '|' || b.boot FROM boot b JOIN kernel k ON k.id = b.kernel WHERE k.kernel_id = 'k-c' AND b.boot = 5")
[ "$row" = "PANIC|kernel panic: Attempted to kill init!|default|5" ] && ok "a boot's verdict, title (its first kernel event's), variant and number" ||
	not_ok "a boot's verdict and title" "$row"
abis=$(q "$DB" "SELECT group_concat(name || '=' || status, ' ') FROM (SELECT a.name, a.status FROM abi a JOIN boot b ON a.boot = b.id WHERE b.path LIKE '%/k-a/default/1/result.json' ORDER BY a.name)")
[ "$abis" = "x32=unsupported x86_64=ok" ] && ok "a boot's ABI table" || not_ok "a boot's ABI table" "$abis"
f=$tmp/r/k-a/default/1/result.json
want=$(jq -c '[.metrics[] | .samples | length] | add' "$f")
got=$(q "$DB" "SELECT count(*) FROM sample s JOIN metric m ON s.metric = m.id JOIN boot b ON m.boot = b.id WHERE b.path = '$(realpath "$f")'")
want_s=$(jq -c '[.metrics[0].samples[]] | map(. * 1000000 | round)' "$f")
got_s=$(q "$DB" "SELECT '[' || group_concat(v, ',') || ']' FROM (SELECT CAST(round(s.value * 1000000) AS INTEGER) AS v FROM sample s JOIN metric m ON s.metric = m.id JOIN boot b ON m.boot = b.id WHERE b.path = '$(realpath "$f")' AND m.seq = 0 ORDER BY s.seq)")
if [ "$got" = "$want" ] && [ "$got_s" = "$want_s" ]; then ok "every metric's samples, in order ($got of boot 1)"
else not_ok "every metric's samples" "$got of $want; $got_s vs $want_s"; fi

# --- idempotence ---
br import --db "$DB" "$tmp/r"
n=$(q "$DB" 'SELECT count(*) FROM boot')
if [ $rc -eq 0 ] && grep -q ": 0 boots recorded, 15 already there" "$tmp/out" && [ "$n" = 15 ]; then
	ok "import again: nothing new, 15 rows"
else not_ok "import again" "rc=$rc rows=$n $(cat "$tmp/out")"; fi
cp -R "$tmp/r" "$tmp/copy"
br import --db "$DB" "$tmp/copy/k-b" "$tmp/r/k-a/default/2/result.json"
n=$(q "$DB" 'SELECT count(*) FROM boot')
if [ $rc -eq 0 ] && [ "$n" = 15 ]; then ok "import of a copy and of one result.json: still one row a boot"
else not_ok "import of a copy" "rc=$rc rows=$n"; fi

# --- many writers at once ---
for w in 1 2 3 4; do
	i=1
	while [ $i -le 4 ]; do
		"$MK" "$tmp/w$w" "k-w$w-$i" default 10 "$w$i" $NULL:10:1 $READ:20:1 --abi x86_64=ok >/dev/null
		i=$((i + 1))
	done
done
C=$tmp/conc.db
pids=""
for w in 1 2 3 4; do
	"$BOOTRIG" import --db "$C" "$tmp/w$w" >"$tmp/w$w.out" 2>&1 &
	pids="$pids $!"
done
bad=0
for p in $pids; do wait "$p" || bad=$((bad + 1)); done
n=$(q "$C" 'SELECT count(*) FROM boot'); k=$(q "$C" 'SELECT count(*) FROM kernel')
s=$(q "$C" 'SELECT count(*) FROM sample')
want_s=$(cat "$tmp"/w*/*/default/*/result.json | jq -s '[.[].metrics[].samples | length] | add')
if [ $bad -eq 0 ] && [ "$n" = 160 ] && [ "$k" = 16 ] && [ "$s" = "$want_s" ]; then
	ok "4 imports at once into a new database: all 160 boots, 16 kernels, $s samples"
else not_ok "4 imports at once" "failed=$bad boots=$n kernels=$k samples=$s/$want_s $(cat "$tmp"/w*.out)"; fi
[ "$(q "$C" 'PRAGMA integrity_check')" = ok ] && ok "that database passes SQLite's integrity check" ||
	not_ok "integrity check" "$(q "$C" 'PRAGMA integrity_check')"
# Two writers making one new file: SQLite tells one of them "database is
# locked" at once when both switch it to WAL (its busy handler is not asked),
# 13 rounds in 60 before bootrig waited for that lock itself; so 40 rounds,
# each into a new file.
bad=0
r=1
while [ $r -le 40 ]; do
	rm -f "$tmp/pair.db" "$tmp/pair.db-wal" "$tmp/pair.db-shm"
	"$BOOTRIG" import --db "$tmp/pair.db" "$tmp/w1" >"$tmp/p1.out" 2>&1 & p1=$!
	"$BOOTRIG" import --db "$tmp/pair.db" "$tmp/w2" >"$tmp/p2.out" 2>&1 & p2=$!
	wait $p1 || { bad=$((bad + 1)); cp "$tmp/p1.out" "$tmp/pair.err"; }
	wait $p2 || { bad=$((bad + 1)); cp "$tmp/p2.out" "$tmp/pair.err"; }
	[ "$(q "$tmp/pair.db" 'SELECT count(*) FROM boot')" = 80 ] || bad=$((bad + 1))
	r=$((r + 1))
done
[ $bad -eq 0 ] && ok "2 imports at once into a new database, 40 times: none failed, 80 boots each time" ||
	not_ok "2 imports at once into a new database, 40 times" "$bad failed: $(cat "$tmp/pair.err" 2>/dev/null)"

# --- compare reads a side from the database ---
br compare "db:$DB:kernel=k-a" "db:$DB:kernel=k-c" --metric 'x86_64.lat_syscall.null'
line=$(grep -F 'x86_64.lat_syscall.null (us)' "$tmp/out")
if [ $rc -eq 1 ] && echo "$line" | grep -q 'regressed$'; then ok "compare db:FILE:kernel=k-a db:FILE:kernel=k-c: regressed, exit 1"
else not_ok "compare between database sides" "rc=$rc $line $(cat "$tmp/err")"; fi
"$BOOTRIG" compare "$tmp/r/k-a" "$tmp/r/k-c" --format json | jq -S '.metrics' >"$tmp/dir.json"
"$BOOTRIG" compare "db:$DB:kernel=k-a" "db:$DB:kernel=k-c" --format json | jq -S '.metrics' >"$tmp/db.json"
if [ -s "$tmp/dir.json" ] && cmp -s "$tmp/dir.json" "$tmp/db.json"; then
	ok "compare's metrics from the database are those from the directories"
else not_ok "compare from the database = from the directories" "$(diff "$tmp/dir.json" "$tmp/db.json" | head -5)"; fi
"$BOOTRIG" compare "$tmp/r/k-a" "$tmp/r/k-c" --format json | jq -S '[.abis, .new_events, .new_verdicts]' >"$tmp/dir2.json" 2>/dev/null
"$BOOTRIG" compare "db:$DB:kernel=k-a" "db:$DB:kernel=k-c" --format json | jq -S '[.abis, .new_events, .new_verdicts]' >"$tmp/db2.json" 2>/dev/null
if [ -s "$tmp/dir2.json" ] && cmp -s "$tmp/dir2.json" "$tmp/db2.json" && grep -q 'Attempted to kill init' "$tmp/db2.json"; then
	ok "and so are its ABI table, new failure (the panic) and new verdicts"
else not_ok "ABIs and failures from the database" "$(diff "$tmp/dir2.json" "$tmp/db2.json" | head -5)"; fi
# --- KTAP cases: kept in the database, so compare db: reports what compare
# of the directories reports, byte for byte (the side names aside) ---
"$MK" "$tmp/kt" k-ka default 3 31 $NULL:10:1 --abi x86_64=ok >/dev/null
"$MK" "$tmp/kt" k-kb default 3 32 $NULL:10:1 --abi x86_64=ok >/dev/null
for f in "$tmp"/kt/*/default/*/result.json; do
	python3 - "$f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cand, boot = "k-kb" in sys.argv[1], d["boot"]
cases = [{"suite": "string-stream", "case": "string_stream_init", "status": "ok"},
         {"suite": "string-stream", "case": "string_stream_append",
          "status": "fail" if cand and boot == 2 else "ok"},
         {"suite": "", "case": "lone_case", "status": "skip" if cand else "ok"},
         {"suite": "kunit_log", "case": "log_test", "status": "fail" if cand else "ok"}]
d["ktap"] = {"cases": cases}
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
done
KDB=$tmp/kt.db
br import --db "$KDB" "$tmp/kt"
[ $rc -eq 0 ] && [ "$(q "$KDB" 'SELECT count(*) FROM ktap_case')" = 24 ] &&
	ok "import keeps every KTAP case (24 rows: 4 per boot)" || not_ok "KTAP cases imported" "rc=$rc $(cat "$tmp/err")"
same=""
for fmt in text ktap json; do
	"$BOOTRIG" compare "$tmp/kt/k-ka" "$tmp/kt/k-kb" --format $fmt >"$tmp/kt-dir.$fmt" 2>&1
	"$BOOTRIG" compare "db:$KDB:kernel=k-ka" "db:$KDB:kernel=k-kb" --format $fmt 2>&1 |
		sed "s|db:$KDB:kernel=k-ka|$tmp/kt/k-ka|g; s|db:$KDB:kernel=k-kb|$tmp/kt/k-kb|g" >"$tmp/kt-db.$fmt"
	cmp -s "$tmp/kt-dir.$fmt" "$tmp/kt-db.$fmt" || same="$same $fmt: $(diff "$tmp/kt-dir.$fmt" "$tmp/kt-db.$fmt" | head -4)"
done
if [ -z "$same" ] && grep -q 'string_stream_append' "$tmp/kt-dir.text" && grep -q 'log_test' "$tmp/kt-db.text"; then
	ok "compare db: = compare of the directories, byte for byte (text, ktap, json), new KTAP failures included"
else not_ok "compare db: with KTAP cases" "$same"; fi
# an icount boot's seed is kept (schema 5): compare db: counts a side's
# seeds as compare of its directories does; a wall-clock boot's seed is not one
mkdir -p "$tmp/sd" && cp -r "$tmp/r/k-a" "$tmp/sd/" && rm -rf "$tmp/sd/k-a/default/4" "$tmp/sd/k-a/default/5"
for b in 1 2 3; do
	f=$tmp/sd/k-a/default/$b/result.json
	jq --arg s $((b == 3 ? 2 : b)) '.clock = "icount" | .seed = $s' "$f" >"$f.new" && mv "$f.new" "$f"
done
cp -r "$tmp/sd/k-a" "$tmp/sd/w" && f=$tmp/sd/w/default/1/result.json &&
	jq '.clock = "wall" | .seed = "9" | .kernel.id = "k-w" | .kernel.sha256 = null' "$f" >"$f.new" && mv "$f.new" "$f"
rm -rf "$tmp/sd/w/default/2" "$tmp/sd/w/default/3"
br import --db "$tmp/sd.db" "$tmp/sd"
seeds=$(q "$tmp/sd.db" "SELECT group_concat(coalesce(seed, '-'), ' ') FROM (SELECT b.seed FROM boot b ORDER BY b.path)")
br compare "db:$tmp/sd.db:kernel=k-a" "$tmp/sd/k-a"
if [ $rc -eq 0 ] && [ "$seeds" = "1 2 2 -" ] && grep -q "(n=3, 2 seeds) vs BASE db:.*(n=3, 2 seeds)" "$tmp/out"; then
	ok "the database keeps an icount boot's seed (1 2 2), not a wall-clock one's; compare db: counts 2 seeds"
else not_ok "the seed in the database" "rc=$rc seeds='$seeds' $(grep -m1 'vs BASE' "$tmp/out") $(cat "$tmp/err")"; fi
# a version 1 database (before ktap_case): a reader reads it as it is (no
# KTAP cases) and changes nothing; a writer (import) migrates it to 6
cp "$DB" "$tmp/v1.db"
sqlite3 "$tmp/v1.db" 'DROP TABLE ktap_case; DROP TABLE test; PRAGMA user_version = 1'
br compare "db:$tmp/v1.db:kernel=k-a" "db:$tmp/v1.db:kernel=k-c" --metric 'x86_64.lat_syscall.null'
v=$(q "$tmp/v1.db" 'PRAGMA user_version')
t=$(q "$tmp/v1.db" "SELECT count(*) FROM sqlite_master WHERE name = 'ktap_case'")
[ $rc -eq 1 ] && [ "$v" = 1 ] && [ "$t" = 0 ] && ok "a version 1 database: compare db: reads its boots and leaves it at version 1" ||
	not_ok "reading a version 1 database" "rc=$rc v=$v t=$t $(cat "$tmp/err")"
br import --db "$tmp/v1.db" "$tmp/kt"
v=$(q "$tmp/v1.db" 'PRAGMA user_version')
t=$(q "$tmp/v1.db" "SELECT count(*) FROM sqlite_master WHERE name = 'ktap_case'")
t=$t$(q "$tmp/v1.db" "SELECT count(*) FROM sqlite_master WHERE name = 'test'")
[ $rc -eq 0 ] && [ "$v" = 6 ] && [ "$t" = 11 ] && ok "a version 1 database: import migrates it to 6 (ktap_case and test added)" ||
	not_ok "migration 1 -> 6" "rc=$rc v=$v t=$t $(cat "$tmp/err")"

br compare "db:$DB:kernel=nope" "$tmp/r/k-a"
[ $rc -eq 65 ] && err_has "no kernel 'nope'" && ok "compare db:...:kernel=nope: exit 65, 'no kernel'" ||
	not_ok "compare with an unknown database kernel" "rc=$rc $(cat "$tmp/err")"
br compare "db:$DB:kernel=k-a:colour=red" "$tmp/r/k-a"
[ $rc -eq 65 ] && err_has "is not kernel=" && ok "compare db side with an unknown key: exit 65" ||
	not_ok "db side with an unknown key" "rc=$rc $(cat "$tmp/err")"

# --- history over the synthetic kernels ---
br history --db "$DB" x86_64.lat_syscall.null
cat "$tmp/out" | sed 's/^/# /'
if [ $rc -eq 0 ] && grep -Eq '^  2 +k-b .* noise$' "$tmp/out" &&
	grep -Eq '^  3 +k-c .* regressed  <- change point$' "$tmp/out" &&
	grep -q '^1 change point: k-b -> k-c +' "$tmp/out"; then
	ok "history: k-a, k-b, k-c in order; k-b noise, k-c a change point (regressed)"
else not_ok "history text" "rc=$rc $(cat "$tmp/err")"; fi
br history --db "$DB" x86_64/lat_syscall/null --format json --svg "$tmp/h.svg"
if [ $rc -eq 0 ] && [ "$(jq -c '.change_points' "$tmp/out")" = '[2]' ] &&
	[ "$(jq -c '[.kernels[].n]' "$tmp/out")" = '[5,5,4]' ] &&
	[ "$(jq -r '.kernels[2].against.verdict' "$tmp/out")" = regressed ]; then
	ok "history --format json: change_points [2], n per kernel [5,5,4] (k-c's panic gives none)"
else not_ok "history json" "rc=$rc $(head -c 300 "$tmp/out")"; fi
pts=$(grep -c '<circle' "$tmp/h.svg" 2>/dev/null)
if xmllint --noout "$tmp/h.svg" 2>/dev/null && [ "$pts" -ge 14 ] && grep -q 'change point' "$tmp/h.svg"; then
	ok "history --svg: well-formed, a point per PASS boot ($pts circles), the change point marked"
else not_ok "history --svg" "$pts circles"; fi
br history --db "$DB" lat_syscall.read --abi x86_64 --threshold 50
[ $rc -eq 0 ] && grep -q '^0 change points' "$tmp/out" && ok "history METRIC test.name --abi, --threshold 50: no change point" ||
	not_ok "history --abi --threshold" "rc=$rc $(cat "$tmp/err")"
br history --db "$DB" x86_64.lat_syscall.null --target nowhere
[ $rc -eq 65 ] && err_has "no kernel has a PASS boot with metric" && ok "history: no boot passes the filter: exit 65" ||
	not_ok "history with an empty filter" "rc=$rc $(cat "$tmp/err")"

# one kernel booted with two command lines: not one sample, unless --mixed
M=$tmp/mixed.db
"$MK" "$tmp/mx" k-m default 4 9 $NULL:10:1 >/dev/null
for b in 3 4; do
	f=$tmp/mx/k-m/default/$b/result.json
	jq '.append = "console=ttyS0 mitigations=off"' "$f" >"$f.new" && mv "$f.new" "$f"
done
"$BOOTRIG" import --db "$M" "$tmp/mx" >/dev/null
br history --db "$M" x86_64.lat_syscall.null
if [ $rc -eq 65 ] && err_has "different kernel command lines"; then
	br history --db "$M" x86_64.lat_syscall.null --mixed
	if [ $rc -eq 0 ] && grep -Eq '^  1 +k-m .* 4 +' "$tmp/out"; then ok "a kernel run with two command lines: exit 65 naming it; --mixed pools its 4 boots"
	else not_ok "history --mixed" "rc=$rc $(cat "$tmp/out" "$tmp/err")"; fi
else not_ok "history of a kernel run two ways" "rc=$rc $(cat "$tmp/err")"; fi

# --- bad input: a clear error, exit 65 (64 usage), no row ---
before=$(q "$DB" 'SELECT count(*) FROM boot')
"$MK" "$tmp/bad" k-d default 3 4 $NULL:10:1 >/dev/null
printf '{"format": "bootrig-result-1", "verdict": "PASS", ' >"$tmp/bad/k-d/default/2/result.json"
br import --db "$DB" "$tmp/bad"
after=$(q "$DB" 'SELECT count(*) FROM boot'); kd=$(q "$DB" "SELECT count(*) FROM kernel WHERE kernel_id = 'k-d'")
if [ $rc -eq 65 ] && err_has "k-d/default/2/result.json: not valid JSON" && [ "$after" = "$before" ] && [ "$kd" = 0 ]; then
	ok "import of a tree with a corrupt result.json: exit 65 naming it, not one row written"
else not_ok "import of a corrupt tree" "rc=$rc rows $before -> $after, k-d rows $kd: $(cat "$tmp/err")"; fi
br import --db "$DB" "$tmp/r" "$tmp/nonexistent"
[ $rc -eq 65 ] && err_has "nonexistent" && [ "$(q "$DB" 'SELECT count(*) FROM boot')" = "$before" ] &&
	ok "import of a missing results directory: exit 65" || not_ok "import of a missing dir" "rc=$rc $(cat "$tmp/err")"
mkdir -p "$tmp/empty"
br import --db "$DB" "$tmp/empty"
[ $rc -eq 65 ] && err_has "no result.json" && ok "import of a directory without result.json: exit 65" ||
	not_ok "import of an empty dir" "rc=$rc $(cat "$tmp/err")"
br history --db "$tmp/missing.db" x86_64.lat_syscall.null
[ $rc -eq 65 ] && err_has "cannot open the history database" && [ ! -e "$tmp/missing.db" ] &&
	ok "history of a missing database: exit 65, nothing made" || not_ok "history of a missing database" "rc=$rc $(cat "$tmp/err")"
head -c 5000 /dev/urandom >"$tmp/junk.db"
br history --db "$tmp/junk.db" x86_64.lat_syscall.null
[ $rc -eq 65 ] && err_has "not a bootrig history database" && ok "history of a file that is no database: exit 65" ||
	not_ok "history of junk" "rc=$rc $(cat "$tmp/err")"
br import --db "$tmp/junk.db" "$tmp/r"
[ $rc -eq 65 ] && err_has "not a bootrig history database" && ok "import into a file that is no database: exit 65" ||
	not_ok "import into junk" "rc=$rc $(cat "$tmp/err")"
sqlite3 "$tmp/other.db" 'CREATE TABLE t (x); INSERT INTO t VALUES (1);'
br import --db "$tmp/other.db" "$tmp/r"
[ $rc -eq 65 ] && err_has "an SQLite database, but not a bootrig history database" &&
	[ "$(q "$tmp/other.db" 'SELECT count(*) FROM sqlite_master')" = 1 ] &&
	ok "import into another program's SQLite database: exit 65, left as it was" || not_ok "import into a foreign database" "rc=$rc $(cat "$tmp/err")"
cp "$DB" "$tmp/newer.db" && sqlite3 "$tmp/newer.db" 'PRAGMA user_version = 7'
br history --db "$tmp/newer.db" x86_64.lat_syscall.null
[ $rc -eq 65 ] && err_has "schema version 7" && ok "a database of a newer schema: exit 65, its version named" ||
	not_ok "newer schema" "rc=$rc $(cat "$tmp/err")"
dd if=/dev/zero of="$tmp/trunc.db" bs=1 count=0 seek=0 2>/dev/null; head -c 2000 "$DB" >"$tmp/trunc.db"
br history --db "$tmp/trunc.db" x86_64.lat_syscall.null
[ $rc -eq 65 ] && ok "a truncated database: exit 65 ($(head -c 80 "$tmp/err"))" || not_ok "truncated database" "rc=$rc $(cat "$tmp/err")"
br import "$tmp/r"
[ $rc -eq 64 ] && err_has "--db FILE is required" && ok "import without --db: exit 64" || not_ok "import without --db" "rc=$rc"
br history --db "$DB"
[ $rc -eq 64 ] && ok "history without METRIC: exit 64" || not_ok "history without METRIC" "rc=$rc"
br history --db "$DB" x86_64.lat_syscall.null --format xml
[ $rc -eq 64 ] && ok "history --format xml: exit 64" || not_ok "history --format xml" "rc=$rc"
br history --db "$DB" null
[ $rc -eq 64 ] && err_has "abi.test.name" && ok "history METRIC without its ABI: exit 64, the form named" ||
	not_ok "history METRIC without ABI" "rc=$rc $(cat "$tmp/err")"
br history --db "$DB" x86_64.lat_syscall.null:perf-stat.
[ $rc -eq 64 ] && err_has "no event after ':perf-stat.'" && ok "history METRIC:perf-stat. without its event: exit 64, said so" ||
	not_ok "history counter without event" "rc=$rc $(cat "$tmp/err")"
br history --db "$DB" x86_64.lat_syscall.null:perf-stat.instructions
[ $rc -eq 65 ] && ok "history of a counter no boot counted: exit 65 (no kernel has it)" ||
	not_ok "history of an uncounted counter" "rc=$rc $(cat "$tmp/out" "$tmp/err")"
br run --kernel /nonexistent -o "$tmp/run-bad" --db "$tmp/junk.db"
[ $rc -eq 65 ] && err_has "not a bootrig history database" && [ ! -e "$tmp/run-bad/nonexistent" ] &&
	ok "run --db with a bad database: exit 65 before any boot" || not_ok "run --db bad database" "rc=$rc $(cat "$tmp/err")"

# --- history --crashes: titles as identities over kernels ---
# k-x (no crash), k-y (a panic in 2 of 5 boots, and a warning in variant
# w), then k-z (the default variant only, no crash): the panic is open
# until a kernel after k-y runs its tests without it (--fixed-after 2:
# until two have); the warning stays open, no later kernel ran variant w.
PANIC='2=PANIC:panic:Kernel panic - not syncing: Attempted to kill init!'
"$MK" "$tmp/cr" k-x default 5 11 $NULL:10:1 >/dev/null
"$MK" "$tmp/cr" k-y default 5 12 $NULL:10:1 --boot "$PANIC" \
	--boot '4=PANIC:panic:Kernel panic - not syncing: Attempted to kill init!' >/dev/null
"$MK" "$tmp/cr" k-y w 1 13 $NULL:10:1 --boot '1=FAIL:warning:WARNING in foo_bar' >/dev/null
br import --db "$tmp/cr.db" "$tmp/cr"
br history --db "$tmp/cr.db" --crashes
if [ $rc = 0 ] && grep -Eq '^open +panic +2 +1 +k-y +k-y +Kernel panic - not syncing: Attempted to kill init!$' "$tmp/out" &&
   grep -Eq '^open +warning +1 +1 +k-y +k-y +WARNING in foo_bar$' "$tmp/out" && grep -q 'over 2 kernels' "$tmp/out"; then
	ok "history --crashes: each title with its kind, boots, kernels, first and last kernel: open"
else not_ok "history --crashes: open" "rc=$rc $(cat "$tmp/out" "$tmp/err")"; fi
"$MK" "$tmp/cr2" k-z default 3 14 $NULL:10:1 >/dev/null
br import --db "$tmp/cr.db" "$tmp/cr2"
br history --db "$tmp/cr.db" --crashes
if grep -Eq '^fixed +panic +2 +1 +k-y +k-y ' "$tmp/out" && grep -Eq '^open +warning ' "$tmp/out"; then
	ok "history --crashes: a later kernel runs the panic's tests without it: fixed; the warning's tests it did not run: open"
else not_ok "history --crashes: fixed" "$(cat "$tmp/out")"; fi
br history --db "$tmp/cr.db" --crashes --fixed-after 2 --format json
if [ "$(jq -r '[.crashes[] | .status + ":" + (.kernels_since | tostring)] | join(" ")' "$tmp/out")" = "open:1 open:0" ] &&
   [ "$(jq -r '.format + " " + (.fixed_after | tostring) + " " + (.kernels | length | tostring)' "$tmp/out")" = "bootrig-crashes-1 2 3" ]; then
	ok "history --crashes --fixed-after 2 --format json: one kernel since is not enough, still open"
else not_ok "history --crashes --fixed-after 2 --format json" "$(head -c 600 "$tmp/out")"; fi
br history --db "$tmp/cr.db" --crashes x86_64.lat_syscall.null
[ $rc = 64 ] && ok "history --crashes with a METRIC: exit 64" || not_ok "history --crashes with a METRIC: exit 64" "rc=$rc"

# --- real kernels: 6.1.0-47, -50, -57 (cloud-arm64), two runs at once ---
K47=$(sh "$TOP/scripts/fetch-kernels.sh" --version 6.1.0-47 cloud-arm64 | awk '{print $2}')
K50=$(sh "$TOP/scripts/fetch-kernels.sh" --version 6.1.0-50 cloud-arm64 | awk '{print $2}')
K57=$(sh "$TOP/scripts/fetch-kernels.sh" --version 6.1.0-57 cloud-arm64 | awk '{print $2}')
if [ ! -f "$K47" ] || [ ! -f "$K50" ] || [ ! -f "$K57" ]; then
	not_ok "Debian's cloud-arm64 6.1.0-47, -50 and -57 are available" "scripts/fetch-kernels.sh --version failed"
	echo "1..$_tap_n"
	exit 0
fi
# 15 samples of each syscall a boot (the smoke suite's 3 to 5 would let a
# boot's median fall on either of a kernel's two steady states, README
# "bisect"); icount, the deterministic clock (the arm64-virt target's),
# and one seed on purpose (--seed 1: each kernel's 3 boots are one boot, so
# a 0.5 % step between kernels is theirs, not the seeds' spread).
cat >"$tmp/suite.cfg" <<'EOF'
suites = (
  { name = "history"; tests = [ "lat_syscall" ];
    samples = 15; min_samples = 15; ci_target = 0.0; repeat = 1; test_timeout = 120.0; }
);
EOF
R=$tmp/real.db
realrun() {
	name=$1; shift
	"$BOOTRIG" run --config "$tmp/suite.cfg" --suite history --clock icount --repeat 3 --seed 1 --db "$R" \
		-o "$tmp/$name" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
}
realrun real-a --kernel "$K47" --kernel "$K57" & pa=$!
realrun real-b --kernel "$K50" & pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
n=$(q "$R" "SELECT count(*) FROM boot WHERE verdict = 'PASS' AND clock = 'icount' AND accelerator = 'tcg'")
if [ $ra -eq 0 ] && [ $rb -eq 0 ] && [ "$n" = 9 ]; then ok "two bootrig run --db at once: all 9 boots recorded (PASS, tcg, icount)"
else not_ok "two real runs at once" "rc $ra $rb, $n rows: $(tail -n 3 "$tmp/real-a.err" "$tmp/real-b.err")"; fi
shas=$(q "$R" "SELECT group_concat(sha256, ' ') FROM (SELECT sha256 FROM kernel ORDER BY version)")
want=$(sha256sum "$K47" "$K50" "$K57" | awk '{printf "%s%s", sep, $1; sep=" "}')
[ "$shas" = "$want" ] && ok "each kernel keyed by its file's sha256" || not_ok "kernel sha256" "$shas / $want"
# Under icount each kernel's boots agree to 0.01 % (sd 0), so a 0.5 % step
# is a real one; compare's default 5 % is for the wall clock's noise.
br history --db "$R" aarch64.lat_syscall.null --order version --clock icount --threshold 0.5 --svg "$tmp/real.svg"
cat "$tmp/out" | sed 's/^/# /'
if [ $rc -eq 0 ] && grep -Eq '^  1 +6\.1\.0-47-cloud-arm64 .* 3 +[0-9.]+ .* first$' "$tmp/out" &&
	grep -Eq '^  2 +6\.1\.0-50-cloud-arm64 .* 3 +[0-9.]+ ' "$tmp/out" &&
	grep -Eq '^  3 +6\.1\.0-57-cloud-arm64 .* 3 +[0-9.]+ ' "$tmp/out"; then
	ok "history: the null syscall of 6.1.0-47, -50, -57 in version order, 3 boots each"
else not_ok "history of the real kernels" "rc=$rc $(cat "$tmp/err")"; fi
# Which steps between these kernels are change points is theirs and the
# boot's (one seed: a boot is the same boot only for the same bytes, and
# null has two steady states 2 % apart that a guest's own bytes pick
# between), so history is checked against compare over the same boots:
# each step between consecutive kernels is a change point exactly where
# compare (db: the two kernels, the same threshold) calls it significant,
# in the same direction, and "since the first" is compare's -47 -> -57.
# cmp_word A B: compare's word for null from kernel A to B (noise when none)
cmp_word() {
	"$BOOTRIG" compare "db:$R:kernel=$1" "db:$R:kernel=$2" --metric aarch64.lat_syscall.null \
		--threshold 0.5 >"$tmp/c.txt" 2>&1
	w=$(grep -F 'aarch64.lat_syscall.null (us)' "$tmp/c.txt" | head -n 1 | awk '{print $NF}')
	case $w in improved | regressed) echo "$w" ;; *) echo noise ;; esac
}
cps=$(grep -E '^[0-9]+ change points?' "$tmp/out")
agree=yes why=
for pair in "47 50" "50 57"; do
	a=6.1.0-${pair% *}-cloud-arm64 b=6.1.0-${pair#* }-cloud-arm64
	hw=$(echo "$cps" | grep -o "$a -> $b [+-][0-9.]*% (p [^,]*, [a-z]*)" | sed 's/.*, \([a-z]*\))$/\1/')
	cw=$(cmp_word "$a" "$b")
	[ "${hw:-noise}" = "$cw" ] || agree=no
	why="$why $a -> $b: history ${hw:-noise}, compare $cw;"
done
if [ -n "$cps" ] && [ $agree = yes ]; then ok "history's change points between the real kernels are compare's significant steps:$why"
else not_ok "history's change points agree with compare" "$why $cps"; fi
since=$(sed -n 's/^since the first: 6\.1\.0-47-cloud-arm64 -> 6\.1\.0-57-cloud-arm64 \([+-][0-9.]*\)% (p [^,]*, \([a-z]*\))$/\1 \2/p' "$tmp/out")
cw=$(cmp_word 6.1.0-47-cloud-arm64 6.1.0-57-cloud-arm64)
line=$(grep -F 'aarch64.lat_syscall.null (us)' "$tmp/c.txt" | head -n 1)
echo "# $line"
cpct=$(echo "$line" | grep -oE ' [+-][0-9.]+% ' | head -n 1 | tr -d ' %')
if [ -n "$since" ] && [ "${since#* }" = "$cw" ] &&
	awk -v a="${since% *}" -v b="$cpct" 'BEGIN { d = a - b; exit !(b != "" && d < 0.06 && d > -0.06) }'; then
	ok "history's -47 -> -57 since the first ($since) is compare's from the database ($cpct %, $cw)"
else not_ok "compare -47 against -57 from the database" "history '$since', compare '$cpct' $cw: $line"; fi
if xmllint --noout "$tmp/real.svg" 2>/dev/null && [ "$(grep -c '<circle' "$tmp/real.svg")" -ge 9 ]; then
	ok "the real history's SVG: well-formed, a point per boot"
else not_ok "the real history's SVG"; fi
# An interrupted run keeps what finished, in the database too: SIGINT once
# boot 1 is written.
"$BOOTRIG" run --config "$tmp/suite.cfg" --suite history --clock icount --repeat 4 --db "$tmp/int.db" \
	-o "$tmp/int" --kernel "$K57" >"$tmp/int.out" 2>"$tmp/int.err" &
pid=$!
i=0
while [ $i -lt 300 ] && ! ls "$tmp"/int/*/default/1/result.json >/dev/null 2>&1; do sleep 1; i=$((i + 1)); done
kill -INT $pid
wait $pid
irc=$?
files=$(ls "$tmp"/int/*/default/*/result.json 2>/dev/null | wc -l)
rows=$(q "$tmp/int.db" 'SELECT count(*) FROM boot')
if [ $irc -eq 130 ] && [ "$files" -ge 1 ] && [ "$files" -lt 4 ] && [ "$rows" = "$files" ]; then
	ok "run --db interrupted by SIGINT: exit 130, its $files finished boot(s) recorded"
else not_ok "an interrupted run --db" "rc=$irc files=$files rows=$rows $(tail -3 "$tmp/int.err")"; fi
echo "1..$_tap_n"
