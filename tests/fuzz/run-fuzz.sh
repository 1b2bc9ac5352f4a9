#!/bin/sh
# tests/fuzz/run-fuzz.sh [short|long|build] [TARGET...]
#
# Builds the libFuzzer targets (tests/fuzz/fuzz_*.c) with clang against the
# host sources (lib/ judge/ builder/ runner/ compare/, without lib/bootrig.c), with
# AddressSanitizer and UBSan, and runs each one:
#   short  ~20 s a target (make check, through tests/t-fuzz.sh)
#   long   10 min a target (make fuzz); FUZZ_SECONDS overrides either
#   build  only build
# The corpus of a target lives in build/fuzz/corpus/<target>/ and grows from
# run to run; it is seeded from tests/fuzz/seeds/common/ (real console logs
# of Debian kernels), tests/fuzz/seeds/<target>/ and logs the encoder writes
# (build/tests/tools/br-genlog, when built). tests/fuzz/protocol.dict holds
# the protocol's, the kernel's and KTAP's key words; a target with its own
# tests/fuzz/<target>.dict (result: result.json's) takes that instead. A crash leaves
# build/fuzz/crash-<target>-* and makes the script exit 1; turn each one into
# a unit test (tests/unit/) before fixing it.
#
# Output, one line a target: "fuzz <target>: ok (<runs> runs, <cov> edges)"
# or "fuzz <target>: CRASH <file>".
set -u
cd "$(dirname "$0")/../.."

mode=${1:-short}
[ $# -gt 0 ] && shift
case $mode in
short) seconds=${FUZZ_SECONDS:-20} ;;
long) seconds=${FUZZ_SECONDS:-600} ;;
build) seconds=0 ;;
*) echo "usage: $0 [short|long|build] [TARGET...]" >&2; exit 64 ;;
esac

CLANG=${CLANG:-clang}
if ! command -v "$CLANG" >/dev/null 2>&1; then
	echo "fuzz: $CLANG not found (scripts/install-deps.sh installs clang)" >&2
	exit 125
fi

out=build/fuzz
mkdir -p "$out/obj"
# The libraries' flags, as the Makefile has them (it owns the list).
make_var() {
	printf 'fuzz-print-%%:\n\t@echo $($*)\n' |
		make -s --no-print-directory -f Makefile -f - "fuzz-print-$1"
}
cflags="-std=c11 -D_GNU_SOURCE -g -O1 -Wall $(make_var INCLUDES) \
-DBOOTRIG_VERSION=\"fuzz\" -fsanitize=fuzzer-no-link,address,undefined \
-fno-sanitize-recover=all -fno-omit-frame-pointer $(make_var PKG_CFLAGS)"
libs=$(make_var HOST_LIBS)

# Compiles one host source into $out/obj when the object is older than the
# source or than any header; prints the object's path.
compile() {
	src=$1
	obj=$out/obj/$(echo "$src" | tr / _ | sed 's/\.c$/.o/')
	if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] ||
	   [ -n "$(find lib judge builder runner compare -name '*.h' -newer "$obj" 2>/dev/null | head -n 1)" ]; then
		# shellcheck disable=SC2086
		$CLANG $cflags -c -o "$obj" "$src" || return 1
	fi
	echo "$obj"
}

# The host sources as the Makefile finds them, but main() (LIB_SRCS). The
# plugin modules' sources (libvirt, libguestfs) are not among them: the
# fuzz targets reach their functions through lib/module.c's forwarders.
objs=""
for src in $(make_var LIB_SRCS); do
	obj=$(compile "$src") || { echo "fuzz: cannot compile $src" >&2; exit 125; }
	objs="$objs $obj"
done

targets=$*
[ -n "$targets" ] || targets=$(for f in tests/fuzz/fuzz_*.c; do basename "$f" .c | sed 's/^fuzz_//'; done)

# The corpus of a target: its seeds, the encoder's logs, real logs.
seed_corpus() {
	seeds=tests/fuzz/seeds/$1 dir=$2
	[ "$1" = canary ] && seeds=tests/fuzz/seeds/protocol
	mkdir -p "$dir"
	[ -d "$seeds" ] && cp -f "$seeds"/* "$dir"/ 2>/dev/null
	# a result.json or a chart's numbers are no console: their own seeds only
	case $1 in result|chart) return 0 ;; esac
	[ -d tests/fuzz/seeds/common ] && cp -f tests/fuzz/seeds/common/* "$dir"/ 2>/dev/null
	for f in tests/fixtures/*.log tests/fixtures/*/*.log; do
		[ -f "$f" ] && [ "$(wc -c <"$f")" -le 65536 ] &&
			cp -f "$f" "$dir/fixture-$(echo "$f" | tr / _)"
	done
	if [ -x build/tests/tools/br-genlog ]; then
		for seed in 1 2 3 4 5 6; do
			ASAN_OPTIONS=detect_leaks=0 build/tests/tools/br-genlog --seed "$seed" \
				--size 6000 $( [ "$seed" -gt 3 ] && echo --damage ) \
				-o "$dir/genlog-$seed" >/dev/null 2>&1
		done
	fi
	return 0
}

status=0
for name in $targets; do
	# "canary": the protocol target with a planted use-after-free on END
	# records, to show that this script reports a crash (tests/t-fuzz.sh).
	extra=
	case $name in
	canary) src=tests/fuzz/fuzz_protocol.c extra=-DFUZZ_CANARY ;;
	*) src=tests/fuzz/fuzz_$name.c ;;
	esac
	[ -f "$src" ] || { echo "fuzz: no target $src" >&2; exit 64; }
	bin=$out/fuzz_$name
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ] || [ -n "$(find $objs -newer "$bin" | head -n 1)" ]; then
		# shellcheck disable=SC2086
		$CLANG $cflags $extra -fsanitize=fuzzer -o "$bin" "$src" $objs $libs ||
			{ echo "fuzz: cannot build $bin" >&2; exit 125; }
	fi
	[ "$seconds" -eq 0 ] && { echo "fuzz $name: built $bin"; continue; }
	corpus=$out/corpus/$name
	seed_corpus "$name" "$corpus"
	log=$out/fuzz_$name.log
	# a target's own dictionary (tests/fuzz/<target>.dict), else the protocol's
	dict=tests/fuzz/$name.dict
	[ -f "$dict" ] || dict=tests/fuzz/protocol.dict
	# -fork would hide the first crash's stack; one process, no leaks
	# reported for the judge's intentional caches at exit.
	ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$bin" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -dict="$dict" \
		-artifact_prefix="$out/crash-$name-" "$corpus" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -ao 'cov: [0-9]*' "$log" | tail -n 1 | sed 's/cov: //')
	if [ "$rc" -eq 0 ]; then
		echo "fuzz $name: ok (${runs:-?} runs in ${seconds} s, ${cov:-?} edges, corpus $(ls "$corpus" | wc -l) files)"
	else
		crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
		echo "fuzz $name: CRASH ${crash:-(see $log)}"
		grep -aE '^(==[0-9]+==ERROR|SUMMARY|    #[0-9] )' "$log" | head -n 12 | sed 's/^/  /'
		status=1
	fi
done
exit $status
