# SPDX-License-Identifier: GPL-2.0
# make structure-check: the code's shape on the built tree - no cycle in the
# call or include graphs, no .c included, one header per daemon file, no
# file over 800 lines or function over 120, kmod/ and policy/ checkpatch
# clean, the shipped shell scripts shellcheck clean and without a function
# over 120 lines (tests/structure/check.py).
.PHONY: structure-check
structure-check: $(AMMD_LIB) test-module
	@$(TOP)/tests/structure/check.py $(TOP) $(AGENTMM_CACHE)/checkpatch/checkpatch.pl

# agentmmd.conf(5)'s KEYS AT A GLANCE from agentmmd/configkeys.h and
# policy/govtunables.h (structure-check fails when it is stale).
.PHONY: man-keys
man-keys:
	@$(TOP)/tests/structure/gen_keys.py $(TOP) --write
