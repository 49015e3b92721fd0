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

/* The header size of a kernel record, from its marker; 0 if not one ntkl writes. */
static inline u32 ntkl_record_header_size(u32 marker)
{
	switch ((marker >> 16) & 0xFF) {
	case ETW_HEADER_TYPE_SYSTEM64:
		return sizeof(struct system_trace_header);
	case ETW_HEADER_TYPE_PERFINFO64:
		return sizeof(struct perfinfo_trace_header);
	default:
		return 0;
	}
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
		struct perfinfo_trace_header *h = (void *)(data + off);
		u32 hsize = ntkl_record_header_size(h->marker);
		enum etw_event_id id;

		if (h->size < sizeof(*h) || h->size > filled - off)
			break;
		id = etw_event_by_hook(h->hook_id);
		if (hsize && h->size >= hsize && id < ETW_EVENT_COUNT &&
		    etw_event_layout_applies(&etw_events[id], h->marker & 0xFF))
			ntkl_redact_record(data + off + hsize, h->size - hsize,
					   &etw_layouts[etw_events[id].layout], hash);
		off += (h->size + ETW_RECORD_ALIGN - 1) & ~(u32)(ETW_RECORD_ALIGN - 1);
	}
}

#endif /* _NTKL_REDACT_WALK_H */
