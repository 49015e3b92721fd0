// SPDX-License-Identifier: GPL-2.0
/*
 * The set of running loggers that probes write to.
 *
 * Probes find the loggers through one RCU-published array, so an event
 * costs a mask test per running logger. When nothing runs, most probes
 * cost nothing, being attached only while a logger takes their events;
 * those attached from load (NTKL_TP_ALWAYS: the spin lock producer's
 * contention and irq_handler_entry probes, the process producer's) cost
 * their call and a test, or a per-CPU count.
 */
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "control/active_set.h"
#include "control/fault.h"
#include "producers/producer.h"

struct ntkl_active_set __rcu *ntkl_active;

/* The set of no logger: the hooks still see it (and release what they hold). */
static struct ntkl_active_set *none;

/* The bytes of a set: its loggers and every producer's state. */
static size_t set_bytes(void)
{
	return sizeof(struct ntkl_active_set) + ntkl_producers_set_size();
}

/* At load, after the producers: the empty set, so that STOP never fails. */
int ntkl_active_init(void)
{
	none = kzalloc(set_bytes(), GFP_KERNEL);
	return none ? 0 : -ENOMEM;
}

void ntkl_active_exit(void)
{
	kfree(none);
	none = NULL;
}

/* A logger as it is now, for a set it stays the same in. */
static struct ntkl_set_view view_of(const struct ntkl_logger *lg)
{
	struct ntkl_set_view v = { .groups = lg->groups, .stack_walks = lg->stack_walks };

	return v;
}

/*
 * The change, to the logger the probes read: each mask word and the walks
 * are read without a lock, one at a time, as they are written. A probe may
 * meet the new masks under the old set for the moment until the new set
 * is seen: every producer attached for them already, and a probe finds
 * its loggers through the set, so it writes at most what the new set has
 * it write.
 */
static void apply_change(const struct ntkl_logger_change *change)
{
	struct ntkl_logger *lg = change->lg;
	unsigned int i;

	for (i = 0; i < PERF_NUM_MASKS; i++)
		WRITE_ONCE(lg->groups.masks[i], change->to.groups.masks[i]);
	WRITE_ONCE(lg->stack_walks, change->to.stack_walks);
}

/*
 * Publish the loggers that accept events, again whenever one's group masks
 * change, in the one order no producer decides (producers/producer.h):
 * every producer attaches what the new set needs, works out its state,
 * the set is published, and once no probe reads the old set every
 * producer detaches what the new one does not need. Called with the table
 * mutex held; once it returns no probe sees a logger left out of the new
 * set. Fails, with every logger and producer as before, if memory runs
 * out or a producer cannot attach: the producers then detach what the
 * set in use does not need. A change to a running logger (change: its
 * group masks, its stack walks, as UPDATE and SET_STACK_TRACING ask) is
 * in the new set's view of it, which the producers attach for, and
 * reaches the logger itself, which the probes read, only once they all
 * did: until then probes record what they recorded before. shrink (a
 * STOP: a logger leaves, none joins or changes) cannot fail, as nothing
 * is attached for it and its set is allocated with __GFP_NOFAIL.
 */
int ntkl_probes_publish(struct ntkl_logger **loggers, unsigned int n, bool shrink,
			const struct ntkl_logger_change *change)
{
	struct ntkl_active_set *set = NULL, *old, *in_use;
	unsigned int i;
	int ret;

	old = rcu_dereference_protected(ntkl_active, true);
	in_use = old ? old : none;
	if (n) {
		set = shrink || !ntkl_fault() ?
		      kzalloc(set_bytes(), GFP_KERNEL | (shrink ? __GFP_NOFAIL : 0)) : NULL;
		if (!set)
			return -ENOMEM;
		set->n = n;
		memcpy(set->loggers, loggers, n * sizeof(*loggers));
		for (i = 0; i < n; i++)
			set->view[i] = change && loggers[i] == change->lg ? change->to :
				       view_of(loggers[i]);
	} else {
		/* the table mutex: no other publish uses it; never published */
		memset(none, 0, set_bytes());
	}
	ret = ntkl_producers_attach(set ? set : none);
	if (ret) {
		WARN_ON_ONCE(shrink);
		kfree(set);
		/* what the producers before the one that failed attached goes */
		ntkl_producers_detach(in_use);
		return ret;
	}
	if (change)
		apply_change(change);
	ntkl_producers_publish(set ? set : none);
	/* what producers hold back goes to the loggers it was made for */
	ntkl_producers_flush();
	rcu_assign_pointer(ntkl_active, set);
	/* tracepoint probes run with preemption off: this waits for them */
	synchronize_rcu();
	kfree(old);
	ntkl_producers_detach(set ? set : none);
	return 0;
}
