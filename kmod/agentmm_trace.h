/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM agentmm

#if !defined(_AGENTMM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _AGENTMM_TRACE_H

#include <linux/tracepoint.h>
#include <linux/mmzone.h>
#include "compat.h"

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

/*
 * agentmm_decision - one governor decision: the largest enabled order
 * (-1: all off), enabled/below-headroom/compact order masks, whether the
 * enabled set changed, and the reason code per order (see
 * amm_gov_reason_name()).
 */
TRACE_EVENT(agentmm_decision,

	TP_PROTO(int ceiling, u32 enabled, bool changed, u32 below_headroom,
		 u32 compact_mask, const u16 *reasons),

	TP_ARGS(ceiling, enabled, changed, below_headroom, compact_mask,
		reasons),

	TP_STRUCT__entry(
		__field(int, ceiling)
		__field(u32, enabled)
		__field(bool, changed)
		__field(u32, below_headroom)
		__field(u32, compact_mask)
		__array(u16, reasons, NR_PAGE_ORDERS)
	),

	TP_fast_assign(
		__entry->ceiling = ceiling;
		__entry->enabled = enabled;
		__entry->changed = changed;
		__entry->below_headroom = below_headroom;
		__entry->compact_mask = compact_mask;
		memcpy(__entry->reasons, reasons, sizeof(__entry->reasons));
	),

	TP_printk("ceiling=%d enabled=%#x changed=%d below_headroom=%#x compact=%#x reasons=%s",
		  __entry->ceiling, __entry->enabled, __entry->changed,
		  __entry->below_headroom, __entry->compact_mask,
		  __print_array(__entry->reasons, NR_PAGE_ORDERS, sizeof(u16)))
);

/* agentmm_compact - one order-targeted compaction request and its cost. */
TRACE_EVENT(agentmm_compact,

	TP_PROTO(unsigned int order, u64 wanted, u64 got, u64 ns),

	TP_ARGS(order, wanted, got, ns),

	TP_STRUCT__entry(
		__field(unsigned int, order)
		__field(u64, wanted)
		__field(u64, got)
		__field(u64, ns)
	),

	TP_fast_assign(
		__entry->order = order;
		__entry->wanted = wanted;
		__entry->got = got;
		__entry->ns = ns;
	),

	TP_printk("order=%u wanted=%llu got=%llu ns=%llu", __entry->order,
		  __entry->wanted, __entry->got, __entry->ns)
);

#endif /* _AGENTMM_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE agentmm_trace
#include <trace/define_trace.h>
