/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's view of the event tables (uapi/ntkl_event_table.h): static
 * in each file that reads them, so that a writer's
 * etw_events[ETW_EVENT_CSWITCH] folds to constants; the compiler drops
 * what a file does not read.
 */
#ifndef _NTKL_FORMAT_EVENTS_H
#define _NTKL_FORMAT_EVENTS_H

#include <linux/compiler.h>
#include <linux/stddef.h>

#define NTKL_TABLE_ATTR	__maybe_unused
#include "uapi/ntkl_event_table.h"

#include "ntkl.h"

/* Does lg take event id? The event's entry names the group mask that turns it on. */
static __always_inline bool ntkl_event_on(const struct ntkl_logger *lg, enum etw_event_id id)
{
	return perf_group_is_on(&lg->groups, etw_events[id].mask);
}

#endif /* _NTKL_FORMAT_EVENTS_H */
