# SPDX-License-Identifier: GPL-2.0
#
# agentmm top-level build. `make help` lists the targets.
#
# Kbuild reads ./Kbuild for the module; this file drives everything else.
# Areas plug in through <dir>/build.mk fragments, which add rules and append
# to GUEST_BINS (static programs packed into the test guest), UNIT_TESTS
# (host test programs run by `make unit`) and TOOLS (user-space programs
# built by `make`).

SHELL := /bin/bash
TOP := $(CURDIR)
BUILD := $(TOP)/build

# The one place the test kernel is pinned.
TEST_KVER := $(shell cat $(TOP)/tests/vm/kernel-version)
AGENTMM_CACHE ?= $(if $(XDG_CACHE_HOME),$(XDG_CACHE_HOME),$(HOME)/.cache)/agentmm
TEST_KROOT := $(AGENTMM_CACHE)/kernel/$(TEST_KVER)/root
TEST_KDIR := $(TEST_KROOT)/usr/src/linux-headers-$(TEST_KVER)

# KDIR: the running kernel's build tree where it exists, else the pinned
# test kernel's headers (fetched by `make deps`).
RUNNING_KDIR := /lib/modules/$(shell uname -r)/build
KDIR ?= $(if $(wildcard $(RUNNING_KDIR)/Makefile),$(RUNNING_KDIR),$(TEST_KDIR))

CC ?= cc
# WERROR: the project's own builds (make, make check) stop on a warning;
# distribution builds pass WERROR= (rpm/agentmm.spec), so that their own
# flags and a newer compiler's new warnings do not fail the package.
WERROR ?= -Werror
USER_CFLAGS := -std=c11 -Wall -Wextra $(WERROR) -O2 -g -D_GNU_SOURCE
# One version for everything (module, daemon, CLI, packages): VERSION.
AMM_VERSION := $(shell cat $(TOP)/VERSION)
USER_CFLAGS += -DAMM_VERSION='"$(AMM_VERSION)"'
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	     -fno-sanitize-recover=all
STATIC_LDFLAGS := -static

GUEST_BINS :=
UNIT_TESTS :=
TOOLS :=

.PHONY: all module tools deps deps-demo check check-long unit vm-check vm-long-check vm-stress \
	vm-shell demo clean help guest-bins

all: module tools

help:
	@echo 'agentmm build targets'
	@echo '  make            build agentmm.ko (KDIR=$(KDIR)) and the user-space tools'
	@echo '  make deps       install build/test dependencies and fetch the test kernels ($(TEST_KVER), floor $(FLOOR_KVER))'
	@echo '  make deps-demo  only what make demo needs: its packages (no upgrade of installed ones) and the test kernel $(TEST_KVER)'
	@echo '  make check      every suite CI runs, under 45 minutes (runs make deps first)'
	@echo '  make check-long the long suites make check leaves out (about 25 minutes; see docs/testing.md)'
	@echo '  make unit       host unit tests only (ASan/UBSan)'
	@echo '  make vm-check   in-guest tests only; T="name ..." runs just those'
	@echo '  make vm-long-check  the in-guest tests vm-check leaves out (tests/vm/long: benchmark harness smokes, the short soak)'
	@echo '  make vm-stress  sensor-lifecycle (200 cycles) and daemon-scale (10,000) at full size'
	@echo '  make vm-check-floor  the module on its floor kernel (Debian 12 6.1, no mTHP) in the guest'
	@echo '  make vm-host-usr-check  the guest with this host'"'"'s /usr read-only (python3, Flask, node there: bench-coldstart)'
	@echo '  make cross-check  arm64: agentmm.ko (4K, 16K pages), agentmmd, agentmmctl, unit tests cross-built and run under qemu-user'
	@echo '  make vm-check-arm64  Debian arm64 kernels (4K, 16K pages) booted with agentmm.ko and agentmmd (qemu-system-aarch64)'
	@echo '  make vm-check-arm64-full  the module and daemon guest suites on both arm64 kernels (T= selects tests)'
	@echo '  make structure-check  no call/include cycle, no file over 800 lines, no function over 120, checkpatch clean'
	@echo '  make man-keys   regenerate agentmmd.conf(5)'"'"'s KEYS AT A GLANCE from agentmmd/configkeys.h'
	@echo '  make vm-shell   boot the test guest with agentmm built and get a shell'
	@echo '  make demo       the main job: boot the guest with agentmm and show what it does'
	@echo '  make bench      the full side-by-side benchmark in the guest (about 20 min)'
	@echo '  make bench-coldstart  the cold-start workload (Flask services) in the guest with agentmm.ko (TCG: no speed result)'
	@echo '  make bench-host the same natively on the running kernel (root; restores every knob)'
	@echo '  make density-host  sandboxes that fit a fixed memory budget natively, per arm'
	@echo '  make daemon-scale-host  agentmmd RSS, fds and CPU per sandbox at 1,000-4,000 (root)'
	@echo '  make rpm        build the agentmm, kmod-agentmm, agentmm-dkms and agentmm-preset RPMs'
	@echo '  make rpm-aarch64  agentmm and kmod-agentmm for aarch64, cross-built (Debian arm64 headers, make deps)'
	@echo '  make pkg-check  package tests: file lists, scratch-root install, rpm -V; the aarch64 RPMs and the arm64 .deb cross-built and checked'
	@echo '  make pkg-check-arm64  the arm64 .deb and aarch64 RPMs installed into an arm64 Debian root under qemu-user, scripts run (minutes)'
	@echo '  make boot-check real-boot package test (Debian 12 + systemd under QEMU, minutes)'
	@echo '  make container-check  agentmmd with agents in real podman containers (runc, gVisor) on this host (root)'
	@echo '  make sysd-container-check  the same under systemd + cgroup v2: runc, crun, runsc in a booted Debian 12 (QEMU, minutes)'
	@echo '  make replay     trace-replay benchmark of agentmmd, stock vs agentmmd'
	@echo '  make density    largest sustainable overcommit per arm (density-smoke: quick)'
	@echo '  make clean      remove build products'
	@echo 'Variables: KDIR=<kernel build tree>, AGENTMM_CACHE=<dir> ($(AGENTMM_CACHE)),'
	@echo '           VM_MEM=<MiB>, VM_CPUS=<n>, VM_TIMEOUT=<s>, T="<test> ..."'

deps:
	$(TOP)/scripts/deps.sh

# make demo's share of make deps (scripts/deps.sh --demo)
deps-demo:
	@$(TOP)/scripts/deps.sh --demo

module:
	@test -f $(KDIR)/Makefile || { echo "error: no kernel build tree at KDIR=$(KDIR); run 'make deps' or set KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(TOP) modules

# The module the guest loads is always built against the pinned test kernel.
test-module:
	@test -f $(TEST_KDIR)/Makefile || { echo "error: test kernel headers missing at $(TEST_KDIR); run 'make deps'" >&2; exit 1; }
	$(MAKE) -C $(TEST_KDIR) M=$(TOP) modules

$(BUILD)/guest/bin $(BUILD)/unit $(BUILD)/tools:
	mkdir -p $@

include $(sort $(wildcard $(TOP)/*/build.mk $(TOP)/tests/*/build.mk $(TOP)/benchmarks/*/build.mk))

tools: $(TOOLS)

guest-bins: $(GUEST_BINS)

unit: $(UNIT_TESTS)
	@$(TOP)/tests/run-unit $(UNIT_TESTS)

vm-check: test-module guest-bins
	$(TOP)/tests/vm/run $(T)

vm-long-check: test-module guest-bins
	$(TOP)/tests/vm/run --long

# The two guest tests at full size (make vm-check runs them smaller):
# 200 module load/unload cycles under churn, 10,000 sandboxes adopted.
vm-stress: test-module guest-bins
	$(TOP)/tests/vm/run --env LIFECYCLE_CYCLES=200 \
		--env SCALE_SANDBOXES=10000 sensor-lifecycle daemon-scale

vm-shell: test-module guest-bins
	$(TOP)/tests/vm/run --shell

check: deps
	@$(MAKE) --no-print-directory unit-and-vm

# Separate so that `make check` re-reads the tree after deps installed things.
unit-and-vm:
	@$(TOP)/tests/run-all "$(MAKE)"

# The suites make check leaves out to stay under its 45 minutes.
check-long: deps
	@$(TOP)/tests/run-all "$(MAKE)" long

demo: deps-demo
	$(MAKE) test-module guest-bins
	$(TOP)/tests/vm/run --demo --timeout 1200
	$(MAKE) --no-print-directory demo-host

clean:
	-$(MAKE) -C $(KDIR) M=$(TOP) clean 2>/dev/null
	rm -rf $(BUILD)
	find $(TOP)/kmod $(TOP)/policy \( -name '*.o' -o -name '.*.cmd' \) -delete
