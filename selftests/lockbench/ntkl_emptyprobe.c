// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_emptyprobe: a probe that does nothing, attached to sched_switch while
 * the module is loaded, so that make bench can show the floor of any
 * recorder of context switches: what calling one probe per switch costs.
 * Not part of ntkl: the bench loads it in its test VM, nothing installs it.
 *
 * The tracepoint is found by name (for_each_kernel_tracepoint()), as ntkl
 * finds its own: not every kernel exports the tracepoint's symbols.
 */
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>

static struct tracepoint *sched_switch_tp;

/* The prototype of sched_switch since 5.18 (6.1 and 6.12 alike). */
static void empty_probe(void *data, bool preempt, struct task_struct *prev,
			struct task_struct *next, unsigned int prev_state)
{
}

static void find_tracepoint(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		sched_switch_tp = tp;
}

static int __init emptyprobe_init(void)
{
	/* compiled, never called: a probe of the wrong type fails the build */
	BUILD_BUG_ON(!sizeof(register_trace_sched_switch(empty_probe, NULL)));
	for_each_kernel_tracepoint(find_tracepoint, NULL);
	if (!sched_switch_tp) {
		pr_err("ntkl_emptyprobe: tracepoint sched_switch not found\n");
		return -ENOENT;
	}
	return tracepoint_probe_register(sched_switch_tp, empty_probe, NULL);
}

static void __exit emptyprobe_exit(void)
{
	tracepoint_probe_unregister(sched_switch_tp, empty_probe, NULL);
	/* the module's text goes away: no probe may still be running */
	tracepoint_synchronize_unregister();
}

module_init(emptyprobe_init);
module_exit(emptyprobe_exit);

MODULE_DESCRIPTION("ntkl make bench: an empty sched_switch probe, the floor of a recorder's cost");
MODULE_AUTHOR("ntkl developers");
MODULE_LICENSE("GPL");
