// SPDX-License-Identifier: GPL-2.0
/*
 * ISR, DPC and TimerDPC as the reader sees them, on a synthetic file:
 * the checker accepts the payloads ntkl writes (16 and 20 bytes, version
 * 2) and refuses others; --events decodes every field by name; --stats
 * sums count, total and longest time per Routine (record time less
 * InitialTime, at the file's PerfFreq).
 */
#include "test.h"
#include "etl_synth.h"
#include "analysis/etl_dump.h"

#define ISR_ROUTINE	0xffffffff81234560ull
#define SOFTIRQ_ROUTINE	0xffffffff81100000ull
#define TIMER_ROUTINE	0xffffffffc0001000ull

static void dpc(struct synth *s, uint16_t hook, int64_t start, int64_t end, uint64_t routine)
{
	struct perfinfo_dpc p = { .initial_time = (uint64_t)start, .routine = routine };

	synth_record(s, hook, 2, end, &p, sizeof(p));
}

static void isr(struct synth *s, int64_t start, int64_t end, uint8_t vector, uint8_t ret)
{
	struct perfinfo_isr p = {
		.initial_time = (uint64_t)start, .routine = ISR_ROUTINE,
		.return_value = ret, .vector = vector,
	};

	synth_record(s, ETW_EVENT_ISR_HOOK, 2, end, &p, ETW_ISR_SIZE);
}

/* The file: QPC at 10 MHz, so 10 ticks are 1 us. */
static uint8_t *build(size_t *size, bool bad_size)
{
	struct synth s;

	synth_begin(&s, 4096, 2);
	synth_buffer(&s, 0);
	/* a softirq of 100 us with an interrupt of 20 us inside it */
	isr(&s, 2000, 2200, 24, 1);
	dpc(&s, ETW_EVENT_DPC_HOOK, 1500, 2500, SOFTIRQ_ROUTINE);
	dpc(&s, ETW_EVENT_TIMER_DPC_HOOK, 3000, 3050, TIMER_ROUTINE);
	synth_buffer(&s, 1);
	dpc(&s, ETW_EVENT_TIMER_DPC_HOOK, 4000, 4300, TIMER_ROUTINE);
	dpc(&s, ETW_EVENT_DPC_HOOK, 5000, 5400, SOFTIRQ_ROUTINE);
	if (bad_size) {
		struct perfinfo_dpc p = { 0 };

		synth_record(&s, ETW_EVENT_DPC_HOOK, 2, 6000, &p, 12);
	}
	return synth_end(&s, size);
}

static int dump(const uint8_t *img, size_t size, unsigned int flags, char **out, char **err)
{
	size_t no, ne;
	FILE *o = open_memstream(out, &no), *e = open_memstream(err, &ne);
	uint8_t *copy = test_copy(img, size);
	int rc = etl_dump_memory("dpc.etl", copy, size, flags, o, e, "dump: ");

	fclose(o);
	fclose(e);
	free(copy);
	return rc;
}

static void test_check_and_events(void)
{
	size_t size;
	uint8_t *img = build(&size, false), *bad;
	char *out, *err;

	test_begin("check_accepts_ntkl_payloads");
	CHECK_EQ(dump(img, size, ETL_DUMP_CHECK, &out, &err), 0);
	CHECK_HAS(out, "every check passed");
	free(out);
	free(err);
	test_end();

	test_begin("events_decoded_by_name");
	CHECK_EQ(dump(img, size, ETL_DUMP_EVENTS, &out, &err), 0);
	CHECK_HAS(out, "PerfInfo/ISR (0x0f43 PERFINFO64 v2");
	CHECK_HAS(out, "ISR: InitialTime=2000 Routine=0xffffffff81234560 ReturnValue=1 Vector=24");
	CHECK_HAS(out, "PerfInfo/DPC (0x0f44 PERFINFO64 v2");
	CHECK_HAS(out, "DPC: InitialTime=1500 Routine=0xffffffff81100000");
	CHECK_HAS(out, "PerfInfo/TimerDPC (0x0f45 PERFINFO64 v2");
	free(out);
	free(err);
	test_end();

	test_begin("check_refuses_short_dpc");
	bad = build(&size, true);
	CHECK(dump(bad, size, ETL_DUMP_CHECK, &out, &err) != 0);
	free(out);
	free(err);
	free(bad);
	test_end();
	free(img);
}

static void test_stats(void)
{
	size_t size;
	uint8_t *img = build(&size, false);
	char *out, *err;

	test_begin("stats_per_routine");
	CHECK_EQ(dump(img, size, ETL_DUMP_STATS, &out, &err), 0);
	CHECK_HAS(out, "ISR, DPC and TimerDPC by Routine");
	/* most time first: the softirq 100 + 40 us, longest 100 */
	CHECK_HAS(out, "DPC      0xffffffff81100000          2        140.0      100.0\n");
	CHECK_HAS(out, "TimerDPC 0xffffffffc0001000          2         35.0       30.0\n");
	CHECK_HAS(out, "ISR      0xffffffff81234560          1         20.0       20.0\n");
	CHECK(strstr(out, "DPC      0xffffffff811") < strstr(out, "TimerDPC 0xffffffffc"));
	free(out);
	free(err);
	test_end();
	free(img);
}

int main(void)
{
	test_check_and_events();
	test_stats();
	return test_exit();
}
