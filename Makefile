# SPDX-License-Identifier: GPL-2.0
#
# ntkl top-level Makefile.
#   make               module for the newest installed kernel headers + userspace tools
#   make modules-all   module for every installed kernel (and the debug kernel) with W=1
#   make check         every test: builds, checkpatch, sparse, unit tests, VM tests
#   make bench         the cost of recording context switches, in one test VM boot
#   make fuzz          the ETL readers under libFuzzer for FUZZ_SECONDS (600)
#   make soak          control chaos, load, hotplug and reader kills in one test VM
#                      for DURATION (10m; SOAK_KERNEL: vm-run's default kernel)
#   make install       install ntkl.ko for KVER, the ntkl command and the udev rule
#                      (/dev/ntkl for the group tracing)

BUILD     := $(CURDIR)/build
KVERS     := $(shell scripts/kernels)
KVER      ?= $(lastword $(KVERS))
KDIR      ?= $(shell scripts/kernels --dir $(KVER))
PREFIX    ?= /usr/local

.PHONY: all module modules-all userspace selftests check unit-test vm-test \
	checkpatch sparse install uninstall clean debug-kernel kernel-tools bench fuzz soak

all: module userspace

# Kbuild writes its objects next to the sources, so each kernel gets its own
# copy of the module sources under build/ko/<kernel>/. Recipes that run a
# script which runs make start with '+', so a parallel make (make -j4)
# hands its jobserver down instead of warning that it cannot.
module:
	+scripts/build-module $(KVER)

modules-all:
	+scripts/build-module --all

userspace:
	$(MAKE) -C userspace BUILD=$(BUILD)

selftests: kernel-tools
	$(MAKE) -C selftests BUILD=$(BUILD)

kernel-tools:
	scripts/kernel-tools

debug-kernel:
	+scripts/build-debug-kernel

vm-test: modules-all selftests userspace
	+scripts/vm-test

unit-test: userspace
	$(MAKE) -C userspace BUILD=$(BUILD) test

check:
	+scripts/check

bench:
	+scripts/bench

# The ETL readers under libFuzzer (make check runs them for a minute).
FUZZ_SECONDS ?= 600
fuzz:
	$(MAKE) -C userspace BUILD=$(BUILD) fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)

# Not part of make check: scripts/soak says what it runs and checks.
DURATION ?= 10m
soak: modules-all selftests userspace
	+scripts/soak --duration $(DURATION) $(if $(SOAK_KERNEL),--kernel $(SOAK_KERNEL))

install: module userspace
	install -D -m 0644 $(BUILD)/ko/$(KVER)/ntkl.ko \
		$(DESTDIR)/lib/modules/$(KVER)/extra/ntkl.ko
	install -D -m 0755 $(BUILD)/userspace/ntkl $(DESTDIR)$(PREFIX)/bin/ntkl
	install -D -m 0644 udev/60-ntkl.rules $(DESTDIR)/etc/udev/rules.d/60-ntkl.rules
	[ -n "$(DESTDIR)" ] || depmod -a $(KVER)
	[ -n "$(DESTDIR)" ] || getent group tracing >/dev/null || groupadd --system tracing
	[ -n "$(DESTDIR)" ] || ! command -v udevadm >/dev/null || \
		{ udevadm control --reload && udevadm trigger --name-match=ntkl; }

uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KVER)/extra/ntkl.ko $(DESTDIR)$(PREFIX)/bin/ntkl \
		$(DESTDIR)/etc/udev/rules.d/60-ntkl.rules
	[ -n "$(DESTDIR)" ] || depmod -a $(KVER)

clean:
	rm -rf $(BUILD)/ko $(BUILD)/userspace $(BUILD)/selftests $(BUILD)/tests
	$(MAKE) -C userspace BUILD=$(BUILD) clean
