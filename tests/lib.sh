# tests/lib.sh: helpers for the shell test groups (tests/t-*.sh), sourced.
# Each group prints TAP; tests/run-tests.sh counts it.
#   ok "name"            a pass
#   not_ok "name" "why"  a failure, with the reason on the next line
#   skip "name" "why"    a skip (never counted as a pass)
#   check "name" CMD...  runs CMD (an argv, no shell): ok if it exits 0
# BOOTRIG is the tool under test (the sanitized build when it exists).
_tap_n=0
ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1"; }
not_ok() { _tap_n=$((_tap_n + 1)); echo "not ok $_tap_n - $1"; [ -n "${2:-}" ] && echo "# $2"; return 0; }
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # SKIP ${2:-}"; }
check() {
	name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name" "command failed: $*"; fi
}
TOP=$(cd "$(dirname "$0")/.." && pwd)
BOOTRIG=${BOOTRIG:-$TOP/build/bootrig}
[ -x "$TOP/build/bootrig-asan" ] && BOOTRIG=${BOOTRIG_ASAN:-$TOP/build/bootrig-asan}
# Real Debian kernels, fetched once into the cache: kernel_path FLAVOUR
kernel_path() { sh "$TOP/scripts/fetch-kernels.sh" "$1" | awk '{print $2}'; }
