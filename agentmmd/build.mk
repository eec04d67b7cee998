# SPDX-License-Identifier: GPL-2.0
# agentmmd, agentmmctl, their unit tests and test helpers. The BPF skeleton
# comes from bpf/build.mk; the plain-C policy from policy/.

AMMD_DIR := $(TOP)/agentmmd
# bpf/build.mk (included after this file) builds the skeleton here.
BPF_OUT := $(BUILD)/bpf
AMMD_SRCS := $(addprefix $(AMMD_DIR)/,main.c usage.c log.c action.c journal.c loader.c \
	journalfmt.c sbtable.c sandbox.c runtime.c tools.c events.c identity.c actuate.c tick.c status.c \
	config.c cgroup.c governor.c thpknob.c thpfile.c govparse.c escape.c history.c metrics.c \
	control.c exempt.c reclaim.c) $(TOP)/policy/pressure.c $(TOP)/policy/governor.c \
	$(TOP)/policy/contig.c $(TOP)/policy/parse.c
AMMCTL_SRCS := $(AMMD_DIR)/agentmmctl.c $(AMMD_DIR)/statusfile.c $(AMMD_DIR)/config.c \
	$(AMMD_DIR)/cgroup.c $(AMMD_DIR)/escape.c
AMM_HDRS := $(wildcard $(AMMD_DIR)/*.h) $(TOP)/bpf/agentmm.h \
	$(TOP)/policy/pressure.h $(TOP)/policy/amm_types.h \
	$(TOP)/policy/governor.h $(TOP)/policy/contig.h $(TOP)/policy/parse.h
# Paths are bounded when sandboxes are found (longer ones are skipped), so
# gcc's worst-case snprintf truncation analysis only produces noise here.
AMM_USER_CFLAGS := $(USER_CFLAGS) -Wno-format-truncation -I$(BPF_OUT) \
	-I$(AMMD_DIR) -I$(TOP)/bpf -I$(TOP)/policy

$(BUILD)/tools/agentmmd: $(AMMD_SRCS) $(AMM_HDRS) $(BPF_OUT)/agentmm.skel.h \
		| $(BUILD)/tools
	$(CC) $(AMM_USER_CFLAGS) -o $@ $(AMMD_SRCS) -lbpf -lelf -lz -pthread

$(BUILD)/guest/bin/agentmmd: $(AMMD_SRCS) $(AMM_HDRS) $(BPF_OUT)/agentmm.skel.h \
		| $(BUILD)/guest/bin
	$(CC) $(AMM_USER_CFLAGS) $(STATIC_LDFLAGS) -o $@ $(AMMD_SRCS) \
		-lbpf -lelf -lz -lzstd -pthread

$(BUILD)/tools/agentmmctl: $(AMMCTL_SRCS) $(AMM_HDRS) | $(BUILD)/tools
	$(CC) $(AMM_USER_CFLAGS) -o $@ $(AMMCTL_SRCS)

$(BUILD)/guest/bin/agentmmctl: $(AMMCTL_SRCS) $(AMM_HDRS) | $(BUILD)/guest/bin
	$(CC) $(AMM_USER_CFLAGS) $(STATIC_LDFLAGS) -o $@ $(AMMCTL_SRCS)

# Test helpers for the in-guest daemon tests.
$(BUILD)/guest/bin/memhog: $(TOP)/tests/progs/memhog.c | $(BUILD)/guest/bin
	$(CC) $(USER_CFLAGS) $(STATIC_LDFLAGS) -o $@ $<

$(BUILD)/guest/bin/runas: $(TOP)/tests/progs/runas.c | $(BUILD)/guest/bin
	$(CC) $(USER_CFLAGS) $(STATIC_LDFLAGS) -o $@ $<

$(BUILD)/guest/bin/hostile: $(TOP)/tests/progs/hostile.c | $(BUILD)/guest/bin
	$(CC) $(USER_CFLAGS) $(STATIC_LDFLAGS) -o $@ $< -pthread

$(BUILD)/unit/test_pressure: $(TOP)/tests/unit/test_pressure.c \
		$(TOP)/policy/pressure.c $(TOP)/policy/pressure.h \
		$(TOP)/policy/amm_types.h $(TOP)/tests/unit/unit.h | $(BUILD)/unit
	$(CC) $(USER_CFLAGS) $(SAN_FLAGS) -I$(TOP)/policy -I$(TOP)/tests/unit \
		-o $@ $(TOP)/tests/unit/test_pressure.c $(TOP)/policy/pressure.c

$(BUILD)/unit/test_agentmmd_config: $(TOP)/tests/unit/test_agentmmd_config.c \
		$(AMMD_DIR)/config.c $(AMMD_DIR)/cgroup.c $(AMMD_DIR)/config.h \
		$(AMMD_DIR)/cgroup.h $(TOP)/tests/unit/unit.h | $(BUILD)/unit
	$(CC) $(USER_CFLAGS) $(SAN_FLAGS) -I$(AMMD_DIR) -I$(TOP)/tests/unit \
		-o $@ $(TOP)/tests/unit/test_agentmmd_config.c \
		$(AMMD_DIR)/config.c $(AMMD_DIR)/cgroup.c

# The operator surface on the host: escaping, journal records, history,
# metrics checked with the Prometheus client's parser (check_metrics.py).
AMM_OPS_SRCS := $(addprefix $(AMMD_DIR)/,log.c action.c escape.c history.c metrics.c \
	cgroup.c sbtable.c) $(TOP)/policy/parse.c $(TOP)/policy/contig.c
$(BUILD)/unit/test_agentmmd_ops: $(TOP)/tests/unit/test_agentmmd_ops.c \
		$(AMM_OPS_SRCS) $(AMM_HDRS) $(TOP)/tests/unit/unit.h \
		$(TOP)/tests/unit/check_metrics.py | $(BUILD)/unit
	$(CC) $(USER_CFLAGS) $(SAN_FLAGS) -Wno-format-truncation -DAMM_NO_BPF \
		-DCHECK_METRICS='"$(TOP)/tests/unit/check_metrics.py"' \
		-I$(AMMD_DIR) -I$(TOP)/bpf -I$(TOP)/policy -I$(TOP)/tests/unit \
		-o $@ $(TOP)/tests/unit/test_agentmmd_ops.c $(AMM_OPS_SRCS)


# The restore journal, on plain directories standing in for cgroups.
AMM_JOURNAL_SRCS := $(addprefix $(AMMD_DIR)/,journal.c journalfmt.c log.c action.c cgroup.c escape.c \
	history.c governor.c thpknob.c thpfile.c govparse.c) $(TOP)/policy/governor.c \
	$(TOP)/policy/contig.c $(TOP)/policy/parse.c
$(BUILD)/unit/test_agentmmd_journal: $(TOP)/tests/unit/test_agentmmd_journal.c \
		$(AMM_JOURNAL_SRCS) $(AMM_HDRS) $(TOP)/tests/unit/unit.h \
		| $(BUILD)/unit
	# -Wno-restrict: gcc 12 with the sanitizers misreads governor.c's
	# snprintf from one member of a struct into another as an overlap.
	$(CC) $(USER_CFLAGS) $(SAN_FLAGS) -Wno-format-truncation -Wno-restrict \
		-I$(AMMD_DIR) -I$(TOP)/bpf -I$(TOP)/policy -I$(TOP)/tests/unit \
		-o $@ $(TOP)/tests/unit/test_agentmmd_journal.c $(AMM_JOURNAL_SRCS)

TOOLS += $(BUILD)/tools/agentmmd $(BUILD)/tools/agentmmctl
GUEST_BINS += $(BUILD)/guest/bin/agentmmd $(BUILD)/guest/bin/agentmmctl \
	$(BUILD)/guest/bin/memhog $(BUILD)/guest/bin/runas $(BUILD)/guest/bin/hostile
UNIT_TESTS += $(BUILD)/unit/test_pressure $(BUILD)/unit/test_agentmmd_config \
	$(BUILD)/unit/test_agentmmd_ops $(BUILD)/unit/test_agentmmd_journal
