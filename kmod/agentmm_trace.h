/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM agentmm

#if !defined(_AGENTMM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _AGENTMM_TRACE_H

#include <linux/tracepoint.h>
#include <linux/mmzone.h>

/*
 * agentmm_sample - one contiguity sample, summed over all populated zones:
 * free blocks per order, and per order the free pages an allocation of that
 * order could use and the unusable free index (0..1000).
 */
TRACE_EVENT(agentmm_sample,

	TP_PROTO(u64 seq, bool from_event, const u64 *nr_free,
		 const u64 *suitable, const u16 *unusable),

	TP_ARGS(seq, from_event, nr_free, suitable, unusable),

	TP_STRUCT__entry(
		__field(u64, seq)
		__field(bool, from_event)
		__array(u64, nr_free, NR_PAGE_ORDERS)
		__array(u64, suitable, NR_PAGE_ORDERS)
		__array(u16, unusable, NR_PAGE_ORDERS)
	),

	TP_fast_assign(
		__entry->seq = seq;
		__entry->from_event = from_event;
		memcpy(__entry->nr_free, nr_free, sizeof(__entry->nr_free));
		memcpy(__entry->suitable, suitable, sizeof(__entry->suitable));
		memcpy(__entry->unusable, unusable, sizeof(__entry->unusable));
	),

	TP_printk("seq=%llu event=%d nr_free=%s suitable=%s unusable=%s",
		  __entry->seq, __entry->from_event,
		  __print_array(__entry->nr_free, NR_PAGE_ORDERS, sizeof(u64)),
		  __print_array(__entry->suitable, NR_PAGE_ORDERS, sizeof(u64)),
		  __print_array(__entry->unusable, NR_PAGE_ORDERS, sizeof(u16)))
);

#endif /* _AGENTMM_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE agentmm_trace
#include <trace/define_trace.h>
