#!/bin/sh
# t-bisect-options: `bootrig bisect` takes every option of `bootrig run`,
# read from run's own table (`bootrig run --list-options`), and passes each
# on to every step's run, with no list of its own to keep: a new run option
# is checked here with no edit. Nothing boots: the test-only --run-program
# makes each step run a stand-in that records its arguments and writes a
# boot's result.json (PASS, or PANIC where the build's image says "bad").
# The tree has 4 commits; c3 makes the image bad, so a --crash bisection
# boots both ends and the steps between, and names c3.
. "$(dirname "$0")/lib.sh"
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
G="git -c user.name=t -c user.email=t@t"
. "$TOP/tests/tools/bisect-standin.sh"

# The tree: build.sh writes ./image, "bad" from the commit that adds ./bad.
T=$tmp/tree
bisect_tree "$T"

# The stand-in for `bootrig run`: its arguments, one a line, into
# $CALLS/N (one file a call); a result.json for each --repeat into
# -o DIR/<kernel-id>/default/<n>/ (the compare fixture's boot).
CALLS=$tmp/calls
mkdir -p "$CALLS"
fixture=$(ls "$TOP"/tests/fixtures/compare/aarch64-base/*/default/1/result.json)
cat >"$tmp/run" <<EOF
#!/bin/sh
n=\$(ls "$CALLS" | wc -l)
printf '%s\n' "\$@" >"$CALLS/\$((n + 1))"
. "$TOP/tests/tools/bisect-standin.sh"
run_args "\$@"
verdict=PASS rc=0
grep -q bad "\$kernel" && verdict=PANIC rc=2
d=\$out/vmlinuz-6.1.0-57-cloud-arm64-1a2b3c4d/default
mkdir -p "\$d"
have=\$(ls "\$d" | wc -l)
i=1
while [ \$i -le "\$repeat" ]; do
	mkdir -p "\$d/\$((have + i))"
	sed "s/\"verdict\": \"PASS\"/\"verdict\": \"\$verdict\"/" "$fixture" >"\$d/\$((have + i))/result.json"
	i=\$((i + 1))
done
exit \$rc
EOF
chmod +x "$tmp/run"

# Every option of run's table, with a value run takes: "--name" and its
# value, or "--name" alone for a flag (one a line, into $tmp/given), and
# the ones bisect sets itself (--kernel, --kernel-tree, --repeat, -o; --append is its own,
# with --append-file's words), into $tmp/set.
"$BOOTRIG" run --list-options >"$tmp/table" 2>&1
kind=$("$BOOTRIG" run --provoke list | sed -n 's/^--provoke kinds: *\([^ ,]*\).*/\1/p')
tab=$(printf '\t')
: >"$tmp/given"; : >"$tmp/set"
while IFS="$tab" read -r name short type shown arg help; do
	case $name in
	help) continue ;;
	kernel | kernel-tree | repeat | output | append) echo "$name" >>"$tmp/set"; continue ;;
	clock) value=wall ;;
	accel) value=tcg ;;
	variant) value=v1=nosmp ;;
	provoke) value=$kind ;;
	*) case $type in
		flag) value= ;;
		int | number | callback) value=7 ;;
		*) value="x-$name" ;;
		esac ;;
	esac
	if [ "$type" = flag ]; then echo "--$name" >>"$tmp/given"
	else printf -- '--%s\n%s\n' "$name" "$value" >>"$tmp/given"; fi
done <"$tmp/table"
n=$(grep -c '^--' "$tmp/given")
if [ "$n" -ge 20 ] && grep -qx -- --lava-serve "$tmp/given" && grep -qx -- --no-wait "$tmp/given"; then
	ok "run --list-options: $n options to pass on, --lava-serve and --no-wait among them"
else
	not_ok "run --list-options: the options to pass on" "$(cat "$tmp/table")"
fi

# bisect with all of them, as bisect's own words
set --
while IFS= read -r w; do set -- "$@" "$w"; done <"$tmp/given"
"$BOOTRIG" bisect --tree "$T" --good c1 --bad c4 --build sh build.sh --image image --crash \
	--boots 1 --append "quiet loglevel=3" --run-program "$tmp/run" -o "$tmp/state" "$@" \
	>"$tmp/bisect.out" 2>"$tmp/bisect.err"
rc=$?
sed 's/^/# /' "$tmp/bisect.out"
if [ $rc = 0 ] && grep -qx "first bad commit: $(git -C "$T" rev-parse c3) commit 3" "$tmp/bisect.out"; then
	ok "bisect with every run option: first bad commit c3, exit 0"
else
	not_ok "bisect with every run option: first bad commit c3, exit 0" "rc=$rc: $(tail -5 "$tmp/bisect.err")"
fi
calls=$(ls "$CALLS" | wc -l)
[ "$calls" -ge 3 ] && ok "each end and each step ran the stand-in ($calls runs)" ||
	not_ok "each end and each step ran the stand-in" "$calls runs"

# has CALL OPTION [VALUE]: the call's arguments hold OPTION, followed by
# VALUE when one is given.
has() {
	awk -v o="$2" -v v="${3-}" -v flag="$#" '
		prev == o && (flag == 2 || $0 == v) {f = 1} {prev = $0}
		flag == 2 && $0 == o {f = 1} END {exit !f}' "$1"
}
missing=""
for call in "$CALLS"/*; do
	while IFS= read -r w; do
		case $w in
		--*) [ -n "${opt:-}" ] && { has "$call" "$opt" || missing="$missing ${call##*/}:$opt"; }
		     opt=$w ;;
		*) has "$call" "$opt" "$w" || missing="$missing ${call##*/}:$opt=$w"; opt= ;;
		esac
	done <"$tmp/given"
	[ -n "${opt:-}" ] && { has "$call" "$opt" || missing="$missing ${call##*/}:$opt"; }
	opt=
	while IFS= read -r s; do
		case $s in output) w=-o ;; *) w=--$s ;; esac
		grep -qx -- "$w" "$call" || missing="$missing ${call##*/}:$w(bisect's)"
	done <"$tmp/set"
	has "$call" --append "quiet loglevel=3" || missing="$missing ${call##*/}:--append(bisect's)"
done
[ -z "$missing" ] && ok "every step's run got every run option, as given, and bisect's --kernel, --kernel-tree, --repeat, --append, -o" ||
	not_ok "every step's run got every run option" "missing:$missing"
expect "bisect.json keeps them all for --continue" "$tmp/state/bisect.json" run_options.# \
	"$(wc -l <"$tmp/given")"

# What bisect sets, it does not take; a value run refuses is refused
# before anything is built.
for o in --kernel --repeat; do
	"$BOOTRIG" bisect --tree "$T" --good c1 --bad c4 --build sh build.sh --image image --crash \
		"$o" x -o "$tmp/no" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 64 ] && grep -q "unknown option '$o'" "$tmp/err" && ok "bisect $o: refused (64), bisect sets it" ||
		not_ok "bisect $o: refused (64)" "rc=$rc: $(cat "$tmp/err")"
done
"$BOOTRIG" bisect --tree "$T" --good c1 --bad c4 --build sh build.sh --image image --crash \
	--accel fast --run-program "$tmp/run" -o "$tmp/refused" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc = 64 ] && grep -q "bootrig run refuses an option.*--accel wants auto, kvm or tcg: 'fast'" "$tmp/err" &&
	[ ! -e "$tmp/refused/bisect.json" ]; then
	ok "bisect --accel fast: run's parser refuses it at once (64), nothing built"
else
	not_ok "bisect --accel fast: refused at once" "rc=$rc: $(cat "$tmp/err")"
fi

# Every backend's options through a real run: build/bootrig-fake is bootrig
# with one more line in its registry, the fake backend (tests/unit/fake-def.c),
# which boots every run given BOOTRIG_FAKE_CONSOLE (that file's bytes, judged
# as any console) and, into BOOTRIG_FAKE_LOG, names each option of another
# backend the run was given, by the backend whose fragment of run's table
# it is. Per backend, a --crash bisection with that backend's options: each
# reaches every step's run, is parsed by that backend's own fragment (its
# checks and config reading run too), and the bisection names c3, no QEMU.
FAKE=$TOP/build/bootrig-fake
F=$tmp/ftree
mkdir -p "$F" && git -C "$F" init -q -b main
printf 'image\nconsole.log\n' >"$F/.gitignore"
{
	echo '#!/bin/sh'
	echo '# an arm64 Image header and banner; the console: a PANIC from c3 on'
	echo "{ head -c 56 /dev/zero; printf 'ARMd'; head -c 8 /dev/zero; printf 'Linux version 6.1.0-fake #1\\\\n'; } >image"
	echo "if [ -e bad ]; then cp '$TOP/tests/fixtures/crash/boot-vfs-cloud-arm64.log' console.log"
	echo "else cp '$TOP/tests/fixtures/judge/pass-cloud-arm64.log' console.log; fi"
} >"$F/build.sh"
for i in 1 2 3 4; do
	echo "change $i" >"$F/file"
	[ $i = 3 ] && echo x >"$F/bad"
	git -C "$F" add -A && $G -C "$F" commit -q -m "commit $i" && git -C "$F" tag "c$i"
done
echo initrd >"$tmp/initrd.img"
echo 0123456789abcdef >"$tmp/token"
# fake_bisect NAME OPTIONS...: a --crash bisection through the fake with them.
fake_bisect() {
	name=$1; shift
	: >"$tmp/fake-$name.log"
	BOOTRIG_FAKE_CONSOLE=$F/console.log BOOTRIG_FAKE_LOG=$tmp/fake-$name.log \
	"$BOOTRIG" bisect --tree "$F" --good c1 --bad c4 --build sh build.sh --image image --crash \
		--boots 1 --initramfs "$tmp/initrd.img" --run-program "$FAKE" -o "$tmp/fb-$name" "$@" \
		>"$tmp/fb-$name.out" 2>"$tmp/fb-$name.err"
}
# check_fake NAME RC "BACKEND --OPTION"...: the bisection named c3, and every
# step's run got exactly these options of a backend, each parsed by that
# backend's fragment.
check_fake() {
	name=$1 rc=$2; shift 2
	runs=$(find "$tmp/fb-$name" -name result.json | wc -l)
	printf '%s\n' "$@" | sort >"$tmp/fake-$name.want"
	sort -u "$tmp/fake-$name.log" >"$tmp/fake-$name.got"
	if [ "$rc" = 0 ] && grep -qx "first bad commit: $(git -C "$F" rev-parse c3) commit 3" "$tmp/fb-$name.out" &&
	   [ "$runs" -ge 3 ] && cmp -s "$tmp/fake-$name.want" "$tmp/fake-$name.got" &&
	   [ "$(wc -l <"$tmp/fake-$name.log")" = $((runs * $#)) ]; then
		ok "bisect through the fake with $name's options: c3 named; each of $runs runs parsed $(tr '\n' ' ' <"$tmp/fake-$name.want")"
	else
		not_ok "bisect through the fake with $name's options" \
			"rc=$rc runs=$runs got: $(tr '\n' ' ' <"$tmp/fake-$name.log") err: $(tail -3 "$tmp/fb-$name.err")"
	fi
}
if [ ! -x "$FAKE" ]; then
	not_ok "build/bootrig-fake is built (make unit)"
else
	fake_bisect libvirt --connect qemu:///embed --accel tcg
	check_fake libvirt $? "libvirt --connect" "libvirt --accel"
	fake_bisect board --board sim-arm64-tftp --no-wait
	check_fake board $? "board --board" "board --no-wait"
	fake_bisect lava --lava http://127.0.0.1:9 --lava-serve 127.0.0.1:0 --lava-url-prefix http://x/ \
		--lava-token-file "$tmp/token"
	check_fake lava $? "lava --lava" "lava --lava-serve" "lava --lava-url-prefix" "lava --lava-token-file"
	# A backend's own check still runs: the board's refuses --board with
	# --connect (run exits 64, and the bisection has no answer).
	fake_bisect conflict --board sim-arm64-tftp --connect qemu:///embed
	rc=$?
	if [ $rc != 0 ] && grep -q -- "--connect and --board cannot be used together" "$tmp/fb-conflict.err"; then
		ok "bisect through the fake with --board and --connect: the board's check refuses them ($rc)"
	else
		not_ok "bisect through the fake with --board and --connect: refused" "rc=$rc: $(tail -3 "$tmp/fb-conflict.err")"
	fi
fi
echo "1..$_tap_n"
