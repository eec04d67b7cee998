# SPDX-License-Identifier: GPL-2.0
# Benchmarks (issue 3): the agent-sandbox workload, the fragmentation
# injector, the in-guest bench driver and the host-side report.

BENCH_DIR := $(TOP)/benchmarks
BENCH_POLICY := $(TOP)/kmod/policy
BENCH_FRAG_SRC := $(BENCH_DIR)/fragment.c $(BENCH_POLICY)/contig.c
BENCH_FRAG_DEPS := $(BENCH_FRAG_SRC) $(BENCH_POLICY)/contig.h $(BENCH_POLICY)/amm_types.h

# Static for the guest.
$(BUILD)/guest/bin/agentload: $(BENCH_DIR)/agentload.c | $(BUILD)/guest/bin
	$(CC) $(USER_CFLAGS) $(STATIC_LDFLAGS) -o $@ $< -lm

$(BUILD)/guest/bin/fragment: $(BENCH_FRAG_DEPS) | $(BUILD)/guest/bin
	$(CC) $(USER_CFLAGS) -I$(BENCH_POLICY) $(STATIC_LDFLAGS) -o $@ $(BENCH_FRAG_SRC)

# The guest driver is a busybox-ash script; installed into the guest's PATH.
$(BUILD)/guest/bin/bench-guest: $(BENCH_DIR)/bench-guest.sh | $(BUILD)/guest/bin
	install -m 755 $< $@

# Dynamic host builds, for runs on a real host (with an explicit decision
# to do so: they create cgroups and fragment memory).
$(BUILD)/tools/agentload: $(BENCH_DIR)/agentload.c | $(BUILD)/tools
	$(CC) $(USER_CFLAGS) -o $@ $< -lm

$(BUILD)/tools/fragment: $(BENCH_FRAG_DEPS) | $(BUILD)/tools
	$(CC) $(USER_CFLAGS) -I$(BENCH_POLICY) -o $@ $(BENCH_FRAG_SRC)

GUEST_BINS += $(BUILD)/guest/bin/agentload $(BUILD)/guest/bin/fragment \
	      $(BUILD)/guest/bin/bench-guest
TOOLS += $(BUILD)/tools/agentload $(BUILD)/tools/fragment
