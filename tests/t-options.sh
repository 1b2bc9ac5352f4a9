#!/bin/sh
# Every command's --help lists exactly the options its parser takes: each
# command's option table (lib/options.h), dumped by the hidden
# --list-options, is compared with its --help, both ways, and every entry is
# fed back to the parser. The commands are read from `bootrig --help`, so
# a new command is checked too.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmds=$("$BOOTRIG" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ -n "$cmds" ] && ok "bootrig --help lists the commands" || not_ok "bootrig --help lists the commands"
tab=$(printf '\t')
for cmd in $cmds; do
	"$BOOTRIG" "$cmd" --list-options >"$tmp/table" 2>"$tmp/table.err"
	rc=$?
	n=$(grep -c . "$tmp/table")
	if [ $rc = 0 ] && [ "$n" -gt 0 ]; then ok "$cmd: --list-options dumps its table ($n options)"
	else not_ok "$cmd: --list-options dumps its table" "exit $rc: $(cat "$tmp/table.err")"; fi
	"$BOOTRIG" "$cmd" --help >"$tmp/help" 2>&1
	rc=$?
	[ $rc = 0 ] && ok "$cmd --help: exit 0" || not_ok "$cmd --help: exit 0" "exit $rc"
	# The help's option lines: "  -x, --name ..." or "      --name ...".
	grep -E '^  (-[A-Za-z], |    )--[a-z]' "$tmp/help" >"$tmp/lines"
	missing="" nohelp="" extra="" unparsed=""
	while IFS="$tab" read -r name short type shown arg text; do
		if [ "$shown" = hidden ]; then
			grep -qE -- "--$name( |\$)" "$tmp/lines" && extra="$extra --$name(hidden)"
			continue
		fi
		[ -n "$text" ] || nohelp="$nohelp --$name"
		if [ "$short" = - ]; then want="^      --$name( |\$)"; else want="^  -$short, --$name( |\$)"; fi
		grep -qE -- "$want" "$tmp/lines" || missing="$missing --$name"
		# fed back: accepted (a value may be refused, never the option)
		if [ "$type" = flag ]; then set -- "--$name"; else set -- "--$name=1"; fi
		"$BOOTRIG" "$cmd" "$@" --list-options >/dev/null 2>"$tmp/err" ||
			! grep -qE "unknown option|ambiguous option" "$tmp/err" || unparsed="$unparsed --$name"
	done <"$tmp/table"
	while read -r line; do
		name=$(printf '%s\n' "$line" | sed -E 's/^(-[A-Za-z], )?--([a-z0-9-]+).*/\2/')
		awk -F "$tab" -v n="$name" '$1 == n && $4 == "shown" { f = 1 } END { exit !f }' \
			"$tmp/table" || extra="$extra --$name"
	done <"$tmp/lines"
	[ -z "$missing" ] && ok "$cmd: --help lists every option of its table" ||
		not_ok "$cmd: --help lists every option of its table" "not in --help:$missing"
	[ -z "$nohelp" ] && ok "$cmd: every option has a help line" ||
		not_ok "$cmd: every option has a help line" "no help:$nohelp"
	[ -z "$extra" ] && ok "$cmd: --help lists no option the table lacks" ||
		not_ok "$cmd: --help lists no option the table lacks" "only in --help:$extra"
	[ -z "$unparsed" ] && ok "$cmd: the parser takes every option of the table" ||
		not_ok "$cmd: the parser takes every option of the table" "refused:$unparsed"
done
# The check itself: an option the parser lacks is refused as unknown.
"$BOOTRIG" run --no-such-option --list-options >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc = 64 ] && grep -q "unknown option" "$tmp/err"; then ok "an unknown option is refused (64)"
else not_ok "an unknown option is refused (64)" "exit $rc: $(cat "$tmp/err")"; fi
