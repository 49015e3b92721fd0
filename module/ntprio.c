// SPDX-License-Identifier: GPL-2.0
/*
 * Linux scheduling priorities as NT thread priorities (0..31), the mapping
 * written down in docs/linux-to-nt.md:
 *
 *   idle task                 0   (the idle thread)
 *   SCHED_DEADLINE           31
 *   SCHED_FIFO/RR, rt_prio r 16 + (r - 1) * 15 / 98     1 -> 16, 99 -> 31
 *   SCHED_NORMAL/BATCH, nice round(8 - 7 * nice / 20)    -20 -> 15, 19 -> 1
 *   SCHED_IDLE                1
 *
 * Base priority comes from normal_prio, current priority from prio (which
 * includes priority inheritance). A table keeps division out of probes.
 */
#include <linux/math.h>
#include <linux/sched.h>
#include <linux/sched/prio.h>
#include <linux/sched/rt.h>
#include <linux/sched/deadline.h>

#include "ntkl.h"

static s8 nt_prio_table[MAX_PRIO];

void ntkl_prio_init(void)
{
	int prio;

	for (prio = 0; prio < MAX_PRIO; prio++) {
		if (prio < MAX_RT_PRIO) {
			int rt_priority = MAX_RT_PRIO - 1 - prio;	/* 1..99 */

			nt_prio_table[prio] = 16 + (max(rt_priority, 1) - 1) * 15 / 98;
		} else {
			int nice = PRIO_TO_NICE(prio);

			nt_prio_table[prio] = clamp(DIV_ROUND_CLOSEST(160 - 7 * nice, 20), 1, 15);
		}
	}
}

static s8 nt_priority(struct task_struct *p, int prio)
{
	if (is_idle_task(p))
		return 0;
	if (prio < 0)		/* SCHED_DEADLINE */
		return 31;
	if (prio >= MAX_RT_PRIO && p->policy == SCHED_IDLE)
		return 1;
	return nt_prio_table[min(prio, MAX_PRIO - 1)];
}

s8 ntkl_nt_priority(struct task_struct *p)
{
	return nt_priority(p, READ_ONCE(p->prio));
}

s8 ntkl_nt_base_priority(struct task_struct *p)
{
	return nt_priority(p, READ_ONCE(p->normal_prio));
}
