#!/bin/sh
# noise-floor.sh RESULTS [SEEDS]: the seed-to-seed spread of every metric of
# a results tree (bootrig run --seed 1-SEEDS -o RESULTS), as the README's
# noise-floor table: for each kernel and variant, each metric's mean over
# the PASS boots of seeds 1 to SEEDS (default 10), and its spread,
# (max - min) / mean x 100, one observation a boot (its median) -- the
# quantity compare takes as a metric's floor (compare/SCHEMA.md floor_pct).
# Prints markdown: | metric | unit | seeds | mean | spread % |
set -eu
[ $# -ge 1 ] || { echo "usage: $0 RESULTS [SEEDS]" >&2; exit 2; }
dir=$1 seeds=${2:-10}
command -v jq >/dev/null || { echo "$0: jq is needed (scripts/install-deps.sh)" >&2; exit 1; }
found=0
for kv in "$dir"/*/*/; do
	[ -d "$kv" ] || continue
	files=$(for f in "$kv"*/result.json; do
		[ -f "$f" ] || continue
		if jq -e --argjson n "$seeds" '.verdict == "PASS" and ((.seed // "x") | test("^[0-9]+$"))
		    and ((.seed | tonumber) >= 1) and ((.seed | tonumber) <= $n)' "$f" >/dev/null; then
			echo "$f"
		fi
	done)
	[ -n "$files" ] || continue
	found=1
	k=${kv%/}; v=${k##*/}; k=${k%/*}; k=${k##*/}
	printf '\n%s, %s\n\n| metric | unit | seeds | mean | spread %% |\n|---|---|---:|---:|---:|\n' "$k" "$v"
	# shellcheck disable=SC2086
	jq -r -s '[.[] | .seed as $s | .metrics[] | {id: "\(.abi).\(.test).\(.name)", unit, median, seed: $s}]
		| group_by(.id) | .[] | (map(.median)) as $m | ($m | add / length) as $mean
		| "| \(.[0].id) | \(.[0].unit) | \(map(.seed) | unique | length) | \($mean * 10000 | round / 10000) | \(if $mean == 0 then "-" else (((($m | max) - ($m | min)) / ($mean | fabs) * 100) * 100 | round / 100 | tostring) end) |"' $files
done
[ $found = 1 ] || { echo "$0: no PASS boot of seeds 1-$seeds under $dir" >&2; exit 1; }
