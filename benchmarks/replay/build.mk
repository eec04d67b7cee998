# SPDX-License-Identifier: GPL-2.0
# benchmarks/replay (issue 5 item 4): replay of real agent memory traces as
# concurrent sandboxes under a host memory limit, with and without agentmmd.
#
#   make replay                 build, boot the test guest and run
#                               replay-guest.sh (stock vs agentmmd, interleaved)
#   make replay REPLAY_ARGS='--runs 7 --sandboxes 4'   passes options on
#
# Also in the guest: replay-daemon-cpu (agentmmd's CPU with many sandboxes)
# and cpu-calib (emulation slowdown); see RESULTS.md for how they were run.
#
# The traces are read from $(REPLAY_TRACES) (default ../shared/traces/
# agentcgroup next to the checkout); the guest sees them through a 9p share
# of the checkout's parent directory, never through a copy in the tree.
# Without them the run falls back to --synthetic traces.

REPLAY_DIR := $(TOP)/benchmarks/replay
REPLAY_SHARE ?= $(abspath $(TOP)/..)
REPLAY_TRACES ?= $(REPLAY_SHARE)/shared/traces/agentcgroup
REPLAY_VM_MEM ?= 2048
REPLAY_TIMEOUT ?= 3600
REPLAY_ARGS ?=
REPLAY_LOG ?= $(BUILD)/replay/console.log

REPLAY_SRC := $(REPLAY_DIR)/replay.c $(TOP)/benchmarks/util.c
REPLAY_DEPS := $(REPLAY_SRC) $(TOP)/benchmarks/util.h

$(BUILD)/guest/bin/replay: $(REPLAY_DEPS) | $(BUILD)/guest/bin
	$(CC) $(USER_CFLAGS) -I$(TOP)/benchmarks $(STATIC_LDFLAGS) -o $@ $(REPLAY_SRC) -lm

$(BUILD)/guest/bin/replay-guest: $(REPLAY_DIR)/replay-guest.sh | $(BUILD)/guest/bin
	install -m 755 $< $@

$(BUILD)/tools/replay: $(REPLAY_DEPS) | $(BUILD)/tools
	$(CC) $(USER_CFLAGS) -I$(TOP)/benchmarks -o $@ $(REPLAY_SRC) -lm

$(BUILD)/guest/bin/replay-daemon-cpu: $(REPLAY_DIR)/daemon-cpu.sh | $(BUILD)/guest/bin
	install -m 755 $< $@

# the same static binary runs natively and in the guest (emulation slowdown)
$(BUILD)/guest/bin/cpu-calib: $(REPLAY_DIR)/cpu-calib.c $(TOP)/benchmarks/util.c $(TOP)/benchmarks/util.h | $(BUILD)/guest/bin
	$(CC) $(USER_CFLAGS) -I$(TOP)/benchmarks $(STATIC_LDFLAGS) -o $@ $(REPLAY_DIR)/cpu-calib.c $(TOP)/benchmarks/util.c

GUEST_BINS += $(BUILD)/guest/bin/replay $(BUILD)/guest/bin/replay-guest \
	$(BUILD)/guest/bin/replay-daemon-cpu $(BUILD)/guest/bin/cpu-calib
TOOLS += $(BUILD)/tools/replay

.PHONY: replay
replay: test-module guest-bins
	@mkdir -p $(dir $(REPLAY_LOG))
	@share=$(REPLAY_SHARE); rel=$(patsubst $(REPLAY_SHARE)/%,%,$(TOP)); \
	traces=$(REPLAY_TRACES); \
	case $$traces in $$share/*) gtr=/host/$${traces#$$share/} ;; *) gtr= ;; esac; \
	if [ -z "$$gtr" ] || [ ! -d "$$traces" ]; then \
		echo "replay: no traces at $$traces (inside $$share); using --synthetic"; gtr=; fi; \
	$(TOP)/tests/vm/run --tcg-threads $(BENCH_TCG_THREADS) --share $$share --mem $(REPLAY_VM_MEM) \
		--timeout $(REPLAY_TIMEOUT) --log $(REPLAY_LOG) \
		--cmd "replay-guest $${gtr:+--traces $$gtr} --out /host/$$rel/build/replay $(REPLAY_ARGS)"
