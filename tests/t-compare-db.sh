#!/bin/sh
# t-compare-db: one loader. A side of `bootrig compare` is built by one
# function from boot records (compare/results.h), which the results files
# and the history database each give; this group proves the two agree: the
# same boots read from their results directories and imported into a
# database (`bootrig import`) give byte-identical `compare` output in
# every format (text, json, ktap, junit, html), the side names aside:
#   1. the real result.json files of tests/fixtures/compare (guest test
#      times: JUnit's time= of each metric case) and tests/fixtures/kcidb
#      (a third side, of other metrics);
#   2. synthetic trees (tests/tools/mkresults) whose boots carry the KTAP
#      cases `bootrig judge` reads from the real KUnit logs of
#      tests/fixtures/ktap (suites, nested suites, failures, skips), guest
#      test times, stages, a panic, an INFRA_ERROR boot and mixed ABIs;
#   3. boots imported in reverse order (one import per boot) read back in
#      the directories' order;
#   4. a version 2 database (before the test table): a reader reads it as
#      it is (no test times) and leaves it so; a writer migrates it to 3.
# No guest is booted.
. "$(dirname "$0")/lib.sh"
set -u
MK="$TOP/build/tests/tools/mkresults"
tmp=$(mktemp -d /tmp/t-compare-db.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
tmp=$(cd "$tmp" && pwd -P)     # the database keeps each result.json's real path
export NO_COLOR=1
NULL=x86_64:lat_syscall:null:us:lower
READ=x86_64:lat_syscall:read:us:lower
FORMATS="text json ktap junit html"

# agree NAME DB "SEL..." DIR...: compare of the directories DIR... and
# compare of db:DB:kernel=SEL for each SEL (side for side) in every format,
# with exit status, the database sides' names replaced by the directories';
# ok when byte for byte the same
agree() {
	name=$1 db=$2 sels=$3
	shift 3
	dbs="" dirs="" sub=""      # (paths without blanks: under $tmp)
	for sel in $sels; do
		dbs="$dbs db:$db:kernel=$sel"
		dirs="$dirs $1"
		sub="$sub s|db:$db:kernel=$sel|$1|g;"
		shift
	done
	differ=""
	for fmt in $FORMATS; do
		"$BOOTRIG" compare $dirs --format "$fmt" >"$tmp/dir.$fmt" 2>&1
		echo "exit $?" >>"$tmp/dir.$fmt"
		"$BOOTRIG" compare $dbs --format "$fmt" >"$tmp/db.$fmt" 2>&1
		echo "exit $?" >>"$tmp/db.$fmt"
		sed "$sub" "$tmp/db.$fmt" >"$tmp/db-named.$fmt"
		cmp -s "$tmp/dir.$fmt" "$tmp/db-named.$fmt" ||
			differ="$differ
$fmt: $(diff "$tmp/dir.$fmt" "$tmp/db-named.$fmt" | head -6)"
	done
	if [ -z "$differ" ]; then ok "$name: compare of the database = of the directories ($FORMATS)"
	else not_ok "$name: compare of the database = of the directories" "$differ"; fi
}

# --- 1. real results files ---
cp -R "$TOP/tests/fixtures/compare" "$tmp/fx"
cp -R "$TOP/tests/fixtures/kcidb" "$tmp/kc"
"$BOOTRIG" import --db "$tmp/fx.db" "$tmp/fx" "$tmp/kc" >/dev/null 2>"$tmp/err" ||
	not_ok "import of the fixtures" "$(cat "$tmp/err")"
BK=vmlinuz-6.1.0-57-cloud-arm64-1a2b3c4d CK=vmlinuz-6.1.0-58-cloud-arm64-5e6f7a8b
KK=$(basename "$(dirname "$(dirname "$(dirname "$(find "$tmp/kc" -name result.json | head -n 1)")")")")
agree "real result.json (guest test times)" "$tmp/fx.db" "$BK $CK" \
	"$tmp/fx/aarch64-base" "$tmp/fx/aarch64-cand"
grep -q 'time="[0-9.]*[1-9][0-9.]*"' "$tmp/dir.junit" && grep -q 'name="null" time="1.624"' "$tmp/db.junit" &&
	ok "JUnit: a metric case's time is its guest test's, from the database too" ||
	not_ok "JUnit times from the database" "$(grep 'name="null"' "$tmp/db.junit")"
agree "three sides, real result.json" "$tmp/fx.db" "$BK $CK $KK" \
	"$tmp/fx/aarch64-base" "$tmp/fx/aarch64-cand" "$tmp/kc/amd64-6.1.0-57"

# --- 2. KTAP cases from real KUnit logs, failures of every kind ---
for log in is_test_passed-all_passed_nested is_test_passed-failure skip_tests; do
	"$BOOTRIG" judge --format json "$TOP/tests/fixtures/ktap/$log.log" 2>/dev/null |
		jq -c '.ktap' >"$tmp/$log.ktap"
done
"$MK" "$tmp/kt" k-base default 4 41 $NULL:10:1 $READ:20:1 --abi x86_64=ok --abi x32=unsupported \
	--boot 4=INFRA_ERROR >/dev/null
"$MK" "$tmp/kt" k-cand default 5 42 $NULL:12:1 $READ:20:1 --abi x86_64=ok --abi x32=unsupported \
	--boot 5=PANIC:panic:'Kernel panic - not syncing: Attempted to kill init!' >/dev/null
for f in "$tmp"/kt/*/default/*/result.json; do
	python3 - "$f" "$tmp" <<'PY'
import json, sys
path, tmp = sys.argv[1], sys.argv[2]
d = json.load(open(path))
cand, boot = "k-cand" in path, d["boot"]
log = ("is_test_passed-failure" if boot % 2 else "skip_tests") if cand else "is_test_passed-all_passed_nested"
d["ktap"] = json.load(open("%s/%s.ktap" % (tmp, log)))
d["tests"] = [{"abi": "x86_64", "test": "lat_syscall", "status": "PASS", "reason": "",
               "ms": 700 + 13 * boot + (50 if cand else 0)},
              {"abi": "x86_64", "test": "no_metric", "status": "FAIL", "reason": "x", "ms": 3}]
d["stages"] = {"firmware": 0.0, "kernel": 0.4 + boot / 100, "init": 1.5, "end": 9.0 + boot / 10}
# When a boot started: without it JUnit's timestamp is the report's own
# time, which differs between the two compares when a second ticks.
d["started"] = "2026-11-29T23:%02d:00Z" % boot
if cand and boot == 3:
    d["abis"]["x32"] = {"status": "error", "reason": "exec failed: ENOEXEC"}
json.dump(d, open(path, "w"), indent=2)
PY
done
"$BOOTRIG" import --db "$tmp/kt.db" "$tmp/kt" >/dev/null 2>"$tmp/err" ||
	not_ok "import of the KTAP trees" "$(cat "$tmp/err")"
n=$(sqlite3 "$tmp/kt.db" 'SELECT count(*) FROM ktap_case')
want=$(for f in "$tmp"/kt/*/default/*/result.json; do jq '.ktap.cases | length' "$f"; done | awk '{s += $1} END {print s}')
[ "$n" = "$want" ] && [ "$n" -gt 0 ] && ok "import keeps every KTAP case ($n)" || not_ok "KTAP cases imported" "$n of $want"
agree "KTAP cases of real KUnit logs, a panic, an INFRA_ERROR boot" "$tmp/kt.db" "k-base k-cand" \
	"$tmp/kt/k-base" "$tmp/kt/k-cand"
new=$(sed '$d' "$tmp/db.json" | jq -r '.new_ktap_failures[] | .suite + "." + .case')
[ "$new" = example.example_simple_test ] && tail -n 1 "$tmp/db.json" | grep -qx 'exit 1' &&
	ok "the database side reports the new KTAP failure (example.example_simple_test), exit 1" ||
	not_ok "new KTAP failures from the database" "new=$new $(tail -n 1 "$tmp/db.json")"

# --- 3. the order recorded is not the order read ---
for f in $(find "$tmp/kt/k-cand" -name result.json | sort -r); do
	"$BOOTRIG" import --db "$tmp/rev.db" "$f" >/dev/null 2>>"$tmp/err"
done
agree "boots imported one by one, last first" "$tmp/rev.db" "k-cand k-cand" \
	"$tmp/kt/k-cand" "$tmp/kt/k-cand"

# --- 4. a version 2 database: read as it is, migrated by a writer ---
cp "$tmp/kt.db" "$tmp/v2.db"
sqlite3 "$tmp/v2.db" 'DROP TABLE test; PRAGMA user_version = 2'
"$BOOTRIG" compare "db:$tmp/v2.db:kernel=k-base" "db:$tmp/v2.db:kernel=k-cand" --format junit \
	>"$tmp/v2.junit" 2>"$tmp/err"
rc=$?
v=$(sqlite3 "$tmp/v2.db" 'PRAGMA user_version')
[ $rc -eq 1 ] && [ "$v" = 2 ] && grep -q 'name="null" time="0.000"' "$tmp/v2.junit" &&
	ok "a version 2 database: compare db: reads it (no test times) and leaves it at version 2" ||
	not_ok "reading a version 2 database" "rc=$rc v=$v $(cat "$tmp/err")"
"$BOOTRIG" import --db "$tmp/v2.db" "$tmp/fx" >/dev/null 2>"$tmp/err"
rc=$?
v=$(sqlite3 "$tmp/v2.db" 'PRAGMA user_version')
t=$(sqlite3 "$tmp/v2.db" "SELECT count(*) FROM test")
[ $rc -eq 0 ] && [ "$v" = 6 ] && [ "$t" = 4 ] &&
	ok "a version 2 database: import migrates it to 6 (the test table) and fills it" ||
	not_ok "migration 2 -> 6" "rc=$rc v=$v t=$t $(cat "$tmp/err")"
echo "1..$_tap_n"
