// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching the producers' probes to the kernel's tracepoints. Tracepoints
 * are looked up by name, which needs no kallsyms and works on every
 * supported kernel.
 */
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "ntkl.h"

struct probe {
	const char *name;
	void *func;
	struct tracepoint *tp;
};

static struct probe probes[] = {
	{ "sched_process_fork", ntkl_probe_fork },
	{ "sched_process_exec", ntkl_probe_exec },
	{ "sched_process_exit", ntkl_probe_exit },
	{ "sched_switch", ntkl_probe_sched_switch },
	{ "sched_waking", ntkl_probe_sched_waking },
	{ "cpu_idle", ntkl_probe_cpu_idle },
	{ "contention_begin", ntkl_probe_contention_begin },
	{ "contention_end", ntkl_probe_contention_end },
	{ "irq_handler_entry", ntkl_probe_irq_handler_entry },
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
