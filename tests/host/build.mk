# SPDX-License-Identifier: GPL-2.0
# Host tests: run on the machine's own kernel, no VM. They change host
# settings (snapshotted first, restored on every exit path) and skip with
# exit 77 where they cannot run (not root, knobs absent or read-only).

.PHONY: host-check
host-check: $(BUILD)/tools/agentmmd $(BUILD)/tools/agentmmctl
	$(TOP)/tests/host/daemon-gov.sh $(BUILD)/tools/agentmmd \
		$(BUILD)/tools/agentmmctl; rc=$$?; \
		if [ $$rc = 77 ]; then echo "host-check: 0 passed, 0 failed, 1 skipped"; exit 0; fi; exit $$rc

# The compressed memory tier (config/swap/agentmm-swap): setup, a second
# setup, teardown byte for byte, bad usage, refusals, SIGKILL mid-way,
# --zram. Changes zswap parameters and swap for ~10 s; skips where it
# cannot run (not root, no zswap, swap already active).
.PHONY: host-swap-check
host-swap-check: $(BUILD)/tools/agentmmctl
	$(TOP)/tests/host/swap.sh $(TOP)/config/swap/agentmm-swap \
		$(BUILD)/tools/agentmmctl; rc=$$?; \
		if [ $$rc = 77 ]; then echo "host-swap-check: 0 passed, 0 failed, 1 skipped"; exit 0; fi; exit $$rc

# agentmmd's paced reclaim where memory is on cgroup v1, both ways
# (process_madvise, and the LRU reclaim behind memory.limit_in_bytes), into
# zswap over a swap file of its own: reclaims idle sandboxes, never
# while a tool runs, never with reclaim = 0. Changes zswap's enabled and
# swap for ~30 s, restored; skips where it cannot run (not root, no v1
# memory hierarchy, swap already active).
.PHONY: host-reclaim-check
host-reclaim-check: $(BUILD)/tools/agentmmd $(BUILD)/tools/agentmmctl
	for m in pageout limit; do \
		echo "== reclaim by $$m"; \
		$(TOP)/tests/host/daemon-reclaim-v1.sh $(BUILD)/tools/agentmmd \
			$(BUILD)/tools/agentmmctl $$m; rc=$$?; \
		if [ $$rc = 77 ]; then echo "host-reclaim-check: 0 passed, 0 failed, 1 skipped"; exit 0; fi; \
		[ $$rc = 0 ] || exit $$rc; \
	done

# agentmmd's metrics as a real Prometheus server sees them: agentmmd's
# textfile, served by node_exporter's textfile collector, scraped by
# prometheus with the shipped alert rules (deploy/prometheus); promtool
# lints the exposition and runs the rules' unit tests (~20 s). Skips
# without root, a cgroup v1 memory hierarchy or the Prometheus packages.
.PHONY: host-prometheus-check
host-prometheus-check: $(BUILD)/tools/agentmmd $(BUILD)/tools/agentmmctl
	$(TOP)/tests/host/prometheus.sh $(BUILD)/tools/agentmmd \
		$(BUILD)/tools/agentmmctl; rc=$$?; \
		if [ $$rc = 77 ]; then echo "host-prometheus-check: 0 passed, 0 failed, 1 skipped"; exit 0; fi; exit $$rc
