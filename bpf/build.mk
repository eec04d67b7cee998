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

# BPF_VMLINUX_H: a vmlinux.h taken as it is instead of one dumped from
# BPF_VMLINUX. The package builds (debian/rules) pass the pinned
# bpf/vmlinux/$(BPF_ARCH)/vmlinux.h: a package is never built against the
# build host's running kernel, and CO-RE relocates at load time, so one
# vmlinux.h per architecture serves every kernel (bpf/vmlinux/README.md).
BPF_VMLINUX_H ?=
ifneq ($(BPF_VMLINUX_H),)
$(BPF_OUT)/vmlinux.h: $(BPF_VMLINUX_H) | $(BPF_OUT)
	cp $< $@
else
# BPF_VMLINUX is a file with BTF, or a ready vmlinux.h (Fedora's and RHEL's
# kernel-devel ship /usr/src/kernels/KVER/vmlinux.h; rpm/agentmm.spec).
$(BPF_OUT)/vmlinux.h: $(BPF_VMLINUX) | $(BPF_OUT)
	$(if $(filter %.h,$(BPF_VMLINUX)),cp $< $@.tmp,$(BPFTOOL) btf dump file $< format c > $@.tmp)
	mv $@.tmp $@
endif

# `make vmlinux-h`: the pinned headers again, from the BTF of the kernels
# they are pinned to (make deps caches their linux-headers, whose vmlinux
# carries the BTF): the test kernel (x86) and the first arm64 kernel of
# tests/vm/kernel-cross. tests/pkg/deb checks that they are still that.
BPF_PIN_KVERS := x86:$(TEST_KVER) \
	arm64:$(shell awk '$$1 == "arm64" { print $$2; exit }' $(TOP)/tests/vm/kernel-cross)
.PHONY: vmlinux-h
vmlinux-h:
	@set -e; for p in $(BPF_PIN_KVERS); do a=$${p%%:*} k=$${p#*:}; \
		btf=$(AGENTMM_CACHE)/kernel/$$k/root/usr/src/linux-headers-$$k/vmlinux; \
		test -f $$btf || { echo "error: no BTF at $$btf: run 'make deps'" >&2; exit 1; }; \
		mkdir -p $(TOP)/bpf/vmlinux/$$a; \
		$(BPFTOOL) btf dump file $$btf format c >$(TOP)/bpf/vmlinux/$$a/vmlinux.h.tmp; \
		mv $(TOP)/bpf/vmlinux/$$a/vmlinux.h.tmp $(TOP)/bpf/vmlinux/$$a/vmlinux.h; \
		echo "  VMLINUX bpf/vmlinux/$$a/vmlinux.h ($$k)"; done

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
