/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's view of the event tables (uapi/ntkl_event_table.h): static
 * in each file that reads them, so that a writer's
 * etw_events[ETW_EVENT_CSWITCH] folds to constants; the compiler drops
 * what a file does not read.
 */
#ifndef _NTKL_FORMAT_EVENTS_H
#define _NTKL_FORMAT_EVENTS_H

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/stddef.h>

#define NTKL_TABLE_ATTR	__maybe_unused
#include "uapi/ntkl_event_table.h"

#include "ntkl.h"

/*
 * The list's payload types, checked at build time: each layout's struct
 * holds its fixed bytes (and its sizes allowed are in order), each
 * field's member is as wide as its NTKL_FIELD line says.
 */
#define NTKL_EVENT(...)
#define NTKL_LAYOUT(lay, type, title, fixed, min, max, tail) \
	[ETW_FIELDPOS_##lay] = BUILD_BUG_ON_ZERO((fixed) > sizeof(struct type) || (min) > (max)),
#define NTKL_FIELD(lay, type, member, width, name, kind) \
	[ETW_FIELDPOS_##lay##_##member] = BUILD_BUG_ON_ZERO(sizeof_field(type, member) != (width)),
static const u8 ntkl_event_list_checks[ETW_FIELDPOS_END] __maybe_unused = {
#include "uapi/ntkl_event_list.h"
};

#undef NTKL_EVENT
#undef NTKL_LAYOUT
#undef NTKL_FIELD

/* Does lg take event id? The event's entry names the group mask that turns it on. */
static __always_inline bool ntkl_event_on(const struct ntkl_logger *lg, enum etw_event_id id)
{
	return perf_group_is_on(&lg->groups, etw_events[id].mask);
}

#endif /* _NTKL_FORMAT_EVENTS_H */
