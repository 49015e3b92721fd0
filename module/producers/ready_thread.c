// SPDX-License-Identifier: GPL-2.0
/*
 * ReadyThread (0x0532, PERF_DISPATCHER): a thread is made ready to run,
 * from sched_waking. WPA's CPU Usage (Precise) fills its Readying columns
 * from it; the readying thread is whoever runs on the CPU at the time.
 *
 * Linux gives no priority boost on wakeup, so AdjustReason is AdjustNone
 * and AdjustIncrement 0. A wakeup from a hard or soft interrupt is NT's
 * "readied from a DPC".
 */
#include <linux/mm_types.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <trace/events/sched.h>

#include "producers/ntsched.h"
#include "format/record.h"
#include "producers/producer.h"
#include "producers/stack.h"
#include "producers/tracepoints.h"

static void probe_sched_waking(void *data, struct task_struct *p)
{
	struct ntkl_logger **loggers;
	unsigned int i, n = ntkl_active_loggers(&loggers);
	struct ntkl_stack *st = NULL;
	struct etw_ready_thread *rt;
	struct ntkl_record rec;
	u64 time;

	for (i = 0; i < n; i++) {
		if (!ntkl_event_on(loggers[i], ETW_EVENT_READY_THREAD))
			continue;
		rt = ntkl_begin_READY_THREAD(loggers[i], &rec, ETW_EVENT_READY_THREAD,
					     sizeof(*rt));
		if (!rt)
			continue;
		rt->thread_id = ntkl_thread_id(p);
		rt->adjust_reason = ETW_ADJUST_NONE;
		rt->adjust_increment = 0;
		rt->flag = in_hardirq() || in_serving_softirq() ?
			   ETW_READY_THREAD_READIED_FROM_DPC : 0;
		rt->reserved = 0;
		time = ntkl_record_perfinfo_time((u8 *)rt);
		ntkl_record_end(&rec);
		/* the readying context's stack, for loggers that walk ReadyThread */
		if (likely(!ntkl_stack_on(loggers[i], NTKL_WALK_READY_THREAD)))
			continue;
		if (!st)
			st = ntkl_stack_current(NULL);
		if (st)
			ntkl_stack_write(loggers[i], st, time);
	}
}

/*
 * sched_waking is attached while a logger takes ReadyThread, and only
 * then: a loaded ntkl with nothing to record adds nothing to a wakeup.
 */
#define READY_TP_WAKING	1

static struct ntkl_tp ready_thread_tps[] = {
	NTKL_TP(sched_waking, READY_TP_WAKING, NULL),
};

/* Attached before the set is seen: a new logger misses no event. */
static int ready_thread_attach(const struct ntkl_active_set *set)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		if (ntkl_set_event_on(set, i, ETW_EVENT_READY_THREAD))
			return ntkl_tp_set(&ntkl_ready_thread_producer, READY_TP_WAKING, true,
					   NULL);
	return 0;
}

/* Detached once no probe reads the old set: a leaving logger misses no event either. */
static void ready_thread_detach(const struct ntkl_active_set *set)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		if (ntkl_set_event_on(set, i, ETW_EVENT_READY_THREAD))
			return;
	ntkl_tp_set(&ntkl_ready_thread_producer, READY_TP_WAKING, false, NULL);
}

const struct ntkl_producer ntkl_ready_thread_producer = {
	.name = "ready_thread",
	.tps = ready_thread_tps,
	.nr_tps = ARRAY_SIZE(ready_thread_tps),
	.attach = ready_thread_attach,
	.detach = ready_thread_detach,
};
