// SPDX-License-Identifier: GPL-2.0
/*
 * What ntkl query, list and start print for a logger: every field named,
 * flags and group masks by name, and where the events go.
 */
#include "test.h"
#include "ctl/ntkl_ctl.h"
#include "ctl/ntkl_show.h"
#include "uapi/ntkl_etw.h"
#include "uapi/ntkl_events.h"

/* A logger as QUERY returns it: PROC_THREAD+CSWITCH+SPINLOCK, to a file. */
static void sample(struct ntkl_properties *p)
{
	ntkl_props_init(p, "foo");
	p->logger_id = 3;
	p->buffer_size_kb = 64;
	p->minimum_buffers = 8;
	p->maximum_buffers = 16;
	p->number_of_buffers = 16;
	p->free_buffers = 12;
	p->log_file_mode = NTKL_MODE_SEQUENTIAL;
	p->clock_type = NTKL_CLOCK_QPC;
	p->perf_freq = 10000000;
	p->flush_timer = 1;
	p->enable_flags = 0x13;
	p->group_masks[0] = 0x13;
	p->group_masks[1] = 0x10004;
	p->events_lost = 5;
	p->buffers_written = 42;
	p->start_time = ETW_FILETIME_UNIX_EPOCH;	/* 1970-01-01 */
	p->logger_status = NTKL_STATUS_RUNNING;
	p->accept_new_events = 1;
	p->readers = 1;
	p->owner_uid = 0;	/* root: in every /etc/passwd */
}

static char *capture_props(const struct ntkl_properties *p, const struct ntkl_sink *sink)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	ntkl_show_props(out, p, sink);
	fclose(out);
	return text;
}

static void test_query(void)
{
	struct ntkl_writer_state st = { .pid = 99, .file = "/out/s.etl", .state = "writing" };
	struct ntkl_sink sink = { .writer = &st, .busy = 1 };
	struct ntkl_properties p;
	char *text;

	test_begin("query_fields");
	sample(&p);
	text = capture_props(&p, &sink);
	CHECK_HAS(text, "Logger Name           : foo\n");
	CHECK_HAS(text, "Logger Id             : 3\n");
	CHECK_HAS(text, "Owner                 : root\n");
	CHECK_HAS(text, "Status                : running, accepting events\n");
	CHECK_HAS(text, "Log File Mode         : 0x00000001 (FILE_MODE_SEQUENTIAL)\n");
	CHECK_HAS(text, "Log Filename          : /out/s.etl (writer pid 99)\n");
	CHECK_HAS(text, "Clock Type            : 1 qpc (10000000 ticks/s)\n");
	CHECK_HAS(text, "Free Buffers          : 12\n");
	CHECK_HAS(text, "Flush Timer           : 1 s\n");
	CHECK_HAS(text, "Trace Flags           : PROC_THREAD+CSWITCH+SPINLOCK\n");
	CHECK_HAS(text, "Enable Flags          : 0x00000013 (PROCESS|THREAD|CSWITCH)\n");
	CHECK_HAS(text, "Group Masks           : 00000013 00010004 00000000");
	CHECK_HAS(text, "Groups                : PROCESS|THREAD|CONTEXT_SWITCH|SPINLOCK\n");
	CHECK_HAS(text, "Events Lost           : 5\n");
	CHECK_HAS(text, "Buffers Written       : 42\n");
	CHECK_HAS(text, "Start Time            : 1970-01-01 00:00:00");
	free(text);
	test_end();

	test_begin("query_sinks");
	sink.busy = 0;
	snprintf(st.state, sizeof(st.state), "failed");
	snprintf(st.error, sizeof(st.error), "disk full");
	text = capture_props(&p, &sink);
	CHECK_HAS(text, "Log Filename          : /out/s.etl (writer gone: failed, disk full)\n");
	free(text);
	snprintf(st.state, sizeof(st.state), "writing");
	text = capture_props(&p, &sink);
	CHECK_HAS(text, "Log Filename          : /out/s.etl (writer pid 99 died: ntkl stop completes the file)\n");
	free(text);
	p.log_file_mode = NTKL_MODE_BUFFERING | NTKL_MODE_MS_FLUSH_TIMER;
	p.flush_timer = 500;
	text = capture_props(&p, NULL);
	CHECK_HAS(text, "memory only (buffering mode: ntkl save foo FILE)");
	CHECK_HAS(text, "Flush Timer           : 500 ms\n");
	CHECK_HAS(text, "(USE_MS_FLUSH_TIMER|BUFFERING_MODE)");
	free(text);
	p.log_file_mode = 0;
	p.readers = 0;
	text = capture_props(&p, NULL);
	CHECK_HAS(text, "none: no reader, events are lost");
	free(text);
	test_end();
}

static void test_list(void)
{
	struct ntkl_properties p[2];
	struct ntkl_writer_state st = { .pid = 99, .file = "/out/s.etl" };
	struct ntkl_sink sinks[2] = { { .writer = &st, .busy = 1 }, { 0 } };
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	test_begin("list_lines");
	sample(&p[0]);
	sample(&p[1]);
	p[1].logger_id = 4;
	ntkl_props_set_name(&p[1], "a longer name");
	p[1].log_file_mode = NTKL_MODE_BUFFERING;
	p[1].enable_flags = p[1].group_masks[0] = 3;
	p[1].group_masks[1] = 0;
	p[1].owner_uid = 4000000000u;	/* in no /etc/passwd */
	out = open_memstream(&text, &len);
	ntkl_show_list(out, p, sinks, 2);
	fclose(out);
	CHECK_HAS(text, "ID  NAME           OWNER           STATUS   MODE");
	CHECK_HAS(text, "FLAGS                         FILE\n");
	CHECK_HAS(text, "  3  foo            root            running  file          64      4/16       42        5  PROC_THREAD+CSWITCH+SPINLOCK  /out/s.etl\n");
	CHECK_HAS(text, "  4  a longer name  uid 4000000000  running  buffering     64      4/16       42        5  PROC_THREAD                   -\n");
	free(text);
	test_end();
}

/*
 * Events the kernel cannot give (ABI 8): a warning each, named as dump
 * names them, and a line in query; none from an older module's answer.
 */
static void test_absent(void)
{
	struct ntkl_properties p;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	test_begin("absent_events");
	sample(&p);
	p.absent_count = 2;
	p.absent_hooks[0] = ETW_EVENT_FILEIO_READ_HOOK;
	p.absent_hooks[1] = ETW_EVENT_FILEIO_CREATE_HOOK;
	out = open_memstream(&text, &len);
	CHECK_EQ(ntkl_show_absent(out, "start", &p), 2);
	fclose(out);
	CHECK_HAS(text, "ntkl start: warning: this kernel cannot give every FileIo/Read event: a kernel function ntkl probes for it is absent (the kernel log, dmesg, names it)\n");
	CHECK_HAS(text, "every FileIo/Create event");
	free(text);
	text = capture_props(&p, NULL);
	CHECK_HAS(text, "Absent Events         : FileIo/Read, FileIo/Create (not on this kernel; dmesg says why)\n");
	free(text);

	/* an ABI 7 module wrote 328 bytes: nothing past them is its */
	p.size = NTKL_PROPERTIES_SIZE_VER1;
	text = NULL;
	out = open_memstream(&text, &len);
	CHECK_EQ(ntkl_show_absent(out, "start", &p), 0);
	fclose(out);
	CHECK(!text || !text[0]);
	free(text);
	text = capture_props(&p, NULL);
	CHECK(!strstr(text, "Absent"));
	free(text);
	test_end();
}

int main(void)
{
	test_query();
	test_list();
	test_absent();
	return test_exit();
}
