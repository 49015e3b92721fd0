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
#include <linux/preempt.h>
#include <linux/sched.h>

#include "producers/ntsched.h"
#include "format/record.h"
#include "producers/producer.h"
#include "producers/stack.h"

void ntkl_probe_sched_waking(void *data, struct task_struct *p)
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
		rt = (void *)ntkl_record_begin(loggers[i], &rec, ETW_EVENT_READY_THREAD,
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
		if (likely(!ntkl_stack_on(loggers[i], NTKL_STACK_READY_THREAD)))
			continue;
		if (!st)
			st = ntkl_stack_current(NULL);
		if (st)
			ntkl_stack_write(loggers[i], st, time);
	}
}
