# SPDX-License-Identifier: GPL-2.0
# BPF programs, agentmmd, agentmmctl, their unit tests and test helpers.
# Everything generated goes to $(BUILD)/bpf.

BPF_OUT := $(BUILD)/bpf
BPFTOOL ?= bpftool
BPF_CLANG ?= clang
# CO-RE: vmlinux.h from the test kernel's BTF when we have it (the object
# then loads on 6.12 and later); else the build host's own BTF.
BPF_VMLINUX := $(firstword $(wildcard $(TEST_KDIR)/vmlinux \
	/usr/src/linux-headers-$(TEST_KVER)/vmlinux) /sys/kernel/btf/vmlinux)
BPF_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Werror \
	-I$(BPF_OUT) -I$(TOP)/bpf

AMMD_SRCS := $(TOP)/bpf/agentmmd.c $(TOP)/bpf/config.c $(TOP)/bpf/cgroup.c \
	$(TOP)/policy/pressure.c
AMMCTL_SRCS := $(TOP)/bpf/agentmmctl.c $(TOP)/bpf/config.c $(TOP)/bpf/cgroup.c
AMM_HDRS := $(wildcard $(TOP)/bpf/*.h) $(TOP)/policy/pressure.h \
	$(TOP)/policy/amm_types.h
# Paths are bounded when sandboxes are found (longer ones are skipped), so
# gcc's worst-case snprintf truncation analysis only produces noise here.
AMM_USER_CFLAGS := $(USER_CFLAGS) -Wno-format-truncation -I$(BPF_OUT) \
	-I$(TOP)/bpf -I$(TOP)/policy

$(BPF_OUT):
	mkdir -p $@

$(BPF_OUT)/vmlinux.h: $(BPF_VMLINUX) | $(BPF_OUT)
	$(BPFTOOL) btf dump file $< format c > $@.tmp
	mv $@.tmp $@

$(BPF_OUT)/agentmm.tmp.bpf.o: $(TOP)/bpf/agentmm.bpf.c $(TOP)/bpf/agentmm.h \
		$(BPF_OUT)/vmlinux.h
	$(BPF_CLANG) $(BPF_CFLAGS) -c $< -o $@

# `gen object` drops DWARF, so the skeleton embeds a small object.
$(BPF_OUT)/agentmm.bpf.o: $(BPF_OUT)/agentmm.tmp.bpf.o
	$(BPFTOOL) gen object $@ $<

$(BPF_OUT)/agentmm.skel.h: $(BPF_OUT)/agentmm.bpf.o
	$(BPFTOOL) gen skeleton $< name agentmm_bpf > $@.tmp
	mv $@.tmp $@

$(BUILD)/tools/agentmmd: $(AMMD_SRCS) $(AMM_HDRS) $(BPF_OUT)/agentmm.skel.h \
		| $(BUILD)/tools
	$(CC) $(AMM_USER_CFLAGS) -o $@ $(AMMD_SRCS) -lbpf -lelf -lz

$(BUILD)/guest/bin/agentmmd: $(AMMD_SRCS) $(AMM_HDRS) $(BPF_OUT)/agentmm.skel.h \
		| $(BUILD)/guest/bin
	$(CC) $(AMM_USER_CFLAGS) $(STATIC_LDFLAGS) -o $@ $(AMMD_SRCS) \
		-lbpf -lelf -lz -lzstd

$(BUILD)/tools/agentmmctl: $(AMMCTL_SRCS) $(AMM_HDRS) | $(BUILD)/tools
	$(CC) $(AMM_USER_CFLAGS) -o $@ $(AMMCTL_SRCS)

$(BUILD)/guest/bin/agentmmctl: $(AMMCTL_SRCS) $(AMM_HDRS) | $(BUILD)/guest/bin
	$(CC) $(AMM_USER_CFLAGS) $(STATIC_LDFLAGS) -o $@ $(AMMCTL_SRCS)

# Test helpers for the in-guest daemon tests.
$(BUILD)/guest/bin/memhog: $(TOP)/tests/progs/memhog.c | $(BUILD)/guest/bin
	$(CC) $(USER_CFLAGS) $(STATIC_LDFLAGS) -o $@ $<

$(BUILD)/unit/test_pressure: $(TOP)/tests/unit/test_pressure.c \
		$(TOP)/policy/pressure.c $(TOP)/policy/pressure.h \
		$(TOP)/policy/amm_types.h | $(BUILD)/unit
	$(CC) $(USER_CFLAGS) $(SAN_FLAGS) -I$(TOP)/policy -o $@ \
		$(TOP)/tests/unit/test_pressure.c $(TOP)/policy/pressure.c

$(BUILD)/unit/test_agentmmd_config: $(TOP)/tests/unit/test_agentmmd_config.c \
		$(TOP)/bpf/config.c $(TOP)/bpf/cgroup.c $(TOP)/bpf/config.h \
		$(TOP)/bpf/cgroup.h | $(BUILD)/unit
	$(CC) $(USER_CFLAGS) $(SAN_FLAGS) -I$(TOP)/bpf -o $@ \
		$(TOP)/tests/unit/test_agentmmd_config.c $(TOP)/bpf/config.c \
		$(TOP)/bpf/cgroup.c

TOOLS += $(BUILD)/tools/agentmmd $(BUILD)/tools/agentmmctl
GUEST_BINS += $(BUILD)/guest/bin/agentmmd $(BUILD)/guest/bin/agentmmctl \
	$(BUILD)/guest/bin/memhog
UNIT_TESTS += $(BUILD)/unit/test_pressure $(BUILD)/unit/test_agentmmd_config

.PHONY: bpf
bpf: $(BPF_OUT)/agentmm.skel.h
