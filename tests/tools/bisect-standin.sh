# tests/tools/bisect-standin.sh: sourced by the tests that drive `bootrig
# bisect` with its test-only --run-program (t-bisect-options,
# t-compare-profile), and by their stand-ins for `bootrig run`.
#   bisect_tree DIR   a git tree of 4 commits tagged c1..c4, whose build.sh
#                     writes ./image: "good", "bad" from c3 (which adds ./bad)
#   run_args ARGS...  a step's run arguments: sets kernel (--kernel), repeat
#                     (--repeat, default 1) and out (-o)
bisect_tree() {
	mkdir -p "$1" && git -C "$1" init -q -b main
	printf 'image\n' >"$1/.gitignore"
	printf '#!/bin/sh\nif [ -e bad ]; then echo bad; else echo good; fi >image\n' >"$1/build.sh"
	for i in 1 2 3 4; do
		echo "change $i" >"$1/file"
		[ $i = 3 ] && echo x >"$1/bad"
		git -C "$1" add -A && git -C "$1" -c user.name=t -c user.email=t@t commit -q -m "commit $i" &&
			git -C "$1" tag "c$i"
	done
}

run_args() {
	kernel= repeat=1 out=
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) kernel=$2; shift ;;
		--repeat) repeat=$2; shift ;;
		-o) out=$2; shift ;;
		esac
		shift
	done
}
