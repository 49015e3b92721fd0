// SPDX-License-Identifier: GPL-2.0
/*
 * StackWalk/Stack (0x1820) in userspace: -stackwalk's names and hook ids
 * (xperf's names, numbers, none, unknown ones refused), the decoder
 * (fields by name, one line per frame, kernel or user), and the checker
 * on synthetic files (16 bytes and whole 8-byte frames; EventTimeStamp
 * not after the record's own time).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "etl_synth.h"
#include "ctl/ntkl_stackwalk.h"
#include "etl/etl_check.h"
#include "etl/etl_decode.h"

static void test_parse(void)
{
	struct ntkl_stackwalk sw = { 0 };
	char err[256], out[256];

	test_begin("stackwalk_names_and_ids");
	CHECK_EQ(ntkl_stackwalk_parse("Profile+cswitch+READYTHREAD+SpinLock", &sw, err,
				      sizeof(err)), 0);
	CHECK_EQ(sw.count, 4);
	CHECK_EQ(sw.hooks[0], 0x0F2E);
	CHECK_EQ(sw.hooks[1], 0x0524);
	CHECK_EQ(sw.hooks[2], 0x0532);
	CHECK_EQ(sw.hooks[3], 0x0529);
	/* a hook given again (by number) is kept once; none adds nothing */
	CHECK_EQ(ntkl_stackwalk_parse("0x0524+none+0x0301", &sw, err, sizeof(err)), 0);
	CHECK_EQ(sw.count, 5);
	CHECK_EQ(sw.hooks[4], 0x0301);
	ntkl_stackwalk_format(sw.hooks, sw.count, out, sizeof(out));
	CHECK_STR(out, "Profile+CSwitch+ReadyThread+SpinLock+0x0301");
	ntkl_stackwalk_format(sw.hooks, 0, out, sizeof(out));
	CHECK_STR(out, "none");
	test_end();

	test_begin("stackwalk_refused");
	memset(&sw, 0, sizeof(sw));
	CHECK_EQ(ntkl_stackwalk_parse("Profile+DiskIo", &sw, err, sizeof(err)), -1);
	CHECK_HAS(err, "unknown stack walk event 'DiskIo'");
	CHECK_EQ(ntkl_stackwalk_parse("Profile+", &sw, err, sizeof(err)), -1);
	CHECK_EQ(ntkl_stackwalk_parse("0x10000", &sw, err, sizeof(err)), -1);
	CHECK_EQ(ntkl_stackwalk_parse("-1", &sw, err, sizeof(err)), -1);
	test_end();
}

static char *decode(const uint8_t *p, uint32_t len)
{
	char *text = NULL;
	size_t n;
	FILE *m = open_memstream(&text, &n);

	etl_decode_layout(m, "", ETW_LAYOUT_STACK_WALK, p, len);
	fclose(m);
	return text;
}

struct stack3 {
	struct etw_stack_walk h;
	uint64_t frames[3];
};

static void test_decode(void)
{
	struct stack3 st = {
		{ .event_time_stamp = 1234, .stack_process = 42, .stack_thread = 43 },
		{ 0xffffffff81234567ULL, 0xffffffffc0401000ULL, 0x401234 },
	};
	char *s;

	test_begin("decode_frames");
	s = decode((const uint8_t *)&st, sizeof(st));
	CHECK_HAS(s, "Stack: EventTimeStamp=1234 StackProcess=42 StackThread=43 Frames=3\n");
	CHECK_HAS(s, "  frame 0: 0xffffffff81234567 kernel\n");
	CHECK_HAS(s, "  frame 2: 0x0000000000401234 user\n");
	CHECK(!strstr(s, "not decoded"));
	free(s);
	/* half a frame more: said, not printed as a frame */
	s = decode((const uint8_t *)&st, sizeof(st) - 4);
	CHECK_HAS(s, "Frames=2");
	CHECK_HAS(s, "[+4 bytes not decoded]");
	free(s);
	test_end();
}

static void on_violation(void *ctx, const char *msg)
{
	char *first = ctx;

	if (!first[0])
		snprintf(first, 512, "%s", msg);
}

/* A file with one sample and its stack (payload len bytes), checked. */
static unsigned long check_one(uint32_t len, int64_t event_time, char *first)
{
	struct perfinfo_sampled_profile sp = { .instruction_pointer = 0x401234, .count = 1 };
	struct stack3 st = {
		{ .event_time_stamp = (uint64_t)event_time, .stack_process = 42,
		  .stack_thread = 43 },
		{ 0x401234, 0x401000, 0x400100 },
	};
	struct etl_error err;
	struct etl_file f;
	struct synth s;
	unsigned long n;
	uint8_t *img;
	size_t fsize;

	synth_begin(&s, 4096, 1);
	synth_buffer(&s, 0);
	synth_record(&s, ETW_EVENT_SAMPLED_PROFILE_HOOK, 2, 2000, &sp, sizeof(sp));
	synth_record(&s, ETW_EVENT_STACK_WALK_HOOK, 2, 2001, &st, len);
	img = synth_end(&s, &fsize);
	first[0] = '\0';
	if (!img || etl_open_memory(&f, "stack.etl", img, fsize, &err)) {
		free(img);
		return ~0UL;
	}
	n = etl_check(&f, false, on_violation, first, NULL);
	etl_close(&f);
	free(img);
	return n;
}

static void test_check(void)
{
	char first[512];

	test_begin("check_stack_walk");
	CHECK_EQ(check_one(sizeof(struct stack3), 2000, first), 0);
	CHECK_EQ(check_one(sizeof(struct etw_stack_walk) + 8, 2000, first), 0);
	/* no frame, half a frame, a time after its own */
	CHECK_EQ(check_one(sizeof(struct etw_stack_walk), 2000, first), 1);
	CHECK_HAS(first, "payload is 0x10 bytes, its layout needs 0x18 to 0x610");
	CHECK_EQ(check_one(sizeof(struct stack3) - 4, 2000, first), 1);
	CHECK_HAS(first, "not 16 + 8 per frame");
	CHECK_EQ(check_one(sizeof(struct stack3), 2002, first), 1);
	CHECK_HAS(first, "EventTimeStamp 2002 is after its own time 2001");
	test_end();
}

int main(void)
{
	test_parse();
	test_decode();
	test_check();
	return test_exit();
}
