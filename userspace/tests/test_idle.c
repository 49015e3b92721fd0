// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl report's idle section (analysis/etl_idle.h) on a synthetic file:
 * an idle period runs from a switch to the idle thread to the CPU's next
 * switch, which is a wakeup for its new thread and carries the C-state
 * left; the time before a CPU's first switch and after its last counts as
 * the old and the new thread's; periods are timed only when whole in the
 * window; wakers are counted per thread, most first; --pid keeps one
 * process's wakers and every CPU's idle time; a file whose switches never
 * touch an idle thread has no section; the text and the JSON agree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "etl_synth.h"
#include "analysis/analysis.h"
#include "report_string.h"

static void cswitch(struct synth *s, int64_t t, uint32_t old_tid, uint32_t new_tid,
		    uint8_t cstate)
{
	struct wmi_contextswap cs = {
		.new_thread_id = new_tid, .old_thread_id = old_tid, .old_thread_state = 5,
		.previous_c_state = cstate,
	};

	synth_record(s, ETW_EVENT_CSWITCH_HOOK, etw_events[ETW_EVENT_CSWITCH].version, t, &cs,
		     sizeof(cs));
}

/*
 * CPU 0: 300 runs to 1000, idle to 1500 (C1 left, for 300), 300 to 2000,
 * idle to 2300 (C2 left, for 400), 400 to 2400, idle to the end (3000).
 * CPU 1: idle from the start (1000) to 1200 (C1 left, for 400), 400 to
 * 3000, then 300.
 */
static uint8_t *make_file(size_t *size)
{
	struct synth s;

	synth_begin(&s, 4096, 2);
	synth_thread(&s, ETW_EVENT_THREAD_DC_START_HOOK, 500, 300, 300, "worker");
	synth_thread(&s, ETW_EVENT_THREAD_DC_START_HOOK, 500, 400, 400, "timer");
	synth_buffer(&s, 0);
	cswitch(&s, 1000, 300, 0, 0);
	cswitch(&s, 1500, 0, 300, 1);
	cswitch(&s, 2000, 300, 0, 0);
	cswitch(&s, 2300, 0, 400, 2);
	cswitch(&s, 2400, 400, 0, 0);
	synth_buffer(&s, 1);
	cswitch(&s, 1200, 0, 400, 1);
	cswitch(&s, 3000, 400, 300, 0);
	return synth_end(&s, size);
}

static bool near(double a, double b)
{
	return a - b < 1e-9 && b - a < 1e-9;
}

static double sec(double ticks)
{
	return ticks / SYNTH_PERF_FREQ;
}

static void test_section(void)
{
	const struct etl_idle_cpu *c;
	struct etl_filter flt;
	struct etl_report r;
	struct etl_error err;
	struct etl_file f;
	char *text, *json;
	size_t size;
	uint8_t *img;

	test_begin("idle_per_cpu_and_wakers");
	img = make_file(&size);
	CHECK(img != NULL);
	CHECK_EQ(etl_open_memory(&f, "idle.etl", img, size, &err), 0);
	CHECK_EQ(etl_report_read(&f, &r, &err), 0);
	CHECK(r.idle.any);
	CHECK_EQ(r.idle.ncpus, 2);
	CHECK_EQ(r.idle.wakeups, 3);
	c = &r.idle.cpus[0];
	CHECK_EQ(c->cpu, 0);
	CHECK(near(c->idle_s, sec(500 + 300 + 600)));
	CHECK_EQ(c->wakeups, 2);
	CHECK_EQ(c->periods, 2);
	/* the upper median of 300 and 500 ticks, and the longest */
	CHECK(near(c->median_ms, sec(500) * 1e3));
	CHECK(near(c->max_ms, sec(500) * 1e3));
	CHECK_EQ(c->cstate[1], 1);
	CHECK_EQ(c->cstate[2], 1);
	CHECK_EQ(c->cstate_unknown, 0);
	c = &r.idle.cpus[1];
	CHECK_EQ(c->cpu, 1);
	CHECK(near(c->idle_s, sec(200)));
	CHECK_EQ(c->wakeups, 1);
	/* its one period began before the window: a wakeup, not timed */
	CHECK_EQ(c->periods, 0);
	CHECK_EQ(c->cstate[1], 1);
	/* the idle time is the one busy % leaves */
	CHECK(near(100.0 - r.busy_pct[0], 100.0 * 1400 / 2000));
	CHECK(near(100.0 - r.busy_pct[1], 100.0 * 200 / 2000));
	CHECK_EQ(r.idle.nwakers, 2);
	CHECK_EQ(r.idle.wakers[0].tid, 400);
	CHECK_EQ(r.idle.wakers[0].wakeups, 2);
	CHECK_STR(r.idle.wakers[0].name, "timer");
	CHECK_EQ(r.idle.wakers[1].tid, 300);
	CHECK_EQ(r.idle.wakers[1].pid, 300);
	CHECK_EQ(r.idle.wakers[1].wakeups, 1);

	text = report_string(&r, false);
	CHECK(text != NULL);
	CHECK_HAS(text, "\nIdle (the CPUs' idle threads, from the context switches):\n");
	CHECK_HAS(text, "     0     0.0001         2 ");
	CHECK_HAS(text, "  C1 1, C2 1\n");
	CHECK_HAS(text, "     400      400         2  timer");
	json = report_string(&r, true);
	CHECK(json != NULL);
	CHECK_HAS(json, "\"idle\": {\"any\": true, \"wakeups\": 3, \"cpus\": [");
	CHECK_HAS(json, "{\"cpu\": 0, \"idle_s\": 0.000140, \"wakeups\": 2, ");
	CHECK_HAS(json, "\"periods\": 2, \"median_ms\": 0.050000, \"max_ms\": 0.050000, \"cstates\": {\"1\": 1, \"2\": 1}, \"cstate_unknown\": 0}");
	CHECK_HAS(json, "{\"tid\": 400, \"pid\": 400, \"wakeups\": 2, \"name\": \"timer\"");
	free(text);
	free(json);
	etl_report_free(&r);
	test_end();

	test_begin("wakers_filtered_by_pid");
	memset(&flt, 0, sizeof(flt));
	flt.pids[flt.npids++] = 300;
	CHECK_EQ(etl_report_read_filtered(&f, &r, &flt, &err), 0);
	CHECK_EQ(r.idle.nwakers, 1);
	CHECK_EQ(r.idle.wakers[0].tid, 300);
	/* a CPU's idle time is the CPU's, whichever threads are selected */
	CHECK(near(r.idle.cpus[0].idle_s, sec(1400)));
	CHECK_EQ(r.idle.wakeups, 3);
	etl_report_free(&r);
	test_end();

	test_begin("no_idle_switches");
	{
		struct synth s;
		uint8_t *busy;

		synth_begin(&s, 4096, 1);
		synth_buffer(&s, 0);
		cswitch(&s, 1000, 300, 400, 0);
		cswitch(&s, 2000, 400, 300, 0);
		busy = synth_end(&s, &size);
		etl_close(&f);
		CHECK_EQ(etl_open_memory(&f, "busy.etl", busy, size, &err), 0);
		CHECK_EQ(etl_report_read(&f, &r, &err), 0);
		CHECK(!r.idle.any);
		CHECK_EQ(r.idle.wakeups, 0);
		text = report_string(&r, false);
		CHECK(text && !strstr(text, "Idle ("));
		free(text);
		json = report_string(&r, true);
		CHECK_HAS(json, "\"idle\": {\"any\": false, \"wakeups\": 0,");
		free(json);
		etl_report_free(&r);
		free(busy);
	}
	test_end();
	etl_close(&f);
	free(img);
}

int main(void)
{
	test_section();
	return test_exit();
}
