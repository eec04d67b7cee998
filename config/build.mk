# SPDX-License-Identifier: GPL-2.0-only
#
# `make install`: the FHS layout the packages use, for distributions without
# the RPMs (Debian/Ubuntu, Arch, image builders). rpm/agentmm.spec installs
# through these same targets, so there is one list of what goes where.
#
#   make install DESTDIR=/tmp/stage PREFIX=/usr     daemon, CLI, unit,
#        preset, tuned profile, sysctl.d, daemon config, man pages, docs,
#        and the compressed memory tier (install-swap)
#   make install-swap DESTDIR=...                    agentmm-swap in
#        $(LIBEXECDIR)/agentmm and agentmm-swap.service (opt-in: in no
#        preset; docs/compressed-tier.md)
#   make install-dkms DESTDIR=...                    agentmm.ko source for
#        DKMS in $(USRSRCDIR)/agentmm-VERSION, plus the module config
#   make install-kmod DESTDIR=... KVER=<uname -r>    agentmm.ko built for
#        KVER (KDIR=its build tree) in /lib/modules/KVER/extra/agentmm,
#        plus the module config; run depmod -a KVER afterwards
#   make install-module-config DESTDIR=...           modprobe.d,
#        modules-load.d, dracut module only (part of install-dkms/-kmod)
#   make install-apparmor DESTDIR=...                agentmmd's AppArmor
#        profile in $(SYSCONFDIR)/apparmor.d (not part of install: the
#        packages ship it on its own; docs/confinement.md)
#   make install-selinux DESTDIR=... [SELINUXTYPE=targeted]  agentmmd's
#        SELinux policy module, built with the reference policy's devel
#        Makefile, in $(DATADIR)/selinux/packages/SELINUXTYPE/agentmmd.pp.bz2
#        and its interface in $(DATADIR)/selinux/devel/include/distributed
#
# Variables (defaults in brackets): DESTDIR [], PREFIX [/usr], SYSCONFDIR
# [/etc], BINDIR, SBINDIR, LIBEXECDIR, DATADIR, MANDIR, DOCDIR, LICENSEDIR, UNITDIR,
# PRESETDIR, SYSCTLDIR, MODPROBEDIR, MODULESLOADDIR, DRACUTDIR, TUNEDDIR,
# USRSRCDIR, INSTALL_DAEMON [1: 0 leaves out agentmmd, agentmmctl, unit,
# preset and daemon config]. PREFIX is /usr because systemd, kmod, dracut
# and tuned read their vendor directories only under /usr/lib.

PREFIX ?= /usr
SYSCONFDIR ?= /etc
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
# agentmm-swap.service names /usr/libexec/agentmm/agentmm-swap: the spec
# passes $(PREFIX)/libexec whatever %{_libexecdir} is on the distribution.
LIBEXECDIR ?= $(PREFIX)/libexec
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
DOCDIR ?= $(DATADIR)/doc/agentmm
LICENSEDIR ?= $(DATADIR)/licenses/agentmm
UNITDIR ?= $(PREFIX)/lib/systemd/system
PRESETDIR ?= $(PREFIX)/lib/systemd/system-preset
SYSCTLDIR ?= $(PREFIX)/lib/sysctl.d
MODPROBEDIR ?= $(PREFIX)/lib/modprobe.d
MODULESLOADDIR ?= $(PREFIX)/lib/modules-load.d
DRACUTDIR ?= $(PREFIX)/lib/dracut
TUNEDDIR ?= $(PREFIX)/lib/tuned
USRSRCDIR ?= $(PREFIX)/src
INSTALL_DAEMON ?= 1
KVER ?= $(shell uname -r)
INSTALL ?= install
D := $(DESTDIR)

# Man pages anywhere in the tree (agentmm(4) in man/, the daemon's beside
# it), and the docs shipped with the base package.
AMM_MANPAGES = $(sort $(wildcard $(TOP)/man/*.[1-8]))
AMM_DOCS = $(wildcard $(TOP)/README.md $(TOP)/docs/install.md \
	$(TOP)/docs/image-baking.md $(TOP)/docs/tuned.md \
	$(TOP)/docs/secure-boot.md $(TOP)/docs/kubernetes.md \
	$(TOP)/docs/compressed-tier.md $(TOP)/docs/governor.md \
	$(TOP)/docs/page-merging.md $(TOP)/docs/agentmmd-trust.md)
# Sources DKMS builds from: what Kbuild names (kmod/, policy/).
AMM_KMOD_SRC = Kbuild VERSION $(patsubst $(TOP)/%,%,$(sort $(wildcard $(TOP)/kmod/*.[ch] \
	$(TOP)/policy/*.[ch])))

.PHONY: install install-data install-daemon install-swap install-module-config install-dkms install-kmod install-apparmor install-selinux selinux

install: install-data install-swap $(if $(filter 1,$(INSTALL_DAEMON)),install-daemon)

install-data:
	$(INSTALL) -D -p -m 0644 $(TOP)/tuned/agent-sandbox/tuned.conf $(D)$(TUNEDDIR)/agent-sandbox/tuned.conf
	$(INSTALL) -D -p -m 0644 $(TOP)/tuned/agent-sandbox/tuned.conf $(D)$(TUNEDDIR)/profiles/agent-sandbox/tuned.conf
	$(INSTALL) -D -p -m 0644 $(TOP)/sysctl.d/50-agentmm.conf $(D)$(SYSCTLDIR)/50-agentmm.conf
	$(INSTALL) -D -p -m 0644 $(TOP)/LICENSE $(D)$(LICENSEDIR)/LICENSE
	$(INSTALL) -d -m 0755 $(D)$(DOCDIR)
	$(if $(AMM_DOCS),$(INSTALL) -p -m 0644 $(AMM_DOCS) $(D)$(DOCDIR)/)
	@set -e; for m in $(filter %/agentmm.4,$(AMM_MANPAGES)); do \
		s=$${m##*.}; echo "  MAN     $${m##*/}"; \
		$(INSTALL) -D -p -m 0644 $$m $(D)$(MANDIR)/man$$s/$${m##*/}; done

install-daemon: $(BUILD)/tools/agentmmd $(BUILD)/tools/agentmmctl
	$(INSTALL) -D -p -m 0755 $(BUILD)/tools/agentmmd $(D)$(SBINDIR)/agentmmd
	$(INSTALL) -D -p -m 0755 $(BUILD)/tools/agentmmctl $(D)$(BINDIR)/agentmmctl
	$(INSTALL) -D -p -m 0644 $(TOP)/config/systemd/agentmmd.service $(D)$(UNITDIR)/agentmmd.service
	$(INSTALL) -D -p -m 0644 $(TOP)/config/systemd/50-agentmm.preset $(D)$(PRESETDIR)/50-agentmm.preset
	$(INSTALL) -D -p -m 0644 $(TOP)/agentmmd/agentmmd.conf $(D)$(DATADIR)/agentmm/agentmmd.conf
	$(INSTALL) -D -p -m 0644 $(TOP)/config/bash-completion/agentmmctl $(D)$(DATADIR)/bash-completion/completions/agentmmctl
	$(INSTALL) -d -m 0755 $(D)$(SYSCONFDIR)/agentmm
	@set -e; for m in $(filter-out %/agentmm.4,$(AMM_MANPAGES)); do \
		s=$${m##*.}; echo "  MAN     $${m##*/}"; \
		$(INSTALL) -D -p -m 0644 $$m $(D)$(MANDIR)/man$$s/$${m##*/}; done

# The compressed memory tier: a shell script and its unit, with or without
# the daemon (Before=agentmmd.service only orders them when both run).
install-swap:
	$(INSTALL) -D -p -m 0755 $(TOP)/config/swap/agentmm-swap $(D)$(LIBEXECDIR)/agentmm/agentmm-swap
	$(INSTALL) -D -p -m 0644 $(TOP)/config/systemd/agentmm-swap.service $(D)$(UNITDIR)/agentmm-swap.service

install-module-config:
	$(INSTALL) -D -p -m 0644 $(TOP)/config/modprobe.d/agentmm.conf $(D)$(MODPROBEDIR)/agentmm.conf
	$(INSTALL) -D -p -m 0644 $(TOP)/config/modules-load.d/agentmm.conf $(D)$(MODULESLOADDIR)/agentmm.conf
	$(INSTALL) -D -p -m 0755 $(TOP)/config/dracut/90agentmm/module-setup.sh $(D)$(DRACUTDIR)/modules.d/90agentmm/module-setup.sh
	$(INSTALL) -D -p -m 0755 $(TOP)/config/dracut/90agentmm/agentmm-load.sh $(D)$(DRACUTDIR)/modules.d/90agentmm/agentmm-load.sh

# Confinement of agentmmd (docs/confinement.md): the AppArmor profile, and
# the SELinux module compiled with the policy's devel Makefile (Debian's
# selinux-policy-dev, Fedora's selinux-policy-devel: the same path) in a
# build directory of its own, since that Makefile writes tmp/ where it runs.
SELINUX_DEVEL_MAKEFILE ?= $(DATADIR)/selinux/devel/Makefile
SELINUXTYPE ?= targeted
AMM_SELINUX_SRC = $(addprefix $(TOP)/config/selinux/agentmmd.,te fc if)

install-apparmor:
	$(INSTALL) -D -p -m 0644 $(TOP)/config/apparmor/usr.sbin.agentmmd $(D)$(SYSCONFDIR)/apparmor.d/usr.sbin.agentmmd

selinux: $(BUILD)/selinux/agentmmd.pp
$(BUILD)/selinux/agentmmd.pp: $(AMM_SELINUX_SRC)
	@test -f $(SELINUX_DEVEL_MAKEFILE) || { echo "error: no $(SELINUX_DEVEL_MAKEFILE) (Debian: selinux-policy-dev; Fedora: selinux-policy-devel)" >&2; exit 1; }
	@rm -rf $(@D) && mkdir -p $(@D) && cp -p $(AMM_SELINUX_SRC) $(@D)/
	$(MAKE) --no-print-directory -C $(@D) -f $(SELINUX_DEVEL_MAKEFILE) agentmmd.pp

install-selinux: $(BUILD)/selinux/agentmmd.pp
	$(INSTALL) -d -m 0755 $(D)$(DATADIR)/selinux/packages/$(SELINUXTYPE)
	bzip2 -9 -c $< >$(D)$(DATADIR)/selinux/packages/$(SELINUXTYPE)/agentmmd.pp.bz2
	chmod 0644 $(D)$(DATADIR)/selinux/packages/$(SELINUXTYPE)/agentmmd.pp.bz2
	$(INSTALL) -D -p -m 0644 $(TOP)/config/selinux/agentmmd.if $(D)$(DATADIR)/selinux/devel/include/distributed/agentmmd.if

install-dkms: install-module-config
	@set -e; cd $(TOP); for f in $(AMM_KMOD_SRC); do \
		$(INSTALL) -D -p -m 0644 $$f $(D)$(USRSRCDIR)/agentmm-$(AMM_VERSION)/$$f; done
	sed 's/@VERSION@/$(AMM_VERSION)/g' $(TOP)/rpm/dkms.conf >$(D)$(USRSRCDIR)/agentmm-$(AMM_VERSION)/dkms.conf
	chmod 0644 $(D)$(USRSRCDIR)/agentmm-$(AMM_VERSION)/dkms.conf

# KO= an already built agentmm.ko (the spec builds its own); else build it.
install-kmod: install-module-config $(if $(KO),,module)
	$(INSTALL) -D -p -m 0644 $(if $(KO),$(KO),$(TOP)/agentmm.ko) $(D)/lib/modules/$(KVER)/extra/agentmm/agentmm.ko

# What `make install install-dkms` put under DESTDIR, taken away again: the
# same rules run into a scratch root, and each file of it is removed from
# $(DESTDIR) (default: this system). The admin's files under SYSCONFDIR
# (e.g. /etc/agentmm/agentmmd.conf) stay unless PURGE=1. Directories are
# removed only where their path names agentmm and they are empty. Run
# `dkms remove agentmm/VERSION --all` and `systemctl disable --now
# agentmmd` first (docs/install.md).
.PHONY: uninstall
uninstall:
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(MAKE) --no-print-directory -s install install-dkms DESTDIR="$$tmp" >"$$tmp.log" 2>&1 || \
		{ cat "$$tmp.log"; rm -f "$$tmp.log"; echo "uninstall: cannot list what install puts where; nothing removed" >&2; exit 1; }; \
	rm -f "$$tmp.log"; n=0; \
	for f in $$(cd "$$tmp" && find . ! -type d | sed 's|^\.||'); do \
		case $$f in $(SYSCONFDIR)/*) [ "$(PURGE)" = 1 ] || continue ;; esac; \
		if [ -e "$(D)$$f" ] || [ -L "$(D)$$f" ]; then rm -f "$(D)$$f"; n=$$((n + 1)); fi; \
	done; \
	for d in $$(cd "$$tmp" && find . -mindepth 1 -depth -type d | sed 's|^\.||'); do \
		case $$d in *agentmm*) rmdir "$(D)$$d" 2>/dev/null || true ;; esac; \
	done; \
	echo "uninstall: removed $$n file(s) under $(if $(D),$(D),/)$(if $(filter 1,$(PURGE)),, (kept $(SYSCONFDIR); PURGE=1 removes it too))"
