# SPDX-License-Identifier: GPL-2.0
#
# libFuzzer targets, built with clang and ASan/UBSan on the host. Seeds live
# in tests/fuzz/corpus/<target>/; runs work on a copy under $(BUILD)/fuzz,
# so the tree's corpus only changes when someone adds a seed on purpose
# (e.g. a crash reproducer).
#
# Every target is in FUZZ_TARGETS ($(BUILD)/fuzz/fuzz_<name>, seeds in
# tests/fuzz/corpus/<name>/, optional dictionary tests/fuzz/<name>.dict);
# tests/fuzz/<area>.mk fragments add theirs. tests/fuzz/run runs them:
#   make fuzz        every target for FUZZ_SECONDS (default 600 s) each
#   make fuzz-smoke  every target for FUZZ_SMOKE_SECONDS (default 12 s)
#                    each; part of make check
# and for agentmm.ko's parameter and sysfs parsers (policy/parse.c) and the
# governor's config check alone:
#   make fuzz-smoke-module   short run (FUZZ_SMOKE_SECONDS)
#   make fuzz-module         long run (FUZZ_SECONDS)

FUZZ_CC ?= clang
FUZZ_CFLAGS := -std=c11 -g -O1 -Wall -Wextra -Werror -D_GNU_SOURCE \
	       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	       -fno-omit-frame-pointer
FUZZ_SMOKE_SECONDS ?= 12
FUZZ_SECONDS ?= 600
FUZZ_TARGETS :=

FUZZ_MODULE_SRCS := $(TOP)/tests/fuzz/fuzz_module_parse.c \
		    $(TOP)/policy/parse.c $(TOP)/policy/contig.c \
		    $(TOP)/policy/governor.c
FUZZ_MODULE_HDRS := $(TOP)/policy/parse.h $(TOP)/policy/contig.h \
		    $(TOP)/policy/governor.h $(TOP)/policy/govtunables.h \
		    $(TOP)/policy/amm_types.h

$(BUILD)/fuzz:
	mkdir -p $@

$(BUILD)/fuzz/fuzz_module_parse: $(FUZZ_MODULE_SRCS) $(FUZZ_MODULE_HDRS) \
				 | $(BUILD)/fuzz
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(TOP)/policy -o $@ $(FUZZ_MODULE_SRCS)

FUZZ_TARGETS += $(BUILD)/fuzz/fuzz_module_parse

# $(1): seconds. Fresh work corpus seeded from the tree; crashes land in
# $(BUILD)/fuzz/ as crash-* (the run fails and names the file).
define fuzz_module_run
	rm -rf $(BUILD)/fuzz/work-module && mkdir -p $(BUILD)/fuzz/work-module
	cp $(TOP)/tests/fuzz/corpus/module_parse/* $(BUILD)/fuzz/work-module/
	rm -f $(BUILD)/fuzz/crash-* $(BUILD)/fuzz/leak-* $(BUILD)/fuzz/timeout-*
	cd $(BUILD)/fuzz && ./fuzz_module_parse -max_total_time=$(1) \
		-max_len=256 -timeout=10 -print_final_stats=1 \
		work-module >fuzz-module.log 2>&1; rc=$$?; \
		tail -n 15 fuzz-module.log; \
		if [ $$rc = 0 ]; then echo "fuzz-module: 1 passed, 0 failed"; \
		else echo "fuzz-module: 0 passed, 1 failed"; fi; exit $$rc
	@test -z "$$(ls $(BUILD)/fuzz/crash-* $(BUILD)/fuzz/leak-* $(BUILD)/fuzz/timeout-* 2>/dev/null)" || \
		{ echo "fuzz-module: failing inputs in $(BUILD)/fuzz/ (see above)" >&2; exit 1; }
endef

.PHONY: fuzz-smoke-module fuzz-module
fuzz-smoke-module: $(BUILD)/fuzz/fuzz_module_parse
	$(call fuzz_module_run,$(FUZZ_SMOKE_SECONDS))

fuzz-module: $(BUILD)/fuzz/fuzz_module_parse
	$(call fuzz_module_run,$(FUZZ_SECONDS))

-include $(filter-out $(TOP)/tests/fuzz/build.mk,$(wildcard $(TOP)/tests/fuzz/*.mk))

.PHONY: fuzz fuzz-smoke fuzz-bins
fuzz-bins: $(FUZZ_TARGETS)

fuzz: $(FUZZ_TARGETS)
	$(TOP)/tests/fuzz/run $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-smoke: $(FUZZ_TARGETS)
	@$(TOP)/tests/fuzz/run $(FUZZ_SMOKE_SECONDS) $(FUZZ_TARGETS)
