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
#include "producers/stack.h"

void ntkl_probe_sched_waking(void *data, struct task_struct *p)
{
	struct ntkl_logger **loggers;
	unsigned int n = ntkl_active_loggers(&loggers);
	struct etw_ready_thread rt = {
		.thread_id = ntkl_thread_id(p),
		.adjust_reason = ETW_ADJUST_NONE,
		.flag = in_hardirq() || in_serving_softirq() ?
			ETW_READY_THREAD_READIED_FROM_DPC : 0,
	};

	/* with the readying context's stack for loggers that walk ReadyThread */
	ntkl_record_each_walked(loggers, n, ETW_EVENT_READY_THREAD, &rt, sizeof(rt),
				NTKL_STACK_READY_THREAD, NULL);
}
