/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The event list (ntkl_event_list.h) as C: the hook ids ETW_EVENT_<id>_HOOK,
 * the ids of events (enum etw_event_id) and payload layouts (enum
 * etw_layout_id), and the types of the tables that ntkl_event_table.h
 * fills from the same list. The model is the kernel's TRACE_EVENT() and
 * <asm-generic/unistd.h>: one definition, expanded pass by pass.
 */
#ifndef _UAPI_NTKL_EVENTS_H
#define _UAPI_NTKL_EVENTS_H

#include "ntkl_etw.h"

#define ETW_HEADER_TYPE_ANY	0	/* events ntkl reads but never writes */

#define ETW_VERSIONS_EXACT	0	/* the layout holds for one version */
#define ETW_VERSIONS_ANY	1	/* for every version */

/* What follows a layout's fixed fields; each is decoded by hand. */
enum etw_tail {
	ETW_TAIL_NONE,
	ETW_TAIL_LOGFILE_NAMES,		/* LoggerName, LogFileName (UTF-16) */
	ETW_TAIL_GROUP_NAMES,		/* none: prints the groups the masks turn on */
	ETW_TAIL_THREAD_NAME,		/* ThreadName (UTF-16) */
	ETW_TAIL_PROCESS,		/* TOKEN_USER, image name, 3 UTF-16 strings */
	ETW_TAIL_CCSWAP_PACKETS,	/* TidTable and the compact packets */
	ETW_TAIL_FILE_NAME,		/* FileName (UTF-16) */
	ETW_TAIL_SOURCE_NAME,		/* SourceName (UTF-16) */
	ETW_TAIL_STACK_FRAMES,		/* 8-byte addresses: kernel ones hashed */
	ETW_TAIL_AFFINITIES,		/* a KAFFINITY per processor group */
	ETW_TAIL_GROUP_AFFINITIES,	/* a GROUP_AFFINITY per NUMA node */
	ETW_TAIL_NIC_STRINGS,		/* NICDescription, IpAddresses, DnsServerAddresses */
	ETW_TAIL_DEVICE_DESCRIPTION,	/* DeviceDescription (UTF-16) */
	ETW_TAIL_PROVIDER_BINARY,	/* GuidCount GUIDs, BinaryPath (UTF-16) */
	ETW_TAIL_TIMESTAMPS,		/* the first u32's count of 8-byte times */
	ETW_TAIL_PDB_NAME,		/* PdbFileName (8-bit, NUL) */
	ETW_TAIL_PROCESS_MEMINFO,	/* Count entries: ProcessID, eight page counts */
};

/* The payload type of the layouts without fixed fields (NONE, EMPTY). */
struct etw_bytes {
	__u8 data[1];
};

/* How a field is printed, and what the module does with it. */
enum etw_field_kind {
	ETW_FIELD_UINT,			/* decimal */
	ETW_FIELD_INT,			/* signed decimal */
	ETW_FIELD_HEX,
	ETW_FIELD_KADDR,		/* a kernel address: hex; hashed for most readers */
	ETW_FIELD_ADDR,			/* user or kernel address: hex; a kernel one hashed */
	ETW_FIELD_WAIT_REASON,		/* KWAIT_REASON, with its name */
	ETW_FIELD_THREAD_STATE,		/* KTHREAD_STATE, with its name */
	ETW_FIELD_ADJUST_REASON,	/* ReadyThread AdjustReason, with its name */
	ETW_FIELD_READY_FLAGS,		/* ReadyThread Flag bits, by name */
	ETW_FIELD_SPINLOCK_FLAGS,	/* AcquireMode:6 ExecuteDpc:1 ExecuteIsr:1 */
	ETW_FIELD_PROFILE_FLAGS,	/* ExecutingDPC:1 ExecutingISR:1 :1 Priority:5 */
	ETW_FIELD_LOGFILE_MODE,		/* EVENT_TRACE_* mode bits, by name */
	ETW_FIELD_GROUP_MASKS,		/* PERFINFO_GROUPMASK, 8 words */
	ETW_FIELD_WSTR_ARRAY,		/* UTF-16 in a fixed array */
	ETW_FIELD_GUID,			/* 16 bytes, Windows byte order: {...} */
	ETW_FIELD_IPV4,			/* 4 bytes, network order: a.b.c.d */
	ETW_FIELD_IPV6,			/* 16 bytes, network order: RFC 5952 */
	ETW_FIELD_PORT,			/* 2 bytes, network order: decimal */
	ETW_FIELD_RESERVED,		/* part of the layout, not printed */
	ETW_FIELD_LAYOUT,		/* not a field: a layout's first row (table only) */
};

/* Pass: event ids, in list (hook) order; the list defines the hooks. */
#define NTKL_EVENT(id, ...)	ETW_EVENT_##id,
#define NTKL_LAYOUT(...)
#define NTKL_FIELD(...)
enum etw_event_id {
#include "ntkl_event_list.h"
	ETW_EVENT_COUNT
};

#undef NTKL_EVENT
#undef NTKL_LAYOUT
#undef NTKL_FIELD

/* Pass: layout ids. */
#define NTKL_EVENT(...)
#define NTKL_LAYOUT(layout, ...)	ETW_LAYOUT_##layout,
#define NTKL_FIELD(...)
enum etw_layout_id {
#include "ntkl_event_list.h"
	ETW_LAYOUT_COUNT
};

#undef NTKL_EVENT
#undef NTKL_LAYOUT
#undef NTKL_FIELD

/*
 * Pass: where each layout's rows start in the field table: a layout row,
 * then its fields (each named by its member), then the next layout's row.
 */
#define NTKL_EVENT(...)
#define NTKL_LAYOUT(layout, ...)		ETW_FIELDPOS_##layout,
#define NTKL_FIELD(layout, type, member, ...)	ETW_FIELDPOS_##layout##_##member,
enum etw_field_position {
#include "ntkl_event_list.h"
	ETW_FIELDPOS_END
};

#undef NTKL_EVENT
#undef NTKL_LAYOUT
#undef NTKL_FIELD

/*
 * Pass: the events whose stacks ntkl walks, by their place in the list's
 * NTKL_STACKWALK lines: a logger's walked events are a set of
 * BIT(NTKL_WALK_<id>).
 */
#define NTKL_EVENT(...)
#define NTKL_LAYOUT(...)
#define NTKL_FIELD(...)
#define NTKL_STACKWALK(id, ...)	NTKL_WALK_##id,
enum ntkl_walk {
#include "ntkl_event_list.h"
	NTKL_WALK_COUNT
};

#undef NTKL_EVENT
#undef NTKL_LAYOUT
#undef NTKL_FIELD
#undef NTKL_STACKWALK

/* One fixed field of a layout, or (kind LAYOUT) the row that starts one. */
struct etw_field {
	__u16 offset;
	__u16 size;
	__u8 kind;			/* enum etw_field_kind */
	const char *name;
};

struct etw_layout {
	const char *name;		/* "CSWITCH" */
	const char *title;		/* "CSwitch" */
	const struct etw_field *fields;	/* ends at the next row of kind LAYOUT */
	__u8 tail;			/* enum etw_tail */
	__u32 fixed;			/* bytes of fixed fields */
	__u32 min, max;			/* payload sizes allowed */
};

struct etw_event_desc {
	const char *id;			/* "CSWITCH" */
	const char *label;		/* "CSwitch" */
	__u16 hook_id;
	__u8 header_type;		/* ETW_HEADER_TYPE_*, ANY if never written */
	__u8 version;
	__u8 versions;			/* ETW_VERSIONS_* */
	__u8 layout;			/* enum etw_layout_id */
	__u32 mask;			/* PERF_* group mask, 0 if none */
};

/* An event whose stack ntkl walks (ntkl_stackwalks[]). */
struct ntkl_stackwalk_desc {
	const char *name;		/* "CSwitch", as xperf -stackwalk */
	__u8 event;			/* enum etw_event_id */
};

/* A layout's fields: for (f = l->fields; etw_field_in_layout(f); f++) */
static inline int etw_field_in_layout(const struct etw_field *f)
{
	return f->kind != ETW_FIELD_LAYOUT;
}

/* Does ev's layout describe a record of this version? */
static inline int etw_event_layout_applies(const struct etw_event_desc *ev, __u8 version)
{
	return ev->versions == ETW_VERSIONS_ANY || ev->version == version;
}

#endif /* _UAPI_NTKL_EVENTS_H */
