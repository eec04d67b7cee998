# SPDX-License-Identifier: GPL-2.0-only
# `make pkg-check`: build the RPMs and the .debs and check packages and
# configuration files (tests/pkg/run, tests/pkg/deb, then tests/pkg/aarch64:
# the aarch64 RPMs cross-built and compared with the x86_64 ones; changes
# nothing on the host). One result line for all.
.PHONY: pkg-check
pkg-check:
	@mkdir -p $(BUILD); set -o pipefail; rc=0; \
	$(TOP)/tests/pkg/run | tee $(BUILD)/pkg-rpm.log || rc=1; \
	$(TOP)/tests/pkg/deb | tee $(BUILD)/pkg-deb.log || rc=1; \
	$(TOP)/tests/pkg/aarch64 | tee $(BUILD)/pkg-aarch64.log || rc=1; \
	awk '/^[0-9]+ passed, [0-9]+ failed/ { p += $$1; f += $$3 } END { printf "%d passed, %d failed\n", p, f }' \
		$(BUILD)/pkg-rpm.log $(BUILD)/pkg-deb.log $(BUILD)/pkg-aarch64.log; \
	exit $$rc
