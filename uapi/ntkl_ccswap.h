/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The compact context-switch batch encoder (PERFINFO_CCSWAP_BUFFER, hook
 * 0x0525), written once: the module records with it and the userspace unit
 * tests drive it with synthetic switch streams.
 *
 * Rules (seed 002_*, shared/docs/seed-gaps.md section 1): a batch is the
 * 0x58-byte header and packets back to back, 0x400 bytes at most. Before a
 * switch is added, the batch is written out (and the switch starts a new
 * one) when the old thread needs a 17th TidTable slot, the batch began more
 * than 500 ticks ago, fewer than 8 bytes remain, or the time since the
 * previous switch does not fit 30 bits (or went backwards). Stopping or
 * flushing a logger writes out what a batch holds.
 *
 * Packets: a switch away from the idle thread (TID 0) is IDLE_SHORT when
 * its delta fits 14 bits, else IDLE. Any other is LITE when the new thread
 * waited at most 1 tick, the delta fits 17 bits and the old thread's
 * priority is 0..7 above the base recorded for it; else FULL.
 */
#ifndef _UAPI_NTKL_CCSWAP_H
#define _UAPI_NTKL_CCSWAP_H

#include <linux/types.h>

#include "ntkl_etw.h"

#define CCSWAP_PACKET_SPACE \
	(PERFINFO_CCSWAP_BATCH_SIZE - sizeof(struct perfinfo_ccswap_buffer))

/* A batch being filled: the event payload, then the encoder's state. */
struct ccswap_batch {
	struct perfinfo_ccswap_buffer hdr;
	__u8 packets[CCSWAP_PACKET_SPACE];
	__u32 len;			/* packet bytes used */
	__u32 tids;			/* TidTable slots used */
	__u64 last_time;		/* the previous switch, in clock units */
	__u64 start_tick;		/* when the batch began, in ticks */
};

/* One context switch, as the encoder needs it. */
struct ccswap_switch {
	__u64 time;			/* in the batch's clock units */
	__u32 old_tid;			/* 0: the idle thread */
	__u8 old_state;			/* KTHREAD_STATE */
	__u8 old_wait_reason;		/* KWAIT_REASON, when Waiting */
	__s8 old_priority;		/* current, 0..31 */
	__s8 old_base_priority;
	__u32 new_wait_ticks;		/* how long the new thread waited */
};

#ifdef __KERNEL__
#include <linux/build_bug.h>
#include <linux/stddef.h>
#else
#include <assert.h>
#include <stddef.h>
#endif

/* the event payload is hdr and the packets, contiguous */
static_assert(offsetof(struct ccswap_batch, packets) == sizeof(struct perfinfo_ccswap_buffer),
	      "ccswap_batch packets follow the header");

enum ccswap_add_result {
	CCSWAP_ADDED,
	/* write the batch out, ccswap_reset() it, and add the switch again */
	CCSWAP_FULL_TIDS,
	CCSWAP_TOO_OLD,
	CCSWAP_NO_ROOM,
	CCSWAP_DELTA_TOO_BIG,
};

static inline void ccswap_reset(struct ccswap_batch *b)
{
	__u32 i;

	b->hdr.first_timestamp = 0;
	for (i = 0; i < PERFINFO_CCSWAP_MAX_TID; i++) {
		b->hdr.tid_table[i] = 0;
		b->hdr.thread_base_priority[i] = 0;
	}
	b->len = 0;
	b->tids = 0;
	b->last_time = 0;
	b->start_tick = 0;
}

static inline int ccswap_empty(const struct ccswap_batch *b)
{
	return b->len == 0;
}

/* Bytes of the batch's event payload (header and packets). */
static inline __u32 ccswap_payload_size(const struct ccswap_batch *b)
{
	return sizeof(b->hdr) + b->len;
}

/* The TidTable slot of tid, or -1. */
static inline int ccswap_find_tid(const struct ccswap_batch *b, __u32 tid)
{
	__u32 i;

	for (i = 0; i < b->tids; i++)
		if (b->hdr.tid_table[i] == tid)
			return (int)i;
	return -1;
}

/*
 * Add one switch; now_tick is the current tick count (for the batch age).
 * Anything but CCSWAP_ADDED says why the batch must be written out first;
 * an empty batch always takes the switch.
 */
/*
 * Always inlined (glibc's sys/cdefs.h defines __always_inline too): the
 * module adds a switch on every context switch, and inlined, its tests
 * fold into the probe's.
 */
static __always_inline enum ccswap_add_result
ccswap_add(struct ccswap_batch *b, const struct ccswap_switch *sw, __u64 now_tick)
{
	struct perfinfo_ccswap_packet pkt;
	__u64 delta = 0;
	int idx = -1;

	if (ccswap_empty(b)) {
		b->hdr.first_timestamp = (__s64)sw->time;
		b->last_time = sw->time;
		b->start_tick = now_tick;
	} else {
		if (now_tick - b->start_tick > PERFINFO_CCSWAP_MAX_AGE_TICKS)
			return CCSWAP_TOO_OLD;
		/* a time that went backwards wraps to a delta too big: one test */
		delta = sw->time - b->last_time;
		if (delta > PERFINFO_CCSWAP_MAX(PERFINFO_CCSWAP_BIT_FULL_TS))
			return CCSWAP_DELTA_TOO_BIG;
		/* b->len <= CCSWAP_PACKET_SPACE: the bound is a constant */
		if (b->len > CCSWAP_PACKET_SPACE - PERFINFO_CCSWAP_MAX_PACKET)
			return CCSWAP_NO_ROOM;
	}
	if (sw->old_tid) {
		idx = ccswap_find_tid(b, sw->old_tid);
		if (idx < 0) {
			if (b->tids == PERFINFO_CCSWAP_MAX_TID)
				return CCSWAP_FULL_TIDS;
			idx = (int)b->tids++;
			b->hdr.tid_table[idx] = sw->old_tid;
			b->hdr.thread_base_priority[idx] = sw->old_base_priority;
		}
	}

	pkt.time_delta = (__u32)delta;
	pkt.tid_index = idx < 0 ? 0 : (__u8)idx;
	pkt.state_wr = perfinfo_ccswap_state_wr(sw->old_state, sw->old_wait_reason);
	pkt.priority = (__u8)(sw->old_priority & 0x1F);
	pkt.pri_inc = 0;
	pkt.new_thread_wait_time = sw->new_wait_ticks;
	if (pkt.new_thread_wait_time > PERFINFO_CCSWAP_MAX(PERFINFO_CCSWAP_BIT_WAIT_TIME))
		pkt.new_thread_wait_time = PERFINFO_CCSWAP_MAX(PERFINFO_CCSWAP_BIT_WAIT_TIME);

	if (!sw->old_tid) {
		pkt.type = delta <= PERFINFO_CCSWAP_MAX(PERFINFO_CCSWAP_BIT_SHORT_TS) ?
			   PERF_CSWAP_IDLE_SHORT : PERF_CSWAP_IDLE;
	} else {
		int inc = sw->old_priority - b->hdr.thread_base_priority[idx];

		if (sw->new_wait_ticks <= 1 && inc >= 0 &&
		    inc <= (int)PERFINFO_CCSWAP_MAX(PERFINFO_CCSWAP_BIT_PRI_INC) &&
		    delta <= PERFINFO_CCSWAP_MAX(PERFINFO_CCSWAP_BIT_SMALL_TS)) {
			pkt.type = PERF_CSWAP_LITE;
			pkt.pri_inc = (__u8)inc;
		} else {
			pkt.type = PERF_CSWAP_FULL;
		}
	}
	b->len += perfinfo_ccswap_encode(b->packets + b->len, &pkt);
	b->last_time = sw->time;
	return CCSWAP_ADDED;
}

#endif /* _UAPI_NTKL_CCSWAP_H */
