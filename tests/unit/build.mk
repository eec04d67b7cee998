# Host unit tests for the plain-C policy code, under ASan and UBSan.
UNIT_TESTS += $(BUILD)/unit/test_contig $(TOP)/tests/unit/test_cpu_breakdown.sh

$(BUILD)/unit/test_contig: $(TOP)/tests/unit/test_contig.c \
		$(TOP)/policy/contig.c $(TOP)/policy/contig.h \
		$(TOP)/tests/unit/unit.h | $(BUILD)/unit
	$(CC) $(USER_CFLAGS) $(SAN_FLAGS) -I$(TOP)/policy -I$(TOP)/tests/unit \
		-o $@ $(TOP)/tests/unit/test_contig.c $(TOP)/policy/contig.c

-include $(filter-out $(TOP)/tests/unit/build.mk,$(wildcard $(TOP)/tests/unit/*.mk))
