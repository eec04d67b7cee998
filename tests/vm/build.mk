# SPDX-License-Identifier: GPL-2.0
# make vm-check-floor: agentmm.ko on its floor kernel (tests/vm/kernel-floor,
# Debian 12's 6.1 series, fetched by make deps), where there is no
# multi-size THP. The module is built from a copy of its sources under
# build/floor, so the tree's build for the main test kernel is left alone,
# and the floor's tests run in that kernel's guest (tests/vm/tests/floor-*
# and the module tests that do not need mTHP).
FLOOR_KVER := $(shell cat $(TOP)/tests/vm/kernel-floor)
FLOOR_KDIR := $(AGENTMM_CACHE)/kernel/$(FLOOR_KVER)/root/usr/src/linux-headers-$(FLOOR_KVER)
FLOOR_SRC := $(BUILD)/floor/src
FLOOR_TESTS ?= 'floor-*' sensor-buddyinfo

.PHONY: floor-module vm-check-floor vm-host-usr-check
# make vm-host-usr-check: the guest with this host's /usr (tests/vm/run
# --host-usr), as make bench-coldstart boots it (tests/vm/host-usr-check).
vm-host-usr-check: test-module guest-bins
	@$(TOP)/tests/vm/host-usr-check

floor-module:
	@test -f $(FLOOR_KDIR)/Makefile || { echo "error: floor kernel headers missing at $(FLOOR_KDIR); run 'make deps'" >&2; exit 1; }
	mkdir -p $(FLOOR_SRC)/kmod $(FLOOR_SRC)/policy
	cp -p $(TOP)/Kbuild $(TOP)/VERSION $(FLOOR_SRC)/
	cp -p $(TOP)/kmod/*.[ch] $(FLOOR_SRC)/kmod/
	cp -p $(TOP)/policy/*.[ch] $(FLOOR_SRC)/policy/
	$(MAKE) -C $(FLOOR_KDIR) M=$(FLOOR_SRC) modules

vm-check-floor: floor-module guest-bins
	VM_KVER=$(FLOOR_KVER) VM_KO=$(FLOOR_SRC)/agentmm.ko \
		$(TOP)/tests/vm/run $(FLOOR_TESTS)
