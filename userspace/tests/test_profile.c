// SPDX-License-Identifier: GPL-2.0
/*
 * The sampled profile reader (analysis/etl_profile.h) on synthetic files:
 * samples per CPU and per thread, threads named and given their process
 * by the latest Thread event in time (before or after their samples, in
 * file order or not), the idle thread as
 * process 0 "Idle", processes named after their leader, the interval from
 * CollectionStart, a short SampledProfile refused with its place, and
 * dump --stats' process rows: the 10 with the most samples, or with --all
 * every one (make bench sums a program's processes from them).
 */
#include "test.h"
#include "etl_synth.h"
#include "analysis/etl_dump.h"
#include "analysis/etl_profile.h"

#define SP_VERSION	2
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
	synth_thread(s, ETW_EVENT_THREAD_DC_START_HOOK, t, pid, tid, name);
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

/* The lines of text that end with " name\n". */
static unsigned int rows_named(const char *text, const char *name)
{
	char tail[64];
	unsigned int n = 0;
	const char *p;

	snprintf(tail, sizeof(tail), "  %s\n", name);
	for (p = strstr(text, tail); p; p = strstr(p + 1, tail))
		n++;
	return n;
}

static char *dump_stats(const uint8_t *img, size_t size, unsigned int flags)
{
	uint8_t *copy = test_copy(img, size);
	char *out = NULL;
	size_t n;
	FILE *o = open_memstream(&out, &n);

	CHECK_EQ(etl_dump_memory("profile.etl", copy, size, ETL_DUMP_STATS | flags, o, stderr,
				 "dump: "), 0);
	fclose(o);
	free(copy);
	return out;
}

static void test_all_rows(void)
{
	struct synth s;
	uint8_t *img;
	size_t size;
	char *out;

	test_begin("dump_stats_all_rows");
	synth_begin(&s, 8192, 1);
	synth_buffer(&s, 0);
	/* 12 one-thread processes "worker", process 100 + i with i + 1 samples */
	for (uint32_t i = 0; i < 12; i++) {
		thread_named(&s, 1000 + i, 100 + i, 100 + i, "worker");
		for (uint32_t k = 0; k <= i; k++)
			sample(&s, 2000 + 100 * i + k, 100 + i, 0x401000);
	}
	img = synth_end(&s, &size);
	CHECK(img != NULL);

	out = dump_stats(img, size, 0);
	CHECK_HAS(out, "Processes by samples (top 10):\n");
	/* 10 process rows and 10 thread rows */
	CHECK_EQ(rows_named(out, "worker"), 20);
	CHECK_HAS(out, "     111         12 ");	/* the busiest first */
	CHECK(strstr(out, "     100          1 ") == NULL);
	free(out);

	out = dump_stats(img, size, ETL_DUMP_ALL_ROWS);
	CHECK_HAS(out, "Processes by samples (all):\n");
	CHECK_HAS(out, "Threads by samples (all):\n");
	CHECK_EQ(rows_named(out, "worker"), 24);
	CHECK_HAS(out, "     100          1 ");
	free(out);
	free(img);
	test_end();
}

int main(void)
{
	test_counts();
	test_short_sample();
	test_all_rows();
	return test_exit();
}
