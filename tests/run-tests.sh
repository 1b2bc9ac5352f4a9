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
# Groups run TEST_JOBS at a time (default 2, below), each in
# its own process group, and are reported in name order as each one and
# all before it are done, so the report reads the same at any TEST_JOBS
# (TEST_JOBS=1: one at a time). A group that must not run beside certain
# others says so with a line "# holds: NAME... (why)" (e.g. "# holds: lava",
# the one test LAVA instance): no two groups holding one NAME run at once (a
# lock per NAME, taken before the group's time limit starts).
#
# Ends with one line: "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."

log_dir=build/test-logs
mkdir -p "$log_dir"
# this run's own state: the plan, each group's report and counts (a
# directory per runner process, gone when the run ends or is stopped)
state=$log_dir/.run.$$
rm -rf "$state" && mkdir "$state" || exit 2
pattern=${TESTS:-*}
LIMIT_DEFAULT=900
LIMIT_UNIT=300
# Two at a time by default, for the 2 cores CI has: a cold make check took
# 35.8 min so instead of 59.5 one at a time. (The one run in three that lost
# t-history's real -50 run, exit 65, was SQLite's "database is locked" from
# two writers making one new file, at any TEST_JOBS; compare/db.c waits.)
jobs=${TEST_JOBS:-2}
case $jobs in '' | *[!0-9]* | 0) echo "run-tests.sh: TEST_JOBS must be a positive number, not '$jobs'" >&2; exit 2 ;; esac

# limit_of SCRIPT: the group's "# limit: N", else the default.
limit_of() {
	n=$(sed -n 's/^# limit: *\([0-9][0-9]*\) *$/\1/p' "$1" | head -n 1)
	echo "${n:-$LIMIT_DEFAULT}"
}
# holds_of SCRIPT: the names of its "# holds:" lines, sorted (locks are
# taken in one order, so two groups never wait on each other).
holds_of() {
	sed -n 's/^# holds: *//p' "$1" | sed 's/(.*//' | tr ' ' '\n' | grep -E '^[a-z0-9-]+$' | sort -u | tr '\n' ' '
}

# The plan: one line per group, "NAME LIMIT KIND PATH HOLDS...".
for t in build/tests/test_*; do
	[ -x "$t" ] || continue
	case $(basename "$t") in $pattern) ;; *) continue ;; esac
	echo "$(basename "$t") $LIMIT_UNIT unit $t"
done >"$state/plan"
for t in tests/t-*.sh; do
	[ -f "$t" ] || continue
	case $(basename "$t") in $pattern) ;; *) continue ;; esac
	echo "$(basename "$t" .sh) $(limit_of "$t") script $t $(holds_of "$t")"
done >>"$state/plan"

# run_group NAME LIMIT KIND PATH HOLDS...: runs it, leaves its report in
# $state/NAME.report and its counts "P F S" in $state/NAME.counts (written
# last: its presence says the group is done).
run_group() {
	name=$1 limit=$2 kind=$3 path=$4
	shift 4
	[ -n "${TEST_LIMIT:-}" ] && [ "$TEST_LIMIT" -lt "$limit" ] && limit=$TEST_LIMIT
	log="$log_dir/$name.log"
	fds=
	n=9
	for h in "$@"; do
		eval "exec $n>>\"\$log_dir/hold-\$h.lock\""
		flock "$n"
		fds="$fds $n"
		n=$((n - 1))
	done
	start=$(date +%s)
	if [ "$kind" = unit ]; then set -- "$path"; else set -- sh "$path"; fi
	CMOCKA_MESSAGE_OUTPUT=TAP timeout -k 15 "$limit" "$@" >"$log" 2>&1 </dev/null &
	echo $! >"$state/$name.pid"
	[ -f "$state/stop" ] && kill -TERM $! 2>/dev/null
	wait $!
	rc=$?
	rm -f "$state/$name.pid"
	secs=$(($(date +%s) - start))
	for fd in $fds; do eval "exec $fd>&-"; done
	p=$(grep -E '^ok ' "$log" | grep -vc '# [Ss][Kk][Ii][Pp]')
	s=$(grep -E '^ok ' "$log" | grep -c '# [Ss][Kk][Ii][Pp]')
	f=$(grep -cE '^not ok ' "$log")
	{
		echo "== $name"
		# each failure with its diagnostic ("# ..." lines after it, at
		# most 20), so a CI log says why, not only what
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
	} >"$state/$name.report"
	echo "$p $f $s" >"$state/$name.counts.tmp"
	mv "$state/$name.counts.tmp" "$state/$name.counts"
}

# next_group: the plan's next line not yet taken by a worker, or nothing.
next_group() {
	(
		flock 3
		[ -f "$state/stop" ] && exit 1
		i=$(cat "$state/next" 2>/dev/null || echo 0)
		i=$((i + 1))
		line=$(sed -n "${i}p" "$state/plan")
		[ -n "$line" ] || exit 1
		echo "$i" >"$state/next"
		echo "$line"
	) 3>>"$state/next.lock"
}

worker() {
	while line=$(next_group); do
		# shellcheck disable=SC2086
		run_group $line
	done
}

# Ctrl-C or a kill: every running group is stopped (timeout passes the
# signal to the group's own process group), nothing is left.
stop_all() {
	trap - INT TERM
	touch "$state/stop"
	for p in "$state"/*.pid; do
		[ -f "$p" ] && kill -TERM "$(cat "$p")" 2>/dev/null
	done
	wait
	rm -rf "$state"
	exit 130
}
trap stop_all INT TERM

w=0
while [ "$w" -lt "$jobs" ]; do
	worker &
	w=$((w + 1))
done

passed=0 failed=0 skipped=0
while read -r name _; do
	while [ ! -f "$state/$name.counts" ]; do sleep 0.2; done
	cat "$state/$name.report"
	read -r p f s <"$state/$name.counts"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
done <"$state/plan"
wait
rm -rf "$state"

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
