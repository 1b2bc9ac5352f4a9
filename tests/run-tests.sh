#!/bin/sh
# Runs every test group and counts what they report.
#
# A group is an executable that prints TAP: "ok N - name", "not ok N - name",
# "ok N - name # SKIP reason". The groups are the cmocka unit tests
# (build/tests/test_*, run with CMOCKA_MESSAGE_OUTPUT=TAP) and the scripts
# tests/t-*.sh, in name order. A group that exits non-zero without
# reporting a failure, or reports nothing at all, counts as one failure: a
# crash is never a pass. TESTS=glob limits the groups run (TESTS='t-boot*').
#
# Every group runs under a time limit: its own, from a line "# limit: N"
# (seconds) in its script, else LIMIT_DEFAULT; a cmocka unit test has
# LIMIT_UNIT. A group that overruns is sent SIGTERM with every process of
# its process group (coreutils timeout), SIGKILL 15 s later, and counts as
# one failure with its log's tail; the next group runs. TEST_LIMIT=N
# (seconds) caps every limit, for trying the runner itself.
#
# Ends with one line: "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."

log_dir=build/test-logs
mkdir -p "$log_dir"
passed=0 failed=0 skipped=0
pattern=${TESTS:-*}
LIMIT_DEFAULT=900
LIMIT_UNIT=300

# limit_of SCRIPT: the group's "# limit: N", else the default.
limit_of() {
	n=$(sed -n 's/^# limit: *\([0-9][0-9]*\) *$/\1/p' "$1" | head -n 1)
	echo "${n:-$LIMIT_DEFAULT}"
}

# run_group NAME LIMIT CMD...
run_group() {
	name=$1 limit=$2
	shift 2
	[ -n "${TEST_LIMIT:-}" ] && [ "$TEST_LIMIT" -lt "$limit" ] && limit=$TEST_LIMIT
	log="$log_dir/$name.log"
	echo "== $name"
	start=$(date +%s)
	CMOCKA_MESSAGE_OUTPUT=TAP timeout -k 15 "$limit" "$@" >"$log" 2>&1 </dev/null
	rc=$?
	secs=$(($(date +%s) - start))
	p=$(grep -E '^ok ' "$log" | grep -vc '# [Ss][Kk][Ii][Pp]')
	s=$(grep -E '^ok ' "$log" | grep -c '# [Ss][Kk][Ii][Pp]')
	f=$(grep -cE '^not ok ' "$log")
	# each failure with its diagnostic ("# ..." lines after it, at most 20),
	# so a CI log says why, not only what
	awk '/^not ok /{print; diag=20; next}
	     /^#/ && diag > 0 {print; diag--; next}
	     {diag=0}
	     /^ok .*# [Ss][Kk][Ii][Pp]/{print}' "$log" | sed 's/^/   /'
	if { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; } && [ "$secs" -ge "$limit" ]; then
		echo "   not ok - $name overran its limit of $limit s and was stopped (see $log)"
		tail -n 5 "$log" | sed 's/^/     | /'
		f=$((f + 1))
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "   not ok - $name exited $rc without reporting a failure (see $log)"
		tail -n 5 "$log" | sed 's/^/     | /'
		f=$((f + 1))
	elif [ $((p + s + f)) -eq 0 ]; then
		echo "   not ok - $name reported no test (see $log)"
		f=$((f + 1))
	fi
	echo "   $p passed, $f failed, $s skipped ($secs s)"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

for t in build/tests/test_*; do
	[ -x "$t" ] || continue
	case $(basename "$t") in $pattern) ;; *) continue ;; esac
	run_group "$(basename "$t")" "$LIMIT_UNIT" "$t"
done
for t in tests/t-*.sh; do
	[ -f "$t" ] || continue
	case $(basename "$t") in $pattern) ;; *) continue ;; esac
	run_group "$(basename "$t" .sh)" "$(limit_of "$t")" sh "$t"
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
