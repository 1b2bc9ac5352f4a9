#!/bin/sh
# Build bootrig's crash module (initramfs/provoke/) for Debian's kernels.
#
#   scripts/build-provoke.sh [FLAVOUR...]     (default: amd64 arm64 armmp-lpae)
#
# FLAVOUR is one scripts/fetch-kernels.sh knows; its kernel package must be
# in the kernels cache (fetch-kernels.sh puts it there). For each flavour,
# the script finds the kernel's exact release (the .deb's package name),
# downloads the matching linux-headers-<release> and
# linux-headers-<abi>-common packages and the host's linux-kbuild (its
# fixdep and modpost are host binaries, so one host kbuild builds for
# every arch), unpacks them under the cache (never into /usr/src),
# builds the module (cross-compiling arm64 and armhf) and leaves
#   $cache/provoke/<release>/provoke.ko
# printing "<flavour> <path>". A second run downloads and builds nothing
# unless initramfs/provoke/ changed. `bootrig run --provoke KIND` looks for
# the module there (or in $BOOTRIG_PROVOKE_DIR/<release>/provoke.ko).
set -eu

# (the script's own directory, symlinks resolved: README blocks run it
# through a link to scripts/)
here=$(cd "$(dirname "$0")" && pwd -P)
src=$(cd "$here/../initramfs/provoke" && pwd)
base=${BOOTRIG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bootrig}
kernels=$base/kernels
cache=$base/provoke
mkdir -p "$cache/debs" "$cache/root"
# One build at a time per cache (two at once would unpack over each
# other); the second finds the first's modules there.
exec 9>>"$cache/.lock"
flock 9

[ $# -gt 0 ] || set -- amd64 arm64 armmp-lpae

# fetch PKG:ARCH: the package's .deb in $cache/debs, unpacked into
# $cache/root (once: a stamp file remembers it).
fetch() {
	name=${1%%[:=]*}
	stamp=$cache/root/.unpacked-$name
	[ -e "$stamp" ] && return 0
	(cd "$cache/debs" && apt-get download -q -o APT::Sandbox::User=root "$1" >/dev/null)
	deb=$(ls -t "$cache/debs/${name}"_*.deb | head -n 1)
	dpkg-deb -x "$deb" "$cache/root"
	: >"$stamp"
}

for flavour in "$@"; do
	case $flavour in
	amd64 | cloud-amd64 | rt-amd64) arch=x86_64 cross= ;;
	arm64 | cloud-arm64) arch=arm64 cross=aarch64-linux-gnu- ;;
	armmp-lpae) arch=arm cross=arm-linux-gnueabihf- ;;
	*) echo "build-provoke: unknown flavour '$flavour'" >&2; exit 64 ;;
	esac
	deb=$kernels/$flavour.deb
	[ -e "$deb" ] || { echo "build-provoke: no $deb: run scripts/fetch-kernels.sh $flavour" >&2; exit 66; }
	pkg=$(dpkg-deb -f "$deb" Package)          # linux-image-6.1.0-57-amd64
	version=$(dpkg-deb -f "$deb" Version)      # 6.1.192-3
	debarch=$(dpkg-deb -f "$deb" Architecture)
	release=${pkg#linux-image-}                 # 6.1.0-57-amd64
	abi=${release%-"${flavour}"}                # 6.1.0-57
	major=$(echo "$version" | cut -d. -f1,2)    # 6.1
	out=$cache/$release
	ko=$out/provoke.ko
	if [ -s "$ko" ] && [ -z "$(find "$src" -newer "$ko" -type f)" ]; then
		echo "$flavour $ko"
		continue
	fi
	case $flavour in
	rt-*) common=linux-headers-$abi-common-rt ;;
	*) common=linux-headers-$abi-common ;;
	esac
	fetch "linux-headers-$release:$debarch=$version"
	fetch "$common=$version"
	fetch "linux-kbuild-$major:$(dpkg --print-architecture)=$version"
	hdr=$cache/root/usr/src/linux-headers-$release
	# The flavour's Makefile includes the common tree by its absolute
	# /usr/src path: point it at ours.
	sed -i "s|^include /usr/src/|include $cache/root/usr/src/|" "$hdr/Makefile"
	tmp=$(mktemp -d)
	cp "$src"/Kbuild "$src"/provoke.c "$tmp"/
	make -s -C "$hdr" M="$tmp" ARCH="$arch" CROSS_COMPILE="$cross" modules >"$tmp/build.log" 2>&1 || {
		cat "$tmp/build.log" >&2
		echo "build-provoke: building for $release failed" >&2
		rm -rf "$tmp"
		exit 1
	}
	mkdir -p "$out"
	"${cross}strip" --strip-debug -o "$ko.tmp" "$tmp/provoke.ko"
	mv "$ko.tmp" "$ko"
	rm -rf "$tmp"
	echo "$flavour $ko"
done
