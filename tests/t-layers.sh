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
#
# The map's words are checked too: no merge-conflict marker is left in any
# file; every repository path a C comment names (lib/util.c, runner/lava/lava.c,
# tests/t-x.sh: a path under one of the tree's top folders, ending .c, .h,
# .sh or .md) exists, but for one written "the kernel's lib/bug.c"; every
# module the Makefile builds is a row of lib/module.h's table, and every
# backend folder runner/<name>/ is named in runner/backend.h and
# ARCHITECTURE.md. Each check also runs on a small tree with its fault
# planted, so that none passes by finding nothing to check.
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

# tree_files [GLOB...]: the files of the tree below ".", as git sees them
# (tracked, or new and not ignored: a file about to be added counts), or
# every file outside .git/ and build/ where "." is not a git checkout.
tree_files() {
	if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
		git ls-files -co --exclude-standard -- "$@"
	else
		find . -type f ! -path './.git/*' ! -path './build/*' | sed 's|^\./||' |
		while IFS= read -r f; do
			[ $# = 0 ] && { echo "$f"; continue; }
			for g in "$@"; do case ${f##*/} in $g) echo "$f"; break ;; esac; done
		done
	fi
}

# conflict_markers: "file:line:text" for each line git's merge leaves in a
# conflicted file ("<<<<<<< ours", a lone "=======", "||||||| base" of the
# diff3 style, ">>>>>>> theirs"), in any text file of the tree.
conflict_markers() {
	tree_files | while IFS= read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done |
	tr '\n' '\0' | xargs -0 -r grep -InE '^(<<<<<<< |=======$|\|\|\|\|\|\|\| |>>>>>>> )' /dev/null
}

# c_text_prog: an awk program that prints "FILE:LINE:TEXT" for each line of
# the C files it reads that has some: with keep=comments the text of its
# comments (/* */ across lines, and //), with keep=code the rest. String and
# character literals are code, not comments: "kernel BUG at lib/list_debug.c"
# is a needle, not a path; a backend's name in a message counts. Its caller
# sets q to "'" and keep.
c_text_prog='FNR == 1 { st = 0 }
	{
		out = ""; n = length($0); i = 1; code = keep == "code"
		while (i <= n) {
			c = substr($0, i, 1); c2 = substr($0, i, 2)
			if (st == 1) {                          # in a /* */
				if (c2 == "*/") { st = 0; i += 2; out = out " "; continue }
				if (!code) out = out c
			} else if (st == 2 || st == 3) {        # in a string or a character
				if (code) out = out c
				if (c == "\\") { if (code) out = out substr($0, i + 1, 1); i += 2; continue }
				if ((st == 2 && c == "\"") || (st == 3 && c == q)) st = 0
			} else if (c2 == "/*") { st = 1; i += 2; continue }
			else if (c2 == "//") { if (!code) out = out substr($0, i + 2); break }
			else {
				if (code) out = out c
				if (c == "\"") st = 2
				else if (c == q) st = 3
			}
			i++
		}
		if (st != 1) st = 0
		if (out ~ /[^ \t]/) print FILENAME ":" FNR ":" out
	}'

# stale_paths: "file:line path" for each repository path a C comment names
# that does not exist. A path is one under a top folder of the tree (the
# folders tree_files lists), ending .c, .h, .sh or .md; one written "the
# kernel's lib/bug.c" is the kernel's (judge/crash-table.c), not ours.
stale_paths() {
	tops=$(tree_files | sed -n 's|/.*||p' | sort -u | sed 's/[.]/[.]/g' | tr '\n' '|')
	tree_files '*.c' '*.h' | while IFS= read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done |
	tr '\n' '\0' | xargs -0 -r awk -v q="'" -v keep=comments "$c_text_prog" |
	awk -v tops="${tops%|}" -v q="'" '
	BEGIN { re = "(^|[^A-Za-z0-9_./-])(" tops ")/[A-Za-z0-9_./-]*[A-Za-z0-9_-][.](c|h|sh|md)([^A-Za-z0-9_]|$)" }
	{
		match($0, /^[^:]*:[0-9]+:/)
		at = substr($0, 1, RLENGTH - 1); t = substr($0, RLENGTH + 1)
		while (tops != "" && match(t, re)) {
			m = substr(t, RSTART, RLENGTH); before = substr(t, 1, RSTART - 1)
			t = substr(t, RSTART + RLENGTH - 1)
			if (m ~ /^[^A-Za-z0-9_]/) { before = before substr(m, 1, 1); m = substr(m, 2) }
			if (m ~ /[^A-Za-z0-9_]$/) m = substr(m, 1, length(m) - 1)
			if (before !~ ("kernel" q "s $")) print at, m
		}
	}' | while read -r at path; do [ -e "$path" ] || echo "$at $path"; done
}

# module_drift: each module the Makefile builds (modules/NAME.so) that is
# not a row of lib/module.h's table, and each row that is not built.
module_drift() {
	grep -o '/modules/[A-Za-z0-9_]*\.so' Makefile | sed 's|/modules/||; s|\.so$||' | sort -u >"$tmp/built"
	awk '/^ \*   module  / {on = 1; next} on && /^ \*[ \t]*$/ {on = 0}
	     on && /^ \*   [a-z]/ {print $2}' lib/module.h | sort -u >"$tmp/rows"
	comm -23 "$tmp/built" "$tmp/rows" | sed 's/^/built, not in lib\/module.h: /'
	comm -13 "$tmp/built" "$tmp/rows" | sed 's/^/in lib\/module.h, not built: /'
}

# backend_drift: each backend folder runner/<name>/ that runner/backend.h
# or ARCHITECTURE.md does not name.
backend_drift() {
	for d in runner/*/; do
		[ -d "$d" ] || continue
		for doc in runner/backend.h ARCHITECTURE.md; do
			grep -qF "$d" "$doc" || echo "$doc does not name $d"
		done
	done
}

# The files that name no backend (ARCHITECTURE.md, "A new backend"): run's
# core, lib/ and bisect choose and drive a backend through the registry
# (runner/registry.h) only. A backend's name (libvirt, board, lava, in any
# case) lives in its folder runner/<name>/ and in runner/registry.c's table.
NAMELESS="runner/cmd-run.c runner/matrix*.[ch] lib/*.[ch] compare/cmd-bisect.c"
# backend_names FILE...: "file:line:code" for each line of code of the files
# (comments aside) that names a backend.
backend_names() {
	for f in "$@"; do [ -f "$f" ] && printf '%s\n' "$f"; done | tr '\n' '\0' |
	xargs -0 -r awk -v q="'" -v keep=code "$c_text_prog" | grep -iE 'libvirt|board|lava'
}

bad=$(conflict_markers)
[ -z "$bad" ] && ok "no merge-conflict marker in the tree ($(tree_files | wc -l) files)" ||
	not_ok "no merge-conflict marker in the tree" "$(printf '%s\n' "$bad" | head -n 20)"
bad=$(stale_paths)
[ -z "$bad" ] && ok "every repository path a C comment names exists" ||
	not_ok "every repository path a C comment names exists" "$(printf '%s\n' "$bad" | head -n 20)"
bad=$(module_drift)
[ -z "$bad" ] && ok "lib/module.h's table lists every module the Makefile builds ($(wc -l <"$tmp/built"))" ||
	not_ok "lib/module.h's table lists every module the Makefile builds" "$bad"
# shellcheck disable=SC2086  # NAMELESS is a list of globs
bad=$(backend_names $NAMELESS)
[ -z "$bad" ] && ok "no backend is named outside its folder and the registry ($NAMELESS)" ||
	not_ok "no backend is named outside its folder and the registry" "$(printf '%s\n' "$bad" | head -n 20)"
bad=$(backend_drift)
[ -z "$bad" ] && ok "runner/backend.h and ARCHITECTURE.md name every backend folder" ||
	not_ok "runner/backend.h and ARCHITECTURE.md name every backend folder" "$bad"

# The same checks on a small tree (a git checkout, as the real one is)
# with one fault of each kind planted, beside look-alikes that are none.
q=$tmp/drift
mkdir -p "$q/lib" "$q/runner/a" "$q/runner/b" "$q/docs"
(cd "$q" && git init -q . 2>/dev/null)
printf 'a\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> topic\n' >"$q/docs/merged.md"
printf '%s\n' '========' 'a ======= b' '<<<<<<<< not one' >"$q/docs/fine.md"
: >"$q/lib/util.c"; : >"$q/runner/a/a.c"
printf '%s\n' '/* lib/util.c is here, runner/a/a.c too; runner/a.c is not,' \
	' * and neither is lib/gone.h */' \
	'static const char *s = "lib/none.c";    /* a string, not a comment */' \
	'static char c = '"'\"'"'; // runner/b/b.c, in a line comment' \
	"/* the kernel's lib/bug.c is the kernel's, lib/kobject.c is not */" >"$q/lib/x.c"
printf 'MODULES := $(BUILD)/modules/a.so $(BUILD)/modules/b.so\n' >"$q/Makefile"
printf '/*\n *   module    sources   linked with\n *   a         runner/a/   -la\n *\n */\n' >"$q/lib/module.h"
printf '/* runner/a/ and runner/b/ */\n' >"$q/runner/backend.h"
printf 'runner/a/\n' >"$q/ARCHITECTURE.md"
# same NAME GOT WANT: the planted tree's findings are exactly these.
same() { [ "$2" = "$3" ] && ok "$1" || not_ok "$1" "got '$2', want '$3'"; }
same "the conflict check catches each marker line, and nothing else" \
	"$(cd "$q" && conflict_markers | cut -d: -f1,2 | tr '\n' ' ')" \
	"docs/merged.md:2 docs/merged.md:4 docs/merged.md:6 "
same "the path check catches a comment's missing path, and nothing else" \
	"$(cd "$q" && stale_paths | tr '\n' ' ')" \
	"lib/x.c:1 runner/a.c lib/x.c:2 lib/gone.h lib/x.c:4 runner/b/b.c lib/x.c:5 lib/kobject.c "
same "the module check catches a module missing from lib/module.h's table" \
	"$(cd "$q" && module_drift | tr '\n' ' ')" "built, not in lib/module.h: b "
same "the backend check catches a backend folder a document does not name" \
	"$(cd "$q" && backend_drift | tr '\n' ' ')" "ARCHITECTURE.md does not name runner/b/ "
printf '%s\n' '/* libvirt, a board, LAVA: comments may name them */' 'static int x; // lava too' \
	'static const char *s = "boot on a Board";' 'static char c = '"'\"'"'; /* " board */ int lava_y;' \
	'int libvirtual = 1; /* a' ' * LAVA */ int z;' >"$q/lib/names.c"
same "the name check catches a backend named in code or a string, and nothing else" \
	"$(cd "$q" && backend_names lib/names.c lib/none.c | cut -d: -f1,2 | tr '\n' ' ')" \
	"lib/names.c:3 lib/names.c:4 lib/names.c:5 "
