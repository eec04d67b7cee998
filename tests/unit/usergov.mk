# SPDX-License-Identifier: GPL-2.0
#
# Host unit test of the user-space governor's /proc parsers
# (agentmmd/govparse.c) on captured /proc text in tests/unit/data/.
# Included from tests/unit/build.mk.

USERGOV_TEST_SRCS := $(TOP)/tests/unit/test_usergov.c \
		     $(TOP)/agentmmd/govparse.c $(TOP)/policy/contig.c \
		     $(TOP)/policy/parse.c
USERGOV_TEST_HDRS := $(TOP)/agentmmd/usergov.h $(TOP)/policy/governor.h \
		     $(TOP)/policy/contig.h $(TOP)/policy/parse.h \
		     $(TOP)/policy/amm_types.h \
		     $(TOP)/tests/unit/unit.h

$(BUILD)/unit/test_usergov: $(USERGOV_TEST_SRCS) $(USERGOV_TEST_HDRS) \
			    | $(BUILD)/unit
	$(CC) $(USER_CFLAGS) $(SAN_FLAGS) -I$(TOP)/agentmmd -I$(TOP)/policy \
		-I$(TOP)/tests/unit -DUSERGOV_DATA='"$(TOP)/tests/unit/data"' \
		-o $@ $(USERGOV_TEST_SRCS)

UNIT_TESTS += $(BUILD)/unit/test_usergov
