# SPDX-License-Identifier: GPL-2.0
# Host unit tests of agentmmd's parts (agentmmd/build.mk defines AMMD_DIR
# and AMM_HDRS), under ASan and UBSan.

$(BUILD)/unit/test_pressure: $(TOP)/tests/unit/test_pressure.c \
		$(TOP)/policy/pressure.c $(TOP)/policy/pressure.h \
		$(TOP)/policy/amm_types.h $(TOP)/tests/unit/unit.h | $(BUILD)/unit
	$(CC) $(USER_CFLAGS) $(SAN_FLAGS) -I$(TOP)/policy -I$(TOP)/tests/unit \
		-o $@ $(TOP)/tests/unit/test_pressure.c $(TOP)/policy/pressure.c

$(BUILD)/unit/test_agentmmd_config: $(TOP)/tests/unit/test_agentmmd_config.c \
		$(AMMD_DIR)/config.c $(AMMD_DIR)/cgroup.c $(AMMD_DIR)/config.h \
		$(AMMD_DIR)/cgroup.h $(TOP)/tests/unit/unit.h | $(BUILD)/unit
	$(CC) $(USER_CFLAGS) $(SAN_FLAGS) -I$(AMMD_DIR) -I$(TOP)/policy \
		-I$(TOP)/tests/unit -o $@ $(TOP)/tests/unit/test_agentmmd_config.c \
		$(AMMD_DIR)/config.c $(AMMD_DIR)/cgroup.c $(TOP)/policy/parse.c \
		$(TOP)/policy/contig.c

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

UNIT_TESTS += $(BUILD)/unit/test_pressure $(BUILD)/unit/test_agentmmd_config \
	$(BUILD)/unit/test_agentmmd_ops $(BUILD)/unit/test_agentmmd_journal
