// SPDX-License-Identifier: GPL-2.0
/*
 * agentmmd's operator surface on the host: escaping of sandbox-controlled
 * strings, the journal's native records (sent to a real unix socket), the
 * event history's rotation, and the metrics exposition checked with the
 * Prometheus client's parser (tests/unit/check_metrics.py).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon.h"
#include "history.h"
#include "log.h"
#include "metrics.h"
#include "podid.h"
#include "statedir.h"
#include "escape.h"
#include "unit.h"

static char tmpdir[] = "/tmp/amm-ops-XXXXXX";

static const char *esc(const char *s, enum amm_esc m)
{
	static char buf[4096];

	amm_escape(buf, sizeof(buf), s, m);
	return buf;
}

/*
 * A process's parent from /proc/PID/stat, whatever its comm (a sandbox
 * names its processes: ") 1 2 (" must not shift the fields), and whether
 * it is in agentmmd's PID namespace (the engine monitors' test).
 */
TEST(proc_ppid_and_pidns)
{
	pid_t c, pp = 0;
	int status;

	EXPECT_EQ(proc_ppid(getpid(), &pp), 0);
	EXPECT_EQ(pp, getppid());
	EXPECT_TRUE(proc_in_my_pidns(getpid()));
	c = fork();
	if (c == 0) {
		prctl(PR_SET_NAME, ") S 1 1 (x");
		pause();
		_exit(0);
	}
	EXPECT_TRUE(c > 0);
	if (c <= 0)
		return;
	usleep(20000);	/* the child names itself */
	pp = 0;
	EXPECT_EQ(proc_ppid(c, &pp), 0);
	EXPECT_EQ(pp, getpid());
	EXPECT_TRUE(proc_in_my_pidns(c));
	kill(c, SIGKILL);
	waitpid(c, &status, 0);
	EXPECT_EQ(proc_ppid(c, &pp), -1);	/* gone */
}

TEST(escape_text)
{
	EXPECT_TRUE(!strcmp(esc("a\nb\tc\\d", AMM_ESC_TEXT), "a\\nb\\tc\\\\d"));
	EXPECT_TRUE(!strcmp(esc("\x1b[31mred", AMM_ESC_TEXT), "\\x1b[31mred"));
	EXPECT_TRUE(!strcmp(esc("x\x7fy", AMM_ESC_TEXT), "x\\x7fy"));
	EXPECT_TRUE(!strcmp(esc("q\"q", AMM_ESC_TEXT), "q\"q"));
	/* valid UTF-8 stays, invalid bytes do not */
	EXPECT_TRUE(!strcmp(esc("caf\xc3\xa9", AMM_ESC_TEXT), "caf\xc3\xa9"));
	EXPECT_TRUE(!strcmp(esc("a\xff\xc3(", AMM_ESC_TEXT), "a\\xff\\xc3("));
	EXPECT_TRUE(!strcmp(esc("\xc0\xaf", AMM_ESC_TEXT), "\\xc0\\xaf"));
	EXPECT_TRUE(!strcmp(esc("\xed\xa0\x80", AMM_ESC_TEXT), "\\xed\\xa0\\x80"));
}

/* A terminal-safety oracle: no byte of the output is C0 or DEL, and no
 * valid UTF-8 character in it is C1, a bidi control or a separator. */
static int terminal_safe(const char *o)
{
	const unsigned char *p = (const unsigned char *)o;

	for (; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			return 0;
		if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			return 0;
		if (p[0] == 0xe2 && p[1] == 0x80 &&
		    ((p[2] >= 0xa8 && p[2] <= 0xae) || p[2] == 0x8e ||
		     p[2] == 0x8f))
			return 0;
		if (p[0] == 0xe2 && p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9)
			return 0;
		if (p[0] == 0xd8 && p[1] == 0x9c)
			return 0;
	}
	return 1;
}

TEST(escape_c1_and_bidi)
{
	static const char *const bad[] = {
		"tool\xc2\x9b" "1mred",		/* U+009B: one-byte CSI */
		"x\xc2\x85y",			/* U+0085 NEL */
		"evil\xe2\x80\xaegnp.exe",	/* U+202E RLO */
		"a\xe2\x81\xa6" "b\xe2\x81\xa9",	/* U+2066 LRI .. U+2069 PDI */
		"l\xe2\x80\xa8" "l",		/* U+2028 LINE SEPARATOR */
		"m\xe2\x80\x8fm\xd8\x9c",	/* RLM, ARABIC LETTER MARK */
	};
	enum amm_esc modes[] = { AMM_ESC_TEXT, AMM_ESC_WORD, AMM_ESC_LABEL,
				 AMM_ESC_JSON };
	unsigned int i, m;
	char buf[256];

	EXPECT_TRUE(!strcmp(esc("tool\xc2\x9b" "1m", AMM_ESC_TEXT),
			    "tool\\xc2\\x9b1m"));
	EXPECT_TRUE(!strcmp(esc("\xe2\x80\xae", AMM_ESC_JSON), "\\u202e"));
	/* printable non-ASCII stays as it is */
	EXPECT_TRUE(!strcmp(esc("\xc2\xa0\xe2\x80\x94\xf0\x9f\x98\x80",
				AMM_ESC_TEXT),
			    "\xc2\xa0\xe2\x80\x94\xf0\x9f\x98\x80"));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
			EXPECT_TRUE(terminal_safe(esc(bad[i], modes[m])));
	/* and what TEXT escaped reads back as it was */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		amm_escape(buf, sizeof(buf), bad[i], AMM_ESC_TEXT);
		amm_unescape(buf);
		EXPECT_TRUE(!strcmp(buf, bad[i]));
	}
}

TEST(escape_word_label_json)
{
	EXPECT_TRUE(!strcmp(esc("a b=c", AMM_ESC_WORD), "a\\x20b=c"));
	EXPECT_TRUE(!strcmp(esc("a\"b\\c\nd\re", AMM_ESC_LABEL),
			    "a\\\"b\\\\c\\nd\\\\x0de"));
	EXPECT_TRUE(!strcmp(esc("a\"b\\c\nd\x01", AMM_ESC_JSON),
			    "a\\\"b\\\\c\\nd\\u0001"));
	EXPECT_TRUE(!strcmp(esc("\xfe", AMM_ESC_JSON), "\\udcfe"));
}

TEST(escape_truncates_whole)
{
	char b[6];

	/* "ab" + "\n" (2) fits 5 chars; a further escape would not */
	amm_escape(b, sizeof(b), "ab\n\n", AMM_ESC_TEXT);
	EXPECT_TRUE(!strcmp(b, "ab\\n"));
	amm_escape(b, sizeof(b), "abcd\x01", AMM_ESC_TEXT);
	EXPECT_TRUE(!strcmp(b, "abcd"));
	amm_escape(b, 1, "abc", AMM_ESC_TEXT);
	EXPECT_EQ(b[0], 0);
}

TEST(unescape_round_trip)
{
	static const char *const in[] = {
		"plain", "a b\tc\nd", "back\\slash", "\x1b\x7f\xff end",
		"agent.slice/kubepods-pod\\x2d1.slice", "",
	};
	char buf[512];
	unsigned int i;

	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		amm_escape(buf, sizeof(buf), in[i], AMM_ESC_WORD);
		EXPECT_TRUE(!strchr(buf, ' ') && !strchr(buf, '\n'));
		amm_unescape(buf);
		EXPECT_TRUE(!strcmp(buf, in[i]));
		amm_escape(buf, sizeof(buf), in[i], AMM_ESC_TEXT);
		amm_unescape(buf);
		EXPECT_TRUE(!strcmp(buf, in[i]));
	}
}

TEST(json_str)
{
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);

	amm_json_str(f, "x\"\n\x02");
	fclose(f);
	EXPECT_TRUE(!strcmp(p, "\"x\\\"\\n\\u0002\""));
	free(p);
}

/* A sandbox name cannot forge a journal field or a second line. */
TEST(journal_native_record)
{
	char path[128], rec[8192];
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s, lines = 0, ids = 0;
	ssize_t n;
	char *l, *save = NULL;

	snprintf(path, sizeof(path), "%s/journal", tmpdir);
	strcpy(a.sun_path, path);
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	EXPECT_TRUE(s >= 0);
	EXPECT_EQ(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	setenv("AGENTMM_JOURNAL_SOCKET", path, 1);
	log_init();
	log_action(4, AMM_ACT_FREEZE, "agent.slice/x\nMESSAGE_ID=forged", "t\x1b",
		   42, "froze %s", "agent.slice/x\nPRIORITY=0");
	n = recv(s, rec, sizeof(rec) - 1, MSG_DONTWAIT);
	EXPECT_TRUE(n > 0);
	rec[n > 0 ? n : 0] = 0;
	EXPECT_TRUE(strstr(rec, "PRIORITY=4\n") != NULL);
	EXPECT_TRUE(strstr(rec, "MESSAGE_ID=dd9309f74c07447f90d7694b1c63a799\n") != NULL);
	EXPECT_TRUE(strstr(rec, "AGENTMM_ACTION=freeze\n") != NULL);
	EXPECT_TRUE(strstr(rec, "AGENTMM_SANDBOX=agent.slice/x\\nMESSAGE_ID=forged\n") != NULL);
	EXPECT_TRUE(strstr(rec, "AGENTMM_TOOL=t\\x1b\n") != NULL);
	EXPECT_TRUE(strstr(rec, "AGENTMM_PID=42\n") != NULL);
	EXPECT_TRUE(strstr(rec, "MESSAGE=froze agent.slice/x\\nPRIORITY=0\n") != NULL);
	for (l = strtok_r(rec, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		lines++;
		ids += !strncmp(l, "MESSAGE_ID=", 11);
		EXPECT_TRUE(strncmp(l, "PRIORITY=0", 10) != 0);
	}
	EXPECT_EQ(ids, 1);
	EXPECT_EQ(lines, 8);
	close(s);
}

/* A dry run marks the changes it did not make, and only those. */
TEST(journal_dry_run)
{
	char rec[8192];
	ssize_t n;

	amm_dry_run = true;
	n = (ssize_t)log_journal_record(rec, sizeof(rec), 4, AMM_ACT_KILL,
					"sb", "t", 9, "killed");
	rec[n] = 0;
	EXPECT_TRUE(strstr(rec, "AGENTMM_DRY_RUN=1\n") != NULL);
	n = (ssize_t)log_journal_record(rec, sizeof(rec), 4, AMM_ACT_OOM_KILL,
					"sb", "t", 9, "oom");
	rec[n] = 0;
	EXPECT_TRUE(strstr(rec, "AGENTMM_DRY_RUN") == NULL);
	amm_dry_run = false;
	n = (ssize_t)log_journal_record(rec, sizeof(rec), 4, AMM_ACT_KILL,
					"sb", "t", 9, "killed");
	rec[n] = 0;
	EXPECT_TRUE(strstr(rec, "AGENTMM_DRY_RUN") == NULL);
}

static long file_size(const char *dir, const char *name)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &st) ? -1 : (long)st.st_size;
}

TEST(history_rotates_bounded)
{
	char dir[128], p[256], line[2048];
	FILE *f;
	int i, n = 0;

	snprintf(dir, sizeof(dir), "%s/hist", tmpdir);
	EXPECT_EQ(mkdir(dir, 0755), 0);
	/* by the directory's fd, which the history keeps */
	EXPECT_EQ(history_open(open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC),
			       16384), 0);
	for (i = 0; i < 500; i++)
		history_add(AMM_ACT_TOOL, "agent.slice/a\tb", "tool-1\n", 7,
			    "done exit 0 after 10 ms, peak 1 MB: make -j8 all");
	EXPECT_TRUE(file_size(dir, "events") > 0);
	EXPECT_TRUE(file_size(dir, "events.1") > 0);
	EXPECT_TRUE(file_size(dir, "events") + file_size(dir, "events.1") <= 16384);
	/* the newest lines survive in the two files: over half of the limit */
	for (i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/events%s", dir, i ? ".1" : "");
		f = fopen(p, "r");
		EXPECT_TRUE(f != NULL);
		while (f && fgets(line, sizeof(line), f)) {
			int tabs = 0;
			char *c;

			for (c = line; *c; c++)
				tabs += *c == '\t';
			EXPECT_EQ(tabs, 6);
			EXPECT_TRUE(strstr(line, "\ttool\tagent.slice/a\\tb\ttool-1\\n\t7\t0\t") != NULL);
			n++;
		}
		if (f)
			fclose(f);
	}
	EXPECT_TRUE(n * 100 > 16384 / 2 && n < 500);
}

/* Count the lines of events and events.1 in @dir holding @what. */
static int hist_count(const char *dir, const char *what)
{
	char p[256], line[2048];
	int i, n = 0;
	FILE *f;

	for (i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/events%s", dir, i ? ".1" : "");
		f = fopen(p, "r");
		while (f && fgets(line, sizeof(line), f))
			n += strstr(line, what) != NULL;
		if (f)
			fclose(f);
	}
	return n;
}

/* One sandbox writing without end pushes out only its own lines: the
 * other's and the daemon's survive many rotations. */
TEST(history_share_per_sandbox)
{
	char dir[128], name[300];
	int i;

	snprintf(dir, sizeof(dir), "%s/hist-share", tmpdir);
	EXPECT_EQ(mkdir(dir, 0755), 0);
	EXPECT_EQ(history_open(open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC),
			       16384), 0);
	history_add(AMM_ACT_KILL, NULL, NULL, 0, "daemon started");
	history_add(AMM_ACT_KILL, "agent.slice/victim", "tool-1", 9,
		    "killed memhog (pid 9)");
	memset(name, 'x', 255);
	name[255] = 0;
	for (i = 0; i < 2000; i++)
		history_add(AMM_ACT_TOOL, "agent.slice/flood", name, 7, name);
	EXPECT_TRUE(file_size(dir, "events") + file_size(dir, "events.1") <= 16384);
	EXPECT_EQ(hist_count(dir, "\tagent.slice/victim\t"), 1);
	EXPECT_EQ(hist_count(dir, "daemon started"), 1);
	/* the flooder keeps its newest lines, cut short: 64 + 256 bytes */
	EXPECT_TRUE(hist_count(dir, "\tagent.slice/flood\t") > 16384 / 2 / 512);
	EXPECT_EQ(hist_count(dir, "xxx...\t7\t0\t"), hist_count(dir, "\tagent.slice/flood\t"));
}

TEST(cut_on_character_boundary)
{
	char s[64];

	strcpy(s, "abcdefgh");
	EXPECT_EQ(amm_cut(s, 8), 8u);
	EXPECT_EQ(amm_cut(s, 7), 7u);
	EXPECT_TRUE(!strcmp(s, "abcd..."));
	/* an escape, a UTF-8 character, escaped bytes of one: whole */
	strcpy(s, "ab\\x1bcdefgh");
	amm_cut(s, 8);
	EXPECT_TRUE(!strcmp(s, "ab..."));
	strcpy(s, "ab\xc3\xa9" "cdefgh");
	amm_cut(s, 8);
	EXPECT_TRUE(!strcmp(s, "ab\xc3\xa9" "c..."));
	strcpy(s, "ab\xc3\xa9" "cdefgh");
	amm_cut(s, 6);
	EXPECT_TRUE(!strcmp(s, "ab..."));
	strcpy(s, "a\\xc2\\x9bcdefghij");
	amm_cut(s, 11);
	EXPECT_TRUE(!strcmp(s, "a..."));
	strcpy(s, "a\\xc2\\x9bcdefghij");
	amm_cut(s, 12);
	EXPECT_TRUE(!strcmp(s, "a\\xc2\\x9b..."));
	strcpy(s, "a\\\\bcdefgh");
	amm_cut(s, 5);
	EXPECT_TRUE(!strcmp(s, "a..."));
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	EXPECT_TRUE(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static struct daemon dm;

/* The exposition of a daemon with hostile sandbox names, parsed. */
TEST(metrics_parse)
{
	static char buf[1 << 20];
	static const char *const names[] = {
		"agent.slice/sb1",
		"kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0123456789abcdef0123456789abcdef.slice/cri-containerd-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope",
		"agent.slice/q\"uote\\back",
		"agent.slice/new\nline",
	};
	char sys[128], p[512], cmd[2048], file[160];
	size_t n;
	unsigned int i;
	int r;
	FILE *f;

	snprintf(sys, sizeof(sys), "%s/sys", tmpdir);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/kernel/mm/transparent_hugepage/hugepages-64kB/stats "
		 "%s/kernel/mm/transparent_hugepage/hugepages-2048kB/stats "
		 "%s/kernel/agentmm/governor %s/kernel/agentmm/sensor/sizes/64kB",
		 sys, sys, sys, sys);
	EXPECT_EQ(system(cmd), 0);
#define SYS(rel, text) do {						\
	snprintf(p, sizeof(p), "%s/%s", sys, rel);			\
	put_file(p, text);						\
} while (0)
	SYS("kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
	SYS("kernel/mm/transparent_hugepage/hugepages-64kB/enabled", "always [inherit] madvise never\n");
	SYS("kernel/mm/transparent_hugepage/hugepages-2048kB/enabled", "always inherit madvise [never]\n");
	SYS("kernel/mm/transparent_hugepage/hugepages-64kB/stats/anon_fault_alloc", "1234\n");
	SYS("kernel/mm/transparent_hugepage/hugepages-64kB/stats/anon_fault_fallback", "56\n");
	SYS("kernel/mm/transparent_hugepage/hugepages-2048kB/stats/anon_fault_alloc", "7\n");
	SYS("kernel/agentmm/mode", "enforce\n");
	SYS("kernel/agentmm/governor/transitions_up", "3\n");
	SYS("kernel/agentmm/governor/compact_runs", "9\n");
	SYS("kernel/agentmm/sensor/sizes/64kB/servable_pages", "4096\n");
#undef SYS
	memset(&dm, 0, sizeof(dm));
	dm.cfg.metrics_sandboxes = 100;
	dm.sysfs = sys;
	dm.host_limit = 8ULL << 30;
	dm.host_used = 5ULL << 30;
	dm.level = AMM_LEVEL_THROTTLE;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct sandbox *s = sb_new(&dm);

		EXPECT_TRUE(s != NULL);
		if (!s)
			return;
		snprintf(s->rel, sizeof(s->rel), "%s", names[i]);
		s->current = 100 << 20;
		s->peak = 200 << 20;
		s->frozen = i == 1;
		s->frozen_ms = 1000;
		s->frozen_ms_total = 2500;
		s->tools_killed = i;
		s->reclaimed_bytes = 4096 * i;
	}
	n = metrics_render(&dm, 3000, buf, sizeof(buf));
	EXPECT_TRUE(n > 0 && buf[n - 1] == '\n');
	EXPECT_TRUE(strstr(buf, "agentmm_mthp_enabled{size=\"64kB\"} 1\n") != NULL);
	EXPECT_TRUE(strstr(buf, "agentmm_mthp_enabled{size=\"2048kB\"} 0\n") != NULL);
	EXPECT_TRUE(strstr(buf, "agentmm_mthp_fault_fallback_total{size=\"64kB\"} 56\n") != NULL);
	EXPECT_TRUE(strstr(buf, "agentmm_mthp_servable_pages{size=\"64kB\"} 4096\n") != NULL);
	EXPECT_TRUE(strstr(buf, "agentmm_governor_transitions_up_total 3\n") != NULL);
	EXPECT_TRUE(strstr(buf, "agentmm_module_loaded 1\n") != NULL);
	/* 2.5 s of earlier freezes + 2 s of the current one */
	EXPECT_TRUE(strstr(buf, "agentmm_sandbox_frozen_seconds_total{sandbox=\"kubepods.slice/") != NULL);
	EXPECT_TRUE(strstr(buf, ".scope\",pod_uid=\"0123456789abcdef0123456789abcdef\",container_id=\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"} 4.500\n") != NULL);
	EXPECT_TRUE(strstr(buf, "\nagentmm_sandboxes_tool_kills_total 6\n") != NULL);
	EXPECT_TRUE(strstr(buf, "\nagentmm_sandboxes_frozen 1\n") != NULL);
	EXPECT_TRUE(strstr(buf, "\nagentmm_sandboxes_unlisted 0\n") != NULL);
	EXPECT_TRUE(strstr(buf, "{sandbox=\"agent.slice/new\\nline\"}") != NULL);
	snprintf(file, sizeof(file), "%s/metrics.prom", tmpdir);
	f = fopen(file, "w");
	EXPECT_TRUE(f != NULL);
	if (!f)
		return;
	fwrite(buf, 1, n, f);
	fclose(f);
	/* the real parser; every hostile name must come back exactly */
	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/python3 %s %s 'agent.slice/sb1' 'agent.slice/q\"uote\\back' \"$(printf 'agent.slice/new\\nline')\"",
		 CHECK_METRICS, file);
	r = system(cmd);
	EXPECT_EQ(r, 0);
	/* the textfile's: no process_* (node_exporter's own), the same
	 * families as agentmm_daemon_*, and the real parser takes it */
	{
		size_t tn;
		char *t = metrics_for_textfile(buf, n, &tn);

		EXPECT_TRUE(t != NULL);
		if (t) {
			EXPECT_TRUE(strstr(buf, "\nprocess_cpu_seconds_total ") != NULL);
			EXPECT_TRUE(strstr(t, "\nprocess_") == NULL);
			EXPECT_TRUE(strstr(t, "# HELP process_") == NULL);
			EXPECT_TRUE(strstr(t, "# TYPE process_") == NULL);
			/* a help text's "process_madvise" stays as it is */
			EXPECT_TRUE(strstr(t, "or process_madvise on cgroup v1") != NULL);
			EXPECT_TRUE(strstr(t, "\n# TYPE agentmm_daemon_cpu_seconds_total counter\n") != NULL);
			EXPECT_TRUE(strstr(t, "\nagentmm_daemon_resident_memory_bytes ") != NULL);
			EXPECT_TRUE(strstr(t, "\nagentmm_daemon_start_time_seconds ") != NULL);
			EXPECT_EQ(tn, strlen(t));
			EXPECT_EQ(tn, n + 9 * (sizeof("agentmm_daemon_") - sizeof("process_")));
			f = fopen(file, "w");
			EXPECT_TRUE(f != NULL);
			if (f) {
				fwrite(t, 1, tn, f);
				fclose(f);
				snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s %s",
					 CHECK_METRICS, file);
				EXPECT_EQ(system(cmd), 0);
			}
			free(t);
		}
	}
	/* a cut exposition ends at a whole line */
	n = metrics_render(&dm, 3000, buf, 1000);
	EXPECT_TRUE(n > 0 && n < 1000 && buf[n - 1] == '\n' && buf[n] == 0);
	/* two listed: the frozen one first, then the largest; the totals
	 * still count all four, and a forgotten sandbox's kills stay in them */
	dm.cfg.metrics_sandboxes = 2;
	dm.sbs[3]->current = 300 << 20;
	n = metrics_render(&dm, 3000, buf, sizeof(buf));
	EXPECT_TRUE(strstr(buf, "agentmm_sandbox_memory_bytes{sandbox=\"kubepods.slice/") != NULL);
	EXPECT_TRUE(strstr(buf, "agentmm_sandbox_memory_bytes{sandbox=\"agent.slice/new\\nline\"} 314572800\n") != NULL);
	EXPECT_TRUE(strstr(buf, "{sandbox=\"agent.slice/sb1\"}") == NULL);
	EXPECT_TRUE(strstr(buf, "\nagentmm_sandboxes_unlisted 2\n") != NULL);
	sb_remove(&dm, dm.sbs[3]);
	n = metrics_render(&dm, 3000, buf, sizeof(buf));
	EXPECT_TRUE(strstr(buf, "\nagentmm_sandboxes_tool_kills_total 6\n") != NULL);
	dm.cfg.metrics_sandboxes = 0;
	n = metrics_render(&dm, 3000, buf, sizeof(buf));
	EXPECT_TRUE(strstr(buf, "{sandbox=") == NULL);
	EXPECT_TRUE(strstr(buf, "\nagentmm_sandboxes_unlisted 3\n") != NULL);
	sb_table_free(&dm);
}

/* Pod UID and container ID from cgroup paths: exact shapes only. */
#define H64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
TEST(podid_paths)
{
	static const struct {
		const char *path, *pod, *ctr;
	} t[] = {
		{ "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1b2c3d4e_5f60_7182_93a4_b5c6d7e8f901.slice/cri-containerd-" H64 ".scope",
		  "1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901", H64 },
		{ "kubepods/besteffort/pod1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901/" H64,
		  "1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901", H64 },
		{ "kubepods.slice/kubepods-pod0123456789abcdef0123456789abcdef.slice/crio-" H64 ".scope",
		  "0123456789abcdef0123456789abcdef", H64 },
		{ "machine.slice/libpod-" H64 ".scope", "", H64 },
		{ "system.slice/docker-" H64 ".scope", "", H64 },
		{ "agent.slice/sb1", "", "" },
		/* wrong length, case, characters, dash places, prefix */
		{ "kubepods.slice/kubepods-podABCDEF0123456789abcdef0123456789ab.slice", "", "" },
		{ "kubepods.slice/kubepods-pod1b2c3d4e_5f60_7182_93a4_b5c6d7e8f90.slice", "", "" },
		{ "kubepods.slice/kubepods-pod1b2c3d4e5_f60_7182_93a4_b5c6d7e8f901.slice", "", "" },
		{ "agent.slice/pod1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901\"}x", "", "" },
		{ "machine.slice/libpod-" H64 "0.scope", "", "" },
		{ "machine.slice/evil-" H64 ".scope", "", "" },
		{ "machine.slice/libpod-" H64 ".scope/" H64 "/../x", "", H64 },
		{ "", "", "" },
		{ "///", "", "" },
	};
	char pod[PODID_POD_LEN], ctr[PODID_CTR_LEN];
	unsigned int i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		podid_from_path(t[i].path, pod, ctr);
		EXPECT_TRUE(!strcmp(pod, t[i].pod));
		EXPECT_TRUE(!strcmp(ctr, t[i].ctr));
	}
}

static int file_is(const char *path, const char *want)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return !strcmp(buf, want);
}

/* Links planted where the daemon writes are replaced, never followed. */
TEST(write_atomic_never_follows_links)
{
	char victim[128], out[128], tmp[140];
	struct stat st;
	FILE *f;

	snprintf(victim, sizeof(victim), "%s/victim", tmpdir);
	snprintf(out, sizeof(out), "%s/state", tmpdir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", out);
	f = fopen(victim, "w");
	EXPECT_TRUE(f != NULL);
	if (!f)
		return;
	fputs("keep", f);
	fclose(f);
	/* at the temporary's name */
	EXPECT_EQ(symlink(victim, tmp), 0);
	EXPECT_EQ(write_atomic(out, "new", 3), 0);
	EXPECT_TRUE(file_is(victim, "keep"));
	EXPECT_TRUE(file_is(out, "new"));
	EXPECT_TRUE(lstat(tmp, &st) != 0);
	/* at the file's own name */
	unlink(out);
	EXPECT_EQ(symlink(victim, out), 0);
	EXPECT_EQ(write_atomic(out, "newer", 5), 0);
	EXPECT_TRUE(file_is(victim, "keep"));
	EXPECT_TRUE(lstat(out, &st) == 0 && S_ISREG(st.st_mode));
	EXPECT_TRUE(file_is(out, "newer"));
	/* a stale regular temporary from a crash does not stop a write */
	f = fopen(tmp, "w");
	if (f)
		fclose(f);
	EXPECT_EQ(write_atomic(out, "again", 5), 0);
	EXPECT_TRUE(file_is(out, "again"));
}

/*
 * Files are written relative to the state directory's fd: after the
 * directory is renamed and a link to another one put in its place, they
 * still land in the directory that was opened, with the mode asked for.
 */
TEST(write_atomic_at_stays_in_the_opened_directory)
{
	char dir[128], moved[128], other[128], p[256];
	struct stat st;
	int dfd;

	snprintf(dir, sizeof(dir), "%s/sd", tmpdir);
	snprintf(moved, sizeof(moved), "%s/sd-moved", tmpdir);
	snprintf(other, sizeof(other), "%s/tenant", tmpdir);
	EXPECT_EQ(mkdir(dir, 0755), 0);
	EXPECT_EQ(mkdir(other, 0755), 0);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	EXPECT_TRUE(dfd >= 0);
	EXPECT_EQ(rename(dir, moved), 0);
	EXPECT_EQ(symlink(other, dir), 0);
	EXPECT_EQ(write_atomic_at(dfd, "applied", "x\n", 2, 0600), 0);
	snprintf(p, sizeof(p), "%s/applied", moved);
	EXPECT_TRUE(file_is(p, "x\n"));
	EXPECT_TRUE(stat(p, &st) == 0 && (st.st_mode & 0777) == 0600);
	snprintf(p, sizeof(p), "%s/applied", other);
	EXPECT_TRUE(access(p, F_OK) != 0);	/* nothing in the tenant's */
	/* and read back the same way; a link there is not followed */
	EXPECT_TRUE(symlinkat(p, dfd, "status") == 0);
	EXPECT_TRUE(fopen_at(dfd, "status") == NULL && errno == ELOOP);
	close(dfd);
}

/* The state directory's path, walked from / without following links. */
TEST(statedir_open_checks_the_path)
{
	char why[4096], path[256], link[128];
	struct stat st;
	int fd;

	/* a link on the way is refused, even unchecked (agentmmctl) */
	snprintf(link, sizeof(link), "%s/lnk", tmpdir);
	EXPECT_EQ(symlink(tmpdir, link), 0);
	snprintf(path, sizeof(path), "%s/sub", link);
	EXPECT_EQ(mkdir(path, 0755), 0);
	fd = statedir_open(path, geteuid(), 0, why, sizeof(why));
	EXPECT_TRUE(fd < 0 && strstr(why, "is a symbolic link"));
	/* . and .. are not taken */
	snprintf(path, sizeof(path), "%s/../x", tmpdir);
	EXPECT_TRUE(statedir_open(path, geteuid(), 0, why, sizeof(why)) < 0);
	/* below a directory anyone may write to (a sticky /tmp too): refused
	 * before anything is made there */
	if (stat("/tmp", &st) == 0 && (st.st_mode & S_IWOTH)) {
		snprintf(path, sizeof(path), "%s/statedir", tmpdir);
		fd = statedir_open(path, geteuid(),
				   STATEDIR_CREATE | STATEDIR_TRUST, why,
				   sizeof(why));
		EXPECT_TRUE(fd < 0 && strstr(why, "/tmp above it") &&
			    strstr(why, "anyone may write to"));
		EXPECT_TRUE(access(path, F_OK) != 0);
	}
	/* a root-owned path writable by root alone is taken */
	if (stat("/", &st) == 0 && st.st_uid == 0 && !(st.st_mode & 022)) {
		fd = statedir_open("/", 0, STATEDIR_TRUST, why, sizeof(why));
		EXPECT_TRUE(fd >= 0);
		if (fd >= 0)
			close(fd);
	}
}

/*
 * pidfd_open_in_cgroup on real processes: a child in our own cgroup
 * passes; the same child named with another cgroup, or with a start time
 * it did not have, does not (ESRCH), nor does a PID that has exited.
 */
TEST(pidfd_open_in_cgroup_checks_identity)
{
	char cg[4200], other[4300];
	uint64_t st;
	pid_t c;
	int fd, status;

	EXPECT_EQ(pid_cgroup(getpid(), cg, sizeof(cg)), 0);
	c = fork();
	if (c == 0) {
		pause();
		_exit(0);
	}
	EXPECT_TRUE(c > 0);
	if (c <= 0)
		return;
	EXPECT_EQ(proc_starttime(c, &st), 0);
	EXPECT_TRUE(pid_in_cgroup(c, cg));
	fd = pidfd_open_in_cgroup(c, st, cg);
	EXPECT_TRUE(fd >= 0);
	if (fd >= 0)
		close(fd);
	fd = pidfd_open_in_cgroup(c, 0, cg);	/* 0: any start time */
	EXPECT_TRUE(fd >= 0);
	if (fd >= 0)
		close(fd);
	/* a prefix of the name is not the cgroup ("a/b" is not "a/bc") */
	snprintf(other, sizeof(other), "%s%s", cg, cg[0] ? "x" : "no-such-sandbox");
	errno = 0;
	EXPECT_EQ(pidfd_open_in_cgroup(c, st, other), -1);
	EXPECT_EQ(errno, ESRCH);
	snprintf(other, sizeof(other), "%s/below", cg);
	EXPECT_EQ(pidfd_open_in_cgroup(c, st, other), -1);
	errno = 0;
	EXPECT_EQ(pidfd_open_in_cgroup(c, st + 1, cg), -1);
	EXPECT_EQ(errno, ESRCH);
	kill(c, SIGKILL);
	waitpid(c, &status, 0);
	EXPECT_EQ(pidfd_open_in_cgroup(c, st, cg), -1);
}

int main(void)
{
	char cmd[256];
	int r;

	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	r = unit_main();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", tmpdir);
	return r;
}
