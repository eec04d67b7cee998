// SPDX-License-Identifier: GPL-2.0
/* cgroupfs and procfs helpers shared by agentmmd and agentmmctl. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cgroup.h"
#include "parse.h"

int cg_read_str(const char *dir, const char *file, char *buf, size_t len)
{
	char path[4400];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return cg_read_str_at(AT_FDCWD, path, buf, len);
}

int cg_read_u64(const char *dir, const char *file, uint64_t *v)
{
	char buf[64], *end;

	if (cg_read_str(dir, file, buf, sizeof(buf)))
		return -1;
	if (!strcmp(buf, "max")) {
		*v = UINT64_MAX;
		return 0;
	}
	errno = 0;
	*v = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return -1;
	return 0;
}

/* Re-read a cgroupfs number through an fd kept open: one pread. */
int fd_read_u64(int fd, uint64_t *v)
{
	char buf[64], *end;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = 0;
	if (!strncmp(buf, "max", 3)) {
		*v = UINT64_MAX;
		return 0;
	}
	errno = 0;
	*v = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return -1;
	return 0;
}

bool amm_dry_run;

int cg_write(const char *dir, const char *file, const char *s)
{
	char path[4400];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return cg_write_at(AT_FDCWD, path, s);
}

/* The value of @key in the "key value" lines of @buf (policy/parse.c). */
static int find_key(const char *buf, const char *key, uint64_t *v)
{
	u64 x;

	if (amm_parse_key_u64(buf, strlen(buf), key, &x)) {
		errno = ENOENT;
		return -1;
	}
	*v = x;
	return 0;
}

int cg_read_key(const char *dir, const char *file, const char *key,
		uint64_t *v)
{
	char buf[4096];

	if (cg_read_str(dir, file, buf, sizeof(buf)))
		return -1;
	return find_key(buf, key, v);
}

int cg_read_key_at(int dirfd, const char *file, const char *key, uint64_t *v)
{
	char buf[4096];

	if (cg_read_str_at(dirfd, file, buf, sizeof(buf)))
		return -1;
	return find_key(buf, key, v);
}

/* @kind "some" or "full": that line's avg10, x100 (policy/parse.c) */
static int psi_parse(const char *buf, const char *kind, unsigned int *x100)
{
	return amm_parse_psi_avg10(buf, strlen(buf), kind, x100) ? -1 : 0;
}

static int fd_psi_avg10(int fd, const char *kind, unsigned int *x100)
{
	char buf[512];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = 0;
	return psi_parse(buf, kind, x100);
}

int fd_psi_some_avg10(int fd, unsigned int *x100)
{
	return fd_psi_avg10(fd, "some", x100);
}

static int path_psi_avg10(const char *path, const char *kind,
			  unsigned int *x100)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -1;
	r = fd_psi_avg10(fd, kind, x100);
	close(fd);
	return r;
}

int psi_some_avg10(const char *path, unsigned int *x100)
{
	return path_psi_avg10(path, "some", x100);
}

int psi_full_avg10(const char *path, unsigned int *x100)
{
	return path_psi_avg10(path, "full", x100);
}

uint64_t cg_id(const char *dir)
{
	struct stat st;

	return stat(dir, &st) ? 0 : (uint64_t)st.st_ino;
}

static int parse_priority(const char *buf, ssize_t n, unsigned int *prio)
{
	char tmp[32], *end;
	unsigned long v;

	if (n <= 0 || (size_t)n >= sizeof(tmp))
		return -1;
	memcpy(tmp, buf, (size_t)n);
	tmp[n] = 0;
	errno = 0;
	v = strtoul(tmp, &end, 10);
	if (errno || end == tmp || (*end && *end != '\n') || v > 1000000)
		return -1;
	*prio = (unsigned int)v;
	return 0;
}

/*
 * The priority the host gave a sandbox cgroup: trusted.agentmm.priority
 * (only CAP_SYS_ADMIN can set trusted.* xattrs), else user.agentmm.priority
 * if the cgroup directory is owned by root. A delegated cgroup belongs to
 * its sandbox, which could set a user.* xattr on it to rank itself above
 * others, so that one is ignored there (as systemd-oomd does).
 */
int cg_get_priority_fd(int fd, unsigned int *prio)
{
	char buf[32];
	struct stat st;
	ssize_t n;

	n = fgetxattr(fd, AMM_PRIORITY_XATTR, buf, sizeof(buf) - 1);
	if (n > 0)
		return parse_priority(buf, n, prio);
	if (fstat(fd, &st) || st.st_uid != 0)
		return -1;
	n = fgetxattr(fd, AMM_USER_PRIORITY_XATTR, buf, sizeof(buf) - 1);
	return parse_priority(buf, n, prio);
}

int cg_get_priority(const char *dir, unsigned int *prio)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r;

	if (fd < 0)
		return -1;
	r = cg_get_priority_fd(fd, prio);
	close(fd);
	return r;
}

int cg_set_priority(const char *dir, unsigned int prio)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%u", prio);
	return setxattr(dir, AMM_PRIORITY_XATTR, buf, strlen(buf), 0);
}

static int pids_rec(const char *dir, pid_t *pids, int n, int max, int depth)
{
	char path[4400], buf[16];
	struct dirent *de;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	if (f) {
		while (n < max && fgets(buf, sizeof(buf), f))
			pids[n++] = (pid_t)atoi(buf);
		fclose(f);
	}
	if (depth > 16)
		return n;
	d = opendir(dir);
	if (!d)
		return n;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		n = pids_rec(path, pids, n, max, depth + 1);
	}
	closedir(d);
	return n;
}

int cg_pids(const char *dir, pid_t *pids, int max)
{
	return pids_rec(dir, pids, 0, max, 0);
}

/* One path component (@path, @ql bytes) against one of a glob (@pl). */
static bool component_match(const char *pat, size_t pl, const char *path,
			    size_t ql)
{
	char pc[256], qc[256];

	if (pl >= sizeof(pc) || ql >= sizeof(qc) || !ql)
		return false;
	memcpy(pc, pat, pl);
	pc[pl] = 0;
	memcpy(qc, path, ql);
	qc[ql] = 0;
	return !fnmatch(pc, qc, 0);
}

/* Component-wise glob: fnmatch per path component; "**" = any depth. */
static bool glob_rec(const char *pat, const char *path)
{
	const char *ps = strchr(pat, '/'), *qs;
	size_t pl = ps ? (size_t)(ps - pat) : strlen(pat);

	if (pl == 2 && !strncmp(pat, "**", 2)) {
		const char *rest = ps ? ps + 1 : "";

		if (!*rest)
			return true;
		for (;;) {	/* try matching rest at every depth */
			if (glob_rec(rest, path))
				return true;
			qs = strchr(path, '/');
			if (!qs)
				return false;
			path = qs + 1;
		}
	}
	qs = strchr(path, '/');
	if (!component_match(pat, pl, path,
			     qs ? (size_t)(qs - path) : strlen(path)))
		return false;
	if (!ps && !qs)
		return true;
	if (!ps || !qs)
		return false;
	return glob_rec(ps + 1, qs + 1);
}

bool amm_glob_match(const char *pattern, const char *path)
{
	return glob_rec(pattern, path);
}

/* Does @path match the leading components of @pat, with more to come? */
static bool below_rec(const char *pat, const char *path)
{
	const char *ps = strchr(pat, '/'), *qs = strchr(path, '/');
	size_t pl = ps ? (size_t)(ps - pat) : strlen(pat);

	if (pl == 2 && !strncmp(pat, "**", 2))
		return true;	/* any depth */
	if (!ps)
		return false;	/* nothing in the pattern below this level */
	if (!component_match(pat, pl, path,
			     qs ? (size_t)(qs - path) : strlen(path)))
		return false;
	return qs ? below_rec(ps + 1, qs + 1) : true;
}

bool amm_glob_below(const char *pattern, const char *path)
{
	return below_rec(pattern, path);
}

/* Fill vals[i] with /proc/meminfo's "keys[i]:" line, in bytes; 0 when
 * every key was found. */
static int meminfo_read(const char *const keys[], uint64_t vals[], int n)
{
	char line[256];
	unsigned long long v;
	unsigned int got = 0;
	FILE *f = fopen("/proc/meminfo", "re");
	int i;

	if (!f)
		return -1;
	while (got != (1u << n) - 1 && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		*colon = 0;
		for (i = 0; i < n; i++)
			if (!(got & 1u << i) && !strcmp(line, keys[i]) &&
			    sscanf(colon + 1, " %llu kB", &v) == 1) {
				vals[i] = v * 1024;
				got |= 1u << i;
			}
	}
	fclose(f);
	return got == (1u << n) - 1 ? 0 : -1;
}

int meminfo(uint64_t *total, uint64_t *available)
{
	static const char *const keys[] = { "MemTotal", "MemAvailable" };
	uint64_t v[2];

	if (meminfo_read(keys, v, 2))
		return -1;
	*total = v[0];
	*available = v[1];
	return 0;
}

int swap_free(uint64_t *bytes)
{
	static const char *const keys[] = { "SwapFree" };

	return meminfo_read(keys, bytes, 1);
}

int proc_rss(pid_t pid, uint64_t *bytes)
{
	char path[64];
	unsigned long long size, res;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/proc/%d/statm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	ok = fscanf(f, "%llu %llu", &size, &res) == 2;
	fclose(f);
	if (!ok)
		return -1;
	*bytes = res * (uint64_t)sysconf(_SC_PAGESIZE);
	return 0;
}

/*
 * Memory only this process maps (USS: Private_Clean + Private_Dirty from
 * smaps_rollup) - what killing it frees. Copy-on-write pages a freshly
 * forked child still shares with its parent are not counted (RSS counts
 * them in full, PSS half). Falls back to RSS without smaps_rollup (< 4.14).
 */
int proc_own_anon(pid_t pid, uint64_t *bytes)
{
	char path[64], line[256];
	unsigned long long kb, sum = 0;
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return proc_rss(pid, bytes);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Private_Clean: %llu kB", &kb) == 1 ||
		    sscanf(line, "Private_Dirty: %llu kB", &kb) == 1) {
			sum += kb;
			found++;
		}
	fclose(f);
	if (found != 2)
		return proc_rss(pid, bytes);
	*bytes = (uint64_t)sum * 1024;
	return 0;
}

/*
 * 1 when @a and @b share one address space (a vfork child before exec),
 * 0 when not or when kcmp(2) cannot tell: it needs CONFIG_KCMP, and some
 * sandboxes stub it to always answer "equal", which is checked once
 * against pid 1 (never our address space).
 */
int proc_same_vm(pid_t a, pid_t b)
{
	static int works = -1;	/* unknown */
	long r;

	if (works < 0)
		works = getpid() != 1 &&
			syscall(SYS_kcmp, getpid(), 1, 0 /* KCMP_VM */, 0, 0) > 0;
	if (!works)
		return 0;
	r = syscall(SYS_kcmp, a, b, 0 /* KCMP_VM */, 0, 0);
	return r == 0 ? 1 : 0;
}

/*
 * /proc/@pid/stat into @buf; what follows the comm field's ")" (comm may
 * hold spaces and parentheses), or NULL.
 */
static char *proc_stat_fields(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	return strrchr(buf, ')');
}

int proc_starttime(pid_t pid, uint64_t *ticks)
{
	char buf[1024], *p = proc_stat_fields(pid, buf, sizeof(buf));
	unsigned long long st;
	int i;

	if (!p)
		return -1;
	/* field 3 starts after ") "; starttime is field 22 */
	for (i = 2; i < 22 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &st) != 1)
		return -1;
	*ticks = st;
	return 0;
}

/* @pid's parent (field 4 of /proc/PID/stat), as the host numbers it. */
int proc_ppid(pid_t pid, pid_t *ppid)
{
	char buf[1024], *p = proc_stat_fields(pid, buf, sizeof(buf));
	int v;

	if (!p || sscanf(p + 1, " %*c %d", &v) != 1)
		return -1;
	*ppid = v;
	return 0;
}

/* Is @pid in agentmmd's own PID namespace (the host's, for a container)? */
bool proc_in_my_pidns(pid_t pid)
{
	static ino_t mine;
	char path[64];
	struct stat st;

	if (!mine) {
		if (stat("/proc/self/ns/pid", &st))
			return false;
		mine = st.st_ino;
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	return stat(path, &st) == 0 && st.st_ino == mine;
}

int proc_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return cg_read_str(path, "comm", buf, len);
}

int proc_get_oom_adj(pid_t pid, int *adj)
{
	char path[64], buf[16];

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (cg_read_str(path, "oom_score_adj", buf, sizeof(buf)))
		return -1;
	*adj = atoi(buf);
	return 0;
}

int pidfd_open_pid(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

int pidfd_signal(int pidfd, int sig)
{
	if (amm_dry_run && sig)	/* agentmmd --dry-run: no signals */
		return 0;
	return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

/*
 * A pidfd for @pid if it is still the process that started at @start
 * (clock ticks since boot, /proc/PID/stat field 22); 0 = any. Read after
 * the pidfd is open, so a PID reused in between is caught.
 */
int pidfd_open_checked(pid_t pid, uint64_t start)
{
	uint64_t st;
	int fd = pidfd_open_pid(pid);

	if (fd < 0 || !start)
		return fd;
	if (proc_starttime(pid, &st) || st != start || pidfd_signal(fd, 0)) {
		close(fd);
		errno = ESRCH;
		return -1;
	}
	return fd;
}

/* Which hierarchy's line of /proc/PID/cgroup names a process's cgroup:
 * set once at start (main.c), before any sandbox is adopted. */
static bool cgroup_v1_memory;

void cgroup_use_v1_memory(bool on)
{
	cgroup_v1_memory = on;
}

/* The path of a v1 line "N:ctrl,ctrl:/path" if memory is among its
 * controllers, else NULL. */
static const char *v1_memory_path(char *line)
{
	char *c = strchr(line, ':'), *p = c ? strchr(c + 1, ':') : NULL;
	char *tok, *save = NULL;

	if (!p || p[1] != '/')
		return NULL;
	*p = 0;
	for (tok = strtok_r(c + 1, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if (!strcmp(tok, "memory"))
			return p + 2;
	return NULL;
}

/* pid's cgroup path relative to the cgroup root, from /proc/pid/cgroup. */
int pid_cgroup(pid_t pid, char *buf, size_t len)
{
	char path[64], line[4200];
	const char *cg;
	FILE *f;
	int r = -1;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		cg = cgroup_v1_memory ? v1_memory_path(line) :
		     !strncmp(line, "0::/", 4) ? line + 4 : NULL;
		if (cg) {
			snprintf(buf, len, "%s", cg);
			r = 0;
		}
	}
	fclose(f);
	return r;
}

/* Is @pid in the cgroup @rel (relative to the root) or below it? */
bool pid_in_cgroup(pid_t pid, const char *rel)
{
	char cg[4200];
	size_t rl = strlen(rel);

	return pid_cgroup(pid, cg, sizeof(cg)) == 0 && !strncmp(cg, rel, rl) &&
	       (cg[rl] == 0 || cg[rl] == '/');
}

/*
 * A pidfd for @pid if it is the process an event of the sandbox at @rel
 * was about: started at @start (clock ticks, 0 = any) and in @rel or
 * below. Ticks are 10 ms, so a PID reused within one passes the start
 * check; the cgroup check stops it unless the reuse happened inside the
 * same sandbox, so nothing meant for one tenant's process (a note, an
 * oom_score_adj, a BPF entry) reaches another's. The pidfd is checked
 * alive after the cgroup was read: the PID was not reused meanwhile.
 */
int pidfd_open_in_cgroup(pid_t pid, uint64_t start, const char *rel)
{
	int fd = pidfd_open_checked(pid, start);

	if (fd < 0)
		return -1;
	if (!pid_in_cgroup(pid, rel) || pidfd_signal(fd, 0)) {
		close(fd);
		errno = ESRCH;
		return -1;
	}
	return fd;
}

/*
 * The real and effective uid of the process behind @pidfd (@pid its PID),
 * for the owner check of a note's descriptor. /proc/PID/status is read
 * between two proofs that the pidfd's process is alive (the pidfd's
 * opening and the check after it), so they are never a reused PID's.
 */
int pidfd_uids(int pidfd, pid_t pid, uid_t *ruid, uid_t *euid)
{
	char path[64], line[256];
	unsigned int r, e;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "Uid: %u %u", &r, &e) == 2;
	fclose(f);
	if (!found || pidfd_signal(pidfd, 0)) {
		errno = ESRCH;
		return -1;
	}
	*ruid = r;
	*euid = e;
	return 0;
}

/*
 * Write oom_score_adj of the process behind @pidfd (@pid its PID): the
 * /proc file is opened first and used only if the pidfd's process is
 * still alive afterwards, so it cannot be a reused PID's.
 */
int pidfd_set_oom_adj(int pidfd, pid_t pid, int adj)
{
	char path[64], buf[16];
	int fd, e;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int)pid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (pidfd_signal(pidfd, 0)) {
		close(fd);
		errno = ESRCH;
		return -1;
	}
	if (amm_dry_run) {	/* agentmmd --dry-run: nothing written */
		close(fd);
		return 0;
	}
	snprintf(buf, sizeof(buf), "%d", adj);
	n = write(fd, buf, strlen(buf));
	e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)strlen(buf) ? 0 : -1;
}

int proc_set_oom_adj(pid_t pid, uint64_t start, int adj)
{
	int pidfd = pidfd_open_checked(pid, start), r, e;

	if (pidfd < 0)
		return -1;
	r = pidfd_set_oom_adj(pidfd, pid, adj);
	e = errno;
	close(pidfd);
	errno = e;
	return r;
}

int cg_write_at(int dirfd, const char *file, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd, err;

	if (dirfd < 0 && dirfd != AT_FDCWD) {
		errno = EBADF;
		return -1;
	}
	if (amm_dry_run)	/* the file must exist; nothing is written */
		return faccessat(dirfd, file, F_OK, 0);
	fd = openat(dirfd, file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, s, len);
	err = errno;
	close(fd);
	errno = err;
	return n == (ssize_t)len ? 0 : -1;
}

int cg_read_str_at(int dirfd, const char *file, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = dirfd < 0 && dirfd != AT_FDCWD ? -1 :
	     openat(dirfd, file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = 0;
	return 0;
}

uint64_t fd_cg_id(int dirfd)
{
	struct stat st;

	return fstat(dirfd, &st) ? 0 : (uint64_t)st.st_ino;
}

size_t amm_token_escape(char *out, size_t len, const char *s)
{
	size_t o = 0;

	for (; *s && o + 5 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c <= ' ' || c == '\\' || c == 0x7f)
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = 0;
	return o;
}
