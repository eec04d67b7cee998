/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agentmmd's configuration keys, listed once: one
 * AMM_CONFIG_KEY(name, field, type, default, min, max, group, description)
 * per key, in the order --check-config prints them. Every user defines
 * AMM_CONFIG_KEY, includes this file and undefines it (so there is no
 * include guard): the parser, the defaults and the dump (config.c),
 * agentmmd --help (usage.c), and tests/structure/check.py, which reads this
 * file to check agentmmd.conf and agentmmd.conf(5) against it. The
 * governor_<name> tunables come from policy/govtunables.h the same way.
 *
 * field:   the member of struct amm_config the key sets
 * type:    how its value is parsed and printed (config.c: set_<type>,
 *          print_<type>): uint, u64, int, bool, centi (0.00..100.00, kept
 *          as hundredths), or one of the text types
 * default: the value as the file would spell it ("" = empty), parsed by
 *          set_<type> into the defaults; the docs state it as written here
 * min,max: the range of a number alone (rules between keys: config.c)
 * group:   USER (in agentmmd --help) or TUNING (agentmmd.conf(5) only)
 *
 * Keep each entry's name, type and default on its first line: the
 * structure check reads them from there.
 */
AMM_CONFIG_KEY(cgroup_root, cgroup_root, abspath, "/sys/fs/cgroup", 0, 0,
	       USER, "the cgroup v2 mount point (or a cgroup v1 memory hierarchy)")
/*
 * Podman under systemd puts its monitor in machine.slice/libpod-conmon-ID.scope
 * beside the container's libpod-ID.scope: two hex digits first keep conmon
 * out (no 'o' in hex). Under podman's cgroupfs manager (no systemd)
 * containers are libpod_parent/libpod-ID and conmon is libpod_parent/conmon.
 */
AMM_CONFIG_KEY(sandbox_patterns, patterns, globs, "machine.slice/libpod-[0-9a-f][0-9a-f]*.scope libpod_parent/libpod-* machine.slice/machine-*.scope system.slice/docker-*.scope kubepods.slice/**/cri-containerd-*.scope kubepods.slice/**/crio-*.scope agent.slice/*", 0, 0,
	       USER, "globs below cgroup_root naming the sandbox cgroups (** = any depth)")
AMM_CONFIG_KEY(tool_cgroup_prefix, tool_prefix, prefix, "tool-", 0, 0,
	       TUNING, "children of a sandbox with this prefix are tool cgroups")
AMM_CONFIG_KEY(runtime_cgroup, runtime_cgroup, cgname, "runtime", 0, 0,
	       TUNING, "the sandbox's child holding its agent runtime; empty: always guess")
AMM_CONFIG_KEY(protect_guessed_runtime, protect_guessed_runtime, bool, "0", 0, 1,
	       TUNING, "give a guessed runtime runtime_oom_score_adj too")
AMM_CONFIG_KEY(state_dir, state_dir, statedir, "/run/agentmm", 0, 0,
	       USER, "status, metrics, events, control socket, the record of changes to undo")
AMM_CONFIG_KEY(interval_ms, interval_ms, uint, "500", 50, 60000,
	       TUNING, "sampling interval near the throttle line")
AMM_CONFIG_KEY(busy_interval_ms, busy_interval_ms, uint, "100", 20, 60000,
	       TUNING, "sampling interval while acting or after a pressure event")
AMM_CONFIG_KEY(idle_interval_ms, idle_interval_ms, uint, "2000", 50, 600000,
	       TUNING, "sampling interval with plenty of free memory; the slow tick")
AMM_CONFIG_KEY(memory_limit_mb, memory_limit_mb, u64, "0", 0, 1ULL << 40,
	       USER, "MiB for all sandboxes together; 0: the whole host")
AMM_CONFIG_KEY(throttle_free_pct, throttle_free_pct, uint, "15", 0, 100,
	       USER, "throttle the fastest-growing tool below this % free")
AMM_CONFIG_KEY(freeze_free_pct, freeze_free_pct, uint, "8", 0, 100,
	       USER, "freeze lower-priority sandboxes below this % free")
AMM_CONFIG_KEY(kill_free_pct, kill_free_pct, uint, "3", 0, 100,
	       USER, "kill the largest tool below this % free for kill_after_ms")
AMM_CONFIG_KEY(hysteresis_pct, hysteresis_pct, uint, "5", 0, 100,
	       TUNING, "release throttles and freezes above throttle_free_pct + this")
AMM_CONFIG_KEY(kill_after_ms, kill_after_ms, uint, "1000", 0, 600000,
	       TUNING, "how long free memory stays below kill_free_pct before a kill")
AMM_CONFIG_KEY(swap_thrash_psi_full, swap_thrash_psi_full, centi, "40.00", 0, 10000,
	       TUNING, "with free swap, act only from this memory pressure (full avg10, %); 0: as without swap")
AMM_CONFIG_KEY(swap_thrash_s, swap_thrash_s, uint, "30", 0, 3600,
	       TUNING, "... held this long on end")
AMM_CONFIG_KEY(forecast_throttle_ms, forecast_throttle_ms, uint, "4000", 0, 600000,
	       TUNING, "throttle early when the limit is this near at the current growth; 0: off")
AMM_CONFIG_KEY(forecast_freeze_ms, forecast_freeze_ms, uint, "2000", 0, 600000,
	       TUNING, "freeze early when the limit is this near; 0: off")
AMM_CONFIG_KEY(forecast_kill_ms, forecast_kill_ms, uint, "1000", 0, 600000,
	       TUNING, "kill early when the limit is this near; 0: off")
AMM_CONFIG_KEY(pool_cgroup, pool_cgroup, relpath, "", 0, 0,
	       TUNING, "the cgroup holding every sandbox, for the memory.high backstop; empty: none")
AMM_CONFIG_KEY(pool_high_free_pct, pool_high_free_pct, uint, "2", 0, 50,
	       TUNING, "the backstop's memory.high: this % below the pool's limit")
AMM_CONFIG_KEY(kill_min_mb, kill_min_mb, u64, "16", 0, 1ULL << 40,
	       TUNING, "tools holding less than this are not killed")
AMM_CONFIG_KEY(throttle, throttle, bool, "1", 0, 1,
	       USER, "the throttle step (memory.high on a tool cgroup)")
AMM_CONFIG_KEY(freeze, freeze, bool, "1", 0, 1,
	       USER, "the freeze step (cgroup.freeze on a sandbox)")
AMM_CONFIG_KEY(kill, kill, bool, "1", 0, 1,
	       USER, "the kill step (a tool, never the agent runtime)")
AMM_CONFIG_KEY(floor_mb, floor_mb, u64, "64", 0, 1ULL << 40,
	       TUNING, "only tool cgroups above this are throttled, never below it")
AMM_CONFIG_KEY(priorities, prio_patterns, prios, "", 0, 0,
	       USER, "GLOB=N ...: sandbox priorities, first match wins (higher: frozen later)")
AMM_CONFIG_KEY(default_priority, default_priority, uint, "100", 0, 1000000,
	       USER, "priority of sandboxes no xattr or priorities entry names")
AMM_CONFIG_KEY(freeze_max_s, freeze_max_s, uint, "30", 1, 3600,
	       TUNING, "a freeze lasts at most this long, then as long unfrozen")
AMM_CONFIG_KEY(freeze_kubernetes, freeze_kubernetes, bool, "0", 0, 1,
	       TUNING, "freeze Kubernetes pods too (their probes fail while frozen)")
AMM_CONFIG_KEY(handover, handover, bool, "1", 0, 1,
	       TUNING, "on a restart by systemd, leave what is borrowed in force for the next agentmmd")
AMM_CONFIG_KEY(runtime_oom_score_adj, runtime_oom_score_adj, int, "-900", -1000, 1000,
	       TUNING, "oom_score_adj of an agent runtime")
AMM_CONFIG_KEY(tool_oom_score_adj, tool_oom_score_adj, int, "500", -1000, 1000,
	       TUNING, "oom_score_adj of a tool process")
AMM_CONFIG_KEY(reclaim_v1_limit, reclaim_v1_limit, bool, "0", 0, 1,
	       TUNING, "cgroup v1: reclaim through memory.limit_in_bytes, not MADV_PAGEOUT")
AMM_CONFIG_KEY(reclaim, reclaim, bool, "1", 0, 1,
	       USER, "proactive reclaim of sandboxes between tool calls")
AMM_CONFIG_KEY(reclaim_paced, reclaim_paced, bool, "1", 0, 1,
	       TUNING, "paced reclaim of every sandbox; 0: the older idle-only rule")
/* 100: tuned on workload seeds 101-103 (benchmarks/RESULTS.md), the largest
 * of 60/100/150 within 3% of the host's CPU, completion and p95 kept */
AMM_CONFIG_KEY(reclaim_paced_step_permille, reclaim_paced_step_permille, uint, "100", 1, 500,
	       TUNING, "the largest paced step, per mille of the sandbox's memory")
AMM_CONFIG_KEY(reclaim_settle_ms, reclaim_settle_ms, uint, "1000", 0, 3600000,
	       TUNING, "no step until this long after a tool call ended")
AMM_CONFIG_KEY(reclaim_refault_max_pct, reclaim_refault_max_pct, uint, "10", 0, 100,
	       TUNING, "refaults above this % of the last step halve the next")
AMM_CONFIG_KEY(reclaim_gap_refault_max_pct, reclaim_gap_refault_max_pct, uint, "0", 0, 100,
	       TUNING, "judge each pause between tool calls by its refaults; 0: off")
AMM_CONFIG_KEY(reclaim_hot_skip_s, reclaim_hot_skip_s, uint, "120", 0, 86400,
	       TUNING, "MADV_PAGEOUT: leave a chunk that came back alone this long")
AMM_CONFIG_KEY(reclaim_target_free_pct, reclaim_target_free_pct, uint, "100", 0, 100,
	       TUNING, "reclaim_paced = 0: reclaim while free memory is below this %")
AMM_CONFIG_KEY(reclaim_host_psi_max, reclaim_host_psi_max, centi, "1.00", 0, 10000,
	       TUNING, "reclaim only while host memory pressure (some avg10, %) is at most this")
AMM_CONFIG_KEY(reclaim_idle_s, reclaim_idle_s, uint, "30", 0, 86400,
	       TUNING, "a sandbox without a tool call this long is idle")
AMM_CONFIG_KEY(reclaim_sandbox_psi_max, reclaim_sandbox_psi_max, centi, "0.50", 0, 10000,
	       TUNING, "... and the sandbox's own memory pressure at most this")
AMM_CONFIG_KEY(reclaim_step_pct, reclaim_step_pct, uint, "5", 0, 100,
	       TUNING, "reclaim_paced = 0: at most this % of a sandbox per interval")
AMM_CONFIG_KEY(reclaim_budget_mb_per_s, reclaim_budget_mb_per_s, u64, "64", 0, 1ULL << 30,
	       TUNING, "at most this much reclaimed from all sandboxes per second")
AMM_CONFIG_KEY(zswap_writeback, zswap_writeback, bool, "0", 0, 1,
	       TUNING, "0: sandboxes' zswap pages never go to the swap device; 1: left as found")
AMM_CONFIG_KEY(governor, governor, govmode, "auto", 0, 0,
	       USER, "whose mTHP decision to apply: auto, kernel, daemon, observe, off")
AMM_CONFIG_KEY(governor_candidates, gov_candidates, sizes, "", 0, 0,
	       TUNING, "sizes in kB the daemon's governor may enable; empty: 4, 8 and 16 pages")
AMM_CONFIG_KEY(dry_run, dry_run, bool, "0", 0, 1,
	       USER, "decide and log every action, change nothing")
AMM_CONFIG_KEY(metrics_textfile, metrics_textfile, promfile, "", 0, 0,
	       USER, "also write the metrics here (an absolute path ending in .prom)")
AMM_CONFIG_KEY(metrics_listen, metrics_listen, listen, "", 0, 0,
	       USER, "serve the metrics over HTTP at ADDR:PORT or [IPv6]:PORT (numeric); empty: off")
AMM_CONFIG_KEY(metrics_interval_s, metrics_interval_s, uint, "15", 1, 3600,
	       TUNING, "how often the metrics are written")
AMM_CONFIG_KEY(metrics_sandboxes, metrics_sandboxes, uint, "100", 0, 1000000,
	       TUNING, "per-sandbox series for at most this many sandboxes (those acted on first, then the largest); the agentmm_sandboxes_* totals count all")
AMM_CONFIG_KEY(events_max_kb, events_max_kb, uint, "1024", 16, 1U << 20,
	       TUNING, "the event history's size limit")
AMM_CONFIG_KEY(retry_repeats, retry_repeats, uint, "3", 0, 100,
	       TUNING, "the same command this many times in a row is a retry loop")
AMM_CONFIG_KEY(bpf, bpf, bool, "1", 0, 1,
	       TUNING, "load the BPF programs; 0: cgroupfs only, no tool-call tracking")
AMM_CONFIG_KEY(bpf_tasks_per_sandbox, bpf_tasks_per_sandbox, uint, "4096", 16, 65536,
	       TUNING, "processes of one sandbox the BPF programs record")
AMM_CONFIG_KEY(debug, debug, bool, "0", 0, 1,
	       TUNING, "verbose logging")
