// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl_capture_test: what a logger records. A capture is read back with
 * the ntkl reader library (userspace/etl) and its strict checker, and must
 * agree with the module's own counters:
 *
 *  - rundown and process/thread events: every thread seen has a process
 *    and a name; buffers in the file = BuffersWritten, numbered 1..N;
 *  - tiny buffers and no reader: events are lost and counted, and the next
 *    buffer carries the EVENTS_LOST flag;
 *  - buffering mode keeps the newest buffers;
 *  - stopping a logger wakes a reader blocked in read() with end of data;
 *  - unloading the module with loggers running stops them cleanly.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>

#include "kselftest_harness.h"
#include "ntkl_reader.h"

#define MAX_IDS	4096
#define TASK_COMM_LEN_MAX 16

/* What a capture says about processes and threads. */
struct census {
	unsigned int buffers;
	unsigned int records;
	unsigned int process_events;
	unsigned int thread_events;
	unsigned int threads_without_process;
	unsigned int threads_without_name;
	unsigned int lost_flags;	/* buffers with EVENTS_LOST */
	bool sequence_ok;		/* buffer i has SequenceNumber i */
	unsigned long violations;	/* from etl_check */
	char first_violation[256];
	uint32_t pids[MAX_IDS];
	unsigned int npids;
	char names[MAX_IDS][TASK_COMM_LEN_MAX];
	unsigned int nnames;
};

static bool has_pid(struct census *c, uint32_t pid)
{
	unsigned int i;

	for (i = 0; i < c->npids; i++)
		if (c->pids[i] == pid)
			return true;
	return false;
}

/* Process records: the image name follows the fixed part and the SID. */
static void census_process(struct census *c, const struct etl_record *r)
{
	const struct etw_process_v4 *p = (const void *)r->payload;
	uint32_t off = ETW_PROCESS_V4_FIXED_SIZE + sizeof(struct etw_sid_header);
	const struct etw_sid *sid;

	if (r->payload_len < off + sizeof(*sid))
		return;
	sid = (const void *)(r->payload + off);
	off += sizeof(*sid) + 4 * sid->sub_authority_count;
	if (!has_pid(c, p->process_id) && c->npids < MAX_IDS)
		c->pids[c->npids++] = p->process_id;
	if (off < r->payload_len && c->nnames < MAX_IDS)
		snprintf(c->names[c->nnames++], TASK_COMM_LEN_MAX, "%.*s",
			 (int)(r->payload_len - off), (const char *)r->payload + off);
	c->process_events++;
}

static void census_thread(struct census *c, const struct etl_record *r)
{
	const struct etw_thread_v3 *t = (const void *)r->payload;

	if (r->payload_len < sizeof(*t) + 2)
		return;
	/* Thread End of an exec'd or exiting process may come after its Process End */
	if (!has_pid(c, t->process_id))
		c->threads_without_process++;
	if (r->payload_len < sizeof(*t) + 4 || !r->payload[sizeof(*t)])
		c->threads_without_name++;
	c->thread_events++;
}

/* First pass: buffers, and process events (a thread may come before its process's DCStart). */
static void census_buffers_processes(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			 const struct etl_record *r)
{
	struct census *c = ctx;

	if (!r) {
		if (b->hdr.sequence_number != b->index)
			c->sequence_ok = false;
		c->lost_flags += !!(b->hdr.buffer_flag & ETW_BUFFER_FLAG_EVENTS_LOST);
		return;
	}
	if (ETW_HOOK_GROUP(r->hook_id) == ETW_GROUP_PROCESS)
		census_process(c, r);
}

/* Second pass: thread events, now that every process is known. */
static void census_threads(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			 const struct etl_record *r)
{
	if (r && r->hook_id >= ETW_EVENT_THREAD_START_HOOK &&
	    r->hook_id <= ETW_EVENT_THREAD_DC_END_HOOK)
		census_thread(ctx, r);
}

static int take_census(struct capture *cap, struct census *c)
{
	struct capture_verdict v;

	memset(c, 0, sizeof(*c));
	c->sequence_ok = true;
	capture_walk(cap, census_buffers_processes, c, NULL);
	if (capture_walk(cap, census_threads, c, &v)) {
		snprintf(c->first_violation, sizeof(c->first_violation), "%s", v.first_violation);
		return -1;
	}
	c->buffers = v.buffers;
	c->records = v.records;
	c->violations = v.violations;
	snprintf(c->first_violation, sizeof(c->first_violation), "%s", v.first_violation);
	return 0;
}

static bool census_has_name(struct census *c, const char *name)
{
	unsigned int i;

	for (i = 0; i < c->nnames; i++)
		if (!strcmp(c->names[i], name))
			return true;
	return false;
}

static void pin_to_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *spin_thread(void *arg)
{
	usleep(1000);
	return arg;
}

/* a failed case leaves no logger running into the next (ntkl_util.h) */
NTKL_READER_FIXTURE(cap);

/* Rundown plus a workload that forks, execs and makes threads. */
TEST_F(cap, rundown_fork_exec)
{
	struct ntkl_properties p, final = { .size = sizeof(final) };
	struct capture c = { 0 };
	struct census census;
	pthread_t th[4];
	int i;

	props_init(&p, "selftest capture", EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD);
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	ASSERT_EQ(0, ntkl_bind_id(self->reader, p.logger_id));

	run_execs("/bin/true", 10);
	for (i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, spin_thread, NULL);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);

	ASSERT_EQ(0, ntkl_stop_name(self->ctl, "selftest capture"));
	ASSERT_EQ(0, capture_drain(self->reader, p.buffer_size_kb * 1024, &c, 0));
	ASSERT_EQ(0, ntkl_ctl(self->reader, NTKL_IOC_QUERY, &final));
	capture_patch(&c, &final);

	ASSERT_EQ(0, take_census(&c, &census)) TH_LOG("%s", census.first_violation);
	EXPECT_EQ(0, census.violations) TH_LOG("first: %s", census.first_violation);
	EXPECT_EQ(final.buffers_written, c.buffers);
	EXPECT_EQ(c.buffers, census.buffers);
	EXPECT_TRUE(census.sequence_ok);
	EXPECT_EQ(0, final.events_lost);
	EXPECT_EQ(0, census.lost_flags);
	EXPECT_EQ(0, census.threads_without_process);
	EXPECT_EQ(0, census.threads_without_name);
	EXPECT_TRUE(census_has_name(&census, "Idle"));
	EXPECT_TRUE(census_has_name(&census, "true"));
	/* 10 execs: Start and End of each, beyond the two rundowns */
	EXPECT_GE(census.process_events, 2 * 10 + 2 * 2);
	EXPECT_GE(census.thread_events, 2 * (10 + 4));
	EXPECT_EQ(0, capture_write(&c, "/tmp/capture.etl"));
	capture_free(&c);
}

/* Tiny buffers and no reader: losses are counted and flagged. */
TEST_F(cap, lost_events_counted)
{
	struct ntkl_properties p, q = { .size = sizeof(q) };
	struct capture c = { 0 };
	struct census census;
	uint64_t lost_before_reader;

	pin_to_cpu0();
	props_init(&p, "selftest tiny", EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD);
	p.buffer_size_kb = NTKL_MIN_BUFFER_KB;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));

	run_execs("/bin/true", 100);
	props_select(&q, "selftest tiny");
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_QUERY, &q));
	lost_before_reader = q.events_lost;
	EXPECT_GT(lost_before_reader, 0);

	/* a reader frees buffers; the next buffer on CPU 0 says events were lost */
	ASSERT_EQ(0, ntkl_bind_id(self->reader, p.logger_id));
	ASSERT_EQ(0, capture_drain(self->reader, p.buffer_size_kb * 1024, &c, 3));
	run_execs("/bin/true", 3);
	ASSERT_EQ(0, ntkl_stop_name(self->ctl, "selftest tiny"));
	ASSERT_EQ(0, capture_drain(self->reader, p.buffer_size_kb * 1024, &c, 0));
	ASSERT_EQ(0, ntkl_ctl(self->reader, NTKL_IOC_QUERY, &q));
	capture_patch(&c, &q);

	ASSERT_EQ(0, take_census(&c, &census));
	EXPECT_EQ(0, census.violations) TH_LOG("first: %s", census.first_violation);
	EXPECT_GE(q.events_lost, lost_before_reader);
	EXPECT_GE(census.lost_flags, 1);
	EXPECT_EQ(q.buffers_written, c.buffers);
	EXPECT_TRUE(census.sequence_ok);
	capture_free(&c);
}

/* A buffering-mode logger is a flight recorder: the newest buffers stay. */
TEST_F(cap, buffering_keeps_newest)
{
	uint8_t one[NTKL_MIN_BUFFER_KB * 1024];
	struct ntkl_properties p, q = { .size = sizeof(q) };
	struct capture c = { 0 };
	struct census census;

	pin_to_cpu0();
	ASSERT_EQ(0, symlink("/bin/true", "/tmp/early_marker") && errno != EEXIST);
	ASSERT_EQ(0, symlink("/bin/true", "/tmp/late_marker") && errno != EEXIST);
	props_init(&p, "selftest recorder", EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD);
	p.buffer_size_kb = NTKL_MIN_BUFFER_KB;
	p.log_file_mode = NTKL_MODE_BUFFERING;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));

	run_execs("/tmp/early_marker", 3);
	run_execs("/bin/true", 100);	/* far more than the ring holds */
	run_execs("/tmp/late_marker", 3);

	/* reading saves a snapshot; once it is read the logger goes on */
	ASSERT_EQ(0, ntkl_bind_id(self->reader, p.logger_id));
	ASSERT_EQ(0, capture_drain(self->reader, p.buffer_size_kb * 1024, &c, 0));
	ASSERT_EQ(0, ntkl_ctl(self->reader, NTKL_IOC_QUERY, &q));
	capture_patch(&c, &q);
	/* ...with the reader still open: the snapshot is whole, writers run */
	EXPECT_EQ(1, q.accept_new_events);
	EXPECT_EQ(0, read(self->reader, one, sizeof(one)));
	close(self->reader);
	self->reader = ntkl_open();

	ASSERT_EQ(0, take_census(&c, &census));
	EXPECT_EQ(0, census.violations) TH_LOG("first: %s", census.first_violation);
	EXPECT_TRUE(census_has_name(&census, "late_marker"));
	EXPECT_FALSE(census_has_name(&census, "early_marker"));
	EXPECT_LE(c.buffers, 1 + p.number_of_buffers);
	EXPECT_TRUE(census.sequence_ok);

	props_select(&q, "selftest recorder");
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_QUERY, &q));
	EXPECT_EQ(NTKL_STATUS_RUNNING, q.logger_status);
	EXPECT_EQ(1, q.accept_new_events);
	EXPECT_EQ(0, ntkl_stop_name(self->ctl, "selftest recorder"));
	capture_free(&c);
}

/* Records whose time, converted to FILETIME, falls inside [lo, hi]. */
struct clock_view {
	int64_t lo, hi;
	unsigned int checked, outside;
};

static void clock_record(void *ctx, const struct etl_file *f, const struct etl_buffer *b,
			 const struct etl_record *r)
{
	struct clock_view *cv = ctx;
	int64_t ft;

	if (!r || !etl_time_to_filetime(f, r->timestamp, &ft))
		return;
	cv->checked++;
	cv->outside += ft < cv->lo || ft > cv->hi;
}

/*
 * Each clock type: PerfFreq in the header matches the unit, so every
 * record's time, converted as readers do (StartTime + (t - SystemTime of
 * the Header event) * 10^7 / PerfFreq), falls inside the capture.
 */
TEST_F(cap, clock_types)
{
	uint32_t clock;

	for (clock = NTKL_CLOCK_QPC; clock <= NTKL_CLOCK_CYCLE; clock++) {
		struct ntkl_properties p, q = { .size = sizeof(q) };
		struct trace_logfile_header *h;
		struct clock_view cv = { 0 };
		struct capture c = { 0 };
		struct timespec now;
		int reader = ntkl_open();

		ASSERT_GE(reader, 0);
		props_init(&p, "selftest clock", EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD);
		p.clock_type = clock;
		ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
		ASSERT_EQ(0, ntkl_bind_id(reader, p.logger_id));
		run_execs("/bin/true", 3);
		ASSERT_EQ(0, ntkl_stop_name(self->ctl, "selftest clock"));
		ASSERT_EQ(0, capture_drain(reader, p.buffer_size_kb * 1024, &c, 0));
		ASSERT_EQ(0, ntkl_ctl(reader, NTKL_IOC_QUERY, &q));
		close(reader);
		capture_patch(&c, &q);

		h = capture_logfile_header(&c);
		EXPECT_EQ(clock, h->reserved_flags);
		EXPECT_EQ(p.perf_freq, h->perf_freq);
		if (clock != NTKL_CLOCK_CYCLE)
			EXPECT_EQ(10000000, h->perf_freq);
		/* from the start to now, with a second of slack for TCG */
		clock_gettime(CLOCK_REALTIME, &now);
		cv.lo = h->start_time - ETW_FILETIME_PER_SECOND;
		cv.hi = (int64_t)now.tv_sec * ETW_FILETIME_PER_SECOND + now.tv_nsec / 100 +
			ETW_FILETIME_UNIX_EPOCH + ETW_FILETIME_PER_SECOND;
		ASSERT_EQ(0, capture_walk(&c, clock_record, &cv, NULL));
		EXPECT_GT(cv.checked, 10);
		EXPECT_EQ(0, cv.outside) TH_LOG("clock type %u", clock);
		capture_free(&c);
	}
}

/* FlushTimer and FLUSH hand a partly filled buffer to a waiting reader. */
TEST_F(cap, flush_timer_and_poll)
{
	struct pollfd pfd = { .fd = self->reader, .events = POLLIN };
	struct ntkl_properties p, q;
	struct capture c = { 0 };

	props_init(&p, "selftest flush", EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD);
	p.flush_timer = 1;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	ASSERT_EQ(0, ntkl_bind_id(self->reader, p.logger_id));

	EXPECT_EQ(1, poll(&pfd, 1, 0));	/* the header buffer is ready at once */
	ASSERT_EQ(0, capture_drain(self->reader, p.buffer_size_kb * 1024, &c, 1));
	/* the rundown sits in partly filled buffers until the timer fires */
	EXPECT_EQ(1, poll(&pfd, 1, 5000));
	EXPECT_EQ(0, capture_drain(self->reader, p.buffer_size_kb * 1024, &c, 2));
	EXPECT_EQ(2, c.buffers);

	/* without a timer, FLUSH does the same on demand (UPDATE sets the
	 * masks, as ControlTrace does: 0 would disable every group) */
	props_select(&q, "selftest flush");
	q.enable_flags = EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD;
	q.flush_timer = NTKL_MAX_FLUSH_TIMER;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_UPDATE, &q));
	while (poll(&pfd, 1, 0) == 1 && capture_drain(self->reader, p.buffer_size_kb * 1024,
						      &c, c.buffers + 1) == 0)
		;
	run_execs("/bin/true", 2);
	EXPECT_EQ(0, poll(&pfd, 1, 200));
	props_select(&q, "selftest flush");
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_FLUSH, &q));
	EXPECT_EQ(1, poll(&pfd, 1, 2000));
	EXPECT_EQ(0, ntkl_stop_name(self->ctl, "selftest flush"));
	capture_free(&c);
}

/* Two loggers at once, each gets what its own group mask asks for. */
TEST_F(cap, independent_loggers)
{
	struct ntkl_properties pa, pb;
	struct capture ca = { 0 }, cb = { 0 };
	int rb = ntkl_open();

	ASSERT_GE(rb, 0);
	props_init(&pa, "selftest only processes", EVENT_TRACE_FLAG_PROCESS);
	pa.clock_type = NTKL_CLOCK_SYSTEM;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &pa));
	props_init(&pb, "selftest only threads", EVENT_TRACE_FLAG_THREAD);
	pb.buffer_size_kb = 8;
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &pb));
	ASSERT_EQ(0, ntkl_bind_id(self->reader, pa.logger_id));
	ASSERT_EQ(0, ntkl_bind_id(rb, pb.logger_id));

	run_execs("/bin/true", 5);
	ASSERT_EQ(0, ntkl_stop_name(self->ctl, "selftest only processes"));
	ASSERT_EQ(0, ntkl_stop_name(self->ctl, "selftest only threads"));
	ASSERT_EQ(0, capture_drain(self->reader, pa.buffer_size_kb * 1024, &ca, 0));
	ASSERT_EQ(0, capture_drain(rb, pb.buffer_size_kb * 1024, &cb, 0));
	close(rb);

	EXPECT_GE(capture_count_hook(&ca, ETW_EVENT_PROCESS_START_HOOK), 5);
	EXPECT_EQ(0, capture_count_hook(&ca, ETW_EVENT_THREAD_START_HOOK));
	EXPECT_GE(capture_count_hook(&cb, ETW_EVENT_THREAD_START_HOOK), 5);
	EXPECT_EQ(0, capture_count_hook(&cb, ETW_EVENT_PROCESS_START_HOOK));
	/* both got their own rundown */
	EXPECT_GT(capture_count_hook(&ca, ETW_EVENT_PROCESS_DC_START_HOOK), 1);
	EXPECT_GT(capture_count_hook(&cb, ETW_EVENT_PROCESS_DC_START_HOOK), 1);
	capture_free(&ca);
	capture_free(&cb);
}

/* A reader blocked in read() gets end of data when the logger stops. */
TEST_F(cap, stop_wakes_reader)
{
	struct drain_job job = { .ret = 1 };
	struct ntkl_properties p;
	struct timespec deadline;
	pthread_t th;

	props_init(&p, "selftest blocked", EVENT_TRACE_FLAG_PROCESS);
	ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	ASSERT_EQ(0, ntkl_bind_id(self->reader, p.logger_id));
	job.fd = self->reader;
	job.size = p.buffer_size_kb * 1024;
	ASSERT_EQ(0, pthread_create(&th, NULL, drain_thread, &job));
	usleep(300 * 1000);	/* the reader has the header and now waits */
	ASSERT_EQ(0, ntkl_stop_name(self->ctl, "selftest blocked"));

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 20;
	ASSERT_EQ(0, pthread_timedjoin_np(th, NULL, &deadline));
	EXPECT_EQ(0, job.ret);
	EXPECT_GE(job.c.buffers, 2);	/* header and the rundown */
	capture_free(&job.c);
}

/*
 * Unloading stops every logger. An open /dev/ntkl keeps the module (the
 * kernel's rule for every module): rmmod fails cleanly, and works once the
 * reader has seen end of data and closed.
 */
TEST_F(cap, unload_with_loggers)
{
	const char *ko = getenv("NTKL_KO");
	struct capture c = { 0 };
	struct ntkl_properties p;
	char name[32];
	int i;

	ASSERT_NE(NULL, ko);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "selftest unload %d", i);
		props_init(&p, name, EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD);
		ASSERT_EQ(0, ntkl_ctl(self->ctl, NTKL_IOC_START, &p));
	}
	ASSERT_EQ(0, ntkl_bind_id(self->reader, p.logger_id));
	run_execs("/bin/true", 5);
	EXPECT_NE(0, delete_module("ntkl"));	/* files are open */

	ASSERT_EQ(0, ntkl_stop_name(self->ctl, name));
	EXPECT_EQ(0, capture_drain(self->reader, p.buffer_size_kb * 1024, &c, 0));
	capture_free(&c);
	close(self->reader);
	close(self->ctl);
	self->reader = self->ctl = -1;

	/* two loggers still run, with no file open: unload stops them */
	ASSERT_EQ(0, delete_module("ntkl"));
	EXPECT_NE(0, access(NTKL_DEVICE_PATH, F_OK));
	ASSERT_EQ(0, load_module_wait(ko));
	self->ctl = ntkl_open();
	ASSERT_GE(self->ctl, 0);
	self->reader = ntkl_open();
	props_select(&p, "selftest unload 0");
	EXPECT_EQ(-ENOENT, ntkl_ctl(self->ctl, NTKL_IOC_QUERY, &p));
}

TEST_HARNESS_MAIN
