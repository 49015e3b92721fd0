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
 * includes priority inheritance). A table of ntkl_nt_prio_of() (ntstate.h)
 * keeps division out of probes.
 */
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/sched/prio.h>
#include <linux/sched/rt.h>

#include "ntkl.h"
#include "producers/ntsched.h"
#include "producers/producer.h"

s8 ntkl_nt_prio_table[MAX_PRIO];
u64 ntkl_ns_to_ticks_mult;
u32 ntkl_ns_to_quantum_mult;

static int sched_init(void)
{
	s8 *table = ntkl_nt_prio_table;
	int prio;

	for (prio = 0; prio < MAX_PRIO; prio++)
		table[prio] = ntkl_nt_prio_of(prio);
	ntkl_ns_to_ticks_mult = div64_u64(U64_MAX, TICK_NSEC) + 1;
	ntkl_ns_to_quantum_mult = div_u64((u64)ntkl_cpu_mhz() << 32, 1024000);
	return 0;
}

/* No event of its own: the tables the scheduler's producers read, at load. */
const struct ntkl_producer ntkl_ntsched_producer = {
	.name = "ntsched",
	.init = sched_init,
};

struct task_struct *ntkl_next_process(int *nr)
{
	struct task_struct *t = NULL;
	struct pid *pid;

	while (!t) {
		rcu_read_lock();
		pid = find_ge_pid(*nr, &init_pid_ns);
		if (!pid) {
			rcu_read_unlock();
			return NULL;
		}
		*nr = pid_nr(pid) + 1;
		t = pid_task(pid, PIDTYPE_TGID);
		if (t)
			get_task_struct(t);
		rcu_read_unlock();
	}
	return t;
}
