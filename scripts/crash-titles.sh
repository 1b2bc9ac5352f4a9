#!/bin/sh
# crash-titles.sh DIR [BOOTRIG]: how bootrig's judge finds and names the
# crashes of a directory of console logs in syzkaller's report format
# (../shared/corpus/syzkaller-report/README.md): header lines (TITLE: T,
# ALT: T, TYPE: K, ...), a blank line, then the log; a file without a
# header line is a log without one, and a file without TITLE: is a log with
# no crash in it. For each log, `bootrig judge --format json` of the log
# alone; its crash is its first event of a kernel failure kind (not reboot,
# firmware_error, truncated, protocol or infra). Prints three figures:
#   found      logs with a TITLE whose judge found a crash
#   clean      logs without a TITLE whose judge found none
#   titles     logs with a TITLE whose first crash's title is TITLE or one
#              of its ALT lines, ignoring case (syzbot's dedup key)
# and, with -v as the first argument, each log whose title is not one of
# them (expected, then ours). Exit 0; 66 when DIR holds no file.
set -u
verbose=0
[ "${1:-}" = -v ] && { verbose=1; shift; }
dir=${1:?usage: crash-titles.sh [-v] DIR [BOOTRIG]}
here=$(cd "$(dirname "$0")/.." && pwd -P)
bootrig=${2:-$here/build/bootrig}
tmp=$(mktemp -d /tmp/crash-titles.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

n=0 crashes=0 found=0 cleans=0 clean=0 titled=0
for f in "$dir"/*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	# the header (lines of KEY: value up to the first blank line), else none
	awk -v hdr="$tmp/hdr" -v body="$tmp/log" '
		NR == 1 && !/^([A-Z_]+: |#|$)/ { inlog = 1 }
		!inlog && /^$/ { inlog = 1; next }
		!inlog { print > hdr; next }
		{ print > body }
		END { printf "" > hdr; printf "" >> body }' "$f"
	title=$(sed -n 's/^TITLE: //p' "$tmp/hdr" | head -n 1)
	ours=$("$bootrig" judge --format json "$tmp/log" 2>/dev/null | jq -r '
		[.events[]? | select(.kind as $k | ["reboot", "firmware_error", "truncated",
		 "protocol", "infra"] | index($k) | not)][0] | if . then .title else "" end' 2>/dev/null)
	if [ -z "$title" ]; then
		cleans=$((cleans + 1))
		if [ -z "$ours" ]; then clean=$((clean + 1))
		elif [ $verbose = 1 ]; then printf '%s: no crash; ours: %s\n' "${f##*/}" "$ours"; fi
		continue
	fi
	crashes=$((crashes + 1))
	[ -n "$ours" ] && found=$((found + 1))
	if sed -n 's/^\(TITLE\|ALT\): //p' "$tmp/hdr" | awk -v t="$ours" '
		tolower($0) == tolower(t) { hit = 1 } END { exit !hit }'; then
		titled=$((titled + 1))
	elif [ $verbose = 1 ]; then
		printf '%s: %s; ours: %s\n' "${f##*/}" "$title" "${ours:-(none)}"
	fi
done
[ $n -gt 0 ] || { echo "crash-titles: no file in $dir" >&2; exit 66; }
pct() { [ "$2" -gt 0 ] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f %%", 100 * a / b }' || echo "-"; }
printf 'logs: %d (%d with a crash, %d without)\n' "$n" "$crashes" "$cleans"
printf 'found: %d of %d crashes (%s)\n' "$found" "$crashes" "$(pct "$found" "$crashes")"
printf 'clean: %d of %d logs without a crash (%s)\n' "$clean" "$cleans" "$(pct "$clean" "$cleans")"
printf 'titles: %d of %d as syzbot titles them (%s)\n' "$titled" "$crashes" "$(pct "$titled" "$crashes")"
