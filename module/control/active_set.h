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
#include "format/events.h"

/*
 * A logger as a set has it: the group masks and stack walks the set was
 * made for. A producer's attach and detach hooks read these, never the
 * logger's own, which the probes read: a call changes those only once
 * every producer attached what the new set needs, so a call that fails
 * has changed nothing a probe reads, not even for a moment.
 */
struct ntkl_set_view {
	struct perfinfo_groupmask groups;
	u32 stack_walks;
};

struct ntkl_active_set {
	unsigned int n;
	struct ntkl_logger *loggers[NTKL_MAX_LOGGERS];
	struct ntkl_set_view view[NTKL_MAX_LOGGERS];
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

/* Does the set's i-th logger take event id (attach and detach hooks)? */
static inline bool ntkl_set_event_on(const struct ntkl_active_set *set, unsigned int i,
				     enum etw_event_id id)
{
	return perf_group_is_on(&set->view[i].groups, etw_events[id].mask);
}

/* Does the set's i-th logger walk any stack (attach and detach hooks)? */
static inline u32 ntkl_set_stack_walks(const struct ntkl_active_set *set, unsigned int i)
{
	return set->view[i].stack_walks;
}

/* What a call changes in a running logger: applied once the set is ready. */
struct ntkl_logger_change {
	struct ntkl_logger *lg;
	struct ntkl_set_view to;
};

int ntkl_active_init(void);
void ntkl_active_exit(void);
int ntkl_probes_publish(struct ntkl_logger **loggers, unsigned int n, bool shrink,
			const struct ntkl_logger_change *change);

#endif /* _NTKL_ACTIVE_SET_H */
