#!/bin/sh
# 52-hostile: the scale of hostile input (issues 28 and 45), timed on the
# release build where tests/t-hostile.sh checks only what comes out:
# compare of two boots of 40,000 metrics each (target: under 15 s), judge
# --format ktap of 2,048 KTAP suites (under 5 s), and compare --format html
# of a profile of 80,000 distinct stacks (the flame graph: under 5 s; it was
# 23 s when a frame's child was found by a linear search). Baseline: json-c
# parsing the same files alone (tests/tools/json-parse-all).
set -eu
cd "$(dirname "$0")/../.."
. scripts/bench-lib.sh
make -s build/bootrig >/dev/null
tmp=$(mktemp -d /tmp/bootrig-bench-hostile.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
# shellcheck disable=SC2046
${CC:-cc} -O2 -o "$tmp/json-parse-all" tests/tools/json-parse-all.c $(pkg-config --cflags --libs json-c)
python3 - "$tmp" <<'PY'
import json, os, sys
tmp = sys.argv[1]
def boot(d, kid, ms, prof=None):
    os.makedirs(f"{tmp}/{d}/{kid}/default/1", exist_ok=True)
    if prof:
        ms[0]["profile"] = prof
    json.dump({"format": "bootrig-result-1", "kernel": {"id": kid}, "variant": "default", "boot": 1,
               "verdict": "PASS", "metrics": ms}, open(f"{tmp}/{d}/{kid}/default/1/result.json", "w"))
def metrics(n):
    return [{"abi": "x86_64", "test": "t", "name": f"m{i}", "unit": "us", "better": "lower",
             "n": 1, "median": 10.0 + i, "samples": [10.0 + i]} for i in range(n)]
for side, kid in (("m/a", "ka"), ("m/b", "kb")):
    boot(side, kid, metrics(40000))
stacks = [{"stack": f"r;f{i};g{i}", "samples": 1} for i in range(80000)]
prof = {"status": "ok", "event": "cpu-clock", "period_ns": 1, "samples": 80000, "lost": 0,
        "functions": [], "stacks": stacks, "stacks_other": 0}
for side, kid in (("f/a", "ka"), ("f/b", "kb")):
    boot(side, kid, metrics(1), prof)
with open(f"{tmp}/many.log", "w") as f:
    f.write("Linux version 6.1.0\nKTAP version 1\n1..2048\n")
    for i in range(1, 2049):
        f.write(f"    KTAP version 1\n    # Subtest: s{i}\n    1..1\n    ok 1 c\nok {i} s{i}\n")
PY
t_json=$(best_of 3 "$tmp/json-parse-all" "$tmp"/m/*/*/default/1/result.json)
t_cmp=$(best_of 3 build/bootrig compare "$tmp/m/a" "$tmp/m/b")
t_ktap=$(best_of 3 build/bootrig judge --format ktap "$tmp/many.log")
t_flame=$(best_of 3 build/bootrig compare "$tmp/f/a" "$tmp/f/b" --format html -o "$tmp/f.html")
awk -v j="$t_json" -v c="$t_cmp" -v k="$t_ktap" -v f="$t_flame" 'BEGIN {
	printf "   %-46s %8.3f s\n", "json-c parse of the 40,000-metric files", j
	printf "   %-46s %8.3f s   %s\n", "compare, 2 x 40,000 metrics", c, (c < 15 ? "under 15 s: ok" : "OVER 15 s")
	printf "   %-46s %8.3f s   %s\n", "judge --format ktap, 2,048 suites", k, (k < 5 ? "under 5 s: ok" : "OVER 5 s")
	printf "   %-46s %8.3f s   %s\n", "compare --format html, 80,000 stacks", f, (f < 5 ? "under 5 s: ok" : "OVER 5 s")
}'
