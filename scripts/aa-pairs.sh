#!/bin/sh
# aa-pairs.sh RESULTS BOOTRIG [PAIRS]: the A/A test of compare over one
# kernel's seeds (bootrig run --seed 1-N -o RESULTS, N >= 10 x PAIRS): pair
# k weighs seeds 10k+1..10k+5 against 10k+6..10k+10 (k = 0..PAIRS-1, default
# as many as the tree holds) with compare's defaults. Nothing differs but
# the seeds, so every flagged metric is a false alarm. Prints one line a
# pair and the total: flagged F of M metric comparisons; exits 1 if any
# pair's compare exits other than 0 or 1.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 RESULTS BOOTRIG [PAIRS]" >&2; exit 2; }
dir=$1 bootrig=$2
kv=$(ls -d "$dir"/*/*/ | head -1)
[ -n "$kv" ] || { echo "$0: no results under $dir" >&2; exit 1; }
k=${kv%/}; v=${k##*/}; k=${k%/*}; k=${k##*/}
# the boot directory of each seed
tmp=$(mktemp -d /tmp/aa-pairs.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for f in "$kv"*/result.json; do
	s=$(jq -r '.seed // empty' "$f")
	case $s in '' | *[!0-9]*) ;; *) echo "$s ${f%/result.json}" ;; esac
done >"$tmp/seeds"
max=$(sort -n "$tmp/seeds" | tail -1 | cut -d' ' -f1)
pairs=${3:-$((max / 10))}
flagged=0 total=0 bad=0
p=0
while [ $p -lt "$pairs" ]; do
	for side in a b; do
		mkdir -p "$tmp/$p$side/$k/$v"
		lo=$((10 * p + 1)); [ $side = b ] && lo=$((lo + 5))
		n=1
		for s in $lo $((lo + 1)) $((lo + 2)) $((lo + 3)) $((lo + 4)); do
			d=$(awk -v s="$s" '$1 == s { print $2; exit }' "$tmp/seeds")
			[ -n "$d" ] || { echo "$0: no boot of seed $s under $dir" >&2; exit 1; }
			ln -s "$d" "$tmp/$p$side/$k/$v/$n"
			n=$((n + 1))
		done
	done
	rc=0
	"$bootrig" compare --format json "$tmp/${p}a" "$tmp/${p}b" >"$tmp/out.json" 2>"$tmp/err" || rc=$?
	[ $rc -le 1 ] || { echo "pair $p: compare exited $rc: $(head -c 300 "$tmp/err")"; bad=1; }
	f=$(jq '[.metrics[].changes[] | select(.verdict == "regressed" or .verdict == "improved")] | length' "$tmp/out.json")
	m=$(jq '[.metrics[].changes[]] | length' "$tmp/out.json")
	echo "pair $p: seeds $((10 * p + 1))-$((10 * p + 5)) vs $((10 * p + 6))-$((10 * p + 10)): exit $rc, flagged $f of $m"
	flagged=$((flagged + f)) total=$((total + m))
	p=$((p + 1))
done
echo "A/A over $pairs pairs: flagged $flagged of $total metric comparisons"
exit $bad
