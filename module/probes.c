// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoint probes and the set of running loggers they write to.
 *
 * Probes find the loggers through one RCU-published array, so an event
 * costs one pointer load when nothing runs and a mask test per running
 * logger otherwise. Tracepoints are looked up by name, which needs no
 * kallsyms and works on every supported kernel.
 */
#include <linux/binfmts.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "ntkl.h"

struct ntkl_active_set __rcu *ntkl_active;

/*
 * Publish the loggers that accept events, again whenever one's group masks
 * change. Called with the table mutex held; once it returns no probe sees
 * a logger left out of the new set.
 */
int ntkl_probes_publish(struct ntkl_logger **loggers, unsigned int n)
{
	struct ntkl_active_set *set = NULL, *old;
	unsigned int i;

	if (n) {
		set = kzalloc(sizeof(*set), GFP_KERNEL);
		if (!set)
			return -ENOMEM;
		set->n = n;
		memcpy(set->loggers, loggers, n * sizeof(*loggers));
		for (i = 0; i < n; i++) {
			if (perf_group_is_on(&loggers[i]->groups, PERF_SPINLOCK))
				set->spinlock = true;
			if (ntkl_wants_cswitch(loggers[i])) {
				set->cswitch[set->n_cswitch++] = loggers[i];
				set->cswitch_clocks |= BIT(loggers[i]->clock_type);
			} else if (ntkl_wants_compact(loggers[i])) {
				set->compact[set->n_compact++] = loggers[i];
				set->compact_clocks |= BIT(loggers[i]->clock_type);
			}
		}
	}
	/* a batch of compact switches goes to the loggers it was made for */
	ntkl_cswitch_flush();
	old = rcu_replace_pointer(ntkl_active, set, true);
	/* tracepoint probes run with preemption off: this waits for them */
	synchronize_rcu();
	kfree(old);
	return 0;
}

static void read_comm(char *comm, struct task_struct *t)
{
	memcpy(comm, t->comm, TASK_COMM_LEN);
	comm[TASK_COMM_LEN - 1] = 0;
}

static void probe_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	struct ntkl_logger **loggers, *lg;
	unsigned int i, n = ntkl_active_loggers(&loggers);
	char comm[TASK_COMM_LEN];

	read_comm(comm, child);
	for (i = 0; i < n; i++) {
		lg = loggers[i];
		if (thread_group_leader(child) && perf_group_is_on(&lg->groups, PERF_PROCESS))
			ntkl_write_process(lg, ETW_HOOK_PROCESS_START, child, comm);
		if (perf_group_is_on(&lg->groups, PERF_THREAD))
			ntkl_write_thread(lg, ETW_HOOK_THREAD_START, child);
	}
}

/*
 * NT has no exec: the old image's process ends and a new one starts with
 * the same id, so tools show the new program's name from here on.
 */
static void probe_exec(void *data, struct task_struct *p, pid_t old_pid,
		       struct linux_binprm *bprm)
{
	struct ntkl_logger **loggers, *lg;
	unsigned int i, n = ntkl_active_loggers(&loggers);
	char comm[TASK_COMM_LEN];

	read_comm(comm, p);
	for (i = 0; i < n; i++) {
		bool proc, thread;

		lg = loggers[i];
		proc = perf_group_is_on(&lg->groups, PERF_PROCESS);
		thread = perf_group_is_on(&lg->groups, PERF_THREAD);
		if (thread)
			ntkl_write_thread(lg, ETW_HOOK_THREAD_END, p);
		if (proc) {
			ntkl_write_process(lg, ETW_HOOK_PROCESS_END, p, comm);
			ntkl_write_process(lg, ETW_HOOK_PROCESS_START, p, comm);
		}
		if (thread)
			ntkl_write_thread(lg, ETW_HOOK_THREAD_START, p);
	}
}

static void probe_exit(void *data, struct task_struct *p)
{
	/* do_exit() has already counted this thread out of signal->live */
	bool group_dead = !atomic_read(&p->signal->live);
	struct ntkl_logger **loggers, *lg;
	unsigned int i, n = ntkl_active_loggers(&loggers);
	char comm[TASK_COMM_LEN];

	read_comm(comm, p);
	for (i = 0; i < n; i++) {
		lg = loggers[i];
		if (perf_group_is_on(&lg->groups, PERF_THREAD))
			ntkl_write_thread(lg, ETW_HOOK_THREAD_END, p);
		if (group_dead && perf_group_is_on(&lg->groups, PERF_PROCESS))
			ntkl_write_process(lg, ETW_HOOK_PROCESS_END, p, comm);
	}
}

struct probe {
	const char *name;
	void *func;
	struct tracepoint *tp;
};

static struct probe probes[] = {
	{ "sched_process_fork", probe_fork },
	{ "sched_process_exec", probe_exec },
	{ "sched_process_exit", probe_exit },
	{ "sched_switch", ntkl_probe_sched_switch },
	{ "sched_waking", ntkl_probe_sched_waking },
	{ "cpu_idle", ntkl_probe_cpu_idle },
	{ "contention_begin", ntkl_probe_contention_begin },
	{ "contention_end", ntkl_probe_contention_end },
	{ "irq_handler_entry", ntkl_probe_irq_handler_entry },
	{ "softirq_entry", ntkl_probe_softirq_entry },
};

static void find_tracepoint(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(probes); i++)
		if (!strcmp(tp->name, probes[i].name))
			probes[i].tp = tp;
}

int ntkl_probes_register(void)
{
	unsigned int i;
	int ret;

	for_each_kernel_tracepoint(find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		if (!probes[i].tp) {
			pr_err("ntkl: tracepoint %s not found\n", probes[i].name);
			ret = -ENOENT;
			goto undo;
		}
		ret = tracepoint_probe_register(probes[i].tp, probes[i].func, NULL);
		if (ret) {
			pr_err("ntkl: cannot attach to %s: %d\n", probes[i].name, ret);
			goto undo;
		}
	}
	return 0;

undo:
	while (i--)
		tracepoint_probe_unregister(probes[i].tp, probes[i].func, NULL);
	tracepoint_synchronize_unregister();
	return ret;
}

void ntkl_probes_unregister(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(probes); i++)
		tracepoint_probe_unregister(probes[i].tp, probes[i].func, NULL);
	/* no probe runs, nor will, once this returns */
	tracepoint_synchronize_unregister();
}
