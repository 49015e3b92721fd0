// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel addresses leave the kernel only for readers that could read them
 * from /proc/kallsyms; every other reader gets the value %p prints, the
 * kernel's own keyed hash. Which fields are kernel addresses is said once,
 * in each layout's field list (ETW_FIELD_KADDR in uapi/ntkl_events.h), so
 * a new event's addresses are hidden without code here.
 */
#include <linux/align.h>
#include <linux/capability.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "ntkl.h"
#include "format/events.h"

/*
 * May this reader see kernel addresses? The rule of /proc/kallsyms: it
 * needs CAP_SYSLOG, and kptr_restrict must allow it, which %pK applies in
 * the reader's context (it prints zeros when kptr_restrict forbids).
 */
bool ntkl_reader_sees_addresses(void)
{
	static const int probe;
	char buf[24];

	if (!has_capability_noaudit(current, CAP_SYSLOG))
		return false;
	snprintf(buf, sizeof(buf), "%pK", &probe);
	return strspn(buf, "0") != strlen(buf);
}

/* The value %p prints for an address: the kernel's own keyed hash. */
static u64 hashed(u64 addr)
{
	char buf[24];
	u64 v;

	snprintf(buf, sizeof(buf), "%p", (void *)(unsigned long)addr);
	return kstrtou64(buf, 16, &v) ? 0 : v;
}

/* The header size of a kernel record, from its marker; 0 if not one ntkl writes. */
static u32 header_size(u32 marker)
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

static void redact_record(u8 *payload, u32 len, const struct etw_layout *l)
{
	const struct etw_field *f;

	u64 addr;

	for (f = l->fields; etw_field_in_layout(f); f++) {
		if (f->kind != ETW_FIELD_KADDR || f->size != sizeof(addr) ||
		    f->offset + f->size > len)
			continue;
		memcpy(&addr, payload + f->offset, sizeof(addr));
		addr = hashed(addr);
		memcpy(payload + f->offset, &addr, sizeof(addr));
	}
}

/* Replace the kernel addresses in a buffer's records by their hashes. */
void ntkl_redact_addresses(u8 *data, u32 filled)
{
	u32 off = sizeof(struct wmi_buffer_header);

	while (off + sizeof(struct perfinfo_trace_header) <= filled) {
		struct perfinfo_trace_header *h = (void *)(data + off);
		u32 hsize = header_size(h->marker);
		enum etw_event_id id;

		if (h->size < sizeof(*h) || h->size > filled - off)
			break;
		id = etw_event_by_hook(h->hook_id);
		if (hsize && h->size >= hsize && id < ETW_EVENT_COUNT &&
		    etw_event_layout_applies(&etw_events[id], h->marker & 0xFF))
			redact_record(data + off + hsize, h->size - hsize,
				      &etw_layouts[etw_events[id].layout]);
		off += ALIGN(h->size, ETW_RECORD_ALIGN);
	}
}
