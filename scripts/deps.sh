#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what agentmm's build and tests need, and fetch the pinned test
# kernels (image, headers, kbuild) into a cache directory: the main one
# (tests/vm/kernel-version) and the module's floor (tests/vm/kernel-floor,
# the oldest Debian series it builds for). Idempotent: a second run
# installs and downloads nothing.
#
#   scripts/deps.sh            everything (make deps, make check)
#   scripts/deps.sh --demo     only what make demo needs (make deps-demo):
#                              its packages and the main test kernel
#   --simulate                 say what apt would install (apt-get -s) and
#                              whether it would upgrade anything; change
#                              nothing, fetch nothing
#
# A test kernel is unpacked into $AGENTMM_CACHE/kernel/<ver>/root, never
# installed on the host: the host's own kernel is not what the tests boot.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${AGENTMM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentmm}

say() { printf 'deps: %s\n' "$*"; }
die() { printf 'deps: error: %s\n' "$*" >&2; exit 1; }

pkgset=all simulate=0
for arg in "$@"; do
	case $arg in
	--demo) pkgset=demo ;;
	--simulate) simulate=1 ;;
	*) die "unknown argument $arg (--demo, --simulate)" ;;
	esac
done

as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		die "need root to run: $* (re-run as root or install sudo)"
	fi
}

# One list per purpose; `make deps` (make check) installs them all,
# `make deps-demo` (make demo) only the first.
# make demo: agentmm.ko built against the test kernel, agentmmd (BPF) and
# the guest programs, booted under QEMU (tests/vm/run: busybox, cpio, xz
# for the kernel's modules); its native part (benchmarks/demo-host.sh):
# the real-tool workload (node, python with pytest and venv, git, gcc) and
# its memory plot (gnuplot)
apt_demo=(
	gcc make libc6-dev clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev
	libzstd-dev qemu-system-x86 busybox-static cpio kmod xz-utils
	# agentmmd's HTTP metrics endpoint (evhttp; its static .a files too)
	libevent-dev
	# agentmmd's sd-bus calls to systemd for its units' cgroups (unitbus.c)
	libsystemd-dev
	python3 python3-pytest python3-venv nodejs git util-linux procps
	gnuplot-nox
)
# make check and the other targets: everything else
apt_check=(
	rpm dpkg-dev dwarves tuned dkms debootstrap e2fsprogs zstd libclang-rt-dev
	python3-prometheus-client
	# bench-host's coldstart regime: the web service each sandbox starts
	python3-flask
	# packages: debuginfo (find-debuginfo, eu-strip), rpmlint, dracut
	# (module 90agentmm is built into a real image by tests/pkg)
	debugedit elfutils rpmlint dracut-core
	# the .deb (tests/pkg/deb): debhelper with DKMS, lintian, and mmdebstrap
	# for the scratch Debian root it installs into; SPDX's licence list to
	# check the release's SBOM against
	debhelper dh-dkms lintian mmdebstrap autopkgtest node-spdx-license-ids
	# agentmm.ko, agentmmd, agentmmctl and the unit tests cross-built for
	# arm64, the programs run under qemu-user (make cross-check)
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static qemu-system-arm
	# the arm64 .deb, a Debian cross build (tests/pkg/deb-aarch64): the
	# cross toolchain and the arm64 build dependencies through multiarch
	# (dpkg --add-architecture arm64, below); arch-test for mmdebstrap's
	# emulated arm64 root (make pkg-check-arm64)
	crossbuild-essential-arm64 libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64
	libsystemd-dev:arm64
	# not libevent-dev:arm64: Debian 12's libevent-dev is not Multi-Arch:
	# same (its event-config.h is per architecture), so it conflicts with
	# libevent-dev above; the arm64 builds take it from the cross sysroot
	# (fetch_cross_sysroot), the .deb's through tests/pkg/deb-aarch64.
	# Its arm64 run-time libraries do coexist:
	libevent-core-2.1-7:arm64 libevent-extra-2.1-7:arm64 libevent-pthreads-2.1-7:arm64
	arch-test
	# make k8s-check: node (+ npm, below) runs the validator from the npm
	# registry, cached
	python3-yaml
	# make image-check: the image built and the DaemonSet's container run
	# with a real engine (runc: crun refuses a hybrid cgroup layout);
	# make container-check: agents in podman containers under runc and
	# gVisor (runsc), `podman run --init` (catatonit)
	podman runc runsc catatonit
	# make structure-check: the shipped shell scripts
	shellcheck
	# make confine-check: agentmmd's AppArmor profile compiled
	# (apparmor_parser), its SELinux module built with the reference
	# policy's devel Makefile (checkmodule, semodule_package), linked into
	# Debian's reference policy in a scratch copy of its store (semodule;
	# installing the policy does not turn SELinux on) and queried
	# (sesearch, selabel_lookup); the .deb's profile goes in with dh_apparmor
	apparmor selinux-policy-dev checkpolicy semodule-utils policycoreutils
	selinux-policy-default setools selinux-utils dh-apparmor
	# make host-prometheus-check: a real Prometheus server scrapes agentmmd
	# through node_exporter's textfile collector; promtool tests the rules
	prometheus prometheus-node-exporter curl
)
dnf_demo=(
	gcc make glibc-static clang llvm libbpf-devel libbpf-static bpftool
	libevent-devel libevent-static systemd-devel
	elfutils-libelf-devel elfutils-libelf-devel-static zlib-static
	libzstd-static qemu-system-x86 busybox cpio kmod xz
	python3 python3-pytest nodejs npm git util-linux procps-ng gnuplot
)
dnf_check=(
	rpm-build dpkg dwarves tuned dkms debootstrap e2fsprogs zstd compiler-rt
	python3-prometheus_client python3-flask
	debugedit elfutils rpmlint dracut python3-pyyaml
	# Fedora packages no runsc: make container-check skips its gVisor cases
	podman runc catatonit ShellCheck
	# make confine-check's SELinux half (its AppArmor half wants
	# apparmor-parser)
	selinux-policy-devel checkpolicy policycoreutils setools-console
)

log=$cache/deps.log
# run "$@" with its output appended to $log; on failure show its end
logged() {
	"$@" >>"$log" 2>&1 && return
	tail -n 20 "$log" >&2
	die "failed: $* (whole output: $log)"
}

# apt_plan PKG...: what installing PKG... takes, from apt-get -s: sets
# plan_new (packages installed, dependencies included) and plan_up
# (installed packages it would upgrade or remove)
apt_plan() {
	local sim
	sim=$(apt-get -s install --no-upgrade --no-install-recommends "$@" 2>&1) ||
		{ printf '%s\n' "$sim" >&2; die "apt-get cannot install: $*"; }
	mapfile -t plan_new < <(awk '$1 == "Inst" && $3 !~ /^\[/ { print $2 }' <<<"$sim")
	mapfile -t plan_up < <(awk '($1 == "Inst" && $3 ~ /^\[/) || $1 == "Remv" { print $2 " " $3 }' <<<"$sim")
}

# install_apt WHAT PKG...: install those of PKG... that are missing, with
# one line on the screen and apt's output in $log. For the demo no package
# already installed is upgraded or removed: where the missing ones need
# that (a newer library, say), it stops and names them; the full set (make
# check: its arm64 libraries must match the host's versions) says which
# it upgrades. With simulate=1 it says what it would do and changes
# nothing.
install_apt() {
	local what=$1 missing=() p a
	shift
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	# Debian packages npm apart from nodejs; some nodejs builds bundle it
	command -v npm >/dev/null || missing+=(npm)
	if [ ${#missing[@]} -eq 0 ]; then
		say "all packages for $what present"
		return
	fi
	mkdir -p "$cache" && : >"$log"
	# packages of another architecture (NAME:ARCH): that architecture
	# added to dpkg's first, so that apt-get update fetches its lists
	for a in $(printf '%s\n' "${missing[@]}" | sed -n 's/^[^:]*:\([a-z0-9]*\)$/\1/p' | sort -u); do
		dpkg --print-foreign-architectures | grep -qx "$a" || [ "$(dpkg --print-architecture)" = "$a" ] ||
			{ [ "$simulate" = 1 ] && die "simulate: $a is not a dpkg architecture here"; say "adding dpkg architecture $a"; as_root dpkg --add-architecture "$a"; }
	done
	[ "$simulate" = 1 ] || logged as_root apt-get update
	apt_plan "${missing[@]}"
	if [ ${#plan_up[@]} -ne 0 ] && [ "$pkgset" = demo ]; then
		printf '  %s\n' "${plan_up[@]}" >&2
		die "installing ${missing[*]} would upgrade or remove the ${#plan_up[@]} installed packages above; nothing done. Upgrade the host first (apt-get upgrade) or install them by hand"
	fi
	local up=""
	[ ${#plan_up[@]} -eq 0 ] || up=", upgrading ${#plan_up[@]} installed ones they need: $(printf '%s ' "${plan_up[@]}" | tr -d '[]')"
	if [ "$simulate" = 1 ]; then
		say "would install ${#plan_new[@]} packages for $what (${missing[*]} and their dependencies): ${plan_new[*]}"
		say "would upgrade or remove ${#plan_up[@]} installed packages${up:+: ${up#*: }}"
		return
	fi
	say "installing ${#plan_new[@]} packages for $what$up (log: $log)"
	# tuned is needed for its profile loader, not as a running daemon:
	# keep package scripts from starting services on this machine.
	local policy=/usr/sbin/policy-rc.d
	if [ ! -e $policy ]; then
		# shellcheck disable=SC2064 # $policy is local: expanded now, on purpose
		trap "as_root rm -f $policy" EXIT
		printf '#!/bin/sh\nexit 101\n' | as_root tee $policy >/dev/null
		as_root chmod 755 $policy
	fi
	logged as_root env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-upgrade --no-install-recommends "${missing[@]}"
}

install_dnf() {
	local what=$1 missing=() p
	shift
	for p in "$@"; do
		rpm -q "$p" >/dev/null 2>&1 || missing+=("$p")
	done
	[ ${#missing[@]} -ne 0 ] || { say "all packages for $what present"; return; }
	[ "$simulate" = 0 ] || { say "would install for $what: ${missing[*]}"; return; }
	mkdir -p "$cache" && : >"$log"
	say "installing ${#missing[@]} packages for $what (log: $log)"
	logged as_root dnf install -y -q "${missing[@]}"
}

# Debian's kernel packages for KVER (e.g. 6.12.117+deb12-amd64 or
# 6.1.0-57-amd64), unpacked. apt-get download works without root and never
# touches the host's installed kernels.
fetch_kernel() {
	local kver=$1
	local kbase=${kver%-*}		# 6.12.117+deb12, 6.1.0-57
	local kroot=$cache/kernel/$kver/root
	local stamp=$kroot/.agentmm-complete
	# kbuild is per upstream release (6.12.117+deb12) or, for the
	# distribution's own series, per major.minor (linux-kbuild-6.1)
	local kbuild=linux-kbuild-$kbase
	apt-cache show "$kbuild" >/dev/null 2>&1 ||
		kbuild=linux-kbuild-$(echo "$kver" | cut -d. -f1,2)
	if [ -f "$stamp" ]; then
		say "test kernel $kver present in $kroot"
		return
	fi
	{ command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null; } ||
		die "fetching the test kernel needs apt-get and dpkg-deb (Debian's packages linux-image-$kver-unsigned, linux-headers-$kver, linux-headers-$kbase-common, $kbuild). On other systems unpack them by hand into $kroot."
	local dl=$cache/kernel/$kver/debs
	mkdir -p "$dl"
	say "downloading Debian kernel packages for $kver"
	(cd "$dl" && apt-get download -q \
		"linux-image-$kver-unsigned" "linux-headers-$kver" \
		"linux-headers-$kbase-common" "$kbuild") ||
		die "apt-get download failed; run 'apt-get update' and check that $kver is still in the archive (or change tests/vm/kernel-version or kernel-floor)"
	rm -rf "$kroot.tmp"
	mkdir -p "$kroot.tmp"
	local deb
	for deb in "$dl"/*.deb; do
		dpkg-deb -x "$deb" "$kroot.tmp"
	done
	[ -f "$kroot.tmp/boot/vmlinuz-$kver" ] ||
		die "no boot/vmlinuz-$kver in the downloaded image package"
	[ -f "$kroot.tmp/usr/src/linux-headers-$kver/Makefile" ] ||
		die "no headers at usr/src/linux-headers-$kver in the downloads"
	# Debian's arch Makefile includes the common tree by absolute path;
	# point it at our unpacked copy.
	sed -i "s|^include /usr/src/|include $kroot/usr/src/|" \
		"$kroot.tmp/usr/src/linux-headers-$kver/Makefile"
	rm -rf "$kroot"
	mv "$kroot.tmp" "$kroot"
	rm -rf "$dl"
	touch "$stamp"
	say "test kernel unpacked in $kroot"
}

# apt_download ARCH SOURCE DIR PKG...: Debian packages downloaded into DIR
# through a private apt state, so the host's apt lists and dpkg
# architectures stay as they are. ARCH: only that architecture ('': the
# host's); SOURCE: one sources.list line ('': the host's sources).
apt_download() {
	local arch=$1 source=$2 dir=$3 apt_dir rc=0
	shift 3
	apt_dir=$(mktemp -d)
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/parts" "$dir"
	if [ -n "$source" ]; then
		echo "$source" >"$apt_dir/sources.list"
	else
		cp /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list "$apt_dir/parts/" 2>/dev/null || :
		[ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$apt_dir/sources.list"
	fi
	local o=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=$apt_dir/parts"
		-o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
		-o Dir::State::status=/dev/null -o APT::Sandbox::User=root)
	[ -z "$arch" ] || o+=(-o "APT::Architecture=$arch" -o "APT::Architectures=$arch")
	apt-get "${o[@]}" update -qq >/dev/null 2>&1 &&
		(cd "$dir" && apt-get "${o[@]}" download -qq "$@" >/dev/null) || rc=1
	rm -rf "$apt_dir"
	return $rc
}

# Headers of a kernel of another architecture (tests/vm/kernel-cross, e.g.
# arm64 6.12.117+deb12-arm64-16k) to cross-build agentmm.ko against:
# linux-headers-KVER of that architecture with the common headers and
# kbuild tools of this host's architecture, the same upstream release.
# Nothing is installed.
fetch_kernel_cross() {
	local arch=$1 kver=$2 kbase
	kbase=$(echo "$kver" | sed -E 's/-(amd64|arm64)(-16k)?$//')
	local kroot=$cache/kernel/$kver/root dl
	# complete: headers, image, and the modules the guest suites load
	[ -f "$kroot/.agentmm-complete" ] && [ -d "$kroot/lib/modules/$kver/kernel/drivers/block/zram" ] &&
		{ say "$arch kernel headers $kver present in $kroot"; return; }
	say "downloading Debian's $arch headers and image for $kver"
	dl=$(mktemp -d)
	# the image for the guest (make vm-check-arm64): its boot/ and the
	# modules the guest suites load (zram and lz4 for a swap device, 9p for
	# the host share; tests/vm/run)
	{ apt_download "$arch" '' "$dl/image" "linux-image-$kver-unsigned" &&
	  apt_download "$arch" '' "$dl" "linux-headers-$kver" &&
	  (cd "$dl" && apt-get -o APT::Sandbox::User=root download -qq "linux-headers-$kbase-common" "linux-kbuild-$kbase"); } ||
		{ rm -rf "$dl"; die "could not download linux-headers-$kver ($arch), linux-headers-$kbase-common, linux-kbuild-$kbase (check tests/vm/kernel-cross against the archive)"; }
	rm -rf "$kroot.tmp" && mkdir -p "$kroot.tmp"
	local deb
	for deb in "$dl"/*.deb; do dpkg-deb -x "$deb" "$kroot.tmp"; done
	dpkg-deb --fsys-tarfile "$dl"/image/*.deb | tar -C "$kroot.tmp" -x --wildcards ./boot \
		"./lib/modules/$kver/kernel/drivers/block/zram/*" "./lib/modules/$kver/kernel/lib/lz4/*" \
		"./lib/modules/$kver/kernel/fs/9p/*" "./lib/modules/$kver/kernel/net/9p/*" \
		"./lib/modules/$kver/kernel/fs/netfs/*"
	rm -rf "$dl"
	[ -f "$kroot.tmp/boot/vmlinuz-$kver" ] || die "no boot/vmlinuz-$kver in linux-image-$kver-unsigned"
	[ -f "$kroot.tmp/usr/src/linux-headers-$kver/Makefile" ] ||
		die "no headers at usr/src/linux-headers-$kver in the downloads"
	sed -i "s|^include /usr/src/|include $kroot/usr/src/|" \
		"$kroot.tmp/usr/src/linux-headers-$kver/Makefile"
	rm -rf "$kroot" && mv "$kroot.tmp" "$kroot" && touch "$kroot/.agentmm-complete"
	say "$arch kernel headers unpacked in $kroot"
}

# The libraries agentmmd links statically (libbpf, libelf, zlib, zstd,
# libevent) and libsystemd (shared only: the static programs build
# unitbus.c without it; the aarch64 RPM links it), of
# architecture ARCH, unpacked into $cache/sysroot/ARCH for cross builds
# (make cross-check); the C library comes with the cross compiler.
fetch_cross_sysroot() {
	local arch=$1 root=$cache/sysroot/$1 dl deb
	# complete, and with libevent and libsystemd (a sysroot from before
	# them is fetched again)
	[ -f "$root/.agentmm-complete" ] && compgen -G "$root/usr/lib/*/libevent_core.a" >/dev/null &&
		compgen -G "$root/usr/lib/*/libsystemd.so" >/dev/null &&
		{ say "$arch libraries present in $root"; return; }
	say "downloading Debian's $arch libbpf, libelf, zlib, zstd, libevent, libsystemd for cross builds"
	dl=$(mktemp -d)
	apt_download "$arch" '' "$dl" libbpf-dev libbpf1 libelf-dev libelf1 zlib1g-dev zlib1g libzstd-dev libzstd1 \
		libevent-dev libevent-2.1-7 libevent-core-2.1-7 libevent-extra-2.1-7 libevent-pthreads-2.1-7 \
		libevent-openssl-2.1-7 libsystemd-dev libsystemd0 libcap2 libgcrypt20 libgpg-error0 \
		liblz4-1 liblzma5 busybox-static ||
		{ rm -rf "$dl"; die "could not download the $arch libraries for cross builds"; }
	rm -rf "$root.tmp" && mkdir -p "$root.tmp"
	for deb in "$dl"/*.deb; do dpkg-deb -x "$deb" "$root.tmp"; done
	rm -rf "$dl" "$root" && mv "$root.tmp" "$root" && touch "$root/.agentmm-complete"
	say "$arch libraries unpacked in $root"
}

# A current tuned release, for tests/pkg to run its profile loader on the
# agent-sandbox profile (Debian 13's package, unpacked into the cache, never
# installed; Debian 12's tuned 2.20 is the one installed). Optional: the
# test says so when it is missing.
tuned_new=2.25.1-1
fetch_tuned() {
	local dir=$cache/tuned/$tuned_new dl
	[ -f "$dir/.agentmm-complete" ] && { say "tuned $tuned_new present in $dir"; return; }
	command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || return 0
	say "fetching tuned $tuned_new (Debian 13) for the profile-loader test"
	dl=$(mktemp -d)
	if apt_download '' "deb http://deb.debian.org/debian trixie main" "$dl" "tuned=$tuned_new" 2>/dev/null; then
		mkdir -p "$dir" && rm -rf "$dir/root" && dpkg-deb -x "$dl"/tuned_*.deb "$dir/root" &&
			touch "$dir/.agentmm-complete"
	else
		say "warning: could not fetch tuned $tuned_new; tests/pkg runs only the installed tuned's loader"
	fi
	rm -rf "$dl"
}

# The npm package the real-tool benchmark's agent runtime loads
# (benchmarks/tools/runtime.js: typescript, pinned by
# benchmarks/tools/package-lock.json), installed with `npm ci` into
# $cache/bench-node, never into the tree. Needs the npm registry the first
# time only; a lock file unchanged since the last install downloads nothing.
fetch_bench_node() {
	local dir=$cache/bench-node src=$top/benchmarks/tools
	if cmp -s "$src/package-lock.json" "$dir/package-lock.json" &&
	   [ -f "$dir/node_modules/typescript/package.json" ]; then
		say "benchmark runtime's npm packages present in $dir/node_modules"
		return
	fi
	command -v npm >/dev/null || die "npm missing (install nodejs and npm)"
	say "installing the benchmark runtime's npm packages into $dir (npm ci)"
	mkdir -p "$dir"
	cp "$src/package.json" "$src/package-lock.json" "$dir/"
	npm ci --prefix "$dir" --ignore-scripts --no-audit --no-fund --loglevel=error ||
		die "npm ci in $dir failed (needs the npm registry the first time)"
}

# The kernel's style checker for make structure-check: checkpatch.pl and the
# two data files it reads next to itself, out of Debian's linux-source-6.12
# (downloaded once, ~150 MB, then dropped; never installed).
fetch_checkpatch() {
	local dir=$cache/checkpatch dl f
	[ -f "$dir/checkpatch.pl" ] && [ -f "$dir/spelling.txt" ] &&
		{ say "checkpatch.pl present in $dir"; return; }
	{ command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null; } ||
		die "checkpatch.pl: needs apt-get and dpkg-deb to fetch linux-source-6.12 (or put checkpatch.pl, spelling.txt and const_structs.checkpatch from a kernel tree's scripts/ into $dir)"
	say "fetching checkpatch.pl from linux-source-6.12 (once)"
	dl=$(mktemp -d)
	if ! apt_download '' '' "$dl" linux-source-6.12; then
		rm -rf "$dl"
		die "could not download linux-source-6.12 (apt-get update; or put checkpatch.pl, spelling.txt and const_structs.checkpatch into $dir)"
	fi
	{ dpkg-deb --fsys-tarfile "$dl"/linux-source-6.12_*.deb |
		tar -x -C "$dl" --wildcards './usr/src/linux-source-6.12.tar.*' &&
	  tar -x -C "$dl" -f "$dl"/usr/src/linux-source-6.12.tar.* --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'; } ||
		{ rm -rf "$dl"; die "linux-source-6.12: no scripts/checkpatch.pl in the package"; }
	mkdir -p "$dir"
	for f in checkpatch.pl spelling.txt const_structs.checkpatch; do
		cp "$dl"/linux-source-6.12/scripts/$f "$dir/" ||
			{ rm -rf "$dl"; die "linux-source-6.12: no scripts/$f"; }
	done
	rm -rf "$dl"
}

if command -v apt-get >/dev/null; then
	if [ "$pkgset" = demo ]; then install_apt "the demo" "${apt_demo[@]}"
	else install_apt "build and tests" "${apt_demo[@]}" "${apt_check[@]}"; fi
elif command -v dnf >/dev/null; then
	if [ "$pkgset" = demo ]; then install_dnf "the demo" "${dnf_demo[@]}"
	else install_dnf "build and tests" "${dnf_demo[@]}" "${dnf_check[@]}"; fi
else
	die "no apt-get or dnf: install by hand: gcc make clang llvm libbpf (static) bpftool libelf zlib zstd qemu-system-x86_64 busybox (static) cpio kmod gnuplot rpmbuild"
fi
[ "$simulate" = 0 ] || exit 0
fetch_kernel "$(cat "$top/tests/vm/kernel-version")"
fetch_bench_node
# the demo needs no more: the floor and arm64 kernels, the cross
# libraries, the newer tuned and checkpatch are for make check
[ "$pkgset" = demo ] && exit 0
fetch_kernel "$(cat "$top/tests/vm/kernel-floor")"
while read -r arch kver; do
	[ -n "$kver" ] && fetch_kernel_cross "$arch" "$kver"
done < <(grep -v '^#' "$top/tests/vm/kernel-cross")
mapfile -t arches < <(grep -v '^#' "$top/tests/vm/kernel-cross" | awk '{ print $1 }' | sort -u)
for arch in "${arches[@]}"; do
	fetch_cross_sysroot "$arch"
done
fetch_tuned
fetch_checkpatch
