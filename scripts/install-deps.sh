#!/bin/sh
# Install everything bootrig needs from Debian's packages. Idempotent: a
# second run installs nothing and takes about a second. Run as root.
set -eu

PACKAGES="
  build-essential pkg-config file cpio gzip xz-utils zstd
  gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf binutils-aarch64-linux-gnu
  libconfig-dev libjson-c-dev zlib1g-dev libdeflate-dev libcmocka-dev libvirt-dev libguestfs-dev
  nettle-dev liblzma-dev jq libcurl4-openssl-dev
  qemu-system-arm qemu-system-x86 qemu-user qemu-utils
  libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients
  libguestfs0 linux-image-amd64 supermin
  u-boot-qemu libxml2-utils clang
  chromium man-db groff-base time
  linux-source-6.1
  libelf1
"

missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done

if [ -n "$missing" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq || echo "install-deps: apt-get update reported errors; going on" >&2
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing
fi

# libvirt's QEMU driver refuses to start without its user and group, even
# in embedded mode where nothing runs as that user.
getent group libvirt-qemu >/dev/null || groupadd -r libvirt-qemu
getent passwd libvirt-qemu >/dev/null ||
	useradd -r -g libvirt-qemu -d /var/lib/libvirt -s /usr/sbin/nologin libvirt-qemu

# Foreign architectures, so that apt-get download finds arm64 and armhf
# kernels and their linux-headers (scripts/build-provoke.sh; libelf1 above
# is what the host kbuild's objtool links).
for arch in arm64 armhf; do
	dpkg --print-foreign-architectures | grep -qx "$arch" || {
		dpkg --add-architecture "$arch"
		apt-get update -qq || echo "install-deps: apt-get update reported errors; going on" >&2
	}
done
exit 0
