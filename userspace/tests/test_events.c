// SPDX-License-Identifier: GPL-2.0
/*
 * The event table (uapi/ntkl_events.h) holds together: one entry per hook,
 * every event ntkl writes has a header, a version and a layout, every
 * layout's fields lie inside its fixed part in payload order and agree with
 * its size rule, and the names, the checker and the decoder all answer
 * from it. The module cannot write a hook the table lacks: its record
 * writer takes an event id (module/format/record.h), not a hook.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "etl/etl_check.h"
#include "etl/etl_decode.h"
#include "etl/etl_events.h"
#include "etl/etl_names.h"
#include "test.h"
#include "uapi/ntkl.h"

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


/* Each event as Windows writes it (see its use below). */
static const struct {
	enum etw_event_id id;
	uint16_t hook;
	uint16_t version;
	uint8_t header;
	uint32_t mask;
} windows[] = {
#define SYS	ETW_HEADER_TYPE_SYSTEM64
#define PERF	ETW_HEADER_TYPE_PERFINFO64
	{ ETW_EVENT_HEADER, 0x0000, 2, SYS, 0 },
	{ ETW_EVENT_HEADER_EXTENSION, 0x0005, 2, SYS, 0 },
	{ ETW_EVENT_RUNDOWN_COMPLETE, 0x0008, 2, PERF, 0 },
	/* the PerfView sample's DiskIo records */
	{ ETW_EVENT_DISKIO_READ, 0x010A, 3, PERF, PERF_DISK_IO },
	{ ETW_EVENT_DISKIO_WRITE, 0x010B, 3, PERF, PERF_DISK_IO },
	{ ETW_EVENT_DISKIO_READ_INIT, 0x010C, 3, SYS, PERF_DISK_IO_INIT },
	{ ETW_EVENT_DISKIO_WRITE_INIT, 0x010D, 3, SYS, PERF_DISK_IO_INIT },
	{ ETW_EVENT_DISKIO_FLUSH_BUFFERS, 0x010E, 3, PERF, PERF_DISK_IO },
	{ ETW_EVENT_DISKIO_FLUSH_INIT, 0x010F, 3, SYS, PERF_DISK_IO_INIT },
	{ ETW_EVENT_PROCESS_START, 0x0301, 4, SYS, PERF_PROCESS },
	{ ETW_EVENT_PROCESS_DC_START, 0x0303, 4, PERF, 0 },
	{ ETW_EVENT_THREAD_DC_START, 0x0503, 3, SYS, 0 },
	{ ETW_EVENT_CSWITCH, 0x0524, 4, PERF, PERF_CONTEXT_SWITCH },
	{ ETW_EVENT_COMPACT_CSWITCH, 0x0525, 2, PERF, PERF_COMPACT_CSWITCH },
	{ ETW_EVENT_SPINLOCK, 0x0529, 2, PERF, PERF_SPINLOCK },
	{ ETW_EVENT_READY_THREAD, 0x0532, 2, PERF, PERF_DISPATCHER },
	{ ETW_EVENT_CONFIG_CPU, 0x0B0A, 3, SYS, 0 },
	{ ETW_EVENT_SAMPLED_PROFILE, 0x0F2E, 2, PERF, PERF_PROFILE },
	{ ETW_EVENT_ISR, 0x0F43, 2, PERF, PERF_INTERRUPT },
	{ ETW_EVENT_DPC, 0x0F44, 2, PERF, PERF_DPC },
	{ ETW_EVENT_TIMER_DPC, 0x0F45, 2, PERF, PERF_DPC },
	{ ETW_EVENT_PROFILE_SET_INTERVAL, 0x0F48, 3, SYS, PERF_PROFILE },
	{ ETW_EVENT_PROFILE_COLLECTION_START, 0x0F49, 3, SYS, PERF_PROFILE },
	{ ETW_EVENT_PROFILE_COLLECTION_END, 0x0F4A, 3, SYS, PERF_PROFILE },
	{ ETW_EVENT_IMAGE_UNLOAD, 0x1402, 3, SYS, PERF_LOADER },
	{ ETW_EVENT_IMAGE_DC_START, 0x1403, 3, SYS, PERF_LOADER },
	{ ETW_EVENT_IMAGE_DC_END, 0x1404, 3, SYS, PERF_LOADER },
	{ ETW_EVENT_IMAGE_LOAD, 0x140A, 3, SYS, PERF_LOADER },
	{ ETW_EVENT_IMAGE_KERNEL_BASE, 0x1421, 2, PERF, PERF_LOADER },
	/* the PerfView sample's cached stacks: definitions, then references */
	{ ETW_EVENT_STACK_KEY_DELETE, 0x1823, 2, PERF, 0 },
	{ ETW_EVENT_STACK_KEY_RUNDOWN, 0x1824, 2, PERF, 0 },
	{ ETW_EVENT_STACK_KEY_KERNEL, 0x1825, 2, PERF, 0 },
	{ ETW_EVENT_STACK_KEY_USER, 0x1826, 2, PERF, 0 },
	/* KernelTraceControl's classic events, by their class's pseudo group */
	{ ETW_EVENT_IMAGE_ID, 0xF000, 2, ETW_HEADER_TYPE_FULL_HEADER64, PERF_LOADER },
	{ ETW_EVENT_DBGID_NONE, 0xF020, 2, ETW_HEADER_TYPE_FULL_HEADER64, PERF_LOADER },
	{ ETW_EVENT_DBGID_RSDS, 0xF024, 2, ETW_HEADER_TYPE_FULL_HEADER64, PERF_LOADER },
#undef SYS
#undef PERF
};

static void test_written_events(void)
{
	test_begin("written_events_complete");
	for (int i = 0; i < ETW_EVENT_COUNT; i++) {
		const struct etw_event_desc *ev = &etw_events[i];

		if (!written_by_ntkl(ev))
			continue;
		if (ev->header_type != ETW_HEADER_TYPE_SYSTEM64 &&
		    ev->header_type != ETW_HEADER_TYPE_PERFINFO64 &&
		    !(ev->header_type == ETW_HEADER_TYPE_FULL_HEADER64 &&
		      ETW_HOOK_GROUP(ev->hook_id) == ETW_GROUP_IMAGE_ID))
			test_fail("%s: header type %u is not a 64-bit kernel header",
				  ev->id, ev->header_type);
		if (!ev->version)
			test_fail("%s: written with version 0", ev->id);
		if (ev->layout == ETW_LAYOUT_NONE)
			test_fail("%s: written without a layout", ev->id);
		if (etl_event_layout(ev->hook_id, ev->version) != &etw_layouts[ev->layout])
			test_fail("%s: its own version does not find its layout", ev->id);
	}
	/*
	 * What the seeds, the Windows samples (shared/docs/windows-event-
	 * catalogue.md) and TraceEvent's parser give: hook, version, header
	 * (SYSTEM64 for the header buffer's events: module/format/header.c),
	 * and the group mask that turns the event on.
	 */
	for (size_t i = 0; i < sizeof(windows) / sizeof(windows[0]); i++) {
		const struct etw_event_desc *ev = &etw_events[windows[i].id];

		CHECK_EQ(ev->hook_id, windows[i].hook);
		CHECK_EQ(ev->version, windows[i].version);
		CHECK_EQ(ev->header_type, windows[i].header);
		CHECK_EQ(ev->mask, windows[i].mask);
	}
	CHECK_EQ(etw_layouts[ETW_LAYOUT_SAMPLED_PROFILE].min, 16);
	CHECK_EQ(etw_layouts[ETW_LAYOUT_IMAGE_V3].fixed, 0x38);
	CHECK_EQ(etw_layouts[ETW_LAYOUT_SAMPLED_PROFILE_INTERVAL].fixed, 12);
	/* the MOF's DPC and ISR classes with a 64-bit Routine (TraceEvent: 16, 20) */
	CHECK_EQ(etw_layouts[ETW_LAYOUT_DPC].max, 16);
	CHECK_EQ(etw_layouts[ETW_LAYOUT_ISR].max, 20);
	CHECK_EQ(etw_enable_flag_group(EVENT_TRACE_FLAG_DPC), PERF_DPC);
	CHECK_EQ(etw_enable_flag_group(EVENT_TRACE_FLAG_INTERRUPT), PERF_INTERRUPT);
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

/*
 * Every field's width in the list is its member's size: the build checks
 * it, so a wrong width is a compile error, not a case.
 */
#define NTKL_EVENT(...)
#define NTKL_LAYOUT(...)
#define NTKL_FIELD(layout, type, member, width, name, kind) \
	static_assert(sizeof(((type *)0)->member) == (width), \
		      #layout "." #member ": the width is not the member's size");
#include "uapi/ntkl_event_list.h"
#undef NTKL_EVENT
#undef NTKL_LAYOUT
#undef NTKL_FIELD

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
	/* the MOF classes' names, as WPA, TraceEvent and dissect.etl have them */
	CHECK_STR(etl_hook_label(0x0443, buf, sizeof(buf)), "FileIo/Read");
	CHECK_STR(etl_hook_label(0x0220, buf, sizeof(buf)), "PageFault/HardFault");
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

/*
 * The events whose stacks ntkl walks (NTKL_STACKWALK lines): each is an
 * event ntkl writes, with its own name, and the four of uapi/ntkl.h's
 * NTKL_STACK_HOOK_* (the ABI) are among them under xperf's names.
 */
static void test_stackwalks(void)
{
	static const struct {
		const char *name;
		uint16_t hook;
	} abi[] = {
		{ "CSwitch", NTKL_STACK_HOOK_CSWITCH },
		{ "SpinLock", NTKL_STACK_HOOK_SPINLOCK },
		{ "ReadyThread", NTKL_STACK_HOOK_READY_THREAD },
		{ "Profile", NTKL_STACK_HOOK_PROFILE },
	};

	test_begin("stackwalks_from_list");
	CHECK(NTKL_WALK_COUNT <= 32);
	for (unsigned int i = 0; i < NTKL_WALK_COUNT; i++) {
		const struct etw_event_desc *ev = &etw_events[ntkl_stackwalks[i].event];

		CHECK_MSG(written_by_ntkl(ev), "%s: not an event ntkl writes", ev->id);
		for (unsigned int j = 0; j < i; j++)
			CHECK_MSG(strcmp(ntkl_stackwalks[i].name, ntkl_stackwalks[j].name),
				  "%s: two walked events of this name", ntkl_stackwalks[i].name);
	}
	for (size_t i = 0; i < sizeof(abi) / sizeof(abi[0]); i++) {
		unsigned int w = 0;

		while (w < NTKL_WALK_COUNT &&
		       etw_events[ntkl_stackwalks[w].event].hook_id != abi[i].hook)
			w++;
		CHECK_MSG(w < NTKL_WALK_COUNT && !strcmp(ntkl_stackwalks[w].name, abi[i].name),
			  "0x%04x is not walked as %s", abi[i].hook, abi[i].name);
	}
	test_end();
}

int main(void)
{
	test_hooks_unique();
	test_stackwalks();
	test_written_events();
	test_layouts();
	test_names();
	test_decoder_follows_table();
	return test_exit();
}
