// SPDX-License-Identifier: GPL-2.0
/*
 * Folded stacks (analysis/etl_folded.h, ntkl convert --to folded) of a
 * synthetic file whose one image is this test program, so its frames are
 * named from a real file as ntkl symbols names them:
 *
 *   - a StackWalk after its sample, stacks written whole and by key, a
 *     user key Windows writes long after its event on another CPU, a
 *     sample without a stack (its IP alone), an address in no image: one
 *     line per distinct stack, outermost first, with its count, the lines
 *     in byte order;
 *   - a stack after another event of the same time and thread (a
 *     ReadyThread the sample's interrupt wrote) is that event's, not the
 *     sample's;
 *   - --event cswitch takes the CSwitch's new thread's stack, and --tid
 *     names the process process-PID/TID.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "etl_synth.h"
#include "analysis/analysis.h"

#define PID		42
#define TID		43
#define BASE		0x7f0000000000ull

/* The two functions the synthetic stacks are made of: never called. */
__attribute__((noipa, used)) static void folded_inner(void)
{
	__asm__ volatile("");
}

__attribute__((noipa, used)) static void folded_outer(void)
{
	__asm__ volatile("");
}

static void process_rec(struct synth *s, int64_t t, const char *name)
{
	uint8_t rec[ETW_PROCESS_V4_FIXED_SIZE + 4 + 64 + 2] = { 0 };
	struct etw_process_v4 pr = { .process_id = PID };
	size_t n = strlen(name);

	memcpy(rec, &pr, ETW_PROCESS_V4_FIXED_SIZE);
	memcpy(rec + ETW_PROCESS_V4_FIXED_SIZE + 4, name, n + 1);
	synth_system_record(s, ETW_EVENT_PROCESS_START_HOOK, 4, t, rec,
			    (uint32_t)(ETW_PROCESS_V4_FIXED_SIZE + 4 + n + 1 + 2));
}

static void image_rec(struct synth *s, int64_t t, uint64_t size, const char *path)
{
	synth_image_dc_start(s, t, PID, BASE, size, path);
}

static void sample(struct synth *s, int64_t t, uint64_t ip)
{
	synth_sample(s, t, TID, ip);
}

/* A StackWalk of frames f[0..n) (innermost first) for the event at event_time. */
static void stack_walk(struct synth *s, int64_t t, int64_t event_time, const uint64_t *f, size_t n)
{
	synth_stack_walk(s, t, event_time, PID, TID, f, n);
}

static void key_ref(struct synth *s, uint16_t hook, int64_t t, int64_t event_time, uint64_t key)
{
	synth_stack_key_ref(s, hook, t, event_time, PID, TID, key);
}

/* Where this program's function name lies in the traced image: BASE + its offset. */
static uint64_t traced(const struct sym_table *t, const char *name)
{
	for (size_t i = 0; i < t->nfuncs; i++)
		if (!strcmp(t->funcs[i].name, name))
			return BASE + (t->funcs[i].addr - t->base);
	return 0;
}

/*
 * The file: this program as pid 42's image. inner and outer are
 * folded_inner's and folded_outer's addresses in it.
 */
static uint8_t *make_file(const char *path, uint64_t image_size, uint64_t inner, uint64_t outer,
			  size_t *size)
{
	const uint64_t both[] = { inner, outer }, out_only[] = { outer }, nowhere[] = { 0x1234 };
	struct wmi_contextswap cs = { .new_thread_id = TID };
	struct synth s;
	uint32_t readied = 99;

	synth_begin(&s, 8192, 2);
	synth_buffer(&s, 0);
	process_rec(&s, 100, "prog");
	synth_thread(&s, ETW_EVENT_THREAD_DC_START_HOOK, 100, PID, TID, "prog");
	image_rec(&s, 100, image_size, path);
	/* whole, twice */
	sample(&s, 1000, inner);
	stack_walk(&s, 1001, 1000, both, 2);
	sample(&s, 1100, inner);
	stack_walk(&s, 1101, 1100, both, 2);
	/* by key: its definition at the end */
	sample(&s, 1200, outer);
	key_ref(&s, ETW_EVENT_STACK_KEY_USER_HOOK, 1201, 1200, 0xB);
	/* no stack: its IP */
	sample(&s, 1300, inner);
	/* the ReadyThread its interrupt wrote at the same time takes the second stack */
	sample(&s, 1400, inner);
	stack_walk(&s, 1401, 1400, both, 2);
	synth_record(&s, ETW_EVENT_READY_THREAD_HOOK, 2, 1400, &readied, sizeof(readied));
	stack_walk(&s, 1402, 1400, nowhere, 1);
	/* Windows: the user part long after, on another CPU (below) */
	sample(&s, 1500, inner);
	/* an address in no image */
	sample(&s, 1600, 0x1234);
	stack_walk(&s, 1601, 1600, nowhere, 1);
	synth_record(&s, ETW_EVENT_CSWITCH_HOOK, etw_events[ETW_EVENT_CSWITCH].version, 1700, &cs,
		     sizeof(cs));
	stack_walk(&s, 1701, 1700, out_only, 1);
	synth_buffer(&s, 1);
	key_ref(&s, ETW_EVENT_STACK_KEY_USER_HOOK, 5000, 1500, 0xC);
	synth_stack_key_def(&s, 9000, 0xB, out_only, 1);
	synth_stack_key_def(&s, 9001, 0xC, both, 2);
	return synth_end(&s, size);
}

static char *fold(const uint8_t *img, size_t size, enum etl_folded_event ev, unsigned int flags,
		  struct etl_folded_stats *st)
{
	struct sym_loader ld = { 0 };
	struct etl_error err;
	struct etl_file f;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int ret = -1;

	if (out && !etl_open_memory(&f, "folded.etl", img, size, &err)) {
		ret = etl_folded_write(out, &f, ev, flags, &ld, NULL, st, &err);
		etl_close(&f);
	}
	if (out)
		fclose(out);
	sym_loader_free(&ld);
	if (ret) {
		free(text);
		return NULL;
	}
	return text;
}

int main(void)
{
	char path[PATH_MAX], err[512], *text;
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	struct etl_folded_stats st;
	uint64_t inner, outer, end = 0;
	struct sym_table t;
	uint8_t *img;
	size_t size;

	sym_table_init(&t);
	path[n > 0 ? n : 0] = 0;
	if (n <= 0 || sym_elf_read(path, NULL, &t, err, sizeof(err))) {
		test_skip("folded_profile", "this program's own symbols: %s", n > 0 ? err : "no /proc");
		return test_exit();
	}
	inner = traced(&t, "folded_inner");
	outer = traced(&t, "folded_outer");
	for (size_t i = 0; i < t.nfuncs; i++)
		if (t.funcs[i].addr - t.base > end)
			end = t.funcs[i].addr - t.base;
	sym_table_free(&t);
	img = make_file(path, end + 0x10000, inner, outer, &size);

	test_begin("folded_profile");
	CHECK(inner && outer && img);
	text = fold(img, size, ETL_FOLDED_PROFILE, 0, &st);
	CHECK_STR(text,
		  "prog;? 1\n"
		  "prog;test_folded!folded_inner 1\n"
		  "prog;test_folded!folded_outer 1\n"
		  "prog;test_folded!folded_outer;test_folded!folded_inner 4\n");
	CHECK_EQ(st.events, 7);
	CHECK_EQ(st.stacks, 6);
	CHECK_EQ(st.lines, 4);
	CHECK_EQ(st.unresolved, 0);
	free(text);
	test_end();

	test_begin("folded_cswitch_tid");
	text = fold(img, size, ETL_FOLDED_CSWITCH, ETL_FOLDED_TID, &st);
	CHECK_STR(text, "prog-42/43;test_folded!folded_outer 1\n");
	CHECK_EQ(st.events, 1);
	CHECK_EQ(st.stacks, 1);
	free(text);
	test_end();

	free(img);
	return test_exit();
}
