# SPDX-License-Identifier: GPL-2.0
#
# libFuzzer targets for agentmm.ko's parameter and sysfs parsers
# (policy/parse.c) and the governor's config check, built with clang and
# ASan/UBSan on the host. Seeds live in tests/fuzz/corpus/<target>/; runs
# work on a copy under $(BUILD)/fuzz, so the tree's corpus only changes
# when someone adds a seed on purpose (e.g. a crash reproducer).
#
#   make fuzz-smoke-module   short run (FUZZ_SMOKE_SECONDS, default 15 s),
#                            meant for `make check`
#   make fuzz-module         long run (FUZZ_SECONDS, default 600 s)

FUZZ_CC ?= clang
FUZZ_CFLAGS := -std=c11 -g -O1 -Wall -Wextra -Werror -D_GNU_SOURCE \
	       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_SMOKE_SECONDS ?= 15
FUZZ_SECONDS ?= 600

FUZZ_MODULE_SRCS := $(TOP)/tests/fuzz/fuzz_module_parse.c \
		    $(TOP)/policy/parse.c $(TOP)/policy/contig.c \
		    $(TOP)/policy/governor.c
FUZZ_MODULE_HDRS := $(TOP)/policy/parse.h $(TOP)/policy/contig.h \
		    $(TOP)/policy/governor.h $(TOP)/policy/amm_types.h

$(BUILD)/fuzz:
	mkdir -p $@

$(BUILD)/fuzz/fuzz_module_parse: $(FUZZ_MODULE_SRCS) $(FUZZ_MODULE_HDRS) \
				 | $(BUILD)/fuzz
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(TOP)/policy -o $@ $(FUZZ_MODULE_SRCS)

# $(1): seconds. Fresh work corpus seeded from the tree; crashes land in
# $(BUILD)/fuzz/ as crash-* (the run fails and names the file).
define fuzz_module_run
	rm -rf $(BUILD)/fuzz/work-module && mkdir -p $(BUILD)/fuzz/work-module
	cp $(TOP)/tests/fuzz/corpus/module_parse/* $(BUILD)/fuzz/work-module/
	rm -f $(BUILD)/fuzz/crash-* $(BUILD)/fuzz/leak-* $(BUILD)/fuzz/timeout-*
	cd $(BUILD)/fuzz && ./fuzz_module_parse -max_total_time=$(1) \
		-max_len=256 -timeout=10 -print_final_stats=1 \
		work-module >fuzz-module.log 2>&1; rc=$$?; \
		tail -n 15 fuzz-module.log; exit $$rc
	@test -z "$$(ls $(BUILD)/fuzz/crash-* $(BUILD)/fuzz/leak-* $(BUILD)/fuzz/timeout-* 2>/dev/null)" || \
		{ echo "fuzz-module: failing inputs in $(BUILD)/fuzz/ (see above)" >&2; exit 1; }
endef

.PHONY: fuzz-smoke-module fuzz-module
fuzz-smoke-module: $(BUILD)/fuzz/fuzz_module_parse
	$(call fuzz_module_run,$(FUZZ_SMOKE_SECONDS))

fuzz-module: $(BUILD)/fuzz/fuzz_module_parse
	$(call fuzz_module_run,$(FUZZ_SECONDS))
