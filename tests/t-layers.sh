#!/bin/sh
# lib/ is the bottom layer: no file under lib/ includes a header of runner/,
# builder/ or compare/ (the layers above it), and no header declares a weak
# symbol to reach one; and no header of ours takes a system header's name. The Makefile puts every folder on the include path,
# so `#include "judge.h"` is as much a reach up as "runner/judge.h": each
# include of a lib/ file is checked against the headers of those folders.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
upper=$(ls runner/*.h runner/*/*.h builder/*.h compare/*.h | sed 's|.*/||' | sort -u)
bad=""
for f in lib/*.c lib/*.h; do
	for inc in $(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^">]+)[">].*/\1/p' "$f"); do
		base=${inc##*/}
		case $inc in runner/* | builder/* | compare/* | */runner/* | */builder/* | */compare/*)
			bad="$bad $f:$inc"; continue ;;
		esac
		[ -f "lib/$base" ] && continue    # lib's own header of that name
		if printf '%s\n' "$upper" | grep -qxF "$base"; then bad="$bad $f:$inc"; fi
	done
done
[ -n "$upper" ] && ok "the upper layers' headers are found ($(printf '%s\n' "$upper" | wc -l))" ||
	not_ok "the upper layers' headers are found"
[ -z "$bad" ] && ok "no lib/ file includes a header of runner/, builder/ or compare/" ||
	not_ok "no lib/ file includes a header of runner/, builder/ or compare/" "$bad"
weak=$(grep -ln "__attribute__((weak))\|#pragma weak" lib/* runner/* runner/*/* builder/* compare/* 2>/dev/null)
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
for h in lib/*.h runner/*.h runner/*/*.h builder/*.h compare/*.h; do
	for name in $std; do [ "${h##*/}" = "$name" ] && shadow="$shadow $h"; done
done
[ -z "$shadow" ] && ok "no header takes a standard header's name" ||
	not_ok "no header takes a standard header's name" "$shadow"
# Every exit status is named (lib/exitcodes.h): no exit(), _exit() or
# die_status() with a bare number in the host code.
bare=$(grep -nE '(^|[^a-z_])(_?exit|die_status)\([0-9]+' lib/*.c runner/*.c runner/*/*.c builder/*.c compare/*.c)
[ -z "$bare" ] && ok "every exit status is named in exitcodes.h" ||
	not_ok "every exit status is named in exitcodes.h" "$bare"
# The check itself: a file including judge.h is caught.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '#include "judge.h"\n' >"$probe/x.c"
inc=$(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^">]+)[">].*/\1/p' "$probe/x.c")
if [ "$inc" = judge.h ] && printf '%s\n' "$upper" | grep -qxF "$inc"; then ok "an include of judge.h would be caught"
else not_ok "an include of judge.h would be caught" "parsed '$inc'"; fi
