# tests/lib.sh: helpers for the shell test groups (tests/t-*.sh), sourced.
# Each group prints TAP; tests/run-tests.sh counts it.
#   ok "name"            a pass
#   not_ok "name" "why"  a failure, with the reason on the next line
#   skip "name" "why"    a skip (never counted as a pass)
#   check "name" CMD...  runs CMD (an argv, no shell): ok if it exits 0
# BOOTRIG is the tool under test: $BOOTRIG if set, else the sanitized build
# when it exists.
_tap_n=0
ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1"; }
not_ok() {
	_tap_n=$((_tap_n + 1))
	echo "not ok $_tap_n - $1"
	[ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/# /'
	return 0
}
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # SKIP ${2:-}"; }
check() {
	name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name" "command failed: $*"; fi
}
TOP=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${BOOTRIG:-}" ]; then
	BOOTRIG=$TOP/build/bootrig
	[ -x "$TOP/build/bootrig-asan" ] && BOOTRIG=$TOP/build/bootrig-asan
fi
# The sanitized bootrig of the boot groups checks for leaks only where no
# libvirt thread can still run at exit: LeakSanitizer's at-exit check
# stops every thread of the process, and with the embedded driver's
# threads alive it intermittently fails ("LeakSanitizer has encountered a
# fatal error", exit 1; seen in t-accel and t-run-faults with the right
# verdicts), which would make an exit-status check flaky. Address and
# undefined-behaviour errors still abort; the unit tests keep leak checks.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
export ASAN_OPTIONS
# abi_runner ABI: how this host runs the ABI's static guest binaries: ""
# (natively), a qemu-user emulator (Debian's qemu-user: qemu-i386 runs
# i386 on a host whose kernel has IA-32 emulation off, qemu-aarch64 and
# qemu-arm the arm ABIs), or "none": x32 on a kernel that refuses it (no
# user-mode emulator runs x32; such checks run in a guest booted with
# syscall.x32=y). Decided by running the ABI's probe, never by a guess.
# Under an emulator a binary cannot exec another foreign one (no
# binfmt_misc): callers pass the tests' --no-exec or expect ENOEXEC.
abi_runner() {
	case $1 in
	x86_64) echo "" ;;
	aarch64) echo qemu-aarch64 ;;
	arm) echo qemu-arm ;;
	i386 | x32)
		if "$TOP/build/guest/$1/probe" 2>/dev/null; then echo ""
		elif [ "$1" = i386 ]; then echo qemu-i386
		else echo none; fi ;;
	esac
}
# selftest_tap LABEL RUNNER... PROGRAM ARGS...: a guest self-test
# (initramfs/rt/selftest.h: "ok NAME", "FAIL NAME: why", "skip NAME: why"
# lines, then "done N checks, F failed"), one TAP line per check and one
# for the whole (it ran to its end and exited 0); its output in
# $tmp/LABEL.out (the caller's $tmp).
selftest_tap() {
	abi=$1
	shift
	"$@" >"$tmp/$abi.out" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "$abi: ${line#ok }" ;;
		"FAIL "*) not_ok "$abi: ${line#FAIL }" ;;
		"skip "*) line=${line#skip }; skip "$abi: ${line%%: *}" "${line#*: }" ;;
		esac
	done <"$tmp/$abi.out"
	if [ $rc = 0 ] && grep -q '^done [0-9]* checks, 0 failed$' "$tmp/$abi.out"; then
		ok "$abi: the self-test ran to its end and exited 0"
	else
		not_ok "$abi: the self-test ran to its end" "exit $rc: $(tail -n 2 "$tmp/$abi.out")"
	fi
}
# Real Debian kernels, fetched once into the cache: kernel_path FLAVOUR
kernel_path() { sh "$TOP/scripts/fetch-kernels.sh" "$1" | awk '{print $2}'; }

# What this host cannot run, a real guest can: x32 where the host kernel
# refuses it (no user-mode emulator runs x32), and what qemu-user cannot
# do (exec a foreign binary: i386, aarch64, arm). Debian's amd64 kernel
# booted with syscall.x32=y, or its cloud-arm64 kernel on a cortex-a57
# (AArch32 at EL0: aarch64 and arm), runs the commands, one boot a batch:
#   gx_add DIR ARGV...  queues a command in DIR/batch; the program's
#                       folder in build/ (what it may exec) and the files it names
#                       (an argument, or the part after a KEY=; folders only
#                       from under $TOP or /tmp) go into the guest at the
#                       same paths;
#   gx_boot DIR [arm64] boots once, amd64 unless arm64 is named (guest-exec,
#                       or guest-exec-aarch64, is the guest's /init), fails
#                       with the reason unless every command came back;
#                       the console in DIR/console.log (arm64's virt has
#                       one serial port: the stream is the console's hex
#                       lines there, on amd64 the second port's bytes);
#   $GX --replay DIR ARGV...  what that command printed in the guest, and
#                       its exit status: a runner, as "qemu-i386" is one.
GX=$TOP/build/tests/tools/guest-exec
# _gx_put DIR PATH: PATH into the guest's tree at the same place: a file
# from anywhere, a folder only from under $TOP or /tmp (never /, /usr...).
_gx_put() {
	if [ -f "$2" ]; then :
	elif [ -d "$2" ]; then case $2 in "$TOP"/?* | /tmp/?*) ;; *) return 0 ;; esac
	else return 0; fi
	mkdir -p "$1/root${2%/*}" && cp -a "$2" "$1/root${2%/*}/"
}
gx_add() {
	_d=$1
	shift
	mkdir -p "$_d/root"
	_line=""
	case $1 in "$TOP"/build/*/*)
		for _p in "${1%/*}"/*; do [ -f "$_p" ] && _gx_put "$_d" "$_p"; done ;;
	esac
	for _a in "$@"; do
		_line="$_line${_line:+	}$_a"
		for _p in "$_a" "${_a#*=}"; do
			case $_p in /*) _gx_put "$_d" "$_p" ;; esac
		done
	done
	printf '%s\n' "$_line" >>"$_d/batch"
}
gx_boot() {
	_d=$1
	_init=$GX${2:+-aarch64}
	case ${2:-amd64} in amd64 | arm64) ;; *) echo "gx_boot: no machine '$2' (amd64, arm64)"; return 1 ;; esac
	[ -x "$_init" ] || { echo "no $_init: run make unit"; return 1; }
	cp "$_init" "$_d/root/init"
	cp "$_d/batch" "$_d/root/batch"
	mkdir -p "$_d/root/proc" "$_d/root/sys" "$_d/root/dev"
	(cd "$_d/root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -n -1) >"$_d/initrd" ||
		{ echo "cannot pack $_d/root"; return 1; }
	if [ "${2:-amd64}" = arm64 ]; then
		: >"$_d/stream"
		timeout -k 10 "${GX_LIMIT:-900}" qemu-system-aarch64 -M virt -cpu cortex-a57 -accel tcg -m 1024 \
			-display none -no-reboot -monitor none \
			-kernel "$(kernel_path cloud-arm64)" -initrd "$_d/initrd" \
			-append "console=ttyAMA0 quiet loglevel=1 panic=-1 gx_stream=console" \
			-serial "file:$_d/console.log" </dev/null >"$_d/qemu.out" 2>&1
		_rc=$?
		cp "$_d/console.log" "$_d/stream" 2>/dev/null
	else
		timeout -k 10 "${GX_LIMIT:-900}" qemu-system-x86_64 -M q35 -cpu max -accel tcg -m 1024 \
			-display none -no-reboot -monitor none \
			-kernel "$(kernel_path amd64)" -initrd "$_d/initrd" \
			-append "console=ttyS0 quiet panic=-1 syscall.x32=y" \
			-serial "file:$_d/console.log" -serial "file:$_d/stream" </dev/null >"$_d/qemu.out" 2>&1
		_rc=$?
	fi
	[ $_rc = 0 ] || { echo "the guest's QEMU exited $_rc: $(tail -c 300 "$_d/qemu.out") $(tail -c 300 "$_d/console.log")"; return 1; }
	"$GX" --split "$_d/stream" "$_d" 2>&1 || { tail -c 300 "$_d/console.log"; return 1; }
}

# For the groups that boot: JGET reads a JSON value (tests/tools/jget.c).
JGET=$TOP/build/tests/tools/jget
# expect NAME FILE PATH VALUE: FILE's JSON value at PATH is VALUE.
expect() {
	got=$("$JGET" "$2" "$3" 2>&1)
	if [ "$got" = "$4" ]; then ok "$1"; else not_ok "$1" "$3 is '$got', want '$4' ($2)"; fi
}
# run NAME ARGS...: bootrig run -o $tmp/NAME in the background (so its pid,
# which names its domains bootrig-<pid>-<n>, is known), waited for; sets
# rc and pid; stdout and stderr in $tmp/NAME.out and .err.
run() {
	name=$1; shift
	"$BOOTRIG" run "$@" -o "$tmp/$name" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	pid=$!
	wait $pid
	rc=$?
}
# no_qemu_left PID: no QEMU of that bootrig's domains still runs.
no_qemu_left() { ! pgrep -f "guest=bootrig-$1-" >/dev/null; }

# junit_valid FILE: FILE validates with xmllint against both vendored,
# unmodified JUnit schemas (tests/junit/: Jenkins xUnit's junit-10.xsd and
# Ant's JUnit.xsd); xmllint's complaints in $JUNIT_ERR.
junit_valid() {
	JUNIT_ERR=""
	for _xsd in "$TOP/tests/junit/junit-10.xsd" "$TOP/tests/junit/JUnit.xsd"; do
		_e=$(xmllint --noout --schema "$_xsd" "$1" 2>&1) || JUNIT_ERR="$JUNIT_ERR$(basename "$_xsd"): $(echo "$_e" | head -3) "
	done
	[ -z "$JUNIT_ERR" ]
}

# shot NAME [W,H]: headless Chromium ($CHROME)'s screenshot of $tmp/NAME.html
# at device scale 1 (a CSS px is a pixel), window W,H (900,900), into
# $tmp/NAME.png; Chromium's stderr in $tmp/chrome.err. The pixels are read
# with tests/tools/pngblobs.
shot() {
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--force-device-scale-factor=1 --user-data-dir="$tmp/chrome" --window-size="${2:-900,900}" \
		--screenshot="$tmp/$1.png" "file://$tmp/$1.html" >/dev/null 2>"$tmp/chrome.err"
}

# kernel_switch_tree DIR OLD NEW FLAG AT: a git tree for bisect of 6 commits
# c1..c6 whose build.sh (run by argv: sh build.sh) copies the kernel image
# $OLD (an environment variable's name) to ./image, or $NEW from commit AT
# on, where the tree holds the file FLAG: a real kernel change at AT.
kernel_switch_tree() {
	mkdir -p "$1" && git -C "$1" init -q -b main
	printf '#!/bin/sh\nset -e\nk=$%s\n[ ! -e %s ] || k=$%s\ncp "$k" image.tmp && mv image.tmp image\n' \
		"$2" "$4" "$3" >"$1/build.sh"
	printf 'image\nimage.tmp\n' >"$1/.gitignore"
	_i=1
	while [ $_i -le 6 ]; do
		echo "change $_i" >"$1/file"
		[ $_i -eq "$5" ] && echo "from commit $5 on" >"$1/$4"
		git -C "$1" add -A && git -c user.name=t -c user.email=t@t -C "$1" commit -q -m "commit $_i" &&
			git -C "$1" tag "c$_i"
		_i=$((_i + 1))
	done
}
