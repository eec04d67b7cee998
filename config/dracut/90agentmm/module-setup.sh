#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# dracut module "agentmm": put agentmm.ko and its modprobe.d options into
# the initramfs and load it there, so the contiguity sensor watches memory
# from early boot. Vendor file: /usr/lib/dracut/modules.d/90agentmm/,
# shipped by the module packages (kmod-agentmm, agentmm-dkms).
#
# Unlike force_drivers+=" agentmm " in a dracut.conf.d file, a kernel
# without agentmm.ko (a DKMS build that failed for it, a kernel installed
# before its headers) gets no error and no agentmm: check() leaves the
# module out, and every other module and driver of the image is installed
# as usual. To leave agentmm out on purpose: omit_dracutmodules+=" agentmm "
# in /etc/dracut.conf.d/, then dracut -f.

# Included by default (hostonly or not) for kernels that have agentmm.ko.
check() {
	local ko
	ko=$(find "${srcmods:-/lib/modules/$kernel}" -name 'agentmm.ko*' -print -quit 2>/dev/null)
	[[ -n $ko ]] || return 1
	return 0
}

depends() {
	return 0
}

installkernel() {
	hostonly='' instmods agentmm
}

# shellcheck disable=SC2154 # dracut sets dracutsysrootdir and moddir
install() {
	local f
	for f in /usr/lib/modprobe.d/agentmm.conf /lib/modprobe.d/agentmm.conf \
		/etc/modprobe.d/agentmm.conf; do
		[[ -f $dracutsysrootdir$f ]] && inst_simple "$f"
	done
	inst_hook pre-trigger 10 "$moddir/agentmm-load.sh"
}
