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

/*
 * Publish the loggers that accept events, again whenever one's group masks
 * change, in the one order no producer decides (producers/producer.h):
 * every producer attaches what the new set needs, works out its state,
 * the set is published, and once no probe reads the old set every
 * producer detaches what the new one does not need. Called with the table
 * mutex held; once it returns no probe sees a logger left out of the new
 * set. Fails, with every logger and producer as before, if memory runs
 * out or a producer cannot attach: undo (if not NULL) first puts back
 * what the caller changed in a running logger (its group masks), so that
 * the producers detach what the set in use, as it was, does not need.
 * shrink (a STOP: a logger leaves, none joins or changes) cannot fail, as
 * nothing is attached for it and its set is allocated with __GFP_NOFAIL.
 */
int ntkl_probes_publish(struct ntkl_logger **loggers, unsigned int n, bool shrink,
			void (*undo)(void *ctx), void *ctx)
{
	struct ntkl_active_set *set = NULL, *old, *in_use;
	int ret;

	old = rcu_dereference_protected(ntkl_active, true);
	in_use = old ? old : none;
	if (n) {
		set = shrink || !ntkl_fault() ?
		      kzalloc(set_bytes(), GFP_KERNEL | (shrink ? __GFP_NOFAIL : 0)) : NULL;
		if (!set) {
			if (undo)
				undo(ctx);
			return -ENOMEM;
		}
		set->n = n;
		memcpy(set->loggers, loggers, n * sizeof(*loggers));
	} else {
		/* the table mutex: no other publish uses it; never published */
		memset(none, 0, set_bytes());
	}
	ret = ntkl_producers_attach(set ? set : none);
	if (ret) {
		WARN_ON_ONCE(shrink);
		kfree(set);
		if (undo)
			undo(ctx);
		/* what the producers before the one that failed attached goes */
		ntkl_producers_detach(in_use);
		return ret;
	}
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
