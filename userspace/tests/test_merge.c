// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl merge (etl_merge(), etl_relog.h) on two synthetic captures of one
 * time: a "kernel" file of 4 KB buffers and a "user-mode logger" file of
 * 8 KB buffers, their events interleaved in time on two CPUs. The merged
 * file must pass every reader check, hold every event of both but the
 * second Header, in time order on each CPU, in buffers of the larger size,
 * with the header's counts true of the whole; the compressed form of an
 * input must merge the same; files of different clocks must be refused
 * with the fix; files of boots far apart are counted, whatever their
 * BootTimes.
 */
#include "test.h"
#include "etl_synth.h"
#include "etl/etl_check.h"
#include "analysis/etl_relog.h"

#define NCPUS		2
#define EVENTS		4000	/* per file and CPU */
#define KERNEL_TID	100u
#define USER_TID	5000u

/* Where the Header event's payload starts in buffer 0. */
#define HEADER_AT	(ETL_BUFFER_HEADER_SIZE + sizeof(struct system_trace_header))

/* EVENTS ReadyThread events per CPU, tid base + cpu, at t0, t0 + 2, ... */
static uint8_t *capture(uint32_t buffer_size, uint32_t tid, int64_t t0, uint32_t lost,
			size_t *size)
{
	struct trace_logfile_header h;
	struct synth s;
	uint8_t *img;

	synth_begin(&s, buffer_size, NCPUS);
	for (uint16_t cpu = 0; cpu < NCPUS; cpu++) {
		synth_buffer(&s, cpu);
		for (int i = 0; i < EVENTS; i++) {
			struct etw_ready_thread rt = { .thread_id = tid + cpu };
			uint32_t need = synth_align(sizeof(struct perfinfo_trace_header) +
						    sizeof(rt));

			if (s.filled + need > s.buffer_size)
				synth_buffer(&s, cpu);
			synth_record(&s, ETW_EVENT_READY_THREAD_HOOK,
				     etw_events[ETW_EVENT_READY_THREAD].version,
				     t0 + 2 * i, &rt, sizeof(rt));
		}
	}
	img = synth_end(&s, size);
	if (img) {
		memcpy(&h, img + HEADER_AT, sizeof(h));
		h.events_lost = lost;
		h.end_time += t0;
		memcpy(img + HEADER_AT, &h, sizeof(h));
	}
	return img;
}

static void report(void *ctx, const char *msg)
{
	(void)ctx;
	test_fail("check: %s", msg);
}

static int merge(uint8_t *a, size_t asize, uint8_t *b, size_t bsize, uint8_t **out,
		 size_t *out_size, struct etl_relog_stats *st, struct etl_error *err)
{
	struct etl_file fa, fb;
	const struct etl_file *files[2] = { &fa, &fb };
	int ret;

	if (etl_open_memory(&fa, "kernel.etl", a, asize, err))
		return -1;
	if (etl_open_memory(&fb, "user.etl", b, bsize, err)) {
		etl_close(&fa);
		return -1;
	}
	ret = etl_merge(files, 2, out, out_size, st, err);
	etl_close(&fb);
	etl_close(&fa);
	return ret;
}

/* Every record of f: on each CPU in time order; counts of each file's tids. */
static void check_order(const struct etl_file *f, unsigned long *kernel, unsigned long *user)
{
	int64_t last[NCPUS] = { 0 };
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_record_cursor rc;
	struct etl_record r;
	struct etl_error err;

	*kernel = *user = 0;
	etl_buffers_begin(f, &bc);
	while (etl_next_buffer(f, &bc, &b, &err) > 0) {
		if (b.index == 0)
			continue;
		CHECK_EQ(b.hdr.buffer_size, 8192u);
		etl_records_begin(&b, &rc);
		while (etl_next_record(&b, &rc, &r, &err) > 0) {
			const struct etw_ready_thread *rt;

			if (r.hook_id != ETW_EVENT_READY_THREAD_HOOK)
				continue;
			CHECK(r.processor < NCPUS);
			if (r.processor >= NCPUS)
				continue;
			if (r.timestamp < last[r.processor])
				test_fail("cpu %u: time %lld after %lld", r.processor,
					  (long long)r.timestamp, (long long)last[r.processor]);
			last[r.processor] = r.timestamp;
			rt = (const void *)r.payload;
			if (rt->thread_id == KERNEL_TID + r.processor)
				(*kernel)++;
			else if (rt->thread_id == USER_TID + r.processor)
				(*user)++;
			else
				test_fail("a ReadyThread of tid %u", rt->thread_id);
		}
	}
	etl_buffers_end(&bc);
}

static void test_merge_two(void)
{
	size_t asize, bsize, csize, out_size = 0, cout_size = 0;
	uint8_t *a, *b, *c, *out = NULL, *cout = NULL;
	struct etl_relog_stats st, cst;
	struct etl_check_stats cs, acs, bcs;
	unsigned long kernel, user;
	struct etl_error err;
	struct etl_file f;

	test_begin("merge_kernel_and_user_files");
	a = capture(4096, KERNEL_TID, 2000, 3, &asize);
	/* odd times: every user event falls between two kernel ones */
	b = capture(8192, USER_TID, 2001, 4, &bsize);
	CHECK(a && b);
	if (a && b && !merge(a, asize, b, bsize, &out, &out_size, &st, &err)) {
		CHECK_EQ(st.files, 2);
		CHECK_EQ(st.headers_dropped, 1);
		CHECK_EQ(st.other_boot, 0);
		CHECK_EQ(etl_open_memory(&f, "a", a, asize, &err), 0);
		CHECK_EQ(etl_check(&f, false, report, NULL, &acs), 0);
		etl_close(&f);
		CHECK_EQ(etl_open_memory(&f, "b", b, bsize, &err), 0);
		CHECK_EQ(etl_check(&f, false, report, NULL, &bcs), 0);
		etl_close(&f);
		CHECK_EQ(etl_open_memory(&f, "merged", out, out_size, &err), 0);
		CHECK_EQ(etl_check(&f, false, report, NULL, &cs), 0);
		CHECK_EQ(cs.records, acs.records + bcs.records - 1);
		CHECK_EQ(f.header.buffer_size, 8192u);
		CHECK_EQ(f.header.buffers_written, 1 + st.buffers_out);
		CHECK_EQ(f.header.events_lost, 3u + 4u);
		CHECK_EQ(f.header.number_of_processors, (uint32_t)NCPUS);
		CHECK_EQ(f.header.end_time, ETW_FILETIME_UNIX_EPOCH + 1 + 2001);
		check_order(&f, &kernel, &user);
		CHECK_EQ(kernel, NCPUS * EVENTS);
		CHECK_EQ(user, NCPUS * EVENTS);
		etl_close(&f);
	} else if (a && b) {
		test_fail("merge: %s", err.msg);
	}
	test_end();

	test_begin("merge_compressed_input");
	c = b ? synth_compress(b, bsize, &csize) : NULL;
	CHECK(c != NULL);
	if (a && c && !merge(a, asize, c, csize, &cout, &cout_size, &cst, &err)) {
		CHECK_EQ(cout_size, out_size);
		CHECK(out && !memcmp(cout, out, out_size));
	} else if (c) {
		test_fail("merge: %s", err.msg);
	}
	test_end();

	/* BootTimes of opposite signs: their distance passes int64 (UBSan) */
	test_begin("merge_boot_times_far_apart");
	if (a && b) {
		uint8_t *a2 = malloc(asize), *b2 = malloc(bsize);
		struct trace_logfile_header h;

		CHECK(a2 && b2);
		if (a2 && b2) {
			memcpy(a2, a, asize);
			memcpy(b2, b, bsize);
			memcpy(&h, a2 + HEADER_AT, sizeof(h));
			h.boot_time = INT64_MAX - 1;
			memcpy(a2 + HEADER_AT, &h, sizeof(h));
			memcpy(&h, b2 + HEADER_AT, sizeof(h));
			h.boot_time = -5;
			memcpy(b2 + HEADER_AT, &h, sizeof(h));
			free(cout);
			cout = NULL;
			CHECK_EQ(merge(a2, asize, b2, bsize, &cout, &cout_size, &cst, &err), 0);
			CHECK_EQ(cst.other_boot, 1);
		}
		free(b2);
		free(a2);
	}
	test_end();

	test_begin("merge_refuses_another_clock");
	if (b) {
		struct trace_logfile_header h;

		memcpy(&h, b + HEADER_AT, sizeof(h));
		h.reserved_flags = 2;		/* SYSTEM time */
		memcpy(b + HEADER_AT, &h, sizeof(h));
		free(cout);
		cout = NULL;
		CHECK_EQ(merge(a, asize, b, bsize, &cout, &cout_size, &cst, &err), -1);
		CHECK(strstr(err.msg, "SYSTEM time") && strstr(err.msg, "-clock (qpc"));
		CHECK(cout == NULL);
	}
	test_end();
	free(cout);
	free(out);
	free(c);
	free(b);
	free(a);
}

int main(void)
{
	test_merge_two();
	return test_exit();
}
