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
