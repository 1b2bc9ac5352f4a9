# bootrig: build, run and compare Linux kernels on every userspace ABI.
#
#   make            build/bootrig and the guest binaries in build/guest/<abi>/
#   make check      every test; ends with "N passed, N failed[, N skipped]"
#   make demo       the main job end to end on real Debian kernels
#   make bench      performance figures, each against a baseline run here
#   make install    PREFIX (/usr/local) and DESTDIR honoured
#
# Host sources are found by wildcard: a new .c file in lib/, judge/, builder/,
# runner/ or compare/ is part of build/bootrig without touching this file. The guest
# side has its own fragment, initramfs/guest.mk.

VERSION   := 0.1.0
PREFIX    ?= /usr/local
DESTDIR   ?=
BUILD     := build

CC        ?= gcc

# One short line per step, the kernel's way ("  CC      build/host/lib/util.o");
# make V=1 prints the whole commands instead.
V ?= 0
ifeq ($(V),1)
say =
else
say = @printf '  %-7s %s\n' '$(1)' '$(2)';
MAKEFLAGS += --no-print-directory
endif
# The core libraries every command links; libvirt and libguestfs are linked
# only into the plugin modules (below, and lib/module.h).
CORE_PKGS := libconfig json-c zlib libdeflate nettle liblzma sqlite3
PKGS      := $(CORE_PKGS) libvirt libguestfs libcurl
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(CORE_PKGS) 2>/dev/null)
VIRT_LIBS  := $(shell pkg-config --libs libvirt 2>/dev/null)
GUESTFS_LIBS := $(shell pkg-config --libs libguestfs 2>/dev/null)
CURL_LIBS  := $(shell pkg-config --libs libcurl 2>/dev/null)

WARN      := -Wall -Wextra -Werror
CFLAGS    ?= -O2 -g
# Every host folder is on the include path; scripts that compile host
# sources themselves (tests/fuzz/run-fuzz.sh, scripts/bench.d/) take this
# list from here (make_var INCLUDES) rather than a copy of their own.
INCLUDES  := -Ilib -Ijudge -Ibuilder -Irunner -Irunner/board -Irunner/lava -Icompare
HOST_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(INCLUDES) \
	       -DBOOTRIG_VERSION='"$(VERSION)"' $(PKG_CFLAGS) -MMD -MP
# -rdynamic: the modules call back into the executable (util, judge...).
HOST_LIBS := $(PKG_LIBS) -lm -lpthread -ldl -rdynamic

# Plugin modules: sources built into shared objects that bootrig loads when
# a command needs them (lib/module.h), not into the executable. A module is
# the objects of its sources (compiled with -fPIC into build/module-obj/ or
# build/asan-module-obj/), linked with its library. Their public function
# is renamed module_<name> there; runner/backend.c and
# builder/sdimage-load.c define the usual name as a forwarder.
VIRT_SRCS    := $(filter-out %-def.c,$(sort $(wildcard runner/libvirt/*.c)))
GUESTFS_SRCS := builder/sdimage.c
# LAVA's module is the backend's operations (libcurl); its job writer and
# log reader (the rest of runner/lava/) are host sources, for --lava-job-only.
LAVA_SRCS    := runner/lava/lava.c
MODULE_SRCS  := $(VIRT_SRCS) $(GUESTFS_SRCS) $(LAVA_SRCS)
MODULE_CFLAGS := -fPIC -Dbackend_libvirt_new=module_backend_libvirt_new \
	       -Dbuild_sd_image=module_build_sd_image -Dbackend_lava_new=module_backend_lava_new
MODULES     := $(BUILD)/modules/virt.so $(BUILD)/modules/guestfs.so $(BUILD)/modules/lava.so
SAN_MODULES := $(BUILD)/asan-modules/virt.so $(BUILD)/asan-modules/guestfs.so \
	       $(BUILD)/asan-modules/lava.so
# mod_objs(FLAVOUR,SRCS): a module's objects (FLAVOUR module-obj or asan-module-obj).
mod_objs = $(patsubst %.c,$(BUILD)/$(1)/%.o,$(2))
MODULE_OBJS := $(call mod_objs,module-obj,$(MODULE_SRCS)) \
	       $(call mod_objs,asan-module-obj,$(MODULE_SRCS))

HOST_SRCS := $(filter-out $(MODULE_SRCS),$(sort $(wildcard lib/*.c judge/*.c builder/*.c runner/*.c compare/*.c)))
MAIN_SRC  := lib/bootrig.c
# The backends' folders (runner/<backend>/, backend.h) are host sources too,
# but for those of a module.
HOST_SRCS += $(filter-out $(MODULE_SRCS),$(sort $(wildcard runner/*/*.c)))
LIB_SRCS  := $(filter-out $(MAIN_SRC),$(HOST_SRCS))

# Two flavours of the host objects: the release one and one built with
# AddressSanitizer and UBSan, which make check uses for the unit tests and
# for a second copy of the tool.
#
# SAN_CC compiles and links that flavour: clang 19, whose sanitizer runtime
# locks its allocator across fork() (pthread_atfork). gcc 12's libasan does
# not: a child forked while another thread held an allocator lock blocks
# in its first malloc(), and libvirt's embedded driver mallocs between
# fork and exec (glibc's malloc, which the release build uses, is safe
# there). tests/tools/forksafe.c measures it: 3 of 60 forks hung under gcc
# 12's ASan, 0 of 60 under clang 19's (t-forksafe.sh).
SAN_CC    ?= clang-19
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# The sanitized executable loads the sanitized modules (lib/module.c).
SAN_DEFS  := -DBOOTRIG_MODULE_DIR='"asan-modules"'
# ASan finds the real functions behind its interceptors when it starts: the
# libraries of the modules that define some (libtirpc: xdr_*, used by
# libguestfs and libvirt's RPC; libstdc++, libgcc_s) must be loaded then,
# not dlopen()ed later with a module (a NULL call). tests/t-modules.sh
# checks this list against the modules' libraries.
SAN_LIBS  := -Wl,--no-as-needed -l:libtirpc.so.3 -l:libstdc++.so.6 -l:libgcc_s.so.1 -Wl,--as-needed

HOST_OBJS := $(patsubst %.c,$(BUILD)/host/%.o,$(HOST_SRCS))
SAN_OBJS  := $(patsubst %.c,$(BUILD)/asan/%.o,$(HOST_SRCS))
SAN_LIB_OBJS := $(patsubst %.c,$(BUILD)/asan/%.o,$(LIB_SRCS))
HOST_LIB_OBJS := $(patsubst %.c,$(BUILD)/host/%.o,$(LIB_SRCS))

UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))

.PHONY: all host guest check unit deps demo bench fuzz install clean
all: host guest

host: $(BUILD)/bootrig $(MODULES)

$(BUILD)/bootrig: $(HOST_OBJS) | $(MODULES)
	$(call say,LD,$@)$(CC) $(HOST_CFLAGS) -o $@ $^ $(HOST_LIBS)

$(BUILD)/bootrig-asan: $(SAN_OBJS) | $(SAN_MODULES)
	$(call say,LD,$@)$(SAN_CC) $(HOST_CFLAGS) $(SAN_FLAGS) -o $@ $^ $(HOST_LIBS) $(SAN_LIBS)

# A module: its objects linked with its library (ld_module(CC,FLAGS,LIBS)).
ld_module = $(call say,LD,$@)mkdir -p $(dir $@) && $(1) $(HOST_CFLAGS) $(2) -shared -o $@ $^ $(3)

$(BUILD)/modules/virt.so: $(call mod_objs,module-obj,$(VIRT_SRCS))
	$(call ld_module,$(CC),,$(VIRT_LIBS))
$(BUILD)/modules/guestfs.so: $(call mod_objs,module-obj,$(GUESTFS_SRCS))
	$(call ld_module,$(CC),,$(GUESTFS_LIBS))
$(BUILD)/asan-modules/virt.so: $(call mod_objs,asan-module-obj,$(VIRT_SRCS))
	$(call ld_module,$(SAN_CC),$(SAN_FLAGS),$(VIRT_LIBS))
$(BUILD)/asan-modules/guestfs.so: $(call mod_objs,asan-module-obj,$(GUESTFS_SRCS))
	$(call ld_module,$(SAN_CC),$(SAN_FLAGS),$(GUESTFS_LIBS))
$(BUILD)/modules/lava.so: $(call mod_objs,module-obj,$(LAVA_SRCS))
	$(call ld_module,$(CC),,$(CURL_LIBS))
$(BUILD)/asan-modules/lava.so: $(call mod_objs,asan-module-obj,$(LAVA_SRCS))
	$(call ld_module,$(SAN_CC),$(SAN_FLAGS),$(CURL_LIBS))

$(BUILD)/module-obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) $(HOST_CFLAGS) $(MODULE_CFLAGS) -c -o $@ $<

$(BUILD)/asan-module-obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(SAN_CC) $(HOST_CFLAGS) $(SAN_FLAGS) $(SAN_DEFS) $(MODULE_CFLAGS) -c -o $@ $<

$(BUILD)/host/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) $(HOST_CFLAGS) -c -o $@ $<

$(BUILD)/asan/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(SAN_CC) $(HOST_CFLAGS) $(SAN_FLAGS) $(SAN_DEFS) -c -o $@ $<

# Unit tests: cmocka, linked with the sanitized host objects (not main()).
$(BUILD)/tests/%: tests/unit/%.c $(SAN_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(call say,CCLD,$@)$(SAN_CC) $(HOST_CFLAGS) $(SAN_FLAGS) -Itests/unit -o $@ $< $(SAN_LIB_OBJS) $(HOST_LIBS) $(SAN_LIBS) -lcmocka

# test_matrix_fake compiles the fake backend in (tests/unit/fake-backend.h).
$(BUILD)/tests/test_matrix_fake: tests/unit/fake-backend.c tests/unit/fake-backend.h
# test_osfault too, for a whole boot under injected faults.
$(BUILD)/tests/test_osfault: tests/unit/fake-backend.c tests/unit/fake-backend.h

# bootrig-fake: build/bootrig whose registry (runner/registry.c) has one more
# line, the fake backend (tests/unit/fake-def.c), which boots every run given
# BOOTRIG_FAKE_CONSOLE; for the test groups only (t-bisect-options).
FAKE_OBJS := $(filter-out $(BUILD)/host/runner/registry.o,$(HOST_OBJS)) \
	     $(BUILD)/fake/registry.o $(BUILD)/fake/fake-backend.o $(BUILD)/fake/fake-def.o
$(BUILD)/bootrig-fake: $(FAKE_OBJS) | $(MODULES)
	$(call say,LD,$@)$(CC) $(HOST_CFLAGS) -o $@ $^ $(HOST_LIBS)
$(BUILD)/fake/registry.o: runner/registry.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) $(HOST_CFLAGS) -DBOOTRIG_TEST_BACKEND=fake_backend_def -c -o $@ $<
$(BUILD)/fake/%.o: tests/unit/%.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) $(HOST_CFLAGS) -Itests/unit -c -o $@ $<

# test_stop compiles the guest's stopping rule as it is.
$(BUILD)/tests/test_stop: initramfs/bench/stop.c initramfs/bench/stop.h

# Test tools: small programs over the host objects that the shell test
# groups call (tests/tools/<name>.c -> build/tests/tools/<name>).
TOOL_SRCS := $(sort $(wildcard tests/tools/*.c))
TOOL_BINS := $(patsubst tests/tools/%.c,$(BUILD)/tests/tools/%,$(TOOL_SRCS))
$(BUILD)/tests/tools/%: tests/tools/%.c $(SAN_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(call say,CCLD,$@)$(SAN_CC) $(HOST_CFLAGS) $(SAN_FLAGS) -o $@ $< $(SAN_LIB_OBJS) $(HOST_LIBS) $(SAN_LIBS)

# guest-exec is a guest's /init as well as a host tool: static, plain gcc,
# no sanitizer (x86_64 guests; tests/lib.sh's gx_boot); guest-exec-aarch64
# the same, cross, the /init of arm64 guests (aarch64 and arm).
$(BUILD)/tests/tools/guest-exec: tests/tools/guest-exec.c
	@mkdir -p $(dir $@)
	$(call say,CCLD,$@)$(CC) -std=c11 -O2 -Wall -Wextra -Werror -static -o $@ $<
$(BUILD)/tests/tools/guest-exec-aarch64: tests/tools/guest-exec.c
	@mkdir -p $(dir $@)
	$(call say,CCLD,$@)aarch64-linux-gnu-gcc -std=c11 -O2 -Wall -Wextra -Werror -static -o $@ $<

unit: $(UNIT_BINS) $(TOOL_BINS) $(BUILD)/tests/tools/guest-exec-aarch64 $(SAN_MODULES) $(BUILD)/bootrig-fake

include initramfs/guest.mk

deps:
	@sh scripts/install-deps.sh

# make check: the dependency script, then every test group through one
# runner that counts TAP lines (tests/run-tests.sh).
NPROC     := $(shell nproc 2>/dev/null || echo 2)

check: deps
	$(MAKE) -j$(NPROC) all $(BUILD)/bootrig-asan unit
	@sh tests/run-tests.sh

demo: deps
	$(MAKE) -j$(NPROC) all
	@sh scripts/demo.sh

bench: deps
	$(MAKE) -j$(NPROC) all
	@sh scripts/bench.sh

fuzz:
	@sh tests/fuzz/run-fuzz.sh long

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/lib/bootrig/modules
	install -m 755 $(BUILD)/bootrig $(DESTDIR)$(PREFIX)/bin/bootrig
	install -m 644 $(MODULES) $(DESTDIR)$(PREFIX)/lib/bootrig/modules/
	install -m 644 bootrig.1 $(DESTDIR)$(PREFIX)/share/man/man1/bootrig.1
	cp -R configs $(DESTDIR)$(PREFIX)/lib/bootrig/
	for d in $(BUILD)/guest/*/; do \
		abi=$$(basename $$d); \
		install -d $(DESTDIR)$(PREFIX)/lib/bootrig/guest/$$abi; \
		find $$d -maxdepth 1 -type f -exec install -m 755 {} \
			$(DESTDIR)$(PREFIX)/lib/bootrig/guest/$$abi/ \; ; \
	done

clean:
	rm -rf $(BUILD)

-include $(HOST_OBJS:.o=.d) $(SAN_OBJS:.o=.d) $(MODULE_OBJS:.o=.d)
