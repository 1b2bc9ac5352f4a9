#!/bin/sh
# t-fuzz.sh: the short fuzzing run of make check (tests/fuzz/run-fuzz.sh).
#   - each libFuzzer target (protocol decoder, console judge) runs ~20 s
#     (FUZZ_SECONDS) from its corpus: ok when nothing crashed;
#   - the canary (the protocol target with a planted use-after-free) must be
#     reported as a crash, so a harness that cannot see crashes fails here.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1

if ! command -v clang >/dev/null 2>&1; then
	not_ok "fuzz targets" "clang is not installed (scripts/install-deps.sh)"
	exit 1
fi

log=build/fuzz/t-fuzz.out
mkdir -p build/fuzz
sh tests/fuzz/run-fuzz.sh build >"$log" 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
	not_ok "fuzz targets build with clang" "exit $rc: $(tail -n 3 "$log" | tr '\n' ' ')"
	exit 0
fi
ok "fuzz targets build with clang"

for target in $(for f in tests/fuzz/fuzz_*.c; do basename "$f" .c | sed 's/^fuzz_//'; done); do
	out=$(FUZZ_SECONDS=${FUZZ_SECONDS:-20} sh tests/fuzz/run-fuzz.sh short "$target" 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	if [ "$rc" -eq 0 ] && echo "$out" | grep -q "^fuzz $target: ok"; then
		ok "fuzz $target: no crash"
	else
		not_ok "fuzz $target: no crash" "$(echo "$out" | head -n 1)"
	fi
done

rm -f build/fuzz/crash-canary-*
out=$(FUZZ_SECONDS=10 sh tests/fuzz/run-fuzz.sh short canary 2>&1)
rc=$?
if [ "$rc" -eq 1 ] && echo "$out" | grep -q "heap-use-after-free"; then
	ok "fuzz harness reports a planted crash (canary)"
else
	not_ok "fuzz harness reports a planted crash (canary)" "exit $rc: $(echo "$out" | head -n 1)"
fi
rm -f build/fuzz/crash-canary-*
