// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace's copy of the event and layout tables, expanded from their one
 * definition in uapi/ntkl_events.h (the module expands the same one).
 */
#include <stddef.h>

#include "etl_events.h"

/* one definition each, with external linkage, for every userspace file */
#define NTKL_TABLE_STORAGE
#include "uapi/ntkl_event_table.h"

const struct etw_event_desc *etl_event_find(uint16_t hook_id)
{
	enum etw_event_id id = etw_event_by_hook(hook_id);

	return id < ETW_EVENT_COUNT ? &etw_events[id] : NULL;
}

const struct etw_layout *etl_event_layout(uint16_t hook_id, uint8_t version)
{
	const struct etw_event_desc *ev = etl_event_find(hook_id);

	if (!ev || ev->layout == ETW_LAYOUT_NONE || !etw_event_layout_applies(ev, version))
		return NULL;
	return &etw_layouts[ev->layout];
}
