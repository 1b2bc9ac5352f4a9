#!/bin/sh
# t-accel.sh: the accelerator rule (runner/libvirt/hosts.c): KVM only once a real
# boot under it printed kernel output; a boot under an unproven KVM that
# prints nothing is booted again under TCG, never blamed on the kernel.
#
# The two kinds of host are played by stand-in emulators around the real
# qemu-system-x86_64, so the test gives the same answers on any host
# (whatever its own /dev/kvm does). For a domain boot (-kernel given) under
# -accel kvm:
#   kvm-works   runs it under TCG instead: "KVM" boots and prints;
#   kvm-hangs   runs it under TCG with a BIOS that halts: nothing printed,
#               as on the host where KVM hangs right after the BIOS;
#   silent      halts whatever the accelerator: a kernel that prints
#               nothing under TCG too.
# libvirt's own capability probes (no -kernel) go to the real QEMU under
# TCG through tests/tools/qmp-kvm.py, which answers its query-kvm with
# "present and enabled": libvirt then accepts a KVM domain for the
# stand-in. libvirt and bootrig also want a /dev/kvm they can open: the
# group runs in a mount namespace of its own whose /dev has one where the
# host has none (tests/tools/fake-kvm-dev.sh). So no host feature decides
# what runs here: a host without KVM runs every check, as one with it.
#
# Each stand-in gets a cache of its own (XDG_CACHE_HOME), so what it
# teaches bootrig about "KVM" on this host is read back from that cache.
. "$(dirname "$0")/lib.sh"
set -u

if [ "$(uname -m)" != x86_64 ]; then
	skip "accelerator rule with stand-in emulators" "the stand-ins wrap qemu-system-x86_64, and libvirt offers KVM only for the host's own arch ($(uname -m))"
	exit 0
fi
if [ -z "${T_ACCEL_NS:-}" ]; then
	T_ACCEL_NS=1 exec unshare -m sh "$TOP/tests/tools/fake-kvm-dev.sh" sh "$0" "$@"
fi
if [ -w /dev/kvm ]; then ok "a /dev/kvm that opens, in the group's own mount namespace"
else not_ok "a /dev/kvm that opens" "$(ls -l /dev/kvm 2>&1)"; exit 1; fi

tmp=$(mktemp -d /tmp/t-accel.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
amd64=$(kernel_path amd64)

# A 64 KiB BIOS whose reset vector jumps to itself.
head -c 65520 /dev/zero >"$tmp/halt.bin"
printf '\353\376' >>"$tmp/halt.bin"
head -c 14 /dev/zero >>"$tmp/halt.bin"

# standin NAME MODE PROOF: an emulator script $tmp/NAME, and a target of
# that name whose unproven KVM must print within PROOF seconds.
standin() {
	cat >"$tmp/$1" <<EOF
#!/bin/sh
mode=$2
boot=no kvm=no
for a in "\$@"; do
	case \$a in -kernel) boot=yes ;; kvm) kvm=yes ;; esac
done
if [ \$boot = yes ]; then
	first=yes
	for a in "\$@"; do
		[ \$first = yes ] && { set --; first=no; }
		[ "\$a" = kvm ] && a=tcg
		set -- "\$@" "\$a"
	done
	case \$mode in
	works) ;;
	hangs) [ \$kvm = yes ] && set -- "\$@" -bios "$tmp/halt.bin" ;;
	silent) set -- "\$@" -bios "$tmp/halt.bin" ;;
	esac
else
	exec python3 "$TOP/tests/tools/qmp-kvm.py" /usr/bin/qemu-system-x86_64 "\$@"
fi
exec /usr/bin/qemu-system-x86_64 "\$@"
EOF
	chmod +x "$tmp/$1"
	cat >"$tmp/$1.cfg" <<EOF
targets = ( { name = "$1"; arch = "x86_64"; abis = [ "x86_64", "x32", "i386" ];
  emulator = "$tmp/$1"; qemu_arch = "x86_64"; machine = "q35"; cpu = "max"; console = "ttyS0";
  timeouts = { kvm_proof = $3; firmware = 30.0; silence = 30.0; }; } );
EOF
}
# "KVM" that works is TCG here: it gets time to print even on a busy host.
standin kvm-works works 60.0
standin kvm-hangs hangs 10.0
standin kvm-silent silent 10.0

# boot NAME STANDIN [ARGS...]: one boot of the amd64 kernel on that
# stand-in, with that stand-in's cache; sets rc and res (its result.json).
boot() {
	name=$1 sd=$2
	shift 2
	XDG_CACHE_HOME="$tmp/cache-$sd" "$BOOTRIG" run --kernel "$amd64" \
		--config "$tmp/kvm-$sd.cfg" --target "kvm-$sd" "$@" -o "$tmp/$name" \
		>"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	res=$(echo "$tmp/$name"/*/default/1/result.json)
}
# cache_says STANDIN: yes, no or nothing: what its accel cache holds.
cache_says() {
	f="$tmp/cache-$1/bootrig/accel"
	[ -f "$f" ] && awk -F'\t' -v e="$tmp/kvm-$1" '$2 == e { print $5 }' "$f" || true
}
# has FILE PATH TEXT: FILE's string at PATH contains TEXT.
has() {
	got=$("$JGET" "$1" "$2" 2>&1)
	case $got in *"$3"*) return 0 ;; esac
	echo "# $2 is '$got', want it to contain '$3'"
	return 1
}

# --- a host whose KVM hangs after the BIOS -----------------------------------
boot hang1 hangs
[ "$rc" -eq 0 ] && ok "kvm hangs: the boot falls back to TCG and PASSes" ||
	not_ok "kvm hangs: the boot falls back to TCG and PASSes" "exit $rc; $(tail -n 3 "$tmp/hang1.err")"
expect "kvm hangs: verdict PASS" "$res" verdict PASS
expect "kvm hangs: accelerator tcg" "$res" accelerator tcg
check "kvm hangs: the fallback and its reason in result.json" \
	has "$res" accelerator_fallback "kvm printed no kernel output in 10 s"
check "kvm hangs: the KVM attempt's console is kept" test -f "$(dirname "$res")/attempt-kvm/console.log"
[ "$(cache_says hangs)" = no ] && ok "kvm hangs: the cache says no" ||
	not_ok "kvm hangs: the cache says no" "cache: '$(cache_says hangs)'"
boot hang2 hangs
expect "kvm hangs, next boot: straight to TCG" "$res" accelerator tcg
check "kvm hangs, next boot: the reason is the cache" has "$res" accelerator_reason "KVM failed on this host before"
check "kvm hangs, next boot: no KVM attempt" test ! -e "$(dirname "$res")/attempt-kvm"

# --- forced KVM on that host -------------------------------------------------
boot forced hangs --accel kvm
[ "$rc" -eq 125 ] && ok "--accel kvm that hangs: exit 125" || not_ok "--accel kvm that hangs: exit 125" "exit $rc"
expect "--accel kvm that hangs: INFRA_ERROR, not BOOT_FAIL" "$res" verdict INFRA_ERROR

# --- a host whose KVM works ----------------------------------------------------
boot works1 works
[ "$rc" -eq 0 ] && ok "kvm works: PASS" || not_ok "kvm works: PASS" "exit $rc; $(tail -n 3 "$tmp/works1.err")"
expect "kvm works: KVM chosen" "$res" accelerator kvm
check "kvm works: no fallback" sh -c "! grep -q accelerator_fallback '$res'"
[ "$(cache_says works)" = yes ] && ok "kvm works: the cache says yes" ||
	not_ok "kvm works: the cache says yes" "cache: '$(cache_says works)'"
boot works2 works
expect "kvm works, next boot: KVM" "$res" accelerator kvm
check "kvm works, next boot: proven by the earlier boot" has "$res" accelerator_reason "printed kernel output"
boot tcg works --accel tcg
expect "--accel tcg: TCG where KVM works" "$res" accelerator tcg

# --- a kernel that prints nothing under TCG either ---------------------------
boot silent silent
[ "$rc" -eq 2 ] && ok "silent under TCG too: exit 2" || not_ok "silent under TCG too: exit 2" "exit $rc"
expect "silent under TCG too: BOOT_FAIL" "$res" verdict BOOT_FAIL
expect "silent under TCG too: judged under TCG" "$res" accelerator tcg
[ "$(cache_says silent)" = "" ] && ok "silent under TCG too: KVM not condemned by it" ||
	not_ok "silent under TCG too: KVM not condemned by it" "cache: '$(cache_says silent)'"

# --- Ctrl-C while an unproven KVM is being watched -----------------------------
rm -rf "$tmp/cache-hangs"
XDG_CACHE_HOME="$tmp/cache-hangs" "$BOOTRIG" run --kernel "$amd64" --config "$tmp/kvm-hangs.cfg" \
	--target kvm-hangs -o "$tmp/intr" >"$tmp/intr.out" 2>"$tmp/intr.err" &
pid=$!
i=0
while ! pgrep -f "guest=bootrig-$pid-" >/dev/null && kill -0 $pid 2>/dev/null && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 2
kill -INT $pid
wait $pid
rc=$?
[ "$rc" -eq 130 ] && ok "Ctrl-C during the KVM attempt: exit 130" || not_ok "Ctrl-C during the KVM attempt: exit 130" "exit $rc"
sleep 1
check "Ctrl-C during the KVM attempt: no QEMU left" no_qemu_left $pid
[ "$(cache_says hangs)" = "" ] && ok "Ctrl-C during the KVM attempt: nothing learnt of KVM" ||
	not_ok "Ctrl-C during the KVM attempt: nothing learnt of KVM" "cache: '$(cache_says hangs)'"
