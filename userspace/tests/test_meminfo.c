// SPDX-License-Identifier: GPL-2.0
/*
 * ProcessMemInfo (0x027D, MEMINFO_WS) on a synthetic file: the decoder
 * prints every entry's ProcessID and eight counts, read unaligned at the
 * offsets TraceEvent's MemoryProcessMemInfoTraceData reads a version 2
 * one at (ProcessID at 0, the counts 8 bytes each from 4, 68 bytes an
 * entry); a payload one byte short of its last entry is reported short;
 * and a file of such records, as the module writes them (PERFINFO64
 * version 2, one to 56 entries), passes the strict checker.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "etl_synth.h"
#include "etl/etl_check.h"
#include "etl/etl_decode.h"

static void put_le64(uint8_t *p, uint64_t v)
{
	etw_put_le32(p, (uint32_t)v);
	etw_put_le32(p + 4, (uint32_t)(v >> 32));
}

/* A payload of n entries: process 100 + i, count c of entry i = 1000 * i + c + 1. */
static uint32_t payload(uint8_t *p, uint32_t n)
{
	etw_put_le32(p, n);
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *e = p + 4 + i * ETW_PROCESS_MEMINFO_ENTRY_SIZE;

		etw_put_le32(e, 100 + i);
		for (unsigned int c = 0; c < ETW_PMI_COUNTS; c++)
			put_le64(e + ETW_PROCESS_MEMINFO_COUNT_OFFSET(c), 1000ull * i + c + 1);
	}
	return 4 + n * ETW_PROCESS_MEMINFO_ENTRY_SIZE;
}

static char *decode(const uint8_t *p, uint32_t len)
{
	char *text = NULL;
	size_t n;
	FILE *m = open_memstream(&text, &n);

	etl_decode_layout(m, "", ETW_LAYOUT_PROCESS_MEMINFO, p, len);
	fclose(m);
	return text;
}

static void test_decode(void)
{
	static uint8_t p[4 + 2 * ETW_PROCESS_MEMINFO_ENTRY_SIZE];
	uint32_t len = payload(p, 2);
	char *s;

	test_begin("decode_two_entries");
	CHECK_EQ(len, 140);
	s = decode(p, len);
	CHECK(strstr(s, "ProcessMemInfo: Count=2") == s);
	CHECK(strstr(s, " ProcessID[0]=100 WorkingSetPageCount[0]=1 CommitPageCount[0]=2 VirtualSizeInPages[0]=3 PrivateWorkingSetPageCount[0]=4 StoreSizePageCount[0]=5 StoredPageCount[0]=6 CommitDebtInPages[0]=7 SharedCommitInPages[0]=8"));
	CHECK(strstr(s, " ProcessID[1]=101 WorkingSetPageCount[1]=1001 "));
	CHECK(strstr(s, " SharedCommitInPages[1]=1008"));
	CHECK(!strstr(s, "short"));
	free(s);
	test_end();

	test_begin("decode_short_entry");
	s = decode(p, len - 1);
	CHECK(strstr(s, "short") != NULL);
	CHECK(strstr(s, " ProcessID[0]=100 "));
	free(s);
	test_end();
}

static void test_checker(void)
{
	static uint8_t p[4 + 56 * ETW_PROCESS_MEMINFO_ENTRY_SIZE];
	uint8_t *img;
	size_t size;
	struct synth s;
	struct etl_error err;
	struct etl_file f;

	test_begin("checker_accepts");
	synth_begin(&s, 64 * 1024, 1);
	synth_buffer(&s, 0);
	synth_record(&s, ETW_EVENT_PROCESS_MEMINFO_HOOK, 2, SYNTH_START_CLOCK + 10, p,
		     payload(p, 56));
	synth_record(&s, ETW_EVENT_PROCESS_MEMINFO_HOOK, 2, SYNTH_START_CLOCK + 11, p,
		     payload(p, 3));
	synth_record(&s, ETW_EVENT_PROCESS_MEMINFO_HOOK, 2, SYNTH_START_CLOCK + 5000010, p,
		     payload(p, 1));
	img = synth_end(&s, &size);
	CHECK(img != NULL);
	if (img) {
		CHECK_EQ(etl_open_memory(&f, "meminfo", img, size, &err), 0);
		CHECK_EQ(etl_check(&f, false, NULL, NULL, NULL), 0);
		etl_close(&f);
	}
	free(img);
	test_end();
}

int main(void)
{
	test_decode();
	test_checker();
	return test_exit();
}
