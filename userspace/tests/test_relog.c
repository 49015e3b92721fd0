// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl relog --expand-compact (etl_relog.h) on synthetic compact captures:
 * switches on two CPUs encoded by the module's own CompCS encoder
 * (uapi/ntkl_ccswap.h) into batches, ReadyThread events between them,
 * several small buffers per CPU. The expanded file must pass every
 * reader check, hold one CSwitch per compact switch but each CPU's last,
 * with the fields the packets carried, keep every other event, and come
 * out the same from the compressed form of its input.
 */
#include "test.h"
#include "etl_synth.h"
#include "etl/etl_check.h"
#include "analysis/etl_relog.h"
#include "etl/etl_switches.h"
#include "uapi/ntkl_ccswap.h"

#define NCPUS		2
#define PER_CPU		3000
#define BUFFER		4096

struct want {
	int64_t time;
	uint32_t old_tid;
	uint8_t state, reason;
	int8_t prio;
	uint32_t wait;
};

static struct want wanted[NCPUS][PER_CPU];
static unsigned int nwanted[NCPUS];
static unsigned long readies;

static uint32_t rnd_state = 12345;

static uint32_t rnd(uint32_t n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 8) % n;
}

/* A record on cpu, in a new buffer of that CPU when the open one is full. */
static void emit(struct synth *s, uint16_t cpu, uint16_t hook, uint16_t version, int64_t t,
		 const void *payload, uint32_t len)
{
	uint32_t need = synth_align((uint32_t)sizeof(struct perfinfo_trace_header) + len);

	if (s->cpu != cpu || !s->filled || s->filled + need > s->buffer_size)
		synth_buffer(s, cpu);
	synth_record(s, hook, version, t, payload, len);
}

/* A full batch, written (as the module does) when the next switch does not fit. */
static void emit_batch(struct synth *s, uint16_t cpu, struct ccswap_batch *b, uint64_t now)
{
	if (ccswap_empty(b))
		return;
	emit(s, cpu, ETW_EVENT_COMPACT_CSWITCH_HOOK,
	     etw_events[ETW_EVENT_COMPACT_CSWITCH].version, (int64_t)now,
	     &b->hdr, ccswap_payload_size(b));
	ccswap_reset(b);
}

/* One CPU's switches and ReadyThread events, as the module writes them. */
static void one_cpu(struct synth *s, uint16_t cpu)
{
	static struct ccswap_batch b;
	uint64_t t = 5000 + cpu;

	ccswap_reset(&b);
	synth_buffer(s, cpu);	/* not the header buffer */
	for (unsigned int i = 0; i < PER_CPU; i++) {
		struct want *w = &wanted[cpu][nwanted[cpu]++];
		struct ccswap_switch sw = { 0 };

		t += 1 + rnd(rnd(8) ? 40 : 5000);
		if (!rnd(3)) {
			struct etw_ready_thread rt = { .thread_id = 100 + rnd(50) };

			emit(s, cpu, ETW_EVENT_READY_THREAD_HOOK,
			     etw_events[ETW_EVENT_READY_THREAD].version, (int64_t)t, &rt,
			     sizeof(rt));
			readies++;
			t++;
		}
		sw.time = t;
		sw.old_tid = rnd(5) ? 100 + rnd(40) : 0;
		sw.old_base_priority = 8;
		sw.old_priority = (int8_t)(8 + rnd(3));
		sw.old_state = rnd(4) ? ETW_KTHREAD_WAITING : ETW_KTHREAD_READY;
		sw.old_wait_reason = sw.old_state == ETW_KTHREAD_WAITING ? (uint8_t)rnd(7) :
				     ETW_KWAIT_WR_PREEMPTED;
		sw.new_wait_ticks = rnd(2) ? rnd(2) : rnd(100000);
		*w = (struct want){ (int64_t)t, sw.old_tid, sw.old_state, sw.old_wait_reason,
				    sw.old_priority, sw.new_wait_ticks };
		if (ccswap_add(&b, &sw, 0) != CCSWAP_ADDED) {
			emit_batch(s, cpu, &b, t);
			ccswap_add(&b, &sw, 0);
		}
	}
	emit_batch(s, cpu, &b, t + 1);
}

static uint8_t *compact_file(size_t *size)
{
	struct synth s;

	synth_begin(&s, BUFFER, NCPUS);
	for (uint16_t cpu = 0; cpu < NCPUS; cpu++)
		one_cpu(&s, cpu);
	return synth_end(&s, size);
}

static uint8_t *relog(const uint8_t *img, size_t size, size_t *out_size,
		      struct etl_relog_stats *st)
{
	struct etl_error err;
	struct etl_file f;
	uint8_t *out = NULL;

	if (etl_open_memory(&f, "in", img, size, &err)) {
		test_fail("open: %s", err.msg);
		return NULL;
	}
	if (etl_relog_expand_compact(&f, &out, out_size, st, &err))
		test_fail("relog: %s", err.msg);
	etl_close(&f);
	return out;
}

static void report(void *ctx, const char *msg)
{
	(void)ctx;
	test_fail("check: %s", msg);
}

/* The expanded switches against what was encoded. */
static void check_switches(const struct etl_switches *s)
{
	size_t i = 0;

	CHECK_EQ(s->n, (size_t)(NCPUS * (PER_CPU - 1)));
	for (uint32_t cpu = 0; cpu < NCPUS && s->n == NCPUS * (PER_CPU - 1); cpu++) {
		for (unsigned int k = 0; k + 1 < nwanted[cpu]; k++, i++) {
			const struct etl_switch *sw = &s->v[i];
			const struct want *w = &wanted[cpu][k], *next = w + 1;
			/* an IDLE packet carries no wait time */
			bool wait_ok = !w->old_tid ? true : w->wait <= 1 ? sw->new_wait_time <= 1 :
				       sw->new_wait_time == (w->wait > 131071 ? 131071 : w->wait);

			if (sw->source != ETL_SWITCH_FULL || sw->cpu != cpu ||
			    sw->time != w->time || sw->old_tid != w->old_tid ||
			    sw->new_tid != next->old_tid || !wait_ok ||
			    (w->old_tid && (sw->old_state != w->state ||
					    sw->old_priority != w->prio ||
					    (w->state == ETW_KTHREAD_WAITING &&
					     sw->old_wait_reason != w->reason)))) {
				test_fail("cpu %u switch %u (time %lld): old %u new %u state %u reason %u prio %d wait %u",
					  cpu, k, (long long)sw->time, sw->old_tid, sw->new_tid,
					  sw->old_state, sw->old_wait_reason, sw->old_priority,
					  sw->new_wait_time);
				return;
			}
		}
	}
	CHECK_EQ(s->total.ready_threads, readies);
	CHECK_EQ(s->total.compact.switches, 0);
}

static void test_expand(void)
{
	struct etl_relog_stats st, cst;
	struct etl_check_stats cs;
	struct etl_switches sw = { 0 };
	struct etl_error err;
	struct etl_file f;
	size_t size, csize, out_size = 0, cout_size = 0;
	uint8_t *img, *cimg, *out, *cout;

	test_begin("expand_compact");
	img = compact_file(&size);
	CHECK(img != NULL);
	out = img ? relog(img, size, &out_size, &st) : NULL;
	CHECK(out != NULL);
	if (out) {
		CHECK_EQ(st.dropped, NCPUS);
		CHECK_EQ(st.switches, NCPUS * (PER_CPU - 1));
		CHECK_EQ(st.records, readies);
		CHECK(st.batches > 2 * NCPUS);
		CHECK(st.buffers_out > st.buffers_in);
		CHECK_EQ(etl_open_memory(&f, "out", out, out_size, &err), 0);
		CHECK_EQ(f.header.buffers_written, 1 + st.buffers_out);
		CHECK_EQ(etl_check(&f, false, report, NULL, &cs), 0);
		CHECK_EQ(cs.records, 2 + readies + st.switches);
		CHECK_EQ(etl_switches_read(&f, &sw, &err), 0);
		check_switches(&sw);
		etl_switches_free(&sw);
		etl_close(&f);
	}
	test_end();

	test_begin("expand_compressed_input");
	cimg = img ? synth_compress(img, size, &csize) : NULL;
	CHECK(cimg != NULL);
	cout = cimg ? relog(cimg, csize, &cout_size, &cst) : NULL;
	CHECK(cout != NULL);
	CHECK_EQ(cout_size, out_size);
	CHECK(cout && out && !memcmp(cout, out, out_size));
	test_end();
	free(cout);
	free(cimg);
	free(out);
	free(img);
}

/* A file without CompCS comes out with the same events. */
static void test_nothing_to_expand(void)
{
	struct etl_relog_stats st;
	struct etl_check_stats cs;
	struct etl_error err;
	struct etl_file f;
	struct synth s;
	size_t size, out_size = 0;
	uint8_t *img, *out;

	test_begin("nothing_to_expand");
	synth_begin(&s, BUFFER, 1);
	synth_buffer(&s, 0);
	for (int i = 0; i < 10; i++) {
		struct etw_ready_thread rt = { .thread_id = 7 };

		synth_record(&s, ETW_EVENT_READY_THREAD_HOOK,
			     etw_events[ETW_EVENT_READY_THREAD].version, 100 + i, &rt, sizeof(rt));
	}
	img = synth_end(&s, &size);
	out = img ? relog(img, size, &out_size, &st) : NULL;
	CHECK(out != NULL);
	if (out) {
		CHECK_EQ(st.batches, 0);
		CHECK_EQ(st.records, 10);
		CHECK_EQ(st.buffers_out, 1);
		CHECK_EQ(etl_open_memory(&f, "out", out, out_size, &err), 0);
		CHECK_EQ(etl_check(&f, false, report, NULL, &cs), 0);
		CHECK_EQ(cs.records, 12);
		etl_close(&f);
	}
	test_end();
	free(out);
	free(img);
}

int main(void)
{
	test_expand();
	test_nothing_to_expand();
	return test_exit();
}
