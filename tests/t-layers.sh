#!/bin/sh
# The layers, bottom up: lib/, then judge/ (the console judge: crash
# catalogue, protocol decoder, verdicts), then the commands' folders
# (builder/, runner/, compare/). A layer includes nothing from the layers
# above it: no file under lib/ includes a header of judge/, runner/,
# builder/ or compare/; no file under judge/ one of runner/, builder/ or
# compare/. No header declares a weak symbol to reach up; and no header of
# ours takes a system header's name. The Makefile puts every folder on the
# include path, so `#include "judge.h"` in lib/ is as much a reach up as
# "judge/judge.h": each include of a layer's file is checked against the
# headers of the folders above it (a header of the layer's own name wins).
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1

# layer_bad LAYER UPPER...: "file:include" for each include of a LAYER file
# that names a header of an UPPER folder (by path or by its bare name).
layer_bad() {
	layer=$1
	shift
	upper=$(for d in "$@"; do ls "$d"/*.h "$d"/*/*.h 2>/dev/null; done | sed 's|.*/||' | sort -u)
	for f in "$layer"/*.c "$layer"/*.h; do
		[ -f "$f" ] || continue
		for inc in $(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^">]+)[">].*/\1/p' "$f"); do
			base=${inc##*/}
			for d in "$@"; do
				case $inc in "$d"/* | */"$d"/*) printf ' %s' "$f:$inc"; continue 2 ;; esac
			done
			[ -f "$layer/$base" ] && continue    # the layer's own header of that name
			if printf '%s\n' "$upper" | grep -qxF "$base"; then printf ' %s' "$f:$inc"; fi
		done
	done
}

upper=$(ls judge/*.h runner/*.h runner/*/*.h builder/*.h compare/*.h | sed 's|.*/||' | sort -u)
[ -n "$upper" ] && ok "the upper layers' headers are found ($(printf '%s\n' "$upper" | wc -l))" ||
	not_ok "the upper layers' headers are found"
bad=$(layer_bad lib judge runner builder compare)
[ -z "$bad" ] && ok "no lib/ file includes a header of judge/, runner/, builder/ or compare/" ||
	not_ok "no lib/ file includes a header of judge/, runner/, builder/ or compare/" "$bad"
judge_upper=$(ls runner/*.h runner/*/*.h builder/*.h compare/*.h | sed 's|.*/||' | sort -u)
[ -n "$(ls judge/*.c 2>/dev/null)" ] && [ -n "$judge_upper" ] &&
	ok "judge/ is a layer of its own ($(ls judge/*.c | wc -l) sources)" ||
	not_ok "judge/ is a layer of its own" "no judge/*.c, or no header above it"
bad=$(layer_bad judge runner builder compare)
[ -z "$bad" ] && ok "no judge/ file includes a header of runner/, builder/ or compare/" ||
	not_ok "no judge/ file includes a header of runner/, builder/ or compare/" "$bad"
weak=$(grep -ln "__attribute__((weak))\|#pragma weak" lib/* judge/* runner/* runner/*/* builder/* compare/* 2>/dev/null)
[ -z "$weak" ] && ok "no weak symbols in the host code" || not_ok "no weak symbols in the host code" "$weak"
# Every folder is on the include path, before the system's: a header named
# as a standard C header, or one the C library's and zlib's headers include
# themselves, would shadow it for every file (zconf.h sizes its CRC type by
# <limits.h>).
std="assert.h complex.h ctype.h errno.h fenv.h float.h inttypes.h iso646.h limits.h locale.h
math.h setjmp.h signal.h stdalign.h stdarg.h stdatomic.h stdbool.h stddef.h stdint.h stdio.h
stdlib.h stdnoreturn.h string.h tgmath.h threads.h time.h uchar.h wchar.h wctype.h
features.h unistd.h fcntl.h sched.h pthread.h endian.h alloca.h zconf.h zlib.h"
shadow=""
for h in lib/*.h judge/*.h runner/*.h runner/*/*.h builder/*.h compare/*.h; do
	for name in $std; do [ "${h##*/}" = "$name" ] && shadow="$shadow $h"; done
done
[ -z "$shadow" ] && ok "no header takes a standard header's name" ||
	not_ok "no header takes a standard header's name" "$shadow"
# Every exit status is named (lib/exitcodes.h): no exit(), _exit() or
# die_status() with a bare number in the host code.
bare=$(grep -nE '(^|[^a-z_])(_?exit|die_status)\([0-9]+' lib/*.c judge/*.c runner/*.c runner/*/*.c builder/*.c compare/*.c)
[ -z "$bare" ] && ok "every exit status is named in exitcodes.h" ||
	not_ok "every exit status is named in exitcodes.h" "$bare"
# The check itself: a lib/ file including judge.h, and a judge/ file
# including matrix.h (runner/) or "runner/backend.h", are caught.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
mkdir -p "$probe/lib" "$probe/judge" "$probe/runner"
printf '#include "judge.h"\n' >"$probe/lib/x.c"
printf '#include "matrix.h"\n#include "runner/backend.h"\n#include "crash.h"\n' >"$probe/judge/y.c"
: >"$probe/judge/crash.h"
: >"$probe/runner/matrix.h"
cp judge/*.h "$probe/judge/" 2>/dev/null
got=$(cd "$probe" && layer_bad lib judge runner)
if [ "$got" = " lib/x.c:judge.h" ]; then ok "an include of judge.h from lib/ would be caught"
else not_ok "an include of judge.h from lib/ would be caught" "got '$got'"; fi
got=$(cd "$probe" && layer_bad judge runner)
if [ "$got" = " judge/y.c:matrix.h judge/y.c:runner/backend.h" ]; then
	ok "an include of a runner/ header from judge/ would be caught"
else not_ok "an include of a runner/ header from judge/ would be caught" "got '$got'"; fi
