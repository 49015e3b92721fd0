/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lookups in the event table (uapi/ntkl_events.h): the one definition of
 * every kernel event's hook, header, version, name and payload layout that
 * the names, the checker and the decoder are driven by.
 */
#ifndef NTKL_ETL_EVENTS_H
#define NTKL_ETL_EVENTS_H

#include <stdint.h>

#include "uapi/ntkl_events.h"

/* The tables, expanded once from the list (etl_events.c). */
extern const struct etw_event_desc etw_events[ETW_EVENT_COUNT];
extern const struct etw_layout etw_layouts[ETW_LAYOUT_COUNT];
extern const struct etw_field etw_field_list[ETW_FIELDPOS_END + 1];
extern const struct ntkl_stackwalk_desc ntkl_stackwalks[NTKL_WALK_COUNT];

/* The event of a hook id; NULL if the table lacks it. */
const struct etw_event_desc *etl_event_find(uint16_t hook_id);

/*
 * The payload layout of a kernel record of this hook and version; NULL if
 * the table has none for it (an unknown hook, a version the layout does
 * not describe, or an event whose payload ntkl does not know).
 */
const struct etw_layout *etl_event_layout(uint16_t hook_id, uint8_t version);

#endif /* NTKL_ETL_EVENTS_H */
