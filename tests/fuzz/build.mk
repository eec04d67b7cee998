# SPDX-License-Identifier: GPL-2.0
# libFuzzer targets (clang). Each area's fragment tests/fuzz/<area>.mk adds
# its programs to FUZZ_TARGETS, $(BUILD)/fuzz/<name>, with seeds in
# tests/fuzz/corpus/<name>/ and optionally a dictionary tests/fuzz/<name>.dict.
#   make fuzz        every target for FUZZ_SECONDS (default 600) each
#   make fuzz-smoke  every target for FUZZ_SMOKE_SECONDS (default 15) each;
#                    part of make check
FUZZ_TARGETS :=
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 15
FUZZ_CC ?= clang
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g -O1 \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer

-include $(filter-out $(TOP)/tests/fuzz/build.mk,$(wildcard $(TOP)/tests/fuzz/*.mk))

.PHONY: fuzz fuzz-smoke fuzz-bins
fuzz-bins: $(FUZZ_TARGETS)

fuzz: $(FUZZ_TARGETS)
	$(TOP)/tests/fuzz/run $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-smoke: $(FUZZ_TARGETS)
	@$(TOP)/tests/fuzz/run $(FUZZ_SMOKE_SECONDS) $(FUZZ_TARGETS)
