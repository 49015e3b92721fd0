// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl report's memory section (analysis/etl_memory.h) on a synthetic
 * file: page faults are their SYSTEM64 header's process, counted by kind;
 * VirtualAlloc and VirtualFree their ProcessId's; a commit freed in part
 * leaves the rest outstanding, a reserve freed changes nothing; records
 * are taken in time order across the CPUs' buffers (a free written before
 * its alloc in the file still follows it); --pid keeps one process, --tid
 * the faults of its threads only; the text and the JSON say the same;
 * the VirtualAlloc rundown at the start is counted apart, in no row.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "etl_synth.h"
#include "analysis/analysis.h"
#include "report_string.h"

static void fault(struct synth *s, uint16_t hook, int64_t t, uint32_t pid, uint32_t tid,
		  uint64_t addr)
{
	struct etw_page_fault p = { .virtual_address = addr, .program_counter = 0x401000 };
	struct system_trace_header h = {
		.marker = ETW_MARKER_SYSTEM64(2),
		.size = (uint16_t)(sizeof(h) + sizeof(p)),
		.hook_id = hook,
		.thread_id = tid,
		.process_id = pid,
		.system_time = t,
	};

	synth_raw(s, &h, sizeof(h), &p, sizeof(p));
	s->last_time = t;
}

static void valloc_rec(struct synth *s, uint16_t hook, int64_t t, uint32_t pid, uint64_t base,
		   uint64_t size, uint32_t flags)
{
	struct perfinfo_virtual_alloc p = {
		.base_address = base, .region_size = size, .process_id = pid, .flags = flags,
	};

	synth_record(s, hook, 2, t, &p, sizeof(p));
}

#define COMMIT	(ETW_MEM_COMMIT | ETW_MEM_RESERVE)

static void rundown_rec(struct synth *s, uint16_t hook, int64_t t, uint32_t pid, uint64_t base,
			uint64_t size, uint32_t flags, uint64_t commit)
{
	struct perfinfo_virtual_alloc_dc p = {
		.base_address = base, .region_size = size, .process_id = pid, .flags = flags,
		.commit_size = commit,
	};

	synth_record(s, hook, 2, t, &p, sizeof(p));
}

/*
 * A ProcessMemInfo snapshot of two processes: pid with a working set of
 * ws_pages, a private one of 2048 pages (8 MiB); process 400 with 8192
 * (32 MiB) and 4096 private; both a commit of 8192 pages; the virtual
 * size fill, which the section does not read.
 */
static void snapshot(struct synth *s, int64_t t, uint32_t pid, uint64_t ws_pages, uint64_t fill)
{
	uint8_t p[4 + 2 * ETW_PROCESS_MEMINFO_ENTRY_SIZE];
	const uint32_t pids[2] = { pid, 400 };

	memset(p, 0, sizeof(p));
	p[0] = 2;
	for (int e = 0; e < 2; e++) {
		uint8_t *entry = p + 4 + e * ETW_PROCESS_MEMINFO_ENTRY_SIZE;
		uint64_t ws = e ? 8192 : ws_pages;
		uint64_t v[ETW_PMI_COUNTS] = {
			[ETW_PMI_WORKING_SET] = ws,
			[ETW_PMI_COMMIT] = 8192,
			[ETW_PMI_VIRTUAL_SIZE] = fill,
			[ETW_PMI_PRIVATE_WORKING_SET] = e ? 4096 : 2048,
		};

		memcpy(entry, &pids[e], 4);
		for (int i = 0; i < ETW_PMI_COUNTS; i++)
			memcpy(entry + ETW_PROCESS_MEMINFO_COUNT_OFFSET(i), &v[i], 8);
	}
	synth_record(s, ETW_EVENT_PROCESS_MEMINFO_HOOK, 2, t, p, sizeof(p));
}

/*
 * Process 300 ("app", thread 300): 3 DemandZeroFault, 2 TransitionFault,
 * a CopyOnWrite, a HardPageFault, an AccessViolation; commits 1 MiB and
 * frees 256 KiB of its middle; reserves 64 KiB and frees it. Process 400
 * ("other", thread 401): 2 DemandZeroFault; commits 2 MiB (CPU 2) and
 * frees it later (CPU 1, earlier in the file).
 */
static uint8_t *make_file(size_t *size)
{
	struct synth s;

	synth_begin(&s, 4096, 3);
	synth_thread(&s, ETW_EVENT_THREAD_DC_START_HOOK, 500, 300, 300, "app");
	synth_thread(&s, ETW_EVENT_THREAD_DC_START_HOOK, 500, 400, 400, "other");
	synth_thread(&s, ETW_EVENT_THREAD_DC_START_HOOK, 500, 400, 401, "other");
	synth_buffer(&s, 1);
	valloc_rec(&s, ETW_EVENT_VIRTUAL_ALLOC_HOOK, 1100, 300, 0x10000000, 1 << 20, COMMIT);
	fault(&s, ETW_EVENT_DEMAND_ZERO_FAULT_HOOK, 1110, 300, 300, 0x10000000);
	fault(&s, ETW_EVENT_DEMAND_ZERO_FAULT_HOOK, 1120, 300, 300, 0x10001000);
	fault(&s, ETW_EVENT_DEMAND_ZERO_FAULT_HOOK, 1130, 300, 300, 0x10002000);
	fault(&s, ETW_EVENT_TRANSITION_FAULT_HOOK, 1140, 300, 300, 0x7f0000000000);
	fault(&s, ETW_EVENT_TRANSITION_FAULT_HOOK, 1150, 300, 300, 0x7f0000001000);
	fault(&s, ETW_EVENT_COPY_ON_WRITE_HOOK, 1160, 300, 300, 0x600000);
	fault(&s, ETW_EVENT_HARD_PAGE_FAULT_HOOK, 1170, 300, 300, 0x7f0000100000);
	fault(&s, ETW_EVENT_ACCESS_VIOLATION_HOOK, 1180, 300, 300, 0x10);
	valloc_rec(&s, ETW_EVENT_VIRTUAL_ALLOC_HOOK, 1200, 300, 0x20000000, 64 << 10, ETW_MEM_RESERVE);
	valloc_rec(&s, ETW_EVENT_VIRTUAL_FREE_HOOK, 1300, 300, 0x10040000, 256 << 10, ETW_MEM_RELEASE);
	valloc_rec(&s, ETW_EVENT_VIRTUAL_FREE_HOOK, 1400, 300, 0x20000000, 64 << 10, ETW_MEM_RELEASE);
	valloc_rec(&s, ETW_EVENT_VIRTUAL_FREE_HOOK, 1500, 400, 0x30000000, 2 << 20, ETW_MEM_RELEASE);
	synth_buffer(&s, 2);
	valloc_rec(&s, ETW_EVENT_VIRTUAL_ALLOC_HOOK, 1050, 400, 0x30000000, 2 << 20, COMMIT);
	fault(&s, ETW_EVENT_DEMAND_ZERO_FAULT_HOOK, 1060, 400, 401, 0x30000000);
	fault(&s, ETW_EVENT_DEMAND_ZERO_FAULT_HOOK, 1070, 400, 401, 0x30001000);
	return synth_end(&s, size);
}

static const struct etl_memory_row *find(const struct etl_memory *m, uint32_t pid)
{
	for (size_t i = 0; i < m->nrows; i++)
		if (m->rows[i].pid == pid)
			return &m->rows[i];
	return NULL;
}

static void test_section(void)
{
	const struct etl_memory_row *row;
	struct etl_filter flt;
	struct etl_report r;
	struct etl_error err;
	struct etl_file f;
	char *text = NULL, *json = NULL;
	size_t size;
	uint8_t *img;

	test_begin("faults_and_commit_per_process");
	img = make_file(&size);
	CHECK(img != NULL);
	CHECK_EQ(etl_open_memory(&f, "memory.etl", img, size, &err), 0);
	CHECK_EQ(etl_report_read(&f, &r, &err), 0);
	CHECK(r.memory.any);
	CHECK_EQ(r.memory.all_faults, 10);
	CHECK_EQ(r.memory.faults[ETL_FAULT_DEMAND_ZERO], 5);
	CHECK_EQ(r.memory.allocs, 3);
	CHECK_EQ(r.memory.frees, 3);
	CHECK_EQ(r.memory.commit_bytes, 3 << 20);
	CHECK_EQ(r.memory.outstanding_bytes, 768 << 10);
	CHECK_EQ(r.memory.nrows, 2);
	/* by faults, most first */
	CHECK_EQ(r.memory.rows[0].pid, 300);
	row = find(&r.memory, 300);
	CHECK(row != NULL);
	if (row) {
		CHECK_STR(row->name, "app");
		CHECK_EQ(row->all_faults, 8);
		CHECK_EQ(row->faults[ETL_FAULT_TRANSITION], 2);
		CHECK_EQ(row->faults[ETL_FAULT_DEMAND_ZERO], 3);
		CHECK_EQ(row->faults[ETL_FAULT_COPY_ON_WRITE], 1);
		CHECK_EQ(row->faults[ETL_FAULT_HARD], 1);
		CHECK_EQ(row->faults[ETL_FAULT_ACCESS_VIOLATION], 1);
		CHECK_EQ(row->allocs, 2);
		CHECK_EQ(row->commit_bytes, 1 << 20);
		CHECK_EQ(row->reserve_bytes, 64 << 10);
		CHECK_EQ(row->frees, 2);
		CHECK_EQ(row->freed_bytes, 320 << 10);
		/* 1 MiB less the 256 KiB freed from its middle; the reserve freed counts not */
		CHECK_EQ(row->outstanding_bytes, 768 << 10);
	}
	row = find(&r.memory, 400);
	CHECK(row != NULL);
	if (row) {
		CHECK_STR(row->name, "other");
		CHECK_EQ(row->all_faults, 2);
		CHECK_EQ(row->commit_bytes, 2 << 20);
		/* its free is earlier in the file than its alloc, later in time */
		CHECK_EQ(row->outstanding_bytes, 0);
	}

	text = report_string(&r, false);
	CHECK(text != NULL);
	CHECK_HAS(text, "Memory: 10 page faults (2 transition, 5 demand zero, 1 copy on write, 1 hard, 1 access violations); 3 VirtualAlloc (3.0 MiB committed), 3 VirtualFree (2.3 MiB), 0.8 MiB outstanding\n");
	CHECK_HAS(text, "     300          2          3        1        1      1        2         1.0        2        0.3         0.8  app\n");
	json = report_string(&r, true);
	CHECK(json != NULL);
	CHECK_HAS(json, "\"memory\": {\"faults\": 10, \"transition\": 2, \"demand_zero\": 5, \"copy_on_write\": 1, \"guard_page\": 0, \"hard\": 1, \"access_violation\": 1,");
	CHECK_HAS(json, "\"allocs\": 3, \"commit_bytes\": 3145728, \"frees\": 3, \"freed_bytes\": 2424832, \"outstanding_bytes\": 786432,");
	CHECK_HAS(json, "{\"pid\": 300, \"name\": \"app\", \"faults\": 8, \"transition\": 2, \"demand_zero\": 3, \"copy_on_write\": 1, \"guard_page\": 0, \"hard\": 1, \"access_violation\": 1, \"allocs\": 2, \"commit_bytes\": 1048576, \"reserve_bytes\": 65536, \"frees\": 2, \"freed_bytes\": 327680, \"outstanding_bytes\": 786432}");
	free(text);
	free(json);
	etl_report_free(&r);
	test_end();

	test_begin("filtered_by_pid");
	memset(&flt, 0, sizeof(flt));
	flt.pids[flt.npids++] = 400;
	CHECK_EQ(etl_report_read_filtered(&f, &r, &flt, &err), 0);
	CHECK_EQ(r.memory.nrows, 1);
	CHECK_EQ(r.memory.rows[0].pid, 400);
	CHECK_EQ(r.memory.rows[0].allocs, 1);
	etl_report_free(&r);
	test_end();

	test_begin("filtered_by_tid");
	memset(&flt, 0, sizeof(flt));
	flt.tids[flt.ntids++] = 401;
	CHECK_EQ(etl_report_read_filtered(&f, &r, &flt, &err), 0);
	CHECK_EQ(r.memory.nrows, 1);
	CHECK_EQ(r.memory.rows[0].all_faults, 2);
	/* a VirtualAlloc names no thread */
	CHECK_EQ(r.memory.rows[0].allocs, 0);
	etl_report_free(&r);
	test_end();

	test_begin("rundown_at_start");
	{
		struct synth s;
		uint8_t *rd;

		synth_begin(&s, 4096, 1);
		synth_buffer(&s, 0);
		synth_thread(&s, ETW_EVENT_THREAD_DC_START_HOOK, 500, 300, 300, "app");
		/* app: 1 MiB committed, 64 KiB reserved; other: 4 MiB; the DCEnd counts not */
		rundown_rec(&s, ETW_EVENT_VIRTUAL_ALLOC_DC_START_HOOK, 600, 300, 0x10000000,
			    1 << 20, COMMIT, 1 << 20);
		rundown_rec(&s, ETW_EVENT_VIRTUAL_ALLOC_DC_START_HOOK, 600, 300, 0x20000000,
			    64 << 10, ETW_MEM_RESERVE, 0);
		rundown_rec(&s, ETW_EVENT_VIRTUAL_ALLOC_DC_START_HOOK, 600, 400, 0x30000000,
			    4 << 20, COMMIT, 4 << 20);
		rundown_rec(&s, ETW_EVENT_VIRTUAL_ALLOC_DC_END_HOOK, 900, 400, 0x30000000,
			    4 << 20, COMMIT, 4 << 20);
		rd = synth_end(&s, &size);
		etl_close(&f);
		CHECK_EQ(etl_open_memory(&f, "rundown.etl", rd, size, &err), 0);
		CHECK_EQ(etl_report_read(&f, &r, &err), 0);
		CHECK(r.memory.any);
		CHECK_EQ(r.memory.start_regions, 3);
		CHECK_EQ(r.memory.start_commit_bytes, 5 << 20);
		/* what was mapped before the trace is no process's activity in it */
		CHECK_EQ(r.memory.nrows, 0);
		CHECK_EQ(r.memory.outstanding_bytes, 0);
		text = NULL;
		text = report_string(&r, false);
		CHECK_HAS(text, "0.0 MiB outstanding; mapped at the start: 3 regions, 5.0 MiB committed\n");
		json = NULL;
		json = report_string(&r, true);
		CHECK_HAS(json, "\"start_regions\": 3, \"start_commit_bytes\": 5242880,");
		free(text);
		free(json);
		etl_report_free(&r);
		memset(&flt, 0, sizeof(flt));
		flt.pids[flt.npids++] = 400;
		CHECK_EQ(etl_report_read_filtered(&f, &r, &flt, &err), 0);
		CHECK_EQ(r.memory.start_regions, 1);
		CHECK_EQ(r.memory.start_commit_bytes, 4 << 20);
		etl_report_free(&r);
		free(rd);
	}
	test_end();

	test_begin("working_sets");
	{
		struct synth s;
		uint8_t *ws;

		synth_begin(&s, 4096, 1);
		synth_buffer(&s, 0);
		synth_thread(&s, ETW_EVENT_THREAD_DC_START_HOOK, 500, 300, 300, "app");
		synth_thread(&s, ETW_EVENT_THREAD_DC_START_HOOK, 500, 400, 400, "other");
		/* app grows to 64 MiB and back to 16; other stays at 32 */
		snapshot(&s, 1000, 300, 4096, 100);
		snapshot(&s, 1500, 300, 16384, 300);
		snapshot(&s, 2000, 300, 4096, 400);
		ws = synth_end(&s, &size);
		etl_close(&f);
		CHECK_EQ(etl_open_memory(&f, "ws.etl", ws, size, &err), 0);
		CHECK_EQ(etl_report_read(&f, &r, &err), 0);
		CHECK(r.memory.any);
		CHECK_EQ(r.memory.snapshots, 3);
		CHECK_EQ(r.memory.nws, 2);
		/* by peak, most first */
		CHECK_EQ(r.memory.ws[0].pid, 300);
		CHECK_STR(r.memory.ws[0].name, "app");
		CHECK_EQ(r.memory.ws[0].snapshots, 3);
		CHECK_EQ(r.memory.ws[0].peak_ws, 64ull << 20);
		CHECK_EQ(r.memory.ws[0].ws, 16ull << 20);
		CHECK_EQ(r.memory.ws[0].private_ws, 8ull << 20);
		CHECK_EQ(r.memory.ws[0].commit, 32ull << 20);
		CHECK_EQ(r.memory.ws[1].pid, 400);
		CHECK_EQ(r.memory.ws[1].peak_ws, 32ull << 20);
		text = NULL;
		text = report_string(&r, false);
		CHECK_HAS(text, "Working sets per process (top 10; 3 ProcessMemInfo snapshots;");
		CHECK_HAS(text, "     300         3         64.0         16.0          8.0         32.0  app\n");
		json = NULL;
		json = report_string(&r, true);
		CHECK_HAS(json, "\"snapshots\": 3, \"working_sets\": [\n      {\"pid\": 300, \"name\": \"app\", \"snapshots\": 3, \"peak_ws_bytes\": 67108864, \"ws_bytes\": 16777216, \"private_ws_bytes\": 8388608, \"commit_bytes\": 33554432}");
		free(text);
		free(json);
		etl_report_free(&r);
		free(ws);
	}
	test_end();

	test_begin("no_memory_records");
	{
		struct synth s;
		uint8_t *plain;

		synth_begin(&s, 4096, 1);
		synth_buffer(&s, 0);
		synth_thread(&s, ETW_EVENT_THREAD_DC_START_HOOK, 500, 300, 300, "app");
		plain = synth_end(&s, &size);
		etl_close(&f);
		CHECK_EQ(etl_open_memory(&f, "plain.etl", plain, size, &err), 0);
		CHECK_EQ(etl_report_read(&f, &r, &err), 0);
		CHECK(!r.memory.any);
		CHECK_EQ(r.memory.nrows, 0);
		text = NULL;
		text = report_string(&r, false);
		CHECK(text && !strstr(text, "Memory:"));
		free(text);
		etl_report_free(&r);
		free(plain);
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
