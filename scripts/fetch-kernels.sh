#!/bin/sh
# Fetch real Debian kernels into a cache and unpack their vmlinuz.
#
#   scripts/fetch-kernels.sh [--version ABI] [FLAVOUR...]
#                                (default: amd64 cloud-arm64 arm64 armmp-lpae)
#
# FLAVOUR is amd64, cloud-amd64, rt-amd64, arm64, cloud-arm64 or armmp-lpae.
# For each it leaves, in $BOOTRIG_CACHE/kernels (default ~/.cache/bootrig/kernels):
#   linux-image-<version>-<flavour>_<...>.deb   the package, as Debian ships it
#   <flavour>.deb                               a link to it
#   <flavour>.vmlinuz                           the kernel image taken out of it
# and prints "<flavour> <path of vmlinuz>". A second run downloads nothing.
#
# --version ABI (e.g. 6.1.0-47): that exact kernel ABI instead of the one the
# flavour's metapackage depends on now (older ones stay downloadable by their
# package name, linux-image-6.1.0-47-cloud-arm64); its files are named
# <ABI>-<flavour>.deb and <ABI>-<flavour>.vmlinuz, so several ABIs of one
# flavour live side by side, and it prints "<ABI>-<flavour> <path>".
set -eu

version=
if [ "${1:-}" = --version ]; then
	[ $# -ge 2 ] || { echo "fetch-kernels: --version needs an ABI (6.1.0-47)" >&2; exit 64; }
	version=$2
	shift 2
	case $version in
	[0-9]*.[0-9]*-[0-9]*) ;;
	*) echo "fetch-kernels: '$version' is not a kernel ABI like 6.1.0-47" >&2; exit 64 ;;
	esac
fi

cache=${BOOTRIG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bootrig}/kernels
mkdir -p "$cache"
cd "$cache"
# One fetch at a time per cache (two at once would race over the .tmp
# files); the second finds the first's kernels there.
exec 9>>"$cache/.lock"
flock 9

[ $# -gt 0 ] || set -- amd64 cloud-arm64 arm64 armmp-lpae

for flavour in "$@"; do
	case $flavour in
	amd64 | cloud-amd64 | rt-amd64) arch=amd64 ;;
	arm64 | cloud-arm64) arch=arm64 ;;
	armmp-lpae) arch=armhf ;;
	*) echo "fetch-kernels: unknown flavour '$flavour'" >&2; exit 64 ;;
	esac
	name=$flavour
	[ -z "$version" ] || name=$version-$flavour
	if [ ! -s "$name.vmlinuz" ] || [ ! -e "$name.deb" ]; then
		if [ -n "$version" ]; then
			pkg=linux-image-$version-$flavour
		else
			# The metapackage names the versioned image package we want.
			pkg=$(apt-cache depends "linux-image-$flavour:$arch" |
				sed -n 's/^ *Depends: \(linux-image-[0-9][^:]*\).*/\1/p' | head -n 1)
		fi
		[ -n "$pkg" ] || { echo "fetch-kernels: no package for $flavour" >&2; exit 69; }
		# As root, apt fetches as the unprivileged _apt user unless told
		# not to, and warns that it cannot write the cache: it can't, and
		# it need not (the package is checked by apt's signatures alike).
		apt-get download -q -o APT::Sandbox::User=root "$pkg:$arch" >/dev/null
		deb=$(ls -t "${pkg}"_*.deb | head -n 1)
		ln -sf "$deb" "$name.deb"
		tmp=$(mktemp -d)
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" --wildcards './boot/vmlinuz-*'
		mv "$tmp"/boot/vmlinuz-* "$name.vmlinuz.tmp"
		rm -rf "$tmp"
		mv "$name.vmlinuz.tmp" "$name.vmlinuz"
	fi
	echo "$name $cache/$name.vmlinuz"
done
