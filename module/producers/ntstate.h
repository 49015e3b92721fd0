/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Linux scheduling state in NT terms, as pure functions of numbers: no
 * task_struct, no kernel call. The switch probe uses them through
 * ntsched.h; userspace/tests/test_ntstate.c compiles this same file with
 * the kernel's constants and checks the map (docs/linux-to-nt.md).
 *
 * The includer provides the types (u8, s8), bool, the TASK_* and EXIT_*
 * state bits of <linux/sched.h>, MAX_RT_PRIO and PRIO_TO_NICE of
 * <linux/sched/prio.h>, and uapi/ntkl_etw.h.
 */
#ifndef _NTKL_NTSTATE_H
#define _NTKL_NTSTATE_H

/*
 * The state bits and priorities the map below was written for, and that
 * userspace/tests/test_ntstate.c gives it: checked by each module build
 * against the kernel's own headers (scripts/build-module --all, each
 * supported kernel), and by the test's build against its copy. A kernel
 * that moves one fails to build here: the map and its test are then
 * looked at again, not trusted.
 */
static_assert(TASK_RUNNING == 0x0000 && TASK_INTERRUPTIBLE == 0x0001 &&
	      TASK_UNINTERRUPTIBLE == 0x0002 && __TASK_STOPPED == 0x0004 &&
	      __TASK_TRACED == 0x0008 && EXIT_DEAD == 0x0010 && EXIT_ZOMBIE == 0x0020 &&
	      TASK_PARKED == 0x0040 && TASK_DEAD == 0x0080 && TASK_WAKEKILL == 0x0100 &&
	      TASK_NOLOAD == 0x0400 && TASK_FREEZABLE == 0x2000 && TASK_FROZEN == 0x8000,
	      "the task state bits ntkl_nt_state() and test_ntstate.c know");
static_assert(TASK_REPORT == 0x7f && TASK_KILLABLE == 0x0102 && TASK_STOPPED == 0x0104 &&
	      TASK_TRACED == 0x0008 && TASK_IDLE == 0x0402,
	      "the task states the kernel composes of them");
static_assert(MAX_RT_PRIO == 100 && PRIO_TO_NICE(120) == 0 && PRIO_TO_NICE(100) == -20 &&
	      PRIO_TO_NICE(139) == 19, "the priorities ntkl_nt_prio_of() knows");

struct nt_switch_out {
	u8 state;			/* KTHREAD_STATE */
	u8 wait_reason;			/* KWAIT_REASON */
	u8 wait_mode;			/* KPROCESSOR_MODE */
};

/*
 * The thread switched out: NT state, wait reason and wait mode, from the
 * task state sched_switch gives (prev_state), whether it was preempted,
 * and whether it is the idle task or a kernel thread.
 *
 *   dead or exiting                 Terminated, WrTerminated
 *   preempted (still runnable)      Ready,      WrPreempted
 *   yielded (runnable, not preempt) Ready,      WrYieldExecution
 *   TASK_INTERRUPTIBLE, user task   Waiting,    UserRequest, UserMode
 *   TASK_INTERRUPTIBLE, kthread     Waiting,    WrQueue (a worker waiting for work)
 *   TASK_UNINTERRUPTIBLE            Waiting,    Executive (I/O and kernel waits)
 *   stopped, traced, frozen, parked Waiting,    Suspended
 *   the idle task                   Ready,      Executive
 *
 * An exiting task's last switch comes with TASK_DEAD, which is outside
 * TASK_REPORT: it must be tested before "not a reportable sleep" (ready).
 */
static inline void ntkl_nt_state(bool idle, bool kthread, bool preempt,
				 unsigned int prev_state, struct nt_switch_out *out)
{
	out->wait_mode = ETW_KERNEL_MODE;
	out->wait_reason = ETW_KWAIT_EXECUTIVE;
	if (idle) {
		out->state = ETW_KTHREAD_READY;
	} else if (!preempt && prev_state == TASK_INTERRUPTIBLE) {
		/* the usual sleep, tested first: its row below, in one test */
		out->state = ETW_KTHREAD_WAITING;
		out->wait_reason = kthread ? ETW_KWAIT_WR_QUEUE : ETW_KWAIT_USER_REQUEST;
		out->wait_mode = kthread ? ETW_KERNEL_MODE : ETW_USER_MODE;
	} else if (!preempt && (prev_state & (TASK_DEAD | EXIT_DEAD | EXIT_ZOMBIE))) {
		out->state = ETW_KTHREAD_TERMINATED;
		out->wait_reason = ETW_KWAIT_WR_TERMINATED;
	} else if (preempt || !(prev_state & TASK_REPORT)) {
		out->state = ETW_KTHREAD_READY;
		out->wait_reason = preempt ? ETW_KWAIT_WR_PREEMPTED : ETW_KWAIT_WR_YIELD_EXECUTION;
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
 * NT priority (0..31) of a Linux prio below MAX_PRIO, the idle task and
 * the SCHED_DEADLINE and SCHED_IDLE classes left to the caller:
 *
 *   SCHED_FIFO/RR, rt_prio r 16 + (r - 1) * 15 / 98     1 -> 16, 99 -> 31
 *   SCHED_NORMAL/BATCH, nice round(8 - 7 * nice / 20)    -20 -> 15, 19 -> 1
 */
static inline s8 ntkl_nt_prio_of(int prio)
{
	int nt;

	if (prio < MAX_RT_PRIO) {
		int rt_priority = MAX_RT_PRIO - 1 - prio;	/* 1..99 */

		return 16 + ((rt_priority > 1 ? rt_priority : 1) - 1) * 15 / 98;
	}
	/* round to nearest: 8 - 7 * nice / 20 = (160 - 7 * nice) / 20 */
	nt = 160 - 7 * PRIO_TO_NICE(prio);
	nt = (nt + (nt < 0 ? -10 : 10)) / 20;
	return nt < 1 ? 1 : nt > 15 ? 15 : nt;
}

#endif /* _NTKL_NTSTATE_H */
