# initramfs/guest.mk: the guest binaries, one set per ABI, in build/guest/<abi>/.
# (Filled in by the guest runtime work; see initramfs/PROTOCOL.md.)
guest:
	@mkdir -p $(BUILD)/guest
