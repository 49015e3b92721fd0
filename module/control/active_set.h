/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The set of running loggers, as probes see them (active_set.c): one
 * RCU-published array, worked out again whenever a logger starts, stops
 * or changes its group masks.
 */
#ifndef _NTKL_ACTIVE_SET_H
#define _NTKL_ACTIVE_SET_H

#include <linux/rcupdate.h>

#include "ntkl.h"

/*
 * The switch probe's usual sets, each with a path of its own in which the
 * clock type and the form are constants (cswitch.c): one CSwitch logger,
 * or CompCS loggers only, all on the default clock (QPC).
 */
enum ntkl_switch_shape {
	NTKL_SWITCH_ANY,		/* any other set (none included) */
	NTKL_SWITCH_ONE_CSWITCH,	/* one CSwitch logger, on QPC */
	NTKL_SWITCH_COMPACT,		/* CompCS loggers only, all on QPC */
};

/*
 * Which loggers take CSwitch events and which take CompCS batches instead,
 * the clocks (BIT(clock type)) each kind uses, and the set's shape: worked
 * out by the CSwitch producer's publish hook (producers/cswitch.c), not
 * per switch.
 */
struct ntkl_cswitch_view {
	enum ntkl_switch_shape shape;
	unsigned int n_cswitch, n_compact;
	struct ntkl_logger *cswitch[NTKL_MAX_LOGGERS];
	struct ntkl_logger *compact[NTKL_MAX_LOGGERS];
	u32 cswitch_clocks;
	u32 compact_clocks;
	bool waking;			/* a logger takes ReadyThread */
};

struct ntkl_active_set {
	unsigned int n;
	struct ntkl_logger *loggers[NTKL_MAX_LOGGERS];
	/* filled by the producers' publish hooks (producers/producer.h) */
	struct ntkl_cswitch_view cs;
	bool spinlock;			/* a logger takes spin lock records */
	u32 isr_clocks;			/* BIT(clock type) of ISR loggers */
	u32 dpc_clocks;			/* ... of DPC (and TimerDPC) loggers */
};

extern struct ntkl_active_set __rcu *ntkl_active;

static inline struct ntkl_active_set *ntkl_active_set(void)
{
	return rcu_dereference_sched(ntkl_active);
}

/* The running loggers, for a probe (which runs with preemption off). */
static inline unsigned int ntkl_active_loggers(struct ntkl_logger ***loggers)
{
	struct ntkl_active_set *set = rcu_dereference_sched(ntkl_active);

	if (!set)
		return 0;
	*loggers = set->loggers;
	return set->n;
}

int ntkl_probes_publish(struct ntkl_logger **loggers, unsigned int n);

#endif /* _NTKL_ACTIVE_SET_H */
