# SPDX-License-Identifier: GPL-2.0
# Fuzz targets for what agentmmd and agentmmctl parse: the configuration
# file, the restore journal, the status file. Included by tests/fuzz/build.mk.
FUZZ_AMMD := $(TOP)/agentmmd
FUZZ_AMMD_HDRS := $(wildcard $(FUZZ_AMMD)/*.h)

$(BUILD)/fuzz/fuzz_config: $(TOP)/tests/fuzz/fuzz_config.c \
		$(FUZZ_AMMD)/config.c $(FUZZ_AMMD_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(FUZZ_AMMD) -o $@ $< $(FUZZ_AMMD)/config.c

# agentmmctl's status parser and printers, as agentmmctl links them.
$(BUILD)/fuzz/fuzz_status: $(TOP)/tests/fuzz/fuzz_status.c \
		$(FUZZ_AMMD)/statusfile.c $(FUZZ_AMMD)/escape.c $(FUZZ_AMMD_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(FUZZ_AMMD) -o $@ $< \
		$(FUZZ_AMMD)/statusfile.c $(FUZZ_AMMD)/escape.c

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

# The journal's parser (journalfmt.c, what restore_file() reads with) and
# the escaper applied_save() writes paths with (cgroup.c).
FUZZ_JOURNAL_SRCS := $(addprefix $(FUZZ_AMMD)/,journalfmt.c cgroup.c escape.c) \
	$(TOP)/policy/parse.c $(TOP)/policy/contig.c
$(BUILD)/fuzz/fuzz_journal: $(TOP)/tests/fuzz/fuzz_journal.c \
		$(FUZZ_JOURNAL_SRCS) $(FUZZ_AMMD_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(FUZZ_AMMD) -I$(TOP)/policy -o $@ $< \
		$(FUZZ_JOURNAL_SRCS)

FUZZ_TARGETS += $(BUILD)/fuzz/fuzz_journal

# The escaper, against a terminal-safety oracle (no C0, DEL, C1, bidi
# controls or invalid UTF-8 in any output; TEXT and WORD read back).
$(BUILD)/fuzz/fuzz_escape: $(TOP)/tests/fuzz/fuzz_escape.c \
		$(FUZZ_AMMD)/escape.c $(FUZZ_AMMD_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(FUZZ_AMMD) -o $@ $< $(FUZZ_AMMD)/escape.c

FUZZ_TARGETS += $(BUILD)/fuzz/fuzz_escape

# The event path (events.c, tools.c) against a fake process table with PID
# reuse: actions only on the event's own process and sandbox, no pidfd
# leaked. The process layer (cgroup.c's pidfd and /proc functions, the BPF
# task storage, runtime.c, actuate.c's notify) is the target's own.
FUZZ_EVENTS_SRCS := $(addprefix $(FUZZ_AMMD)/,events.c identity.c tools.c escape.c) \
	$(TOP)/policy/pressure.c
$(BUILD)/fuzz/fuzz_events: $(TOP)/tests/fuzz/fuzz_events.c \
		$(FUZZ_EVENTS_SRCS) $(FUZZ_AMMD_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(FUZZ_AMMD) -I$(TOP)/bpf -I$(TOP)/policy \
		-DAMM_VERSION='"fuzz"' -o $@ $< $(FUZZ_EVENTS_SRCS)

FUZZ_TARGETS += $(BUILD)/fuzz/fuzz_events
