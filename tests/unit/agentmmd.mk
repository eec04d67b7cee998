# SPDX-License-Identifier: GPL-2.0
# Host unit tests of agentmmd's parts, under ASan and UBSan: each links the
# daemon's library built with the sanitizers (agentmmd/build.mk defines
# AMMD_LIB_SAN and AMM_HDRS).

$(BUILD)/unit/test_pressure: $(TOP)/tests/unit/test_pressure.c \
		$(TOP)/policy/pressure.c $(TOP)/policy/pressure.h \
		$(TOP)/policy/hotmap.c $(TOP)/policy/hotmap.h \
		$(TOP)/policy/amm_types.h $(TOP)/tests/unit/unit.h | $(BUILD)/unit
	$(CC) $(USER_CFLAGS) $(SAN_FLAGS) -I$(TOP)/policy -I$(TOP)/tests/unit \
		-o $@ $(TOP)/tests/unit/test_pressure.c $(TOP)/policy/pressure.c \
		$(TOP)/policy/hotmap.c

AMMD_TEST_CFLAGS = $(AMM_USER_CFLAGS) $(SAN_FLAGS) -I$(TOP)/tests/unit

$(BUILD)/unit/test_agentmmd_config: $(TOP)/tests/unit/test_agentmmd_config.c \
		$(AMMD_LIB_SAN) $(AMM_HDRS) $(TOP)/tests/unit/unit.h | $(BUILD)/unit
	$(CC) $(AMMD_TEST_CFLAGS) -o $@ $< $(AMMD_LIB_SAN)

# The operator surface on the host: escaping, journal records, history,
# metrics checked with the Prometheus client's parser (check_metrics.py).
$(BUILD)/unit/test_agentmmd_ops: $(TOP)/tests/unit/test_agentmmd_ops.c \
		$(AMMD_LIB_SAN) $(AMM_HDRS) $(TOP)/tests/unit/unit.h \
		$(TOP)/tests/unit/check_metrics.py | $(BUILD)/unit
	$(CC) $(AMMD_TEST_CFLAGS) \
		-DCHECK_METRICS='"$(TOP)/tests/unit/check_metrics.py"' \
		-o $@ $< $(AMMD_LIB_SAN) $(AMMD_LIBS)

# The restore journal, on plain directories standing in for cgroups.
$(BUILD)/unit/test_agentmmd_journal: $(TOP)/tests/unit/test_agentmmd_journal.c \
		$(AMMD_LIB_SAN) $(AMM_HDRS) $(TOP)/tests/unit/unit.h \
		| $(BUILD)/unit
	$(CC) $(AMMD_TEST_CFLAGS) -o $@ $< $(AMMD_LIB_SAN) $(AMMD_LIBS)

# The host knob kinds and "agentmmctl knob", on plain files standing in
# for /proc/sys and /sys (hostknob_root).
$(BUILD)/unit/test_hostknob: $(TOP)/tests/unit/test_hostknob.c \
		$(AMMD_LIB_SAN) $(AMM_HDRS) $(TOP)/tests/unit/unit.h | $(BUILD)/unit
	$(CC) $(AMMD_TEST_CFLAGS) -o $@ $< $(AMMD_LIB_SAN) $(AMMD_LIBS)

# The JSON agentmmctl writes for hostile names: exact text, and Python's
# parser reading every name back (check_json.py).
$(BUILD)/unit/test_agentmmd_json: $(TOP)/tests/unit/test_agentmmd_json.c \
		$(AMMD_LIB_SAN) $(AMM_HDRS) $(TOP)/tests/unit/unit.h \
		$(TOP)/tests/unit/check_json.py | $(BUILD)/unit
	$(CC) $(AMMD_TEST_CFLAGS) \
		-DCHECK_JSON='"$(TOP)/tests/unit/check_json.py"' \
		-o $@ $< $(AMMD_LIB_SAN) $(AMMD_LIBS)

# The cgroups of systemd's units (unitbus.c): unit names from hostile
# cgroup names, the unitprop record, no routing without systemd.
$(BUILD)/unit/test_agentmmd_unitbus: $(TOP)/tests/unit/test_agentmmd_unitbus.c \
		$(AMMD_LIB_SAN) $(AMM_HDRS) $(TOP)/tests/unit/unit.h | $(BUILD)/unit
	$(CC) $(AMMD_TEST_CFLAGS) $(AMMD_SAN_SDBUS) -o $@ $< $(AMMD_LIB_SAN) $(AMMD_LIBS)

# The HTTP metrics endpoint on a real loopback socket (libevent).
$(BUILD)/unit/test_httpmetrics: $(TOP)/tests/unit/test_httpmetrics.c \
		$(AMMD_LIB_SAN) $(AMM_HDRS) $(TOP)/tests/unit/unit.h | $(BUILD)/unit
	$(CC) $(AMMD_TEST_CFLAGS) -o $@ $< $(AMMD_LIB_SAN) $(AMMD_LIBS)

# The same through the real agentmmctl, on files of a state directory of
# the test's own.
unit: $(BUILD)/tools/agentmmctl

UNIT_TESTS += $(BUILD)/unit/test_pressure $(BUILD)/unit/test_agentmmd_config \
	$(BUILD)/unit/test_agentmmd_ops $(BUILD)/unit/test_agentmmd_journal \
	$(BUILD)/unit/test_hostknob \
	$(BUILD)/unit/test_agentmmd_json $(BUILD)/unit/test_httpmetrics \
	$(BUILD)/unit/test_agentmmd_unitbus \
	$(TOP)/tests/unit/test_ctl_json.sh
