# SPDX-License-Identifier: GPL-2.0
# agentmmd and agentmmctl (their tests: tests/unit/agentmmd.mk,
# tests/progs/build.mk). The BPF skeleton
# comes from bpf/build.mk; the plain-C policy from policy/.

AMMD_DIR := $(TOP)/agentmmd
# bpf/build.mk (included after this file) builds the skeleton here.
BPF_OUT := $(BUILD)/bpf
AMMD_SRCS := $(addprefix $(AMMD_DIR)/,main.c usage.c log.c action.c journal.c loader.c \
	journalfmt.c sbtable.c sandbox.c runtime.c tools.c events.c identity.c actuate.c tick.c status.c \
	config.c cgroup.c governor.c thpknob.c thpfile.c govparse.c escape.c history.c metrics.c \
	control.c exempt.c reclaim.c) $(TOP)/policy/pressure.c $(TOP)/policy/governor.c \
	$(TOP)/policy/contig.c $(TOP)/policy/parse.c
AMMCTL_SRCS := $(AMMD_DIR)/agentmmctl.c $(AMMD_DIR)/statusfile.c $(AMMD_DIR)/config.c \
	$(AMMD_DIR)/cgroup.c $(AMMD_DIR)/escape.c $(TOP)/policy/parse.c \
	$(TOP)/policy/contig.c
AMM_HDRS := $(wildcard $(AMMD_DIR)/*.h) $(TOP)/bpf/agentmm.h \
	$(TOP)/policy/pressure.h $(TOP)/policy/amm_types.h \
	$(TOP)/policy/governor.h $(TOP)/policy/contig.h $(TOP)/policy/parse.h
# Paths are bounded when sandboxes are found (longer ones are skipped), so
# gcc's worst-case snprintf truncation analysis only produces noise here.
AMM_USER_CFLAGS := $(USER_CFLAGS) -Wno-format-truncation -I$(BPF_OUT) \
	-I$(AMMD_DIR) -I$(TOP)/bpf -I$(TOP)/policy

$(BUILD)/tools/agentmmd: $(AMMD_SRCS) $(AMM_HDRS) $(BPF_OUT)/agentmm.skel.h \
		| $(BUILD)/tools
	$(CC) $(AMM_USER_CFLAGS) -o $@ $(AMMD_SRCS) -lbpf -lelf -lz -pthread

$(BUILD)/guest/bin/agentmmd: $(AMMD_SRCS) $(AMM_HDRS) $(BPF_OUT)/agentmm.skel.h \
		| $(BUILD)/guest/bin
	$(CC) $(AMM_USER_CFLAGS) $(STATIC_LDFLAGS) -o $@ $(AMMD_SRCS) \
		-lbpf -lelf -lz -lzstd -pthread

$(BUILD)/tools/agentmmctl: $(AMMCTL_SRCS) $(AMM_HDRS) | $(BUILD)/tools
	$(CC) $(AMM_USER_CFLAGS) -o $@ $(AMMCTL_SRCS)

$(BUILD)/guest/bin/agentmmctl: $(AMMCTL_SRCS) $(AMM_HDRS) | $(BUILD)/guest/bin
	$(CC) $(AMM_USER_CFLAGS) $(STATIC_LDFLAGS) -o $@ $(AMMCTL_SRCS)

TOOLS += $(BUILD)/tools/agentmmd $(BUILD)/tools/agentmmctl
GUEST_BINS += $(BUILD)/guest/bin/agentmmd $(BUILD)/guest/bin/agentmmctl
