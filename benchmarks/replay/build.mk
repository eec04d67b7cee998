# SPDX-License-Identifier: GPL-2.0
# benchmarks/replay (issue 5 item 4): replay of real agent memory traces as
# concurrent sandboxes under a host memory limit, with and without agentmmd.
#
#   make replay                 build, boot the test guest and run
#                               replay-guest.sh (stock vs agentmmd, interleaved)
#   make replay REPLAY_ARGS='--runs 7 --sandboxes 4'   passes options on
#
# Also in the guest: replay-daemon-cpu (agentmmd's CPU with many sandboxes)
# and cpu-calib (emulation slowdown); see benchmarks/notes/ (2026-11-30-replay-
# idle-reclaim-cpu.md, 2026-12-01-replay-real-time-vs-5x.md) for how they were run.
#
# The traces are the public AgentCgroup sets vendored in the tree
# (benchmarks/replay/traces/agentcgroup: haiku and batch18, GPL-2.0, see its
# README for provenance); the guest sees them through a 9p share of the
# checkout. REPLAY_SET picks the set: all (default), haiku, batch18 or
# synthetic (the built-in model, no trace files).
#
#   make replay REPLAY_SET=haiku REPLAY_ARGS='--overcommit 1.5 --swap zswap'
#   make density               largest sustainable overcommit per arm (see
#                              density-guest.sh; DENSITY_ARGS passes options)
#   make density-smoke         the same, one seed and one step (6 replays;
#                              27 min on the loaded 2-core development
#                              machine, see benchmarks/notes/
#                              2026-11-30-replay-out-of-sample.md)
#
# The sandboxes' pages hold a sample of a real agent runtime's memory,
# taken natively before the guest boots (mkcontent.py: node with
# typescript, as bench-host runs it; needs make deps):
# $(BUILD)/replay/content.bin. DENSITY_CONTENT=none: random bytes instead.

REPLAY_DIR := $(TOP)/benchmarks/replay
REPLAY_TRACES ?= $(REPLAY_DIR)/traces/agentcgroup
REPLAY_SET ?= all
REPLAY_VM_MEM ?= 2048
REPLAY_TIMEOUT ?= 3600
REPLAY_ARGS ?=
REPLAY_LOG ?= $(BUILD)/replay/console.log
DENSITY_ARGS ?=
DENSITY_TIMEOUT ?= 10800
DENSITY_OUT ?= density
DENSITY_LOG ?= $(BUILD)/$(DENSITY_OUT)/console.log
DENSITY_CONTENT ?= $(BUILD)/replay/content.bin
REPLAY_CONTENT_MB ?= 64

# replay.c (main) and one module per concern, each with its header.
REPLAY_MODULES := common hist options trace plan mem worker cgtree measure report
REPLAY_SRC := $(REPLAY_DIR)/replay.c $(REPLAY_MODULES:%=$(REPLAY_DIR)/%.c) \
	      $(BENCH_UTIL)
REPLAY_DEPS := $(REPLAY_SRC) $(REPLAY_MODULES:%=$(REPLAY_DIR)/%.h) \
	       $(BENCH_UTIL_DEPS)

$(BUILD)/guest/bin/replay: $(REPLAY_DEPS) | $(BUILD)/guest/bin
	$(CC) $(USER_CFLAGS) -I$(BENCH_LIB) $(STATIC_LDFLAGS) -o $@ $(REPLAY_SRC) -lm

$(BUILD)/guest/bin/replay-guest: $(REPLAY_DIR)/replay-guest.sh | $(BUILD)/guest/bin
	install -m 755 $< $@

$(BUILD)/tools/replay: $(REPLAY_DEPS) | $(BUILD)/tools
	$(CC) $(USER_CFLAGS) -I$(BENCH_LIB) -o $@ $(REPLAY_SRC) -lm

$(BUILD)/guest/bin/replay-daemon-cpu: $(REPLAY_DIR)/daemon-cpu.sh | $(BUILD)/guest/bin
	install -m 755 $< $@

$(BUILD)/guest/bin/replay-density: $(REPLAY_DIR)/density-guest.sh | $(BUILD)/guest/bin
	install -m 755 $< $@

# sourced by replay-guest and replay-density from their own directory
$(BUILD)/guest/bin/replay-lib.sh: $(REPLAY_DIR)/replay-lib.sh | $(BUILD)/guest/bin
	install -m 644 $< $@

# the same static binary runs natively and in the guest (emulation slowdown)
$(BUILD)/guest/bin/cpu-calib: $(REPLAY_DIR)/cpu-calib.c $(BENCH_LIB)/util.c $(BENCH_LIB)/util.h | $(BUILD)/guest/bin
	$(CC) $(USER_CFLAGS) -I$(BENCH_LIB) $(STATIC_LDFLAGS) -o $@ $(REPLAY_DIR)/cpu-calib.c $(BENCH_LIB)/util.c

GUEST_BINS += $(BUILD)/guest/bin/replay $(BUILD)/guest/bin/replay-guest \
	$(BUILD)/guest/bin/replay-daemon-cpu $(BUILD)/guest/bin/cpu-calib \
	$(BUILD)/guest/bin/replay-density $(BUILD)/guest/bin/replay-lib.sh
TOOLS += $(BUILD)/tools/replay

# Guest path of the in-tree traces (the checkout is shared at /host).
REPLAY_GUEST_TRACES = /host/$(patsubst $(TOP)/%,%,$(abspath $(REPLAY_TRACES)))

.PHONY: replay density density-smoke
replay: test-module guest-bins
	@mkdir -p $(dir $(REPLAY_LOG))
	@case "$(abspath $(REPLAY_TRACES))" in $(TOP)/*) ;; \
		*) echo "replay: REPLAY_TRACES must be inside the checkout ($(TOP))" >&2; exit 2 ;; esac
	$(TOP)/tests/vm/run --tcg-threads $(BENCH_TCG_THREADS) --share $(TOP) --mem $(REPLAY_VM_MEM) \
		--timeout $(REPLAY_TIMEOUT) --log $(REPLAY_LOG) \
		--cmd "replay-guest --traces $(REPLAY_GUEST_TRACES) --trace-set $(REPLAY_SET) --out /host/build/replay $(REPLAY_ARGS)"

# A sample of the real-tool workload's runtime memory (mkcontent.py), once.
$(BUILD)/replay/content.bin: $(REPLAY_DIR)/mkcontent.py $(TOP)/benchmarks/tools/runtime.js
	@mkdir -p $(dir $@)
	python3 $(REPLAY_DIR)/mkcontent.py --mb $(REPLAY_CONTENT_MB) $@

DENSITY_CONTENT_ARG = $(if $(filter none,$(DENSITY_CONTENT)),,--content /host/$(patsubst $(TOP)/%,%,$(abspath $(DENSITY_CONTENT))))

density: test-module guest-bins $(if $(filter none,$(DENSITY_CONTENT)),,$(DENSITY_CONTENT))
	@mkdir -p $(dir $(DENSITY_LOG))
	@case "$(DENSITY_CONTENT)" in none|$(TOP)/*) ;; \
		*) echo "density: DENSITY_CONTENT must be inside the checkout ($(TOP)) or none" >&2; exit 2 ;; esac
	$(TOP)/tests/vm/run --tcg-threads $(BENCH_TCG_THREADS) --share $(TOP) --mem $(REPLAY_VM_MEM) \
		--timeout $(DENSITY_TIMEOUT) --log $(DENSITY_LOG) \
		--cmd "replay-density --traces $(REPLAY_GUEST_TRACES) --trace-set $(REPLAY_SET) --out /host/build/$(DENSITY_OUT) $(DENSITY_CONTENT_ARG) $(DENSITY_ARGS)"

density-smoke:
	$(MAKE) density DENSITY_OUT=density-smoke DENSITY_TIMEOUT=3600 DENSITY_ARGS="--smoke $(DENSITY_ARGS)"
