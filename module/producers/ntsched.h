/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Linux scheduling state in NT terms (ntsched.c has the map): the helpers
 * the sched_switch probe calls on every switch, inline so that a switch
 * costs loads and a table lookup, not calls.
 */
#ifndef _NTKL_NTSCHED_H
#define _NTKL_NTSCHED_H

#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/prio.h>
#include <linux/sched/rt.h>

#include "ntkl.h"
#include "wrapper/compat.h"
#include "wrapper/mul.h"
#include "uapi/ntkl_etw.h"
#include "producers/ntstate.h"

extern s8 ntkl_nt_prio_table[MAX_PRIO];	/* Linux prio -> NT priority */
extern u64 ntkl_ns_to_ticks_mult;		/* 2^64 / TICK_NSEC */
extern u32 ntkl_ns_to_quantum_mult;		/* ns to units of 1024 cycles */

/*
 * NT thread and process ids: the idle tasks are thread 0 of process 0;
 * kernel threads are threads of one System process (NTKL_SYSTEM_PID), as
 * Windows' are of its System process (docs/linux-to-nt.md).
 */
static inline u32 ntkl_thread_id(struct task_struct *t)
{
	return is_idle_task(t) ? 0 : task_pid_nr(t);
}

static inline u32 ntkl_process_id(struct task_struct *t)
{
	if (is_idle_task(t))
		return 0;
	if (t->flags & PF_KTHREAD)
		return NTKL_SYSTEM_PID;
	return task_tgid_nr(t);
}

/*
 * Tested in the order that costs a switch least: one unsigned compare
 * finds both a prio outside the table (SCHED_DEADLINE's is below 0) and
 * keeps the index in it; the policy is tested before the prio because
 * few tasks are SCHED_IDLE (and one boosted to a real-time prio by
 * priority inheritance takes the real-time entry).
 */
static inline s8 ntkl_nt_prio(struct task_struct *p, int prio)
{
	if (is_idle_task(p))
		return 0;
	if (unlikely((unsigned int)prio >= MAX_PRIO))
		return prio < 0 ? 31 : ntkl_nt_prio_table[MAX_PRIO - 1];
	if (p->policy == SCHED_IDLE && prio >= MAX_RT_PRIO)
		return 1;
	return ntkl_nt_prio_table[prio];
}

/* Current priority: prio includes priority inheritance. */
static inline s8 ntkl_nt_priority(struct task_struct *p)
{
	return ntkl_nt_prio(p, READ_ONCE(p->prio));
}

static inline s8 ntkl_nt_base_priority(struct task_struct *p)
{
	return ntkl_nt_prio(p, READ_ONCE(p->normal_prio));
}

/*
 * How long next has been runnable, in ticks (jiffies; the header's
 * TimerResolution says how long one is): from when it was queued on a run
 * queue (sched_info.last_queued, still set when sched_switch fires) to
 * when it was picked. Every scheduling class stamps se.exec_start with the
 * run queue's clock when it picks a task, before sched_switch, so no clock
 * is read here. (That is rq_clock_task, which lags rq_clock by the time
 * spent in interrupts only with IRQ_TIME_ACCOUNTING, which Debian's
 * kernels do not set: a wait then reads short, never long.)
 */
static inline u32 ntkl_nt_wait_ticks(struct task_struct *next)
{
#ifdef CONFIG_SCHED_INFO
	/* the run queue's lock, held in sched_switch, keeps both as they are */
	u64 queued = next->sched_info.last_queued;
	u64 picked = next->se.exec_start;

	if (!queued || picked <= queued || is_idle_task(next))
		return 0;
	return min_t(u64, ntkl_mul_u64_u64_shr(picked - queued, ntkl_ns_to_ticks_mult, 64),
		     U32_MAX);
#else
	/* without CONFIG_SCHED_INFO the kernel keeps no enqueue time */
	return 0;
#endif
}

/*
 * OldThreadRemainingQuantum is NT's QuantumTarget - CycleTime over 1024:
 * the cycles left of the time slice, in units of 1024 cycles.
 */
static inline s32 ntkl_nt_remaining_quantum(struct task_struct *prev)
{
	u64 units = ntkl_mul_u64_u64_shr(ntkl_remaining_slice_ns(prev),
					 ntkl_ns_to_quantum_mult, 32);

	return min_t(u64, units, S32_MAX);
}

/* The thread switched out, in NT terms (ntstate.h has the map). */
static inline void ntkl_nt_switch_out(struct task_struct *prev, bool preempt,
				      unsigned int prev_state, struct nt_switch_out *out)
{
	ntkl_nt_state(is_idle_task(prev), prev->flags & PF_KTHREAD, preempt, prev_state, out);
}

/*
 * The rundowns' walk of every process: the thread group leader of the
 * first process whose id is *nr or above, referenced (put_task_struct()
 * it), *nr moved past it; NULL after the last. Processes that come and go
 * meanwhile may be missed or seen, as in any walk by id. Process context.
 */
struct task_struct *ntkl_next_process(int *nr);

#endif /* _NTKL_NTSCHED_H */
