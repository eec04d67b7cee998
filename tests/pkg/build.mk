# SPDX-License-Identifier: GPL-2.0-only
# `make pkg-check`: build the RPMs and the .debs and check packages and
# configuration files (tests/pkg/run, then tests/pkg/deb; changes nothing on
# the host). One result line for both.
.PHONY: pkg-check
pkg-check:
	@mkdir -p $(BUILD); set -o pipefail; rc=0; \
	$(TOP)/tests/pkg/run | tee $(BUILD)/pkg-rpm.log || rc=1; \
	$(TOP)/tests/pkg/deb | tee $(BUILD)/pkg-deb.log || rc=1; \
	awk '/^[0-9]+ passed, [0-9]+ failed/ { p += $$1; f += $$3 } END { printf "%d passed, %d failed\n", p, f }' \
		$(BUILD)/pkg-rpm.log $(BUILD)/pkg-deb.log; \
	exit $$rc
