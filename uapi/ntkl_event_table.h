/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The tables the event list (ntkl_event_list.h) expands into: etw_events[]
 * by event id (in hook order), etw_layouts[] by layout id, and
 * etw_field_list[], every layout's row followed by its fields, and
 * ntkl_stackwalks[], the events whose stacks ntkl walks, by NTKL_WALK_*.
 *
 * The includer chooses their storage: NTKL_TABLE_STORAGE (default static,
 * so that a writer reading etw_events[ETW_EVENT_CSWITCH] folds to
 * constants) and NTKL_TABLE_ATTR (the kernel gives __maybe_unused: not
 * every file reads every table).
 */
#ifndef _UAPI_NTKL_EVENT_TABLE_H
#define _UAPI_NTKL_EVENT_TABLE_H

#include "ntkl_events.h"

#ifndef NTKL_TABLE_STORAGE
#define NTKL_TABLE_STORAGE	static
#endif
#ifndef NTKL_TABLE_ATTR
#define NTKL_TABLE_ATTR
#endif

#define NTKL_EVENT(ev, hdr, ver, vers, group_mask, lbl, lay) \
	[ETW_EVENT_##ev] = { \
		.id = #ev, \
		.label = lbl, \
		.hook_id = ETW_EVENT_##ev##_HOOK, \
		.header_type = ETW_HEADER_TYPE_##hdr, \
		.version = ver, \
		.versions = ETW_VERSIONS_##vers, \
		.layout = ETW_LAYOUT_##lay, \
		.mask = group_mask, \
	},
#define NTKL_LAYOUT(...)
#define NTKL_FIELD(...)
NTKL_TABLE_STORAGE const struct etw_event_desc etw_events[ETW_EVENT_COUNT] NTKL_TABLE_ATTR = {
#include "ntkl_event_list.h"
};

#undef NTKL_EVENT
#undef NTKL_LAYOUT
#undef NTKL_FIELD

#define NTKL_EVENT(...)
#define NTKL_LAYOUT(lay, type, title_text, fixed_size, min_size, max_size, tail_kind) \
	[ETW_FIELDPOS_##lay] = { .kind = ETW_FIELD_LAYOUT, .name = #lay },
#define NTKL_FIELD(lay, type, member, width, fname, fkind) \
	[ETW_FIELDPOS_##lay##_##member] = { \
		.offset = offsetof(type, member), \
		.size = width, \
		.kind = ETW_FIELD_##fkind, \
		.name = fname, \
	},
NTKL_TABLE_STORAGE const struct etw_field etw_field_list[ETW_FIELDPOS_END + 1] NTKL_TABLE_ATTR = {
#include "ntkl_event_list.h"
	[ETW_FIELDPOS_END] = { .kind = ETW_FIELD_LAYOUT, .name = "" },
};

#undef NTKL_EVENT
#undef NTKL_LAYOUT
#undef NTKL_FIELD

#define NTKL_EVENT(...)
#define NTKL_LAYOUT(lay, type, title_text, fixed_size, min_size, max_size, tail_kind) \
	[ETW_LAYOUT_##lay] = { \
		.name = #lay, \
		.title = title_text, \
		.fields = &etw_field_list[ETW_FIELDPOS_##lay + 1], \
		.tail = ETW_TAIL_##tail_kind, \
		.fixed = fixed_size, \
		.min = min_size, \
		.max = max_size, \
	},
#define NTKL_FIELD(...)
NTKL_TABLE_STORAGE const struct etw_layout etw_layouts[ETW_LAYOUT_COUNT] NTKL_TABLE_ATTR = {
#include "ntkl_event_list.h"
};

#undef NTKL_EVENT
#undef NTKL_LAYOUT
#undef NTKL_FIELD

#define NTKL_EVENT(...)
#define NTKL_LAYOUT(...)
#define NTKL_FIELD(...)
#define NTKL_STACKWALK(ev, walk_name) \
	[NTKL_WALK_##ev] = { .name = walk_name, .event = ETW_EVENT_##ev },
NTKL_TABLE_STORAGE const struct ntkl_stackwalk_desc ntkl_stackwalks[NTKL_WALK_COUNT]
	NTKL_TABLE_ATTR = {
#include "ntkl_event_list.h"
};

#undef NTKL_EVENT
#undef NTKL_LAYOUT
#undef NTKL_FIELD
#undef NTKL_STACKWALK

/* The event of a hook id (a search of etw_events[]), or ETW_EVENT_COUNT. */
static inline enum etw_event_id etw_event_by_hook(__u16 hook_id)
{
	unsigned int lo = 0, hi = ETW_EVENT_COUNT;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (etw_events[mid].hook_id == hook_id)
			return (enum etw_event_id)mid;
		if (etw_events[mid].hook_id < hook_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return ETW_EVENT_COUNT;
}

/* The walked event of a hook id, NTKL_WALK_COUNT if ntkl walks none. */
static inline enum ntkl_walk ntkl_walk_by_hook(__u16 hook_id)
{
	unsigned int i;

	for (i = 0; i < NTKL_WALK_COUNT; i++)
		if (etw_events[ntkl_stackwalks[i].event].hook_id == hook_id)
			return (enum ntkl_walk)i;
	return NTKL_WALK_COUNT;
}

#endif /* _UAPI_NTKL_EVENT_TABLE_H */
