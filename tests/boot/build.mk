# SPDX-License-Identifier: GPL-2.0-only
# `make boot-check`: the real-boot test of the packages (tests/boot/run):
# a debootstrapped Debian 12 root with systemd as PID 1, the RPM payload
# installed, booted twice under QEMU with the test kernel (agentmm enabled;
# agentmm.mode=off). Needs root and `make deps`; the base root is cached in
# $(AGENTMM_CACHE)/boot. Slow (minutes): `make check` runs it only with
# AGENTMM_BOOT_CHECK=1 (as CI does).
# BOOT_ARGS="..." passes options (e.g. --no-build, --only optout).
.PHONY: boot-check
boot-check:
	@test -f $(TEST_KROOT)/boot/vmlinuz-$(TEST_KVER) || { echo "error: test kernel missing in $(TEST_KROOT); run 'make deps'" >&2; exit 1; }
	BOOT_KVER=$(TEST_KVER) BOOT_KROOT=$(TEST_KROOT) AGENTMM_CACHE=$(AGENTMM_CACHE) \
		MAKE="$(MAKE)" $(TOP)/tests/boot/run $(BOOT_ARGS)
