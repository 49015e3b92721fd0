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
 * in uapi/ntkl_event_list.h, its producer (module/producers/process.c),
 * and this test.
 *
 * Each rundown is bracketed as in ShutdownPerfDiagLogger.etl: it starts
 * with GroupMasksEnd (0x0020) and, at start, a PERFINFO64 copy of the
 * HeaderExtension (0x0005) before the DCStart records; at stop that copy
 * follows the DCEnd records; both carry the logger's group masks.
 *
 * The rundown's records carry what Windows' do (the samples): a Thread
 * DCStart/DCEnd header names the thread it lists, each CPU's idle thread
 * is on its own CPU, a live process's ExitStatus is STILL_ACTIVE (259),
 * and Process End carries the exit status.
 */
#include <signal.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

struct rundown_view {
	unsigned int complete;			/* RundownComplete events */
	unsigned int dc_threads, dc_thread_header_mismatch;
	uint64_t idle_affinity;			/* OR of idle threads' Affinity, DCStart */
	unsigned int idle_threads, idle_named_by_cpu;
	unsigned int dc_processes, dc_process_not_active;
	int32_t end_status[2];			/* Process End of the two children */
	uint32_t child[2];
	int64_t complete_time[4];
	int64_t masks_end_time[4], ext_time[4];	/* GroupMasksEnd, PERFINFO64 Extension */
	unsigned int masks_end, ext;
	bool masks_shape_ok;			/* PERFINFO64 v2, 36 bytes, our masks */
	struct perfinfo_groupmask want_masks;
	int64_t last_dcstart, first_dcend, last_dcend;
	bool complete_shape_ok;			/* header, version, size */
	struct capture_verdict verdict;
};

static bool is_dc(uint16_t hook, bool end)
{
	if (end)
		return hook == ETW_EVENT_PROCESS_DC_END_HOOK || hook == ETW_EVENT_THREAD_DC_END_HOOK;
	return hook == ETW_EVENT_PROCESS_DC_START_HOOK || hook == ETW_EVENT_THREAD_DC_START_HOOK;
}

/* Thread DCStart/DCEnd: the header's ids are the listed thread's. */
static void view_thread(struct rundown_view *v, const struct etl_record *r)
{
	const struct etw_thread_v3 *t = (const void *)r->payload;
	char name[32];

	if (r->hook_id != ETW_EVENT_THREAD_DC_START_HOOK &&
	    r->hook_id != ETW_EVENT_THREAD_DC_END_HOOK)
		return;
	if (r->payload_len < sizeof(*t) + 2)
		return;
	v->dc_threads++;
	if (r->process_id != t->process_id || r->thread_id != t->thread_id)
		v->dc_thread_header_mismatch++;
	if (t->thread_id || r->hook_id != ETW_EVENT_THREAD_DC_START_HOOK)
		return;
	/* an idle thread: "swapper/N" on CPU N only */
	v->idle_threads++;
	v->idle_affinity |= t->affinity;
	if (t->affinity && !(t->affinity & (t->affinity - 1))) {
		unsigned int cpu = __builtin_ctzll(t->affinity);
		char want[32];
		unsigned int i, n = (r->payload_len - sizeof(*t)) / 2;

		for (i = 0; i < n && i < sizeof(name) - 1 && r->payload[sizeof(*t) + 2 * i]; i++)
			name[i] = (char)r->payload[sizeof(*t) + 2 * i];
		name[i] = 0;
		snprintf(want, sizeof(want), "swapper/%u", cpu);
		if (!strcmp(name, want))
			v->idle_named_by_cpu++;
	}
}

/* Process records: ExitStatus. */
static void view_process(struct rundown_view *v, const struct etl_record *r)
{
	const struct etw_process_v4 *p = (const void *)r->payload;
	int i;

	if (r->payload_len < ETW_PROCESS_V4_FIXED_SIZE)
		return;
	if (r->hook_id == ETW_EVENT_PROCESS_DC_START_HOOK ||
	    r->hook_id == ETW_EVENT_PROCESS_DC_END_HOOK) {
		v->dc_processes++;
		if (p->exit_status != 259)
			v->dc_process_not_active++;
	}
	if (r->hook_id != ETW_EVENT_PROCESS_END_HOOK)
		return;
	for (i = 0; i < 2; i++)
		if (p->process_id == v->child[i])
			v->end_status[i] = p->exit_status;
}

static void view_record(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			 const struct etl_record *r)
{
	struct rundown_view *v = ctx;

	if (!r || r->kind != ETL_KIND_KERNEL)
		return;
	if (is_dc(r->hook_id, false) && r->timestamp > v->last_dcstart)
		v->last_dcstart = r->timestamp;
	view_thread(v, r);
	view_process(v, r);
	if (is_dc(r->hook_id, true)) {
		if (r->timestamp > v->last_dcend)
			v->last_dcend = r->timestamp;
		if (r->timestamp < v->first_dcend)
			v->first_dcend = r->timestamp;
	}
	if (r->hook_id == ETW_EVENT_GROUP_MASKS_END_HOOK ||
	    (r->hook_id == ETW_EVENT_HEADER_EXTENSION_HOOK &&
	     r->header_type == ETW_HEADER_TYPE_PERFINFO64)) {
		bool end = r->hook_id == ETW_EVENT_GROUP_MASKS_END_HOOK;
		unsigned int *n = end ? &v->masks_end : &v->ext;

		if (r->header_type != ETW_HEADER_TYPE_PERFINFO64 || (r->version & 0xFF) != 2 ||
		    r->payload_len != sizeof(struct etw_header_extension) ||
		    memcmp(r->payload, &v->want_masks, sizeof(v->want_masks)))
			v->masks_shape_ok = false;
		if (*n < 4)
			(end ? v->masks_end_time : v->ext_time)[*n] = r->timestamp;
		(*n)++;
	}
	if (r->hook_id != ETW_EVENT_RUNDOWN_COMPLETE_HOOK)
		return;
	if (r->header_type != ETW_HEADER_TYPE_PERFINFO64 ||
	    (r->version & 0xFF) != 2 || r->payload_len != 0)
		v->complete_shape_ok = false;
	if (v->complete < 4)
		v->complete_time[v->complete] = r->timestamp;
	v->complete++;
}

static int view_capture(struct capture *cap, struct rundown_view *v)
{
	uint32_t child[2] = { v->child[0], v->child[1] };
	struct perfinfo_groupmask masks = v->want_masks;

	memset(v, 0, sizeof(*v));
	v->child[0] = child[0];
	v->child[1] = child[1];
	v->want_masks = masks;
	v->masks_shape_ok = true;
	v->end_status[0] = v->end_status[1] = -1;
	v->complete_shape_ok = true;
	v->first_dcend = INT64_MAX;
	return capture_walk(cap, view_record, v, &v->verdict);
}

/* t[0] the earlier of two times, t[1] the later */
static void sort2(int64_t *t)
{
	if (t[0] > t[1]) {
		int64_t x = t[0];

		t[0] = t[1];
		t[1] = x;
	}
}

/* a failed case leaves no logger running into the next (ntkl_util.h) */
NTKL_READER_FIXTURE(rundown);

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

	memset(&v, 0, sizeof(v));
	memcpy(&v.want_masks, final.group_masks, sizeof(v.want_masks));
	ASSERT_EQ(0, view_capture(&c, &v)) TH_LOG("%s", v.verdict.first_violation);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	ASSERT_EQ(2, v.complete);
	EXPECT_TRUE(v.complete_shape_ok);
	first = v.complete_time[0] < v.complete_time[1] ? v.complete_time[0] : v.complete_time[1];
	second = v.complete_time[0] < v.complete_time[1] ? v.complete_time[1] : v.complete_time[0];
	/* the start rundown's closes it, before the stop rundown begins */
	EXPECT_GE(first, v.last_dcstart);
	EXPECT_LE(first, v.first_dcend);
	EXPECT_GE(second, v.last_dcend);
	/*
	 * GroupMasksEnd opens each rundown; the Extension copy as Windows
	 * places it. Buffers come in file order, not time order across CPUs:
	 * the earlier of each pair is the start rundown's.
	 */
	ASSERT_EQ(2, v.masks_end);
	ASSERT_EQ(2, v.ext);
	EXPECT_TRUE(v.masks_shape_ok);
	sort2(v.masks_end_time);
	sort2(v.ext_time);
	EXPECT_LE(v.masks_end_time[0], v.ext_time[0]);
	EXPECT_LE(v.ext_time[0], first);
	EXPECT_GE(v.masks_end_time[1], first);
	EXPECT_LE(v.masks_end_time[1], v.first_dcend);
	EXPECT_GE(v.ext_time[1], v.last_dcend);
	EXPECT_LE(v.ext_time[1], second);

	/* the rundown's records, as Windows writes them */
	EXPECT_GT(v.dc_threads, 0);
	EXPECT_EQ(0, v.dc_thread_header_mismatch);
	EXPECT_EQ(sysconf(_SC_NPROCESSORS_CONF), v.idle_threads);
	EXPECT_EQ(v.idle_threads, v.idle_named_by_cpu);
	EXPECT_EQ((1ULL << v.idle_threads) - 1, v.idle_affinity);
	EXPECT_GT(v.dc_processes, 0);
	EXPECT_EQ(0, v.dc_process_not_active);
	capture_free(&c);
}

/* Process End: exit(3) gives 3; SIGKILL gives 128 + 9, as a shell shows them. */
TEST_F(rundown, process_end_exit_status)
{
	struct ntkl_properties p, final = { .size = sizeof(final) };
	struct capture c = { 0 };
	struct rundown_view v;
	pid_t a, b;
	int status;

	props_init(&p, "selftest rundown", EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD);
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	ASSERT_EQ(0, ntkl_bind_id(self->reader, p.logger_id));
	a = fork();
	if (!a)
		_exit(3);
	b = fork();
	if (!b) {
		pause();
		_exit(0);
	}
	ASSERT_EQ(a, waitpid(a, &status, 0));
	kill(b, SIGKILL);
	ASSERT_EQ(b, waitpid(b, &status, 0));
	ASSERT_EQ(0, ntkl_stop_name(self->ctl, "selftest rundown"));
	ASSERT_EQ(0, capture_drain(self->reader, p.buffer_size_kb * 1024, &c, 0));
	ASSERT_EQ(0, ntkl_ctl(self->reader, NTKL_IOC_QUERY, &final));
	capture_patch(&c, &final);

	memset(&v, 0, sizeof(v));
	v.child[0] = a;
	v.child[1] = b;
	ASSERT_EQ(0, view_capture(&c, &v)) TH_LOG("%s", v.verdict.first_violation);
	EXPECT_EQ(0, v.verdict.violations) TH_LOG("first: %s", v.verdict.first_violation);
	EXPECT_EQ(3, v.end_status[0]);
	EXPECT_EQ(128 + SIGKILL, v.end_status[1]);
	capture_free(&c);
}

TEST_HARNESS_MAIN
