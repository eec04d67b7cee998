# SPDX-License-Identifier: GPL-2.0
#
# Host unit test of the adaptive mTHP governor (policy/governor.c).
# Meant to be included from tests/unit/build.mk.

GOVERNOR_TEST_SRCS := $(TOP)/tests/unit/test_governor.c \
		      $(TOP)/policy/governor.c \
		      $(TOP)/policy/contig.c
GOVERNOR_TEST_HDRS := $(TOP)/policy/governor.h $(TOP)/policy/govtunables.h \
		      $(TOP)/policy/contig.h \
		      $(TOP)/policy/amm_types.h \
		      $(TOP)/tests/unit/unit.h

$(BUILD)/unit/test_governor: $(GOVERNOR_TEST_SRCS) $(GOVERNOR_TEST_HDRS) \
			     | $(BUILD)/unit
	$(CC) $(USER_CFLAGS) $(SAN_FLAGS) -I$(TOP)/policy -I$(TOP)/tests/unit \
		-o $@ $(GOVERNOR_TEST_SRCS)

UNIT_TESTS += $(BUILD)/unit/test_governor

# Host unit test of the module's parameter and sysfs parsers (policy/parse.c).
PARSE_TEST_SRCS := $(TOP)/tests/unit/test_parse.c $(TOP)/policy/parse.c \
		   $(TOP)/policy/contig.c

$(BUILD)/unit/test_parse: $(PARSE_TEST_SRCS) $(TOP)/policy/parse.h \
			  $(TOP)/policy/contig.h $(TOP)/policy/amm_types.h \
			  $(TOP)/tests/unit/unit.h | $(BUILD)/unit
	$(CC) $(USER_CFLAGS) $(SAN_FLAGS) -I$(TOP)/policy -I$(TOP)/tests/unit \
		-o $@ $(PARSE_TEST_SRCS)

UNIT_TESTS += $(BUILD)/unit/test_parse
