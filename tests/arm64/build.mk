# SPDX-License-Identifier: GPL-2.0-only
# make vm-check-arm64: agentmm.ko and agentmmd on Debian's arm64 kernels
# (4K and 16K pages) booted under qemu-system-aarch64 (tests/arm64/run);
# the cross builds first (make module-cross; make check runs cross-check's
# checks as a suite of their own).
.PHONY: vm-check-arm64
vm-check-arm64: module-cross
	$(TOP)/tests/arm64/run

# make vm-check-arm64-full: the module's and the daemon's guest suites
# (tests/vm/tests) on both arm64 kernels (tests/arm64/full; T= selects
# tests as in make vm-check). Its own target: about 45 minutes a kernel under TCG.
.PHONY: vm-check-arm64-full arm64-guest-bins
ARM64_SYSROOT := $(AGENTMM_CACHE)/sysroot/arm64
arm64-guest-bins:
	@test -f $(ARM64_SYSROOT)/.agentmm-complete || { echo "error: no arm64 libraries at $(ARM64_SYSROOT) (make deps)" >&2; exit 1; }
	$(MAKE) --no-print-directory BUILD=$(BUILD)/cross/arm64-user BPF_ARCH=arm64 SAN_FLAGS=-static \
		CC="aarch64-linux-gnu-gcc -I$(ARM64_SYSROOT)/usr/include -L$(ARM64_SYSROOT)/usr/lib/aarch64-linux-gnu" guest-bins
vm-check-arm64-full: module-cross arm64-guest-bins
	$(TOP)/tests/arm64/full $(T)
