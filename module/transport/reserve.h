/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fast path of reserving a record, inline in every producer: the
 * current buffer is open and has room, so one compare-and-swap takes the
 * space. Anything else (a full or closed buffer, a stopped logger, a
 * nested writer that got in between) goes to ntkl_reserve() or
 * ntkl_reserve_at() in buffers.c, out of line (format/record.c calls
 * them), which start over and handle it all; the rules are buffers.c's.
 * Inline because a switch writes one record per logger: a call and its
 * return cost more under return-thunk mitigations than the reservation
 * itself.
 */
#ifndef _NTKL_RESERVE_H
#define _NTKL_RESERVE_H

#include <linux/compiler.h>
#include <linux/minmax.h>
#include <linux/smp.h>

#include "ntkl.h"

static __always_inline struct ntkl_buffer *ntkl_ring_buffer(struct ntkl_cpu_ring *ring,
							    unsigned long index)
{
	return &ring->bufs[index & (ring->nr - 1)];
}

/*
 * The ring's latest record time only goes up, and goes up before the
 * record is reserved: every record reserved before ours in this ring had
 * raised it by the time we read the buffer's fill (else our swap fails),
 * so a time given from the past, raised to it, stays in order. Raised
 * after reserving, or simply stored, an interrupt in between could leave
 * it lower than a nested writer's record. last is the caller's reading.
 *
 * Only records whose time is given from the past need it, and only
 * against writers that can get in between: an interrupt, an NMI. So the
 * writers given a time (ntkl_reserve_at(): the switch probe's CSwitch
 * records, in sched_switch with interrupts off, which gets in between no
 * reservation) read it but do not raise it; the clock they were given is
 * one of each CPU's readings, taken after the ring's earlier records'.
 */
static __always_inline void ntkl_raise_last_clock(struct ntkl_cpu_ring *ring, u64 t, long last)
{
	while ((u64)last < t) {
		long seen = local_cmpxchg(&ring->last_clock, last, (long)t);

		if (seen == last)
			break;
		last = seen;
	}
}

/*
 * As ntkl_reserve() (at false: the clock read here) or ntkl_reserve_at()
 * (at true: *clock the caller's time, raised to the ring's latest), when
 * the current buffer takes the record at the first try: true, and where
 * the record goes in *p. False otherwise, and the caller goes to one of
 * those (format/record.c does). Not called from here: the slow path takes
 * the address of its buffer and clock, and inlined into a probe, that
 * would put them on the probe's stack and give it a stack protector check
 * on every event. A bool, not a NULL pointer, says which: a pointer
 * would be tested once more on every event. The caller has preemption
 * disabled.
 */
static __always_inline bool ntkl_reserve_fast(struct ntkl_logger *lg, unsigned int size,
					      struct ntkl_buffer **bufp, u64 *clock, bool at,
					      u8 **p)
{
	struct ntkl_cpu_ring *ring = &lg->rings[smp_processor_id()];
	unsigned long h = local_read(&ring->head);
	struct ntkl_buffer *buf = ntkl_ring_buffer(ring, h);
	long fill = local_read(&buf->fill);
	long off = fill & NTKL_FILL_OFFSET;
	u64 t;

	/* still the current buffer when its fill was read: buffers.c says why */
	if (likely(READ_ONCE(lg->accept) && !(fill & NTKL_FILL_CLOSED) &&
		   off + size <= lg->buffer_size && local_read(&ring->head) == h)) {
		long last = local_read(&ring->last_clock);

		if (at) {
			t = max_t(u64, *clock, last);
		} else {
			t = ntkl_clock(lg->clock_type);
			ntkl_raise_last_clock(ring, t, last);
		}
		if (likely(local_cmpxchg(&buf->fill, fill, fill + size) == fill)) {
			*clock = t;
			*bufp = buf;
			*p = buf->data + off;
			return true;
		}
	}
	return false;
}

#endif /* _NTKL_RESERVE_H */
