#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Enable agentmm in a fleet image (or on the running host): install the
# packages, activate the tuned profile, enable agentmmd, rebuild the
# initramfs, optionally set the kernel command line. See docs/image-baking.md.

set -euo pipefail

usage() {
	cat <<'EOF'
Usage: bake-image.sh [OPTIONS]

Enable agentmm in an RPM-based image root or on this host.

  --root DIR        image root to modify (mounted; commands run chrooted
                    there). Default: / (this host).
  --rpms DIR        install agentmm, agentmm-tuned, agentmm-kmod-common and
                    kmod-agentmm-KVER for each kernel of the root (or the
                    kABI-tracking kmod-agentmm) from DIR (e.g.
                    build/rpm/RPMS) instead of the configured repositories
                    (there: agentmm agentmm-tuned kmod-agentmm tuned;
                    kmod-agentmm is RHEL's kABI kmod, or the meta package
                    that pulls akmod-agentmm in).
  --dkms            install agentmm-dkms instead of the kmod (the image
                    must carry kernel-devel for its kernels).
  --no-install      skip package installation (already installed).
  --kver KVER       rebuild the initramfs of KVER only (repeatable).
                    Default: every kernel under /lib/modules of the root.
  --cmdline         also put the mTHP baseline on the kernel command line
                    (thp_anon=16K-64K:always transparent_hugepage=madvise),
                    so it holds from the first page fault.
  --opt-out         instead: add agentmm.mode=off to the kernel command line
                    (agentmm loads but stays off; agentmmd does not start).
  --bootc           the root is a bootc (image-mode) container build: the
                    command line goes to /usr/lib/bootc/kargs.d/50-agentmm.toml
                    instead of GRUB, and each initramfs is written to
                    /usr/lib/modules/KVER/initramfs.img. Use it in a
                    Containerfile: RUN scripts/bake-image.sh --bootc --cmdline
  --hostonly        build host-only initramfs images (only this machine's
                    drivers). Default: --no-hostonly for an image (--root
                    other than /, or --bootc), since it boots on other
                    hardware; host-only on the running host (dracut's own
                    default).
  --dry-run         print what would be done, change nothing.
  -h, --help        this text.

Steps: install packages; tuned profile agent-sandbox (tuned-adm when
tuned runs, else /etc/tuned/active_profile); enable tuned.service and
agentmmd.service (systemctl enable); dracut -f per kernel (--no-hostonly
for images); optional command line with grubby, else /etc/default/grub +
grub2-mkconfig, or bootc's kargs.d.
EOF
}

ROOT=/ RPMS='' DKMS=0 INSTALL=1 CMDLINE=0 OPTOUT=0 DRY=0 BOOTC=0 HOSTONLY=
KVERS=()
CMDLINE_ARGS="thp_anon=16K-64K:always transparent_hugepage=madvise"
while [ $# -gt 0 ]; do
	case "$1" in
	--root) ROOT=${2:?--root needs a directory}; shift ;;
	--rpms) RPMS=${2:?--rpms needs a directory}; shift ;;
	--dkms) DKMS=1 ;;
	--no-install) INSTALL=0 ;;
	--kver) KVERS+=("${2:?--kver needs a version}"); shift ;;
	--cmdline) CMDLINE=1 ;;
	--opt-out) OPTOUT=1 ;;
	--bootc) BOOTC=1 ;;
	--hostonly) HOSTONLY=1 ;;
	--no-hostonly) HOSTONLY=0 ;;
	--dry-run) DRY=1 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "bake-image.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
	esac
	shift
done
[ $CMDLINE = 1 ] && [ $OPTOUT = 1 ] && { echo "bake-image.sh: --cmdline and --opt-out exclude each other" >&2; exit 2; }
ROOT=$(cd "$ROOT" && pwd)
# An image boots on hardware other than the build machine's: no host-only
# initramfs unless asked.
if [ -z "$HOSTONLY" ]; then
	if [ "$ROOT" != / ] || [ $BOOTC = 1 ]; then HOSTONLY=0; else HOSTONLY=1; fi
fi
[ $DRY = 1 ] || [ "$(id -u)" = 0 ] || { echo "bake-image.sh: must run as root (or use --dry-run)" >&2; exit 1; }

say() { echo "bake-image: $*"; }
CHROOT=(); [ "$ROOT" = / ] || CHROOT=(chroot "$ROOT")
run() {   # run a command in the target root
	if [ $DRY = 1 ]; then echo "+ ${CHROOT[*]}${CHROOT:+ }$*"; else "${CHROOT[@]}" "$@"; fi
}
have() {  # is a command available in the target root?
	# shellcheck disable=SC2016 # $1 is expanded by the sh in the root
	"${CHROOT[@]}" sh -c 'command -v "$1"' sh "$1" >/dev/null 2>&1
}
write() {  # write FILE CONTENT, in the target root
	local f=${ROOT%/}$1
	if [ $DRY = 1 ]; then echo "+ echo '$2' > $f"; else mkdir -p "$(dirname "$f")"; printf '%s\n' "$2" >"$f"; fi
}

# 1. packages
KMODPKG=kmod-agentmm; [ $DKMS = 1 ] && KMODPKG=agentmm-dkms
if [ $INSTALL = 1 ]; then
	if [ -n "$RPMS" ]; then
		# the module: agentmm-dkms, or kmod-agentmm-KVER of each kernel of
		# the root, or else the kABI kmod-agentmm (one with a payload)
		mods=()
		if [ $DKMS = 1 ]; then mapfile -t mods < <(find "$RPMS" -name 'agentmm-dkms-[0-9]*.rpm')
		else
			for d in "$ROOT"/lib/modules/*/ "$ROOT"/usr/lib/modules/*/; do
				[ -d "$d" ] || continue
				mapfile -t -O ${#mods[@]} mods < <(find "$RPMS" -name "kmod-agentmm-$(basename "$d")-[0-9]*.rpm")
			done
			# (/lib may be a link to /usr/lib: each kernel once)
			[ ${#mods[@]} -eq 0 ] || mapfile -t mods < <(printf '%s\n' "${mods[@]}" | sort -u)
			[ ${#mods[@]} -gt 0 ] || mapfile -t mods < <(find "$RPMS" -name 'kmod-agentmm-[0-9]*.rpm' -size +8k)
		fi
		mapfile -t files < <(find "$RPMS" \( -name 'agentmm-[0-9]*.rpm' -o -name 'agentmm-tuned-[0-9]*.rpm' \
			-o -name 'agentmm-kmod-common-[0-9]*.rpm' \) ! -name '*.src.rpm' | sort -u)
		if [ ${#files[@]} -ne 3 ] || [ ${#mods[@]} -eq 0 ]; then echo "bake-image.sh: need agentmm, agentmm-tuned, agentmm-kmod-common and a module package ($KMODPKG or kmod-agentmm-KVER for the root's kernels) in $RPMS (found ${files[*]##*/} ${mods[*]##*/})" >&2; exit 1; fi
		files+=("${mods[@]}")
		say "installing ${files[*]##*/}"
		if [ $DRY = 1 ]; then echo "+ rpm -Uvh --root $ROOT ${files[*]}"
		else rpm -Uvh --root "$ROOT" "${files[@]}"; fi
	elif have dnf; then run dnf -y install agentmm agentmm-tuned "$KMODPKG" tuned
	elif have yum; then run yum -y install agentmm agentmm-tuned "$KMODPKG" tuned
	else echo "bake-image.sh: no dnf/yum in the root; use --rpms DIR" >&2; exit 1; fi
fi

# 2. tuned profile. A running tuned applies it now; in an image root the
# profile is recorded and applied when tuned starts at first boot.
if [ "$ROOT" = / ] && [ $DRY = 0 ] && command -v tuned-adm >/dev/null && tuned-adm active >/dev/null 2>&1 &&
   systemctl is-active -q tuned 2>/dev/null; then
	run tuned-adm profile agent-sandbox
else
	say "recording tuned profile agent-sandbox (applied when tuned starts)"
	write /etc/tuned/active_profile agent-sandbox
	write /etc/tuned/profile_mode manual
fi

# 3. services: tuned, and agentmmd. Baking agentmm into an image is the
# choice to run it, so the unit is enabled here (the agentmm package ships
# no preset: agentmm-preset is the package-level way to the same).
if have systemctl || [ $DRY = 1 ]; then
	run systemctl enable tuned.service
	run systemctl enable agentmmd.service
fi

# 4. initramfs (dracut.conf.d/50-agentmm.conf forces agentmm in).
if [ ${#KVERS[@]} -eq 0 ]; then
	for d in "$ROOT"/lib/modules/*/ "$ROOT"/usr/lib/modules/*/; do
		[ -d "$d/kernel" ] || continue
		k=$(basename "$d"); [[ " ${KVERS[*]} " == *" $k "* ]] || KVERS+=("$k")
	done
fi
if have dracut || [ $DRY = 1 ]; then
	hostopt=--no-hostonly; [ "$HOSTONLY" = 1 ] && hostopt=--hostonly
	for k in "${KVERS[@]}"; do
		say "rebuilding initramfs for $k ($hostopt)"
		if [ $BOOTC = 1 ]; then
			# bootc/ostree: the initramfs lives beside the kernel in /usr.
			run dracut -f "$hostopt" --kver "$k" "/usr/lib/modules/$k/initramfs.img"
		else
			run dracut -f "$hostopt" --kver "$k"
		fi
	done
else
	say "no dracut in the root: agentmm loads from modules-load.d after the initramfs"
fi

# 5. kernel command line (optional).
ARGS=
[ $CMDLINE = 1 ] && ARGS=$CMDLINE_ARGS
[ $OPTOUT = 1 ] && ARGS=agentmm.mode=off
if [ -n "$ARGS" ] && [ $BOOTC = 1 ]; then
	# bootc applies kargs.d files when it deploys the image (bootc >= 1.1).
	say "kernel command line += $ARGS (bootc kargs.d)"
	toml='kargs = ['
	for a in $ARGS; do toml="$toml\"$a\", "; done
	write /usr/lib/bootc/kargs.d/50-agentmm.toml "# agentmm (scripts/bake-image.sh)
${toml%, }]"
elif [ -n "$ARGS" ]; then
	say "kernel command line += $ARGS"
	if have grubby || { [ $DRY = 1 ] && [ ! -f "$ROOT/etc/default/grub" ]; }; then
		run grubby --update-kernel=ALL --args="$ARGS"
	elif [ -f "$ROOT/etc/default/grub" ]; then
		if [ $DRY = 1 ]; then echo "+ append '$ARGS' to GRUB_CMDLINE_LINUX in $ROOT/etc/default/grub"
		else sed -i -E "s|^(GRUB_CMDLINE_LINUX=\")(.*)\"|\1\2 $ARGS\"|" "$ROOT/etc/default/grub"; fi
		if have grub2-mkconfig; then run grub2-mkconfig -o /boot/grub2/grub.cfg
		elif have update-grub; then run update-grub
		else say "regenerate the GRUB configuration before booting"; fi
	else
		echo "bake-image.sh: no grubby or /etc/default/grub; add '$ARGS' to the boot loader yourself" >&2
		exit 1
	fi
fi
say "done$([ $DRY = 1 ] && echo ' (dry run: nothing changed)')"
