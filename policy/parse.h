/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsers for the strings agentmm.ko takes from parameters, its sysfs
 * files and the kernel's THP sysfs files, and agentmmd from its
 * configuration. Plain C (no kernel or libc
 * headers), shared by the module, the host unit tests and the libFuzzer
 * target in tests/fuzz/. Every parser takes a buffer and its length, never
 * reads past it, and leaves its output untouched on failure.
 */
#ifndef _AGENTMM_POLICY_PARSE_H
#define _AGENTMM_POLICY_PARSE_H

#include "amm_types.h"

/* errno value, defined here because policy code includes no errno.h */
#ifndef AMM_EINVAL
#define AMM_EINVAL		22
#endif

/* Longest word a THP "enabled" file selects ("madvise", "inherit", ...). */
#define AMM_WORD_MAX		16

int amm_parse_u64(const char *s, size_t len, u64 *out);
int amm_parse_dec_u64(const char *s, size_t len, u64 *out);
int amm_parse_centi(const char *s, size_t len, u64 *x100);
int amm_parse_sizes(const char *s, size_t len, unsigned int page_kb,
		    unsigned int min_order, unsigned int max_order, u32 *mask);
int amm_format_sizes(u32 mask, unsigned int page_kb, char *buf, size_t len);
int amm_parse_selected(const char *s, size_t len, char *out, size_t outlen);
int amm_match_word(const char *const *words, unsigned int n, const char *s,
		   size_t len);
int amm_parse_hugepages_dir(const char *name, size_t len, unsigned int *kb);
int amm_parse_stat(const char *s, size_t len, u64 *out);

/*
 * Counters per size: agentmm.ko's sizes/<N>kB/stats/ files, and the
 * fields after the size in a line of its deprecated governor/counters.
 */
#define AMM_NR_COUNTERS		6
int amm_parse_counters(const char *s, size_t len, unsigned int *kb,
		       u64 vals[AMM_NR_COUNTERS]);
int amm_parse_key_u64(const char *s, size_t len, const char *key, u64 *out);
int amm_parse_psi_avg10(const char *s, size_t len, const char *kind,
			unsigned int *x100);

#endif /* _AGENTMM_POLICY_PARSE_H */
