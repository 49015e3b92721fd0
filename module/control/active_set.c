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
 * change. Called with the table mutex held; once it returns no probe sees
 * a logger left out of the new set. Fails, keeping the old set, if memory
 * runs out or a producer's publish hook fails (never for an empty set).
 */
int ntkl_probes_publish(struct ntkl_logger **loggers, unsigned int n)
{
	struct ntkl_active_set *set = NULL, *old;
	int ret;

	if (n) {
		set = kzalloc(set_bytes(), GFP_KERNEL);
		if (!set)
			return -ENOMEM;
		set->n = n;
		memcpy(set->loggers, loggers, n * sizeof(*loggers));
	} else {
		/* the table mutex: no other publish uses it */
		memset(none, 0, set_bytes());
	}
	ret = ntkl_producers_publish(set ? set : none);
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
	ntkl_producers_published(set ? set : none);
	return 0;
}
