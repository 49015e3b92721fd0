/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The tables NTKL_EVENTS and NTKL_LAYOUTS (ntkl_events.h) expand into:
 * etw_events[] by event id, etw_layouts[] by layout id. Include this in
 * exactly one C file of a program (the module's format/events.c,
 * userspace's etl/etw_events.c); everything else includes ntkl_events.h.
 */
#ifndef _UAPI_NTKL_EVENT_TABLE_H
#define _UAPI_NTKL_EVENT_TABLE_H

#include "ntkl_events.h"

#define ETW_FIELD_(type, member, fname, kind) \
	{ (__u16)offsetof(type, member), (__u16)sizeof(((type *)0)->member), \
	  ETW_FIELD_##kind, fname },

#define ETW_FIELD_ARRAY_(layout, title, fixed, min, max, tail) \
	static const struct etw_field etw_fields_##layout[] = { \
		ETW_FIELDS_##layout(ETW_FIELD_) \
		{ 0, 0, ETW_FIELD_RESERVED, (const char *)0 } \
	};
NTKL_LAYOUTS(ETW_FIELD_ARRAY_)

#define ETW_LAYOUT_ENTRY_(layout, title_text, fixed_size, min_size, max_size, tail_kind) \
	[ETW_LAYOUT_##layout] = { \
		.name = #layout, \
		.title = title_text, \
		.fields = etw_fields_##layout, \
		.nr_fields = sizeof(etw_fields_##layout) / sizeof(struct etw_field) - 1, \
		.tail = ETW_TAIL_##tail_kind, \
		.fixed = fixed_size, \
		.min = min_size, \
		.max = max_size, \
	},
const struct etw_layout etw_layouts[ETW_LAYOUT_COUNT] = {
	NTKL_LAYOUTS(ETW_LAYOUT_ENTRY_)
};

#define ETW_EVENT_ENTRY_(ev, group, opcode, header, ver, vers, group_mask, lbl, lay) \
	[ETW_EVENT_##ev] = { \
		.id = #ev, \
		.label = lbl, \
		.hook_id = ETW_HOOK(ETW_GROUP_##group, opcode), \
		.header_type = ETW_HEADER_TYPE_##header, \
		.version = ver, \
		.versions = ETW_VERSIONS_##vers, \
		.mask = group_mask, \
		.layout = ETW_LAYOUT_##lay, \
	},
const struct etw_event_desc etw_events[ETW_EVENT_COUNT] = {
	NTKL_EVENTS(ETW_EVENT_ENTRY_)
};

#endif /* _UAPI_NTKL_EVENT_TABLE_H */
