# SPDX-License-Identifier: GPL-2.0
# The BPF programs and their skeleton (agentmm.skel.h), which agentmmd
# (agentmmd/build.mk) embeds. Everything generated goes to $(BUILD)/bpf.

BPF_OUT := $(BUILD)/bpf
BPFTOOL ?= bpftool
BPF_CLANG ?= clang
# CO-RE: vmlinux.h from the test kernel's BTF when we have it (the object
# then loads on 6.12 and later); else the build host's own BTF.
BPF_VMLINUX := $(firstword $(wildcard $(TEST_KDIR)/vmlinux \
	/usr/src/linux-headers-$(TEST_KVER)/vmlinux) /sys/kernel/btf/vmlinux)
BPF_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Wall $(WERROR) \
	-I$(BPF_OUT) -I$(TOP)/bpf

$(BPF_OUT):
	mkdir -p $@

# BPF_VMLINUX is a file with BTF, or a ready vmlinux.h (Fedora's and RHEL's
# kernel-devel ship /usr/src/kernels/KVER/vmlinux.h; rpm/agentmm.spec).
$(BPF_OUT)/vmlinux.h: $(BPF_VMLINUX) | $(BPF_OUT)
	$(if $(filter %.h,$(BPF_VMLINUX)),cp $< $@.tmp,$(BPFTOOL) btf dump file $< format c > $@.tmp)
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

.PHONY: bpf
bpf: $(BPF_OUT)/agentmm.skel.h
