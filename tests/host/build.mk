# SPDX-License-Identifier: GPL-2.0
# Host tests: run on the machine's own kernel, no VM. They change host
# settings (snapshotted first, restored on every exit path) and skip with
# exit 77 where they cannot run (not root, knobs absent or read-only).

.PHONY: host-check
host-check: $(BUILD)/tools/agentmmd $(BUILD)/tools/agentmmctl
	$(TOP)/tests/host/daemon-gov.sh $(BUILD)/tools/agentmmd \
		$(BUILD)/tools/agentmmctl; rc=$$?; \
		if [ $$rc = 77 ]; then echo "host-check: skipped"; exit 0; fi; exit $$rc
