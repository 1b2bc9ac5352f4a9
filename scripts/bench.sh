#!/bin/sh
# make bench: each figure beside a baseline measured in the same invocation.
# Every part is a script in scripts/bench.d/, run in name order; each prints
# its own table. BENCH=glob limits the parts (BENCH='*build*').
set -u
cd "$(dirname "$0")/.."
status=0
for b in scripts/bench.d/*.sh; do
	[ -f "$b" ] || continue
	case $(basename "$b") in ${BENCH:-*}) ;; *) continue ;; esac
	echo "== $(basename "$b" .sh)"
	sh "$b" || { echo "   (this part failed: exit $?)"; status=1; }
	echo
done
exit $status
