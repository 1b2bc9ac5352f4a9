#!/bin/sh
# Every command in README.md and in the manual's pages runs as written (the
# pages in docs/, in the order README.md's map lists them, after README.md's
# own): each ```sh block, in order, in
# a scratch directory laid out like the top of the tree (build/ and scripts/
# linked), with `set -e`, so a command that fails fails its block. The
# first block's two settings (PATH, K) are what a reader keeps in their
# shell; each later block starts with them too. `bootrig compare` and
# `bootrig logdiff` may exit
# 1: a regression found, logs that differ, as the README says.
# holds: lava (docs/labs.md starts and stops tests/lava-host.sh's instance)
. "$(dirname "$0")/lib.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
ln -s "$TOP/build" "$scratch/build"
ln -s "$TOP/scripts" "$scratch/scripts"
ln -s "$TOP/configs" "$scratch/configs"
ln -s "$TOP/tests" "$scratch/tests"     # tests/lava-host.sh: the LAVA section

# The pages: README.md, then each docs/NAME.md in the order of README.md's
# map (its "- [Title](docs/NAME.md)" lines); a page in docs/ the map does
# not list is an error (its commands would never run).
pages="$TOP/README.md"
for p in $(grep '^- \[' "$TOP/README.md" | grep -o '](docs/[a-z0-9-]*\.md' | sed 's/^](//' | awk '!seen[$0]++'); do
	pages="$pages $TOP/$p"
done
for f in "$TOP"/docs/*.md; do
	case " $pages " in *" $f "*) ;; *) not_ok "README.md links docs/${f##*/}" "not in its map" ;; esac
done
# Split the pages' sh blocks into files block1.sh, block2.sh, ... (each
# block's page kept beside it, for its test's name)
# shellcheck disable=SC2086
awk -v dir="$scratch" -v top="$TOP/" '
	FNR == 1 { page = FILENAME; sub(top, "", page) }
	/^```sh$/ { n++; file = dir "/block" n ".sh"; print page > (file ".page"); close(file ".page")
		    inside = 1; next }
	/^```$/ && inside { inside = 0; close(file); next }
	inside { print > file }
' $pages

prologue='set -e
export PATH=$PWD/build:$PATH
K=~/.cache/bootrig/kernels
bootrig() {
	rc=0
	command bootrig "$@" || rc=$?
	case $1 in compare | logdiff) [ "$rc" -eq 1 ] && return 0 ;; esac
	return "$rc"
}
'
n=0
for block in $(ls "$scratch"/block*.sh | sort -V); do
	n=$((n + 1))
	first="$(cat "$block.page" 2>/dev/null): $(grep -v '^ *#' "$block" | grep -m 1 . | cut -c 1-60)"
	{ printf '%s\n' "$prologue"; cat "$block"; } >"$block.run"
	if (cd "$scratch" && sh "$block.run") >"$block.log" 2>&1; then
		ok "block $n, $first"
	else
		not_ok "block $n, $first" "$(tail -n 4 "$block.log" | tr '\n' '|')"
	fi
done
[ "$n" -ge 10 ] || not_ok "README.md and docs/ have their command blocks" "found $n"
