// SPDX-License-Identifier: GPL-2.0
/*
 * Records: the kernel record headers ntkl writes (SYSTEM64 for process and
 * thread events, PERFINFO64 for the performance events), around a payload.
 */
#include <linux/sched.h>
#include <linux/string.h>

#include "record.h"

/*
 * Reserve a record of header_size + payload bytes and fill the header;
 * returns the payload or NULL (the loss is counted). Preemption is off.
 */
static u8 *record_begin(struct ntkl_logger *lg, struct ntkl_record *rec,
			u8 header_type, u16 hook, u16 version, size_t payload,
			u64 clock, bool at)
{
	size_t header_size = header_type == ETW_HEADER_TYPE_SYSTEM64 ?
			     sizeof(struct system_trace_header) :
			     sizeof(struct perfinfo_trace_header);
	size_t size = header_size + payload;
	u8 *p;

	if (size > ETW_MAX_EVENT_SIZE) {
		atomic64_inc(&lg->events_lost_extra);
		return NULL;
	}
	rec->size = ALIGN(size, ETW_RECORD_ALIGN);
	p = at ? ntkl_reserve_at(lg, rec->size, &rec->buf, &clock) :
		 ntkl_reserve(lg, rec->size, &rec->buf, &clock);
	if (!p)
		return NULL;
	/* the padding must not show what the buffer held before */
	memset(p + size, 0, rec->size - size);

	if (header_type == ETW_HEADER_TYPE_SYSTEM64) {
		struct system_trace_header *h = (void *)p;

		h->marker = ETW_MARKER_SYSTEM64(version);
		h->size = size;
		h->hook_id = hook;
		h->thread_id = in_task() ? task_pid_nr(current) : 0;
		h->process_id = in_task() ? task_tgid_nr(current) : 0;
		h->system_time = clock;
		h->kernel_time = 0;
		h->user_time = 0;
	} else {
		struct perfinfo_trace_header *h = (void *)p;

		h->marker = ETW_MARKER_PERFINFO64(version);
		h->size = size;
		h->hook_id = hook;
		h->timestamp = clock;
	}
	return p + header_size;
}

u8 *ntkl_record_begin(struct ntkl_logger *lg, struct ntkl_record *rec,
		      u8 header_type, u16 hook, u16 version, size_t payload)
{
	return record_begin(lg, rec, header_type, hook, version, payload, 0, false);
}

u8 *ntkl_record_begin_at(struct ntkl_logger *lg, struct ntkl_record *rec,
			 u8 header_type, u16 hook, u16 version, size_t payload,
			 u64 clock)
{
	return record_begin(lg, rec, header_type, hook, version, payload, clock, true);
}

void ntkl_record_end(struct ntkl_record *rec)
{
	ntkl_commit(rec->buf, rec->size);
}
