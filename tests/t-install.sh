#!/bin/sh
# make install honours PREFIX and DESTDIR; the installed tool finds its guest
# binaries and configs; the manual page renders.
. "$(dirname "$0")/lib.sh"
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT

if make -s -C "$TOP" install DESTDIR="$dest" PREFIX=/usr >"$dest.log" 2>&1; then
	ok "make install DESTDIR PREFIX=/usr"
else
	not_ok "make install DESTDIR PREFIX=/usr" "$(tail -n 3 "$dest.log")"
fi
rm -f "$dest.log"
check "binary installed in PREFIX/bin" test -x "$dest/usr/bin/bootrig"
check "man page installed in PREFIX/share/man/man1" test -f "$dest/usr/share/man/man1/bootrig.1"
if MANWIDTH=80 man -l "$dest/usr/share/man/man1/bootrig.1" 2>/dev/null | grep -q 'INFRA_ERROR'; then
	ok "man -l renders the page"
else
	not_ok "man -l renders the page"
fi
version=$("$dest/usr/bin/bootrig" --version 2>&1)
case $version in "bootrig "*) ok "installed bootrig --version: $version" ;; *) not_ok "installed --version" "$version" ;; esac

# The installed copy, away from the build tree, lists the suites' binaries
# it would put in an image: it found PREFIX/lib/bootrig/{guest,configs}.
kernel=$(kernel_path cloud-arm64)
if (cd / && "$dest/usr/bin/bootrig" build --kernel "$kernel" -o "$dest/img") >/dev/null 2>&1 &&
	"$dest/usr/bin/bootrig" build --list "$dest/img" | grep -q 'bench/aarch64/lat_syscall'; then
	ok "installed bootrig builds an image from its own data"
else
	not_ok "installed bootrig builds an image from its own data"
fi

# The plugin modules (lib/module.h): installed beside the data, and the
# installed tool loads them. `run --connect bogus:///` reaches libvirt's own
# connection error (so virt.so and libvirt loaded) and ends INFRA_ERROR 125;
# without the modules directory the same run still ends 125, saying which
# module it could not load and where it looked.
for m in virt guestfs; do
	check "module $m.so installed in PREFIX/lib/bootrig/modules" \
		test -f "$dest/usr/lib/bootrig/modules/$m.so"
done
if readelf -d "$dest/usr/bin/bootrig" | grep -qE 'NEEDED.*lib(virt|guestfs)'; then
	not_ok "installed bootrig does not link libvirt/libguestfs" "$(readelf -d "$dest/usr/bin/bootrig" | grep NEEDED)"
else
	ok "installed bootrig does not link libvirt/libguestfs"
fi
run_bogus() {
	(cd / && "$dest/usr/bin/bootrig" run --connect bogus:/// --kernel "$kernel" -o "$dest/$1") \
		>"$dest/$1.out" 2>&1
	echo $?
}
rc=$(run_bogus run-bogus)
if [ "$rc" = 125 ] && grep -q 'bogus:///' "$dest/run-bogus.out" &&
	! grep -q 'cannot load module' "$dest/run-bogus.out"; then
	ok "installed bootrig loads its virt module (run --connect bogus:/// -> 125 from libvirt)"
else
	not_ok "installed bootrig loads its virt module" "exit $rc: $(tail -n 3 "$dest/run-bogus.out")"
fi
mv "$dest/usr/lib/bootrig/modules" "$dest/modules.away"
rc=$(run_bogus run-nomod)
if [ "$rc" = 125 ] && grep -q 'cannot load module virt: no virt.so in' "$dest/run-nomod.out" &&
	grep -rq '"verdict":"INFRA_ERROR"' "$dest/run-nomod"; then
	ok "without its modules: INFRA_ERROR 125, naming the module and where it looked"
else
	not_ok "without its modules: INFRA_ERROR 125" "exit $rc: $(tail -n 3 "$dest/run-nomod.out")"
fi
mv "$dest/modules.away" "$dest/usr/lib/bootrig/modules"
