// SPDX-License-Identifier: GPL-2.0
/*
 * agentmmd --help: a synopsis, the options and the keys most hosts set,
 * those from the key table (configkeys.h) so that they cannot drift;
 * agentmmd(8) and agentmmd.conf(5) have the rest.
 */
#include <stdio.h>
#include <string.h>

#include "daemon.h"
#include "usage.h"

static const char usage_head[] =
"NAME\n"
"    agentmmd - per-sandbox memory control for hosts running AI agents\n"
"\n"
"SYNOPSIS\n"
"    agentmmd [-c FILE] [-d] [--dry-run] [--log-format text|json]\n"
"    agentmmd [-c FILE] --check-config [-q] [FILE]\n"
"    agentmmd [-c FILE] --restore [--log-format text|json]\n"
"\n"
"DESCRIPTION\n"
"    agentmmd watches the cgroups of agent sandboxes, tells each sandbox's\n"
"    agent runtime from the tool processes it starts, and keeps the host out\n"
"    of memory without losing agents: as free memory falls it throttles the\n"
"    fastest-growing tool, freezes lower-priority sandboxes, and kills the\n"
"    largest tool (never the runtime, with a line on the tool's stderr);\n"
"    between tool calls it reclaims every sandbox at a pace; it is the one\n"
"    writer of the mTHP size switches. Every change is recorded first and\n"
"    undone when it stops, even by SIGKILL (its guardian does).\n"
"\n"
"OPTIONS\n"
"    -c, --config FILE  configuration file (default " AMM_DEFAULT_CONFIG "; a missing default\n"
"                       file means built-in defaults)\n"
"    -d, --debug        verbose logging (same as debug = 1)\n"
"    --check-config [FILE]  parse the configuration (FILE, else -c's or the\n"
"                       default) and check the rules between keys, print the\n"
"                       effective values and exit: 0 if valid, 1 with\n"
"                       FILE:LINE: problem if not (systemd runs it before a\n"
"                       reload; -q, --quiet: no values)\n"
"    -n, --dry-run      decide and log every action (\"dry-run (nothing\n"
"                       changed): ...\"), change nothing: no cgroup or /proc\n"
"                       writes, no signals, no note on a tool's stderr\n"
"    --restore          undo the throttles, freezes, borrowed v1 limits and\n"
"                       mTHP switch changes recorded in STATE_DIR/applied\n"
"                       by a daemon that died, and exit (refused while\n"
"                       an agentmmd runs: it undoes its own on stop)\n"
"                       (systemd: ExecStopPost)\n"
"    --log-format text|json  stderr lines as text (default) or one JSON object\n"
"                       each: time, priority, level, message, and for actions\n"
"                       action, message_id, sandbox, tool, pid (containers;\n"
"                       JSON also instead of the journal)\n"
"    -h, --help         this text;  -V, --version  the version\n"
"\n"
"SIGNALS\n"
"    SIGHUP   reload the configuration; a file with an error (a bad value or\n"
"             a broken rule between keys) is reported and the running\n"
"             configuration kept. A change of the file is reloaded the same\n"
"             way without a signal.\n"
"    SIGTERM, SIGINT  thaw and unthrottle everything agentmmd changed, exit\n"
"\n"
"FILES\n"
"    " AMM_DEFAULT_CONFIG "   configuration (key = value, '#' comments)\n"
"    STATE_DIR/status, metrics, events  read by agentmmctl status, events\n"
"    STATE_DIR/control            root-only socket (agentmmctl thaw ...)\n"
"    STATE_DIR/applied            changes to undo if agentmmd dies\n"
"\n"
"EXIT STATUS\n"
"    0 on SIGTERM/SIGINT or success, 1 on a configuration or setup error.\n"
"\n"
"CONFIGURATION\n"
"    The keys most hosts set, with their defaults (\"\" = empty):\n";

static const char usage_tail[] =
"    The %u tuning keys (intervals, thresholds, reclaim pacing, the\n"
"    governor's tunables), the rules between keys, and each key's full\n"
"    meaning: man agentmmd.conf. Priority, logging, metrics, the event\n"
"    history and manual controls: man agentmmd.\n";

/* "    name = default" (a long list wrapped at 78 columns), then the
 * description indented on a line of its own. */
static void usage_key(FILE *f, const struct amm_key *k)
{
	const char *w = k->def;
	size_t col, n;

	col = (size_t)fprintf(f, "    %s =", k->name);
	if (!*w)
		fputs(" \"\"", f);
	while (*w) {
		n = strcspn(w, " ");
		if (col + 1 + n > 78 && col > 8)
			col = (size_t)fprintf(f, "\n       ");
		col += (size_t)fprintf(f, " %.*s", (int)n, w);
		w += n;
		w += strspn(w, " ");
	}
	fprintf(f, "\n        %s\n", k->desc);
}

void amm_usage(FILE *f)
{
	unsigned int i, tuning = 0;

	fputs(usage_head, f);
	for (i = 0; i < amm_config_nkeys; i++) {
		if (amm_config_keys[i].group == AMM_KEY_USER)
			usage_key(f, &amm_config_keys[i]);
		else
			tuning++;
	}
	fprintf(f, usage_tail, tuning);
}
