// SPDX-License-Identifier: GPL-2.0
/*
 * The reader, the checks and the decoders on the real Windows files in
 * shared/etl-samples ($NTKL_SAMPLES), and the TraceLoggingTester file the
 * Makefile extracts from its 7z ($NTKL_SAMPLES_OUT).
 *
 * The expected numbers were counted independently of this code (a few
 * lines of Python walking the same files, outside the repository) and from
 * the samples' README.
 */
#include <dirent.h>
#include <inttypes.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "etl/etl_check.h"
#include "etl/etl_names.h"
#include "analysis/etl_dump.h"
#include "etl/etl_reader.h"
#include "etl/etl_events.h"
#include "etl/etl_decode.h"
#include "etl/etl_xpress.h"
#include "ctl/ntkl_time_zone.h"
#include "ctl/ntkl_writer.h"

#define SPDL	"airbus-etl-parser__ShutdownPerfDiagLogger.etl"
#define LXCORE	"airbus-etl-parser__lxcore_kernel.etl"
#define AMSI	"airbus-etl-parser__AMSITrace.etl"
#define NET	"perfview__net.4.5.2.x64.etl"
#define TLT	"TraceLoggingTester.etl"

struct counts {
	unsigned long buffers, events;
	unsigned long *by_hook;		/* [65536], kernel headers only */
	unsigned long by_header[256];
	char error[256];		/* first reader error, "" if none */
};

static void counts_free(struct counts *c)
{
	free(c->by_hook);
}

/* Walk every record of f. */
static void count_file(const struct etl_file *f, struct counts *c)
{
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_error err;
	int rc;

	memset(c, 0, sizeof(*c));
	c->by_hook = calloc(65536, sizeof(*c->by_hook));
	etl_buffers_begin(f, &bc);
	while ((rc = etl_next_buffer(f, &bc, &b, &err)) > 0) {
		struct etl_record_cursor rcur;
		struct etl_record r;
		int rr;

		uint64_t in_buffer = 0;

		c->buffers++;
		etl_records_begin(&b, &rcur);
		while ((rr = etl_next_record(&b, &rcur, &r, &err)) > 0) {
			in_buffer++;
			c->events++;
			c->by_header[r.header_type]++;
			if (r.kind == ETL_KIND_KERNEL)
				c->by_hook[r.hook_id]++;
		}
		if (rr < 0 && !c->error[0])
			snprintf(c->error, sizeof(c->error), "%s", err.msg);
		/* the writer's quick count agrees with the full walk */
		if (rr == 0 && etl_count_records(&b) != in_buffer && !c->error[0])
			snprintf(c->error, sizeof(c->error),
				 "buffer %u: etl_count_records() says %llu records, the walk %llu",
				 b.index, (unsigned long long)etl_count_records(&b),
				 (unsigned long long)in_buffer);
	}
	if (rc < 0 && !c->error[0])
		snprintf(c->error, sizeof(c->error), "%s", err.msg);
}

static void on_violation(void *ctx, const char *msg)
{
	char *first = ctx;

	if (!first[0])
		snprintf(first, 256, "%s", msg);
}

/* The first record with this hook, decoded into a string (free it). */
static char *decode_nth(const struct etl_file *f, uint16_t hook, int nth,
			struct etl_record *out)
{
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_error err;
	char *text = NULL;
	size_t len;

	etl_buffers_begin(f, &bc);
	while (etl_next_buffer(f, &bc, &b, &err) > 0) {
		struct etl_record_cursor rcur;
		struct etl_record r;

		etl_records_begin(&b, &rcur);
		while (etl_next_record(&b, &rcur, &r, &err) > 0) {
			FILE *m;

			if (r.kind != ETL_KIND_KERNEL || r.hook_id != hook || nth-- > 0)
				continue;
			m = open_memstream(&text, &len);
			if (!m)
				return NULL;
			etl_decode_record(m, "", f, &r);
			fclose(m);
			if (out)
				*out = r;
			return text;
		}
	}
	return NULL;
}

/* How many kernel records of a group decode to text containing needle. */
static unsigned long count_decoded(const struct etl_file *f, uint8_t group,
				   const char *needle)
{
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_error err;
	unsigned long n = 0;

	etl_buffers_begin(f, &bc);
	while (etl_next_buffer(f, &bc, &b, &err) > 0) {
		struct etl_record_cursor rcur;
		struct etl_record r;

		etl_records_begin(&b, &rcur);
		while (etl_next_record(&b, &rcur, &r, &err) > 0) {
			char *text = NULL;
			size_t len;
			FILE *m;

			if (r.kind != ETL_KIND_KERNEL ||
			    ETW_HOOK_GROUP(r.hook_id) != group)
				continue;
			m = open_memstream(&text, &len);
			if (!m)
				continue;
			etl_decode_record(m, "", f, &r);
			fclose(m);
			if (strstr(text, needle))
				n++;
			free(text);
		}
	}
	return n;
}

/* Dump (summary or events or check) into a string (free it); *rc the status. */
static char *dump_to_string(const char *path, unsigned int flags, int *rc,
			    char **errtext)
{
	char *text = NULL, *etext = NULL;
	size_t len, elen;
	FILE *out = open_memstream(&text, &len);
	FILE *err = open_memstream(&etext, &elen);

	*rc = etl_dump_path(path, flags, out, err, "dump: ");
	fclose(out);
	fclose(err);
	if (errtext)
		*errtext = etext;
	else
		free(etext);
	return text;
}

/* ---------------------------------------------------------------------- */
/* Every file                                                              */
/* ---------------------------------------------------------------------- */

static void test_one_file(const char *dir, const char *name)
{
	char path[4096], first[256] = "";
	struct etl_check_stats st;
	struct etl_error err;
	struct etl_file f;
	struct counts c;
	FILE *devnull;
	int rc;

	test_path(path, sizeof(path), dir, name);
	test_begin("read_%s", name);
	if (etl_open(&f, path, &err)) {
		test_fail("etl_open: %s", err.msg);
		test_end();
		return;
	}
	count_file(&f, &c);
	CHECK_MSG(!c.error[0], "reader error: %s", c.error);
	CHECK_EQ(c.buffers, f.header.buffers_written);
	CHECK(c.events > 0);
	/* the process group's records all have names (report names processes by them) */
	for (unsigned int h = ETW_HOOK(ETW_GROUP_PROCESS, 0); h <= ETW_HOOK(ETW_GROUP_PROCESS, 0xff); h++)
		if (c.by_hook[h])
			CHECK_MSG(etl_hook_name((uint16_t)h) != NULL,
				  "Process/0x%02x (%lu records) has no name", h & 0xff,
				  (unsigned long)c.by_hook[h]);
	counts_free(&c);
	test_end();

	/* Compressed or not, every Windows file passes the strict checks. */
	test_begin("check_%s", name);
	etl_check(&f, false, on_violation, first, &st);
	CHECK_MSG(!st.violations, "%lu violations, first: %s", st.violations, first);
	test_end();

	/* The whole `dump --events` path, output thrown away. */
	test_begin("dump_events_%s", name);
	devnull = fopen("/dev/null", "w");
	CHECK(devnull != NULL);
	if (devnull) {
		rc = etl_dump_path(path, ETL_DUMP_EVENTS, devnull, devnull, "");
		CHECK_EQ(rc, 0);
		fclose(devnull);
	}
	test_end();
	etl_close(&f);
}

static void test_every_file(void)
{
	const char *dir = test_samples_dir();
	char path[4096];
	struct dirent *de;
	int n = 0;
	DIR *d;

	test_begin("samples_present");
	d = opendir(dir);
	CHECK_MSG(d, "cannot open the samples directory %s (set NTKL_SAMPLES)", dir);
	test_end();
	if (d) {
		while ((de = readdir(d))) {
			size_t len = strlen(de->d_name);

			if (len < 4 || strcmp(de->d_name + len - 4, ".etl"))
				continue;
			test_one_file(dir, de->d_name);
			n++;
		}
		closedir(d);
	}

	test_begin("samples_count");
	CHECK_EQ(n, 4);
	test_end();

	test_begin("sample_7z_extracted");
	test_path(path, sizeof(path), test_samples_out_dir(), TLT);
	CHECK_MSG(!access(path, R_OK),
		  "%s is missing: `make test` extracts it with 7z (apt-get install p7zip-full)",
		  path);
	test_end();
	if (!access(path, R_OK))
		test_one_file(test_samples_out_dir(), TLT);
}

/* ---------------------------------------------------------------------- */
/* Values read from each sample                                            */
/* ---------------------------------------------------------------------- */

static bool open_sample(struct etl_file *f, const char *dir, const char *name)
{
	char path[4096];
	struct etl_error err;

	if (etl_open(f, test_path(path, sizeof(path), dir, name), &err)) {
		test_fail("%s: %s", name, err.msg);
		return false;
	}
	return true;
}

/*
 * What a Windows rundown record's header says (issue 15): every Thread
 * DCStart/DCEnd header carries the thread it lists (its process and
 * thread ids), with that thread's times; Process DCStart/DCEnd headers
 * are PERFINFO64 and carry no ids. ntkl_rundown_test checks ntkl's.
 */
struct rundown_headers {
	unsigned long threads, ids_match, with_kernel_time;
	unsigned long idle, idle_with_kernel_time;
	unsigned long processes, processes_perfinfo;
};

static void view_rundown_headers(const struct etl_file *f, struct rundown_headers *v)
{
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_error err;

	memset(v, 0, sizeof(*v));
	etl_buffers_begin(f, &bc);
	while (etl_next_buffer(f, &bc, &b, &err) > 0) {
		struct etl_record_cursor rcur;
		struct etl_record r;

		etl_records_begin(&b, &rcur);
		while (etl_next_record(&b, &rcur, &r, &err) > 0) {
			const struct etw_thread_v3 *t = (const void *)r.payload;
			const struct system_trace_header *h;

			if (r.kind != ETL_KIND_KERNEL)
				continue;
			if (r.hook_id == ETW_EVENT_PROCESS_DC_START_HOOK ||
			    r.hook_id == ETW_EVENT_PROCESS_DC_END_HOOK) {
				v->processes++;
				v->processes_perfinfo += r.header_type == ETW_HEADER_TYPE_PERFINFO64 &&
							 !r.has_ids;
			}
			if ((r.hook_id != ETW_EVENT_THREAD_DC_START_HOOK &&
			     r.hook_id != ETW_EVENT_THREAD_DC_END_HOOK) ||
			    r.header_type != ETW_HEADER_TYPE_SYSTEM64 || r.payload_len < sizeof(*t))
				continue;
			h = (const void *)(r.payload - r.header_len);
			v->threads++;
			v->ids_match += r.has_ids && r.process_id == t->process_id &&
					r.thread_id == t->thread_id;
			v->with_kernel_time += h->kernel_time != 0;
			if (t->thread_id == 0) {
				v->idle++;
				v->idle_with_kernel_time += h->kernel_time != 0;
			}
		}
	}
}

static void test_spdl(void)
{
	struct etl_file f;
	struct etl_record r;
	struct counts c;
	int64_t ft = 0;
	char *s;
	int rc;

	test_begin("spdl_header");
	if (!open_sample(&f, test_samples_dir(), SPDL)) {
		test_end();
		return;
	}
	CHECK_EQ(f.header.buffer_size, 65536);
	CHECK_EQ(f.header.buffers_written, 49);
	CHECK_EQ(f.header.number_of_processors, 2);
	CHECK_EQ(f.header.provider_version, 18362);
	CHECK_EQ(f.header.perf_freq, 10000000);
	CHECK_EQ(f.header.reserved_flags, EVENT_TRACE_CLOCK_PERFCOUNTER);
	CHECK_EQ(f.header.log_file_mode, 0x02000080);
	CHECK_EQ(f.header.pointer_size, 8);
	CHECK_EQ(f.header.version, ETW_LOGFILE_VERSION);
	CHECK_EQ(f.header.timer_resolution, 156250);
	CHECK_EQ(f.header.cpu_speed_in_mhz, 1992);
	CHECK_EQ(f.header.events_lost, 0);
	CHECK_STR(f.logger_name, "PerfDiag Logger");
	CHECK_STR(f.log_file_name,
		  "C:\\Windows\\system32\\WDI\\LogFiles\\ShutdownPerfDiagLogger.etl");
	/* The Header event's own clock value is the start. */
	CHECK(etl_time_to_filetime(&f, f.header_system_time, &ft));
	CHECK_EQ(ft, f.header.start_time);
	test_end();

	test_begin("spdl_counts");
	count_file(&f, &c);
	CHECK_STR(c.error, "");
	CHECK_EQ(c.buffers, 49);
	CHECK_EQ(c.events, 17078);
	CHECK_EQ(c.by_header[ETW_HEADER_TYPE_SYSTEM64], 8433);
	CHECK_EQ(c.by_header[ETW_HEADER_TYPE_PERFINFO64], 8645);
	CHECK_EQ(c.by_hook[ETW_EVENT_THREAD_DC_START_HOOK], 1175);
	CHECK_EQ(c.by_hook[ETW_EVENT_THREAD_START_HOOK], 350);
	CHECK_EQ(c.by_hook[ETW_EVENT_THREAD_END_HOOK], 1032);
	CHECK_EQ(c.by_hook[ETW_EVENT_THREAD_DC_END_HOOK], 501);
	CHECK_EQ(c.by_hook[ETW_EVENT_PROCESS_DC_START_HOOK], 94);
	CHECK_EQ(c.by_hook[ETW_EVENT_PROCESS_DC_END_HOOK], 37);
	CHECK_EQ(c.by_hook[ETW_EVENT_PROCESS_END_HOOK], 60);
	CHECK_EQ(c.by_hook[ETW_EVENT_PROCESS_DEFUNCT_HOOK], 5);
	CHECK_EQ(c.by_hook[ETW_EVENT_IMAGE_UNLOAD_HOOK], 4791);
	CHECK_EQ(c.by_hook[ETW_EVENT_IMAGE_DC_START_HOOK], 196 + 6549);
	CHECK_EQ(c.by_hook[ETW_EVENT_IMAGE_DC_END_HOOK], 193 + 1952);
	CHECK_EQ(c.by_hook[ETW_EVENT_HEADER_HOOK], 1);
	CHECK_EQ(c.by_hook[ETW_EVENT_HEADER_EXTENSION_HOOK], 3);
	CHECK_EQ(c.by_hook[ETW_EVENT_GROUP_MASKS_END_HOOK], 2);
	CHECK_EQ(c.by_hook[ETW_EVENT_RUNDOWN_COMPLETE_HOOK], 2);
	CHECK_EQ(c.by_hook[ETW_EVENT_PARTITION_INFO_HOOK], 1);
	counts_free(&c);
	test_end();

	test_begin("spdl_first_process_is_idle");
	s = decode_nth(&f, ETW_EVENT_PROCESS_DC_START_HOOK, 0, &r);
	CHECK_HAS(s, "ProcessId=0 ");
	CHECK_HAS(s, "UserSID=S-1-5-18 ");
	CHECK_HAS(s, "ImageFileName=\"Idle\"");
	CHECK_HAS(s, "CommandLine=\"\"");
	CHECK(s && !strstr(s, "[payload short"));
	CHECK(s && !strstr(s, "not decoded"));
	CHECK_EQ(r.header_type, ETW_HEADER_TYPE_PERFINFO64);
	CHECK_EQ(r.version, etw_events[ETW_EVENT_PROCESS_START].version);
	CHECK_EQ(r.buffer_index, 1);
	free(s);
	s = decode_nth(&f, ETW_EVENT_PROCESS_DC_START_HOOK, 1, NULL);
	CHECK_HAS(s, "ProcessId=4 ");
	CHECK_HAS(s, "ImageFileName=\"System\"");
	free(s);
	test_end();

	test_begin("spdl_thread_dcstart");
	s = decode_nth(&f, ETW_EVENT_THREAD_DC_START_HOOK, 2, &r);
	CHECK_HAS(s, "ProcessId=4 TThreadId=12 ");
	CHECK_HAS(s, "StackBase=0xfffff580f6810000");
	CHECK_HAS(s, "BasePriority=13");
	CHECK_HAS(s, "ThreadName=\"\"");
	CHECK(s && !strstr(s, "[payload short"));
	CHECK_EQ(r.size, 106);
	CHECK_EQ(r.payload_len, 74);
	CHECK(r.has_ids);
	CHECK_EQ(r.thread_id, 12);
	CHECK_EQ(r.process_id, 4);
	free(s);
	test_end();

	test_begin("spdl_rundown_headers_describe_the_thread");
	{
		struct rundown_headers v;

		view_rundown_headers(&f, &v);
		/* 1175 DCStart + 501 DCEnd, counted with ntkl dump --events */
		CHECK_EQ(v.threads, 1676);
		CHECK_EQ(v.ids_match, v.threads);
		/* each CPU's idle thread (2 CPUs, in both rundowns) has run */
		CHECK(v.with_kernel_time > 0);
		CHECK_EQ(v.idle, 4);
		CHECK_EQ(v.idle_with_kernel_time, 4);
		CHECK(v.processes > 0);
		CHECK_EQ(v.processes_perfinfo, v.processes);
	}
	test_end();

	test_begin("spdl_group_masks");
	s = decode_nth(&f, ETW_EVENT_HEADER_EXTENSION_HOOK, 1, NULL);
	CHECK_HAS(s, "Masks=00000007:00000000");
	CHECK_HAS(s, "KernelEventVersion=70");
	CHECK_HAS(s, "On=PROCESS|THREAD|LOADER");
	free(s);
	test_end();

	test_begin("spdl_dump_summary");
	s = dump_to_string(f.path, 0, &rc, NULL);
	CHECK_EQ(rc, 0);
	CHECK_HAS(s, "LoggerName:          \"PerfDiag Logger\"");
	CHECK_HAS(s, "LogFileMode:         0x02000080 (SECURE_MODE|SYSTEM_LOGGER_MODE)");
	CHECK_HAS(s, "ClockType:           1 (QPC)");
	CHECK_HAS(s, "StartTime:           2020-02-28 09:03:47.7445790 UTC");
	CHECK_HAS(s, "1175  SYSTEM64            3  0x0503 Thread/DCStart");
	CHECK_HAS(s, "  94  PERFINFO64          4  0x0303 Process/DCStart");
	CHECK_HAS(s, "Total: 17078 events in 49 buffers");
	free(s);
	test_end();

	test_begin("spdl_dump_events_names");
	s = dump_to_string(f.path, ETL_DUMP_EVENTS, &rc, NULL);
	CHECK_EQ(rc, 0);
	CHECK_HAS(s, "Process/DCStart (0x0303 PERFINFO64 v4, 91 bytes)");
	CHECK_HAS(s, "ImageFileName=\"svchost.exe\"");
	CHECK_HAS(s, "Thread/DCStart (0x0503 SYSTEM64 v3, 106 bytes)");
	free(s);
	test_end();
	etl_close(&f);
}

static void test_lxcore(void)
{
	struct etl_file f;
	struct counts c;
	char *s;
	int rc;

	test_begin("lxcore_header");
	if (!open_sample(&f, test_samples_dir(), LXCORE)) {
		test_end();
		return;
	}
	CHECK_EQ(f.header.number_of_processors, 6);
	CHECK_EQ(f.header.buffer_size, 8192);
	CHECK_EQ(f.header.buffers_written, 3);
	CHECK_EQ(f.header.provider_version, 19041);
	CHECK_STR(f.logger_name, "lxcore_kernel");
	CHECK_STR(f.log_file_name, "C:\\Prog\\lxcore_kernel.etl");
	test_end();

	test_begin("lxcore_events");
	count_file(&f, &c);
	CHECK_STR(c.error, "");
	CHECK_EQ(c.buffers, 3);
	CHECK_EQ(c.events, 4);
	CHECK_EQ(c.by_header[ETW_HEADER_TYPE_EVENT_HEADER64], 2);
	CHECK_EQ(c.by_hook[ETW_EVENT_PARTITION_INFO_HOOK], 1);
	counts_free(&c);
	s = dump_to_string(f.path, ETL_DUMP_EVENTS, &rc, NULL);
	CHECK_EQ(rc, 0);
	CHECK_HAS(s, "provider {0cd1c309-0878-4515-83db-749843b3f5c9}");
	CHECK_HAS(s, "PROV_TRAITS(56 bytes)");
	CHECK_HAS(s, "payload: ");
	CHECK_HAS(s, "=\"Microsoft.Windows.Subsystem.LxCore\"");
	CHECK_HAS(s, "EVENT_SCHEMA_TL(");
	free(s);
	test_end();
	etl_close(&f);
}

static void test_amsi(void)
{
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_error err;
	struct etl_file f;
	struct counts c;
	int64_t seq[8] = { 0 };
	int n = 0;

	test_begin("amsi_header");
	if (!open_sample(&f, test_samples_dir(), AMSI)) {
		test_end();
		return;
	}
	CHECK_EQ(f.header.number_of_processors, 8);
	CHECK_EQ(f.header.buffer_size, 65536);
	CHECK_EQ(f.header.buffers_written, 6);
	CHECK_EQ(f.header.events_lost, 3);
	CHECK_STR(f.logger_name, "AMSITraceSession");
	test_end();

	test_begin("amsi_events");
	count_file(&f, &c);
	CHECK_STR(c.error, "");
	CHECK_EQ(c.buffers, 6);
	CHECK_EQ(c.events, 21);
	CHECK_EQ(c.by_header[ETW_HEADER_TYPE_EVENT_HEADER64], 19);
	counts_free(&c);
	test_end();

	/* Buffers are in flush order: sequence numbers 0,4,5,1,2,3. */
	test_begin("amsi_sequence_numbers");
	etl_buffers_begin(&f, &bc);
	while (n < 8 && etl_next_buffer(&f, &bc, &b, &err) > 0)
		seq[n++] = b.hdr.sequence_number;
	CHECK_EQ(n, 6);
	CHECK(seq[0] == 0 && seq[1] == 4 && seq[2] == 5 && seq[3] == 1 &&
	      seq[4] == 2 && seq[5] == 3);
	test_end();
	etl_close(&f);
}

static void test_tlt(void)
{
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_error err;
	struct etl_record r;
	struct etl_file f;
	struct counts c;
	char *s;

	test_begin("tlt_header");
	if (!open_sample(&f, test_samples_out_dir(), TLT)) {
		test_end();
		return;
	}
	CHECK_EQ(f.header.number_of_processors, 20);
	CHECK_EQ(f.header.buffer_size, 1024 * 1024);
	CHECK_EQ(f.header.provider_version, 26100);
	CHECK_EQ(f.header.buffers_written, 41);
	CHECK_STR(f.logger_name, "Relogger");
	test_end();

	/* The relogger ends buffer 0's records at Offset, past SavedOffset. */
	test_begin("tlt_relogged_header_buffer");
	etl_buffers_begin(&f, &bc);
	CHECK_EQ(etl_next_buffer(&f, &bc, &b, &err), 1);
	CHECK_EQ(b.hdr.saved_offset, 0x1B8);
	CHECK_EQ(b.hdr.offset, 0x2C0);
	CHECK_EQ(b.filled, 0x2C0);
	CHECK(b.filled_from_offset);
	test_end();

	test_begin("tlt_counts");
	count_file(&f, &c);
	CHECK_STR(c.error, "");
	CHECK_EQ(c.buffers, 41);
	CHECK_EQ(c.events, 172716);
	CHECK_EQ(c.by_header[ETW_HEADER_TYPE_FULL_HEADER64], 93805);
	CHECK_EQ(c.by_header[ETW_HEADER_TYPE_EVENT_HEADER64], 47472);
	CHECK_EQ(c.by_header[ETW_HEADER_TYPE_PERFINFO64], 23620);
	CHECK_EQ(c.by_header[ETW_HEADER_TYPE_SYSTEM64], 7730);
	CHECK_EQ(c.by_header[ETW_HEADER_TYPE_EVENT_HEADER32], 88);
	CHECK_EQ(c.by_header[ETW_HEADER_TYPE_FULL_HEADER32], 1);
	CHECK_EQ(c.by_hook[ETW_EVENT_PARTITION_INFO_HOOK], 6);
	CHECK_EQ(c.by_hook[ETW_EVENT_THREAD_DC_END_HOOK], 6719);
	CHECK_EQ(c.by_hook[ETW_EVENT_PROCESS_DC_END_HOOK], 360);
	CHECK_EQ(c.by_hook[ETW_EVENT_CONFIG_CPU_HOOK], 1);
	counts_free(&c);
	test_end();

	test_begin("tlt_config_cpu");
	s = decode_nth(&f, ETW_EVENT_CONFIG_CPU_HOOK, 0, &r);
	CHECK_EQ(r.payload_len, ETW_CONFIG_CPU_SIZE);
	CHECK_EQ(r.version, etw_events[ETW_EVENT_CONFIG_CPU].version);
	CHECK_HAS(s, "MHz=3494 ");
	CHECK_HAS(s, "NumberOfProcessors=20 ");
	CHECK_HAS(s, "MemSize=65349 ");
	CHECK_HAS(s, "PageSize=4096 ");
	CHECK_HAS(s, "ComputerName=\"MAGNON\"");
	CHECK_HAS(s, "HighestUserAddress=0x7ffffffeffff ");
	CHECK_HAS(s, "ProcessorArchitecture=9 ");
	CHECK_HAS(s, "NxEnabled=1 ");
	CHECK_HAS(s, "MemorySpeed=2666");
	CHECK(s && !strstr(s, "[payload short"));
	CHECK(s && !strstr(s, "not decoded"));
	free(s);
	test_end();

	/* Windows 11 logs thread names in Thread v3 events. */
	test_begin("tlt_thread_names");
	CHECK_EQ(count_decoded(&f, ETW_GROUP_THREAD,
			       "ThreadName=\"ThreadPoolForegroundWorker\""), 338);
	CHECK_EQ(count_decoded(&f, ETW_GROUP_THREAD,
			       "ThreadName=\"ThreadPoolBackgroundWorker\""), 58);
	test_end();
	etl_close(&f);
}

/*
 * Our compressor on the records of one decompressed buffer: they must
 * come back the same. Returns the compressed size, 0 on a failure.
 */
static size_t recompress(const struct etl_buffer *b)
{
	const uint8_t *src = b->data + ETL_BUFFER_HEADER_SIZE;
	size_t len = b->filled - ETL_BUFFER_HEADER_SIZE, cap = etl_xpress_bound(len);
	uint8_t *c = malloc(cap), *back = malloc(len);
	struct etl_xpress_error xe;
	size_t n = 0, got = 0;

	if (!c || !back || etl_xpress_compress(src, len, c, cap, &n) ||
	    etl_xpress_decompress(c, n, back, len, &got, &xe) || got != len ||
	    memcmp(back, src, len)) {
		test_fail("buffer %u: our compression does not come back the same", b->index);
		n = 0;
	}
	free(c);
	free(back);
	return n;
}

/*
 * The PerfView file: LogFileMode COMPRESSED_MODE, an uncompressed 0x200-byte
 * header buffer, then 359 buffers of [MS-XCA] plain LZ77. The numbers were
 * counted by a few lines of Python with their own decoder.
 */
static void test_net_compressed(void)
{
	struct etl_record_cursor rcur;
	struct etl_record r;
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_error err;
	struct etl_file f;
	struct counts c;
	uint64_t disk = 0, plain = 0, ours = 0;
	unsigned long compressed = 0;
	int rc;

	test_begin("net_header");
	if (!open_sample(&f, test_samples_dir(), NET)) {
		test_end();
		return;
	}
	CHECK_STR(f.logger_name, "Relogger");
	CHECK_EQ(f.header.log_file_mode, 0x04010001);
	CHECK(f.header.log_file_mode & EVENT_TRACE_COMPRESSED_MODE);
	CHECK_EQ(f.header.buffers_written, 360);
	CHECK_EQ(f.header.provider_version, 9200);
	test_end();

	/* Each compressed buffer gives exactly SavedOffset bytes, its records fill them. */
	test_begin("net_every_buffer_decompresses");
	etl_buffers_begin(&f, &bc);
	while ((rc = etl_next_buffer(&f, &bc, &b, &err)) > 0) {
		int rr;

		if (b.index == 0) {
			CHECK(!b.compressed);
			CHECK_EQ(b.hdr.buffer_size, 0x200);
		} else if (!b.compressed) {
			test_fail("buffer %u is not compressed (BufferFlag 0x%x)", b.index,
				  b.hdr.buffer_flag);
		} else {
			compressed++;
			disk += b.hdr.buffer_size;
			plain += b.hdr.saved_offset;
			CHECK_EQ(b.size, b.hdr.saved_offset);
			CHECK_EQ(b.filled, b.hdr.saved_offset);
			CHECK(b.hdr.buffer_size < b.hdr.saved_offset);
			ours += ETL_BUFFER_HEADER_SIZE + recompress(&b);
			/* The header is the file's, the records right after it. */
			CHECK(!memcmp(b.data, f.data + b.offset, ETL_BUFFER_HEADER_SIZE));
		}
		etl_records_begin(&b, &rcur);
		while ((rr = etl_next_record(&b, &rcur, &r, &err)) > 0)
			;
		if (rr < 0)
			test_fail("%s", err.msg);
		else if (rcur.pos != b.filled)
			test_fail("buffer %u: records end at +0x%llx, SavedOffset 0x%x",
				  b.index, (unsigned long long)rcur.pos, b.filled);
	}
	if (rc < 0)
		test_fail("%s", err.msg);
	CHECK_EQ(compressed, 359);
	CHECK_EQ(disk, 4878889);
	CHECK_EQ(plain, 23042152);
	/* Ours, written to the same layout, takes no more room than Windows'. */
	printf("# PerfView sample: %llu bytes of buffers uncompressed, %llu compressed by Windows, %llu by ntkl\n",
	       (unsigned long long)plain, (unsigned long long)disk, (unsigned long long)ours);
	CHECK(ours <= disk);
	test_end();

	test_begin("net_counts");
	count_file(&f, &c);
	CHECK_STR(c.error, "");
	CHECK_EQ(c.buffers, 360);
	CHECK_EQ(c.events, 179474);
	CHECK_EQ(c.by_hook[ETW_EVENT_SAMPLED_PROFILE_HOOK], 79528);
	CHECK_EQ(c.by_hook[ETW_EVENT_THREAD_DC_START_HOOK], 670);
	CHECK_EQ(c.by_hook[ETW_EVENT_THREAD_DC_END_HOOK], 664);
	counts_free(&c);
	test_end();
	etl_close(&f);
}

/* A dump that must succeed silently: its output (free it). */
static char *dump_clean(const char *path, unsigned int flags)
{
	char *s, *e = NULL;
	int rc;

	s = dump_to_string(path, flags, &rc, &e);
	CHECK_EQ(rc, 0);
	CHECK_STR(e, "");
	free(e);
	return s;
}

/* Every mode of `ntkl dump` on the compressed file. */
static void test_net_dump(void)
{
	char path[4096], *s;

	test_path(path, sizeof(path), test_samples_dir(), NET);
	test_begin("net_dump_summary");
	s = dump_clean(path, 0);
	CHECK_HAS(s, "LogFileMode:         0x04010001 (FILE_MODE_SEQUENTIAL|RELOG_MODE|COMPRESSED_MODE)");
	CHECK_HAS(s, "     1 0x0000000200    15016    65456      3    7  0x60(PROC_INDEX|COMPRESSED)");
	CHECK_HAS(s, "   79528  PERFINFO64          2  0x0f2e PerfInfo/SampleProf");
	CHECK_HAS(s, "Total: 179474 events in 360 buffers");
	CHECK_HAS(s, "Compressed: 359 buffers, 4878889 bytes on disk for 23042152 uncompressed (21.2%)");
	free(s);
	test_end();

	test_begin("net_dump_check");
	s = dump_clean(path, ETL_DUMP_CHECK);
	CHECK_HAS(s, "OK: 360 buffers, 179474 events, every check passed");
	free(s);
	test_end();

	test_begin("net_dump_events");
	s = dump_clean(path, ETL_DUMP_EVENTS);
	CHECK_HAS(s, "[buf 1 cpu 7 +0xe0] 1942893827 (+0.0284952 s) pid 0 tid 0 Thread/DCStart (0x0503 SYSTEM64 v3, 104 bytes)");
	CHECK_HAS(s, "PerfInfo/SampleProf (0x0f2e PERFINFO64 v2, 32 bytes)");
	CHECK(s && !strstr(s, "[payload short"));
	free(s);
	test_end();

	/* No context switches in it: the reports say so, and succeed. */
	test_begin("net_dump_stats_and_switches");
	s = dump_clean(path, ETL_DUMP_STATS);
	CHECK_HAS(s, "Context switches: 0 (CSwitch 0, CompCS 0)");
	/* Each event name once, its versions and header types together. */
	CHECK_HAS(s, "\nEvents by name\n   count  event\n   79528  0x0f2e PerfInfo/SampleProf\n");
	CHECK_HAS(s, "\n    1763  0x1403 Image/DCStart\n");
	CHECK_HAS(s, "\n  179474  total, in 360 buffers\n");
	/*
	 * Samples resolved against the Image events (v2 in this Windows 8
	 * file): the kernel's nearly all; the user ones mostly JIT-compiled
	 * .NET code, which no image holds.
	 */
	CHECK_HAS(s, "IPs in an Image record: kernel 73922 of 73972, 99.93%; user 928 of 5556, 16.70%");
	CHECK_HAS(s, "     73096  91.91%  ntoskrnl.exe\n");
	CHECK_HAS(s, "       707   0.89%  hal.dll\n");
	free(s);
	s = dump_clean(path, ETL_DUMP_SWITCHES);
	CHECK_STR(s, "# cpu time old new clock=1 freq=10000000\n");
	free(s);
	test_end();
}

/* ---------------------------------------------------------------------- */
/* Windows' buffer habits, which ntkl's writer and module follow           */
/* ---------------------------------------------------------------------- */

/*
 * In every uncompressed sample: buffer 0 (HEADER) and the file's last
 * buffer carry FLUSH_MARKER, no other does; each data buffer has a flush
 * TimeStamp and CurrentOffset >= SavedOffset (> for all but a buffer
 * filled to the byte); its bytes 0x38..0x47 are GlobalEntry's list
 * pointers (a buffer's own link sits at +0x38 of a page-aligned buffer),
 * not times: ntkl writes ReferenceTime there instead (docs/linux-to-nt.md).
 */
static void check_buffer_habits(const char *dir, const char *name)
{
	struct etl_file f;
	struct etl_cursor bc;
	struct etl_buffer b;
	struct etl_error err;
	uint32_t n = 0, last = 0, marked_data = 0;
	uint16_t last_flag = 0;

	if (!open_sample(&f, dir, name))
		return;
	etl_buffers_begin(&f, &bc);
	while (etl_next_buffer(&f, &bc, &b, &err) > 0) {
		const struct wmi_buffer_header *h = &b.hdr;

		if (b.index == 0) {
			CHECK_EQ(h->buffer_type, ETW_BUFFER_TYPE_HEADER);
			CHECK(h->buffer_flag & ETW_BUFFER_FLAG_FLUSH_MARKER);
		} else {
			uint64_t flink = (uint64_t)h->start_time;
			uint64_t blink = (uint64_t)h->start_perf_clock;

			CHECK_EQ(h->buffer_type, ETW_BUFFER_TYPE_GENERIC);
			CHECK(h->timestamp != 0);
			CHECK(h->current_offset >= h->saved_offset);
			if (h->saved_offset < h->buffer_size)
				CHECK(h->current_offset > h->saved_offset);
			CHECK((flink & 0xFFF) == 0x38 || (blink & 0xFFF) == 0x38);
			if (h->buffer_flag & ETW_BUFFER_FLAG_FLUSH_MARKER)
				marked_data++;
			last = b.index;
			last_flag = h->buffer_flag;
		}
		n++;
	}
	CHECK(n >= 2);
	CHECK_EQ(marked_data, 1);
	CHECK(last > 0 && (last_flag & ETW_BUFFER_FLAG_FLUSH_MARKER));
	etl_close(&f);
}

static void test_buffer_habits(void)
{
	const char *dir = test_samples_dir();

	test_begin("buffer_habits_of_windows");
	check_buffer_habits(dir, SPDL);
	check_buffer_habits(dir, LXCORE);
	check_buffer_habits(dir, AMSI);
	check_buffer_habits(test_samples_out_dir(), TLT);
	test_end();
}

/*
 * SystemConfig records ntkl writes, in the layouts Windows 11 wrote them
 * (TraceLoggingTester): every field where TraceEvent's parser reads it.
 * The expected text was read off the bytes by hand (a hex dump).
 */
static void test_tlt_sysconfig(void)
{
	struct etl_record r;
	struct etl_file f;
	char *s;

	test_begin("tlt_sysconfig_layouts");
	if (!open_sample(&f, test_samples_out_dir(), TLT)) {
		test_end();
		return;
	}
	s = decode_nth(&f, ETW_EVENT_CONFIG_PROCESSORGROUP_HOOK, 0, &r);
	CHECK_EQ(r.payload_len, 12);
	CHECK_HAS(s, "ProcessorGroup: ActiveGroupCount=1 Mask[0]=0xfffff\n");
	free(s);
	s = decode_nth(&f, ETW_EVENT_CONFIG_NUMANODE_HOOK, 0, &r);
	CHECK_EQ(r.payload_len, 20);
	CHECK_HAS(s, "NumaNode: NodeCount=1 Mask[0]=0xfffff Group[0]=0\n");
	free(s);
	s = decode_nth(&f, ETW_EVENT_CONFIG_NIC_HOOK, 0, &r);
	CHECK_HAS(s, "NIC: PhysicalAddr=0x4fe368d3a870 PhysicalAddrLen=6 Ipv4Index=13 Ipv6Index=13 "
		  "NICDescription=\"Intel(R) Wi-Fi 6 AX201 160MHz\" IpAddresses=\"2003:ee:b700:"
		  "ef12:bcfd:ee17:d923:b935;2003:ee:b700:ef12:7c3b:d7e0:3c:1c2c;fe80::1f0d:2e28:"
		  "28b5:c1d7;192.168.2.127\" DnsServerAddresses=\"fe80::1;192.168.2.1;fe80::1\"\n");
	free(s);
	/* the loopback: no hardware address */
	s = decode_nth(&f, ETW_EVENT_CONFIG_NIC_HOOK, 5, &r);
	CHECK_HAS(s, "PhysicalAddr=0x0 PhysicalAddrLen=0 Ipv4Index=1 Ipv6Index=1 "
		  "NICDescription=\"Software Loopback Interface 1\" IpAddresses=\"::1;127.0.0.1\"");
	free(s);
	s = decode_nth(&f, ETW_EVENT_CONFIG_IRQ_HOOK, 0, &r);
	CHECK_EQ(r.payload_len, 142);
	CHECK_HAS(s, "IRQ: IRQAffinity=0x0 IRQGroup=1 IRQNum=-6 DeviceDescriptionLen=61 "
		  "DeviceDescription=\"PCI\\\\VEN_8086&DEV_7ABA&SUBSYS_86941043&REV_11\\\\3&11583659&0&E2\"\n");
	free(s);
	/* disks: decoded and checked, not written by ntkl yet */
	s = decode_nth(&f, ETW_EVENT_CONFIG_PHYSICALDISK_HOOK, 0, &r);
	CHECK_EQ(r.payload_len, 568);
	CHECK_HAS(s, "PhyDisk: DiskNumber=0 BytesPerSector=512 SectorsPerTrack=63 "
		  "TracksPerCylinder=255 Cylinders=243201 SCSIPort=2 SCSIPath=0 SCSITarget=0 "
		  "SCSILun=0 Manufacturer=\"Samsung SSD 970 EVO Plus 2TB\" PartitionCount=4 "
		  "WriteCacheEnabled=1 BootDriveLetter=\"C\"\n");
	free(s);
	s = decode_nth(&f, ETW_EVENT_CONFIG_LOGICALDISK_HOOK, 0, &r);
	CHECK_EQ(r.payload_len, 112);
	CHECK_HAS(s, "LogDisk: StartOffset=240123904 PartitionSize=1999263236096 DiskNumber=0 "
		  "Size=112 DriveType=1 DriveLetterString=\"C:\" PartitionNumber=3 "
		  "SectorsPerCluster=8 BytesPerSector=512 NumberOfFreeClusters=46429686 "
		  "TotalNumberOfClusters=488101375 FileSystem=\"NTFS\" VolumeExt=0\n");
	free(s);
	s = decode_nth(&f, ETW_EVENT_CONFIG_IRQ_HOOK, 1, &r);
	CHECK_HAS(s, "IRQ: IRQAffinity=0xffffffff IRQGroup=0 IRQNum=4 DeviceDescriptionLen=15 "
		  "DeviceDescription=\"ACPI\\\\PNP0501\\\\0\"\n");
	free(s);
	etl_close(&f);
	test_end();
}

/*
 * The samples were recorded in Central Europe (Bias -60): the POSIX rule
 * of that zone must give the TIME_ZONE_INFORMATION Windows wrote, but for
 * the names (Windows writes tzres.dll resource ids, ntkl the abbreviations).
 */
static void check_time_zone(const char *dir, const char *name)
{
	struct etw_time_zone_information mine;
	const struct etw_time_zone_information *w;
	struct etl_file f;
	int64_t unix_start;

	if (!open_sample(&f, dir, name))
		return;
	w = &f.header.time_zone;
	unix_start = (f.header.start_time - ETW_FILETIME_UNIX_EPOCH) / ETW_FILETIME_PER_SECOND;
	ntkl_time_zone(unix_start, &mine);
	CHECK_EQ(mine.bias, w->bias);
	CHECK_EQ(mine.standard_bias, w->standard_bias);
	CHECK_EQ(mine.daylight_bias, w->daylight_bias);
	CHECK(!memcmp(&mine.standard_date, &w->standard_date, sizeof(mine.standard_date)));
	CHECK(!memcmp(&mine.daylight_date, &w->daylight_date, sizeof(mine.daylight_date)));
	CHECK_EQ(mine.standard_name[0], 'C');
	CHECK_EQ(mine.daylight_name[3], 'T');	/* "CEST" */
	etl_close(&f);
}

static void test_time_zone(void)
{
	char *old = getenv("TZ") ? strdup(getenv("TZ")) : NULL;

	test_begin("time_zone_as_windows");
	setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1);
	check_time_zone(test_samples_dir(), SPDL);
	check_time_zone(test_samples_out_dir(), TLT);
	if (old)
		setenv("TZ", old, 1);
	else
		unsetenv("TZ");
	free(old);
	tzset();
	test_end();
}

int main(void)
{
	if (!test_samples_here("samples"))
		return test_exit();
	test_every_file();
	test_spdl();
	test_lxcore();
	test_amsi();
	test_tlt();
	test_net_compressed();
	test_net_dump();
	test_buffer_habits();
	test_tlt_sysconfig();
	test_time_zone();
	return test_exit();
}
