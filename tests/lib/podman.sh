# SPDX-License-Identifier: GPL-2.0
# The rig's podman, shared by the tests that run real containers on this
# host (tests/k8s/image: make image-check; tests/containers/: make
# container-check). Bash. Source it after tests/lib/check.sh (it uses
# `check`), with $CACHE (the agentmm cache) and $tmp (a temp dir the caller
# removes) set:
#   podman_setup       the rig's containers.conf and storage; one user at a
#                      time (returns 1 when another holds the lock)
#   pm ARGS...         podman on the rig's storage
#   podman_base_image  $PODMAN_BASE, the Debian 12 base (Debian's packages,
#                      no registry), made once and kept in the cache
#
# Images and layers live in the cache between runs; podman's run state on
# tmpfs at a path that stays the same (podman's database records it, so
# every user of this storage shares it, hence the lock).
PODMAN_GRAPH=$CACHE/podman/storage
PODMAN_RUNROOT=/run/agentmm-image-check
PODMAN_BASE=localhost/agentmm-base:bookworm

podman_setup() {
	mkdir -p "$PODMAN_GRAPH" "$PODMAN_RUNROOT" || return 1
	exec 9>"$PODMAN_RUNROOT.lock"
	flock -n 9 || return 1
	# root here may lack CAP_SYS_RESOURCE, which podman's default rlimits
	# need; crun refuses a hybrid cgroup layout: runc. No systemd as PID
	# 1: the cgroupfs manager.
	cat >"$tmp/containers.conf" <<-'EOF'
	[containers]
	default_ulimits = []
	[engine]
	runtime = "runc"
	events_logger = "file"
	cgroup_manager = "cgroupfs"
	EOF
	export CONTAINERS_CONF=$tmp/containers.conf
}

pm() { podman --root "$PODMAN_GRAPH" --runroot "$PODMAN_RUNROOT" --storage-driver overlay "$@"; }

podman_base_image() {
	if ! pm image exists $PODMAN_BASE; then
		check "Debian 12 base root from Debian's packages (mmdebstrap --variant=minbase)" \
			mmdebstrap --quiet --variant=minbase --mode=root bookworm "$tmp/base.tar"
		check "base imported as $PODMAN_BASE" pm import --quiet "$tmp/base.tar" $PODMAN_BASE
		rm -f "$tmp/base.tar"
	fi
}
