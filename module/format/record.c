// SPDX-License-Identifier: GPL-2.0
/*
 * The out-of-line half of record.h: a record whose buffer is full, closed
 * or raced by a nested writer. Here, not inline in every probe, because it
 * hands its buffer and clock to buffers.c by address (record.h says why
 * that matters). And an event no record could hold, counted lost.
 */
#include "control/active_set.h"
#include "format/record.h"

struct ntkl_slot ntkl_record_begin_slow(struct ntkl_logger *lg, u8 header_type, u16 hook,
					u16 version, unsigned int size, u64 clock, bool at)
{
	unsigned int aligned = ALIGN(size, ETW_RECORD_ALIGN);
	struct ntkl_slot s = { };
	struct ntkl_buffer *buf;
	u8 *p;

	p = at ? ntkl_reserve_at(lg, aligned, &buf, &clock) :
		 ntkl_reserve(lg, aligned, &buf, &clock);
	if (!p)
		return s;
	s.buf = buf;
	s.payload = ntkl_record_header(p, header_type, hook, version, size, aligned, clock);
	return s;
}

u8 *ntkl_record_group_begin(struct ntkl_logger *lg, struct ntkl_record *rec,
			    unsigned int aligned, unsigned int n, u64 *clock)
{
	struct ntkl_buffer *buf;
	u8 *p;

	if (aligned > ETW_MAX_EVENT_SIZE) {
		atomic64_add(n, &lg->events_lost_extra);
		return NULL;
	}
	p = ntkl_reserve(lg, aligned, &buf, clock);
	if (!p) {
		/* the reservation counted one of them */
		atomic64_add(n - 1, &lg->events_lost_extra);
		return NULL;
	}
	rec->buf = buf;
	rec->size = aligned;
	return p;
}

/*
 * An event of id that could not be written (a probe missed, a table was
 * full, a nesting too deep to keep): one lost for each running logger
 * that takes it. Preemption off, as for any probe's set.
 */
void ntkl_lost_each(enum etw_event_id id)
{
	struct ntkl_logger **loggers;
	unsigned int i, n = ntkl_active_loggers(&loggers);

	for (i = 0; i < n; i++)
		if (ntkl_event_on(loggers[i], id))
			atomic64_inc(&loggers[i]->events_lost_extra);
}
