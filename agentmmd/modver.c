// SPDX-License-Identifier: GPL-2.0
/*
 * Version skew between agentmm.ko and agentmmd: an upgraded daemon talks
 * to the module that was loaded at boot until the next reboot or module
 * reload. The module's abi says which interface it speaks; a daemon that
 * does not speak it leaves the module alone and governs by itself.
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modver.h"
#include "thpfile.h"

int modver_read_line(const char *dir, const char *name, char *buf,
		     size_t len)
{
	char path[128];
	int fd, r;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = thp_read_small(fd, buf, len);
	close(fd);
	if (r)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

bool modver_read(const char *sysfs_dir, struct modver *m)
{
	char buf[32];
	unsigned long abi;
	char *end;
	size_t i;

	strcpy(m->version, "-");
	m->abi = 0;
	m->usable = false;
	if (modver_read_line(sysfs_dir, "version", buf, sizeof(buf)))
		return false;
	/* a version is short and printable: anything else is shown as '?' */
	for (i = 0; buf[i] && i < sizeof(m->version) - 1; i++)
		m->version[i] = isalnum((unsigned char)buf[i]) ||
				strchr(".-+~", buf[i]) ? buf[i] : '?';
	m->version[i] = 0;
	if (modver_read_line(sysfs_dir, "abi", buf, sizeof(buf))) {
		m->abi = 1;	/* modules before the abi file */
	} else {
		abi = strtoul(buf, &end, 10);
		m->abi = end != buf && !*end && abi < 1000000 ?
			 (unsigned int)abi : 0;
	}
	m->usable = m->abi >= AMM_MODULE_ABI_MIN &&
		    m->abi <= AMM_MODULE_ABI_MAX;
	return true;
}

void modver_refusal(const struct modver *m, char *buf, unsigned int len)
{
	snprintf(buf, len,
		 "agentmm.ko %s speaks ABI %u; this agentmmd (%s) speaks ABI %d-%d: not using its decisions, agentmmd governs by itself; load the agentmm.ko that came with this agentmmd (reload the module or reboot)",
		 m->version, m->abi, AMM_VERSION, AMM_MODULE_ABI_MIN,
		 AMM_MODULE_ABI_MAX);
}

int modver_print_version(const char *prog)
{
	struct modver m;

	printf("%s %s\n", prog, AMM_VERSION);
	if (!modver_read("/sys/kernel/agentmm", &m))
		printf("agentmm.ko not loaded\n");
	else if (m.usable)
		printf("agentmm.ko %s (ABI %u)\n", m.version, m.abi);
	else
		printf("agentmm.ko %s (ABI %u: not used, %s %s speaks ABI %d-%d)\n",
		       m.version, m.abi, prog, AMM_VERSION, AMM_MODULE_ABI_MIN,
		       AMM_MODULE_ABI_MAX);
	return 0;
}
