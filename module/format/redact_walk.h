/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The walk over a buffer's records that replaces each kernel address (a
 * layout field of kind KADDR in uapi/ntkl_event_list.h, or of kind ADDR
 * holding a kernel address, or a kernel frame of a StackWalk's tail) by
 * hash(address).
 * Pure: format/redact.c runs it with the kernel's %p hash, and
 * userspace/tests/test_redact.c compiles this same file to check it.
 *
 * The includer provides u8/u16/u32/u64, memcpy, and the event tables with
 * etw_event_by_hook() (uapi/ntkl_event_table.h).
 */
#ifndef _NTKL_REDACT_WALK_H
#define _NTKL_REDACT_WALK_H

/*
 * A record ntkl writes, from its first bytes: its header's size and its
 * hook (for a classic record of the image identity class, that class's
 * pseudo group and its Class.Type); 0 if it is none ntkl writes.
 */
static inline u32 ntkl_record_header_of(const u8 *p, u16 *hook)
{
	static const u8 image_id[16] = ETW_IMAGE_ID_GUID;
	const struct perfinfo_trace_header *k = (const void *)p;
	const struct event_trace_header *c = (const void *)p;

	switch (p[2]) {		/* HeaderType, in every form */
	case ETW_HEADER_TYPE_SYSTEM64:
		*hook = k->hook_id;
		return sizeof(struct system_trace_header);
	case ETW_HEADER_TYPE_PERFINFO64:
		*hook = k->hook_id;
		return sizeof(struct perfinfo_trace_header);
	case ETW_HEADER_TYPE_FULL_HEADER64:
		if (memcmp(c->guid, image_id, sizeof(image_id)))
			return 0;
		*hook = ETW_HOOK(ETW_GROUP_IMAGE_ID, c->type);
		return sizeof(struct event_trace_header);
	default:
		return 0;
	}
}

/* A record's version: the marker's low byte, or a classic header's Version. */
static inline u8 ntkl_record_version_of(const u8 *p)
{
	const struct perfinfo_trace_header *k = (const void *)p;
	const struct event_trace_header *c = (const void *)p;

	return p[2] == ETW_HEADER_TYPE_FULL_HEADER64 ? (u8)c->version : k->marker & 0xFF;
}

/* A record's Size: where each header form keeps it. */
static inline u32 ntkl_record_size_of(const u8 *p)
{
	const struct perfinfo_trace_header *k = (const void *)p;
	const struct event_trace_header *c = (const void *)p;

	return p[2] == ETW_HEADER_TYPE_FULL_HEADER64 ? c->size : k->size;
}

/*
 * Is an address (ETW_FIELD_ADDR) a kernel one? On x86_64 and arm64 the
 * kernel lives in the upper half of the address space, user space in the
 * lower: the top bit says which, without asking the kernel.
 */
static inline bool ntkl_is_kernel_addr(u64 addr)
{
	return addr >> 63;
}

static inline void ntkl_redact_record(u8 *payload, u32 len, const struct etw_layout *l,
				      u64 (*hash)(u64))
{
	const struct etw_field *f;
	u64 addr;

	for (f = l->fields; etw_field_in_layout(f); f++) {
		if ((f->kind != ETW_FIELD_KADDR && f->kind != ETW_FIELD_ADDR) ||
		    f->size != sizeof(addr) || f->offset + f->size > len)
			continue;
		memcpy(&addr, payload + f->offset, sizeof(addr));
		/* a user address (a sampled IP, a process's image) is the program's own */
		if (f->kind == ETW_FIELD_ADDR && !ntkl_is_kernel_addr(addr))
			continue;
		addr = hash(addr);
		memcpy(payload + f->offset, &addr, sizeof(addr));
	}
	/* a stack's frames: its kernel frames hashed, its user frames kept */
	if (l->tail == ETW_TAIL_STACK_FRAMES) {
		u32 off;

		for (off = l->fixed; off + sizeof(addr) <= len; off += sizeof(addr)) {
			memcpy(&addr, payload + off, sizeof(addr));
			if (!ntkl_is_kernel_addr(addr))
				continue;
			addr = hash(addr);
			memcpy(payload + off, &addr, sizeof(addr));
		}
	}
}

/*
 * Every record of a buffer filled to filled (its WMI_BUFFER_HEADER
 * included); stops at the first record whose Size does not fit.
 */
static inline void ntkl_redact_walk(u8 *data, u32 filled, u64 (*hash)(u64))
{
	u32 off = sizeof(struct wmi_buffer_header);

	while (off + sizeof(struct perfinfo_trace_header) <= filled) {
		u8 *p = data + off;
		u32 size, hsize;
		enum etw_event_id id;
		u16 hook = 0;

		/* a classic header is longer: all of it first */
		if (p[2] == ETW_HEADER_TYPE_FULL_HEADER64 &&
		    off + sizeof(struct event_trace_header) > filled)
			break;
		size = ntkl_record_size_of(p);
		if (size < sizeof(struct perfinfo_trace_header) || size > filled - off)
			break;
		hsize = ntkl_record_header_of(p, &hook);
		id = hsize ? etw_event_by_hook(hook) : ETW_EVENT_COUNT;
		if (hsize && size >= hsize && id < ETW_EVENT_COUNT &&
		    etw_event_layout_applies(&etw_events[id], ntkl_record_version_of(p)))
			ntkl_redact_record(p + hsize, size - hsize,
					   &etw_layouts[etw_events[id].layout], hash);
		off += (size + ETW_RECORD_ALIGN - 1) & ~(u32)(ETW_RECORD_ALIGN - 1);
	}
}

#endif /* _NTKL_REDACT_WALK_H */
