#!/bin/sh
# t-guest-profile.sh: the guest's sampling profiler (issue 31;
# initramfs/bench/profile.h, initramfs/PROTOCOL.md: PROFILE, PFUNC,
# PSTACK).
#  1. its pure parts (initramfs/profile-selftest.c: the kallsyms table,
#     the binary's own ELF symbols, a ring record, the 64-bit sample
#     layout, folding, self and children, the bounds and the cut of a
#     deep stack) on every ABI: natively, under qemu-user, and x32 in an
#     x86_64 guest with syscall.x32=y where this host cannot run it;
#  2. real boots by `bootrig run --append bootrig.profile=1`, suite smoke,
#     icount (the default on TCG): Debian's amd64 kernel with
#     syscall.x32=y (x86_64, x32, i386) and cloud-arm64 (aarch64, arm):
#     every METRIC has its PROFILE (status ok, samples > 0), the PFUNC and
#     PSTACK records it announces, sum(n) + stacks_other == samples,
#     self <= children <= samples, a kernel syscall-entry function and a
#     _[u] user function among the functions; interrupt work (a stack
#     through an interrupt's entry or softirq) counted in interrupt=, in
#     no PSTACK and no PFUNC; the boot's passes counted some;
#  3. an unprofiled boot (the default) prints no PROFILE record.
. "$(dirname "$0")/lib.sh"
set -u

S=$TOP/build/guest-selftest
tmp=$(mktemp -d /tmp/t-guest-profile.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

selftest_tap x86_64 "$S/x86_64/profile-selftest"
selftest_tap i386 $(abi_runner i386) "$S/i386/profile-selftest"
selftest_tap aarch64 qemu-aarch64 "$S/aarch64/profile-selftest"
selftest_tap arm qemu-arm "$S/arm/profile-selftest"
if [ "$(abi_runner x32)" = none ]; then
	gx=$tmp/gx
	gx_add "$gx" "$S/x32/profile-selftest"
	why=$(gx_boot "$gx") || not_ok "the guest with syscall.x32=y runs the x32 self-test" "$why"
	selftest_tap x32-in-guest "$GX" --replay "$gx" "$S/x32/profile-selftest"
else
	selftest_tap x32 "$S/x32/profile-selftest"
fi
case $(file -b "$S/aarch64_ilp32/profile-selftest") in
"ELF 32-bit LSB executable, ARM aarch64"*) ok "aarch64_ilp32: the self-test is an ELF32 AArch64 executable (no kernel here runs it)" ;;
*) not_ok "aarch64_ilp32: self-test ELF class" "$(file -b "$S/aarch64_ilp32/profile-selftest")" ;;
esac

# check_profiles NAME LOG "ABIS": the records of a profiled console log.
# The record lines ("@@BR 1 SEQ KIND k=v... *CRC") are read by awk; every
# problem is one line of $tmp/NAME.problems, and one summary line per
# ABI (its PROFILE count and samples) goes to $tmp/NAME.summary.
check_profiles() {
	name=$1 log=$2 abis=$3
	tr -d '\r' <"$log" | grep -a '^@@BR 1 [0-9]* [A-Z]* ' | sed 's/ \*[0-9a-f]*$//' | awk -v abis="$abis" \
		-v IRQ='^(__do_softirq|handle_softirqs|irq_exit_rcu|__irq_exit_rcu|el0_interrupt|el1_interrupt|asm_sysvec_[a-z0-9_]+|asm_common_interrupt|__irq_usr|__irq_svc)$' \
		-v problems="$tmp/$name.problems" -v summary="$tmp/$name.summary" '
	function field(k,   i) { for (i = 5; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
	function bad(s) { print s >problems; nbad++ }
	{ kind = $4; id = field("abi") " " field("test") " " field("name") }
	kind == "METRIC" { metric[id] = 1; order[++nm] = id }
	kind == "PROFILE" {
		if (id in prof) bad(id ": two PROFILE records")
		prof[id] = 1; pabi[field("abi")]++
		if (field("status") != "") { bad(id ": status=" field("status") " reason=" field("reason")); next }
		samples[id] = field("samples") + 0; funcs[id] = field("functions") + 0
		stacks[id] = field("stacks") + 0; other[id] = field("stacks_other") + 0
		if (field("event") != "cpu-clock") bad(id ": event " field("event"))
		if (samples[id] <= 0) bad(id ": samples=" field("samples"))
		if (field("interrupt") !~ /^[0-9]+$/) bad(id ": interrupt=" field("interrupt"))
		nint += field("interrupt")
		if (funcs[id] > 80 || stacks[id] > 100) bad(id ": functions=" funcs[id] " stacks=" stacks[id] " past the bounds")
		ssum[field("abi")] += samples[id]
	}
	kind == "PFUNC" {
		if (!(id in samples)) { bad(id ": PFUNC without its PROFILE"); next }
		nf[id]++; fn = field("fn"); s = field("self") + 0; c = field("children") + 0
		if (!(s <= c && c <= samples[id])) bad(id ": " fn " self=" s " children=" c " samples=" samples[id])
		if (fn ~ /^(do_syscall_64|do_int80_emulation|do_int80_syscall_32|do_fast_syscall_32|__do_fast_syscall_32|el0_svc|el0_svc_compat|invoke_syscall)$/) entry[id] = 1
		if (fn ~ /_\[u\]$/) user[id] = 1
		if (fn ~ IRQ) bad(id ": interrupt work among the functions: " fn)
	}
	kind == "PSTACK" {
		if (!(id in samples)) { bad(id ": PSTACK without its PROFILE"); next }
		ns[id]++; nsum[id] += field("n"); st = field("stack")
		if (st == "" || field("n") + 0 <= 0) bad(id ": an empty PSTACK")
		nf2 = split(st, fr, ";")
		for (k = 1; k <= nf2; k++) if (fr[k] ~ IRQ) { bad(id ": interrupt work in a PSTACK: " st); break }
	}
	END {
		for (i = 1; i <= nm; i++) {
			id = order[i]
			if (!(id in prof)) { bad(id ": METRIC without a PROFILE"); continue }
			if (!(id in samples)) continue
			if (nf[id] + 0 != funcs[id]) bad(id ": " nf[id] + 0 " PFUNC, PROFILE says " funcs[id])
			if (ns[id] + 0 != stacks[id]) bad(id ": " ns[id] + 0 " PSTACK, PROFILE says " stacks[id])
			if (nsum[id] + other[id] != samples[id]) bad(id ": sum(n) " nsum[id] " + stacks_other " other[id] " != samples " samples[id])
			if (!(id in entry)) bad(id ": no syscall-entry function among the PFUNC")
			if (!(id in user)) bad(id ": no _[u] function among the PFUNC")
		}
		n = split(abis, want, " ")
		for (i = 1; i <= n; i++) {
			if (pabi[want[i]] + 0 == 0) bad(want[i] ": no PROFILE record")
			printf "%s: %d profiles, %d samples\n", want[i], pabi[want[i]], ssum[want[i]] >summary
		}
		if (nm == 0) bad("no METRIC record")
		if (nint + 0 == 0) bad("no pass counted a sample of interrupt work (interrupt=0 everywhere)")
		printf "interrupt work: %d samples left out\n", nint >summary
		close(problems)
		exit nbad > 0
	}'
}

# profiled_boot NAME KERNEL "ABIS" APPEND...: one boot, its checks.
profiled_boot() {
	name=$1 kernel=$2 abis=$3
	shift 3
	: >"$tmp/$name.problems"
	"$TOP/build/bootrig" run --kernel "$kernel" --suite smoke --append "$*" -o "$tmp/$name" \
		>"$tmp/$name.out" 2>&1
	rc=$?
	log=$(ls "$tmp/$name"/*/default/1/console.log 2>/dev/null | head -1)
	if [ $rc = 0 ] && [ -n "$log" ] && grep -q '"verdict": *"PASS"' "${log%/*}/result.json"; then
		ok "$name: the profiled smoke boot PASSes"
	else
		not_ok "$name: the profiled smoke boot PASSes" "exit $rc: $(tail -n 3 "$tmp/$name.out")"
		return
	fi
	if check_profiles "$name" "$log" "$abis"; then
		ok "$name: every metric of $abis has its profile, complete and consistent"
	else
		not_ok "$name: every metric's profile is complete and consistent" "$(head -n 5 "$tmp/$name.problems")"
	fi
	sed "s/^/# $name: /" "$tmp/$name.summary"
}

amd64=$(kernel_path amd64)
arm64=$(kernel_path cloud-arm64)
profiled_boot amd64 "$amd64" "x86_64 x32 i386" bootrig.profile=1 syscall.x32=y
profiled_boot arm64 "$arm64" "aarch64 arm" bootrig.profile=1

# 3. The default: no profile.
"$TOP/build/bootrig" run --kernel "$arm64" --suite smoke -o "$tmp/plain" >"$tmp/plain.out" 2>&1
log=$(ls "$tmp/plain"/*/default/1/console.log 2>/dev/null | head -1)
if [ -n "$log" ] && grep -aq '^@@BR 1 [0-9]* METRIC ' "$log" && ! grep -aq '^@@BR 1 [0-9]* P\(ROFILE\|FUNC\|STACK\) ' "$log"; then
	ok "an unprofiled boot prints METRIC records and no PROFILE, PFUNC or PSTACK"
else
	not_ok "an unprofiled boot prints no profile records" "$(grep -ac '@@BR 1 [0-9]* P' "${log:-/dev/null}") profile records; $(tail -n 2 "$tmp/plain.out")"
fi

