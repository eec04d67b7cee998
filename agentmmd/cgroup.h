/* SPDX-License-Identifier: GPL-2.0 */
/* cgroupfs and procfs helpers shared by agentmmd and agentmmctl. */
#ifndef _AGENTMM_CGROUP_H
#define _AGENTMM_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Set by the host only; user.* is read only on root-owned cgroups. */
#define AMM_PRIORITY_XATTR	"trusted.agentmm.priority"
#define AMM_USER_PRIORITY_XATTR	"user.agentmm.priority"

/*
 * agentmmd --dry-run: cg_write() (every cgroupfs and /proc write the
 * daemon makes: memory.high, cgroup.freeze, cgroup.kill, memory.reclaim,
 * memory.oom.group, oom_score_adj) writes nothing and succeeds if the file
 * exists.
 */
extern bool amm_dry_run;

int cg_read_str(const char *dir, const char *file, char *buf, size_t len);
/* "max" reads as UINT64_MAX. */
int cg_read_u64(const char *dir, const char *file, uint64_t *v);
int cg_write(const char *dir, const char *file, const char *s);
int fd_read_u64(int fd, uint64_t *v);
/* Value of @key in a flat-keyed file such as memory.events. */
int cg_read_key(const char *dir, const char *file, const char *key,
		uint64_t *v);
/* "some avg10=" of a PSI file (absolute path) in hundredths. */
int psi_some_avg10(const char *path, unsigned int *x100);
/* the same from an open memory.pressure (or /proc/pressure) file */
int fd_psi_some_avg10(int fd, unsigned int *x100);
/* cgroup id of a cgroup directory (its inode number on cgroup2). */
uint64_t cg_id(const char *dir);
int cg_get_priority(const char *dir, unsigned int *prio);
int cg_get_priority_fd(int dirfd, unsigned int *prio);
int cg_set_priority(const char *dir, unsigned int prio);
/* Pids of @dir and all its descendants; returns count, -1 on error. */
int cg_pids(const char *dir, pid_t *pids, int max);

bool amm_glob_match(const char *pattern, const char *path);
/*
 * Whether a path below @path could match @pattern (@path matches its
 * leading components, or a "**" comes first): cgroups for which it is
 * false are not walked when looking for sandboxes.
 */
bool amm_glob_below(const char *pattern, const char *path);

int meminfo(uint64_t *total, uint64_t *available);
int swap_free(uint64_t *bytes);
int psi_full_avg10(const char *path, unsigned int *x100);
int proc_rss(pid_t pid, uint64_t *bytes);
int proc_own_anon(pid_t pid, uint64_t *bytes);
int proc_same_vm(pid_t a, pid_t b);
int proc_starttime(pid_t pid, uint64_t *ticks);
int proc_comm(pid_t pid, char *buf, size_t len);
int proc_ppid(pid_t pid, pid_t *ppid);
bool proc_in_my_pidns(pid_t pid);
int proc_get_oom_adj(pid_t pid, int *adj);
/* @start: /proc/PID/stat starttime the process must have, 0 = any */
int proc_set_oom_adj(pid_t pid, uint64_t start, int adj);
int pidfd_open_pid(pid_t pid);
int pidfd_open_checked(pid_t pid, uint64_t start);
int pidfd_signal(int pidfd, int sig);
/* which line of /proc/PID/cgroup names a process's cgroup: the v1 memory
 * hierarchy's (on) or the v2 one's; set once at start */
void cgroup_use_v1_memory(bool on);
/* @pid's cgroup relative to the root of that hierarchy */
int pid_cgroup(pid_t pid, char *buf, size_t len);
/* Is @pid in the cgroup @rel (relative to the root) or below it? */
bool pid_in_cgroup(pid_t pid, const char *rel);
/* pidfd_open_checked() and @pid in @rel or below; -1 with ESRCH if not */
int pidfd_open_in_cgroup(pid_t pid, uint64_t start, const char *rel);
int pidfd_set_oom_adj(int pidfd, pid_t pid, int adj);
/* real and effective uid of @pidfd's process; -1 with ESRCH if gone */
int pidfd_uids(int pidfd, pid_t pid, uid_t *ruid, uid_t *euid);
/* cgroupfs access relative to a cgroup directory fd kept open */
int cg_write_at(int dirfd, const char *file, const char *s);
int cg_read_str_at(int dirfd, const char *file, char *buf, size_t len);
/* cg_read_key() relative to a cgroup directory held open: no path walk */
int cg_read_key_at(int dirfd, const char *file, const char *key, uint64_t *v);
uint64_t fd_cg_id(int dirfd);

/*
 * @s with bytes <= ' ', '\\' and DEL as \\xHH: one token, whatever a
 * sandbox named its cgroup (journal, status). Returns the length.
 */
size_t amm_token_escape(char *out, size_t len, const char *s);

#endif
