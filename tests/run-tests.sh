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
# Ends with one line: "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."

log_dir=build/test-logs
mkdir -p "$log_dir"
passed=0 failed=0 skipped=0
pattern=${TESTS:-*}

run_group() {
	name=$1
	shift
	log="$log_dir/$name.log"
	echo "== $name"
	CMOCKA_MESSAGE_OUTPUT=TAP "$@" >"$log" 2>&1
	rc=$?
	p=$(grep -E '^ok ' "$log" | grep -vc '# [Ss][Kk][Ii][Pp]')
	s=$(grep -E '^ok ' "$log" | grep -c '# [Ss][Kk][Ii][Pp]')
	f=$(grep -cE '^not ok ' "$log")
	# each failure with its diagnostic ("# ..." lines after it, at most 20),
	# so a CI log says why, not only what
	awk '/^not ok /{print; diag=20; next}
	     /^#/ && diag > 0 {print; diag--; next}
	     {diag=0}
	     /^ok .*# [Ss][Kk][Ii][Pp]/{print}' "$log" | sed 's/^/   /'
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "   not ok - $name exited $rc without reporting a failure (see $log)"
		tail -n 5 "$log" | sed 's/^/     | /'
		f=$((f + 1))
	elif [ $((p + s + f)) -eq 0 ]; then
		echo "   not ok - $name reported no test (see $log)"
		f=$((f + 1))
	fi
	echo "   $p passed, $f failed, $s skipped"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

for t in build/tests/test_*; do
	[ -x "$t" ] || continue
	case $(basename "$t") in $pattern) ;; *) continue ;; esac
	run_group "$(basename "$t")" "$t"
done
for t in tests/t-*.sh; do
	[ -f "$t" ] || continue
	case $(basename "$t") in $pattern) ;; *) continue ;; esac
	run_group "$(basename "$t" .sh)" sh "$t"
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
