// SPDX-License-Identifier: GPL-2.0
/*
 * The compact context-switch encoder (uapi/ntkl_ccswap.h, the very code
 * the module runs) driven with synthetic switch streams: every packet form
 * at its limits, every reason to write a batch out, exact bytes against
 * the seed's bit masks, and every batch read back through
 * etl_switches_read() from a synthetic ETL file to the switches that
 * went in.
 *
 * A model written from the seed (002_*, seed-gaps.md section 1) predicts,
 * for each switch, whether the batch must be written out first and which
 * packet form it takes; the encoder must agree with it.
 */
#include <inttypes.h>

#include "test.h"
#include "etl_synth.h"
#include "etl/etl_reader.h"
#include "etl/etl_switches.h"
#include "uapi/ntkl_ccswap.h"

#define MAX_CPUS	4
#define SPACE		(PERFINFO_CCSWAP_BATCH_SIZE - 0x58)	/* packet bytes: 936 */
#define WAIT_CAP	((1u << 17) - 1)
/* Clock units per 4 ms tick: QPC at 10 MHz, and cycles at 3 GHz. */
#define TICK_QPC	40000
#define TICK_CYCLES	12000000

/* The seed's rules, kept apart from the encoder: one CPU's batch. */
struct model {
	bool empty;
	uint64_t last;
	uint64_t start_tick;
	uint32_t len;
	uint32_t tids[PERFINFO_CCSWAP_MAX_TID];
	int8_t base[PERFINFO_CCSWAP_MAX_TID];
	uint32_t ntids;
};

static int model_find(const struct model *m, uint32_t tid)
{
	for (uint32_t i = 0; i < m->ntids; i++)
		if (m->tids[i] == tid)
			return (int)i;
	return -1;
}

/* Must the batch go out before sw? In the order the encoder checks. */
static enum ccswap_add_result model_predict(const struct model *m,
					    const struct ccswap_switch *sw, uint64_t tick)
{
	if (m->empty)
		return CCSWAP_ADDED;
	if (tick - m->start_tick > 500)
		return CCSWAP_TOO_OLD;
	if (sw->time < m->last || sw->time - m->last >= (1ull << 30))
		return CCSWAP_DELTA_TOO_BIG;
	if (SPACE - m->len < 8)
		return CCSWAP_NO_ROOM;
	if (sw->old_tid && model_find(m, sw->old_tid) < 0 &&
	    m->ntids == PERFINFO_CCSWAP_MAX_TID)
		return CCSWAP_FULL_TIDS;
	return CCSWAP_ADDED;
}

static void model_reset(struct model *m)
{
	memset(m, 0, sizeof(*m));
	m->empty = true;
}

/* Add sw (it fits); the packet form it takes. */
static enum perfinfo_ccswap_type model_add(struct model *m, const struct ccswap_switch *sw,
					   uint64_t tick)
{
	enum perfinfo_ccswap_type t;
	uint64_t delta = m->empty ? 0 : sw->time - m->last;

	if (m->empty)
		m->start_tick = tick;
	if (!sw->old_tid) {
		t = delta < (1u << 14) ? PERF_CSWAP_IDLE_SHORT : PERF_CSWAP_IDLE;
	} else {
		int idx = model_find(m, sw->old_tid), inc;

		if (idx < 0) {
			idx = (int)m->ntids++;
			m->tids[idx] = sw->old_tid;
			m->base[idx] = sw->old_base_priority;
		}
		inc = sw->old_priority - m->base[idx];
		t = sw->new_wait_ticks <= 1 && inc >= 0 && inc <= 7 && delta < (1u << 17) ?
		    PERF_CSWAP_LITE : PERF_CSWAP_FULL;
	}
	m->len += perfinfo_ccswap_packet_size(t);
	m->last = sw->time;
	m->empty = false;
	return t;
}

/* ---------------------------------------------------------------------- */
/* Feeding the encoder as the module does                                  */
/* ---------------------------------------------------------------------- */

struct input {
	struct ccswap_switch sw;
	uint64_t tick;
	uint16_t cpu;
	enum ccswap_add_result result;	/* what ccswap_add said first */
	enum perfinfo_ccswap_type type;	/* the form the model expects */
	size_t order;			/* feed order, the sort's tie-break */
};

struct out_batch {
	uint8_t payload[PERFINFO_CCSWAP_BATCH_SIZE];
	uint32_t len;
	uint16_t cpu;
	int64_t last_time;
};

struct run {
	struct input *in;
	size_t n, cap;
	struct out_batch *b;
	size_t nb, bcap;
	struct ccswap_batch enc[MAX_CPUS];
	struct model model[MAX_CPUS];
	bool mismatch_reported;
};

static void run_init(struct run *r)
{
	memset(r, 0, sizeof(*r));
	for (int c = 0; c < MAX_CPUS; c++) {
		ccswap_reset(&r->enc[c]);
		model_reset(&r->model[c]);
	}
}

static void run_free(struct run *r)
{
	free(r->in);
	free(r->b);
}

/* Write cpu's batch out, as the module's emit_batch does. */
static void run_emit(struct run *r, uint16_t cpu)
{
	struct ccswap_batch *b = &r->enc[cpu];
	struct out_batch *o;

	if (ccswap_empty(b))
		return;
	if (r->nb == r->bcap) {
		r->bcap = r->bcap ? 2 * r->bcap : 64;
		r->b = realloc(r->b, r->bcap * sizeof(*r->b));
		if (!r->b)
			abort();
	}
	o = &r->b[r->nb++];
	o->len = ccswap_payload_size(b);
	if (o->len > PERFINFO_CCSWAP_BATCH_SIZE) {
		test_fail("batch %zu is 0x%x bytes, more than 0x400", r->nb - 1, o->len);
		o->len = PERFINFO_CCSWAP_BATCH_SIZE;
	}
	memcpy(o->payload, &b->hdr, o->len);
	o->cpu = cpu;
	o->last_time = (int64_t)b->last_time;
	ccswap_reset(b);
	model_reset(&r->model[cpu]);
}

/* One switch: the model's prediction, the encoder's answer, the retry. */
static enum ccswap_add_result run_feed(struct run *r, uint16_t cpu,
				       const struct ccswap_switch *sw, uint64_t tick)
{
	enum ccswap_add_result want = model_predict(&r->model[cpu], sw, tick);
	enum ccswap_add_result got = ccswap_add(&r->enc[cpu], sw, tick);
	struct input *in;

	if (got != want && !r->mismatch_reported) {
		test_fail("switch %zu (cpu %u time %" PRIu64 " tid %u): ccswap_add says %d, the seed's rules %d",
			  r->n, cpu, (uint64_t)sw->time, sw->old_tid, got, want);
		r->mismatch_reported = true;
	}
	if (got != CCSWAP_ADDED) {
		run_emit(r, cpu);
		if (ccswap_add(&r->enc[cpu], sw, tick) != CCSWAP_ADDED)
			test_fail("an empty batch refused switch %zu", r->n);
	}
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 256;
		r->in = realloc(r->in, r->cap * sizeof(*r->in));
		if (!r->in)
			abort();
	}
	in = &r->in[r->n];
	in->sw = *sw;
	in->tick = tick;
	in->cpu = cpu;
	in->result = got;
	in->order = r->n++;
	if (want != CCSWAP_ADDED)
		model_reset(&r->model[cpu]);
	in->type = model_add(&r->model[cpu], sw, tick);
	return got;
}

/* Stopping the logger: every CPU's batch goes out. */
static void run_stop(struct run *r)
{
	for (uint16_t c = 0; c < MAX_CPUS; c++)
		run_emit(r, c);
}

/*
 * The batches in a file: buffers of one CPU each, CPUs interleaved by a
 * PRNG (each CPU's batches keep their order, as a logger writes them).
 */
static uint8_t *run_file(const struct run *r, uint64_t seed, size_t *size)
{
	size_t next[MAX_CPUS] = { 0 }, left = r->nb;
	struct synth s;
	int cur = -1;

	synth_begin(&s, 4096, MAX_CPUS);
	while (left) {
		uint16_t cpu = (uint16_t)(test_rand(&seed) % MAX_CPUS);
		const struct out_batch *o = NULL;

		while (next[cpu] < r->nb && r->b[next[cpu]].cpu != cpu)
			next[cpu]++;
		if (next[cpu] == r->nb)
			continue;
		o = &r->b[next[cpu]++];
		left--;
		/* a new buffer when the CPU changes or the batch does not fit */
		if (cur != cpu || s.filled + synth_align(0x10 + o->len) > s.buffer_size) {
			synth_buffer(&s, cpu);
			cur = cpu;
		}
		synth_record(&s, ETW_EVENT_COMPACT_CSWITCH_HOOK, etw_events[ETW_EVENT_COMPACT_CSWITCH].version,
			     o->last_time, o->payload, o->len);
	}
	return synth_end(&s, size);
}

static int input_cmp(const void *a, const void *b)
{
	const struct input *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu - y->cpu;
	if (x->sw.time != y->sw.time)
		return x->sw.time < y->sw.time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Compare one decoded switch with the input it came from. */
static bool same_switch(const struct input *in, const struct input *next,
			const struct etl_switch *d, size_t i)
{
	const struct ccswap_switch *sw = &in->sw;
	bool idle = sw->old_tid == 0;
	uint8_t want_known = 0;

#define DIFF(what, got, want)						\
	do {								\
		test_fail("cpu %u switch %zu (time %" PRIu64 "): %s is %lld, expected %lld", \
			  in->cpu, i, (uint64_t)sw->time, what,	\
			  (long long)(got), (long long)(want));		\
		return false;						\
	} while (0)

	if (d->cpu != in->cpu)
		DIFF("cpu", d->cpu, in->cpu);
	if ((uint64_t)d->time != sw->time)
		DIFF("time", d->time, sw->time);
	if (d->old_tid != sw->old_tid)
		DIFF("old tid", d->old_tid, sw->old_tid);
	if (d->source != ETL_SWITCH_COMPACT)
		DIFF("source", d->source, ETL_SWITCH_COMPACT);
	if (d->packet_type != in->type)
		DIFF("packet type", d->packet_type, in->type);
	if (next) {
		want_known |= ETL_SWITCH_HAS_NEW;
		if (d->new_tid != next->sw.old_tid)
			DIFF("new tid", d->new_tid, next->sw.old_tid);
	}
	if (!idle) {
		want_known |= ETL_SWITCH_HAS_STATE | ETL_SWITCH_HAS_PRIORITY;
		if (d->old_state != sw->old_state)
			DIFF("state", d->old_state, sw->old_state);
		if (sw->old_state == ETW_KTHREAD_WAITING &&
		    d->old_wait_reason != sw->old_wait_reason)
			DIFF("wait reason", d->old_wait_reason, sw->old_wait_reason);
		if (d->old_priority != sw->old_priority)
			DIFF("priority", d->old_priority, sw->old_priority);
		if (in->type == PERF_CSWAP_LITE) {
			want_known |= ETL_SWITCH_WAIT_AT_MOST_1;
			if (sw->new_wait_ticks > 1)
				DIFF("LITE for a wait of", sw->new_wait_ticks, 1);
		} else {
			uint32_t w = sw->new_wait_ticks > WAIT_CAP ? WAIT_CAP : sw->new_wait_ticks;

			want_known |= ETL_SWITCH_HAS_WAIT;
			if (d->new_wait_time != w)
				DIFF("wait", d->new_wait_time, w);
		}
	}
	if (d->known != want_known)
		DIFF("known", d->known, want_known);
#undef DIFF
	return true;
}

/*
 * Read the batches back from a file and compare every switch with its
 * input: per CPU in time order, new tid from the next switch.
 */
static void run_verify(struct run *r, uint64_t seed)
{
	struct input *want = malloc((r->n ? r->n : 1) * sizeof(*want));
	struct etl_switches s;
	struct etl_error err;
	struct etl_file f;
	uint64_t bytes = 0;
	uint8_t *img;
	size_t size;

	if (!want)
		abort();
	img = run_file(r, seed, &size);
	CHECK(img != NULL);
	if (!img || etl_open_memory(&f, "ccswap", img, size, &err)) {
		test_fail("the synthetic file does not open");
		free(img);
		free(want);
		return;
	}
	if (etl_switches_read(&f, &s, &err)) {
		test_fail("etl_switches_read: %s", err.msg);
		goto out;
	}
	CHECK_EQ(s.n, r->n);
	CHECK_EQ(s.total.compact.switches, r->n);
	CHECK_EQ(s.total.compact.records, r->nb);
	CHECK_EQ(s.total.full.switches, 0);
	for (size_t i = 0; i < r->nb; i++)
		bytes += synth_align(0x10 + r->b[i].len);
	CHECK_EQ(s.total.compact.bytes, bytes);
	CHECK_EQ(s.total.batch_overlaps, 0);

	memcpy(want, r->in, r->n * sizeof(*want));
	qsort(want, r->n, sizeof(*want), input_cmp);
	for (size_t i = 0; i < r->n && i < s.n; i++) {
		const struct input *next = i + 1 < r->n && want[i + 1].cpu == want[i].cpu ?
					   &want[i + 1] : NULL;

		if (!same_switch(&want[i], next, &s.v[i], i))
			break;
	}
out:
	etl_switches_free(&s);
	etl_close(&f);
	free(img);
	free(want);
}

static struct ccswap_switch idle_at(uint64_t time)
{
	return (struct ccswap_switch){ .time = time };
}

static struct ccswap_switch thread_at(uint64_t time, uint32_t tid, int8_t base,
				      int8_t prio, uint32_t wait)
{
	return (struct ccswap_switch){
		.time = time, .old_tid = tid,
		.old_state = ETW_KTHREAD_WAITING,
		.old_wait_reason = ETW_KWAIT_USER_REQUEST,
		.old_priority = prio, .old_base_priority = base,
		.new_wait_ticks = wait,
	};
}

/* ---------------------------------------------------------------------- */
/* Packet forms                                                            */
/* ---------------------------------------------------------------------- */

static void check_bytes(const uint8_t *got, const uint8_t *want, size_t n,
			const char *what)
{
	for (size_t i = 0; i < n; i++) {
		if (got[i] != want[i]) {
			test_fail("%s: byte %zu is 0x%02x, expected 0x%02x", what, i,
				  got[i], want[i]);
			return;
		}
	}
}

/*
 * Bytes worked out by hand from the masks in seed 002:
 *   IDLE_SHORT 0x3FFF: 0 | 0x3FFF << 2                         = 0xFFFC
 *   IDLE 0x4000:       1 | 0x4000 << 2                         = 0x00010001
 *   IDLE 2^30-1:       1 | 0x3FFFFFFF << 2                     = 0xFFFFFFFD
 *   LITE idx 0, inc 0, UserRequest (6), delta 0: 2 | 6 << 9    = 0x00000C02
 *   LITE idx 1, inc 7, UserRequest, delta 0x1FFFF:
 *     2 | 1 << 2 | 7 << 6 | 6 << 9 | 0x1FFFF << 15              = 0xFFFF8DC6
 *   FULL delta 0x20000: 3 | 0x20000 << 2                       = 0x00080003
 *        idx 2, Ready (1 + 39 = 40), priority 13, wait capped 0x1FFFF:
 *        2 | 40 << 4 | 13 << 10 | 0x1FFFF << 15                = 0xFFFFB682
 */
static void test_exact_bytes(void)
{
	static const uint8_t want_packets[] = {
		0x00, 0x00,				/* IDLE_SHORT 0 */
		0xFC, 0xFF,				/* IDLE_SHORT 2^14-1 */
		0x01, 0x00, 0x01, 0x00,			/* IDLE 2^14 */
		0xFD, 0xFF, 0xFF, 0xFF,			/* IDLE 2^30-1 */
		0x02, 0x0C, 0x00, 0x00,			/* LITE */
		0xC6, 0x8D, 0xFF, 0xFF,			/* LITE at its limits */
		0x03, 0x00, 0x08, 0x00, 0x82, 0xB6, 0xFF, 0xFF,	/* FULL */
	};
	static const enum perfinfo_ccswap_type want_types[] = {
		PERF_CSWAP_IDLE_SHORT, PERF_CSWAP_IDLE_SHORT, PERF_CSWAP_IDLE,
		PERF_CSWAP_IDLE, PERF_CSWAP_LITE, PERF_CSWAP_LITE, PERF_CSWAP_FULL,
	};
	struct ccswap_switch sw[7];
	uint64_t t = 5000000;
	struct run r;

	test_begin("exact_bytes");
	sw[0] = idle_at(t);
	sw[1] = idle_at(t += 0x3FFF);
	sw[2] = idle_at(t += 0x4000);
	sw[3] = idle_at(t += 0x3FFFFFFF);
	sw[4] = thread_at(t, 100, 8, 8, 0);
	sw[5] = thread_at(t += 0x1FFFF, 200, 10, 17, 1);
	sw[6] = thread_at(t += 0x20000, 300, 13, 13, 200000);
	sw[6].old_state = ETW_KTHREAD_READY;
	sw[6].old_wait_reason = ETW_KWAIT_WR_PREEMPTED;	/* not kept: not Waiting */

	run_init(&r);
	for (int i = 0; i < 7; i++) {
		CHECK_EQ(run_feed(&r, 0, &sw[i], 0), CCSWAP_ADDED);
		CHECK_EQ(r.in[i].type, want_types[i]);
	}
	run_stop(&r);
	CHECK_EQ(r.nb, 1);
	if (r.nb == 1) {
		const uint8_t *p = r.b[0].payload;
		struct perfinfo_ccswap_buffer h;

		CHECK_EQ(r.b[0].len, 0x58 + sizeof(want_packets));
		memcpy(&h, p, sizeof(h));
		CHECK_EQ(etl_le64(p), 5000000);			/* FirstTimeStamp */
		CHECK_EQ(etl_le32(p + 0x08), 100);		/* TidTable[0] */
		CHECK_EQ(etl_le32(p + 0x0C), 200);
		CHECK_EQ(etl_le32(p + 0x10), 300);
		CHECK_EQ(etl_le32(p + 0x14), 0);		/* unused: zero */
		CHECK_EQ(p[0x48], 8);				/* ThreadBasePriority[0] */
		CHECK_EQ(p[0x49], 10);
		CHECK_EQ(p[0x4A], 13);
		CHECK_EQ(p[0x4B], 0);
		check_bytes(p + 0x58, want_packets, sizeof(want_packets), "packets");
	}
	run_verify(&r, 1);
	run_free(&r);
	test_end();
}

struct form_case {
	const char *name;
	int8_t base, prio;		/* of the second switch of thread 500 */
	uint32_t wait;
	uint64_t delta;
	enum perfinfo_ccswap_type want;
	uint32_t want_wait;		/* decoded, FULL only */
};

/*
 * Thread 500 switches out once with base 8 (so its base is recorded),
 * then again with the case's priority, wait and delta.
 */
static void test_forms(void)
{
	static const struct form_case cases[] = {
		{ "lite_wait_0", 8, 8, 0, 100, PERF_CSWAP_LITE, 0 },
		{ "lite_wait_1", 8, 8, 1, 100, PERF_CSWAP_LITE, 0 },
		{ "lite_delta_2^17-1", 8, 8, 0, (1u << 17) - 1, PERF_CSWAP_LITE, 0 },
		{ "lite_pri_inc_0", 8, 8, 1, 5, PERF_CSWAP_LITE, 0 },
		{ "lite_pri_inc_7", 8, 15, 1, 5, PERF_CSWAP_LITE, 0 },
		/* the recorded base counts, not the base the thread has now */
		{ "lite_base_recorded_first", 12, 12, 0, 5, PERF_CSWAP_LITE, 0 },
		{ "full_wait_2", 8, 8, 2, 100, PERF_CSWAP_FULL, 2 },
		{ "full_delta_2^17", 8, 8, 0, 1u << 17, PERF_CSWAP_FULL, 0 },
		{ "full_pri_inc_8", 8, 16, 0, 100, PERF_CSWAP_FULL, 0 },
		{ "full_pri_inc_negative", 8, 7, 0, 100, PERF_CSWAP_FULL, 0 },
		{ "full_base_recorded_first", 4, 4, 0, 100, PERF_CSWAP_FULL, 0 },
		{ "full_delta_2^30-1", 8, 8, 0, (1u << 30) - 1, PERF_CSWAP_FULL, 0 },
		{ "full_wait_2^17-1", 8, 8, WAIT_CAP, 100, PERF_CSWAP_FULL, WAIT_CAP },
		{ "full_wait_capped_2^17", 8, 8, WAIT_CAP + 1, 100, PERF_CSWAP_FULL, WAIT_CAP },
		{ "full_wait_capped_max", 8, 8, UINT32_MAX, 100, PERF_CSWAP_FULL, WAIT_CAP },
		{ "full_priority_31", 8, 31, 0, 100, PERF_CSWAP_FULL, 0 },
		{ "full_priority_0", 8, 0, 0, 100, PERF_CSWAP_FULL, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct form_case *c = &cases[i];
		struct ccswap_switch a = thread_at(1000, 500, 8, 8, 0), b;
		struct perfinfo_ccswap_packet pkt;
		struct run r;

		test_begin("form_%s", c->name);
		b = thread_at(1000 + c->delta, 500, c->base, c->prio, c->wait);
		run_init(&r);
		CHECK_EQ(run_feed(&r, 0, &a, 0), CCSWAP_ADDED);
		CHECK_EQ(run_feed(&r, 0, &b, 0), CCSWAP_ADDED);
		CHECK_EQ(r.in[1].type, c->want);
		run_stop(&r);
		CHECK_EQ(r.nb, 1);
		/* the packet itself, with the uapi decoder */
		if (r.nb == 1 && r.b[0].len == 0x58 + 4 + perfinfo_ccswap_packet_size(c->want)) {
			CHECK_EQ(perfinfo_ccswap_decode(r.b[0].payload + 0x5C, r.b[0].len - 0x5C, &pkt),
				 perfinfo_ccswap_packet_size(c->want));
			CHECK_EQ(pkt.type, c->want);
			CHECK_EQ(pkt.time_delta, c->delta);
			CHECK_EQ(pkt.tid_index, 0);
			CHECK_EQ(pkt.state_wr, ETW_KWAIT_USER_REQUEST);
			if (c->want == PERF_CSWAP_LITE)
				CHECK_EQ(pkt.pri_inc, c->prio - 8);
			else
				CHECK_EQ(pkt.new_thread_wait_time, c->want_wait);
		} else {
			test_fail("batch is not the two packets expected");
		}
		run_verify(&r, i);
		run_free(&r);
		test_end();
	}

	/* The idle forms: delta 0 (a batch's first), 2^14-1, 2^14, 2^30-1. */
	test_begin("form_idle");
	{
		static const uint64_t deltas[] = { 0, (1u << 14) - 1, 1u << 14, (1u << 30) - 1, 0 };
		static const enum perfinfo_ccswap_type want[] = {
			PERF_CSWAP_IDLE_SHORT, PERF_CSWAP_IDLE_SHORT, PERF_CSWAP_IDLE,
			PERF_CSWAP_IDLE, PERF_CSWAP_IDLE_SHORT,
		};
		uint64_t t = 77;
		struct run r;

		run_init(&r);
		for (int i = 0; i < 5; i++) {
			struct ccswap_switch sw = idle_at(t += deltas[i]);

			CHECK_EQ(run_feed(&r, 0, &sw, 0), CCSWAP_ADDED);
			CHECK_EQ(r.in[i].type, want[i]);
		}
		run_stop(&r);
		CHECK_EQ(r.nb, 1);
		CHECK_EQ(r.b[0].len, 0x58 + 2 + 2 + 4 + 4 + 2);
		run_verify(&r, 7);
		run_free(&r);
	}
	test_end();

	/* Every state and wait reason comes back from OldThreadStateWr. */
	test_begin("form_state_wr_all");
	{
		uint64_t t = 1;
		struct run r;

		run_init(&r);
		for (uint8_t st = 0; st < ETW_KTHREAD_MAXIMUM_STATE; st++) {
			for (uint8_t wr = 0; wr < ETW_MAXIMUM_WAIT_REASON; wr++) {
				struct ccswap_switch sw = thread_at(t++, 4, 8, 8, 0);

				if (st != ETW_KTHREAD_WAITING && wr)
					continue;
				sw.old_state = st;
				sw.old_wait_reason = wr;
				run_feed(&r, 0, &sw, 0);
			}
		}
		run_stop(&r);
		run_verify(&r, 3);
		run_free(&r);
	}
	test_end();
}

/* ---------------------------------------------------------------------- */
/* Why a batch is written out                                              */
/* ---------------------------------------------------------------------- */

/* Batch k starts with input i: its FirstTimeStamp, first packet and tid. */
static void check_starts_batch(const struct run *r, size_t k, size_t i)
{
	const struct out_batch *o;
	const struct input *in = &r->in[i];
	struct perfinfo_ccswap_packet pkt;

	if (k >= r->nb) {
		test_fail("no batch %zu", k);
		return;
	}
	o = &r->b[k];
	CHECK_EQ(etl_le64(o->payload), in->sw.time);
	CHECK(perfinfo_ccswap_decode(o->payload + 0x58, o->len - 0x58, &pkt) > 0);
	CHECK_EQ(pkt.time_delta, 0);
	if (in->sw.old_tid)
		CHECK_EQ(etl_le32(o->payload + 8), in->sw.old_tid);
}

static void test_full_tids(void)
{
	struct ccswap_switch sw;
	uint64_t t = 100;
	struct run r;

	test_begin("flush_17th_tid");
	run_init(&r);
	for (uint32_t tid = 1; tid <= 16; tid++) {
		sw = thread_at(t += 10, tid * 4, 8, 8, 0);
		CHECK_EQ(run_feed(&r, 0, &sw, 0), CCSWAP_ADDED);
		/* the idle thread and threads seen before take no slot */
		sw = idle_at(t += 10);
		CHECK_EQ(run_feed(&r, 0, &sw, 0), CCSWAP_ADDED);
		sw = thread_at(t += 10, 4, 8, 8, 0);
		CHECK_EQ(run_feed(&r, 0, &sw, 0), CCSWAP_ADDED);
	}
	CHECK_EQ(r.enc[0].tids, 16);
	CHECK_EQ(r.nb, 0);
	sw = thread_at(t += 10, 17 * 4, 9, 9, 0);
	CHECK_EQ(run_feed(&r, 0, &sw, 0), CCSWAP_FULL_TIDS);
	CHECK_EQ(r.nb, 1);
	check_starts_batch(&r, 0, 0);
	run_stop(&r);
	CHECK_EQ(r.nb, 2);
	check_starts_batch(&r, 1, r.n - 1);
	if (r.nb == 2) {
		CHECK_EQ(r.b[1].payload[0x48], 9);	/* its base priority */
		CHECK_EQ(etl_le32(r.b[0].payload + 8 + 15 * 4), 16 * 4);
	}
	run_verify(&r, 11);
	run_free(&r);
	test_end();
}

static void test_too_old(void)
{
	static const struct {
		uint64_t tick;
		enum ccswap_add_result want;
	} steps[] = {
		{ 1000, CCSWAP_ADDED },		/* the batch starts at tick 1000 */
		{ 1200, CCSWAP_ADDED },
		{ 1500, CCSWAP_ADDED },		/* exactly 500 ticks: still in */
		{ 1501, CCSWAP_TOO_OLD },	/* 501: out, and it starts anew */
		{ 2001, CCSWAP_ADDED },
		{ 2002, CCSWAP_TOO_OLD },
	};
	uint64_t t = 10;
	struct run r;

	test_begin("flush_too_old_500_ticks");
	run_init(&r);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct ccswap_switch sw = i % 2 ? idle_at(t += 3) : thread_at(t += 3, 40, 8, 8, 0);

		CHECK_EQ(run_feed(&r, 0, &sw, steps[i].tick), steps[i].want);
	}
	run_stop(&r);
	CHECK_EQ(r.nb, 3);
	check_starts_batch(&r, 1, 3);
	check_starts_batch(&r, 2, 5);
	run_verify(&r, 12);
	run_free(&r);
	test_end();
}

/* Fill a batch with packets of one form until it is written out. */
static void fill_batch(const char *name, bool idle, unsigned int want_packets,
		       uint32_t want_len)
{
	uint64_t t = 1000;
	unsigned int i;
	struct run r;

	test_begin("flush_no_room_%s", name);
	run_init(&r);
	for (i = 0; i < 2000; i++) {
		/* FULL by a wait of 5 ticks; IDLE_SHORT by a small delta */
		struct ccswap_switch sw = idle ? idle_at(t += 7) :
					  thread_at(t += 7, 8 + 4 * (i % 3), 8, 8, 5);

		if (run_feed(&r, 0, &sw, 0) != CCSWAP_ADDED)
			break;
	}
	CHECK_EQ(i, want_packets);
	CHECK_EQ(r.in[r.n - 1].result, CCSWAP_NO_ROOM);
	CHECK_EQ(r.nb, 1);
	if (r.nb == 1)
		CHECK_EQ(r.b[0].len, want_len);
	check_starts_batch(&r, 0, 0);
	run_stop(&r);
	check_starts_batch(&r, 1, r.n - 1);
	for (size_t k = 0; k < r.nb; k++)
		CHECK(r.b[k].len <= PERFINFO_CCSWAP_BATCH_SIZE);
	run_verify(&r, 13);
	run_free(&r);
	test_end();
}

static void test_no_room(void)
{
	/* 117 FULL packets: 0x58 + 936 = 0x400 exactly; the 118th goes out */
	fill_batch("full_packets", false, 117, PERFINFO_CCSWAP_BATCH_SIZE);
	/* 465 IDLE_SHORT: 930 bytes, 6 left (< 8): the 466th goes out */
	fill_batch("idle_short_packets", true, 465, 0x58 + 930);
}

static void test_delta(void)
{
	struct ccswap_switch sw;
	uint64_t t = 1ull << 33;
	struct run r;

	test_begin("flush_delta_too_big");
	run_init(&r);
	sw = thread_at(t, 12, 8, 8, 0);
	CHECK_EQ(run_feed(&r, 0, &sw, 0), CCSWAP_ADDED);
	sw = idle_at(t += (1u << 30) - 1);		/* the largest delta */
	CHECK_EQ(run_feed(&r, 0, &sw, 0), CCSWAP_ADDED);
	sw = thread_at(t += (1u << 30) - 1, 12, 8, 8, 0);
	CHECK_EQ(run_feed(&r, 0, &sw, 0), CCSWAP_ADDED);
	CHECK_EQ(r.in[2].type, PERF_CSWAP_FULL);
	sw = idle_at(t += 1u << 30);			/* one more: out */
	CHECK_EQ(run_feed(&r, 0, &sw, 0), CCSWAP_DELTA_TOO_BIG);
	check_starts_batch(&r, 0, 0);
	sw = thread_at(t += 5ull << 32, 12, 8, 8, 0);	/* far more */
	CHECK_EQ(run_feed(&r, 0, &sw, 0), CCSWAP_DELTA_TOO_BIG);
	sw = idle_at(t - 1);				/* back in time: out */
	CHECK_EQ(run_feed(&r, 0, &sw, 0), CCSWAP_DELTA_TOO_BIG);
	sw = thread_at(t - 1, 16, 8, 8, 0);		/* delta 0 is fine */
	CHECK_EQ(run_feed(&r, 0, &sw, 0), CCSWAP_ADDED);
	run_stop(&r);
	CHECK_EQ(r.nb, 4);
	check_starts_batch(&r, 1, 3);
	check_starts_batch(&r, 2, 4);
	check_starts_batch(&r, 3, 5);
	/* read back in time order: the batch that went back comes first */
	run_verify(&r, 14);
	run_free(&r);
	test_end();
}

/* ---------------------------------------------------------------------- */
/* A long random stream                                                    */
/* ---------------------------------------------------------------------- */

#define NTHREADS	60

/* Mostly short gaps, so that batches also fill up; now and then a long one. */
static uint64_t pick_gap(uint64_t *seed)
{
	static const uint64_t edges[] = {
		0, (1u << 14) - 1, 1u << 14, (1u << 17) - 1, 1u << 17,
	};
	uint64_t r = test_rand(seed) % 1000;

	if (r < 600)
		return test_rand(seed) % (1u << 14);
	if (r < 850)
		return test_rand(seed) % (1u << 17);
	if (r < 950)
		return test_rand(seed) % (1u << 19);
	if (r < 992)
		return edges[test_rand(seed) % (sizeof(edges) / sizeof(edges[0]))];
	if (r < 995)
		return (1u << 30) - 1 + test_rand(seed) % 2;	/* 2^30 - 1 or 2^30 */
	if (r < 998)
		return test_rand(seed) % (1ull << 31);
	return test_rand(seed) % (1ull << 34);
}

static uint32_t pick_wait(uint64_t *seed)
{
	uint64_t r = test_rand(seed) % 100;

	if (r < 55)
		return 0;
	if (r < 75)
		return 1;
	if (r < 90)
		return 2 + (uint32_t)(test_rand(seed) % 1000);
	if (r < 95)
		return WAIT_CAP - 1 + (uint32_t)(test_rand(seed) % 3);
	return (uint32_t)test_rand(seed);
}

static void test_random_stream(void)
{
	uint32_t tids[NTHREADS];
	int8_t base[NTHREADS];
	uint64_t time[MAX_CPUS], tick[MAX_CPUS], seed = 0xcc5a9001;
	bool few[MAX_CPUS] = { false };	/* a phase with few threads on the CPU */
	unsigned long results[5] = { 0 }, types[4] = { 0 };
	struct run r;

	test_begin("random_stream_200000");
	for (int i = 0; i < NTHREADS; i++) {
		tids[i] = 1000 + 4 * (uint32_t)i;
		base[i] = (int8_t)(1 + test_rand(&seed) % 31);
	}
	tids[NTHREADS - 1] = 0xFFFFFFFC;	/* the largest thread id */
	for (int c = 0; c < MAX_CPUS; c++) {
		time[c] = 1000000000ull + test_rand(&seed) % 1000;
		tick[c] = 100;
	}
	run_init(&r);
	for (int i = 0; i < 200000; i++) {
		uint16_t cpu = (uint16_t)(test_rand(&seed) % MAX_CPUS);
		struct ccswap_switch sw = { 0 };
		uint64_t roll;

		/* forward only: a clock going back is flush_delta_too_big's */
		time[cpu] += pick_gap(&seed);
		/*
		 * Ticks follow the clock (QPC on CPUs 0-1, cycles on 2-3, where
		 * 2^30 units come before 500 ticks), with the odd stall.
		 */
		if (time[cpu] / (cpu < 2 ? TICK_QPC : TICK_CYCLES) > tick[cpu])
			tick[cpu] = time[cpu] / (cpu < 2 ? TICK_QPC : TICK_CYCLES);
		if (test_rand(&seed) % 500 == 0)
			tick[cpu] += test_rand(&seed) % 600;
		sw.time = time[cpu];
		if (test_rand(&seed) % 400 == 0)
			few[cpu] = !few[cpu];
		if (test_rand(&seed) % 4) {
			/* a few busy threads, or all of them */
			int t = few[cpu] ? (int)(cpu * 3 + test_rand(&seed) % 4) :
				(int)(test_rand(&seed) % NTHREADS);
			int inc;

			if (test_rand(&seed) % 200 == 0)	/* renice */
				base[t] = (int8_t)(1 + test_rand(&seed) % 31);
			roll = test_rand(&seed) % 100;
			inc = roll < 70 ? 0 : roll < 85 ? (int)(test_rand(&seed) % 8) :
			      roll < 95 ? 8 + (int)(test_rand(&seed) % 10) :
			      -(int)(1 + test_rand(&seed) % 5);
			sw.old_tid = tids[t];
			sw.old_base_priority = base[t];
			sw.old_priority = (int8_t)(base[t] + inc < 0 ? 0 :
						   base[t] + inc > 31 ? 31 : base[t] + inc);
			sw.old_state = (uint8_t)(test_rand(&seed) % ETW_KTHREAD_MAXIMUM_STATE);
			if (test_rand(&seed) % 2)
				sw.old_state = ETW_KTHREAD_WAITING;
			sw.old_wait_reason = (uint8_t)(test_rand(&seed) % ETW_MAXIMUM_WAIT_REASON);
		}
		sw.new_wait_ticks = pick_wait(&seed);
		results[run_feed(&r, cpu, &sw, tick[cpu])]++;
		types[r.in[r.n - 1].type]++;
		/* a logger flush now and then writes every batch out */
		if (test_rand(&seed) % 5000 == 0)
			run_stop(&r);
	}
	run_stop(&r);
	/* the stream must reach every reason and every form */
	for (int k = 0; k < 5; k++)
		if (!results[k])
			test_fail("no switch got ccswap_add result %d", k);
	for (int k = 0; k < 4; k++)
		if (!types[k])
			test_fail("no packet of type %d", k);
	for (size_t k = 0; k < r.nb; k++)
		if (r.b[k].len > PERFINFO_CCSWAP_BATCH_SIZE)
			test_fail("batch %zu is 0x%x bytes", k, r.b[k].len);
	run_verify(&r, 0xf11e);
	run_free(&r);
	test_end();
}

int main(void)
{
	test_exact_bytes();
	test_forms();
	test_full_tids();
	test_too_old();
	test_no_room();
	test_delta();
	test_random_stream();
	return test_exit();
}
