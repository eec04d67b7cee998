/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agentload's sandbox processes: the driver (the resident runtime with its
 * baseline heap and churn, which forks the planned tool calls) and the
 * synthetic tool itself.
 */
#ifndef AGENTMM_BENCH_AGENTLOAD_SANDBOX_H
#define AGENTMM_BENCH_AGENTLOAD_SANDBOX_H

/* Sandbox @sb's driver, in its forked child: join the runtime cgroup,
 * wait for the start (@start_fd closed), run the plan, exit. With
 * --tools real it becomes the node runtime instead. */
__attribute__((noreturn))
void driver_main(int sb, int start_fd);

#endif /* AGENTMM_BENCH_AGENTLOAD_SANDBOX_H */
