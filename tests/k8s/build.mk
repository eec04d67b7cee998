# SPDX-License-Identifier: GPL-2.0-only
# `make k8s-check`: offline schema validation of deploy/ (tests/k8s/run).
.PHONY: k8s-check
k8s-check:
	AGENTMM_CACHE=$(AGENTMM_CACHE) $(TOP)/tests/k8s/run
