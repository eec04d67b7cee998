# SPDX-License-Identifier: GPL-2.0-only
# `make pkg-check`: build the RPMs and the .debs and check packages and
# configuration files (tests/pkg/run; tests/pkg/deb: the orig tarball, the
# source package and .debs built from it, lintian, install/upgrade/purge and
# autopkgtest in a scratch root; then tests/pkg/aarch64:
# the aarch64 RPMs cross-built and compared with the x86_64 ones, and
# tests/pkg/deb-aarch64: the arm64 .deb cross-built and checked, about a
# minute; changes nothing on the host). One result line for all.
PKG_LOGS = $(BUILD)/pkg-rpm.log $(BUILD)/pkg-deb.log $(BUILD)/pkg-aarch64.log \
	$(BUILD)/pkg-deb-arm64.log
.PHONY: pkg-check
pkg-check:
	@mkdir -p $(BUILD); set -o pipefail; rc=0; \
	$(TOP)/tests/pkg/run | tee $(BUILD)/pkg-rpm.log || rc=1; \
	$(TOP)/tests/pkg/deb | tee $(BUILD)/pkg-deb.log || rc=1; \
	$(TOP)/tests/pkg/aarch64 | tee $(BUILD)/pkg-aarch64.log || rc=1; \
	$(TOP)/tests/pkg/deb-aarch64 | tee $(BUILD)/pkg-deb-arm64.log || rc=1; \
	awk '/^[0-9]+ passed, [0-9]+ failed/ { p += $$1; f += $$3 } END { printf "%d passed, %d failed\n", p, f }' \
		$(PKG_LOGS); \
	exit $$rc

# `make pkg-check-arm64` (its own target: the emulated root takes about 25
# minutes the first time, later runs 3-4): the arm64 .deb and the aarch64
# RPMs installed on aarch64 under qemu-user, their maintainer scripts and
# scriptlets run (DKMS builds agentmm.ko for the arm64 kernel),
# purged and erased clean (tests/pkg/deb-aarch64 --install; registers a
# binfmt_misc handler for the run only when none is there).
.PHONY: pkg-check-arm64
pkg-check-arm64:
	@$(TOP)/tests/pkg/deb-aarch64 --install
