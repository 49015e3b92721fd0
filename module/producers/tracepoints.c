// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching the producers' probes to the kernel's tracepoints: each
 * producer's table (producers/tracepoints.h says how one is written).
 */
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "control/fault.h"
#include "producers/producer.h"
#include "producers/tracepoints.h"

struct tp_tables {
	const struct ntkl_producer *const *producers;
	unsigned int n;
};

static void find_tracepoint(struct tracepoint *tp, void *priv)
{
	const struct tp_tables *t = priv;
	unsigned int i, j;

	for (i = 0; i < t->n; i++)
		for (j = 0; j < t->producers[i]->nr_tps; j++)
			if (!strcmp(tp->name, t->producers[i]->tps[j].name))
				t->producers[i]->tps[j].tp = tp;
}

static int attach_probe(struct ntkl_tp *p)
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
	ret = ntkl_fault() ? -ENOMEM : tracepoint_probe_register(p->tp, p->func, NULL);
	if (ret) {
		pr_err("ntkl: cannot attach to tracepoint %s: %d\n", p->name, ret);
		return ret;
	}
	p->attached = true;
	return 0;
}

static bool detach_probe(struct ntkl_tp *p)
{
	if (!p->attached)
		return false;
	tracepoint_probe_unregister(p->tp, p->func, NULL);
	p->attached = false;
	return true;
}

void ntkl_tp_unregister(const struct ntkl_producer *const *producers, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < producers[i]->nr_tps; j++)
			detach_probe(&producers[i]->tps[j]);
	/* no probe runs, nor will, once this returns */
	tracepoint_synchronize_unregister();
}

/* Detach a group's probes, last first; none runs once this returns. */
static void detach_group(const struct ntkl_producer *p, unsigned int group)
{
	bool any = false;
	int i;

	for (i = p->nr_tps - 1; i >= 0; i--)
		if (p->tps[i].group == group)
			any |= detach_probe(&p->tps[i]);
	if (any)
		tracepoint_synchronize_unregister();
}

/* Attach a group's probes in table order; on failure none stays attached. */
static int attach_group(const struct ntkl_producer *p, unsigned int group)
{
	unsigned int i;
	int ret;

	for (i = 0; i < p->nr_tps; i++) {
		if (p->tps[i].group != group || p->tps[i].attached)
			continue;
		ret = attach_probe(&p->tps[i]);
		if (ret) {
			detach_group(p, group);
			return ret;
		}
	}
	return 0;
}

/* Whether a group is attached (attach_group() attaches all it can, or none). */
bool ntkl_tp_attached(const struct ntkl_producer *p, unsigned int group)
{
	unsigned int i;

	for (i = 0; i < p->nr_tps; i++)
		if (p->tps[i].group == group && p->tps[i].attached)
			return true;
	return false;
}

int ntkl_tp_set(const struct ntkl_producer *p, unsigned int group, bool on,
		void (*prepare)(unsigned int group))
{
	if (!on) {
		detach_group(p, group);	/* nothing to do if none is */
		return 0;
	}
	if (ntkl_tp_attached(p, group))
		return 0;
	if (prepare)
		prepare(group);
	return attach_group(p, group);
}

/* At load: find every table's tracepoints, attach the NTKL_TP_ALWAYS probes. */
int ntkl_tp_register(const struct ntkl_producer *const *producers, unsigned int n)
{
	struct tp_tables t = { .producers = producers, .n = n };
	unsigned int i, j;
	int ret;

	for_each_kernel_tracepoint(find_tracepoint, &t);
	for (i = 0; i < n; i++) {
		for (j = 0; j < producers[i]->nr_tps; j++) {
			struct ntkl_tp *p = &producers[i]->tps[j];

			if (p->group != NTKL_TP_ALWAYS) {
				if (!p->tp && !p->lost) {
					pr_err("ntkl: tracepoint %s not found: this kernel cannot run ntkl\n",
					       p->name);
					ret = -ENOENT;
					goto fail;
				}
				if (!p->tp)
					pr_warn("ntkl: tracepoint %s not found: %s\n", p->name,
						p->lost);
				continue;
			}
			ret = attach_probe(p);
			if (ret)
				goto fail;
		}
	}
	return 0;
fail:
	ntkl_tp_unregister(producers, n);
	return ret;
}
