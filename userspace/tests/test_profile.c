// SPDX-License-Identifier: GPL-2.0
/*
 * The sampled profile reader (etl/etl_profile.h) on synthetic files:
 * samples per CPU and per thread, threads named and given their process
 * by the latest Thread event in time (before or after their samples, in
 * file order or not), the idle thread as
 * process 0 "Idle", processes named after their leader, the interval from
 * CollectionStart, and a short SampledProfile refused with its place.
 */
#include "test.h"
#include "etl_synth.h"
#include "etl/etl_profile.h"

#define SP_VERSION	2
#define TH_VERSION	3
#define PI_VERSION	3

static void sample(struct synth *s, int64_t t, uint32_t tid, uint64_t ip)
{
	struct perfinfo_sampled_profile sp = {
		.instruction_pointer = ip, .thread_id = tid, .count = 1,
	};

	synth_record(s, ETW_EVENT_SAMPLED_PROFILE_HOOK, SP_VERSION, t, &sp, sizeof(sp));
}

static void thread_named(struct synth *s, int64_t t, uint32_t pid, uint32_t tid,
			 const char *name)
{
	uint8_t rec[sizeof(struct etw_thread_v3) + 64] = { 0 };
	struct etw_thread_v3 *th = (void *)rec;
	size_t n = strlen(name);

	th->process_id = pid;
	th->thread_id = tid;
	for (size_t i = 0; i < n; i++)
		rec[sizeof(*th) + 2 * i] = (uint8_t)name[i];
	synth_system_record(s, ETW_EVENT_THREAD_DC_START_HOOK, TH_VERSION, t, rec,
			    (uint32_t)(sizeof(*th) + 2 * n + 2));
}

static void interval(struct synth *s, uint16_t hook, uint32_t new, uint32_t old)
{
	uint8_t rec[sizeof(struct etw_sampled_profile_interval) + 12] = { 0 };
	struct etw_sampled_profile_interval *pi = (void *)rec;

	pi->new_interval = new;
	pi->old_interval = old;
	memcpy(rec + sizeof(*pi), "T\0i\0m\0e\0r\0\0", 12);
	synth_system_record(s, hook, PI_VERSION, 1000, rec, sizeof(rec));
}

static void test_counts(void)
{
	struct etl_profile p;
	struct etl_error err;
	struct etl_file f;
	struct synth s;
	uint8_t *img;
	size_t size;

	test_begin("samples_per_cpu_thread_process");
	synth_begin(&s, 4096, 2);
	synth_buffer(&s, 0);
	interval(&s, ETW_EVENT_PROFILE_COLLECTION_START_HOOK, 10000, 10000);
	thread_named(&s, 1500, 100, 100, "busy");
	/* named earlier, but later in the file (another CPU's buffer) */
	thread_named(&s, 1400, 100, 101, "forked");
	sample(&s, 2000, 100, 0x401000);
	sample(&s, 3000, 101, 0x401004);	/* named only later */
	sample(&s, 4000, 0, 0xffffffff81000000ULL);
	synth_buffer(&s, 1);
	sample(&s, 2500, 100, 0xffffffff81000010ULL);
	sample(&s, 3500, 100, 0x401008);
	thread_named(&s, 1200, 100, 100, "older");
	thread_named(&s, 1600, 100, 101, "worker");
	thread_named(&s, 1000, 7, 7, "quiet");
	interval(&s, ETW_EVENT_PROFILE_SET_INTERVAL_HOOK, 20000, 10000);
	interval(&s, ETW_EVENT_PROFILE_COLLECTION_END_HOOK, 20000, 20000);
	img = synth_end(&s, &size);
	CHECK(img != NULL);
	CHECK_EQ(etl_open_memory(&f, "profile.etl", img, size, &err), 0);
	CHECK_EQ(etl_profile_read(&f, &p, &err), 0);

	CHECK_EQ(p.samples, 5);
	CHECK_EQ(p.user_samples, 3);
	CHECK_EQ(p.ncpus, 2);
	CHECK_EQ(p.cpu[0], 3);
	CHECK_EQ(p.cpu[1], 2);
	CHECK_EQ(p.interval, 10000);
	CHECK_EQ(p.collection_starts, 1);
	CHECK_EQ(p.set_intervals, 1);
	CHECK_EQ(p.collection_ends, 1);
	/* threads, most samples first; one without samples still listed last */
	CHECK_EQ(p.nthreads, 4);
	CHECK_EQ(p.threads[0].tid, 100);
	CHECK_EQ(p.threads[0].samples, 3);
	CHECK_STR(p.threads[0].name, "busy");
	CHECK_EQ(p.threads[1].tid, 0);
	CHECK_EQ(p.threads[1].pid, 0);
	CHECK_STR(p.threads[1].name, "Idle");
	CHECK_EQ(p.threads[2].tid, 101);
	CHECK_EQ(p.threads[2].pid, 100);
	CHECK_STR(p.threads[2].name, "worker");
	CHECK_EQ(p.threads[3].samples, 0);
	/* process 100 has both of its threads' samples and its leader's name */
	CHECK_EQ(p.nprocs, 2);
	CHECK_EQ(p.procs[0].pid, 100);
	CHECK_EQ(p.procs[0].samples, 4);
	CHECK_STR(p.procs[0].name, "busy");
	CHECK_EQ(p.procs[1].pid, 0);
	CHECK_STR(p.procs[1].name, "Idle");
	etl_profile_free(&p);
	etl_close(&f);
	free(img);
	test_end();
}

static void test_short_sample(void)
{
	struct etl_profile p;
	struct etl_error err;
	struct etl_file f;
	struct synth s;
	uint8_t rec[12] = { 0 };
	uint8_t *img;
	size_t size;

	test_begin("short_sample_refused");
	synth_begin(&s, 4096, 1);
	synth_buffer(&s, 0);
	synth_record(&s, ETW_EVENT_SAMPLED_PROFILE_HOOK, SP_VERSION, 2000, rec, sizeof(rec));
	img = synth_end(&s, &size);
	CHECK_EQ(etl_open_memory(&f, "short.etl", img, size, &err), 0);
	CHECK_EQ(etl_profile_read(&f, &p, &err), -1);
	CHECK_HAS(err.msg, "SampledProfile of 12 bytes, not 16");
	CHECK_EQ(p.samples, 0);
	etl_profile_free(&p);
	etl_close(&f);
	free(img);
	test_end();
}

int main(void)
{
	test_counts();
	test_short_sample();
	return test_exit();
}
