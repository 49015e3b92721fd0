// SPDX-License-Identifier: GPL-2.0
/*
 * The unwind tables' producer: no event of its own. It turns the user
 * stack walk by unwind tables (module/unwind/) on while a running logger
 * walks stacks without NTKL_LOGGER_OPT_FRAME_POINTERS, and off (freeing
 * every table) when none does.
 */
#include "producers/producer.h"
#include "unwind/unwind.h"

/* Does a logger of set walk stacks by tables? */
static bool set_unwinds(const struct ntkl_active_set *set)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		if (ntkl_set_stack_walks(set, i) &&
		    !(set->loggers[i]->options & NTKL_LOGGER_OPT_FRAME_POINTERS))
			return true;
	return false;
}

/* On before the set is seen, so that its first stacks are walked by tables. */
static int unwind_attach(const struct ntkl_active_set *set)
{
	if (set_unwinds(set))
		ntkl_unwind_maps_enable(true);
	return 0;
}

/* Off once no probe reads a set that walks by tables. */
static void unwind_detach(const struct ntkl_active_set *set)
{
	if (!set_unwinds(set))
		ntkl_unwind_maps_enable(false);
}

const struct ntkl_producer ntkl_unwind_producer = {
	.name = "unwind",
	.init = ntkl_unwind_maps_init,
	.exit = ntkl_unwind_maps_exit,
	.attach = unwind_attach,
	.detach = unwind_detach,
};
