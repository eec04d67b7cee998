# SPDX-License-Identifier: GPL-2.0-only
# `make confine-check`: agentmmd's confinement (docs/confinement.md) - the
# AppArmor profile compiled by apparmor_parser and checked against the code
# and the unit, the SELinux module built with the policy's devel Makefile
# and linked into Debian's reference policy (tests/confine/run). Seconds;
# part of `make check`. The profile loaded in a booted guest is `make
# boot-check`'s.
.PHONY: confine-check
confine-check:
	@MAKE="$(MAKE)" $(TOP)/tests/confine/run
