// SPDX-License-Identifier: GPL-2.0
/*
 * The event table (uapi/ntkl_events.h) holds together: one entry per hook,
 * every event ntkl writes has a header, a version and a layout, every
 * layout's fields lie inside its fixed part in payload order and agree with
 * its size rule, and the names, the checker and the decoder all answer
 * from it. The module cannot write a hook the table lacks: its record
 * writer takes an event id (module/format/record.h), not a hook.
 */
#include <stdio.h>
#include <stdlib.h>

#include "etl/etl_check.h"
#include "etl/etl_decode.h"
#include "etl/etl_events.h"
#include "etl/etl_names.h"
#include "test.h"

static bool written_by_ntkl(const struct etw_event_desc *ev)
{
	return ev->header_type != ETW_HEADER_TYPE_ANY;
}

static void test_hooks_unique(void)
{
	test_begin("one_entry_per_hook");
	for (int i = 0; i < ETW_EVENT_COUNT; i++) {
		const struct etw_event_desc *ev = &etw_events[i];

		/* lookups search: the list stays in hook order */
		if (i && etw_events[i - 1].hook_id >= ev->hook_id)
			test_fail("%s: hook 0x%04x is not after 0x%04x", ev->id, ev->hook_id,
				  etw_events[i - 1].hook_id);
		if (etl_event_find(ev->hook_id) != ev)
			test_fail("%s: etl_event_find misses it", ev->id);
		if (!ev->label || !ev->label[0] || !ev->id)
			test_fail("entry %d has no name", i);
	}
	CHECK(etl_event_find(0x0599) == NULL);
	test_end();
}

static void test_written_events(void)
{
	test_begin("written_events_complete");
	for (int i = 0; i < ETW_EVENT_COUNT; i++) {
		const struct etw_event_desc *ev = &etw_events[i];

		if (!written_by_ntkl(ev))
			continue;
		if (ev->header_type != ETW_HEADER_TYPE_SYSTEM64 &&
		    ev->header_type != ETW_HEADER_TYPE_PERFINFO64)
			test_fail("%s: header type %u is not a 64-bit kernel header",
				  ev->id, ev->header_type);
		if (!ev->version)
			test_fail("%s: written with version 0", ev->id);
		if (ev->layout == ETW_LAYOUT_NONE)
			test_fail("%s: written without a layout", ev->id);
		if (etl_event_layout(ev->hook_id, ev->version) != &etw_layouts[ev->layout])
			test_fail("%s: its own version does not find its layout", ev->id);
	}
	/* What the seeds and the Windows samples give (shared/docs/windows-event-catalogue.md). */
	CHECK_EQ(etw_events[ETW_EVENT_CSWITCH].hook_id, 0x0524);
	CHECK_EQ(etw_events[ETW_EVENT_COMPACT_CSWITCH].hook_id, 0x0525);
	CHECK_EQ(etw_events[ETW_EVENT_SPINLOCK].hook_id, 0x0529);
	CHECK_EQ(etw_events[ETW_EVENT_READY_THREAD].hook_id, 0x0532);
	CHECK_EQ(etw_events[ETW_EVENT_CSWITCH].version, 4);
	CHECK_EQ(etw_events[ETW_EVENT_CSWITCH].header_type, ETW_HEADER_TYPE_PERFINFO64);
	CHECK_EQ(etw_events[ETW_EVENT_COMPACT_CSWITCH].version, 2);
	CHECK_EQ(etw_events[ETW_EVENT_SPINLOCK].version, 2);
	CHECK_EQ(etw_events[ETW_EVENT_READY_THREAD].version, 2);
	CHECK_EQ(etw_events[ETW_EVENT_PROCESS_START].header_type, ETW_HEADER_TYPE_SYSTEM64);
	CHECK_EQ(etw_events[ETW_EVENT_PROCESS_DC_START].header_type, ETW_HEADER_TYPE_PERFINFO64);
	CHECK_EQ(etw_events[ETW_EVENT_PROCESS_DC_START].version, 4);
	CHECK_EQ(etw_events[ETW_EVENT_THREAD_DC_START].header_type, ETW_HEADER_TYPE_SYSTEM64);
	CHECK_EQ(etw_events[ETW_EVENT_THREAD_DC_START].version, 3);
	CHECK_EQ(etw_events[ETW_EVENT_CONFIG_CPU].version, 3);
	CHECK_EQ(etw_events[ETW_EVENT_RUNDOWN_COMPLETE].header_type, ETW_HEADER_TYPE_PERFINFO64);
	/* module/format/header.c writes the header buffer's events as SYSTEM64 */
	CHECK_EQ(etw_events[ETW_EVENT_HEADER].header_type, ETW_HEADER_TYPE_SYSTEM64);
	CHECK_EQ(etw_events[ETW_EVENT_HEADER_EXTENSION].header_type, ETW_HEADER_TYPE_SYSTEM64);
	CHECK_EQ(etw_events[ETW_EVENT_CONFIG_CPU].header_type, ETW_HEADER_TYPE_SYSTEM64);
	CHECK_EQ(etw_events[ETW_EVENT_CSWITCH].mask, PERF_CONTEXT_SWITCH);
	CHECK_EQ(etw_events[ETW_EVENT_READY_THREAD].mask, PERF_DISPATCHER);
	CHECK_EQ(etw_events[ETW_EVENT_SPINLOCK].mask, PERF_SPINLOCK);
	CHECK_EQ(etw_events[ETW_EVENT_PROCESS_DC_START].mask, 0);
	/* TraceEvent's SampledProfileTraceData and SampledProfileIntervalTraceData */
	CHECK_EQ(etw_events[ETW_EVENT_SAMPLED_PROFILE].hook_id, 0x0F2E);
	CHECK_EQ(etw_events[ETW_EVENT_SAMPLED_PROFILE].version, 2);
	CHECK_EQ(etw_events[ETW_EVENT_SAMPLED_PROFILE].header_type, ETW_HEADER_TYPE_PERFINFO64);
	CHECK_EQ(etw_events[ETW_EVENT_SAMPLED_PROFILE].mask, PERF_PROFILE);
	CHECK_EQ(etw_layouts[ETW_LAYOUT_SAMPLED_PROFILE].min, 16);
	CHECK_EQ(etw_events[ETW_EVENT_PROFILE_SET_INTERVAL].hook_id, 0x0F48);
	CHECK_EQ(etw_events[ETW_EVENT_PROFILE_COLLECTION_START].hook_id, 0x0F49);
	CHECK_EQ(etw_events[ETW_EVENT_PROFILE_COLLECTION_END].hook_id, 0x0F4A);
	CHECK_EQ(etw_events[ETW_EVENT_PROFILE_COLLECTION_START].version, 3);
	CHECK_EQ(etw_events[ETW_EVENT_PROFILE_COLLECTION_START].header_type,
		 ETW_HEADER_TYPE_SYSTEM64);
	CHECK_EQ(etw_layouts[ETW_LAYOUT_SAMPLED_PROFILE_INTERVAL].fixed, 12);
	/* EVENT_TRACE_FLAG_PROFILE stands for PERF_PROFILE (GC-GM) */
	CHECK_EQ(etw_enable_flag_group(EVENT_TRACE_FLAG_PROFILE), PERF_PROFILE);
	test_end();
}

static void test_layouts(void)
{
	for (int i = 0; i < ETW_LAYOUT_COUNT; i++) {
		const struct etw_layout *l = &etw_layouts[i];
		uint32_t end = 0;

		test_begin("layout_%s", l->name);
		CHECK(l->fixed <= l->min);
		CHECK(l->min <= l->max);
		CHECK(l->max <= ETW_MAX_EVENT_SIZE);
		for (const struct etw_field *f = l->fields; etw_field_in_layout(f); f++) {
			if (!f->name || !f->size)
				test_fail("a field without a name or size");
			else if (f->offset < end)
				test_fail("%s at 0x%x overlaps the field before it (ends 0x%x)",
					  f->name, f->offset, end);
			else if (f->offset + f->size > l->fixed)
				test_fail("%s ends at 0x%x, past the fixed part 0x%x",
					  f->name, f->offset + f->size, l->fixed);
			/* the module hashes them in place as aligned 64-bit values */
			if ((f->kind == ETW_FIELD_KADDR || f->kind == ETW_FIELD_ADDR) &&
			    (f->size != 8 || f->offset % 8))
				test_fail("kernel address %s is not an aligned 64-bit field", f->name);
			end = f->offset + f->size;
		}
		test_end();
	}
}

/* Every field's width in the list is its member's size. */
static void test_widths(void)
{
	test_begin("field_widths");
#define NTKL_EVENT(...)
#define NTKL_LAYOUT(...)
#define NTKL_FIELD(layout, type, member, width, name, kind) \
	if (sizeof(((type *)0)->member) != (width)) \
		test_fail("%s.%s: width %d, the member has %zu", #layout, #member, \
			  (width), sizeof(((type *)0)->member));
#include "uapi/ntkl_event_list.h"
#undef NTKL_EVENT
#undef NTKL_LAYOUT
#undef NTKL_FIELD
	test_end();
}

/* "Group/Label" for every event: the names come from the table. */
static void test_names(void)
{
	char buf[64], want[64];

	test_begin("names_from_table");
	for (int i = 0; i < ETW_EVENT_COUNT; i++) {
		const struct etw_event_desc *ev = &etw_events[i];

		snprintf(want, sizeof(want), "%s/%s", etl_group_name(ETW_HOOK_GROUP(ev->hook_id)),
			 ev->label);
		etl_hook_label(ev->hook_id, buf, sizeof(buf));
		if (strcmp(buf, want))
			test_fail("0x%04x is \"%s\", the table says \"%s\"", ev->hook_id, buf, want);
	}
	CHECK_STR(etl_hook_label(0x0524, buf, sizeof(buf)), "Thread/CSwitch");
	CHECK_STR(etl_hook_label(0x0F2E, buf, sizeof(buf)), "PerfInfo/SampleProf");
	CHECK_STR(etl_hook_label(0x0B0A, buf, sizeof(buf)), "SystemConfig/CPU");
	CHECK_STR(etl_hook_label(0x1820, buf, sizeof(buf)), "StackWalk/Stack");
	CHECK_STR(etl_hook_label(0x0599, buf, sizeof(buf)), "Thread/0x99");
	test_end();
}

static char *decode(enum etw_layout_id layout, const uint8_t *p, uint32_t len)
{
	char *text = NULL;
	size_t n;
	FILE *m = open_memstream(&text, &n);

	etl_decode_layout(m, "", layout, p, len);
	fclose(m);
	return text;
}

/*
 * Every layout ntkl writes decodes at its minimum size without a short
 * report, names every field the table lists, and a byte less is short.
 * (A Process record's minimum is the checker's: a null SID and nothing
 * after it; the decoder then reports the strings missing.)
 */
static void test_decoder_follows_table(void)
{
	static uint8_t zeros[ETW_MAX_EVENT_SIZE];

	for (int i = 0; i < ETW_EVENT_COUNT; i++) {
		const struct etw_event_desc *ev = &etw_events[i];
		const struct etw_layout *l = &etw_layouts[ev->layout];
		char *s;

		if (!written_by_ntkl(ev) || ev->layout == ETW_LAYOUT_EMPTY)
			continue;
		test_begin("decoder_%s", ev->id);
		s = decode(ev->layout, zeros, l->min);
		if (l->tail != ETW_TAIL_PROCESS)
			CHECK(!strstr(s, "short"));
		CHECK(!strncmp(s, l->title, strlen(l->title)));
		for (const struct etw_field *f = l->fields; etw_field_in_layout(f); f++) {
			char name[80];

			if (f->kind == ETW_FIELD_RESERVED || f->kind == ETW_FIELD_SPINLOCK_FLAGS)
				continue;
			snprintf(name, sizeof(name), " %s=", f->name);
			if (!strstr(s, name))
				test_fail("%s: the decoder does not print %s", ev->id, f->name);
		}
		free(s);
		if (l->min) {
			s = decode(ev->layout, zeros, l->min - 1);
			CHECK(strstr(s, "[payload short") != NULL);
			free(s);
		}
		test_end();
	}
}

int main(void)
{
	test_hooks_unique();
	test_written_events();
	test_layouts();
	test_widths();
	test_names();
	test_decoder_follows_table();
	return test_exit();
}
