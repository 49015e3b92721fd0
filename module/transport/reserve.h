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
	return &ring->bufs[index & ring->mask];
}

/*
 * The ring's latest record time only goes up, and goes up before the
 * record is reserved: a writer that reads the clock here raises it to its
 * reading before its swap, so every such record reserved before ours in
 * this ring had raised it by the time we read the buffer's fill (else our
 * swap fails), and a time given from the past, raised to it, stays in
 * order. Raised after reserving, or simply stored, an interrupt in
 * between could leave it lower than a nested writer's record. last is
 * the caller's reading.
 *
 * Only records whose time is given from the past need it, and only
 * against writers that can get in between: an interrupt, an NMI. The
 * writers given a time (ntkl_reserve_at(): the switch probe's CSwitch
 * records, in sched_switch with interrupts off; HardFault's, in the
 * faulting task once its fault is done, which no writer can be in the
 * middle of: a writer never sleeps, and a major fault waits for its I/O)
 * get in between no other writer's reading and reservation, and their
 * time is this CPU's, read after every record the ring then held (one
 * that an interrupt adds before theirs is reserved raised the latest
 * time, which they then take). So the inline path below reads it for
 * them but does not raise it: their records may leave it lower than
 * their own time, which is harmless, a later writer's time being read
 * later still. The out-of-line path (buffers.c reserve()) raises it for
 * them too: not needed, never wrong (it rises only to a time one of the
 * ring's records has), and off the path a switch takes.
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
	struct ntkl_cpu_ring *ring = this_cpu_ptr(lg->rings);
	unsigned long h = local_read(&ring->head);
	struct ntkl_buffer *buf = ntkl_ring_buffer(ring, h);
	long fill = local_read(&buf->fill);
	/*
	 * The offset with the closed bit above it: a closed buffer's is beyond
	 * any buffer size, so one compare with fast_limit (0 while the logger
	 * accepts nothing) finds room, an open buffer and a logger accepting.
	 */
	u64 off = (u32)fill;
	u64 t;

	static_assert(NTKL_FILL_OFFSET == U32_MAX >> 1 && NTKL_FILL_CLOSED == BIT(31));
	/* still the current buffer when its fill was read: buffers.c says why */
	if (likely(off + size <= READ_ONCE(lg->fast_limit) &&
		   local_read(&ring->head) == h)) {
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
