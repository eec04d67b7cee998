// SPDX-License-Identifier: GPL-2.0
/*
 * The Kubernetes pod UID and the container ID a sandbox's cgroup path
 * names, as metric labels an operator joins on (kube-state-metrics'
 * kube_pod_info{uid}, kube_pod_container_info{container_id}). The path is
 * written by the kubelet and the container runtime, but a sandbox may be
 * adopted anywhere a pattern allows, so only exact shapes count:
 *   pod:       pod<UID> (cgroupfs driver) or <...>-pod<UID>.slice (systemd
 *              driver, where the UID's '-' are '_'); UID = 32 hex digits
 *              with or without the four dashes;
 *   container: cri-containerd-<ID>.scope, crio-<ID>.scope,
 *              docker-<ID>.scope, libpod-<ID>.scope, or a bare <ID>
 *              (cgroupfs driver); ID = 64 hex digits.
 * Anything else gives "". The innermost match wins.
 */
#include <stdbool.h>
#include <string.h>

#include "podid.h"

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* A UUID's 36 characters (dashes at 8, 13, 18, 23) or 32 hex digits;
 * '_' stands for '-' where the systemd driver wrote it. */
static bool take_uid(const char *p, size_t n, char out[PODID_POD_LEN])
{
	size_t i;

	if (n != 32 && n != 36)
		return false;
	for (i = 0; i < n; i++) {
		bool dash = n == 36 && (i == 8 || i == 13 || i == 18 ||
					i == 23);

		if (dash ? p[i] != '-' && p[i] != '_' : !is_hex(p[i]))
			return false;
	}
	for (i = 0; i < n; i++)
		out[i] = p[i] == '_' ? '-' : p[i];
	out[n] = '\0';
	return true;
}

static bool take_ctr(const char *p, size_t n, char out[PODID_CTR_LEN])
{
	size_t i;

	if (n != 64)
		return false;
	for (i = 0; i < n; i++)
		if (!is_hex(p[i]))
			return false;
	memcpy(out, p, n);
	out[n] = '\0';
	return true;
}

static bool ends_with(const char *p, size_t n, const char *sfx, size_t *stem)
{
	size_t l = strlen(sfx);

	if (n < l || memcmp(p + n - l, sfx, l))
		return false;
	*stem = n - l;
	return true;
}

/* One path component @p of length @n. */
static void component(const char *p, size_t n, char pod[PODID_POD_LEN],
		      char ctr[PODID_CTR_LEN])
{
	static const char *const rt[] = {
		"cri-containerd-", "crio-", "docker-", "libpod-",
	};
	const char *q;
	size_t stem, i;

	if (n > 3 && !memcmp(p, "pod", 3) && take_uid(p + 3, n - 3, pod))
		return;
	if (ends_with(p, n, ".slice", &stem)) {
		for (q = p + stem; q >= p + 4; q--)
			if (!memcmp(q - 4, "-pod", 4))
				break;
		if (q >= p + 4)
			take_uid(q, (size_t)(p + stem - q), pod);
		return;
	}
	if (take_ctr(p, n, ctr))
		return;
	if (!ends_with(p, n, ".scope", &stem))
		return;
	for (i = 0; i < sizeof(rt) / sizeof(rt[0]); i++) {
		size_t l = strlen(rt[i]);

		if (stem > l && !memcmp(p, rt[i], l)) {
			take_ctr(p + l, stem - l, ctr);
			return;
		}
	}
}

/**
 * podid_from_path() - the pod UID and container ID in a cgroup path
 * @rel: the path (relative to the cgroup root)
 * @pod: set to the pod UID with dashes, or ""
 * @ctr: set to the container ID, or ""
 */
void podid_from_path(const char *rel, char pod[PODID_POD_LEN],
		     char ctr[PODID_CTR_LEN])
{
	const char *p = rel, *e;

	pod[0] = ctr[0] = '\0';
	while (*p) {
		e = strchr(p, '/');
		if (!e)
			e = p + strlen(p);
		if (e > p)
			component(p, (size_t)(e - p), pod, ctr);
		p = *e ? e + 1 : e;
	}
}
