// SPDX-License-Identifier: GPL-2.0
/*
 * The uapi wire format at run time: the group-mask helpers, and CompCS
 * packets against bytes computed by hand from the masks Geoff Chappell
 * documents for PERFINFO_CCSWAP (not from the decoder). Sizes, offsets,
 * the group masks' encoding and the CompCS fields' widths are not here:
 * uapi/ntkl_etw.h static_asserts them, so a wrong layout does not build;
 * the Windows samples check them against real files (test_samples.c).
 */
#include <assert.h>
#include <stddef.h>

#include "test.h"
#include "uapi/ntkl_etw.h"
#include "uapi/ntkl_events.h"

/* the markers and hooks Windows writes: compile-time constants, so the build checks them */
static_assert(ETW_MARKER_PERFINFO64(4) == 0xC0110004u, "PERFINFO64 v4 marker");
static_assert(ETW_MARKER_COMPACT64(2) == 0xC0040002u, "COMPACT64 marker");
static_assert(ETW_EVENT_CSWITCH_HOOK == 0x0524, "CSwitch hook");
static_assert(ETW_EVENT_COMPACT_CSWITCH_HOOK == 0x0525, "CompCS hook");
static_assert(ETW_EVENT_SPINLOCK_HOOK == 0x0529, "SpinLock hook");
static_assert(ETW_EVENT_READY_THREAD_HOOK == 0x0532, "ReadyThread hook");
static_assert(ETW_EVENT_CONFIG_CPU_HOOK == 0x0B0A, "SystemConfig CPU hook");
static_assert(ETW_HOOK_GROUP(0x0B0A) == 0x0B && ETW_HOOK_TYPE(0x0B0A) == 0x0A,
	      "hook group and type");

static void test_group_masks(void)
{
	struct perfinfo_groupmask gm;

	test_begin("group_mask_set");
	memset(&gm, 0, sizeof(gm));
	perf_group_set(&gm, PERF_CONTEXT_SWITCH);
	CHECK_EQ(gm.masks[1], 0x4);
	perf_group_set(&gm, PERF_COMPACT_CSWITCH);
	CHECK_EQ(gm.masks[1], 0x104);
	perf_group_set(&gm, PERF_PROCESS);
	perf_group_set(&gm, PERF_THREAD);
	CHECK_EQ(gm.masks[0], 0x3);
	perf_group_set(&gm, PERF_SYSCALL);
	CHECK_EQ(gm.masks[2], 0x40);
	for (int i = 3; i < PERF_NUM_MASKS; i++)
		CHECK_EQ(gm.masks[i], 0);
	test_end();

	test_begin("group_mask_is_on");
	CHECK(perf_group_is_on(&gm, PERF_CONTEXT_SWITCH));
	CHECK(perf_group_is_on(&gm, PERF_COMPACT_CSWITCH));
	CHECK(perf_group_is_on(&gm, PERF_SYSCALL));
	CHECK(!perf_group_is_on(&gm, PERF_SPINLOCK));
	CHECK(!perf_group_is_on(&gm, PERF_DISPATCHER));
	CHECK(!perf_group_is_on(&gm, PERF_LOADER));
	/* Same bit, other mask: PERF_PROFILE is Masks[1] 0x2, PERF_THREAD Masks[0] 0x2. */
	CHECK(perf_group_is_on(&gm, PERF_THREAD));
	CHECK(!perf_group_is_on(&gm, PERF_PROFILE));
	test_end();

	test_begin("group_mask_clear");
	perf_group_clear(&gm, PERF_CONTEXT_SWITCH);
	CHECK_EQ(gm.masks[1], 0x100);
	CHECK(!perf_group_is_on(&gm, PERF_CONTEXT_SWITCH));
	CHECK(perf_group_is_on(&gm, PERF_COMPACT_CSWITCH));
	perf_group_clear(&gm, PERF_SPININSTR);	/* SPINLOCK and CNTRS bits: none set */
	CHECK_EQ(gm.masks[1], 0x100);
	test_end();
}

/* ---------------------------------------------------------------------- */
/* CompCS packets                                                          */
/* ---------------------------------------------------------------------- */

struct packet_case {
	const char *name;
	struct perfinfo_ccswap_packet pkt;
	unsigned int size;
	uint8_t bytes[8];		/* hand-computed from the documented masks */
};

#define PKT(t, delta, tid, swr, pri, inc, wait) \
	{ .type = t, .time_delta = delta, .tid_index = tid, .state_wr = swr, \
	  .priority = pri, .pri_inc = inc, .new_thread_wait_time = wait }

static const struct packet_case packet_cases[] = {
	/* IDLE_SHORT: USHORT DataType:2, TimeDelta:14 */
	{ "idle_short_zero", PKT(PERF_CSWAP_IDLE_SHORT, 0, 0, 0, 0, 0, 0), 2,
	  { 0x00, 0x00 } },
	{ "idle_short_delta1", PKT(PERF_CSWAP_IDLE_SHORT, 1, 0, 0, 0, 0, 0), 2,
	  { 0x04, 0x00 } },
	{ "idle_short_delta_max", PKT(PERF_CSWAP_IDLE_SHORT, 0x3FFF, 0, 0, 0, 0, 0), 2,
	  { 0xFC, 0xFF } },
	/* IDLE: ULONG DataType:2 (=1), TimeDelta:30 */
	{ "idle_delta1", PKT(PERF_CSWAP_IDLE, 1, 0, 0, 0, 0, 0), 4,
	  { 0x05, 0x00, 0x00, 0x00 } },
	{ "idle_delta_max", PKT(PERF_CSWAP_IDLE, 0x3FFFFFFF, 0, 0, 0, 0, 0), 4,
	  { 0xFD, 0xFF, 0xFF, 0xFF } },
	/* LITE: DataType 0x3, TID 0x3C, PriInc 0x1C0, StateWr 0x7E00, TimeDelta 0xFFFF8000 */
	{ "lite_tid_max", PKT(PERF_CSWAP_LITE, 0, 15, 0, 0, 0, 0), 4,
	  { 0x3E, 0x00, 0x00, 0x00 } },		/* 0x3C | 2 */
	{ "lite_pri_inc_max", PKT(PERF_CSWAP_LITE, 0, 0, 0, 0, 7, 0), 4,
	  { 0xC2, 0x01, 0x00, 0x00 } },		/* 0x1C0 | 2 */
	{ "lite_state_wr_max", PKT(PERF_CSWAP_LITE, 0, 0, 63, 0, 0, 0), 4,
	  { 0x02, 0x7E, 0x00, 0x00 } },		/* 0x7E00 | 2 */
	{ "lite_delta_max", PKT(PERF_CSWAP_LITE, 0x1FFFF, 0, 0, 0, 0, 0), 4,
	  { 0x02, 0x80, 0xFF, 0xFF } },		/* 0xFFFF8000 | 2 */
	{ "lite_all_max", PKT(PERF_CSWAP_LITE, 0x1FFFF, 15, 63, 0, 7, 0), 4,
	  { 0xFE, 0xFF, 0xFF, 0xFF } },
	{ "lite_mixed", PKT(PERF_CSWAP_LITE, 0x12345, 5, 40, 0, 3, 0), 4,
	  /* 2 | 5<<2 | 3<<6 | 40<<9 | 0x12345<<15 = 0x91A2D0D6 */
	  { 0xD6, 0xD0, 0xA2, 0x91 } },
	/* FULL: dword0 DataType:2 (=3) TimeDelta:30; dword1 TID 0xF, StateWr
	 * 0x3F0, Priority 0x7C00, NewThreadWaitTime 0xFFFF8000 */
	{ "full_zero", PKT(PERF_CSWAP_FULL, 0, 0, 0, 0, 0, 0), 8,
	  { 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 } },
	{ "full_delta_max", PKT(PERF_CSWAP_FULL, 0x3FFFFFFF, 0, 0, 0, 0, 0), 8,
	  { 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00 } },
	{ "full_tid_max", PKT(PERF_CSWAP_FULL, 0, 15, 0, 0, 0, 0), 8,
	  { 0x03, 0x00, 0x00, 0x00, 0x0F, 0x00, 0x00, 0x00 } },
	{ "full_state_wr_max", PKT(PERF_CSWAP_FULL, 0, 0, 63, 0, 0, 0), 8,
	  { 0x03, 0x00, 0x00, 0x00, 0xF0, 0x03, 0x00, 0x00 } },
	{ "full_priority_max", PKT(PERF_CSWAP_FULL, 0, 0, 0, 31, 0, 0), 8,
	  { 0x03, 0x00, 0x00, 0x00, 0x00, 0x7C, 0x00, 0x00 } },
	{ "full_wait_max", PKT(PERF_CSWAP_FULL, 0, 0, 0, 0, 0, 0x1FFFF), 8,
	  { 0x03, 0x00, 0x00, 0x00, 0x00, 0x80, 0xFF, 0xFF } },
	{ "full_all_max", PKT(PERF_CSWAP_FULL, 0x3FFFFFFF, 15, 63, 31, 0, 0x1FFFF), 8,
	  { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF } },
	{ "full_waiting_wrqueue", PKT(PERF_CSWAP_FULL, 100, 2, 15, 9, 0, 1), 8,
	  /* 3 | 100<<2 = 0x193; 2 | 15<<4 | 9<<10 | 1<<15 = 0xA4F2 */
	  { 0x93, 0x01, 0x00, 0x00, 0xF2, 0xA4, 0x00, 0x00 } },
};

static void test_packet(const struct packet_case *c)
{
	struct perfinfo_ccswap_packet out;
	uint8_t buf[8 + 1];
	unsigned int n;

	test_begin("ccswap_%s", c->name);
	memset(buf, 0xAA, sizeof(buf));
	n = perfinfo_ccswap_encode(buf, &c->pkt);
	CHECK_EQ(n, c->size);
	CHECK_EQ(perfinfo_ccswap_packet_size(c->pkt.type), c->size);
	for (unsigned int i = 0; i < c->size; i++)
		if (buf[i] != c->bytes[i])
			test_fail("byte %u is 0x%02x, expected 0x%02x", i, buf[i],
				  c->bytes[i]);
	CHECK_EQ(buf[c->size], 0xAA);	/* nothing written past the packet */
	CHECK_EQ(buf[0] & 3, c->pkt.type);

	/* Decode the hand-made bytes, not the encoder's. */
	memset(&out, 0x55, sizeof(out));
	n = perfinfo_ccswap_decode(c->bytes, c->size, &out);
	CHECK_EQ(n, c->size);
	CHECK_EQ(out.type, c->pkt.type);
	CHECK_EQ(out.time_delta, c->pkt.time_delta);
	CHECK_EQ(out.tid_index, c->pkt.tid_index);
	CHECK_EQ(out.state_wr, c->pkt.state_wr);
	CHECK_EQ(out.priority, c->pkt.priority);
	CHECK_EQ(out.pri_inc, c->pkt.pri_inc);
	CHECK_EQ(out.new_thread_wait_time, c->pkt.new_thread_wait_time);

	/* One byte short: refused, not read past. */
	CHECK_EQ(perfinfo_ccswap_decode(c->bytes, c->size - 1, &out), 0);
	test_end();
}

/*
 * Each LITE field at its maximum, alone, lands exactly on the mask GC-CCSWAP
 * documents (the widths themselves: static_asserts in uapi/ntkl_etw.h).
 */
static void test_masks(void)
{
	struct perfinfo_ccswap_packet p;
	uint8_t b[8];

	test_begin("ccswap_documented_masks");
	memset(&p, 0, sizeof(p));
	p.type = PERF_CSWAP_LITE;
	p.tid_index = 15;
	perfinfo_ccswap_encode(b, &p);
	CHECK_EQ(etw_get_le32(b) & ~3u, 0x3Cu);
	p.tid_index = 0;
	p.pri_inc = 7;
	perfinfo_ccswap_encode(b, &p);
	CHECK_EQ(etw_get_le32(b) & ~3u, 0x1C0u);
	p.pri_inc = 0;
	p.state_wr = 63;
	perfinfo_ccswap_encode(b, &p);
	CHECK_EQ(etw_get_le32(b) & ~3u, 0x7E00u);
	p.state_wr = 0;
	p.time_delta = 0x1FFFF;
	perfinfo_ccswap_encode(b, &p);
	CHECK_EQ(etw_get_le32(b) & ~3u, 0xFFFF8000u);
	test_end();

	test_begin("ccswap_state_wr");
	CHECK_EQ(perfinfo_ccswap_state_wr(ETW_KTHREAD_WAITING, ETW_KWAIT_WR_QUEUE), 15);
	CHECK_EQ(perfinfo_ccswap_state_wr(ETW_KTHREAD_WAITING, 0), 0);
	CHECK_EQ(perfinfo_ccswap_state_wr(ETW_KTHREAD_READY, 0), 40);
	CHECK_EQ(perfinfo_ccswap_state_wr(ETW_KTHREAD_RUNNING, 7), 41);
	CHECK_EQ(perfinfo_ccswap_state_wr(ETW_KTHREAD_WAITING_FOR_PROCESS_IN_SWAP, 0), 48);
	CHECK(perfinfo_ccswap_state_wr(ETW_KTHREAD_WAITING_FOR_PROCESS_IN_SWAP, 0) <=
	      PERFINFO_CCSWAP_MAX(PERFINFO_CCSWAP_BIT_STATE_WR));
	test_end();
}

/* Packets back to back, a 2-byte one leaving the rest unaligned. */
static void test_packet_stream(void)
{
	static const uint8_t stream[] = {
		0x04, 0x00,				/* IDLE_SHORT delta 1 */
		0xD6, 0xD0, 0xA2, 0x91,			/* LITE (lite_mixed) */
		0x93, 0x01, 0x00, 0x00, 0xF2, 0xA4, 0x00, 0x00, /* FULL */
		0x05, 0x00, 0x00, 0x00,			/* IDLE delta 1 */
		0x03, 0x00,				/* FULL cut short */
	};
	static const enum perfinfo_ccswap_type want[] = {
		PERF_CSWAP_IDLE_SHORT, PERF_CSWAP_LITE, PERF_CSWAP_FULL,
		PERF_CSWAP_IDLE,
	};
	struct perfinfo_ccswap_packet p;
	unsigned int pos = 0, n, count = 0;
	uint64_t total = 0;

	test_begin("ccswap_stream_unaligned");
	while (pos < sizeof(stream)) {
		n = perfinfo_ccswap_decode(stream + pos, sizeof(stream) - pos, &p);
		if (!n)
			break;
		if (count < 4)
			CHECK_EQ(p.type, want[count]);
		total += p.time_delta;
		pos += n;
		count++;
	}
	CHECK_EQ(count, 4);
	CHECK_EQ(pos, 18);		/* stopped at the truncated FULL */
	CHECK_EQ(total, 1 + 0x12345 + 100 + 1);
	test_end();
}

/* Random packets within each field's width survive encode then decode. */
static void test_round_trips(void)
{
	uint64_t seed = 0x6e746b6cULL;	/* "ntkl" */
	struct perfinfo_ccswap_packet in, out;
	uint8_t buf[8];
	bool ok;

	test_begin("ccswap_round_trip_random");
	for (int i = 0; i < 4000; i++) {
		uint64_t r = test_rand(&seed);

		memset(&in, 0, sizeof(in));
		in.type = (enum perfinfo_ccswap_type)(r & 3);
		r >>= 2;
		switch (in.type) {
		case PERF_CSWAP_IDLE_SHORT:
			in.time_delta = r & 0x3FFF;
			break;
		case PERF_CSWAP_IDLE:
			in.time_delta = r & 0x3FFFFFFF;
			break;
		case PERF_CSWAP_LITE:
			in.time_delta = r & 0x1FFFF;
			in.tid_index = (r >> 17) & 0xF;
			in.pri_inc = (r >> 21) & 7;
			in.state_wr = (r >> 24) & 0x3F;
			break;
		case PERF_CSWAP_FULL:
			in.time_delta = r & 0x3FFFFFFF;
			in.tid_index = (r >> 30) & 0xF;
			in.state_wr = (r >> 34) & 0x3F;
			in.priority = (r >> 40) & 0x1F;
			in.new_thread_wait_time = (r >> 45) & 0x1FFFF;
			break;
		}
		perfinfo_ccswap_encode(buf, &in);
		ok = perfinfo_ccswap_decode(buf, sizeof(buf), &out) ==
		     perfinfo_ccswap_packet_size(in.type) &&
		     !memcmp(&in, &out, sizeof(in));
		CHECK_MSG(ok, "iteration %d: type %d delta 0x%x did not round-trip",
			  i, in.type, in.time_delta);
		if (!ok)
			break;
	}
	test_end();
}

int main(void)
{
	test_group_masks();
	for (size_t i = 0; i < sizeof(packet_cases) / sizeof(packet_cases[0]); i++)
		test_packet(&packet_cases[i]);
	test_masks();
	test_packet_stream();
	test_round_trips();
	return test_exit();
}
