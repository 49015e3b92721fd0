// SPDX-License-Identifier: GPL-2.0
/*
 * The switch reader (etl_switches_read()) and the dump paths built on it
 * (--events switch lines, --stats, --switches), on synthetic files:
 * CSwitch events and CompCS batches on two CPUs, buffers of the CPUs
 * interleaved, one CPU's batches out of order in the file; then malformed
 * batches, which must give an error naming the buffer, record and packet
 * (never a crash: ASan build), and a fuzz loop over the same file.
 */
#include <inttypes.h>

#include "test.h"
#include "etl_synth.h"
#include "analysis/etl_dump.h"
#include "etl/etl_reader.h"
#include "etl/etl_switches.h"

/* ---------------------------------------------------------------------- */
/* Building events by hand                                                 */
/* ---------------------------------------------------------------------- */

struct hand_batch {
	uint8_t p[PERFINFO_CCSWAP_BATCH_SIZE + 16];
	uint32_t len;
};

static void hb_begin(struct hand_batch *b, int64_t first, const uint32_t *tids,
		     const int8_t *bases, int n)
{
	struct perfinfo_ccswap_buffer h = { .first_timestamp = first };

	for (int i = 0; i < n; i++) {
		h.tid_table[i] = tids[i];
		h.thread_base_priority[i] = bases[i];
	}
	memcpy(b->p, &h, sizeof(h));
	b->len = sizeof(h);
}

static void hb_add(struct hand_batch *b, enum perfinfo_ccswap_type type, uint32_t delta,
		   uint8_t idx, uint8_t state_wr, uint8_t prio_or_inc, uint32_t wait)
{
	struct perfinfo_ccswap_packet pkt = {
		.type = type, .time_delta = delta, .tid_index = idx,
		.state_wr = state_wr, .new_thread_wait_time = wait,
	};

	if (type == PERF_CSWAP_LITE)
		pkt.pri_inc = prio_or_inc;
	else
		pkt.priority = prio_or_inc;
	b->len += perfinfo_ccswap_encode(b->p + b->len, &pkt);
}

static void put_cswitch(struct synth *s, int64_t t, uint32_t old, uint32_t new,
			int8_t old_prio, uint8_t state, uint8_t reason, uint32_t wait)
{
	struct wmi_contextswap c = {
		.new_thread_id = new, .old_thread_id = old,
		.new_thread_priority = 8, .old_thread_priority = old_prio,
		.old_thread_wait_reason = reason, .old_thread_state = state,
		.new_thread_wait_time = wait,
	};

	synth_record(s, ETW_EVENT_CSWITCH_HOOK, etw_events[ETW_EVENT_CSWITCH].version, t, &c, sizeof(c));
}

static void put_ready(struct synth *s, int64_t t, uint32_t tid)
{
	struct etw_ready_thread rt = { .thread_id = tid, .adjust_reason = ETW_ADJUST_UNWAIT };

	synth_record(s, ETW_EVENT_READY_THREAD_HOOK, etw_events[ETW_EVENT_READY_THREAD].version, t, &rt, sizeof(rt));
}

static void put_batch(struct synth *s, int64_t t, const struct hand_batch *b)
{
	synth_record(s, ETW_EVENT_COMPACT_CSWITCH_HOOK, etw_events[ETW_EVENT_COMPACT_CSWITCH].version, t, b->p, b->len);
}

#define WR(state)	((uint8_t)(ETW_MAXIMUM_WAIT_REASON + (state)))

/*
 * CPU 0: five CSwitch events, then one CompCS batch. CPU 1: three CompCS
 * batches, the second (by time) first in the file. ReadyThread on both.
 *
 *   buffer 1 cpu 0: CSwitch 100, 150, 300
 *   buffer 2 cpu 1: batch B2 (40000..40005)
 *   buffer 3 cpu 0: ReadyThread x2, CSwitch 400, 500
 *   buffer 4 cpu 1: batch B1 (1000..37484), batch B3 (50000..50007), ReadyThread
 *   buffer 5 cpu 0: batch C (600..650)
 */
static uint8_t *mixed_file(size_t *size, struct hand_batch *b2_out)
{
	static const uint32_t t1[] = { 40, 50 }, t2[] = { 50, 40 }, t3[] = { 60 }, tc[] = { 10 };
	static const int8_t p1[] = { 10, 4 }, p2[] = { 4, 10 }, p3[] = { 8 }, pc[] = { 8 };
	struct hand_batch b1, b2, b3, c;
	struct synth s;

	hb_begin(&b1, 1000, t1, p1, 2);
	hb_add(&b1, PERF_CSWAP_IDLE_SHORT, 0, 0, 0, 0, 0);			/* 1000 */
	hb_add(&b1, PERF_CSWAP_LITE, 100, 0, ETW_KWAIT_USER_REQUEST, 0, 0);	/* 1100 */
	hb_add(&b1, PERF_CSWAP_FULL, 20000, 1, WR(ETW_KTHREAD_READY), 6, 7);	/* 21100 */
	hb_add(&b1, PERF_CSWAP_IDLE, 16384, 0, 0, 0, 0);			/* 37484 */
	hb_begin(&b2, 40000, t2, p2, 2);
	hb_add(&b2, PERF_CSWAP_LITE, 0, 0, WR(ETW_KTHREAD_READY), 2, 0);	/* 40000 */
	hb_add(&b2, PERF_CSWAP_FULL, 5, 1, ETW_KWAIT_EXECUTIVE, 11, 131071);	/* 40005 */
	hb_begin(&b3, 50000, t3, p3, 1);
	hb_add(&b3, PERF_CSWAP_IDLE_SHORT, 0, 0, 0, 0, 0);			/* 50000 */
	hb_add(&b3, PERF_CSWAP_LITE, 7, 0, ETW_KWAIT_USER_REQUEST, 0, 0);	/* 50007 */
	hb_begin(&c, 600, tc, pc, 1);
	hb_add(&c, PERF_CSWAP_LITE, 0, 0, ETW_KWAIT_WR_QUEUE, 1, 0);		/* 600 */
	hb_add(&c, PERF_CSWAP_IDLE_SHORT, 50, 0, 0, 0, 0);			/* 650 */
	if (b2_out)
		*b2_out = b2;

	synth_begin(&s, 4096, 2);
	synth_buffer(&s, 0);
	put_cswitch(&s, 100, 0, 10, 0, ETW_KTHREAD_READY, 0, 0);
	put_cswitch(&s, 150, 10, 20, 9, ETW_KTHREAD_WAITING, ETW_KWAIT_USER_REQUEST, 3);
	put_cswitch(&s, 300, 20, 0, 12, ETW_KTHREAD_READY, ETW_KWAIT_WR_PREEMPTED, 0);
	synth_buffer(&s, 1);
	put_batch(&s, 40005, &b2);
	synth_buffer(&s, 0);
	put_ready(&s, 120, 20);
	put_ready(&s, 140, 30);
	put_cswitch(&s, 400, 0, 30, 0, ETW_KTHREAD_READY, 0, 0);
	put_cswitch(&s, 500, 30, 10, 8, ETW_KTHREAD_WAITING, ETW_KWAIT_EXECUTIVE, 1);
	synth_buffer(&s, 1);
	put_batch(&s, 37484, &b1);
	put_batch(&s, 50007, &b3);
	put_ready(&s, 50010, 60);
	synth_buffer(&s, 0);
	put_batch(&s, 650, &c);
	return synth_end(&s, size);
}

static const char mixed_switches[] =
	"# cpu time old new clock=1 freq=10000000\n"
	"0 100 0 10\n"
	"0 150 10 20\n"
	"0 300 20 0\n"
	"0 400 0 30\n"
	"0 500 30 10\n"
	"0 600 10 0\n"
	"0 650 0 -\n"
	"1 1000 0 40\n"
	"1 1100 40 50\n"
	"1 21100 50 0\n"
	"1 37484 0 50\n"
	"1 40000 50 40\n"
	"1 40005 40 0\n"
	"1 50000 0 60\n"
	"1 50007 60 -\n";

/* The dump of a file in memory; stdout and stderr as strings. */
static int dump_strings(const uint8_t *img, size_t size, unsigned int flags,
			char **out, char **err)
{
	size_t no, ne;
	FILE *o = open_memstream(out, &no), *e = open_memstream(err, &ne);
	uint8_t *copy = test_copy(img, size);
	int rc = etl_dump_memory("synthetic.etl", copy, size, flags, o, e, "dump: ");

	fclose(o);
	fclose(e);
	free(copy);
	return rc;
}

static int read_switches(const uint8_t *img, size_t size, struct etl_switches *s,
			 struct etl_error *err)
{
	struct etl_file f;
	int rc;

	memset(s, 0, sizeof(*s));
	if (etl_open_memory(&f, "synthetic.etl", img, size, err))
		return -2;
	rc = etl_switches_read(&f, s, err);
	etl_close(&f);
	return rc;
}

/* ---------------------------------------------------------------------- */
/* The stream                                                              */
/* ---------------------------------------------------------------------- */

static const char *fmt(const struct etl_switches *s, int64_t time, uint32_t cpu, char *buf,
		       size_t size)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].cpu == cpu && s->v[i].time == time)
			return etl_switch_format(&s->v[i], buf, size);
	return "(no such switch)";
}

static void test_mixed(void)
{
	struct etl_switches s;
	struct etl_error err;
	char *out = NULL, *errs = NULL, line[256];
	uint8_t *img;
	size_t size;
	int rc;

	img = mixed_file(&size, NULL);
	test_begin("mixed_read");
	CHECK(img != NULL);
	if (!img) {
		test_end();
		return;
	}
	rc = read_switches(img, size, &s, &err);
	CHECK_EQ(rc, 0);
	if (rc)
		test_fail("%s", err.msg);
	CHECK_EQ(s.n, 15);
	CHECK_EQ(s.ncpus, 2);
	if (s.ncpus == 2) {
		CHECK_EQ(s.cpu[0].full.switches, 5);
		CHECK_EQ(s.cpu[0].full.records, 5);
		CHECK_EQ(s.cpu[0].full.bytes, 5 * 40);		/* 0x10 + 0x18 */
		CHECK_EQ(s.cpu[0].compact.switches, 2);
		CHECK_EQ(s.cpu[0].compact.records, 1);
		CHECK_EQ(s.cpu[0].compact.bytes, 112);		/* 0x10 + 0x58 + 6, padded */
		CHECK_EQ(s.cpu[1].full.switches, 0);
		CHECK_EQ(s.cpu[1].compact.switches, 8);
		CHECK_EQ(s.cpu[1].compact.records, 3);
		CHECK_EQ(s.cpu[1].compact.bytes, 128 + 120 + 112);
		CHECK_EQ(s.cpu[0].ready_threads, 2);
		CHECK_EQ(s.cpu[1].ready_threads, 1);
	}
	CHECK_EQ(s.total.full.switches, 5);
	CHECK_EQ(s.total.compact.switches, 10);
	CHECK_EQ(s.total.ready_threads, 3);
	CHECK_EQ(s.total.chain_breaks, 0);
	CHECK_EQ(s.total.batch_overlaps, 0);
	test_end();

	test_begin("mixed_fields");
	CHECK_STR(fmt(&s, 100, 0, line, sizeof(line)),
		  "switch cpu=0 time=100 old=0 new=10 state=- reason=- prio=- wait=-");
	CHECK_STR(fmt(&s, 150, 0, line, sizeof(line)),
		  "switch cpu=0 time=150 old=10 new=20 state=Waiting reason=UserRequest prio=9 wait=3");
	CHECK_STR(fmt(&s, 300, 0, line, sizeof(line)),
		  "switch cpu=0 time=300 old=20 new=0 state=Ready reason=- prio=12 wait=0-1");
	CHECK_STR(fmt(&s, 500, 0, line, sizeof(line)),
		  "switch cpu=0 time=500 old=30 new=10 state=Waiting reason=Executive prio=8 wait=0-1");
	/* compact after full on one CPU: the full event's new is its old */
	CHECK_STR(fmt(&s, 600, 0, line, sizeof(line)),
		  "switch cpu=0 time=600 old=10 new=0 state=Waiting reason=WrQueue prio=9 wait=0-1");
	CHECK_STR(fmt(&s, 650, 0, line, sizeof(line)),
		  "switch cpu=0 time=650 old=0 new=- state=- reason=- prio=- wait=-");
	CHECK_STR(fmt(&s, 1100, 1, line, sizeof(line)),
		  "switch cpu=1 time=1100 old=40 new=50 state=Waiting reason=UserRequest prio=10 wait=0-1");
	CHECK_STR(fmt(&s, 21100, 1, line, sizeof(line)),
		  "switch cpu=1 time=21100 old=50 new=0 state=Ready reason=- prio=6 wait=7");
	/* across batches: B1's last switch brings in B2's first old thread */
	CHECK_STR(fmt(&s, 37484, 1, line, sizeof(line)),
		  "switch cpu=1 time=37484 old=0 new=50 state=- reason=- prio=- wait=-");
	CHECK_STR(fmt(&s, 40000, 1, line, sizeof(line)),
		  "switch cpu=1 time=40000 old=50 new=40 state=Ready reason=- prio=6 wait=0-1");
	CHECK_STR(fmt(&s, 40005, 1, line, sizeof(line)),
		  "switch cpu=1 time=40005 old=40 new=0 state=Waiting reason=Executive prio=11 wait=131071+");
	CHECK_STR(fmt(&s, 50007, 1, line, sizeof(line)),
		  "switch cpu=1 time=50007 old=60 new=- state=Waiting reason=UserRequest prio=8 wait=0-1");
	if (s.n == 15) {
		CHECK_EQ(s.v[1].source, ETL_SWITCH_FULL);
		CHECK_EQ(s.v[5].source, ETL_SWITCH_COMPACT);
		CHECK_EQ(s.v[5].packet_type, PERF_CSWAP_LITE);
		CHECK_EQ(s.v[9].packet_type, PERF_CSWAP_FULL);
		CHECK_EQ(s.v[9].buffer_index, 4);
		CHECK_EQ(s.v[9].packet, 2);
		CHECK_EQ(s.v[11].buffer_index, 2);	/* B2, first in the file */
	}
	etl_switches_free(&s);
	test_end();

	test_begin("dump_switches_exact");
	rc = dump_strings(img, size, ETL_DUMP_SWITCHES, &out, &errs);
	CHECK_EQ(rc, 0);
	CHECK_STR(out, mixed_switches);
	CHECK_STR(errs, "");
	free(out);
	free(errs);
	test_end();

	test_begin("dump_stats");
	rc = dump_strings(img, size, ETL_DUMP_STATS, &out, &errs);
	CHECK_EQ(rc, 0);
	CHECK_HAS(out, "Clock: 1 (QPC), PerfFreq 10000000\n");
	CHECK_HAS(out, "Context switches: 15 (CSwitch 5, CompCS 10)\n");
	CHECK_HAS(out, "CSwitch (0x0524): one event per switch\n"
		       "   cpu   switches     events        bytes  bytes/switch\n"
		       "     0          5          5          200         40.00\n"
		       "     1          0          0            0             -\n"
		       " total          5          5          200         40.00\n");
	CHECK_HAS(out, "   cpu   switches    batches        bytes  bytes/switch\n"
		       "     0          2          1          112         56.00\n"
		       "     1          8          3          360         45.00\n"
		       " total         10          4          472         47.20\n");
	CHECK_HAS(out, "ReadyThread (0x0532)\n"
		       "   cpu     events\n"
		       "     0          2\n"
		       "     1          1\n"
		       " total          3\n");
	CHECK(!strstr(out, "NewThreadId is not"));
	/* Every event by name, most first, for any file. */
	CHECK_HAS(out, "\nEvents by name\n"
		       "   count  event\n"
		       "       5  0x0524 Thread/CSwitch\n"
		       "       4  0x0525 Thread/CompCS\n"
		       "       3  0x0532 Thread/ReadyThread\n"
		       "       1  0x0000 EventTrace/Header\n"
		       "       1  0x0005 EventTrace/Extension\n"
		       "      14  total, in 6 buffers\n");
	CHECK_STR(errs, "");
	free(out);
	free(errs);
	test_end();

	test_begin("dump_events_switch_lines");
	rc = dump_strings(img, size, ETL_DUMP_EVENTS, &out, &errs);
	CHECK_EQ(rc, 0);
	CHECK_STR(errs, "");
	/* after the CSwitch event's fields */
	CHECK_HAS(out, "OldThreadWaitIdealProcessor=0 NewThreadWaitTime=3 OldThreadRemainingQuantum=0\n"
		       "    switch cpu=0 time=150 old=10 new=20 state=Waiting reason=UserRequest prio=9 wait=3\n");
	/* after B2's packets, with new from B3 and the next packet */
	CHECK_HAS(out, "Priority=11 NewThreadWaitTime=131071\n"
		       "    switch cpu=1 time=40000 old=50 new=40 state=Ready reason=- prio=6 wait=0-1\n"
		       "    switch cpu=1 time=40005 old=40 new=0 state=Waiting reason=Executive prio=11 wait=131071+\n"
		       "[buf 3 cpu 0");
	CHECK_HAS(out, "    switch cpu=1 time=37484 old=0 new=50 state=- reason=- prio=- wait=-\n"
		       "[buf 4 cpu 1 ");
	/* one line per switch, none twice */
	{
		unsigned int n = 0;

		for (const char *p = out; (p = strstr(p, "    switch cpu=")); p++)
			n++;
		CHECK_EQ(n, 15);
	}
	free(out);
	free(errs);
	test_end();

	test_begin("dump_check_passes");
	rc = dump_strings(img, size, ETL_DUMP_CHECK, &out, &errs);
	CHECK_STR(errs, "");
	CHECK_EQ(rc, 0);
	CHECK_HAS(out, "OK:");
	CHECK_STR(errs, "");
	free(out);
	free(errs);
	test_end();
	free(img);
}

/* The dump's events after the header buffer's (LogFileMode differs), up to the buffer table. */
static char *events_part(char *out)
{
	char *start = out ? strstr(out, "\n[buf 1 ") : NULL;
	char *end = start ? strstr(start, "\nBuffers:\n") : NULL;

	if (end)
		*end = '\0';
	return start ? start : "(no events)";
}

/*
 * The same file with its data buffers compressed: the same switches, the
 * same events. The CompCS batches wait for the end of the walk, after
 * their decompressed buffers are gone.
 */
static void test_mixed_compressed(void)
{
	char *out = NULL, *errs = NULL, *cout = NULL, *cerrs = NULL;
	struct etl_switches s;
	struct etl_error err;
	uint8_t *img, *cimg = NULL;
	size_t size, csize = 0;
	int rc;

	test_begin("mixed_compressed");
	img = mixed_file(&size, NULL);
	if (img)
		cimg = synth_compress(img, size, &csize);
	CHECK(cimg != NULL);
	if (!cimg) {
		free(img);
		test_end();
		return;
	}
	CHECK(csize < size);
	rc = read_switches(cimg, csize, &s, &err);
	if (rc)
		test_fail("%s", err.msg);
	CHECK_EQ(s.n, 15);
	CHECK_EQ(s.total.compact.switches, 10);
	etl_switches_free(&s);

	CHECK_EQ(dump_strings(cimg, csize, ETL_DUMP_SWITCHES, &cout, &cerrs), 0);
	CHECK_STR(cout, mixed_switches);
	CHECK_STR(cerrs, "");
	free(cout);
	free(cerrs);

	CHECK_EQ(dump_strings(img, size, ETL_DUMP_EVENTS, &out, &errs), 0);
	CHECK_EQ(dump_strings(cimg, csize, ETL_DUMP_EVENTS, &cout, &cerrs), 0);
	CHECK_HAS(cout, "Compressed: 5 buffers, ");
	CHECK_STR(events_part(cout), events_part(out));	/* cuts both short */
	CHECK_STR(cerrs, "");
	free(out);
	free(errs);
	free(cout);
	free(cerrs);

	CHECK_EQ(dump_strings(cimg, csize, ETL_DUMP_CHECK, &cout, &cerrs), 0);
	CHECK_HAS(cout, "OK: 6 buffers");
	CHECK_STR(cerrs, "");
	free(cout);
	free(cerrs);
	free(img);
	free(cimg);
	test_end();
}

/* CSwitch events alone: numbers for unknown names, a broken chain counted. */
static void test_full_only(void)
{
	struct etl_switches s;
	struct etl_error err;
	char *out = NULL, *errs = NULL, line[256];
	struct synth sy;
	uint8_t *img;
	size_t size;

	synth_begin(&sy, 4096, 4);
	synth_buffer(&sy, 3);
	put_cswitch(&sy, 10, 0, 5, 0, 0, 0, 0);
	put_cswitch(&sy, 20, 5, 6, 9, ETW_KTHREAD_WAITING, 200, 2);	/* reason 200 */
	put_cswitch(&sy, 30, 7, 0, 9, 12, 0, UINT32_MAX);		/* state 12; 6 lost */
	img = synth_end(&sy, &size);

	test_begin("full_only");
	CHECK(img != NULL);
	CHECK_EQ(read_switches(img, size, &s, &err), 0);
	CHECK_EQ(s.n, 3);
	CHECK_EQ(s.ncpus, 4);
	CHECK_EQ(s.total.chain_breaks, 1);
	CHECK_STR(fmt(&s, 20, 3, line, sizeof(line)),
		  "switch cpu=3 time=20 old=5 new=6 state=Waiting reason=200 prio=9 wait=2");
	CHECK_STR(fmt(&s, 30, 3, line, sizeof(line)),
		  "switch cpu=3 time=30 old=7 new=0 state=12 reason=- prio=9 wait=131071+");
	etl_switches_free(&s);
	CHECK_EQ(dump_strings(img, size, ETL_DUMP_STATS, &out, &errs), 0);
	CHECK_HAS(out, "CompCS (0x0525): compact batches, the thread switched in is the next switch's old thread\n  none\n");
	CHECK_HAS(out, "ReadyThread (0x0532)\n  none\n");
	CHECK_HAS(out, "     3          3          3          120         40.00\n");
	CHECK_HAS(out, "NewThreadId is not the next switch's OldThreadId on the CPU: 1\n");
	free(out);
	free(errs);
	test_end();
	free(img);

	/* No switch at all: just the header line. */
	synth_begin(&sy, 4096, 1);
	img = synth_end(&sy, &size);
	test_begin("no_switches");
	CHECK_EQ(dump_strings(img, size, ETL_DUMP_SWITCHES, &out, &errs), 0);
	CHECK_STR(out, "# cpu time old new clock=1 freq=10000000\n");
	free(out);
	free(errs);
	CHECK_EQ(dump_strings(img, size, ETL_DUMP_STATS, &out, &errs), 0);
	CHECK_HAS(out, "Context switches: 0 (CSwitch 0, CompCS 0)\n");
	free(out);
	free(errs);
	test_end();
	free(img);
}

/* ---------------------------------------------------------------------- */
/* Malformed events                                                        */
/* ---------------------------------------------------------------------- */

/* A file whose only buffer after the header holds payload as hook's event. */
static uint8_t *one_event(uint16_t hook, const void *payload, uint32_t len, size_t *size)
{
	struct synth s;

	synth_begin(&s, 4096, 1);
	synth_buffer(&s, 0);
	synth_record(&s, hook, 2, 5000, payload, len);
	return synth_end(&s, size);
}

static void expect_error(const char *name, const uint8_t *img, size_t size, const char *want)
{
	struct etl_switches s;
	struct etl_error err;
	char *out = NULL, *errs = NULL;
	char want_line[400];

	snprintf(want_line, sizeof(want_line), "dump: %s\n", want);
	test_begin("malformed_%s", name);
	CHECK(img != NULL);
	if (!img) {
		test_end();
		return;
	}
	CHECK_EQ(read_switches(img, size, &s, &err), -1);
	CHECK_STR(err.msg, want);
	CHECK(s.n == 0 && s.v == NULL && s.cpu == NULL);
	etl_switches_free(&s);

	/* --switches and --stats print nothing but the error */
	CHECK_EQ(dump_strings(img, size, ETL_DUMP_SWITCHES, &out, &errs), 1);
	CHECK_STR(out, "");
	CHECK_STR(errs, want_line);
	free(out);
	free(errs);
	CHECK_EQ(dump_strings(img, size, ETL_DUMP_STATS, &out, &errs), 1);
	CHECK_STR(errs, want_line);
	free(out);
	free(errs);
	/* --events prints the events and says it once */
	CHECK_EQ(dump_strings(img, size, ETL_DUMP_EVENTS, &out, &errs), 1);
	CHECK_STR(errs, want_line);
	CHECK(!strstr(out, "    switch cpu="));
	free(out);
	free(errs);
	/* the plain summary does not decode payloads */
	CHECK_EQ(dump_strings(img, size, 0, &out, &errs), 0);
	free(out);
	free(errs);
	test_end();
}

static void test_malformed(void)
{
	static const uint32_t tids[] = { 70, 80 };
	static const int8_t bases[] = { 8, 8 };
	struct hand_batch b;
	uint8_t *img;
	size_t size;

	/* a FULL packet cut after 5 of its 8 bytes */
	hb_begin(&b, 1000, tids, bases, 2);
	hb_add(&b, PERF_CSWAP_LITE, 0, 0, 6, 0, 0);
	hb_add(&b, PERF_CSWAP_FULL, 3, 1, 6, 8, 9);
	img = one_event(ETW_EVENT_COMPACT_CSWITCH_HOOK, b.p, b.len - 3, &size);
	expect_error("packet_past_record", img, size,
		     "buffer 1 (file offset 0x1000): record at +0x48: CompCS packet 1 at payload +0x5c: runs past the record: 5 bytes left, a packet of type 3 needs 8");
	free(img);

	/* one stray byte after the last packet */
	hb_begin(&b, 1000, tids, bases, 2);
	hb_add(&b, PERF_CSWAP_IDLE_SHORT, 0, 0, 0, 0, 0);
	b.p[b.len++] = 0x01;
	img = one_event(ETW_EVENT_COMPACT_CSWITCH_HOOK, b.p, b.len, &size);
	expect_error("one_byte_left", img, size,
		     "buffer 1 (file offset 0x1000): record at +0x48: CompCS packet 1 at payload +0x5a: runs past the record: 1 byte left, a packet of type 1 needs 4");
	free(img);

	/* a LITE packet pointing at slot 2, which holds 0 */
	hb_begin(&b, 1000, tids, bases, 2);
	hb_add(&b, PERF_CSWAP_IDLE, 20000, 0, 0, 0, 0);
	hb_add(&b, PERF_CSWAP_LITE, 1, 2, 6, 0, 0);
	img = one_event(ETW_EVENT_COMPACT_CSWITCH_HOOK, b.p, b.len, &size);
	expect_error("unused_tid_slot", img, size,
		     "buffer 1 (file offset 0x1000): record at +0x48: CompCS packet 1 at payload +0x5c: OldThreadIdIndex 2 points at an unused TidTable slot (0)");
	free(img);

	/* FirstTimeStamp so large that the deltas overflow */
	hb_begin(&b, INT64_MAX - 5, tids, bases, 2);
	hb_add(&b, PERF_CSWAP_IDLE_SHORT, 0, 0, 0, 0, 0);
	hb_add(&b, PERF_CSWAP_IDLE_SHORT, 10, 0, 0, 0, 0);
	img = one_event(ETW_EVENT_COMPACT_CSWITCH_HOOK, b.p, b.len, &size);
	expect_error("time_overflow", img, size,
		     "buffer 1 (file offset 0x1000): record at +0x48: CompCS packet 1 at payload +0x5a: the time overflows 64 bits");
	free(img);

	img = one_event(ETW_EVENT_COMPACT_CSWITCH_HOOK, b.p, 0x57, &size);
	expect_error("compcs_short_header", img, size,
		     "buffer 1 (file offset 0x1000): record at +0x48: CompCS payload is 0x57 bytes, PERFINFO_CCSWAP_BUFFER needs 0x58");
	free(img);

	img = one_event(ETW_EVENT_CSWITCH_HOOK, b.p, 0x17, &size);
	expect_error("cswitch_short", img, size,
		     "buffer 1 (file offset 0x1000): record at +0x48: CSwitch payload is 0x17 bytes, WMI_CONTEXTSWAP needs 0x18");
	free(img);

	/* a reader error (Size past the buffer's end) stops the read too */
	img = one_event(ETW_EVENT_CSWITCH_HOOK, b.p, 0x18, &size);
	if (img) {
		img[0x1000 + 0x48 + 4] = 0xF0;	/* Size 0xF028 */
		img[0x1000 + 0x48 + 5] = 0xF0;
	}
	test_begin("malformed_record_size");
	{
		struct etl_switches s;
		struct etl_error err;

		CHECK_EQ(read_switches(img, size, &s, &err), -1);
		CHECK_HAS(err.msg, "buffer 1 (file offset 0x1000): record at +0x48: Size 0xf0f0 runs past");
		etl_switches_free(&s);
	}
	test_end();
	free(img);
}

/*
 * What the header leaves open (it does not say how many TidTable slots
 * are used): any slot holding a thread id may be used, in any order.
 */
static void test_slots_any_order(void)
{
	static const uint32_t tids[] = { 70, 80, 90 };
	static const int8_t bases[] = { 8, 9, 10 };
	struct etl_switches s;
	struct etl_error err;
	struct hand_batch b;
	char line[256];
	uint8_t *img;
	size_t size;

	hb_begin(&b, 1000, tids, bases, 3);
	hb_add(&b, PERF_CSWAP_LITE, 0, 2, 6, 3, 0);
	hb_add(&b, PERF_CSWAP_LITE, 1, 0, 6, 0, 0);
	img = one_event(ETW_EVENT_COMPACT_CSWITCH_HOOK, b.p, b.len, &size);
	test_begin("tid_slots_any_order");
	CHECK_EQ(read_switches(img, size, &s, &err), 0);
	CHECK_EQ(s.n, 2);
	CHECK_STR(fmt(&s, 1000, 0, line, sizeof(line)),
		  "switch cpu=0 time=1000 old=90 new=70 state=Waiting reason=UserRequest prio=13 wait=0-1");
	etl_switches_free(&s);
	test_end();
	free(img);
}

/* ---------------------------------------------------------------------- */
/* Fuzz                                                                    */
/* ---------------------------------------------------------------------- */

/* A file cut mid-buffer: the dump shows the whole buffers, then the error. */
static void test_cut_file(void)
{
	struct hand_batch b2;
	size_t size;
	uint8_t *img = mixed_file(&size, &b2);
	char *out = NULL, *err = NULL;

	test_begin("dump_of_a_cut_file");
	CHECK(img != NULL);
	if (img) {
		/* into the last buffer, as a VM that died while writing it */
		CHECK_EQ(dump_strings(img, size - 100, 0, &out, &err), 1);
		CHECK_HAS(out, "Total: ");
		CHECK_HAS(out, "Thread/CSwitch");
		CHECK_HAS(err, "truncated file (ntkl dump --repair cuts the partial buffer off); the 5 buffers before it are shown");
	}
	free(out);
	free(err);
	free(img);
	test_end();
}

static void test_fuzz(void)
{
	static const unsigned int modes[] = {
		ETL_DUMP_SWITCHES, ETL_DUMP_STATS, ETL_DUMP_EVENTS,
		ETL_DUMP_EVENTS | ETL_DUMP_CHECK,
	};
	uint64_t seed = 0x5e1f5eed;
	unsigned long ok = 0, failed = 0;
	FILE *devnull = fopen("/dev/null", "w");
	uint8_t *img;
	size_t size;

	img = mixed_file(&size, NULL);
	test_begin("fuzz_mixed_3000");
	CHECK(img != NULL && devnull != NULL);
	for (int i = 0; img && devnull && i < 3000; i++) {
		uint8_t *m = test_copy(img, size);
		struct etl_switches s;
		struct etl_error err;
		int nmut = 1 + (int)(test_rand(&seed) % 4), rc;

		for (int k = 0; k < nmut; k++) {
			uint64_t r = test_rand(&seed);
			/* mostly inside the data buffers' records */
			size_t pos = r & 1 ? 0x1000 + (r >> 8) % (size - 0x1000) :
					     0x1000 * (1 + (r >> 8) % 5) + 0x48 + (r >> 20) % 0x100;

			if (pos < size)
				m[pos] = (uint8_t)(r >> 40);
		}
		rc = read_switches(m, size, &s, &err);
		if (rc == 0)
			ok++;
		else if (rc == -1)
			failed++;
		/* sorted by cpu then time, whatever the file says */
		for (size_t j = 1; rc == 0 && j < s.n; j++)
			if (s.v[j].cpu < s.v[j - 1].cpu ||
			    (s.v[j].cpu == s.v[j - 1].cpu && s.v[j].time < s.v[j - 1].time))
				test_fail("iteration %d: switch %zu out of order", i, j);
		etl_switches_free(&s);
		for (size_t k = 0; k < sizeof(modes) / sizeof(modes[0]); k++) {
			rc = etl_dump_memory("fuzz", m, size, modes[k], devnull, devnull, "");
			if (rc != 0 && rc != 1)
				test_fail("iteration %d: dump flags 0x%x returned %d", i, modes[k], rc);
		}
		free(m);
	}
	/* both outcomes must occur, or the loop tests little */
	CHECK(ok > 100);
	CHECK(failed > 100);
	test_end();
	free(img);
	if (devnull)
		fclose(devnull);
}

int main(void)
{
	test_mixed();
	test_mixed_compressed();
	test_full_only();
	test_malformed();
	test_slots_any_order();
	test_cut_file();
	test_fuzz();
	return test_exit();
}
