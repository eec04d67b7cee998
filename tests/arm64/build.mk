# SPDX-License-Identifier: GPL-2.0-only
# make vm-check-arm64: agentmm.ko and agentmmd on Debian's arm64 kernels
# (4K and 16K pages) booted under qemu-system-aarch64 (tests/arm64/run);
# the cross builds first (make module-cross; make check runs cross-check's
# checks as a suite of their own).
.PHONY: vm-check-arm64
vm-check-arm64: module-cross
	$(TOP)/tests/arm64/run
