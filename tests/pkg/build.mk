# SPDX-License-Identifier: GPL-2.0-only
# `make pkg-check`: build the RPMs and check packages and configuration
# files on the host (tests/pkg/run; changes nothing on the host).
.PHONY: pkg-check
pkg-check:
	$(TOP)/tests/pkg/run
