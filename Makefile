# SPDX-License-Identifier: GPL-2.0
#
# ntkl top-level Makefile.
#   make               module for the running kernel (the newest installed kernel
#                      headers when the running kernel's are not installed) + ntkl
#   make modules-all   module for every installed kernel (and the debug kernel) with W=1
#   make check         every test: builds, checkpatch, sparse, unit tests, VM tests
#   make bench         the cost of recording context switches, in one test VM boot
#                      (BENCH_BOOTS=3: three boots, their switch rows side by side)
#   make fuzz          the ETL readers under libFuzzer for FUZZ_SECONDS (600);
#                      FUZZ_SEED=N replays the run a FAIL line names
#   make soak          control chaos, load, hotplug and reader kills in one test VM
#                      for DURATION (10m; SOAK_KERNEL: vm-run's default kernel)
#   make install       install ntkl.ko for KVER, the ntkl command, its man page,
#                      bash completion, the udev rule (/dev/ntkl for the group
#                      tracing), the tmpfiles rule of /run/ntkl, and libntkl (shared
#                      and static library, libntkl.h, libntkl.pc) under PREFIX; under
#                      sudo it builds as the invoking user, so build/ gets no
#                      root-owned files

# make splits paths at blanks, and Kbuild's M= cannot be quoted: a checkout
# whose path has one fails later with "No rule to make target", so say so.
ifneq ($(words $(CURDIR)),1)
$(error ntkl: cannot build in "$(CURDIR)": make and Kbuild cannot take a path with blanks; move the checkout to one without)
endif

BUILD     := $(CURDIR)/build
KVERS     := $(shell scripts/kernels)
RUNNING   := $(shell uname -r)
KVER      ?= $(if $(filter $(RUNNING),$(KVERS)),$(RUNNING),$(shell scripts/kernels --default))
KDIR      ?= $(shell scripts/kernels --dir $(KVER))
PREFIX    ?= /usr/local
# libntkl's version, as userspace/Makefile's
UM_VERSION := 0.1

.PHONY: all module modules-all userspace selftests check unit-test vm-test \
	checkpatch sparse install uninstall clean debug-kernel kernel-tools bench fuzz soak

all: module userspace

# Before scripts/install-deps, the build stopped deep inside with
# "liburing.h: No such file": one line first, naming the missing packages.
# LIBRARY:PACKAGE: the libraries the ntkl command links statically (their
# packages have the headers too), as $(CC) -print-file-name finds them.
BUILD_DEPS := libc.a:libc6-dev liburing.a:liburing-dev libiberty.a:libiberty-dev
ifneq ($(filter all module modules-all userspace unit-test install fuzz,$(or $(MAKECMDGOALS),all)),)
BUILD_MISSING := $(shell command -v $(firstword $(CC)) >/dev/null 2>&1 || echo gcc) \
	$(if $(shell command -v $(firstword $(CC)) 2>/dev/null),$(foreach d,$(BUILD_DEPS),$(if \
	$(filter /%,$(shell $(CC) -print-file-name=$(firstword $(subst :, ,$(d))) 2>/dev/null)),,$(lastword $(subst :, ,$(d)))))) \
	$(if $(filter module modules-all all install,$(or $(MAKECMDGOALS),all)),$(if $(KVERS),,linux-headers-$(RUNNING)))
ifneq ($(strip $(BUILD_MISSING)),)
$(error ntkl: cannot build yet: missing $(strip $(BUILD_MISSING)): sudo scripts/install-deps --native installs them (--minimal for the test VM too))
endif
endif

# Kbuild writes its objects next to the sources, so each kernel gets its own
# copy of the module sources under build/ko/<kernel>/. Recipes that run a
# script which runs make start with '+', so a parallel make (make -j4)
# hands its jobserver down instead of warning that it cannot.
module:
	+scripts/build-module $(KVER)

modules-all:
	+scripts/build-module --all

userspace:
	$(MAKE) -C userspace BUILD=$(BUILD) PREFIX=$(PREFIX)

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

BENCH_BOOTS ?= 1
bench:
	+scripts/bench --boots $(BENCH_BOOTS)

# The ETL readers under libFuzzer (make check runs them for a minute).
FUZZ_SECONDS ?= 600
fuzz:
	$(MAKE) -C userspace BUILD=$(BUILD) fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)

# Not part of make check: scripts/soak says what it runs and checks.
DURATION ?= 10m
soak: modules-all selftests userspace
	+scripts/soak --duration $(DURATION) $(if $(SOAK_KERNEL),--kernel $(SOAK_KERNEL))

# sudo make install: build as the user who ran sudo (build/ stays theirs),
# then install as root from what was built.
install:
	+$(if $(SUDO_USER),runuser -u $(SUDO_USER) --) $(MAKE) module userspace KVER=$(KVER)
	install -D -m 0644 $(BUILD)/ko/$(KVER)/ntkl.ko \
		$(DESTDIR)/lib/modules/$(KVER)/extra/ntkl.ko
	install -D -m 0755 $(BUILD)/userspace/ntkl $(DESTDIR)$(PREFIX)/bin/ntkl
	install -D -m 0644 udev/60-ntkl.rules $(DESTDIR)/etc/udev/rules.d/60-ntkl.rules
	install -D -m 0644 udev/ntkl-tmpfiles.conf $(DESTDIR)/usr/lib/tmpfiles.d/ntkl.conf
	install -D -m 0644 docs/man/ntkl.1 $(DESTDIR)$(PREFIX)/share/man/man1/ntkl.1
	install -D -m 0644 completion/ntkl \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/ntkl
	install -D -m 0755 $(BUILD)/userspace/libntkl.so.$(UM_VERSION) \
		$(DESTDIR)$(PREFIX)/lib/libntkl.so.$(UM_VERSION)
	ln -sf libntkl.so.$(UM_VERSION) $(DESTDIR)$(PREFIX)/lib/libntkl.so.0
	ln -sf libntkl.so.0 $(DESTDIR)$(PREFIX)/lib/libntkl.so
	install -D -m 0644 $(BUILD)/userspace/libntkl.a $(DESTDIR)$(PREFIX)/lib/libntkl.a
	install -D -m 0644 userspace/libntkl/libntkl.h $(DESTDIR)$(PREFIX)/include/libntkl.h
	install -D -m 0644 $(BUILD)/userspace/libntkl.pc \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig/libntkl.pc
	[ -n "$(DESTDIR)" ] || depmod -a $(KVER)
	[ -n "$(DESTDIR)" ] || ! command -v ldconfig >/dev/null || ldconfig
	[ -n "$(DESTDIR)" ] || getent group tracing >/dev/null || groupadd --system tracing
	[ -n "$(DESTDIR)" ] || ! command -v systemd-tmpfiles >/dev/null || \
		systemd-tmpfiles --create ntkl.conf
	# the new rule for a /dev/ntkl there now (udevadm trigger fails on a
	# name that is not there: ntkl.ko not loaded, the rule applies at load)
	[ -n "$(DESTDIR)" ] || ! command -v udevadm >/dev/null || \
		{ udevadm control --reload && \
		  { [ ! -e /sys/class/misc/ntkl ] || udevadm trigger --name-match=ntkl; }; }
	# last, so that all else is installed if it fails (no key: it says
	# how to make one): a kernel that loads only signed modules (Secure
	# Boot) needs ntkl.ko signed with the machine's key
	[ -n "$(DESTDIR)" ] || ! scripts/module-key needed >/dev/null || \
		scripts/module-key sign $(DESTDIR)/lib/modules/$(KVER)/extra/ntkl.ko \
			$(DESTDIR)/lib/modules/$(KVER)/extra/ntkl.ko

uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KVER)/extra/ntkl.ko $(DESTDIR)$(PREFIX)/bin/ntkl \
		$(DESTDIR)/etc/udev/rules.d/60-ntkl.rules $(DESTDIR)/usr/lib/tmpfiles.d/ntkl.conf \
		$(DESTDIR)$(PREFIX)/share/man/man1/ntkl.1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/ntkl \
		$(DESTDIR)$(PREFIX)/lib/libntkl.so.$(UM_VERSION) $(DESTDIR)$(PREFIX)/lib/libntkl.so.0 \
		$(DESTDIR)$(PREFIX)/lib/libntkl.so $(DESTDIR)$(PREFIX)/lib/libntkl.a \
		$(DESTDIR)$(PREFIX)/include/libntkl.h $(DESTDIR)$(PREFIX)/lib/pkgconfig/libntkl.pc
	[ -n "$(DESTDIR)" ] || depmod -a $(KVER)

clean:
	rm -rf $(BUILD)/ko $(BUILD)/userspace $(BUILD)/selftests $(BUILD)/tests
	$(MAKE) -C userspace BUILD=$(BUILD) clean
