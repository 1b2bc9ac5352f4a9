#!/bin/sh
# t-guest-exec.sh: tests/tools/guest-exec, which gives back what a guest
# ran for the checks this host cannot run (tests/lib.sh's gx_add, gx_boot),
# never passes what did not come back: a stream cut short, a command the
# batch did not hold, a guest that wrote nothing; and replays exactly the
# bytes and the status it got. No boot: the streams are made here.
. "$(dirname "$0")/lib.sh"
set -u
tmp=$(mktemp -d /tmp/t-guest-exec.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
[ -x "$GX" ] || { not_ok "guest-exec built" "missing $GX: run make unit"; exit 1; }

d=$tmp/b
gx_add "$d" /bin/echo "a b" "file=$tmp/nope"
gx_add "$d" /bin/false
check "gx_add: one tab-joined line a command" test "$(cat "$d/batch")" = "$(printf '/bin/echo\ta b\tfile=%s/nope\n/bin/false' "$tmp")"
check "gx_add: the program goes into the guest at its path" test -f "$d/root/bin/echo"
gx_add "$tmp/safe" /bin/true / "root=/" /usr
check "gx_add: no folder from outside \$TOP or /tmp (/, /usr) goes into the guest" \
	test "$(cd "$tmp/safe/root" && find . -mindepth 1 | LC_ALL=C sort | paste -sd' ' -)" = "./bin ./bin/true"

# a whole stream: two commands, binary bytes kept
printf 'GX-CMD 0 0 4 2\nhi\0\nE!GX-CMD 1 1 0 0\nGX-END 2\n' >"$d/stream"
if "$GX" --split "$d/stream" "$d" 2>"$tmp/err"; then ok "--split: a whole stream"
else not_ok "--split: a whole stream" "$(cat "$tmp/err")"; fi
"$GX" --replay "$d" /bin/echo "a b" "file=$tmp/nope" >"$tmp/o" 2>"$tmp/e"
rc=$?
check "--replay: the exit status" test $rc = 0
check "--replay: stdout byte for byte" sh -c "printf 'hi\0\n' | cmp -s - '$tmp/o'"
check "--replay: stderr" test "$(cat "$tmp/e")" = "E!"
"$GX" --replay "$d" /bin/false >/dev/null 2>&1
check "--replay: a failing command's status" test $? = 1

"$GX" --replay "$d" /bin/true >/dev/null 2>"$tmp/e"
rc=$?
[ $rc = 127 ] && grep -q "not run in the guest" "$tmp/e" && ok "--replay: a command not in the batch is 127, named" ||
	not_ok "--replay: a command not in the batch" "exit $rc: $(cat "$tmp/e")"

# broken streams: each fails, with the reason
bad() {
	name=$1
	shift
	printf "$@" >"$d/stream"
	"$GX" --split "$d/stream" "$d" >"$tmp/e" 2>&1
	rc=$?
	[ $rc != 0 ] && [ -s "$tmp/e" ] && ok "--split fails: $name ($(head -c 80 "$tmp/e"))" ||
		not_ok "--split fails: $name" "exit $rc"
}
bad "no GX-END (the guest died)" 'GX-CMD 0 0 0 0\nGX-CMD 1 1 0 0\n'
bad "output cut short" 'GX-CMD 0 0 10 0\nhi'
bad "fewer commands than the batch" 'GX-CMD 0 0 0 0\nGX-END 1\n'
bad "out of order" 'GX-CMD 1 0 0 0\nGX-CMD 0 0 0 0\nGX-END 2\n'
bad "an empty stream (nothing came back)" ''
rm -f "$d/stream"
"$GX" --split "$d/stream" "$d" >"$tmp/e" 2>&1
[ $? != 0 ] && grep -q "wrote nothing" "$tmp/e" && ok "--split fails: no stream at all" || not_ok "--split: no stream" "$(cat "$tmp/e")"

# the console form (gx_stream=console: arm64's one serial port): the same
# stream as "GXS HEX" lines among the kernel's, CRLF as the tty writes them
hexs() { (printf "$1" | od -An -v -tx1 | tr -d ' \n'; echo) | fold -w 64 | sed 's/^/GXS /; s/$/\r/'; }
rm -f "$d"/*.out "$d"/*.err "$d"/*.rc # replayed from this stream only
{ printf '[    0.5] Run /init as init process\r\n'
  hexs 'GX-CMD 0 0 4 2\nhi\0\nE!'
  printf '[    0.9] some kernel line\r\n'
  hexs 'GX-CMD 1 1 0 0\nGX-END 2\n'
  printf '[    1.1] reboot: Power down\r\n'; } >"$d/stream"
if "$GX" --split "$d/stream" "$d" 2>"$tmp/err"; then ok "--split: the console's hex lines among the kernel's"
else not_ok "--split: the console's hex lines" "$(cat "$tmp/err")"; fi
"$GX" --replay "$d" /bin/echo "a b" "file=$tmp/nope" >"$tmp/o" 2>"$tmp/e"
check "--replay of the console form: stdout byte for byte, stderr" \
	sh -c "printf 'hi\0\n' | cmp -s - '$tmp/o' && test \"\$(cat '$tmp/e')\" = E!"
# a kernel line written into the middle of a hex line breaks the stream
{ hexs 'GX-CMD 0 0 4 2\nhi\0\nE!' | sed '1s/$/[ 2.0] oops/'; hexs 'GX-CMD 1 1 0 0\nGX-END 2\n'; } >"$d/stream"
"$GX" --split "$d/stream" "$d" >"$tmp/e" 2>&1
rc=$?
[ $rc != 0 ] && [ -s "$tmp/e" ] && ok "--split fails: a hex line with a kernel line inside ($(head -c 80 "$tmp/e"))" ||
	not_ok "--split fails: a hex line with a kernel line inside" "exit $rc"
