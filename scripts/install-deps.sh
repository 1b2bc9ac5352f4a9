#!/bin/sh
# Install everything bootrig needs from Debian's packages. Idempotent: a
# second run installs nothing and takes about a second. Run as root.
#
#   sh scripts/install-deps.sh         bootrig's packages, then the optional
#                                      LAVA section (its failure is reported
#                                      and recorded, never fatal)
#   sh scripts/install-deps.sh lava    the LAVA section alone; exit 1 when it
#                                      cannot be installed
#   sh scripts/install-deps.sh base    bootrig's packages alone
#
# The LAVA section installs Debian's lava-server and lava-dispatcher with
# PostgreSQL for tests/lava-host.sh (a real LAVA on loopback for t-lava), and
# u-boot-tools (mkimage, which lava-run --validate of a u-boot job wants: t-lava-board).
# lava-server's postinst creates its database and migrates it, so Debian's
# cluster 15/main must run meanwhile: started with pg_ctlcluster when down,
# stopped again after. No service is left running (tests/lava-host.sh runs
# its own processes). When it fails, the reason goes to
# ~/.cache/bootrig/lava-unavailable, which `tests/lava-host.sh check` prints
# so the LAVA tests skip with it; nothing else depends on LAVA.
set -eu
mode=${1:-all}
case $mode in all|base|lava) ;; *) echo "usage: install-deps.sh [base|lava]" >&2; exit 64 ;; esac

LAVA_PACKAGES="postgresql-15 lava-server lava-dispatcher curl u-boot-tools"
LAVA_REASON=${XDG_CACHE_HOME:-$HOME/.cache}/bootrig/lava-unavailable

installed() { dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q '^install ok installed'; }

# install_lava: the LAVA section; returns non-zero with the reason in
# $LAVA_REASON (and on stderr) when a package cannot be installed.
install_lava() {
	lmissing=""
	for p in $LAVA_PACKAGES; do installed "$p" || lmissing="$lmissing $p"; done
	if [ -z "$lmissing" ]; then
		rm -f "$LAVA_REASON"
		return 0
	fi
	mkdir -p "$(dirname "$LAVA_REASON")"
	log=$(mktemp)
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >"$log" 2>&1 || echo "install-deps: apt-get update reported errors; going on" >&2
	# PostgreSQL first: lava-server's postinst needs the cluster up.
	installed postgresql-15 || apt-get install -y -qq --no-install-recommends postgresql-15 >>"$log" 2>&1 || {
		lava_failed "postgresql-15 did not install: $(tail -n 2 "$log" | tr '\n' ' ')" "$log"
		return 1
	}
	started=""
	if command -v pg_lsclusters >/dev/null && pg_lsclusters -h 2>/dev/null | awk '$1 == 15 && $2 == "main"' | grep -q down; then
		pg_ctlcluster 15 main start >>"$log" 2>&1 && started=yes
	fi
	rc=0
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $lmissing >>"$log" 2>&1 || rc=$?
	[ -n "$started" ] && pg_ctlcluster 15 main stop >/dev/null 2>&1
	if [ "$rc" -ne 0 ]; then
		lava_failed "apt-get install$lmissing failed: $(grep -E '^(E:|dpkg: error)' "$log" | head -n 2 | tr '\n' ' ')" "$log"
		return 1
	fi
	rm -f "$log" "$LAVA_REASON"
	echo "install-deps: LAVA installed (lava-server $(dpkg-query -W -f='${Version}' lava-server))" >&2
}
lava_failed() {
	printf '%s\n' "$1" >"$LAVA_REASON"
	echo "install-deps: LAVA not installed: $1 (apt's output: $2); the LAVA tests will skip with this reason" >&2
}

if [ "$mode" = lava ]; then
	install_lava
	exit
fi

PACKAGES="
  build-essential pkg-config file cpio gzip xz-utils zstd
  gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf binutils-aarch64-linux-gnu libc6-dev-arm64-cross
  libconfig-dev libjson-c-dev zlib1g-dev libdeflate-dev libcmocka-dev libvirt-dev libguestfs-dev
  nettle-dev liblzma-dev jq libsqlite3-dev sqlite3 libcurl4-openssl-dev
  qemu-system-arm qemu-system-x86 qemu-user qemu-utils
  libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients
  libguestfs0 linux-image-amd64 supermin
  u-boot-qemu libxml2-utils clang clang-19 libclang-rt-19-dev
  chromium man-db groff-base time
  linux-source-6.1 flex bison bc libelf-dev
  libelf1 python3-jsonschema
"

missing=""
for p in $PACKAGES; do
	installed "$p" || missing="$missing $p"
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

# LAVA last, optional: nothing above depends on it, and its failure does not
# fail this script (set -e does not reach into a function called by ||).
[ "$mode" = all ] && { install_lava || true; }
exit 0
