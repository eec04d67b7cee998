# SPDX-License-Identifier: GPL-2.0-only
# `make sysd-container-check`: agentmmd from this tree with agents in real
# Podman containers (runc, crun, runsc) on a booted Debian 12 with systemd
# as PID 1 and cgroup v2 (tests/sysd/run: QEMU, TCG without KVM). The
# guest disk (Debian's packages, the agent image) is cached in
# $(AGENTMM_CACHE)/sysd. Needs root and `make deps`. Not part of
# `make check` (its time, docs/testing.md). SYSD_ARGS="..." passes options.
.PHONY: sysd-container-check
sysd-container-check: $(BUILD)/tools/agentmmd $(BUILD)/tools/agentmmctl
	@test -f $(TEST_KROOT)/boot/vmlinuz-$(TEST_KVER) || { echo "error: test kernel missing in $(TEST_KROOT); run 'make deps'" >&2; exit 1; }
	SYSD_KVER=$(TEST_KVER) SYSD_KROOT=$(TEST_KROOT) AGENTMM_CACHE=$(AGENTMM_CACHE) \
		MAKE="$(MAKE)" $(TOP)/tests/sysd/run $(SYSD_ARGS)
