# SPDX-License-Identifier: GPL-2.0-only
# `make dist`: the release tarball build/dist/agentmm_VERSION.orig.tar.xz
# from git (HEAD; DIST_WORKTREE=1: the working tree), less debian/
# copyright's Files-Excluded, reproducible (scripts/dist.sh), and its SPDX
# SBOM beside it (scripts/sbom.py).
DIST_DIR ?= $(BUILD)/dist
DIST_WORKTREE ?=
.PHONY: dist
dist:
	@$(TOP)/scripts/dist.sh $(if $(filter 1,$(DIST_WORKTREE)),--worktree) $(DIST_DIR)
