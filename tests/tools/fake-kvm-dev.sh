#!/bin/sh
# fake-kvm-dev.sh CMD...: runs CMD in a mount namespace of its own (call it
# under unshare -m) whose /dev is a tmpfs holding the host's device nodes
# and mounts, plus a /dev/kvm where the host has none: a node that opens
# and answers every ioctl with ENOTTY (/dev/null's device, 1:3), enough
# for libvirt's checks (access, and KVM_CHECK_EXTENSION for the vCPU
# limit, which then falls back to 4). No emulator may open it: the
# stand-ins of tests/t-accel.sh run every boot under TCG. A host's real
# /dev/kvm is kept as it is. Nothing outside the namespace changes.
set -eu
d=$(mktemp -d /tmp/fake-kvm-dev.XXXXXX)
mount --make-rprivate /
mkdir "$d/old"
mount --rbind /dev "$d/old"
mount -t tmpfs -o mode=755 fake-kvm-dev /dev
for f in "$d/old"/* "$d/old"/.[!.]*; do
	[ -e "$f" ] || [ -L "$f" ] || continue
	if [ -d "$f" ] && [ ! -L "$f" ]; then
		mkdir "/dev/${f##*/}"
		mount --rbind "$f" "/dev/${f##*/}"
	else
		cp -a "$f" /dev/
	fi
done
[ -e /dev/kvm ] || mknod -m 666 /dev/kvm c 1 3
umount -l "$d/old"
rmdir "$d/old" "$d"
exec "$@"
