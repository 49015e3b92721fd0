// SPDX-License-Identifier: GPL-2.0
/*
 * ntkl report's system calls section (analysis/etl_syscalls.h) on a
 * synthetic file: SysClEnter and SysClExit records, which carry no
 * thread, are the thread's that their CPU's switches say ran then; a
 * call's time is its enter to the thread's next exit; a call whose exit
 * never comes is counted, not timed; failures are exits of another
 * status; a record on a CPU without switches is unattributed; --pid keeps
 * one process's calls; the text and the JSON say the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "etl_synth.h"
#include "analysis/analysis.h"
#include "report_string.h"

#define READ_ADDR	0xffffffff81000100ull
#define CLOSE_ADDR	0xffffffff81000200ull

static void cswitch(struct synth *s, int64_t t, uint32_t old_tid, uint32_t new_tid)
{
	struct wmi_contextswap cs = {
		.new_thread_id = new_tid, .old_thread_id = old_tid, .old_thread_state = 5,
	};

	synth_record(s, ETW_EVENT_CSWITCH_HOOK, etw_events[ETW_EVENT_CSWITCH].version, t, &cs,
		     sizeof(cs));
}

static void enter(struct synth *s, int64_t t, uint64_t addr)
{
	struct perfinfo_syscall_enter p = { .syscall_address = addr };

	synth_record(s, ETW_EVENT_SYSCALL_ENTER_HOOK, 2, t, &p, sizeof(p));
}

static void leave(struct synth *s, int64_t t, uint32_t status)
{
	struct perfinfo_syscall_exit p = { .syscall_nt_status = status };

	synth_record(s, ETW_EVENT_SYSCALL_EXIT_HOOK, 2, t, &p, sizeof(p));
}

/*
 * CPU 1 runs 300 (process 300, "caller") from 1000 to 2000, then 401
 * (process 400, "other") to 3000. 300: read (200 ticks), close failing
 * (50 ticks), read that never returns (exit_group, say). 401: read (100
 * ticks). CPU 2 has no switch: its call is on no known thread.
 */
static uint8_t *make_file(size_t *size)
{
	struct synth s;

	synth_begin(&s, 4096, 3);
	synth_thread(&s, ETW_EVENT_THREAD_DC_START_HOOK, 500, 300, 300, "caller");
	synth_thread(&s, ETW_EVENT_THREAD_DC_START_HOOK, 500, 400, 400, "other");
	synth_thread(&s, ETW_EVENT_THREAD_DC_START_HOOK, 500, 400, 401, "other");
	synth_buffer(&s, 1);
	cswitch(&s, 1000, 0, 300);
	enter(&s, 1100, READ_ADDR);
	leave(&s, 1300, ETW_STATUS_SUCCESS);
	enter(&s, 1400, CLOSE_ADDR);
	leave(&s, 1450, ETW_STATUS_INVALID_HANDLE);
	enter(&s, 1500, READ_ADDR);
	cswitch(&s, 2000, 300, 401);
	enter(&s, 2100, READ_ADDR);
	leave(&s, 2200, ETW_STATUS_SUCCESS);
	cswitch(&s, 3000, 401, 0);
	synth_buffer(&s, 2);
	enter(&s, 2500, CLOSE_ADDR);
	leave(&s, 2600, ETW_STATUS_SUCCESS);
	return synth_end(&s, size);
}

static const struct etl_syscall_row *find(const struct etl_syscalls *s, uint32_t pid,
					  uint64_t addr)
{
	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].pid == pid && s->rows[i].address == addr)
			return &s->rows[i];
	return NULL;
}

static double ms(double ticks)
{
	return ticks / SYNTH_PERF_FREQ * 1e3;
}

static bool near(double a, double b)
{
	return a - b < 1e-9 && b - a < 1e-9;
}

static void test_section(void)
{
	const struct etl_syscall_row *row;
	struct etl_filter flt;
	struct etl_report r;
	struct etl_error err;
	struct etl_file f;
	char *text = NULL, *json = NULL;
	size_t size;
	uint8_t *img;

	test_begin("calls_per_process");
	img = make_file(&size);
	CHECK(img != NULL);
	CHECK_EQ(etl_open_memory(&f, "syscalls.etl", img, size, &err), 0);
	CHECK_EQ(etl_report_read(&f, &r, &err), 0);
	CHECK(r.syscalls.any);
	CHECK_EQ(r.syscalls.enters, 4);
	CHECK_EQ(r.syscalls.exits, 3);
	CHECK_EQ(r.syscalls.unattributed, 2);
	CHECK_EQ(r.syscalls.nrows, 3);
	row = find(&r.syscalls, 300, READ_ADDR);
	CHECK(row != NULL);
	if (row) {
		CHECK_STR(row->name, "caller");
		CHECK_EQ(row->calls, 2);
		CHECK_EQ(row->timed, 1);
		CHECK_EQ(row->failed, 0);
		CHECK(near(row->total_ms, ms(200)));
		CHECK(near(row->max_ms, ms(200)));
	}
	row = find(&r.syscalls, 300, CLOSE_ADDR);
	CHECK(row != NULL);
	if (row) {
		CHECK_EQ(row->calls, 1);
		CHECK_EQ(row->failed, 1);
		CHECK(near(row->total_ms, ms(50)));
	}
	row = find(&r.syscalls, 400, READ_ADDR);
	CHECK(row != NULL);
	if (row) {
		CHECK_STR(row->name, "other");
		CHECK_EQ(row->calls, 1);
		CHECK(near(row->total_ms, ms(100)));
	}
	/* by total time, most first */
	CHECK_EQ(r.syscalls.rows[0].address, READ_ADDR);
	CHECK_EQ(r.syscalls.rows[0].pid, 300);

	text = report_string(&r, false);
	CHECK(text != NULL);
	CHECK_HAS(text, "System calls: 4 entered, 3 returned, 2 records on no known thread");
	/* no kernel image in the file: the routine is its address */
	CHECK_HAS(text, "     300         2        0        0.020      0.020  caller           0xffffffff81000100\n");
	free(text);
	/* a routine the kernel's symbols named (etl_syscalls_name()) is printed by name */
	snprintf(r.syscalls.rows[0].function, sizeof(r.syscalls.rows[0].function),
		 "vmlinux-6.12.0!__x64_sys_read");
	text = report_string(&r, false);
	CHECK(text != NULL);
	CHECK_HAS(text, "caller           vmlinux-6.12.0!__x64_sys_read\n");
	json = report_string(&r, true);
	CHECK(json != NULL);
	CHECK_HAS(json, "\"syscalls\": {\"enters\": 4, \"exits\": 3, \"unattributed\": 2,");
	CHECK_HAS(json, "\"pid\": 300, \"name\": \"caller\", \"routine\": \"vmlinux-6.12.0!__x64_sys_read\", \"address\": \"0xffffffff81000100\", \"calls\": 2, \"timed\": 1, \"failed\": 0");
	CHECK_HAS(json, "\"routine\": null, \"address\": \"0xffffffff81000200\"");
	free(text);
	free(json);
	etl_report_free(&r);
	test_end();

	test_begin("filtered_by_pid");
	memset(&flt, 0, sizeof(flt));
	flt.pids[flt.npids++] = 400;
	CHECK_EQ(etl_report_read_filtered(&f, &r, &flt, &err), 0);
	CHECK_EQ(r.syscalls.nrows, 1);
	CHECK_EQ(r.syscalls.rows[0].pid, 400);
	etl_report_free(&r);
	test_end();

	test_begin("no_syscall_records");
	{
		struct synth s;
		uint8_t *plain;

		synth_begin(&s, 4096, 1);
		synth_buffer(&s, 0);
		cswitch(&s, 1000, 0, 300);
		plain = synth_end(&s, &size);
		etl_close(&f);
		CHECK_EQ(etl_open_memory(&f, "plain.etl", plain, size, &err), 0);
		CHECK_EQ(etl_report_read(&f, &r, &err), 0);
		CHECK(!r.syscalls.any);
		CHECK_EQ(r.syscalls.nrows, 0);
		text = NULL;
		text = report_string(&r, false);
		CHECK(text && !strstr(text, "System calls"));
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
