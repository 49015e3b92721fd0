// SPDX-License-Identifier: GPL-2.0
/*
 * The set of running loggers that probes write to.
 *
 * Probes find the loggers through one RCU-published array, so an event
 * costs a mask test per running logger (and nothing when nothing runs:
 * the busy probes are attached only while a logger takes their events).
 */
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "control/active_set.h"
#include "producers/producer.h"

struct ntkl_active_set __rcu *ntkl_active;

/*
 * Publish the loggers that accept events, again whenever one's group masks
 * change. Called with the table mutex held; once it returns no probe sees
 * a logger left out of the new set. Fails, keeping the old set, if memory
 * runs out or a producer's publish hook fails (never for an empty set).
 */
int ntkl_probes_publish(struct ntkl_logger **loggers, unsigned int n)
{
	/* no logger: the hooks still see it (and release what they hold) */
	static struct ntkl_active_set none;
	struct ntkl_active_set *set = NULL, *old;
	int ret;

	if (n) {
		set = kzalloc(sizeof(*set), GFP_KERNEL);
		if (!set)
			return -ENOMEM;
		set->n = n;
		memcpy(set->loggers, loggers, n * sizeof(*loggers));
	}
	ret = ntkl_producers_publish(set ? set : &none);
	if (ret) {
		kfree(set);
		return ret;
	}
	/* what producers hold back goes to the loggers it was made for */
	ntkl_producers_flush();
	old = rcu_replace_pointer(ntkl_active, set, true);
	/* tracepoint probes run with preemption off: this waits for them */
	synchronize_rcu();
	kfree(old);
	ntkl_producers_published(set ? set : &none);
	return 0;
}
