#!/bin/sh
# t-runner.sh: tests/run-tests.sh itself, on a tree of stand-in groups: a
# group that hangs (and leaves a child behind it) is stopped at its
# "# limit:", reported failed with its log's tail, leaves no process, and
# the next group still runs; a group that exits non-zero without a TAP
# failure, and one that reports nothing, count as failures; the closing
# line counts it all.
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
