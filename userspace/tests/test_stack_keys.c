// SPDX-License-Identifier: GPL-2.0
/*
 * Cached stacks (etl_stack_keys.h): references resolved through
 * definitions that come after them, a key Windows reuses after its
 * KeyDelete resolved to the definition of its time, a reference to no
 * definition left unresolved; the decoder and the checker on them; and
 * the PerfView sample's references, every one of which its definitions
 * resolve; relog --expand-stacks on both (a Stack per event, its kernel
 * and user parts joined, the definitions gone).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "etl_synth.h"
#include "etl/etl.h"
#include "analysis/etl_relog.h"

struct def3 {
	struct etw_stack_key_def h;
	uint64_t frames[3];
};

struct seen {
	struct etl_stack_keys keys;
	struct etl_stack_ref refs[16];
	unsigned long nrefs, ndefs, all_refs;
};

static int on_record(void *ctx, const struct etl_buffer *b, const struct etl_record *r)
{
	struct seen *s = ctx;
	struct etl_stack_ref ref;
	int taken;

	(void)b;
	if (etl_stack_ref_parse(r, &ref)) {
		if (s->nrefs < 16)
			s->refs[s->nrefs++] = ref;
		s->all_refs++;
		return 0;
	}
	taken = etl_stack_keys_add(&s->keys, r);
	if (taken < 0)
		return -1;
	s->ndefs += (unsigned long)taken;
	return 0;
}

/* The Stack records of a relogged file, and any stack key record left. */
struct stacks_seen {
	unsigned long stacks, refs_or_defs;
	uint32_t frames[4];
	uint64_t first[4], last[4], event_time[4];
};

static int on_stack(void *ctx, const struct etl_buffer *b, const struct etl_record *r)
{
	struct stacks_seen *s = ctx;
	uint32_t n;

	(void)b;
	if (r->kind != ETL_KIND_KERNEL)
		return 0;
	if (r->hook_id >= ETW_EVENT_STACK_KEY_DELETE_HOOK &&
	    r->hook_id <= ETW_EVENT_STACK_KEY_USER_HOOK)
		s->refs_or_defs++;
	if (r->hook_id != ETW_EVENT_STACK_WALK_HOOK || r->payload_len < 24)
		return 0;
	n = (r->payload_len - 16) / 8;
	if (s->stacks < 4) {
		s->frames[s->stacks] = n;
		s->first[s->stacks] = etl_le64(r->payload + 16);
		s->last[s->stacks] = etl_le64(r->payload + 16 + 8 * (n - 1));
		s->event_time[s->stacks] = etl_le64(r->payload);
	}
	s->stacks++;
	return 0;
}

static void test_synthetic(void)
{
	struct etw_stack_key_ref k1 = { 1000, 42, 43, 0xA }, u1 = { 1000, 42, 43, 0xB },
				 k2 = { 3000, 42, 43, 0xA }, none = { 3000, 42, 43, 0xC };
	struct def3 da = { { 0xA }, { 0xffffffff81000010ULL, 0xffffffff81000020ULL,
				      0xffffffff81000030ULL } };
	struct def3 da2 = { { 0xA }, { 0xffffffff82000010ULL, 0xffffffff82000020ULL,
				       0xffffffff82000030ULL } };
	struct def3 db = { { 0xB }, { 0x401000, 0x402000, 0x403000 } };
	struct etl_walker w;
	struct etl_error err;
	struct etl_file f;
	struct seen s;
	struct synth sy;
	const uint64_t *fr;
	uint8_t *img;
	size_t size;
	uint32_t n = 0;

	test_begin("stack_keys_resolve_later_definitions");
	memset(&s, 0, sizeof(s));
	synth_begin(&sy, 4096, 1);
	synth_buffer(&sy, 0);
	/* references first, their definitions after (KeyDelete, KeyRundown) */
	synth_record(&sy, ETW_EVENT_STACK_KEY_KERNEL_HOOK, 2, 1001, &k1, sizeof(k1));
	synth_record(&sy, ETW_EVENT_STACK_KEY_USER_HOOK, 2, 1001, &u1, sizeof(u1));
	synth_record(&sy, ETW_EVENT_STACK_KEY_DELETE_HOOK, 2, 2000, &da, sizeof(da));
	/* the key again, for another stack (Windows reuses its entries) */
	synth_record(&sy, ETW_EVENT_STACK_KEY_KERNEL_HOOK, 2, 3001, &k2, sizeof(k2));
	synth_record(&sy, ETW_EVENT_STACK_KEY_USER_HOOK, 2, 3001, &none, sizeof(none));
	synth_record(&sy, ETW_EVENT_STACK_KEY_RUNDOWN_HOOK, 2, 4000, &da2, sizeof(da2));
	synth_record(&sy, ETW_EVENT_STACK_KEY_RUNDOWN_HOOK, 2, 4001, &db, sizeof(db));
	img = synth_end(&sy, &size);
	CHECK(img != NULL);
	if (!img || etl_open_memory(&f, "keys.etl", img, size, &err)) {
		free(img);
		test_end();
		return;
	}
	w = (struct etl_walker){ .record = on_record, .ctx = &s };
	CHECK_EQ(etl_walk(&f, &w, &err), 0);
	CHECK_EQ(s.nrefs, 4);
	CHECK_EQ(s.ndefs, 3);
	CHECK(!s.refs[0].user && s.refs[1].user);
	CHECK_EQ(s.refs[0].event_time, 1000);
	CHECK_EQ(s.refs[0].pid, 42);
	CHECK_EQ(s.refs[0].tid, 43);
	fr = etl_stack_keys_find(&s.keys, s.refs[0].key, s.refs[0].time, &n);
	CHECK(fr && n == 3 && fr[0] == 0xffffffff81000010ULL);
	fr = etl_stack_keys_find(&s.keys, s.refs[1].key, s.refs[1].time, &n);
	CHECK(fr && n == 3 && fr[2] == 0x403000);
	/* after the KeyDelete, the same key is the later definition's */
	fr = etl_stack_keys_find(&s.keys, s.refs[2].key, s.refs[2].time, &n);
	CHECK(fr && n == 3 && fr[0] == 0xffffffff82000010ULL);
	CHECK(!etl_stack_keys_find(&s.keys, s.refs[3].key, s.refs[3].time, &n));
	/* the checker takes them: definitions are 8 bytes and whole frames */
	CHECK_EQ(etl_check(&f, false, NULL, NULL, NULL), 0);
	etl_stack_keys_free(&s.keys);
	test_end();

	test_begin("relog_expand_stacks");
	{
		struct etl_relog_stats st;
		struct etl_file g;
		struct stacks_seen ss = { 0 };
		struct etl_walker w2 = { .record = on_stack, .ctx = &ss };
		uint8_t *out = NULL;
		size_t out_size;

		CHECK_EQ(etl_relog_expand(&f, ETL_RELOG_EXPAND_STACKS, &out, &out_size, &st, &err),
			 0);
		CHECK_EQ(st.stack_refs, 4);
		CHECK_EQ(st.stack_defs, 3);
		/* event 1000: kernel and user joined; event 3000: its user key undefined */
		CHECK_EQ(st.stacks, 2);
		CHECK_EQ(st.stack_unresolved, 1);
		if (out && !etl_open_memory(&g, "expanded.etl", out, out_size, &err)) {
			CHECK_EQ(etl_walk(&g, &w2, &err), 0);
			CHECK_EQ(ss.stacks, 2);
			CHECK_EQ(ss.refs_or_defs, 0);
			CHECK_EQ(ss.frames[0], 6);
			CHECK_EQ(ss.first[0], 0xffffffff81000010ULL);
			CHECK_EQ(ss.last[0], 0x403000);
			CHECK_EQ(ss.event_time[0], 1000);
			CHECK_EQ(ss.frames[1], 3);
			CHECK_EQ(ss.first[1], 0xffffffff82000010ULL);
			CHECK_EQ(etl_check(&g, false, NULL, NULL, NULL), 0);
			etl_close(&g);
		}
		free(out);
	}
	etl_close(&f);
	free(img);
	test_end();
}

static void test_perfview(void)
{
	char path[600];
	struct etl_walker w;
	struct etl_error err;
	struct etl_file f;
	struct seen s;
	const uint64_t *fr;
	unsigned long resolved = 0;
	uint32_t n;

	snprintf(path, sizeof(path), "%s/perfview__net.4.5.2.x64.etl", test_samples_dir());
	if (access(path, R_OK)) {
		test_skip("stack_keys_perfview", "%s is not here (set NTKL_SAMPLES)", path);
		return;
	}
	test_begin("stack_keys_perfview");
	memset(&s, 0, sizeof(s));
	if (etl_open(&f, path, &err)) {
		test_fail("%s", err.msg);
		test_end();
		return;
	}
	w = (struct etl_walker){ .record = on_record, .ctx = &s };
	CHECK_EQ(etl_walk(&f, &w, &err), 0);
	/* 7,046 StackKeyUser and 2,061 StackKeyKernel; 1,012 KeyRundown, 1,909 KeyDelete */
	CHECK_EQ(s.all_refs, 7046 + 2061);
	CHECK_EQ(s.ndefs, 1012 + 1909);
	etl_close(&f);
	/* again, resolving every reference */
	if (etl_open(&f, path, &err)) {
		test_fail("%s", err.msg);
		test_end();
		return;
	}
	{
		struct etl_cursor bc;
		struct etl_buffer b;

		etl_buffers_begin(&f, &bc);
		while (etl_next_buffer(&f, &bc, &b, &err) > 0) {
			struct etl_record_cursor rc;
			struct etl_record r;
			struct etl_stack_ref ref;

			etl_records_begin(&b, &rc);
			while (etl_next_record(&b, &rc, &r, &err) > 0) {
				if (!etl_stack_ref_parse(&r, &ref))
					continue;
				fr = etl_stack_keys_find(&s.keys, ref.key, ref.time, &n);
				if (fr && n)
					resolved++;
			}
		}
	}
	printf("# PerfView sample: %lu of %lu stack key references resolve\n", resolved,
	       s.all_refs);
	CHECK_EQ(resolved, s.all_refs);
	{
		struct etl_relog_stats st;
		uint8_t *out = NULL;
		size_t out_size;
		struct etl_file g;

		CHECK_EQ(etl_relog_expand(&f, ETL_RELOG_EXPAND_STACKS, &out, &out_size, &st, &err),
			 0);
		CHECK_EQ(st.stack_refs, s.all_refs);
		CHECK_EQ(st.stack_defs, s.ndefs);
		CHECK_EQ(st.stack_unresolved, 0);
		/* an event's kernel and user references, one Stack */
		CHECK(st.stacks > s.all_refs / 2 && st.stacks <= s.all_refs);
		if (out && !etl_open_memory(&g, "expanded.etl", out, out_size, &err)) {
			CHECK_EQ(etl_check(&g, false, NULL, NULL, NULL), 0);
			etl_close(&g);
		}
		printf("# PerfView sample expanded: %lu Stack events\n", st.stacks);
		free(out);
	}
	etl_stack_keys_free(&s.keys);
	etl_close(&f);
	test_end();
}

/* A reference whose EventTimeStamp is after its own time: the checker says so. */
static void test_check_ref_time(void)
{
	struct etw_stack_key_ref late = { 2000, 42, 43, 0xA };
	struct def3 da = { { 0xA }, { 0xffffffff81000010ULL, 0x401000, 0x402000 } };
	struct etl_error err;
	struct etl_file f;
	struct synth sy;
	uint8_t *img;
	size_t size;

	test_begin("check_stack_key_ref_time");
	synth_begin(&sy, 4096, 1);
	synth_buffer(&sy, 0);
	synth_record(&sy, ETW_EVENT_STACK_KEY_KERNEL_HOOK, 2, 1001, &late, sizeof(late));
	synth_record(&sy, ETW_EVENT_STACK_KEY_RUNDOWN_HOOK, 2, 3000, &da, sizeof(da));
	img = synth_end(&sy, &size);
	CHECK(img && !etl_open_memory(&f, "late.etl", img, size, &err));
	if (img) {
		CHECK_EQ(etl_check(&f, false, NULL, NULL, NULL), 1);
		etl_close(&f);
	}
	free(img);
	test_end();
}

int main(void)
{
	test_check_ref_time();
	test_synthetic();
	test_perfview();
	return test_exit();
}
