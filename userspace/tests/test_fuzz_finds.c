// SPDX-License-Identifier: GPL-2.0
/*
 * What `make fuzz` (userspace/fuzz/fuzz_etl.c) found, each as the
 * smallest file that shows it, so it cannot come back. Built with ASan,
 * LeakSanitizer and UBSan like every unit test: a leak or an overflow
 * fails the run.
 *
 *   profile_read_leak       a bad record in a compressed buffer stopped
 *                           etl_profile_read's walk without freeing the
 *                           decompressed buffer
 *   relog_huge_buffer_size  a corrupt BufferSize of 2 GB made the relog
 *                           allocate it
 *   relog_odd_buffer_size   a BufferSize not a multiple of 8 made the
 *                           relog lay out buffers at misaligned offsets
 *                           (UBSan: a misaligned buffer header)
 *   report_extreme_times    time differences of corrupt timestamps
 *                           overflowed int64 in the report
 *   short_array_field_name  a payload short of an array's element kept
 *                           the element's name (Guid[1]) as a pointer to
 *                           a buffer gone out of scope, which the line's
 *                           end printed (ASan: stack-use-after-scope)
 *   relog_tiny_buffers_many_cpus
 *                           a header BufferSize of 16 MB over tiny buffers
 *                           on many CPUs made the relog write a 16 MB
 *                           buffer per CPU (found reading the relog while
 *                           looking for a crash CI's fuzz run saw)
 */
#include "test.h"
#include "etl_synth.h"
#include "analysis/etl_dump.h"
#include "analysis/etl_profile.h"
#include "analysis/etl_relog.h"
#include "analysis/etl_report.h"

/* A file with one data buffer: a ReadyThread, then a record whose Size is 4. */
static uint8_t *bad_record_file(size_t *size)
{
	struct etw_ready_thread rt = { .thread_id = 7 };
	struct perfinfo_trace_header bad = {
		.marker = ETW_MARKER_PERFINFO64(2), .size = 4,
		.hook_id = ETW_EVENT_READY_THREAD_HOOK, .timestamp = 2000,
	};
	struct synth s;

	synth_begin(&s, 4096, 1);
	synth_buffer(&s, 0);
	synth_record(&s, ETW_EVENT_READY_THREAD_HOOK, etw_events[ETW_EVENT_READY_THREAD].version,
		     1500, &rt, sizeof(rt));
	synth_raw(&s, &bad, sizeof(bad), NULL, 0);
	return synth_end(&s, size);
}

static void test_profile_read_leak(void)
{
	struct etl_profile p;
	struct etl_error err;
	struct etl_file f;
	size_t size, csize;
	uint8_t *img, *cimg;

	test_begin("profile_read_leak");
	img = bad_record_file(&size);
	cimg = img ? synth_compress(img, size, &csize) : NULL;
	CHECK(cimg != NULL);
	if (cimg && !etl_open_memory(&f, "bad", cimg, csize, &err)) {
		/* the error is reported; nothing leaks (LeakSanitizer at exit) */
		CHECK_EQ(etl_profile_read(&f, &p, &err), (unsigned long long)-1);
		etl_profile_free(&p);
		etl_close(&f);
	}
	free(cimg);
	free(img);
	test_end();
}

/*
 * The file img (freed here) with its header's BufferSize set to size:
 * the relog refuses it with a line that has expect in it.
 */
static void relog_refuses_buffer_size(uint8_t *img, size_t img_size, uint32_t size,
				      const char *expect)
{
	size_t at = ETL_BUFFER_HEADER_SIZE + sizeof(struct system_trace_header) +
		    offsetof(struct trace_logfile_header, buffer_size);
	struct etl_relog_stats st;
	struct etl_error err;
	struct etl_file f;
	uint8_t *out = NULL;
	size_t out_size;

	CHECK(img != NULL);
	if (img) {
		memcpy(img + at, &size, sizeof(size));
		if (!etl_open_memory(&f, "bad size", img, img_size, &err)) {
			CHECK_EQ(etl_relog_expand_compact(&f, &out, &out_size, &st, &err),
				 (unsigned long long)-1);
			CHECK_HAS(err.msg, expect);
			etl_close(&f);
		}
	}
	free(out);
	free(img);
}

static void test_relog_huge_buffer_size(void)
{
	struct synth s;
	uint8_t *img;
	size_t size;

	test_begin("relog_huge_buffer_size");
	synth_begin(&s, 4096, 1);
	img = synth_end(&s, &size);
	relog_refuses_buffer_size(img, size, 0x80000000u, "is not a buffer size");
	test_end();
}

/* A file of 4 KB buffers: one per CPU, holding one ReadyThread each. */
static uint8_t *one_record_per_cpu(uint32_t ncpus, size_t *size)
{
	struct etw_ready_thread rt = { .thread_id = 7 };
	struct synth s;

	synth_begin(&s, 4096, ncpus);
	for (uint32_t cpu = 0; cpu < ncpus; cpu++) {
		synth_buffer(&s, (uint16_t)cpu);
		synth_record(&s, ETW_EVENT_READY_THREAD_HOOK,
			     etw_events[ETW_EVENT_READY_THREAD].version, 1500 + cpu, &rt, sizeof(rt));
	}
	return synth_end(&s, size);
}

/* BufferSize 4100: records fit, but every second output buffer is misaligned. */
static void test_relog_odd_buffer_size(void)
{
	uint8_t *img;
	size_t size;

	test_begin("relog_odd_buffer_size");
	img = one_record_per_cpu(2, &size);
	relog_refuses_buffer_size(img, size, 4100, "not a buffer size (a multiple of 8");
	test_end();
}

/*
 * 40 CPUs with a buffer of one record each, under a header BufferSize of
 * 16 MB: relogged, 41 buffers of 16 MB (656 MB) for 160 KB of input. The
 * relog stops at 64 MB and 64 times the input, and says why.
 */
static void test_relog_tiny_buffers_many_cpus(void)
{
	uint8_t *img;
	size_t size;

	test_begin("relog_tiny_buffers_many_cpus");
	img = one_record_per_cpu(40, &size);
	relog_refuses_buffer_size(img, size, 16u << 20, "BufferSize 0x1000000 on 40 CPUs");
	test_end();
}

/* ProviderBinaryPath saying 3 GUIDs and holding 1: the dump names Guid[1]. */
static void test_short_array_field_name(void)
{
	uint8_t payload[4 + 16 + 2] = { 3 };	/* GuidCount 3, one GUID, 2 bytes */
	char *text = NULL;
	size_t text_len = 0;
	struct synth s;
	uint8_t *img;
	size_t size;
	FILE *out;

	test_begin("short_array_field_name");
	synth_begin(&s, 4096, 1);
	synth_buffer(&s, 0);
	synth_system_record(&s, ETW_EVENT_PROVIDER_BINARY_PATH_HOOK,
			    etw_events[ETW_EVENT_PROVIDER_BINARY_PATH].version, 1500,
			    payload, sizeof(payload));
	img = synth_end(&s, &size);
	out = open_memstream(&text, &text_len);
	CHECK(img && out);
	if (img && out) {
		etl_dump_memory("short", img, size, ETL_DUMP_EVENTS, out, out, "");
		fclose(out);
		CHECK_HAS(text, "[payload short: 0x16 bytes, Guid[1] needs 0x24]");
	}
	free(text);
	free(img);
	test_end();
}

static void test_report_extreme_times(void)
{
	const int64_t times[] = { INT64_MIN + 5, -3, 1000, INT64_MAX - 5 };
	struct etl_report r;
	struct etl_error err;
	struct etl_file f;
	struct synth s;
	size_t size;
	uint8_t *img;

	test_begin("report_extreme_times");
	synth_begin(&s, 4096, 1);
	synth_buffer(&s, 0);
	for (int i = 0; i < 4; i++) {
		struct wmi_contextswap cs = {
			.new_thread_id = 10u + (uint32_t)i, .old_thread_id = 9u + (uint32_t)i,
			.old_thread_state = ETW_KTHREAD_WAITING,
		};
		struct etw_ready_thread rt = { .thread_id = 11u + (uint32_t)i };

		synth_record(&s, ETW_EVENT_READY_THREAD_HOOK,
			     etw_events[ETW_EVENT_READY_THREAD].version, times[i], &rt, sizeof(rt));
		synth_record(&s, ETW_EVENT_CSWITCH_HOOK, etw_events[ETW_EVENT_CSWITCH].version,
			     times[i], &cs, sizeof(cs));
	}
	img = synth_end(&s, &size);
	CHECK(img != NULL);
	if (img && !etl_open_memory(&f, "times", img, size, &err)) {
		CHECK_EQ(etl_report_read(&f, &r, &err), 0);
		CHECK_EQ(r.switches, 4);
		etl_report_free(&r);
		etl_close(&f);
	}
	free(img);
	test_end();
}

int main(void)
{
	test_profile_read_leak();
	test_relog_huge_buffer_size();
	test_relog_odd_buffer_size();
	test_relog_tiny_buffers_many_cpus();
	test_report_extreme_times();
	test_short_array_field_name();
	return test_exit();
}
