// SPDX-License-Identifier: GPL-2.0
/*
 * The module's Linux-to-NT scheduling map (module/producers/ntstate.h),
 * compiled here from the same file, against the table in
 * docs/linux-to-nt.md: the state and wait reason of a thread switched out,
 * and NT priorities.
 *
 * The kernel's constants below are a copy: ntstate.h static_asserts their
 * values, so this file does not build with a copy that differs from them,
 * nor the module with a kernel whose <linux/sched.h> does (each supported
 * kernel's headers, scripts/build-module --all). The states are given as
 * the kernel composes them (TASK_KILLABLE, TASK_IDLE, ...), not rebuilt
 * here.
 */
#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

#include "test.h"
#include "uapi/ntkl_etw.h"

typedef uint8_t u8;
typedef int8_t s8;

/* <linux/sched.h> task state bits (6.1 and 6.12) */
#define TASK_RUNNING		0x00000000
#define TASK_INTERRUPTIBLE	0x00000001
#define TASK_UNINTERRUPTIBLE	0x00000002
#define __TASK_STOPPED		0x00000004
#define __TASK_TRACED		0x00000008
#define EXIT_DEAD		0x00000010
#define EXIT_ZOMBIE		0x00000020
#define TASK_PARKED		0x00000040
#define TASK_DEAD		0x00000080
#define TASK_WAKEKILL		0x00000100
#define TASK_NOLOAD		0x00000400
#define TASK_FREEZABLE		0x00002000
#define TASK_FROZEN		0x00008000
#define TASK_KILLABLE		(TASK_WAKEKILL | TASK_UNINTERRUPTIBLE)
#define TASK_STOPPED		(TASK_WAKEKILL | __TASK_STOPPED)
#define TASK_TRACED		__TASK_TRACED
#define TASK_IDLE		(TASK_UNINTERRUPTIBLE | TASK_NOLOAD)
#define TASK_REPORT		(TASK_RUNNING | TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE | \
				 __TASK_STOPPED | __TASK_TRACED | EXIT_DEAD | EXIT_ZOMBIE | \
				 TASK_PARKED)
/* <linux/sched/prio.h> */
#define MAX_RT_PRIO		100
#define DEFAULT_PRIO		120
#define PRIO_TO_NICE(prio)	((prio) - DEFAULT_PRIO)

#include "module/producers/ntstate.h"

struct state_case {
	const char *name;
	bool idle, kthread, preempt;
	unsigned int prev_state;
	u8 state, reason, mode;
};

static const struct state_case cases[] = {
	{ "idle", true, true, false, TASK_RUNNING,
	  ETW_KTHREAD_READY, ETW_KWAIT_EXECUTIVE, ETW_KERNEL_MODE },
	{ "preempted", false, false, true, TASK_RUNNING,
	  ETW_KTHREAD_READY, ETW_KWAIT_WR_PREEMPTED, ETW_KERNEL_MODE },
	{ "preempted_while_going_to_sleep", false, false, true, TASK_INTERRUPTIBLE,
	  ETW_KTHREAD_READY, ETW_KWAIT_WR_PREEMPTED, ETW_KERNEL_MODE },
	{ "yielded", false, false, false, TASK_RUNNING,
	  ETW_KTHREAD_READY, ETW_KWAIT_WR_YIELD_EXECUTION, ETW_KERNEL_MODE },
	/* do_task_dead(): the last switch of an exiting thread (trace-cmd: X) */
	{ "exiting_task_dead", false, false, false, TASK_DEAD,
	  ETW_KTHREAD_TERMINATED, ETW_KWAIT_WR_TERMINATED, ETW_KERNEL_MODE },
	{ "zombie", false, false, false, EXIT_ZOMBIE,
	  ETW_KTHREAD_TERMINATED, ETW_KWAIT_WR_TERMINATED, ETW_KERNEL_MODE },
	{ "exit_dead", false, true, false, EXIT_DEAD,
	  ETW_KTHREAD_TERMINATED, ETW_KWAIT_WR_TERMINATED, ETW_KERNEL_MODE },
	{ "user_sleep", false, false, false, TASK_INTERRUPTIBLE,
	  ETW_KTHREAD_WAITING, ETW_KWAIT_USER_REQUEST, ETW_USER_MODE },
	{ "kthread_waits_for_work", false, true, false, TASK_INTERRUPTIBLE,
	  ETW_KTHREAD_WAITING, ETW_KWAIT_WR_QUEUE, ETW_KERNEL_MODE },
	{ "uninterruptible", false, false, false, TASK_UNINTERRUPTIBLE,
	  ETW_KTHREAD_WAITING, ETW_KWAIT_EXECUTIVE, ETW_KERNEL_MODE },
	{ "task_idle", false, true, false, TASK_IDLE,
	  ETW_KTHREAD_WAITING, ETW_KWAIT_EXECUTIVE, ETW_KERNEL_MODE },
	{ "killable", false, false, false, TASK_KILLABLE,
	  ETW_KTHREAD_WAITING, ETW_KWAIT_EXECUTIVE, ETW_KERNEL_MODE },
	/* wait_event_freezable(), a freezable kthread's sleep */
	{ "freezable_user_sleep", false, false, false, TASK_INTERRUPTIBLE | TASK_FREEZABLE,
	  ETW_KTHREAD_WAITING, ETW_KWAIT_USER_REQUEST, ETW_USER_MODE },
	{ "freezable_kthread_sleep", false, true, false, TASK_INTERRUPTIBLE | TASK_FREEZABLE,
	  ETW_KTHREAD_WAITING, ETW_KWAIT_WR_QUEUE, ETW_KERNEL_MODE },
	{ "freezable_killable", false, false, false, TASK_KILLABLE | TASK_FREEZABLE,
	  ETW_KTHREAD_WAITING, ETW_KWAIT_EXECUTIVE, ETW_KERNEL_MODE },
	{ "stopped", false, false, false, TASK_STOPPED,
	  ETW_KTHREAD_WAITING, ETW_KWAIT_SUSPENDED, ETW_KERNEL_MODE },
	{ "traced", false, false, false, TASK_TRACED,
	  ETW_KTHREAD_WAITING, ETW_KWAIT_SUSPENDED, ETW_KERNEL_MODE },
	{ "parked", false, true, false, TASK_PARKED,
	  ETW_KTHREAD_WAITING, ETW_KWAIT_SUSPENDED, ETW_KERNEL_MODE },
	{ "frozen", false, false, false, TASK_FROZEN | TASK_UNINTERRUPTIBLE,
	  ETW_KTHREAD_WAITING, ETW_KWAIT_SUSPENDED, ETW_KERNEL_MODE },
};

static void test_states(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct state_case *c = &cases[i];
		struct nt_switch_out out;

		test_begin("switch_out_%s", c->name);
		memset(&out, 0xAA, sizeof(out));
		ntkl_nt_state(c->idle, c->kthread, c->preempt, c->prev_state, &out);
		CHECK_EQ(out.state, c->state);
		CHECK_EQ(out.wait_reason, c->reason);
		CHECK_EQ(out.wait_mode, c->mode);
		test_end();
	}
}

/* docs/linux-to-nt.md: RT 1 -> 16, RT 99 -> 31; nice -20 -> 15, 0 -> 8, 19 -> 1 */
static void test_priorities(void)
{
	test_begin("priorities");
	CHECK_EQ(ntkl_nt_prio_of(MAX_RT_PRIO - 1 - 1), 16);	/* rt_priority 1 */
	CHECK_EQ(ntkl_nt_prio_of(MAX_RT_PRIO - 1 - 50), 23);	/* 16 + 49 * 15 / 98 */
	CHECK_EQ(ntkl_nt_prio_of(0), 31);			/* rt_priority 99 */
	CHECK_EQ(ntkl_nt_prio_of(MAX_RT_PRIO - 1), 16);	/* rt_priority 0: as 1 */
	CHECK_EQ(ntkl_nt_prio_of(DEFAULT_PRIO - 20), 15);	/* nice -20 */
	CHECK_EQ(ntkl_nt_prio_of(DEFAULT_PRIO), 8);		/* nice 0 */
	CHECK_EQ(ntkl_nt_prio_of(DEFAULT_PRIO + 10), 5);	/* 8 - 3.5: rounds up */
	CHECK_EQ(ntkl_nt_prio_of(DEFAULT_PRIO + 19), 1);	/* nice 19 */
	for (int prio = 0; prio < DEFAULT_PRIO + 20; prio++) {
		s8 p = ntkl_nt_prio_of(prio);

		if (p < 1 || p > 31 || (prio < MAX_RT_PRIO) != (p >= 16))
			test_fail("prio %d maps to %d", prio, p);
		if (prio && p > ntkl_nt_prio_of(prio - 1))
			test_fail("prio %d maps above prio %d", prio, prio - 1);
	}
	test_end();
}

int main(void)
{
	test_states();
	test_priorities();
	return test_exit();
}
