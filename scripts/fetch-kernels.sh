#!/bin/sh
# Fetch real Debian kernels into a cache and unpack their vmlinuz.
#
#   scripts/fetch-kernels.sh [FLAVOUR...]     (default: amd64 cloud-arm64 arm64 armmp-lpae)
#
# FLAVOUR is amd64, cloud-amd64, rt-amd64, arm64, cloud-arm64 or armmp-lpae.
# For each it leaves, in $BOOTRIG_CACHE/kernels (default ~/.cache/bootrig/kernels):
#   linux-image-<version>-<flavour>_<...>.deb   the package, as Debian ships it
#   <flavour>.deb                               a link to it
#   <flavour>.vmlinuz                           the kernel image taken out of it
# and prints "<flavour> <path of vmlinuz>". A second run downloads nothing.
set -eu

cache=${BOOTRIG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bootrig}/kernels
mkdir -p "$cache"
cd "$cache"

[ $# -gt 0 ] || set -- amd64 cloud-arm64 arm64 armmp-lpae

for flavour in "$@"; do
	case $flavour in
	amd64 | cloud-amd64 | rt-amd64) arch=amd64 ;;
	arm64 | cloud-arm64) arch=arm64 ;;
	armmp-lpae) arch=armhf ;;
	*) echo "fetch-kernels: unknown flavour '$flavour'" >&2; exit 64 ;;
	esac
	if [ ! -s "$flavour.vmlinuz" ] || [ ! -e "$flavour.deb" ]; then
		# The metapackage names the versioned image package we want.
		pkg=$(apt-cache depends "linux-image-$flavour:$arch" |
			sed -n 's/^ *Depends: \(linux-image-[0-9][^:]*\).*/\1/p' | head -n 1)
		[ -n "$pkg" ] || { echo "fetch-kernels: no package for $flavour" >&2; exit 69; }
		# As root, apt fetches as the unprivileged _apt user unless told
		# not to, and warns that it cannot write the cache: it can't, and
		# it need not (the package is checked by apt's signatures alike).
		apt-get download -q -o APT::Sandbox::User=root "$pkg:$arch" >/dev/null
		deb=$(ls -t "${pkg}"_*.deb | head -n 1)
		ln -sf "$deb" "$flavour.deb"
		tmp=$(mktemp -d)
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards './boot/vmlinuz-*'
		mv "$tmp"/boot/vmlinuz-* "$flavour.vmlinuz.tmp"
		rm -rf "$tmp"
		mv "$flavour.vmlinuz.tmp" "$flavour.vmlinuz"
	fi
	echo "$flavour $cache/$flavour.vmlinuz"
done
