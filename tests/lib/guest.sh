# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Booting a Debian root with systemd under QEMU and reading back the checks
# it printed on its serial console: the parts the real-boot rigs share
# (tests/sysd/run; tests/boot/run has the same steps inline). Bash; source
# it after tests/lib/check.sh.
#   guest_step NAME CMD...        a setup step, its output to $GUEST_LOG;
#                                 ok/FAIL (the log's tail on failure)
#   guest_accel                   GUEST_ACCEL=(qemu accel options), KVM
#                                 only where it can run a guest
#                                 (VM_ACCEL=kvm|tcg overrides)
#   guest_initrd ROOT KVER OUT [PAYLOAD]
#                                 a busybox initramfs: loads virtio_blk and
#                                 ext4 of KVER (resolved in ROOT's
#                                 modules.dep), mounts /dev/vda, copies
#                                 PAYLOAD (a directory: files laid over the
#                                 root, on the disk's snapshot) and
#                                 switch_roots to systemd
#   guest_report CLOG PREFIX PHASE
#                                 the guest's "PREFIX ok|FAIL|skip|info"
#                                 lines of CLOG, counted; ok/FAIL for its
#                                 result line, qemu's exit ($GUEST_RC) and
#                                 the kernel's reports on the console
# GUEST_SPLAT: what a kernel prints when something went wrong.

GUEST_SPLAT='Oops|BUG:|WARNING:|KFENCE|UBSAN|general protection|Kernel panic|kernel BUG|soft lockup|hard LOCKUP|blocked for more than'

guest_step() {
	local name=$1
	shift
	echo "=== $name: $*" >>"$GUEST_LOG"
	if "$@" >>"$GUEST_LOG" 2>&1; then ok "$name"; return 0; fi
	bad "$name (see $GUEST_LOG)"
	tail -n 15 "$GUEST_LOG" | sed 's/^/     /'
	return 1
}

# Single-threaded TCG: with one host thread per vCPU, a vCPU can run stale
# code while another patches kernel text (an int3 Oops in early boot was
# seen on a loaded host); one thread serialises them.
guest_accel() {
	local kvm=0
	case "${VM_ACCEL:-auto}" in
	kvm) kvm=1 ;;
	auto) [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo && kvm=1 ;;
	esac
	GUEST_ACCEL=(-accel tcg,thread=single)
	GUEST_ACCEL_NAME=TCG
	if [ $kvm = 1 ]; then
		GUEST_ACCEL=(-accel kvm -cpu host)
		GUEST_ACCEL_NAME=KVM
	fi
}

guest_initrd() {
	local root=$1 kver=$2 out=$3 payload=${4:-} ird n=0 m busybox
	busybox=$(command -v busybox) || { echo "busybox not found (busybox-static)"; return 1; }
	ird=$(mktemp -d "${TMPDIR:-/tmp}/agentmm-initrd.XXXXXX") || return 1
	mkdir -p "$ird"/{bin,dev,proc,sys,newroot,mods}
	cp "$busybox" "$ird/bin/busybox" || { rm -rf "$ird"; return 1; }
	for m in $(modprobe -d "$root" -S "$kver" --show-depends -a virtio_blk crc32c_generic ext4 |
			awk '$1 == "insmod" { print $2 }' | awk '!seen[$0]++'); do
		n=$((n + 1))
		case $m in
		*.xz) xz -dc "$m" >"$ird/mods/$(printf %02d $n)-$(basename "${m%.xz}")" ;;
		*.zst) zstd -q -dc "$m" >"$ird/mods/$(printf %02d $n)-$(basename "${m%.zst}")" ;;
		*) cp "$m" "$ird/mods/$(printf %02d $n)-$(basename "$m")" ;;
		esac || { rm -rf "$ird"; return 1; }
	done
	[ $n -gt 0 ] || { echo "no virtio_blk/ext4 modules for $kver in $root"; rm -rf "$ird"; return 1; }
	if [ -n "$payload" ]; then
		mkdir -p "$ird/payload" && cp -a "$payload/." "$ird/payload/" ||
			{ rm -rf "$ird"; return 1; }
	fi
	cat >"$ird/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in /mods/*.ko; do insmod "$m" || echo "initramfs: insmod $m failed"; done
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
mode=ro
[ -d /payload ] && mode=rw
if ! mount -t ext4 -o $mode /dev/vda /newroot; then
	echo "initramfs: cannot mount /dev/vda"; sleep 1; poweroff -f
fi
if [ -d /payload ]; then
	cp -a /payload/. /newroot/ || echo "initramfs: copying the payload failed"
	mount -o remount,ro /newroot
fi
umount /proc /sys
mount --move /dev /newroot/dev 2>/dev/null || umount /dev
exec switch_root /newroot /sbin/init
EOF
	chmod 0755 "$ird/init"
	(cd "$ird" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out"
	local rc=$?
	ls "$ird/mods"
	rm -rf "$ird"
	return $rc
}

guest_report() {
	local clog=$1 p=$2 phase=$3 res rep
	grep -a "^$p \(ok\|FAIL\|skip\|info\|     \)" "$clog" |
		sed -e "s/^$p ok   /ok   [$phase] /" -e "s/^$p FAIL /FAIL [$phase] /" \
		    -e "s/^$p skip /skip [$phase] /" -e "s/^$p info /#    [$phase] /" \
		    -e "s/^$p      /     /"
	pass=$((pass + $(grep -ac "^$p ok " "$clog")))
	fail=$((fail + $(grep -ac "^$p FAIL " "$clog")))
	res=$(grep -a "^$p result: " "$clog" | tail -1)
	if [ -n "$res" ]; then
		ok "[$phase] guest ran its checks and reported (${res#"$p result: "})"
	else
		bad "[$phase] guest did not report (qemu exit $GUEST_RC$([ "$GUEST_RC" = 124 ] && echo ": timed out")); last console lines:"
		tail -n 25 "$clog" | sed 's/^/     /'
	fi
	if [ "$GUEST_RC" = 0 ]; then ok "[$phase] guest powered off by itself"
	else bad "[$phase] guest powered off by itself (qemu exit $GUEST_RC)"; fi
	rep=$(grep -aE '^\[ *[0-9]+\.[0-9]+\]' "$clog" | grep -aE "$GUEST_SPLAT")
	if [ -z "$rep" ]; then ok "[$phase] no kernel Oops/BUG/WARNING on the console"
	else bad "[$phase] kernel reports on the console:"; echo "$rep" | head -20 | sed 's/^/     /'; fi
}

# --- inside the guest (installed next to the guest's check script) ---------
# guest_settle SECONDS: no systemd job pending but the check unit's own
# (UNIT: a pattern of its name).
guest_settle() {
	local i
	for i in $(seq 1 "$1"); do
		if ! systemctl list-jobs --no-legend 2>/dev/null | grep -v "$2" | grep -q .; then
			return 0
		fi
		sleep 1
	done
	systemctl list-jobs --no-legend
	return 1
}
guest_no_kernel_reports() {
	! journalctl -k -b --no-pager -o cat | grep -E "$GUEST_SPLAT|Call Trace"
}
guest_no_failed_units() { ! systemctl --failed --no-legend --plain | grep .; }
# The count line, then power off (the host reads the console).
guest_finish() {
	result
	sync
	systemctl poweroff --no-block
	exit 0
}
