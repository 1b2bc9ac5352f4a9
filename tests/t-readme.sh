#!/bin/sh
# Every command in README.md runs as written: each ```sh block, in order, in
# a scratch directory laid out like the top of the tree (build/ and scripts/
# linked), with `set -e`, so a command that fails fails its block. The
# first block's two settings (PATH, K) are what a reader keeps in their
# shell; each later block starts with them too. `bootrig compare` and
# `bootrig logdiff` may exit
# 1: a regression found, logs that differ, as the README says.
. "$(dirname "$0")/lib.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
ln -s "$TOP/build" "$scratch/build"
ln -s "$TOP/scripts" "$scratch/scripts"
ln -s "$TOP/configs" "$scratch/configs"
ln -s "$TOP/tests" "$scratch/tests"     # tests/lava-host.sh: the LAVA section

# Split the README's sh blocks into files 1.sh, 2.sh, ...
awk -v dir="$scratch" '
	/^```sh$/ { n++; file = dir "/block" n ".sh"; inside = 1; next }
	/^```$/ && inside { inside = 0; close(file); next }
	inside { print > file }
' "$TOP/README.md"

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
	first=$(grep -v '^ *#' "$block" | grep -m 1 . | cut -c 1-70)
	{ printf '%s\n' "$prologue"; cat "$block"; } >"$block.run"
	if (cd "$scratch" && sh "$block.run") >"$block.log" 2>&1; then
		ok "README block $n: $first"
	else
		not_ok "README block $n: $first" "$(tail -n 4 "$block.log" | tr '\n' '|')"
	fi
done
[ "$n" -ge 6 ] || not_ok "README has its command blocks" "found $n"
