#!/bin/sh
# t-build-boot.sh: what `bootrig build` makes boots for real. The cloud-arm64
# Debian kernel with the smoke initramfs under qemu-system-aarch64 (TCG),
# and the SD image (libguestfs: MBR, FAT, extlinux.conf) under U-Boot
# (u-boot-qemu) from a virtio disk; both must reach init's END record.
# QEMU runs directly here (no libvirt), bounded by timeout.
. "$(dirname "$0")/lib.sh"
set -u

kernel=$(kernel_path cloud-arm64)
tmp=$(mktemp -d /tmp/t-build-boot.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
unset SOURCE_DATE_EPOCH
uboot=/usr/lib/u-boot/qemu_arm64/u-boot.bin
end_re='@@BR 1 [0-9][0-9]* END '

# The SD image carries the DTB of the machine it boots on (QEMU dumps it),
# so extlinux.conf's FDT line is exercised too.
qemu_machine="-M virt -cpu cortex-a57 -m 512 -smp 1"
# shellcheck disable=SC2086
timeout 60 qemu-system-aarch64 $qemu_machine -machine dumpdtb="$tmp/virt.dtb" -accel tcg \
	-display none >/dev/null 2>&1
# The SD image needs one libguestfs launch (slow): start it first.
"$BOOTRIG" build --kernel "$kernel" --sd-image --dtb "$tmp/virt.dtb" -o "$tmp/sd.img" \
	>"$tmp/sd.out" 2>"$tmp/sd.err" &
sd_pid=$!

"$BOOTRIG" build --kernel "$kernel" -o "$tmp/smoke.img" >"$tmp/smoke.out" 2>"$tmp/smoke.err"
rc=$?
if [ $rc = 0 ]; then ok "smoke initramfs for cloud-arm64"
else not_ok "smoke initramfs for cloud-arm64" "exit $rc: $(cat "$tmp/smoke.err")"; fi

# boot LOG ARGS...: qemu-system-aarch64 on the virt machine, console to LOG.
boot() {
	log=$1; shift
	# shellcheck disable=SC2086
	timeout -k 5 300 qemu-system-aarch64 $qemu_machine -accel tcg \
		-display none -monitor none -serial "file:$log" -no-reboot "$@" >/dev/null 2>&1
}

if [ $rc = 0 ]; then
	boot "$tmp/direct.log" -kernel "$kernel" -initrd "$tmp/smoke.img" \
		-append "console=ttyAMA0 panic=-1"
	if grep -q "$end_re" "$tmp/direct.log"; then
		ok "the cloud-arm64 kernel boots the image to END ($(grep -c '@@BR' "$tmp/direct.log") records)"
	else
		not_ok "the cloud-arm64 kernel boots the image to END" \
			"$(grep -E 'Run /init|Kernel panic|@@BR|Failed' "$tmp/direct.log" | tail -n 5)"
	fi
fi

wait $sd_pid
rc=$?
if [ $rc = 0 ] && [ -s "$tmp/sd.img" ] && [ ! -e "$tmp/sd.img.tmp.$sd_pid" ]; then
	ok "--sd-image writes a disk image through libguestfs"
else
	not_ok "--sd-image writes a disk image" "exit $rc: $(tail -n 5 "$tmp/sd.err")"
fi
# extlinux.conf and the DTB are on the FAT partition (small files are stored
# whole: their text and 8.3 names show in the raw image). qemu_arm64's
# U-Boot has no fdt_addr_r, so it boots with QEMU's own DTB and skips FDT:
# the line is for real boards.
if grep -aq 'FDT /virt.dtb' "$tmp/sd.img" && grep -aq 'APPEND console=ttyAMA0 panic=-1' "$tmp/sd.img" &&
	grep -aq 'VIRT    DTB' "$tmp/sd.img"; then
	ok "extlinux.conf has FDT and APPEND lines; the DTB is on the partition"
else
	not_ok "extlinux.conf and the DTB on the partition"
fi
# The partition table: one bootable FAT32-LBA partition (type c).
if LC_ALL=C sfdisk -d "$tmp/sd.img" 2>/dev/null | grep -q 'type=c, bootable'; then
	ok "the SD image has an MBR with one bootable FAT partition"
else
	not_ok "the SD image's partition table" "$(LC_ALL=C sfdisk -d "$tmp/sd.img" 2>&1 | tail -n 3)"
fi
if [ $rc = 0 ]; then
	boot "$tmp/sd.log" -bios "$uboot" \
		-drive "if=none,file=$tmp/sd.img,format=raw,id=d" -device virtio-blk-device,drive=d
	if grep -q 'Retrieving file: /extlinux/extlinux.conf' "$tmp/sd.log" &&
		grep -q 'Linux version' "$tmp/sd.log"; then
		ok "U-Boot's distro boot reads extlinux.conf and starts the kernel"
	else
		not_ok "U-Boot's distro boot reads extlinux.conf" "$(tail -n 5 "$tmp/sd.log")"
	fi
	if grep -q "$end_re" "$tmp/sd.log"; then
		ok "the SD image boots under U-Boot to END"
	else
		not_ok "the SD image boots under U-Boot to END" \
			"$(grep -E 'Run /init|Kernel panic|@@BR|Failed' "$tmp/sd.log" | tail -n 5)"
	fi
fi
