// SPDX-License-Identifier: GPL-2.0
/*
 * Linux scheduling state in NT terms, as written down in docs/linux-to-nt.md:
 * priorities, the state and wait reason of a thread switched out, how long
 * a thread switched in waited, its remaining quantum.
 *
 * Priorities (0..31):
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
#include <linux/math64.h>
#include <linux/sched/clock.h>
#include <linux/sched.h>
#include <linux/sched/prio.h>
#include <linux/sched/rt.h>
#include <linux/sched/deadline.h>

#include "compat.h"
#include "ntkl.h"

static s8 nt_prio_table[MAX_PRIO];
static u64 ns_to_ticks_mult;	/* 2^64 / TICK_NSEC */
static u32 ns_to_quantum_mult;	/* 2^32 * MHz / 1024000: ns to 1024 cycles */

void ntkl_sched_init(void)
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
	ns_to_ticks_mult = div64_u64(U64_MAX, TICK_NSEC) + 1;
	ns_to_quantum_mult = div_u64((u64)ntkl_cpu_mhz() << 32, 1024000);
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

/*
 * The thread switched out: NT state, wait reason and wait mode.
 *
 *   preempted (still runnable)      Ready,      WrPreempted
 *   yielded (runnable, not preempt) Ready,      WrYieldExecution
 *   TASK_INTERRUPTIBLE, user task   Waiting,    UserRequest, UserMode
 *   TASK_INTERRUPTIBLE, kthread     Waiting,    WrQueue (a worker waiting for work)
 *   TASK_UNINTERRUPTIBLE            Waiting,    Executive (I/O and kernel waits)
 *   stopped, traced, frozen, parked Waiting,    Suspended
 *   dead or exiting                 Terminated, WrTerminated
 *   the idle task                   Ready,      Executive
 */
void ntkl_nt_switch_out(struct task_struct *prev, bool preempt, unsigned int prev_state,
			struct nt_switch_out *out)
{
	bool kthread = prev->flags & PF_KTHREAD;

	out->wait_mode = ETW_KERNEL_MODE;
	out->wait_reason = ETW_KWAIT_EXECUTIVE;
	if (is_idle_task(prev)) {
		out->state = ETW_KTHREAD_READY;
	} else if (preempt || !(prev_state & TASK_REPORT)) {
		out->state = ETW_KTHREAD_READY;
		out->wait_reason = preempt ? ETW_KWAIT_WR_PREEMPTED : ETW_KWAIT_WR_YIELD_EXECUTION;
	} else if (prev_state & (TASK_DEAD | EXIT_DEAD | EXIT_ZOMBIE)) {
		out->state = ETW_KTHREAD_TERMINATED;
		out->wait_reason = ETW_KWAIT_WR_TERMINATED;
	} else if (prev_state & (__TASK_STOPPED | __TASK_TRACED | TASK_PARKED | TASK_FROZEN)) {
		out->state = ETW_KTHREAD_WAITING;
		out->wait_reason = ETW_KWAIT_SUSPENDED;
	} else if (prev_state & TASK_INTERRUPTIBLE) {
		out->state = ETW_KTHREAD_WAITING;
		out->wait_reason = kthread ? ETW_KWAIT_WR_QUEUE : ETW_KWAIT_USER_REQUEST;
		out->wait_mode = kthread ? ETW_KERNEL_MODE : ETW_USER_MODE;
	} else {
		out->state = ETW_KTHREAD_WAITING;
	}
}

/*
 * How long next has been runnable, in ticks (jiffies; the header's
 * TimerResolution says how long one is): from when it was queued on a run
 * queue (sched_info, still set when sched_switch fires) to now.
 */
u32 ntkl_nt_wait_ticks(struct task_struct *next)
{
#ifdef CONFIG_SCHED_INFO
	u64 queued = READ_ONCE(next->sched_info.last_queued);
	u64 now = local_clock();

	if (!queued || is_idle_task(next) || now <= queued)
		return 0;
	return min_t(u64, mul_u64_u64_shr(now - queued, ns_to_ticks_mult, 64), U32_MAX);
#else
	/* without CONFIG_SCHED_INFO the kernel keeps no enqueue time */
	return 0;
#endif
}

/*
 * OldThreadRemainingQuantum is NT's QuantumTarget - CycleTime over 1024:
 * the cycles left of the time slice, in units of 1024 cycles.
 */
s32 ntkl_nt_remaining_quantum(struct task_struct *prev)
{
	u64 units = mul_u64_u32_shr(ntkl_remaining_slice_ns(prev), ns_to_quantum_mult, 32);

	return min_t(u64, units, S32_MAX);
}
