#!/bin/sh
# The layers and what each may include, as ARCHITECTURE.md's table "What
# each layer may include" says: this group reads that table (so the page and
# the check cannot drift apart) and checks every #include "..." of every
# host source against it. A header is placed by where it lives: the Makefile
# puts every folder on the include path, so `#include "judge.h"` in lib/ is
# as much a reach up as "judge/judge.h". Backends (runner/<name>/) are peers:
# none includes another's headers. Also: every header name is ours once (no
# two folders' headers shadow each other), no header takes a system header's
# name, no weak symbols, and every exit status is named.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1

# rules FILE: "layer allowed..." lines from the table's rows
# ("| `lib/` | `lib/` |", "| `runner/` | `lib/`, `judge/`, ... |").
rules() {
	awk '/^## What each layer may include/ {on = 1; next}
	     on && /^## / {on = 0}
	     on && /^\| `/ {
		n = split($0, col, "|")
		layer = col[2]; gsub(/[ `\/]/, "", layer)
		may = col[3]; gsub(/[`\/,]/, " ", may)
		print layer, may
	     }' "$1"
}

# headers: "name folder" for every header of the host layers (folder is
# the layer's top folder, or runner/<backend> for a backend's own).
headers() {
	for h in lib/*.h judge/*.h builder/*.h runner/*.h runner/*/*.h compare/*.h; do
		[ -f "$h" ] || continue
		d=${h%/*}
		printf '%s %s\n' "${h##*/}" "$d"
	done
}

# violations RULES HEADERS: "file:include (layer -> where)" for each include
# that the rules do not allow, run from the tree's top.
violations() {
	rules_f=$1 hdrs_f=$2
	for f in lib/*.[ch] judge/*.[ch] builder/*.[ch] runner/*.[ch] runner/*/*.[ch] compare/*.[ch]; do
		[ -f "$f" ] || continue
		dir=${f%/*}
		layer=${f%%/*}
		allowed=$(awk -v l="$layer" '$1 == l {$1 = ""; print}' "$rules_f")
		sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/p' "$f" |
		while read -r inc; do
			# a path-named include is placed by its path; a bare name by the
			# including file's own folder first (the compiler's rule), then
			# by the one folder that has a header of that name
			if [ -f "$dir/$inc" ]; then where=$dir
			elif [ "${inc#*/}" != "$inc" ] && [ -f "$inc" ]; then where=${inc%/*}
			else where=$(awk -v n="${inc##*/}" '$1 == n {print $2; exit}' "$hdrs_f")
			fi
			[ -n "$where" ] || continue          # not ours (a system header)
			top=${where%%/*}
			case " $allowed " in *" $top "*) ;; *)
				echo "$f:$inc ($layer may not include $top/)"; continue ;;
			esac
			# peers: a backend's folder is its own
			case $where in runner/*/*) ;; runner/?*)
				case $dir in runner/*) [ "$dir" != runner ] && [ "$dir" != "$where" ] &&
					echo "$f:$inc (backend ${dir#runner/} reaches into backend ${where#runner/})" ;;
				esac ;;
			esac
		done
	done
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rules ARCHITECTURE.md >"$tmp/rules"
headers >"$tmp/headers"

layers=$(awk '{print $1}' "$tmp/rules" | tr '\n' ' ')
if [ "$layers" = "lib judge builder compare runner " ]; then
	ok "ARCHITECTURE.md's table names the five layers"
else
	not_ok "ARCHITECTURE.md's table names the five layers" "read '$layers'"
fi
# Each layer's row allows only itself and the rows above it: the table
# is an order, not a list of exceptions.
disorder=$(awk '{seen[NR] = $1; for (i = 2; i <= NF; i++) {
		ok = 0; for (j = 1; j <= NR; j++) if (seen[j] == $i) ok = 1
		if (!ok) print $1 " may include " $i ", which is not below it"}}' "$tmp/rules")
[ -z "$disorder" ] && ok "each layer may include only itself and the layers above it in the table" ||
	not_ok "each layer may include only itself and the layers above it in the table" "$disorder"

bad=$(violations "$tmp/rules" "$tmp/headers")
[ -z "$bad" ] && ok "every include of the host code keeps to ARCHITECTURE.md's layers ($(wc -l <"$tmp/headers") headers)" ||
	not_ok "every include of the host code keeps to ARCHITECTURE.md's layers" "$(printf '%s\n' "$bad" | head -n 20)"

dup=$(awk '{print $1}' "$tmp/headers" | sort | uniq -d | tr '\n' ' ')
[ -z "$dup" ] && ok "no two folders have a header of the same name" ||
	not_ok "no two folders have a header of the same name" "$dup"

weak=$(grep -ln "__attribute__((weak))\|#pragma weak" lib/* judge/* runner/* runner/*/* builder/* compare/* 2>/dev/null)
[ -z "$weak" ] && ok "no weak symbols in the host code" || not_ok "no weak symbols in the host code" "$weak"
# Every folder is on the include path, before the system's: a header named
# as a standard C header, or one the C library's and zlib's headers include
# themselves, would shadow it for every file (zconf.h sizes its CRC type by
# <limits.h>).
std="assert.h complex.h ctype.h errno.h fenv.h float.h inttypes.h iso646.h limits.h locale.h
math.h setjmp.h signal.h stdalign.h stdarg.h stdatomic.h stdbool.h stddef.h stdint.h stdio.h
stdlib.h stdnoreturn.h string.h tgmath.h threads.h time.h uchar.h wchar.h wctype.h
features.h unistd.h fcntl.h sched.h pthread.h endian.h alloca.h zconf.h zlib.h sqlite3.h"
shadow=""
for name in $std; do
	awk -v n="$name" '$1 == n {found = 1} END {exit !found}' "$tmp/headers" && shadow="$shadow $name"
done
[ -z "$shadow" ] && ok "no header takes a standard header's name" ||
	not_ok "no header takes a standard header's name" "$shadow"
# Every exit status is named (lib/exitcodes.h): no exit(), _exit() or
# die_status() with a bare number in the host code.
bare=$(grep -nE '(^|[^a-z_])(_?exit|die_status)\([0-9]+' lib/*.c judge/*.c runner/*.c runner/*/*.c builder/*.c compare/*.c)
[ -z "$bare" ] && ok "every exit status is named in exitcodes.h" ||
	not_ok "every exit status is named in exitcodes.h" "$bare"
# No C file of ours is over 1,000 lines (ARCHITECTURE.md: a file a reader
# can hold in mind).
long=$(git ls-files '*.c' '*.h' 2>/dev/null | while read -r f; do
	[ -f "$f" ] && [ "$(wc -l <"$f")" -gt 1000 ] && printf '%s ' "$f"; done)
[ -z "$long" ] && ok "no C file over 1,000 lines" || not_ok "no C file over 1,000 lines" "$long"

# The check itself, on a small tree: a lib/ file including judge.h, a
# judge/ file including "runner/backend.h" and a compare/ file including
# matrix.h (runner/) are caught, as is a backend including another's
# header; a judge/ file including its own and lib's headers is not.
p=$tmp/probe
mkdir -p "$p/lib" "$p/judge" "$p/builder" "$p/runner/a" "$p/runner/b" "$p/compare"
cp ARCHITECTURE.md "$p/"
: >"$p/lib/util.h"; : >"$p/judge/judge.h"; : >"$p/runner/matrix.h"; : >"$p/runner/backend.h"
: >"$p/runner/a/a.h"; : >"$p/runner/b/b.h"
printf '#include "judge.h"\n#include "util.h"\n' >"$p/lib/x.c"
printf '#include "judge.h"\n#include "util.h"\n#include "runner/backend.h"\n' >"$p/judge/y.c"
printf '#include "matrix.h"\n#include <stdio.h>\n#include "util.h"\n' >"$p/compare/z.c"
printf '#include "backend.h"\n#include "a.h"\n#include "b.h"\n' >"$p/runner/a/w.c"
got=$(cd "$p" && rules ARCHITECTURE.md >rules && headers >headers && violations rules headers | sed 's/ (.*//' | tr '\n' ' ')
want="lib/x.c:judge.h judge/y.c:runner/backend.h runner/a/w.c:b.h compare/z.c:matrix.h "
if [ "$got" = "$want" ]; then ok "the check catches a reach up or across, and nothing else"
else not_ok "the check catches a reach up or across, and nothing else" "got '$got', want '$want'"; fi
