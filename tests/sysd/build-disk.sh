# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# The cached guest disk of tests/sysd/run (sourced there, which sets TOP,
# CACHE, KROOT, KVER, SUITE, MIRROR, PACKAGES, AGENT_IMAGE, DISK, ROOTTAR,
# tmp and GUEST_LOG). build_disk makes $DISK: a Debian root from Debian's packages
# with the test kernel's modules and the agent image in podman's storage,
# as an ext4 image made with mkfs.ext4 -d (no loop mount). Prints each step
# and the sizes.

# The Debian root alone, as mmdebstrap made it: $ROOTTAR (cached too,
# keyed by the package list and mirror: a new kernel or agent image makes
# a new disk from it without downloading again). mmdebstrap's own progress
# lines ("I: ...") are shown, everything is in the log.
sysd_root_tar() {
	[ -f "$ROOTTAR" ] && { echo "#   Debian root: cached ${ROOTTAR#"$CACHE/"}"; return 0; }
	echo "#   mmdebstrap $SUITE --variant=minbase with $PACKAGES (downloads ~250 MB)"
	echo "=== mmdebstrap $SUITE: $PACKAGES" >>"$GUEST_LOG"
	mmdebstrap --variant=minbase --mode=root --include="$PACKAGES" \
		--customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
		"$SUITE" "$tmp/root.tar" "$MIRROR" 2>&1 | tee -a "$GUEST_LOG" |
		grep -a --line-buffered '^I: ' | sed -u 's/^I: /#   mmdebstrap: /'
	[ "${PIPESTATUS[0]}" = 0 ] || { bad "mmdebstrap $SUITE (see $GUEST_LOG)"; return 1; }
	zstd -q -T0 -3 -o "$ROOTTAR.tmp" "$tmp/root.tar" && mv "$ROOTTAR.tmp" "$ROOTTAR" ||
		{ bad "compress the root into $ROOTTAR"; return 1; }
	rm -f "$tmp/root.tar"
	ok "Debian $SUITE root from Debian's packages: ${ROOTTAR#"$CACHE/"} ($(du -m "$ROOTTAR" | cut -f1) MiB)"
}

# The agent image (tests/containers/image's, from the rig's podman storage,
# built there first if missing) saved and loaded into the root's podman
# storage. The root's libpod database is not kept: it names this host's
# paths; podman in the guest makes its own.
sysd_agent_image() {
	local root=$1 store i
	store=$root/var/lib/containers/storage
	# shellcheck source=tests/lib/podman.sh
	. "$TOP/tests/lib/podman.sh"
	for i in $(seq 60); do
		podman_setup && break
		[ "$i" = 1 ] && echo "#   another test uses the rig's podman; waiting (at most 10 min)"
		[ "$i" = 60 ] && { bad "the rig's podman is free (lock $PODMAN_RUNROOT.lock)"; return 1; }
		sleep 10
	done
	local want=$AGENT_IMAGE
	agent_image || { bad "the agent image builds"; return 1; }
	[ "$AGENT_IMAGE" = "$want" ] || { bad "agent image $AGENT_IMAGE is the one keyed ($want)"; return 1; }
	guest_step "agent image $AGENT_IMAGE saved from the rig's storage" \
		pm save --quiet --format docker-archive -o "$tmp/agent.tar" "$AGENT_IMAGE" || return 1
	exec 9>&-	# the rig's podman lock
	mkdir -p "$store" "$tmp/guest-runroot"
	gpm() { podman --root "$store" --runroot "$tmp/guest-runroot" --storage-driver overlay "$@"; }
	guest_step "agent image loaded into the root's podman storage" gpm load --quiet -i "$tmp/agent.tar" ||
		return 1
	rm -f "$tmp/agent.tar"
	# the archive names it; should it not, the one image there is it
	gpm image exists "$AGENT_IMAGE" || gpm tag "$(gpm images -q | head -1)" "$AGENT_IMAGE" >>"$GUEST_LOG" 2>&1
	guest_step "agent image listed in the root's storage as $AGENT_IMAGE" gpm image exists "$AGENT_IMAGE" ||
		return 1
	rm -rf "$store/libpod" "$store/defaultNetworkBackend" "$tmp/guest-runroot"
}

# What the test harness needs in the root: fstab, a machine-id, no gettys
# on the console and no timers that would load the guest.
sysd_harness() {
	local root=$1 u
	echo agentmm-sysd >"$root/etc/hostname"
	printf '/dev/vda / ext4 rw,errors=remount-ro 0 0\n' >"$root/etc/fstab"
	for u in serial-getty@ttyS0.service getty@tty1.service apt-daily.timer \
		apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer man-db.timer \
		podman-auto-update.timer; do
		ln -sf /dev/null "$root/etc/systemd/system/$u"
	done
	# a machine-id of its own: no first boot (presets applied over ours)
	grep -qxE '[0-9a-f]{32}' "$root/etc/machine-id" 2>/dev/null ||
		tr -d '-' </proc/sys/kernel/random/uuid >"$root/etc/machine-id"
}

build_disk() {
	local root=$tmp/root mb files
	rm -rf "$root"
	sysd_root_tar || return 1
	guest_step "unpack the Debian root" \
		bash -c "mkdir -p '$root' && zstd -q -dc '$ROOTTAR' | tar -C '$root' --numeric-owner --xattrs --xattrs-include='*' -xf -" ||
		return 1
	sysd_agent_image "$root" || return 1
	guest_step "test kernel modules ($KVER) in the root, depmod" \
		bash -c "mkdir -p '$root/lib/modules' && cp -a '$KROOT/lib/modules/$KVER' '$root/lib/modules/' &&
			depmod -b '$root' '$KVER'" || return 1
	guest_step "test harness (fstab, machine-id, gettys and timers masked)" sysd_harness "$root" || return 1
	files=$(du -sm "$root" | cut -f1)
	# room for the containers' layers, logs and the journal
	mb=$((files + files / 3 + 1024))
	rm -f "$DISK.tmp"
	guest_step "disk image: mkfs.ext4 -d root ($files MiB of files, ${mb} MiB image)" \
		bash -c "truncate -s '${mb}M' '$DISK.tmp' && mkfs.ext4 -q -F -L agentmm-sysd -d '$root' '$DISK.tmp'" ||
		return 1
	mv "$DISK.tmp" "$DISK" || return 1
	rm -rf "$root"
	echo "# guest disk: built ${DISK#"$CACHE/"}: $files MiB of files in a ${mb} MiB sparse image ($(du -m "$DISK" | cut -f1) MiB on disk)"
}
