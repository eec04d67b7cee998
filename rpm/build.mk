# SPDX-License-Identifier: GPL-2.0-only
#
# `make rpm`: source tarball from the tree, then rpmbuild -ba of the two
# SRPMs, RPM Fusion's layout: rpm/agentmm.spec (agentmm, agentmm-tuned,
# agentmm-kmod-common, agentmm-dkms, agentmm-preset) and
# rpm/agentmm-kmod.spec (kmod-agentmm-KVER for each kernel of
# RPM_KERNELS, akmod-agentmm, the kmod-agentmm meta package).
# RPMs land in build/rpm/RPMS/<arch>/, the SRPMs in build/rpm/SRPMS/.
#
#   RPM_KVER=<uname -r>   kernel the first kmod-agentmm-KVER is built for,
#                         and whose BTF the daemon's BPF is compiled
#                         against (default: the running kernel when its
#                         build tree is installed, else the pinned test
#                         kernel, $(TEST_KVER); the package and boot tests
#                         set the test kernel)
#   RPM_KDIR=<dir>        its kernel-devel/headers tree (default: the first
#                         of the test kernel's cached headers,
#                         /usr/src/kernels/KVER, /lib/modules/KVER/build,
#                         /usr/src/linux-headers-KVER that exists)
#   RPM_KERNELS="K1 K2"   every kernel to build a kmod-agentmm-KVER for
#                         (default: RPM_KVER); each one's tree is found as
#                         RPM_KDIR's is (the cached test and floor kernels,
#                         then the system's)
#   RPM_ARGS="..."        extra rpmbuild arguments for both specs (e.g.
#                         --without dkms); RPM_KMOD_ARGS for the kmod
#                         spec only (e.g. --with kabi), RPM_KMOD=no: no
#                         kmod SRPM
#
#   RPM_DAEMON=auto|yes|no  package agentmmd/agentmmctl (spec bcond
#                         "daemon"). yes (default): a daemon that does not
#                         build fails the package build. auto: yes when a
#                         fragment adds them to TOOLS and they build in this
#                         tree (tried first; log in build/rpm/daemon-build.log),
#                         else no, with a warning.
#   The choice is recorded in build/rpm/options for tests/pkg/run.
# On hosts whose rpm has no distribution macros (Debian, Ubuntu) rpmbuild
# runs with --nodeps and the fallback defines; on Fedora/RHEL natively.

RPM_TOPDIR := $(BUILD)/rpm
RPM_SPEC := $(TOP)/rpm/agentmm.spec
RPM_VERSION := $(AMM_VERSION)
RPM_SPEC_VERSION := $(shell sed -n 's/^Version:[[:space:]]*//p' $(RPM_SPEC))
RPM_TARBALL := $(RPM_TOPDIR)/SOURCES/agentmm-$(RPM_VERSION).tar.gz

RPM_RUNNING_KVER := $(shell uname -r)
RPM_KVER ?= $(if $(wildcard /usr/src/kernels/$(RPM_RUNNING_KVER)/Makefile /lib/modules/$(RPM_RUNNING_KVER)/build/Makefile),$(RPM_RUNNING_KVER),$(TEST_KVER))
RPM_KDIR_OF = $(firstword $(foreach d,\
	$(AGENTMM_CACHE)/kernel/$(1)/root/usr/src/linux-headers-$(1) \
	/usr/src/kernels/$(1) /lib/modules/$(1)/build \
	/usr/src/linux-headers-$(1),$(if $(wildcard $(d)/Makefile),$(d))))
RPM_KDIR ?= $(call RPM_KDIR_OF,$(RPM_KVER))
RPM_KERNELS ?= $(RPM_KVER)
RPM_KDIRS = $(foreach k,$(RPM_KERNELS),$(if $(filter $(RPM_KVER),$(k)),$(RPM_KDIR),$(call RPM_KDIR_OF,$(k))))
RPM_KMOD ?= yes
RPM_KMOD_SPEC := $(TOP)/rpm/agentmm-kmod.spec

# Native rpm distribution (its rpm knows %dist and the systemd macros) or not.
RPM_NATIVE := $(shell rpm --eval '%{?dist}' 2>/dev/null | grep -q . && echo yes)
RPM_DIST := $(shell . /etc/os-release 2>/dev/null; echo ".$${ID:-linux}$${VERSION_ID%%.*}")

# Distribution hardening flags where rpm has none of its own (Debian's rpm:
# -O2 -g only): dpkg-buildflags' (stack protector, FORTIFY_SOURCE,
# format-security, relro, now). Fedora/RHEL use %{build_cflags}/%{build_ldflags}.
RPM_DEB_FLAGS = $(filter-out -ffile-prefix-map=%,$(shell DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get $(1) 2>/dev/null))
RPM_DEB_CFLAGS := $(call RPM_DEB_FLAGS,CFLAGS) $(call RPM_DEB_FLAGS,CPPFLAGS)
RPM_DEB_LDFLAGS := $(call RPM_DEB_FLAGS,LDFLAGS)

RPM_DEFINES = $(RPM_DEFINES_BASE) --define 'kversion $(RPM_KVER)' --define 'kdir $(RPM_KDIR)'
RPM_DEFINES_BASE = --define '_topdir $(RPM_TOPDIR)' \
	$(if $(RPM_NATIVE),,--nodeps \
	  --define 'dist $(RPM_DIST)' --define '_docdir_fmt %%{NAME}' \
	  --define '_unitdir /usr/lib/systemd/system' \
	  --define '_presetdir /usr/lib/systemd/system-preset' \
	  --define '_sysctldir /usr/lib/sysctl.d' \
	  --define '_modprobedir /usr/lib/modprobe.d' \
	  --define '_modulesloaddir /usr/lib/modules-load.d' \
	  --define '_dracutdir /usr/lib/dracut' \
	  --define '_enable_debug_packages 1' --define '_debugsource_packages 1' --define 'agentmm_debug_package 1' \
	  $(if $(strip $(RPM_DEB_CFLAGS)),--define 'build_cflags $(strip $(RPM_DEB_CFLAGS))' \
	    --define 'build_ldflags $(strip $(RPM_DEB_LDFLAGS))'))
RPM_DAEMON ?= yes

.PHONY: rpm rpm-kmod rpm-tarball

# The kmod SRPM: kmod-agentmm-KVER for RPM_KERNELS, and akmod-agentmm
# unless RPM_KMOD_ARGS say otherwise (--with kabi: the one kABI kmod).
RPM_KMOD_BUILD = rpmbuild -ba $(RPM_DEFINES_BASE) \
	--define 'kernels $(RPM_KERNELS)' --define 'kdirs $(RPM_KDIRS)' \
	$(if $(findstring --with kabi,$(RPM_KMOD_ARGS)),,--with akmod) \
	$(RPM_ARGS) $(RPM_KMOD_ARGS) $(RPM_TOPDIR)/SPECS/agentmm-kmod.spec

# Every file git knows or would add (tracked + untracked, minus ignored), so
# uncommitted work is packaged too; outside git, everything but build/.
rpm-tarball:
	@mkdir -p $(RPM_TOPDIR)/SOURCES $(RPM_TOPDIR)/SPECS
	@cd $(TOP) && \
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard; \
	else \
		find . -path ./build -prune -o -path ./.git -prune -o -type f -printf '%P\0'; \
	fi | while IFS= read -r -d '' f; do [ -e "$$f" ] && printf '%s\0' "$$f"; done | \
	LC_ALL=C sort -z | \
	tar --null -T - --transform 's|^|agentmm-$(RPM_VERSION)/|' \
		--owner=0 --group=0 --numeric-owner --mode=u+w,go-w \
		--mtime=@$$(git -C $(TOP) log -1 --format=%ct 2>/dev/null || echo 0) \
		-czf $(RPM_TARBALL).tmp
	@mv $(RPM_TARBALL).tmp $(RPM_TARBALL)
	@cp $(RPM_SPEC) $(RPM_KMOD_SPEC) $(RPM_TOPDIR)/SPECS/
	@echo "  TAR     $(RPM_TARBALL)"

rpm: rpm-tarball
	@test "$(RPM_SPEC_VERSION)" = "$(AMM_VERSION)" || { echo "error: rpm/agentmm.spec Version $(RPM_SPEC_VERSION) is not VERSION $(AMM_VERSION)" >&2; exit 1; }
	@test "$$(sed -n 's/^Version:[[:space:]]*//p' $(RPM_KMOD_SPEC))" = "$(AMM_VERSION)" || { echo "error: rpm/agentmm-kmod.spec Version is not VERSION $(AMM_VERSION)" >&2; exit 1; }
	@command -v rpmbuild >/dev/null || { echo "error: rpmbuild not found (Debian: apt-get install rpm; Fedora: dnf install rpm-build)" >&2; exit 1; }
	@test -n "$(RPM_KDIR)" || { echo "error: no kernel build tree for $(RPM_KVER) (the daemon's vmlinux.h, the kmod); run 'make deps' or set RPM_KDIR=" >&2; exit 1; }
	@test "$(RPM_KMOD)" = no || test $(words $(RPM_KDIRS)) = $(words $(RPM_KERNELS)) || { echo "error: no build tree for some of RPM_KERNELS=$(RPM_KERNELS) (found: $(RPM_KDIRS))" >&2; exit 1; }
	@# one rpmbuild at a time in build/rpm (make check and a developer may overlap)
	@exec 9>$(RPM_TOPDIR)/.lock; flock 9; \
	daemon=$(RPM_DAEMON); \
	if [ $$daemon = auto ]; then \
		if [ -z "$(filter %/agentmmd,$(TOOLS))" ]; then daemon=no; \
		elif $(MAKE) --no-print-directory $(BUILD)/tools/agentmmd $(BUILD)/tools/agentmmctl \
			>$(RPM_TOPDIR)/daemon-build.log 2>&1; then daemon=yes; \
		else daemon=no; echo "WARNING: agentmmd/agentmmctl do not build (see $(RPM_TOPDIR)/daemon-build.log); packaging without them" >&2; fi; \
	fi; \
	echo "daemon=$$daemon" > $(RPM_TOPDIR)/options; \
	set -x; rpmbuild -ba $(RPM_DEFINES) $$([ $$daemon = yes ] || echo --without daemon) \
		$(RPM_ARGS) $(RPM_TOPDIR)/SPECS/agentmm.spec && \
	if [ "$(RPM_KMOD)" != no ]; then $(RPM_KMOD_BUILD); fi
	@echo "RPMs:"; find $(RPM_TOPDIR)/RPMS $(RPM_TOPDIR)/SRPMS -name '*.rpm' -newer $(RPM_TARBALL) | sort | sed 's/^/  /'

# Only the kmod SRPM (`make rpm` builds it too).
rpm-kmod: rpm-tarball
	@test $(words $(RPM_KDIRS)) = $(words $(RPM_KERNELS)) || { echo "error: no build tree for some of RPM_KERNELS=$(RPM_KERNELS) (found: $(RPM_KDIRS))" >&2; exit 1; }
	@exec 9>$(RPM_TOPDIR)/.lock; flock 9; set -x; $(RPM_KMOD_BUILD)
	@echo "RPMs:"; find $(RPM_TOPDIR)/RPMS $(RPM_TOPDIR)/SRPMS -name '*.rpm' -newer $(RPM_TARBALL) | sort | sed 's/^/  /'

# `make rpm-aarch64`: the binary RPMs for aarch64 (both specs; the kmod
# for the arm64 kernel, without akmod), cross-built on this host
# (rpmbuild --target aarch64) against Debian's arm64 kernel headers and
# libraries that `make deps` caches (the kernel: the first arm64 line of
# tests/vm/kernel-cross, 4K pages), into build/rpm-aarch64/RPMS/aarch64/.
# A distribution builds them natively on its aarch64 builders with plain
# `make rpm`; this target is how the aarch64 packages are built and
# checked (tests/pkg/aarch64) where there is no aarch64 machine. The unit
# tests (%check) run under qemu-user in `make cross-check`, not here.
RPM_CROSS_TOPDIR := $(BUILD)/rpm-aarch64
RPM_CROSS_KVER := $(shell awk '$$1 == "arm64" { print $$2; exit }' $(TOP)/tests/vm/kernel-cross)
RPM_CROSS_KDIR := $(AGENTMM_CACHE)/kernel/$(RPM_CROSS_KVER)/root/usr/src/linux-headers-$(RPM_CROSS_KVER)
RPM_CROSS_SYSROOT := $(AGENTMM_CACHE)/sysroot/arm64
RPM_CROSS_LIB := $(RPM_CROSS_SYSROOT)/usr/lib/aarch64-linux-gnu
RPM_CROSS_CC := aarch64-linux-gnu-

.PHONY: rpm-aarch64
rpm-aarch64: rpm-tarball
	@test -f $(RPM_CROSS_KDIR)/Makefile || { echo "error: no arm64 kernel headers at $(RPM_CROSS_KDIR) (make deps)" >&2; exit 1; }
	@test -f $(RPM_CROSS_SYSROOT)/.agentmm-complete || { echo "error: no arm64 libraries at $(RPM_CROSS_SYSROOT) (make deps)" >&2; exit 1; }
	@command -v $(RPM_CROSS_CC)gcc >/dev/null || { echo "error: $(RPM_CROSS_CC)gcc not found (make deps: gcc-aarch64-linux-gnu)" >&2; exit 1; }
	@rm -rf $(RPM_CROSS_TOPDIR)/RPMS && mkdir -p $(RPM_CROSS_TOPDIR)/SOURCES $(RPM_CROSS_TOPDIR)/SPECS
	@cp $(RPM_TARBALL) $(RPM_CROSS_TOPDIR)/SOURCES/ && cp $(RPM_SPEC) $(RPM_KMOD_SPEC) $(RPM_CROSS_TOPDIR)/SPECS/
	set -x; rpmbuild -bb --target aarch64 --nocheck \
		$(subst $(RPM_TOPDIR),$(RPM_CROSS_TOPDIR),$(subst $(RPM_KVER),$(RPM_CROSS_KVER),$(subst $(RPM_KDIR),$(RPM_CROSS_KDIR),$(RPM_DEFINES)))) \
		--define '__cc $(RPM_CROSS_CC)gcc' \
		--define 'build_cflags $(strip $(RPM_DEB_CFLAGS)) -I$(RPM_CROSS_SYSROOT)/usr/include' \
		--define 'build_ldflags $(strip $(RPM_DEB_LDFLAGS)) -L$(RPM_CROSS_LIB) -Wl,-rpath-link,$(RPM_CROSS_LIB):$(RPM_CROSS_SYSROOT)/lib/aarch64-linux-gnu' \
		--define '__strip $(RPM_CROSS_CC)strip' --define '__objdump $(RPM_CROSS_CC)objdump' \
		--define 'bpf_arch arm64' --define 'bpf_btf $(RPM_CROSS_KDIR)/vmlinux' \
		$(RPM_ARGS) $(RPM_CROSS_TOPDIR)/SPECS/agentmm.spec
	set -x; rpmbuild -bb --target aarch64 \
		$(subst $(RPM_TOPDIR),$(RPM_CROSS_TOPDIR),$(RPM_DEFINES_BASE)) \
		--define 'kernels $(RPM_CROSS_KVER)' --define 'kdirs $(RPM_CROSS_KDIR)' --without akmod \
		--define '__strip $(RPM_CROSS_CC)strip' --define '__objdump $(RPM_CROSS_CC)objdump' \
		--define 'kmod_make_args ARCH=arm64 CROSS_COMPILE=$(RPM_CROSS_CC)' \
		$(RPM_ARGS) $(RPM_CROSS_TOPDIR)/SPECS/agentmm-kmod.spec
	@echo "RPMs:"; find $(RPM_CROSS_TOPDIR)/RPMS -name '*.rpm' | sort | sed 's/^/  /'
