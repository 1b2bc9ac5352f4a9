#!/bin/sh
# The plugin modules (lib/module.h): bootrig links neither libvirt nor
# libguestfs; `build` and `judge` load neither; `run` loads the virt module
# of its own flavour (build/modules or build/asan-modules) and through it
# libvirt; a missing module is an INFRA failure (125) that names it. The
# executable exports its symbols to the modules (-rdynamic): none of them
# may shadow a symbol that a library the modules load defines.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
kernel=$(kernel_path cloud-arm64)
release=$TOP/build/bootrig
asan=$TOP/build/bootrig-asan

for exe in "$release" "$asan"; do
	if readelf -d "$exe" | grep -qE 'NEEDED.*lib(virt|guestfs)'; then
		not_ok "$(basename "$exe") does not link libvirt or libguestfs" \
			"$(readelf -d "$exe" | grep -E 'NEEDED.*lib(virt|guestfs)')"
	else
		ok "$(basename "$exe") does not link libvirt or libguestfs"
	fi
done

# loaded FILE...: the shared objects the dynamic loader opened (LD_DEBUG).
loaded() { sed -n 's/.*file=\([^ ]*\) *\[0\]; *\(needed\|dynamically loaded\) by.*/\1/p' "$@" | sort -u; }

LD_DEBUG=files "$release" build --kernel "$kernel" -o "$tmp/img" >/dev/null 2>"$tmp/build.err"
rc=$?
libs=$(loaded "$tmp/build.err")
if [ "$rc" = 0 ] && [ -n "$libs" ] && ! echo "$libs" | grep -qE 'virt|guestfs|glib|gnutls|xml2'; then
	ok "bootrig build loads neither module ($(echo "$libs" | wc -l) libraries)"
else
	not_ok "bootrig build loads neither module" "exit $rc; loaded: $(echo "$libs" | tr '\n' ' ')"
fi
log=$(ls "$TOP"/tests/fixtures/crash/*.log | head -n 1)
LD_DEBUG=files "$release" judge "$log" >/dev/null 2>"$tmp/judge.err"
libs=$(loaded "$tmp/judge.err")
if [ -n "$libs" ] && ! echo "$libs" | grep -qE 'virt|guestfs'; then
	ok "bootrig judge loads no module"
else
	not_ok "bootrig judge loads no module" "loaded: $(echo "$libs" | tr '\n' ' ')"
fi

# run: each flavour loads its own virt module, then libvirt, whose own error
# about the bogus URI comes back as INFRA_ERROR.
for flavour in modules asan-modules; do
	exe=$release
	[ "$flavour" = asan-modules ] && exe=$asan
	LD_DEBUG=files "$exe" run --connect bogus:/// --kernel "$kernel" -o "$tmp/run-$flavour" \
		>"$tmp/run-$flavour.out" 2>"$tmp/run-$flavour.err"
	rc=$?
	libs=$(loaded "$tmp/run-$flavour.err")
	if [ "$rc" = 125 ] && echo "$libs" | grep -qx "$TOP/build/$flavour/virt.so" &&
		echo "$libs" | grep -q 'libvirt\.so' && ! echo "$libs" | grep -q guestfs &&
		grep -q 'cannot connect to bogus:///' "$tmp/run-$flavour.err"; then
		ok "$(basename "$exe") run loads build/$flavour/virt.so and libvirt (125 from libvirt)"
	else
		not_ok "$(basename "$exe") run loads build/$flavour/virt.so" \
			"exit $rc; loaded: $(echo "$libs" | grep -E 'virt|guestfs' | tr '\n' ' ')"
	fi
done

# A copy of the tool with its data but no modules: run and build --sd-image
# fail as infrastructure (125), naming the module and where it looked.
mkdir -p "$tmp/alone/bin" "$tmp/alone/data"
cp "$release" "$tmp/alone/bin/bootrig"
ln -s "$TOP/build/guest" "$tmp/alone/data/guest"
ln -s "$TOP/configs" "$tmp/alone/data/configs"
BOOTRIG_DATADIR=$tmp/alone/data "$tmp/alone/bin/bootrig" run --connect bogus:/// --kernel "$kernel" \
	-o "$tmp/run-alone" >"$tmp/alone.out" 2>&1
rc=$?
if [ "$rc" = 125 ] && grep -q "cannot load module virt: no virt.so in $tmp/alone/data/modules, " "$tmp/alone.out" &&
	grep -rq '"verdict":"INFRA_ERROR"' "$tmp/run-alone"; then
	ok "run without the virt module: INFRA_ERROR 125 naming it"
else
	not_ok "run without the virt module: INFRA_ERROR 125" "exit $rc: $(tail -n 2 "$tmp/alone.out")"
fi
# Its result.json names the backend and accelerator as the backend gives
# them (runner/backend.h: name, accelerator), and no URI: none was reached.
alone_result=$(find "$tmp/run-alone" -name result.json | head -n 1)
if [ -n "$alone_result" ] && grep -q '"backend":"libvirt"' "$alone_result" &&
	grep -q '"accelerator":"tcg"' "$alone_result" && ! grep -q '"uri"' "$alone_result"; then
	ok "run without the virt module: result.json says backend libvirt, accelerator tcg, no uri"
else
	not_ok "run without the virt module: result.json's backend and accelerator" \
		"$(grep -E '"(backend|accelerator|uri)"' "$alone_result" 2>/dev/null | tr '\n' ' ')"
fi
BOOTRIG_DATADIR=$tmp/alone/data "$tmp/alone/bin/bootrig" build --kernel "$kernel" --sd-image \
	-o "$tmp/sd.img" >"$tmp/sd.out" 2>&1
rc=$?
if [ "$rc" = 125 ] && grep -q 'cannot load module guestfs: no guestfs.so in' "$tmp/sd.out" &&
	[ ! -e "$tmp/sd.img" ]; then
	ok "build --sd-image without the guestfs module: 125 naming it, no image"
else
	not_ok "build --sd-image without the guestfs module: 125" "exit $rc: $(tail -n 2 "$tmp/sd.out")"
fi

# -rdynamic exports every bootrig function; a library the modules load that
# defines one of the same name, or calls libc's (bootrig's error() is not
# libc's error()), would call ours instead. libc's variables that bootrig
# itself uses (stderr, environ, optind...) are the same objects: not clashes.
nm -D --defined-only "$release" | awk '{print $3}' | sed 's/@.*//' | sort -u >"$tmp/ours"
for so in "$TOP"/build/modules/*.so; do ldd "$so" | awk '/=>/ {print $3}'; done | sort -u >"$tmp/libs"
clashes=$(while read -r lib; do
	nm -D "$lib" 2>/dev/null | awk -v lib="$(basename "$lib")" 'NF >= 2 {n = $NF; sub(/@.*/, "", n); print n, $(NF - 1), lib}'
done <"$tmp/libs" | awk 'NR == FNR { ours[$1] = 1; next }
	($1 in ours) && !($3 ~ /^(libc|ld-linux)/ && $2 != "U")' "$tmp/ours" - |
	grep -vE '^(_edata|_end|__bss_start|_init|_fini|stdin|stdout|stderr|environ|__environ|optarg|optind|opterr|optopt) ')
if [ "$(wc -l <"$tmp/libs")" -gt 20 ] && [ -z "$clashes" ]; then
	ok "no exported bootrig symbol is defined by the modules' $(wc -l <"$tmp/libs") libraries"
else
	not_ok "no exported bootrig symbol clashes with the modules' libraries" "$(echo "$clashes" | head -n 5 | tr '\n' ' ')"
fi

# ASan resolves the real function behind each interceptor when it starts:
# a library of the modules that defines an intercepted function must be
# loaded by bootrig-asan from the start (Makefile SAN_LIBS), or the
# interceptor calls NULL (libtirpc's xdrmem_create under libguestfs did).
# gcc links the runtime as libasan.so (its functions are the interceptors);
# clang 19 (the Makefile's SAN_CC) links it into the executable, whose
# interceptors are exported as ___interceptor_<name>.
runtime=$(ldd "$asan" | awk '/lib(asan|ubsan)\.so/ {print $3}')
if [ -n "$runtime" ]; then
	# shellcheck disable=SC2086 # two paths: libasan and libubsan
	nm -D --defined-only $runtime | awk '$2 ~ /[TW]/ {n = $3; sub(/@.*/, "", n); print n}' | sort -u >"$tmp/intercepted"
else
	nm -D --defined-only "$asan" | awk '$3 ~ /^__+interceptor_/ {n = $3; sub(/@.*/, "", n); sub(/^__+interceptor_/, "", n); print n}' |
		sort -u >"$tmp/intercepted"
fi
for so in "$TOP"/build/asan-modules/*.so; do ldd "$so" | awk '/=>/ {print $3}'; done | sort -u >"$tmp/asan-libs"
ldd "$asan" | awk '/=>/ {print $3}' >"$tmp/asan-start"
late=$(while read -r lib; do
	case ${lib##*/} in libc.so*|libm.so*|ld-linux*|libasan*|libubsan*) continue ;; esac
	grep -qx "$lib" "$tmp/asan-start" && continue
	nm -D --defined-only "$lib" 2>/dev/null | awk '{n = $3; sub(/@.*/, "", n); print n}' |
		grep -qxFf "$tmp/intercepted" && echo "${lib##*/}"
done <"$tmp/asan-libs")
if [ -s "$tmp/intercepted" ] && [ -s "$tmp/asan-libs" ] && [ -z "$late" ]; then
	ok "bootrig-asan loads at start every module library that defines an intercepted function"
else
	not_ok "bootrig-asan loads the intercepted functions' libraries at start" "late: $(echo "$late" | tr '\n' ' ')"
fi
