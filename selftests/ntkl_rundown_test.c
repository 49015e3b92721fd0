// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_rundown_test: each rundown is closed the Windows way. In the
 * Windows samples (shared/docs/windows-event-catalogue.md) a kernel
 * logger's DCStart rundown and its DCEnd rundown each end with an
 * EventTrace/RundownComplete event (0x0008, PERFINFO64, version 2, no
 * payload) timed after every record of that rundown; tools take it as
 * "the rundown is whole".
 *
 * This is also the cost of a new event in ntkl (docs/design.md): its line
 * in uapi/ntkl_events.h, its producer (module/producers/process.c), and
 * this test.
 */
#include "kselftest_harness.h"
#include "ntkl_util.h"
#include "etl_check.h"
#include "etl_reader.h"

struct rundown_view {
	unsigned int complete;			/* RundownComplete events */
	int64_t complete_time[4];
	int64_t last_dcstart, first_dcend, last_dcend;
	bool complete_shape_ok;			/* header, version, size */
	unsigned long violations;
	char first_violation[256];
};

static void on_violation(void *ctx, const char *msg)
{
	struct rundown_view *v = ctx;

	if (!v->violations++)
		snprintf(v->first_violation, sizeof(v->first_violation), "%s", msg);
}

static bool is_dc(uint16_t hook, bool end)
{
	if (end)
		return hook == ETW_EVENT_PROCESS_DC_END_HOOK || hook == ETW_EVENT_THREAD_DC_END_HOOK;
	return hook == ETW_EVENT_PROCESS_DC_START_HOOK || hook == ETW_EVENT_THREAD_DC_START_HOOK;
}

static int view_capture(struct capture *cap, struct rundown_view *v)
{
	struct etl_record_cursor rc;
	struct etl_error err;
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_record r;
	struct etl_file f;

	memset(v, 0, sizeof(*v));
	v->complete_shape_ok = true;
	v->first_dcend = INT64_MAX;
	if (etl_open_memory(&f, "capture", cap->data, cap->size, &err)) {
		snprintf(v->first_violation, sizeof(v->first_violation), "%s", err.msg);
		return -1;
	}
	etl_buffers_begin(&f, &bc);
	while (etl_next_buffer(&f, &bc, &b, &err) == 1) {
		etl_records_begin(&b, &rc);
		while (etl_next_record(&b, &rc, &r, &err) == 1) {
			if (r.kind != ETL_KIND_KERNEL)
				continue;
			if (is_dc(r.hook_id, false) && r.timestamp > v->last_dcstart)
				v->last_dcstart = r.timestamp;
			if (is_dc(r.hook_id, true)) {
				if (r.timestamp > v->last_dcend)
					v->last_dcend = r.timestamp;
				if (r.timestamp < v->first_dcend)
					v->first_dcend = r.timestamp;
			}
			if (r.hook_id != ETW_EVENT_RUNDOWN_COMPLETE_HOOK)
				continue;
			if (r.header_type != ETW_HEADER_TYPE_PERFINFO64 ||
			    (r.version & 0xFF) != 2 || r.payload_len != 0)
				v->complete_shape_ok = false;
			if (v->complete < 4)
				v->complete_time[v->complete] = r.timestamp;
			v->complete++;
		}
	}
	etl_check(&f, false, on_violation, v, NULL);
	etl_close(&f);
	return 0;
}

FIXTURE(rundown) {
	int ctl;
	int reader;
};

FIXTURE_SETUP(rundown)
{
	self->ctl = ntkl_open();
	ASSERT_GE(self->ctl, 0);
	self->reader = ntkl_open();
	ASSERT_GE(self->reader, 0);
}

FIXTURE_TEARDOWN(rundown)
{
	ntkl_stop_name(self->ctl, "selftest rundown");
	close(self->reader);
	close(self->ctl);
}

/* Two rundowns, each closed by one RundownComplete after all its records. */
TEST_F(rundown, complete_after_each_rundown)
{
	struct ntkl_properties p, final = { .size = sizeof(final) };
	struct capture c = { 0 };
	struct rundown_view v;
	int64_t first, second;

	props_init(&p, "selftest rundown", EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD);
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	ASSERT_EQ(0, ntkl_bind_id(self->reader, p.logger_id));
	run_execs("/bin/true", 3);
	ASSERT_EQ(0, ntkl_stop_name(self->ctl, "selftest rundown"));
	ASSERT_EQ(0, capture_drain(self->reader, p.buffer_size_kb * 1024, &c, 0));
	ASSERT_EQ(0, ntkl_ctl(self->reader, NTKL_IOC_QUERY, &final));
	capture_patch(&c, &final);

	ASSERT_EQ(0, view_capture(&c, &v)) TH_LOG("%s", v.first_violation);
	EXPECT_EQ(0, v.violations) TH_LOG("first: %s", v.first_violation);
	ASSERT_EQ(2, v.complete);
	EXPECT_TRUE(v.complete_shape_ok);
	first = v.complete_time[0] < v.complete_time[1] ? v.complete_time[0] : v.complete_time[1];
	second = v.complete_time[0] < v.complete_time[1] ? v.complete_time[1] : v.complete_time[0];
	/* the start rundown's closes it, before the stop rundown begins */
	EXPECT_GE(first, v.last_dcstart);
	EXPECT_LE(first, v.first_dcend);
	EXPECT_GE(second, v.last_dcend);
	capture_free(&c);
}

TEST_HARNESS_MAIN
