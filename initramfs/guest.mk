# initramfs/guest.mk: the guest binaries, one set per ABI, in build/guest/<abi>/.
#
#   build/guest/<abi>/probe      exits 0: init execs it to learn whether the
#                                kernel runs the ABI (initramfs/probe.c)
#   build/guest/<abi>/<test>     one per initramfs/tests/<test>.c, linked with
#                                initramfs/bench/*.c (a new test needs no edit here)
#   build/guest/<abi>/init       the PID-1 init, for the native ABIs only
#                                (aarch64, x86_64, arm): initramfs/init.c and
#                                its parts initramfs/init-*.c (init.h)
#   build/guest-selftest/<abi>/rt-selftest   the runtime's own test (not
#                                shipped in images)
#
#   build/guest-selftest/aarch64/peer   make bench's PID 1 for peer programs
#                                (initramfs/peer.c, not shipped in images)
#
# Everything is freestanding (initramfs/rt/, no libc), static and stripped,
# but for the test binaries' own symbol tables (.symtab: the profile pass
# names their functions from /proc/self/exe, initramfs/bench/profile.h):
# they lose only debug sections.
#
#   build/guest-selftest/<abi>/profile-selftest   the profiler's pure parts
#                                (initramfs/profile-selftest.c, not shipped)
# One source tree for six ABIs: only GUEST_CC_<abi> and the link differ.
# Objects go to build/guest/<abi>/obj/.

GUEST_ABIS   := x86_64 x32 i386 aarch64 aarch64_ilp32 arm
GUEST_NATIVE := x86_64 aarch64 arm

GUEST_CC_x86_64        := gcc -m64
GUEST_CC_x32           := gcc -mx32
GUEST_CC_i386          := gcc -m32 -march=i686
GUEST_CC_aarch64       := aarch64-linux-gnu-gcc -mno-outline-atomics
GUEST_CC_aarch64_ilp32 := aarch64-linux-gnu-gcc -mabi=ilp32 -mno-outline-atomics
GUEST_CC_arm           := arm-linux-gnueabihf-gcc -marm -march=armv7-a -mfpu=vfpv3-d16 -mfloat-abi=hard

# Compiler helpers (64-bit division...): the toolchain's libgcc where it
# has one for the ABI, else initramfs/rt/libgcc.c.
GUEST_LIBS_x86_64  := -lgcc
GUEST_LIBS_aarch64 := -lgcc
GUEST_LIBS_arm     := -lgcc
GUEST_RT_EXTRA_i386          := libgcc
GUEST_RT_EXTRA_x32           := libgcc
GUEST_RT_EXTRA_aarch64_ilp32 := libgcc
GUEST_RT_EXTRA_arm           := arch/arm-libgcc

# The runtime and bench library (never timed) in the tiny code model on
# arm64: one ADR for an address instead of ADRP+ADD (binaries < 1 MB).
GUEST_SMALL_aarch64       := -mcmodel=tiny
GUEST_SMALL_aarch64_ilp32 := -mcmodel=tiny
GUEST_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -ffreestanding -fno-builtin \
	-fno-stack-protector -fno-asynchronous-unwind-tables -fno-unwind-tables \
	-fno-pie -fno-pic -fno-tree-loop-distribute-patterns \
	-ffunction-sections -fdata-sections -fno-ident -Iinitramfs/rt -Iinitramfs/bench
GUEST_STRIP_DEBUG := -Wl,--strip-debug
GUEST_LDFLAGS = -nostdlib -static -no-pie -Wl,--gc-sections -Wl,--build-id=none -Wl,-z,noseparate-code \
	$(if $(GUEST_KEEP_SYMS),$(GUEST_STRIP_DEBUG),-s)
GUEST_LINK_aarch64_ilp32 = aarch64-linux-gnu-ld -m aarch64linux32 -static --gc-sections -z noseparate-code \
	--build-id=none $(if $(GUEST_KEEP_SYMS),--strip-debug,-s) -o $@ $^

GUEST_RT_SRCS   := start sys string format thread alloc
GUEST_HDRS      := $(wildcard initramfs/rt/*.h initramfs/rt/arch/*.h initramfs/bench/*.h initramfs/*.h)
GUEST_INIT      := $(sort $(patsubst initramfs/%.c,%,$(wildcard initramfs/init.c initramfs/init-*.c)))
GUEST_TESTS     := $(sort $(patsubst initramfs/tests/%.c,%,$(wildcard initramfs/tests/*.c)))
GUEST_BENCH_LIB := $(sort $(patsubst initramfs/%.c,%,$(wildcard initramfs/bench/*.c)))

# guest_abi ABI: the objects, programs and rules of one ABI.
define guest_abi
GUEST_DIR_$(1)  := $(BUILD)/guest/$(1)
GUEST_RT_$(1)   := $$(patsubst %,$(BUILD)/guest/$(1)/obj/rt/%.o,$(GUEST_RT_SRCS) $(GUEST_RT_EXTRA_$(1)))
GUEST_LIB_$(1)  := $$(patsubst %,$(BUILD)/guest/$(1)/obj/%.o,$(GUEST_BENCH_LIB))
GUEST_INIT_$(1) := $$(patsubst %,$(BUILD)/guest/$(1)/obj/%.o,$(GUEST_INIT))
GUEST_BINS_$(1) := $(BUILD)/guest/$(1)/probe $$(patsubst %,$(BUILD)/guest/$(1)/%,$(GUEST_TESTS)) \
	$$(if $$(filter $(1),$(GUEST_NATIVE)),$$(if $$(wildcard initramfs/init.c),$(BUILD)/guest/$(1)/init))
GUEST_LINK_$(1) ?= $$(GUEST_CC_$(1)) $$(GUEST_LDFLAGS) -o $$@ $$^ $$(GUEST_LIBS_$(1))

$(BUILD)/guest/$(1)/obj/%.o: initramfs/%.c $$(GUEST_HDRS)
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$@)$$(GUEST_CC_$(1)) $$(GUEST_CFLAGS) -c -o $$@ $$<

# The runtime is built for size: nothing measured runs in it (the system
# call wrappers inline the trap either way).
$(BUILD)/guest/$(1)/obj/rt/%.o: initramfs/rt/%.c $$(GUEST_HDRS)
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$@)$$(GUEST_CC_$(1)) $$(GUEST_CFLAGS) -Os $$(GUEST_SMALL_$(1)) -c -o $$@ $$<

# The bench library too: it only wraps the timed loops, which live in
# initramfs/tests/*.c and keep -O2.
$(BUILD)/guest/$(1)/obj/bench/%.o: initramfs/bench/%.c $$(GUEST_HDRS)
	@mkdir -p $$(dir $$@)
	$$(call say,CC,$$@)$$(GUEST_CC_$(1)) $$(GUEST_CFLAGS) -Os $$(GUEST_SMALL_$(1)) -c -o $$@ $$<

$(BUILD)/guest/$(1)/probe: $(BUILD)/guest/$(1)/obj/probe.o $$(GUEST_RT_$(1))
	$$(call say,LD,$$@)$$(GUEST_LINK_$(1))

$(BUILD)/guest/$(1)/init: $$(GUEST_INIT_$(1)) $(BUILD)/guest/$(1)/obj/bench/symtab.o $$(GUEST_RT_$(1))
	$$(call say,LD,$$@)$$(GUEST_LINK_$(1))

# The test binaries keep their symbols (the profile names their functions).
$$(patsubst %,$(BUILD)/guest/$(1)/%,$(GUEST_TESTS)) $(BUILD)/guest-selftest/$(1)/profile-selftest: \
	GUEST_KEEP_SYMS = 1

$(BUILD)/guest/$(1)/%: $(BUILD)/guest/$(1)/obj/tests/%.o $$(GUEST_LIB_$(1)) $$(GUEST_RT_$(1))
	$$(call say,LD,$$@)$$(GUEST_LINK_$(1))

# The runtime's self-test, outside the image directory (tests/t-guest-rt.sh).
$(BUILD)/guest-selftest/$(1)/rt-selftest: $(BUILD)/guest/$(1)/obj/rt/selftest.o $$(GUEST_RT_$(1))
	@mkdir -p $$(dir $$@)
	$$(call say,LD,$$@)$$(GUEST_LINK_$(1))

# Objects are kept (not intermediate), so a rebuild relinks only.
.SECONDARY: $$(GUEST_RT_$(1)) $$(GUEST_LIB_$(1)) $(BUILD)/guest/$(1)/obj/probe.o \
	$$(GUEST_INIT_$(1)) $(BUILD)/guest/$(1)/obj/rt/selftest.o $$(patsubst %,$(BUILD)/guest/$(1)/obj/tests/%.o,$(GUEST_TESTS))

# The profiler's self-test (tests/t-guest-profile.sh): its pure parts.
$(BUILD)/guest-selftest/$(1)/profile-selftest: $(BUILD)/guest/$(1)/obj/profile-selftest.o \
		$(BUILD)/guest/$(1)/obj/bench/symtab.o $(BUILD)/guest/$(1)/obj/bench/fold.o $$(GUEST_RT_$(1))
	@mkdir -p $$(dir $$@)
	$$(call say,LD,$$@)$$(GUEST_LINK_$(1))
.SECONDARY: $(BUILD)/guest/$(1)/obj/profile-selftest.o

guest: $$(GUEST_BINS_$(1)) $(BUILD)/guest-selftest/$(1)/rt-selftest $(BUILD)/guest-selftest/$(1)/profile-selftest
endef
$(foreach abi,$(GUEST_ABIS),$(eval $(call guest_abi,$(abi))))

guest:
	@mkdir -p $(BUILD)/guest

# The ILP32 trap test (tests/t-guest-ilp32.sh), never in an image: the LP64
# loader ilp32_trap (linked above 4 GiB: its own system calls are the ones
# its seccomp filter allows) and rt-selftest-wrong, the ILP32 self-test
# with the deliberately wrong ftruncate64 wrapper (RT_ILP32_WRONG_PAIRS).
ILP32_TRAP  := $(BUILD)/guest-selftest/aarch64/ilp32_trap
ILP32_WRONG := $(BUILD)/guest-selftest/aarch64_ilp32/rt-selftest-wrong
$(ILP32_TRAP): $(BUILD)/guest/aarch64/obj/ilp32_trap.o $(GUEST_RT_aarch64)
	@mkdir -p $(dir $@)
	$(call say,LD,$@)$(GUEST_CC_aarch64) $(GUEST_LDFLAGS) -Wl,-Ttext-segment=0x7000000000 -o $@ $^ $(GUEST_LIBS_aarch64)
$(BUILD)/guest-selftest/aarch64_ilp32/wrong/sys.o: initramfs/rt/sys.c $(GUEST_HDRS)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(GUEST_CC_aarch64_ilp32) $(GUEST_CFLAGS) -Os -DRT_ILP32_WRONG_PAIRS -c -o $@ $<
$(ILP32_WRONG): $(BUILD)/guest/aarch64_ilp32/obj/rt/selftest.o \
		$(filter-out %/rt/sys.o,$(GUEST_RT_aarch64_ilp32)) $(BUILD)/guest-selftest/aarch64_ilp32/wrong/sys.o
	$(call say,LD,$@)$(GUEST_LINK_aarch64_ilp32)
.SECONDARY: $(BUILD)/guest/aarch64/obj/ilp32_trap.o $(BUILD)/guest-selftest/aarch64_ilp32/wrong/sys.o
guest: $(ILP32_TRAP) $(ILP32_WRONG)

# make bench's peer PID 1 (initramfs/peer.c, scripts/bench.d/12-hackbench-peer.sh),
# never in an image.
PEER_INIT := $(BUILD)/guest-selftest/aarch64/peer
$(PEER_INIT): $(BUILD)/guest/aarch64/obj/peer.o $(GUEST_RT_aarch64)
	@mkdir -p $(dir $@)
	$(call say,LD,$@)$(GUEST_CC_aarch64) $(GUEST_LDFLAGS) -o $@ $^ $(GUEST_LIBS_aarch64)
.SECONDARY: $(BUILD)/guest/aarch64/obj/peer.o
guest: $(PEER_INIT)
