// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching the producers' probes to the kernel's tracepoints.
 *
 * Tracepoints are looked up by name (for_each_kernel_tracepoint()), which
 * needs neither kallsyms nor exported tracepoint symbols and works on
 * every supported kernel. Each probe is still type-checked against its
 * tracepoint's prototype: TP() puts the kernel's own typed
 * register_trace_<name>() around the probe in a sizeof, which compiles
 * the call (a probe of the wrong type is a build warning, so a failed
 * build) without making it.
 *
 * Each probe is attached on its own. A tracepoint the scheduler side
 * needs is required: without it the module does not load, and the log
 * names it. The others only feed details; without one, the module loads
 * and says once what is missing from its records.
 *
 * The probes of a group (TPG()) are attached only while a logger takes
 * their events, so that with their flags off these busy tracepoints stay
 * disabled: ntkl_probes_set(), from their producer's publish hooks.
 * A group's exits are listed
 * before its entries: attached in list order and detached in reverse, an
 * exit probe is there whenever an entry probe is (and cpu_idle's C-state
 * is there before the first switch out of idle needs it). A required
 * tracepoint of a group is looked for at load all the same.
 */
#include <linux/interrupt.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/irq.h>
#include <trace/events/lock.h>
#include <trace/events/power.h>
#include <trace/events/sched.h>
#include <trace/events/task.h>
#include <trace/events/timer.h>

#include "producers/producer.h"

struct probe {
	const char *name;
	void *func;
	const char *lost;	/* NULL: required; else what is missing without it */
	bool typed;		/* the compiler checked func against the prototype */
	enum ntkl_tp_group group;	/* NTKL_TP_ALWAYS, or attached on demand */
	struct tracepoint *tp;
	bool attached;
};

/* The probe of tracepoint NAME is ntkl_probe_NAME, in module/producers/. */
#define TP(tracepoint, without) { \
	.name = #tracepoint, \
	.func = ntkl_probe_##tracepoint, \
	.lost = (without), \
	.typed = sizeof(register_trace_##tracepoint(ntkl_probe_##tracepoint, NULL)) != 0, \
	.group = NTKL_TP_ALWAYS, \
}

/* The probe ntkl_PROBE of group GRP: attached by ntkl_probes_attach(GRP). */
#define TPG(tracepoint, probe, grp, without) { \
	.name = #tracepoint, \
	.func = ntkl_##probe, \
	.lost = (without), \
	.typed = sizeof(register_trace_##tracepoint(ntkl_##probe, NULL)) != 0, \
	.group = (grp), \
}

static struct probe probes[] = {
	TP(sched_process_fork, NULL),
	TP(sched_process_exec, NULL),
	TP(sched_process_exit, NULL),
	TP(task_rename, "no Process End for the image an exec replaces"),
	TPG(cpu_idle, probe_cpu_idle, NTKL_TP_SCHED, "CSwitch PreviousCState is 0"),
	TPG(sched_waking, probe_sched_waking, NTKL_TP_WAKING, NULL),
	TPG(sched_switch, probe_sched_switch, NTKL_TP_SCHED, NULL),
	TP(contention_begin, "no SpinLock records"),
	TP(contention_end, "no SpinLock records"),
	TP(irq_handler_entry, "SpinLock InterruptCount is 0"),
	TPG(irq_handler_exit, isr_exit, NTKL_TP_ISR, "no ISR records"),
	TPG(irq_handler_entry, isr_entry, NTKL_TP_ISR, "no ISR records"),
	TPG(softirq_exit, softirq_exit, NTKL_TP_DPC, "no DPC records of softirqs"),
	TPG(softirq_entry, softirq_entry, NTKL_TP_DPC, "no DPC records of softirqs"),
	TPG(tasklet_exit, tasklet_exit, NTKL_TP_DPC, "no DPC records of tasklets"),
	TPG(tasklet_entry, tasklet_entry, NTKL_TP_DPC, "no DPC records of tasklets"),
	TPG(timer_expire_exit, timer_exit, NTKL_TP_DPC, "no TimerDPC records of timers"),
	TPG(timer_expire_entry, timer_entry, NTKL_TP_DPC, "no TimerDPC records of timers"),
	TPG(hrtimer_expire_exit, hrtimer_exit, NTKL_TP_DPC,
	    "no TimerDPC records of hrtimers"),
	TPG(hrtimer_expire_entry, hrtimer_entry, NTKL_TP_DPC,
	    "no TimerDPC records of hrtimers"),
};

static void find_tracepoint(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(probes); i++)
		if (!strcmp(tp->name, probes[i].name))
			probes[i].tp = tp;
}

static int attach_probe(struct probe *p)
{
	int ret;

	if (!p->tp) {
		if (p->group != NTKL_TP_ALWAYS)
			return 0;	/* said once, at load */
		if (!p->lost) {
			pr_err("ntkl: tracepoint %s not found: this kernel cannot run ntkl\n",
			       p->name);
			return -ENOENT;
		}
		pr_warn("ntkl: tracepoint %s not found: %s\n", p->name, p->lost);
		return 0;
	}
	ret = tracepoint_probe_register(p->tp, p->func, NULL);
	if (ret) {
		pr_err("ntkl: cannot attach to tracepoint %s: %d\n", p->name, ret);
		return ret;
	}
	p->attached = true;
	return 0;
}

void ntkl_probes_unregister(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		if (!probes[i].attached)
			continue;
		tracepoint_probe_unregister(probes[i].tp, probes[i].func, NULL);
		probes[i].attached = false;
	}
	/* no probe runs, nor will, once this returns */
	tracepoint_synchronize_unregister();
}

/* Detach a group's probes, last first; none runs once this returns. */
void ntkl_probes_detach(enum ntkl_tp_group group)
{
	bool any = false;
	int i;

	for (i = ARRAY_SIZE(probes) - 1; i >= 0; i--) {
		if (probes[i].group != group || !probes[i].attached)
			continue;
		tracepoint_probe_unregister(probes[i].tp, probes[i].func, NULL);
		probes[i].attached = false;
		any = true;
	}
	if (any)
		tracepoint_synchronize_unregister();
}

/* Attach a group's probes in list order; on failure none stays attached. */
int ntkl_probes_attach(enum ntkl_tp_group group)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		if (probes[i].group != group || probes[i].attached)
			continue;
		ret = attach_probe(&probes[i]);
		if (ret) {
			ntkl_probes_detach(group);
			return ret;
		}
	}
	return 0;
}

/* Whether a group is attached (ntkl_probes_attach() attaches all it can, or none). */
bool ntkl_probes_attached(enum ntkl_tp_group group)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(probes); i++)
		if (probes[i].group == group && probes[i].attached)
			return true;
	return false;
}

/*
 * Attach (on) or detach a group's probes, for its producer's publish
 * hooks, which run under the table mutex. prepare, if not NULL, runs
 * just before a group not attached is, while none of its probes runs
 * (to empty what they keep between calls). On failure nothing of the
 * group stays attached.
 */
int ntkl_probes_set(enum ntkl_tp_group group, bool on,
		    void (*prepare)(enum ntkl_tp_group group))
{
	if (!on) {
		ntkl_probes_detach(group);	/* nothing to do if none is */
		return 0;
	}
	if (ntkl_probes_attached(group))
		return 0;
	if (prepare)
		prepare(group);
	return ntkl_probes_attach(group);
}

int ntkl_probes_register(void)
{
	unsigned int i;
	int ret;

	for_each_kernel_tracepoint(find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		if (probes[i].group != NTKL_TP_ALWAYS) {
			if (!probes[i].tp && !probes[i].lost) {
				pr_err("ntkl: tracepoint %s not found: this kernel cannot run ntkl\n",
				       probes[i].name);
				ret = -ENOENT;
				goto fail;
			}
			if (!probes[i].tp)
				pr_warn("ntkl: tracepoint %s not found: %s\n", probes[i].name,
					probes[i].lost);
			continue;
		}
		ret = attach_probe(&probes[i]);
		if (ret)
			goto fail;
	}
	return 0;
fail:
	ntkl_probes_unregister();
	return ret;
}
