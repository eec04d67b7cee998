# SPDX-License-Identifier: GPL-2.0
# Fuzz targets for what agentmmd and agentmmctl parse: the configuration
# file, the restore journal, the status file. Included by tests/fuzz/build.mk.
FUZZ_AMMD := $(TOP)/agentmmd
FUZZ_AMMD_HDRS := $(wildcard $(FUZZ_AMMD)/*.h)

$(BUILD)/fuzz/fuzz_config: $(TOP)/tests/fuzz/fuzz_config.c \
		$(FUZZ_AMMD)/config.c $(FUZZ_AMMD_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(FUZZ_AMMD) -o $@ $< $(FUZZ_AMMD)/config.c

# agentmmctl.c is compiled into the target (its main renamed).
$(BUILD)/fuzz/fuzz_status: $(TOP)/tests/fuzz/fuzz_status.c \
		$(FUZZ_AMMD)/agentmmctl.c $(FUZZ_AMMD)/config.c \
		$(FUZZ_AMMD)/cgroup.c $(FUZZ_AMMD_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(FUZZ_AMMD) -o $@ $< \
		$(FUZZ_AMMD)/config.c $(FUZZ_AMMD)/cgroup.c

FUZZ_TARGETS += $(BUILD)/fuzz/fuzz_config $(BUILD)/fuzz/fuzz_status
