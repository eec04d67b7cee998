# SPDX-License-Identifier: GPL-2.0
#
# Host unit test of the user-space governor's /proc parsers
# (agentmmd/govparse.c, in the daemon's library) on captured /proc text in
# tests/unit/data/. Included from tests/unit/build.mk.

$(BUILD)/unit/test_usergov: $(TOP)/tests/unit/test_usergov.c $(AMMD_LIB_SAN) \
			    $(AMM_HDRS) $(TOP)/tests/unit/unit.h | $(BUILD)/unit
	$(CC) $(AMMD_TEST_CFLAGS) -DUSERGOV_DATA='"$(TOP)/tests/unit/data"' \
		-o $@ $< $(AMMD_LIB_SAN)

UNIT_TESTS += $(BUILD)/unit/test_usergov

# agentmmd/modgov.c on a directory tree laid out as /sys/kernel/agentmm.
$(BUILD)/unit/test_modgov: $(TOP)/tests/unit/test_modgov.c $(AMMD_LIB_SAN) \
			   $(AMM_HDRS) $(TOP)/tests/unit/unit.h | $(BUILD)/unit
	$(CC) $(AMMD_TEST_CFLAGS) -o $@ $< $(AMMD_LIB_SAN) $(AMMD_LIBS)

UNIT_TESTS += $(BUILD)/unit/test_modgov
