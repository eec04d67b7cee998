# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The agent image (bash; source after tests/lib/podman.sh, podman_setup
# done): Debian 12 from Debian's packages (tests/containers/packages), no
# registry, built once with mmdebstrap and kept in the rig's podman storage
# under the cache, tagged with the hash of its package list.
#   agent_image   sets AGENT_IMAGE; builds it when the cache has none
#                 (minutes; a warm cache: nothing)
#   agent_image_name  its name alone (no podman needed)
AGENT_PACKAGES=$(dirname "${BASH_SOURCE[0]}")/packages

# the image's packages, one line
agent_packages() { sed 's/#.*//' "$AGENT_PACKAGES" | tr -s ' \n' ' ' | sed 's/^ //; s/ $//'; }
# its name: tagged with the list's hash
agent_image_name() { echo "localhost/agentmm-agent:$(printf '%s\n' "$(agent_packages)" | sha256sum | cut -c1-12)"; }

agent_image() {
	local pkgs
	pkgs=$(agent_packages)
	AGENT_IMAGE=$(agent_image_name)
	pm image exists "$AGENT_IMAGE" && return 0
	echo "agent image: building $AGENT_IMAGE (mmdebstrap: $pkgs; a few minutes)"
	# fixed time stamps: the same list gives the same files (the mirror's
	# versions at build time aside); no apt lists or caches kept
	SOURCE_DATE_EPOCH=1700000000 check "agent root from Debian's packages (mmdebstrap)" \
		mmdebstrap --quiet --variant=minbase --mode=root \
			--include="${pkgs// /,}" \
			--customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
			bookworm "$tmp/agent.tar"
	check "agent image imported as $AGENT_IMAGE" \
		pm import --quiet --change 'CMD ["/bin/bash"]' "$tmp/agent.tar" "$AGENT_IMAGE"
	rm -f "$tmp/agent.tar"
	pm image exists "$AGENT_IMAGE"
}
