# SPDX-License-Identifier: GPL-2.0
#
# Host unit test of the adaptive mTHP governor (kmod/policy/governor.c).
# Meant to be included from tests/unit/build.mk.

GOVERNOR_TEST_SRCS := $(TOP)/tests/unit/test_governor.c \
		      $(TOP)/kmod/policy/governor.c \
		      $(TOP)/kmod/policy/contig.c
GOVERNOR_TEST_HDRS := $(TOP)/kmod/policy/governor.h \
		      $(TOP)/kmod/policy/contig.h \
		      $(TOP)/kmod/policy/amm_types.h

$(BUILD)/unit/test_governor: $(GOVERNOR_TEST_SRCS) $(GOVERNOR_TEST_HDRS) \
			     | $(BUILD)/unit
	$(CC) $(USER_CFLAGS) $(SAN_FLAGS) -I$(TOP)/kmod/policy \
		-o $@ $(GOVERNOR_TEST_SRCS)

UNIT_TESTS += $(BUILD)/unit/test_governor
