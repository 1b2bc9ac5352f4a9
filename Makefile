# bootrig: build, run and compare Linux kernels on every userspace ABI.
#
#   make            build/bootrig and the guest binaries in build/guest/<abi>/
#   make check      every test; ends with "N passed, N failed[, N skipped]"
#   make demo       the main job end to end on real Debian kernels
#   make bench      performance figures, each against a baseline run here
#   make install    PREFIX (/usr/local) and DESTDIR honoured
#
# Host sources are found by wildcard: a new .c file in lib/, builder/, runner/
# or compare/ is part of build/bootrig without touching this file. The guest
# side has its own fragment, initramfs/guest.mk.

VERSION   := 0.1.0
PREFIX    ?= /usr/local
DESTDIR   ?=
BUILD     := build

CC        ?= gcc
PKGS      := libconfig json-c zlib libvirt libguestfs libcrypto liblzma
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

WARN      := -Wall -Wextra -Werror
CFLAGS    ?= -O2 -g
HOST_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -Ilib -Ibuilder -Irunner -Icompare \
	       -DBOOTRIG_VERSION='"$(VERSION)"' $(PKG_CFLAGS) -MMD -MP
HOST_LIBS := $(PKG_LIBS) -lm -lpthread

HOST_SRCS := $(sort $(wildcard lib/*.c builder/*.c runner/*.c compare/*.c))
MAIN_SRC  := lib/bootrig.c
LIB_SRCS  := $(filter-out $(MAIN_SRC),$(HOST_SRCS))

# Two flavours of the host objects: the release one and one built with
# AddressSanitizer and UBSan, which make check uses for the unit tests and
# for a second copy of the tool.
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

HOST_OBJS := $(patsubst %.c,$(BUILD)/host/%.o,$(HOST_SRCS))
SAN_OBJS  := $(patsubst %.c,$(BUILD)/asan/%.o,$(HOST_SRCS))
SAN_LIB_OBJS := $(patsubst %.c,$(BUILD)/asan/%.o,$(LIB_SRCS))

UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))

.PHONY: all host guest check unit deps demo bench fuzz install clean
all: host guest

host: $(BUILD)/bootrig

$(BUILD)/bootrig: $(HOST_OBJS)
	$(CC) $(HOST_CFLAGS) -o $@ $^ $(HOST_LIBS)

$(BUILD)/bootrig-asan: $(SAN_OBJS)
	$(CC) $(HOST_CFLAGS) $(SAN_FLAGS) -o $@ $^ $(HOST_LIBS)

$(BUILD)/host/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -c -o $@ $<

$(BUILD)/asan/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(SAN_FLAGS) -c -o $@ $<

# Unit tests: cmocka, linked with the sanitized host objects (not main()).
$(BUILD)/tests/%: tests/unit/%.c $(SAN_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(SAN_FLAGS) -Itests/unit -o $@ $< $(SAN_LIB_OBJS) $(HOST_LIBS) -lcmocka

# Test tools: small programs over the host objects that the shell test
# groups call (tests/tools/<name>.c -> build/tests/tools/<name>).
TOOL_SRCS := $(sort $(wildcard tests/tools/*.c))
TOOL_BINS := $(patsubst tests/tools/%.c,$(BUILD)/tests/tools/%,$(TOOL_SRCS))
$(BUILD)/tests/tools/%: tests/tools/%.c $(SAN_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(SAN_FLAGS) -o $@ $< $(SAN_LIB_OBJS) $(HOST_LIBS)

unit: $(UNIT_BINS) $(TOOL_BINS)

include initramfs/guest.mk

deps:
	@sh scripts/install-deps.sh

# make check: the dependency script, then every test group through one
# runner that counts TAP lines (tests/run-tests.sh).
check: deps
	$(MAKE) all $(BUILD)/bootrig-asan unit
	@sh tests/run-tests.sh

demo: deps
	$(MAKE) all
	@sh scripts/demo.sh

bench: deps
	$(MAKE) all
	@sh scripts/bench.sh

fuzz:
	@sh tests/fuzz/run-fuzz.sh long

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/lib/bootrig
	install -m 755 $(BUILD)/bootrig $(DESTDIR)$(PREFIX)/bin/bootrig
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

-include $(HOST_OBJS:.o=.d) $(SAN_OBJS:.o=.d)
