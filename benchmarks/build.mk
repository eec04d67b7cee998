# SPDX-License-Identifier: GPL-2.0
# Benchmarks (issue 3): the agent-sandbox workload, the fragmentation
# injector, the in-guest bench driver and the host-side report.

BENCH_DIR := $(TOP)/benchmarks
BENCH_POLICY := $(TOP)/policy
# The workload toolkit shared by the benchmark programs (agentload, fragment,
# benchmarks/replay): benchmarks/lib/ (util: messages, options, files,
# clocks; memacct: the one memory accounting; cgv1: cgroup v1 helpers).
BENCH_LIB := $(BENCH_DIR)/lib
BENCH_UTIL := $(BENCH_LIB)/util.c $(BENCH_LIB)/memacct.c
BENCH_UTIL_DEPS := $(BENCH_UTIL) $(BENCH_LIB)/util.h $(BENCH_LIB)/memacct.h
BENCH_CFLAGS := -I$(BENCH_POLICY) -I$(BENCH_LIB)
# agentload's own parts (agentload.h lists them) and the cgroup v1 helpers.
BENCH_LOAD_PARTS := agentload agentload-opts agentload-usage agentload-plan \
		    agentload-sandbox agentload-real agentload-cgroup \
		    agentload-sample agentload-out
BENCH_LOAD_SRC := $(BENCH_LOAD_PARTS:%=$(BENCH_DIR)/%.c) \
		  $(BENCH_LIB)/cgv1.c $(BENCH_POLICY)/parse.c $(BENCH_POLICY)/contig.c \
		  $(BENCH_UTIL)
BENCH_LOAD_DEPS := $(BENCH_LOAD_SRC) $(BENCH_LOAD_PARTS:%=$(BENCH_DIR)/%.h) \
		   $(BENCH_LIB)/cgv1.h \
		   $(BENCH_POLICY)/parse.h $(BENCH_POLICY)/contig.h \
		   $(BENCH_UTIL_DEPS)
# fragment's memory-state readers (fragment-state) and command line (fragment-opts).
BENCH_FRAG_SRC := $(BENCH_DIR)/fragment.c $(BENCH_DIR)/fragment-state.c \
		  $(BENCH_DIR)/fragment-opts.c $(BENCH_POLICY)/contig.c \
		  $(BENCH_POLICY)/parse.c $(BENCH_UTIL)
BENCH_FRAG_DEPS := $(BENCH_FRAG_SRC) $(BENCH_DIR)/fragment-state.h $(BENCH_DIR)/fragment-opts.h \
		   $(BENCH_POLICY)/contig.h $(BENCH_POLICY)/parse.h \
		   $(BENCH_POLICY)/amm_types.h \
		   $(BENCH_UTIL_DEPS)

# Static for the guest.
$(BUILD)/guest/bin/agentload: $(BENCH_LOAD_DEPS) | $(BUILD)/guest/bin
	$(CC) $(USER_CFLAGS) $(BENCH_CFLAGS) $(STATIC_LDFLAGS) -o $@ $(BENCH_LOAD_SRC) -lm

$(BUILD)/guest/bin/fragment: $(BENCH_FRAG_DEPS) | $(BUILD)/guest/bin
	$(CC) $(USER_CFLAGS) $(BENCH_CFLAGS) $(STATIC_LDFLAGS) -o $@ $(BENCH_FRAG_SRC)

# The guest driver is a busybox-ash script; installed into the guest's PATH
# with the knob snapshot/restore it shares with bench-host.sh and its arms.
$(BUILD)/guest/bin/bench-guest: $(BENCH_DIR)/bench-guest.sh | $(BUILD)/guest/bin
	install -m 755 $< $@

$(BUILD)/guest/bin/bench-knobs.sh: $(BENCH_DIR)/bench-knobs.sh | $(BUILD)/guest/bin
	install -m 644 $< $@

$(BUILD)/guest/bin/bench-arms.sh: $(BENCH_DIR)/bench-arms.sh | $(BUILD)/guest/bin
	install -m 644 $< $@

# Dynamic host builds, for runs on a real host (with an explicit decision
# to do so: they create cgroups and fragment memory).
$(BUILD)/tools/agentload: $(BENCH_LOAD_DEPS) | $(BUILD)/tools
	$(CC) $(USER_CFLAGS) $(BENCH_CFLAGS) -o $@ $(BENCH_LOAD_SRC) -lm

$(BUILD)/tools/fragment: $(BENCH_FRAG_DEPS) | $(BUILD)/tools
	$(CC) $(USER_CFLAGS) $(BENCH_CFLAGS) -o $@ $(BENCH_FRAG_SRC)

GUEST_BINS += $(BUILD)/guest/bin/agentload $(BUILD)/guest/bin/fragment \
	      $(BUILD)/guest/bin/bench-guest $(BUILD)/guest/bin/bench-knobs.sh \
	      $(BUILD)/guest/bin/bench-arms.sh
TOOLS += $(BUILD)/tools/agentload $(BUILD)/tools/fragment

$(BUILD)/guest/bin/demo-guest: $(BENCH_DIR)/demo-guest.sh | $(BUILD)/guest/bin
	install -m 755 $< $@

# report.sh also runs in the guest (table only: --no-plots), for the demo.
$(BUILD)/guest/bin/bench-report: $(BENCH_DIR)/report.sh | $(BUILD)/guest/bin
	install -m 755 $< $@

# How much of completion time is memory work (benchmarks/notes/2026-11-30-memshare.md).
$(BUILD)/guest/bin/memshare-guest: $(BENCH_DIR)/memshare-guest.sh | $(BUILD)/guest/bin
	install -m 755 $< $@

GUEST_BINS += $(BUILD)/guest/bin/demo-guest $(BUILD)/guest/bin/bench-report \
	      $(BUILD)/guest/bin/memshare-guest

# ---- make bench: the side-by-side benchmark in the QEMU guest ----
# BENCH_ARGS go to bench-guest (e.g. BENCH_ARGS="--reps 3 -n 3" or
# BENCH_ARGS='--arms "stock agentmm agentmm-small"'); BENCH_OUT names the
# output directory (default build/bench/<timestamp>); BENCH_TIMEOUT bounds
# the guest run (seconds).
BENCH_ARGS ?=
BENCH_TIMEOUT ?= 3600
# Without KVM, benchmarks run multi-threaded TCG (one host thread per vCPU,
# as every recorded run did); the tests run single-threaded (tests/vm/run
# --help says why). A rare early-boot int3 Oops then fails a benchmark
# within seconds; run it again.
BENCH_TCG_THREADS ?= multi
ifeq ($(origin BENCH_OUT),undefined)
BENCH_OUT := $(BUILD)/bench/$(shell date +%Y%m%d-%H%M%S)
endif

.PHONY: bench
bench: test-module guest-bins
	@case "$(BENCH_OUT)" in $(TOP)/*) ;; *) echo "error: BENCH_OUT must be under $(TOP) (shared with the guest)" >&2; exit 1 ;; esac
	mkdir -p $(BENCH_OUT)
	@echo "bench: results in $(BENCH_OUT)"
	set -o pipefail; $(TOP)/tests/vm/run --tcg-threads $(BENCH_TCG_THREADS) --share $(TOP) --timeout $(BENCH_TIMEOUT) --cmd \
	  'bench-guest --tuned-profile /host/tuned/agent-sandbox/tuned.conf $(BENCH_ARGS) /host$(patsubst $(TOP)%,%,$(BENCH_OUT))' \
	  2>&1 | tee $(BENCH_OUT)/console.txt
	$(BENCH_DIR)/report.sh $(BENCH_OUT)
	@echo "bench: table in $(BENCH_OUT)/report.txt, plots $(BENCH_OUT)/*.png, runs $(BENCH_OUT)/runs/"

# ---- make bench-coldstart: the cold-start workload in the guest ----
# The coldstart regime of bench-host (8 sandboxes at once, each tool call
# starts benchmarks/tools/service.py, Flask, and waits for its first 200)
# in the test guest with agentmm.ko, against the distributions' THP
# defaults. The real tools run from this host's /usr (tests/vm/run
# --host-usr: python3-flask, node, make deps); the runtime's npm packages
# are copied under build/ for the guest. TCG timing is no speed result:
# this shows the module's sizes and their faults on that workload, and
# that every cold start answers. BENCH_COLDSTART_ARGS go to bench-guest.
BENCH_COLDSTART_ARGS ?= --reps 3 --arms "distro-ubuntu distro-rhel agentmm" -n 8 -c 4
ifeq ($(origin BENCH_COLDSTART_OUT),undefined)
BENCH_COLDSTART_OUT := $(BUILD)/bench-coldstart/$(shell date +%Y%m%d-%H%M%S)
endif
.PHONY: bench-coldstart
bench-coldstart: test-module guest-bins
	@case "$(BENCH_COLDSTART_OUT)" in $(TOP)/*) ;; *) echo "error: BENCH_COLDSTART_OUT must be under $(TOP) (shared with the guest)" >&2; exit 1; esac
	@test -d $(AGENTMM_CACHE)/bench-node/node_modules || { echo "error: no $(AGENTMM_CACHE)/bench-node/node_modules: run make deps" >&2; exit 1; }
	mkdir -p $(BENCH_COLDSTART_OUT) $(BUILD)/bench-node
	cp -a $(AGENTMM_CACHE)/bench-node/node_modules $(BUILD)/bench-node/
	set -o pipefail; $(TOP)/tests/vm/run --host-usr --mem 6144 --tcg-threads $(BENCH_TCG_THREADS) \
	  --share $(TOP) --timeout $(BENCH_TIMEOUT) --env AGENTMM_BENCH_NODE_MODULES=/host/build/bench-node/node_modules \
	  --env AGENTMM_COLDSTART_TIMEOUT_S=900 --cmd \
	  'bench-guest --tuned-profile /host/tuned/agent-sandbox/tuned.conf --states healthy -t 0.005 -s 0.5 -m max \
	   --load-args "--tools real --tools-dir /host/benchmarks/tools --workdir /tmp/agentload --call-kind serve" \
	   $(BENCH_COLDSTART_ARGS) /host$(patsubst $(TOP)%,%,$(BENCH_COLDSTART_OUT))/coldstart' \
	  2>&1 | tee $(BENCH_COLDSTART_OUT)/console.txt
	$(BENCH_DIR)/report.sh --no-plots --save-summaries $(BENCH_COLDSTART_OUT)/summaries/coldstart $(BENCH_COLDSTART_OUT)/coldstart >/dev/null
	$(BENCH_DIR)/reference-table.sh --arm agentmm $(BENCH_COLDSTART_OUT)/summaries | tee $(BENCH_COLDSTART_OUT)/reference.txt
	@echo "bench-coldstart: table in $(BENCH_COLDSTART_OUT)/coldstart/report.txt, summaries $(BENCH_COLDSTART_OUT)/summaries"

# ---- make bench-host: the same arms natively on the running kernel ----
# (benchmarks/bench-host.sh --help). It writes THP/mTHP and vm sysctl
# knobs, snapshotted first and restored on every exit path, and refuses
# (changing nothing) where the mTHP knobs are absent or read-only.
# BENCH_HOST_ARGS go to bench-host.sh (e.g. BENCH_HOST_ARGS="--reps 3
# --regimes busy"); BENCH_HOST_OUT names the output directory.
BENCH_HOST_ARGS ?=
BENCH_HOST_OUT ?=
.PHONY: bench-host bench-host-smoke bench-host-refuse bench-host-governor bench-host-check demo-host
bench-host: tools
	$(BENCH_DIR)/bench-host.sh $(BENCH_HOST_ARGS) $(BENCH_HOST_OUT)

# ---- make density-host: how many sandboxes fit a fixed memory budget ----
# (benchmarks/density-host.sh --help): bench-host trials of the agents
# regime at growing sizes, each arm under one parent cgroup limit, against
# the uncontended stock run. DENSITY_HOST_ARGS go to density-host.sh (e.g.
# DENSITY_HOST_ARGS="--budget 2G --reps 3"); about 2 minutes per trial.
DENSITY_HOST_ARGS ?=
DENSITY_HOST_OUT ?=
.PHONY: density-host bench-host-density
density-host: tools
	$(BENCH_DIR)/density-host.sh $(DENSITY_HOST_ARGS) $(DENSITY_HOST_OUT)

# ---- make daemon-scale-host: what agentmmd costs per sandbox ----
# (benchmarks/daemon-scale-host.sh --help): N empty sandbox cgroups under a
# temporary parent, agentmmd's RSS, fds and CPU per tick at each N; removes
# what it made. DAEMON_SCALE_ARGS go to the script (e.g. --sizes "1000 4000").
DAEMON_SCALE_ARGS ?=
.PHONY: daemon-scale-host
daemon-scale-host: $(BUILD)/tools/agentmmd
	$(BENCH_DIR)/daemon-scale-host.sh $(BUILD)/tools/agentmmd $(DAEMON_SCALE_ARGS)

# Host-side checks (each ends "N passed, N failed"): one tiny native run of
# the real-tool workload with the knobs left as found, and the refusal where
# the knobs are read-only or absent (private mount namespace).
bench-host-smoke: $(BUILD)/tools/agentload $(BUILD)/tools/fragment
	$(BENCH_DIR)/bench-host-test.sh smoke

bench-host-refuse: $(BUILD)/tools/agentload $(BUILD)/tools/fragment
	$(BENCH_DIR)/bench-host-test.sh refuse

# The agentmm arm's pluggable governor command, against tmpfs copies of the
# knobs in a private mount namespace (the host's knobs are never written).
bench-host-governor: $(BUILD)/tools/agentload $(BUILD)/tools/fragment
	$(BENCH_DIR)/bench-host-test.sh governor

# The real-tool workload's node agent runtime alone: two calls on real
# content, deterministic requests, the npm package's absence named.
.PHONY: bench-runtime-smoke
bench-runtime-smoke:
	$(BENCH_DIR)/tools/runtime-smoke.sh

# The density search at a toy size: a roomy budget fits, one below the
# runtimes' own memory loses them to the memcg OOM killer.
bench-host-density: $(BUILD)/tools/agentload $(BUILD)/tools/fragment
	$(BENCH_DIR)/bench-host-test.sh density

bench-host-check: bench-host-smoke bench-host-refuse bench-host-governor bench-host-density

# The native part of `make demo` (skipped with a message where the host's
# mTHP knobs are not writable).
demo-host: tools
	$(BENCH_DIR)/demo-host.sh
