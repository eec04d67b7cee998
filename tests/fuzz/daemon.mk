# SPDX-License-Identifier: GPL-2.0
# Fuzz targets for what agentmmd and agentmmctl parse: the configuration
# file, the restore journal, the status file. Included by tests/fuzz/build.mk.
# Each links the daemon's library built for fuzzing (agentmmd/build.mk's
# AMMD_LIB_FUZZ): what it calls, as agentmmd and agentmmctl link it.
FUZZ_AMMD_CFLAGS = $(FUZZ_CFLAGS) -DAMM_VERSION='"fuzz"' \
	-I$(BPF_OUT) -I$(AMMD_DIR) -I$(TOP)/bpf -I$(TOP)/policy
FUZZ_AMMD_DEPS = $(AMMD_LIB_FUZZ) $(AMM_HDRS)

$(BUILD)/fuzz/fuzz_config: $(TOP)/tests/fuzz/fuzz_config.c $(FUZZ_AMMD_DEPS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_AMMD_CFLAGS) -o $@ $< $(AMMD_LIB_FUZZ)

# agentmmctl's status parser and printers, as agentmmctl links them.
$(BUILD)/fuzz/fuzz_status: $(TOP)/tests/fuzz/fuzz_status.c $(FUZZ_AMMD_DEPS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_AMMD_CFLAGS) -o $@ $< $(AMMD_LIB_FUZZ)

FUZZ_TARGETS += $(BUILD)/fuzz/fuzz_config $(BUILD)/fuzz/fuzz_status

# The soak (tests/vm/soak.sh) in the guest: SOAK_SECONDS of churn (default
# 30 minutes); SOAK_SEED=N replays a run's sequence of actions. The short
# version, tests/vm/tests/soak-short.sh, is part of make vm-check.
SOAK_SECONDS ?= 1800
SOAK_SEED ?=
.PHONY: soak
soak: test-module guest-bins
	$(TOP)/tests/vm/run --env SOAK_SECONDS=$(SOAK_SECONDS) \
		$(if $(SOAK_SEED),--env SOAK_SEED=$(SOAK_SEED)) \
		--test-timeout $$(($(SOAK_SECONDS) + 600)) \
		--timeout $$(($(SOAK_SECONDS) + 900)) soak-short

# The journal's parser (journalfmt.c, what restore_journal() reads with) and
# the escaper knob_record() writes paths with (cgroup.c).
$(BUILD)/fuzz/fuzz_journal: $(TOP)/tests/fuzz/fuzz_journal.c $(FUZZ_AMMD_DEPS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_AMMD_CFLAGS) -o $@ $< $(AMMD_LIB_FUZZ)

FUZZ_TARGETS += $(BUILD)/fuzz/fuzz_journal

# The escaper, against a terminal-safety oracle (no C0, DEL, C1, bidi
# controls or invalid UTF-8 in any output; TEXT and WORD read back).
$(BUILD)/fuzz/fuzz_escape: $(TOP)/tests/fuzz/fuzz_escape.c $(FUZZ_AMMD_DEPS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_AMMD_CFLAGS) -o $@ $< $(AMMD_LIB_FUZZ)

FUZZ_TARGETS += $(BUILD)/fuzz/fuzz_escape

# The event path (events.c, tools.c) against a fake process table with PID
# reuse: actions only on the event's own process and sandbox, no pidfd
# leaked. The process layer (cgroup.c's pidfd and /proc functions, the BPF
# task storage, runtime.c, actuate.c's notify) is the target's own, so it
# links the library's objects under test by name rather than the archive.
FUZZ_EVENTS_OBJS := $(addprefix $(BUILD)/obj/fuzz/agentmmd/,events.o identity.o \
	tools.o escape.o) $(BUILD)/obj/fuzz/policy/pressure.o
$(BUILD)/fuzz/fuzz_events: $(TOP)/tests/fuzz/fuzz_events.c $(FUZZ_EVENTS_OBJS) \
		$(AMM_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_AMMD_CFLAGS) -o $@ $< $(FUZZ_EVENTS_OBJS)

FUZZ_TARGETS += $(BUILD)/fuzz/fuzz_events
