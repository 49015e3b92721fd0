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

struct ntkl_active_set {
	unsigned int n;
	struct ntkl_logger *loggers[NTKL_MAX_LOGGERS];
	/*
	 * then each producer's state for this set, worked out by its publish
	 * hook (producers/producer.h: set_size, ntkl_set_state())
	 */
	u64 state[];
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

int ntkl_active_init(void);
void ntkl_active_exit(void);
int ntkl_probes_publish(struct ntkl_logger **loggers, unsigned int n, bool shrink,
			void (*undo)(void *ctx), void *ctx);

#endif /* _NTKL_ACTIVE_SET_H */
