#!/bin/sh
# t-runner.sh: tests/run-tests.sh itself, on a tree of stand-in groups: a
# group that hangs (and leaves a child behind it) is stopped at its
# "# limit:", reported failed with its log's tail, leaves no process, and
# the next group still runs; a group that exits non-zero without a TAP
# failure, and one that reports nothing, count as failures; the closing
# line counts it all. Then the runner's jobs: with TEST_JOBS=2 two groups
# run at once (one waits for the other's file), two that hold one name
# ("# holds: NAME") never do, the report is in name order whichever group
# ends first, and a SIGINT mid-run stops every group and leaves nothing.
# limit: 120
. "$(dirname "$0")/lib.sh"
set -u

tmp=$(mktemp -d /tmp/t-runner.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tests"
cp "$TOP/tests/run-tests.sh" "$tmp/tests/"
marker="t-runner-hang-$$"
cat >"$tmp/tests/t-a-hangs.sh" <<EOT
# limit: 3
echo "ok 1 - before the hang"
sh -c 'exec sleep 600 # $marker' &
exec sleep 600
EOT
cat >"$tmp/tests/t-b-next.sh" <<'EOT'
echo "ok 1 - the next group ran"
EOT
cat >"$tmp/tests/t-c-crash.sh" <<'EOT'
echo "ok 1 - something"
exit 3
EOT
cat >"$tmp/tests/t-d-silent.sh" <<'EOT'
echo "nothing in TAP"
EOT
start=$(date +%s)
env -u TESTS -u TEST_LIMIT sh "$tmp/tests/run-tests.sh" >"$tmp/out" 2>&1
rc=$?
secs=$(($(date +%s) - start))
if [ "$rc" -ne 0 ] && [ "$secs" -lt 30 ]; then ok "a hanging group ends the run within its limit ($secs s), exit $rc"
else not_ok "hanging group bounded" "exit $rc after $secs s: $(tail -n 5 "$tmp/out")"; fi
if grep -q 'not ok - t-a-hangs overran its limit of 3 s' "$tmp/out" && grep -q '| ok 1 - before the hang' "$tmp/out"; then
	ok "the hanging group is reported failed, with its log's tail"
else not_ok "overrun reported" "$(cat "$tmp/out")"; fi
if grep -A2 '^== t-b-next' "$tmp/out" | grep -q '1 passed, 0 failed'; then ok "the next group runs after the one that hung"
else not_ok "next group" "$(cat "$tmp/out")"; fi
sleep 1
if pgrep -f "$marker" >/dev/null; then not_ok "no process of the hung group is left" "$(pgrep -af "$marker")"; pkill -f "$marker"
else ok "no process of the hung group is left (its child was killed with it)"; fi
if grep -q 'not ok - t-c-crash exited 3 without reporting a failure' "$tmp/out"; then ok "a group that exits non-zero without a failure counts as one"
else not_ok "crash counted" "$(grep -A3 t-c-crash "$tmp/out")"; fi
if grep -q 'not ok - t-d-silent reported no test' "$tmp/out"; then ok "a group that reports nothing counts as a failure"
else not_ok "silent counted" "$(grep -A3 t-d-silent "$tmp/out")"; fi
last=$(tail -n 1 "$tmp/out")
if [ "$last" = "3 passed, 3 failed, 0 skipped" ]; then ok "the closing line: $last"
else not_ok "closing line" "$last"; fi

# Two at once, in name order. t-a waits (up to 20 s) for a file t-b writes:
# at TEST_JOBS=1 it would wait for nothing and fail. t-c and t-d hold one
# name: each marks itself inside, looks for the other, and leaves.
par=$tmp/par
mkdir -p "$par/tests"
cp "$TOP/tests/run-tests.sh" "$par/tests/"
cat >"$par/tests/t-a-waits.sh" <<EOT
i=0
while [ ! -f "$par/b-was-here" ] && [ \$i -lt 200 ]; do sleep 0.1; i=\$((i + 1)); done
if [ -f "$par/b-was-here" ]; then echo "ok 1 - a saw b running beside it"; else echo "not ok 1 - a saw b running beside it"; fi
EOT
cat >"$par/tests/t-b-writes.sh" <<EOT
touch "$par/b-was-here"
echo "ok 1 - b wrote its file"
EOT
for g in c d; do
	cat >"$par/tests/t-$g-holds.sh" <<EOT
# holds: the-one
i=0
while [ \$i -lt 10 ]; do
	touch "$par/inside-$g"
	ls "$par" | grep -v "inside-$g" | grep -q '^inside-' && echo "overlap" >>"$par/overlaps"
	sleep 0.1
	i=\$((i + 1))
done
rm -f "$par/inside-$g"
echo "ok 1 - $g held the-one"
EOT
done
env -u TESTS -u TEST_LIMIT TEST_JOBS=2 sh "$par/tests/run-tests.sh" >"$tmp/par.out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && grep -A2 '^== t-a-waits' "$tmp/par.out" | grep -q '1 passed, 0 failed'; then
	ok "TEST_JOBS=2 runs two groups at once"
else not_ok "two at once" "exit $rc: $(cat "$tmp/par.out")"; fi
order=$(grep '^== ' "$tmp/par.out" | tr '\n' ' ')
if [ "$order" = "== t-a-waits == t-b-writes == t-c-holds == t-d-holds " ]; then
	ok "the report is in name order though t-b ended before t-a"
else not_ok "name order" "$order"; fi
if [ ! -f "$par/overlaps" ] && grep -A2 '^== t-d-holds' "$tmp/par.out" | grep -q '1 passed'; then
	ok "two groups that hold one name never run at once"
else not_ok "holds" "$(cat "$par/overlaps" 2>/dev/null) $(cat "$tmp/par.out")"; fi

# A SIGINT mid-run (as Ctrl-C sends) stops both running groups at once,
# runs no further group and leaves no process.
int=$tmp/int
mkdir -p "$int/tests"
cp "$TOP/tests/run-tests.sh" "$int/tests/"
for g in a b; do
	printf 'touch "%s/started-%s"\nsh -c "exec sleep 600 # %s-%s" &\nexec sleep 600\n' "$int" "$g" "$marker" "$g" >"$int/tests/t-$g-long.sh"
done
printf 'touch "%s/c-ran"\necho "ok 1 - c"\n' "$int" >"$int/tests/t-c-after.sh"
# (a command put in the background by a script starts with SIGINT ignored,
# which its shell may not trap: env gives it back its default, as a
# terminal's foreground job has it)
env --default-signal=INT -u TESTS -u TEST_LIMIT TEST_JOBS=2 sh "$int/tests/run-tests.sh" >"$tmp/int.out" 2>&1 &
runner=$!
i=0
while { [ ! -f "$int/started-a" ] || [ ! -f "$int/started-b" ]; } && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
kill -INT $runner
i=0
while kill -0 $runner 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL $runner 2>/dev/null
wait $runner
rc=$?
sleep 1
left=$(pgrep -af "$marker-" | grep -v pgrep)
if [ "$rc" -ne 0 ] && [ -z "$left" ] && [ ! -f "$int/c-ran" ] && ! ls -d "$int/build/test-logs/.run."* >/dev/null 2>&1; then
	ok "SIGINT stops the running groups, runs no more and leaves nothing (exit $rc)"
else
	not_ok "SIGINT" "exit $rc; left: $left; c ran: $(ls "$int")"
	pkill -f "$marker-"
fi
