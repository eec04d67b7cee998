/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfgwatch.c: notice a change of the configuration file (an editor's
 * rename, a package upgrade, a Kubernetes ConfigMap update) so that the
 * daemon reloads it as on SIGHUP.
 */
#ifndef _AGENTMMD_CFGWATCH_H
#define _AGENTMMD_CFGWATCH_H

#include <stdbool.h>

/*
 * An inotify descriptor watching the directory of @cfg_path (a file
 * replaced by rename counts, and ConfigMap volumes swap a "..data" link);
 * -1 with errno set when it cannot be had, EPERM when another user may
 * write to that directory (a read-only mount, as a ConfigMap's, is fine).
 */
int cfgwatch_open(const char *cfg_path);
/*
 * Read what @fd has queued (it is non-blocking); true when it says
 * @cfg_path, a ConfigMap's "..data", or lost events (a full queue).
 */
bool cfgwatch_changed(int fd, const char *cfg_path);

#endif
